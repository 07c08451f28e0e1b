#include "pkg/plugins/nodename/node_name.h"

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::plugins {
namespace {

using framework::Code;
using testing::NodeBuilder;
using testing::PodBuilder;

// "<index>_<case name>" with what gtest does not allow in names as '_'.
template <typename Case>
std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string out = std::to_string(info.index) + "_";
  for (char ch : info.param.name) {
    out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  return out;
}

struct FilterCase {
  std::string name;
  PodBuilder pod;
  NodeBuilder node;
  Code code;
  std::vector<std::string> reasons;
  friend void PrintTo(const FilterCase& c, std::ostream* os) { *os << c.name; }
};

// Cases from kube-scheduler's TestNodeName.
std::vector<FilterCase> FilterCases() {
  return {
      {"no host specified",
       PodBuilder("p"),
       NodeBuilder("foo"),
       Code::kSuccess,
       {}},
      {"host matches",
       PodBuilder("p").Node("foo"),
       NodeBuilder("foo"),
       Code::kSuccess,
       {}},
      {"host doesn't match",
       PodBuilder("p").Node("bar"),
       NodeBuilder("foo"),
       Code::kUnschedulableAndUnresolvable,
       {"node(s) didn't match the requested node name"}},
  };
}

class NodeNameFilterTest : public ::testing::TestWithParam<FilterCase> {};

TEST_P(NodeNameFilterTest, Filter) {
  const FilterCase& c = GetParam();
  testing::FakeHandle handle;
  auto plugin = NewNodeName(nullptr, handle);
  ASSERT_TRUE(plugin.ok());
  auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin->get());
  ASSERT_NE(filter, nullptr);
  framework::CycleState state;
  auto node = testing::MakeNodeInfo(c.node.Obj());
  framework::Status s = filter->Filter(state, *c.pod.Info(), *node);
  EXPECT_EQ(framework::CodeName(s.code()), framework::CodeName(c.code));
  EXPECT_EQ(s.reasons(), c.reasons);
}

INSTANTIATE_TEST_SUITE_P(TestNodeName, NodeNameFilterTest,
                         ::testing::ValuesIn(FilterCases()),
                         CaseName<FilterCase>);

TEST(NodeNameTest, EventsToRegister) {
  NodeName plugin;
  auto events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.Label(), "Node/Add");
  EXPECT_FALSE(events[0].hint);
}

}  // namespace
}  // namespace ksched::plugins
