#include "pkg/plugins/nodeunschedulable/node_unschedulable.h"

#include <gtest/gtest.h>

#include <cctype>
#include <optional>
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

// kube's TestIsSchedulableAfterNodeChange (its wrong-type cases do not
// arise with typed event objects).
struct NodeHintCase {
  std::string name;
  std::optional<api::Node> old_node;
  api::Node new_node;
  framework::QueueingHint want;
};

class NodeUnschedulableNodeHintTest
    : public ::testing::TestWithParam<NodeHintCase> {};

TEST_P(NodeUnschedulableNodeHintTest, Hint) {
  const NodeHintCase& c = GetParam();
  framework::EventObjects objs;
  objs.old_node = c.old_node ? &*c.old_node : nullptr;
  objs.new_node = &c.new_node;
  EXPECT_EQ(NodeUnschedulable::HintAfterNodeChange(PodBuilder("p").Obj(), objs),
            c.want);
}

api::Node NotReadyTainted(bool unschedulable) {
  return NodeBuilder("n")
      .Unschedulable(unschedulable)
      .Taint("node.kubernetes.io/not-ready", "", TaintEffect::kNoExecute)
      .Obj();
}

INSTANTIATE_TEST_SUITE_P(
    IsSchedulableAfterNodeChange, NodeUnschedulableNodeHintTest,
    ::testing::Values(
        NodeHintCase{"SkipQueueOnUnschedulableNodeAdded", std::nullopt,
                     NodeBuilder("n").Unschedulable(true).Obj(),
                     framework::QueueingHint::kQueueSkip},
        NodeHintCase{"QueueOnSchedulableNodeAdded", std::nullopt,
                     NodeBuilder("n").Obj(), framework::QueueingHint::kQueue},
        NodeHintCase{"SkipUnrelatedChangeUnschedulableTrue",
                     NodeBuilder("n").Unschedulable(true).Obj(),
                     NotReadyTainted(true),
                     framework::QueueingHint::kQueueSkip},
        NodeHintCase{"SkipUnrelatedChangeUnschedulableFalse",
                     NodeBuilder("n").Obj(), NotReadyTainted(false),
                     framework::QueueingHint::kQueueSkip},
        NodeHintCase{"QueueOnUnschedulableFieldChange",
                     NodeBuilder("n").Unschedulable(true).Obj(),
                     NodeBuilder("n").Obj(), framework::QueueingHint::kQueue}),
    [](const ::testing::TestParamInfo<NodeHintCase>& info) {
      return info.param.name;
    });

// kube's TestIsSchedulableAfterPodTolerationChange.
TEST(NodeUnschedulableTest, PodTolerationHint) {
  const api::Pod pod = PodBuilder("p").Uid("uid").Obj();
  auto with = [](const std::string& uid, const std::string& toleration_key) {
    PodBuilder b("p");
    b.Uid(uid);
    if (!toleration_key.empty()) {
      b.Toleration(toleration_key, "", TaintEffect::kNone,
                   TolerationOperator::kExists);
    }
    return b.Obj();
  };
  auto hint = [&](const api::Pod& before, const api::Pod& after) {
    framework::EventObjects objs;
    objs.old_pod = &before;
    objs.new_pod = &after;
    return NodeUnschedulable::HintAfterPodTolerationChange(pod, objs);
  };
  // skip-different-pod-update
  EXPECT_EQ(hint(with("different-uid", ""),
                 with("different-uid", "node.kubernetes.io/unschedulable")),
            framework::QueueingHint::kQueueSkip);
  // queue-when-the-unsched-pod-gets-toleration
  EXPECT_EQ(
      hint(with("uid", ""), with("uid", "node.kubernetes.io/unschedulable")),
      framework::QueueingHint::kQueue);
  // skip-when-the-unsched-pod-gets-unrelated-toleration
  EXPECT_EQ(hint(with("uid", ""), with("uid", "unrelated-key")),
            framework::QueueingHint::kQueueSkip);
}

}  // namespace
}  // namespace ksched::plugins
