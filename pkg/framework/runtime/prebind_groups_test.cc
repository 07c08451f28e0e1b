#include "pkg/framework/runtime/prebind_groups.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace ksched::framework {
namespace {

class NamedPreBind final : public PreBindPlugin {
 public:
  explicit NamedPreBind(std::string name) : name_(std::move(name)) {}
  std::string_view Name() const override { return name_; }
  Status PreBind(CycleState&, const PodInfo&, const std::string&) override {
    return Status();
  }

 private:
  std::string name_;
};

struct GroupsCase {
  const char* name;
  int plugins;  // p1..pN, in profile order
  PluginNames parallel;
  PluginNames skipped;
  std::vector<std::vector<std::string>> want;
};

// kube v1.36's TestGetPreBindPluginGroups, case for case.
TEST(PreBindPluginGroupsTest, KubeCases) {
  const std::vector<GroupsCase> cases = {
      {"No plugins", 0, {}, {}, {}},
      {"Single plugin, not skipped, not parallel", 1, {}, {}, {{"p1"}}},
      {"Single plugin, skipped", 1, {}, {"p1"}, {}},
      {"Single plugin, parallel", 1, {"p1"}, {}, {{"p1"}}},
      {"Single plugin, parallel & skipped", 1, {"p1"}, {"p1"}, {}},
      {"Multiple plugins, consecutive serial", 2, {}, {}, {{"p1"}, {"p2"}}},
      {"Multiple plugins, consecutive parallel",
       2,
       {"p1", "p2"},
       {},
       {{"p1", "p2"}}},
      {"Multiple plugins, mixed parallel and serial",
       4,
       {"p2", "p3"},
       {},
       {{"p1"}, {"p2", "p3"}, {"p4"}}},
      {"Parallel plugins separated by serial",
       3,
       {"p1", "p3"},
       {},
       {{"p1"}, {"p2"}, {"p3"}}},
      {"Skipped plugins", 3, {}, {"p2"}, {{"p1"}, {"p3"}}},
      {"Parallel plugins with one skipped in between",
       3,
       {"p1", "p2", "p3"},
       {"p2"},
       {{"p1", "p3"}}},
      {"Parallel plugins with one serial & skipped in between",
       3,
       {"p1", "p3"},
       {"p2"},
       {{"p1"}, {"p3"}}},
      {"Complex mix",
       8,
       {"p2", "p4", "p5", "p6"},
       {"p3", "p5"},
       {{"p1"}, {"p2"}, {"p4", "p6"}, {"p7"}, {"p8"}}},
  };
  for (const GroupsCase& c : cases) {
    std::vector<std::unique_ptr<NamedPreBind>> owned;
    std::vector<PreBindPlugin*> plugins;
    for (int i = 1; i <= c.plugins; ++i) {
      owned.push_back(std::make_unique<NamedPreBind>("p" + std::to_string(i)));
      plugins.push_back(owned.back().get());
    }
    std::vector<std::vector<std::string>> got;
    for (const auto& group :
         PreBindPluginGroups(plugins, c.skipped, c.parallel)) {
      got.emplace_back();
      for (const PreBindPlugin* pl : group) {
        got.back().emplace_back(pl->Name());
      }
    }
    EXPECT_EQ(got, c.want) << c.name;
  }
}

}  // namespace
}  // namespace ksched::framework
