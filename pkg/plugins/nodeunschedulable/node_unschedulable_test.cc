#include "pkg/plugins/nodeunschedulable/node_unschedulable.h"

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::plugins {
namespace {

using api::TaintEffect;
using api::TolerationOperator;
using framework::Code;
using testing::NodeBuilder;
using testing::PodBuilder;

constexpr const char* kTaintKey = "node.kubernetes.io/unschedulable";

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

// Cases from kube-scheduler's TestNodeUnschedulable, plus toleration
// variants that exercise the same taint matching.
std::vector<FilterCase> FilterCases() {
  const std::vector<std::string> unschedulable = {"node(s) were unschedulable"};
  return {
      {"Does not schedule pod to unschedulable node "
       "(node.Spec.Unschedulable==true)",
       PodBuilder("p"), NodeBuilder("n").Unschedulable(),
       Code::kUnschedulableAndUnresolvable, unschedulable},
      {"Schedule pod to normal node",
       PodBuilder("p"),
       NodeBuilder("n"),
       Code::kSuccess,
       {}},
      {"Schedule pod with toleration to unschedulable node "
       "(node.Spec.Unschedulable==true)",
       PodBuilder("p").Toleration(kTaintKey, "", TaintEffect::kNoSchedule),
       NodeBuilder("n").Unschedulable(),
       Code::kSuccess,
       {}},
      {"Exists toleration without effect tolerates the cordon",
       PodBuilder("p").Toleration(kTaintKey, "", TaintEffect::kNone,
                                  TolerationOperator::kExists),
       NodeBuilder("n").Unschedulable(),
       Code::kSuccess,
       {}},
      {"toleration with another effect does not tolerate the cordon",
       PodBuilder("p").Toleration(kTaintKey, "", TaintEffect::kNoExecute),
       NodeBuilder("n").Unschedulable(), Code::kUnschedulableAndUnresolvable,
       unschedulable},
      {"the taint itself is not checked here (TaintToleration's job)",
       PodBuilder("p"),
       NodeBuilder("n").Taint(kTaintKey, "", TaintEffect::kNoSchedule),
       Code::kSuccess,
       {}},
  };
}

class NodeUnschedulableFilterTest
    : public ::testing::TestWithParam<FilterCase> {};

TEST_P(NodeUnschedulableFilterTest, Filter) {
  const FilterCase& c = GetParam();
  testing::FakeHandle handle;
  auto plugin = NewNodeUnschedulable(nullptr, handle);
  ASSERT_TRUE(plugin.ok());
  auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin->get());
  ASSERT_NE(filter, nullptr);
  framework::CycleState state;
  auto node = testing::MakeNodeInfo(c.node.Obj());
  framework::Status s = filter->Filter(state, *c.pod.Info(), *node);
  EXPECT_EQ(framework::CodeName(s.code()), framework::CodeName(c.code));
  EXPECT_EQ(s.reasons(), c.reasons);
}

INSTANTIATE_TEST_SUITE_P(TestNodeUnschedulable, NodeUnschedulableFilterTest,
                         ::testing::ValuesIn(FilterCases()),
                         CaseName<FilterCase>);

TEST(NodeUnschedulableTest, NodeInfoWithoutNodeIsUnresolvable) {
  NodeUnschedulable plugin;
  framework::CycleState state;
  framework::NodeInfo empty;
  framework::Status s = plugin.Filter(state, *PodBuilder("p").Info(), empty);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "node(s) had unknown conditions");
}

TEST(NodeUnschedulableTest, EventsToRegister) {
  NodeUnschedulable plugin;
  auto events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.Label(), "Node/Add|UpdateNodeTaint");
  EXPECT_EQ(events[1].event.Label(), "Pod/UpdatePodToleration");
}

}  // namespace
}  // namespace ksched::plugins
