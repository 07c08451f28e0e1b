#include "pkg/plugins/tainttoleration/taint_toleration.h"

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

constexpr TaintEffect kNoSchedule = TaintEffect::kNoSchedule;
constexpr TaintEffect kPrefer = TaintEffect::kPreferNoSchedule;

std::unique_ptr<framework::Plugin> MakePlugin() {
  testing::FakeHandle handle;
  auto plugin = NewTaintToleration(nullptr, handle);
  EXPECT_TRUE(plugin.ok());
  return std::move(plugin).value();
}

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

// Cases from kube-scheduler's TestTaintTolerationFilter, plus NoExecute and
// several untolerated taints.
std::vector<FilterCase> FilterCases() {
  return {
      {"A pod having no tolerations can't be scheduled onto a node with "
       "nonempty taints",
       PodBuilder("pod1"),
       NodeBuilder("nodeA").Taint("dedicated", "user1", kNoSchedule),
       Code::kUnschedulableAndUnresolvable,
       {"node(s) had untolerated taint(s)"}},
      {"A pod which can be scheduled on a dedicated node assigned to user1 "
       "with effect NoSchedule",
       PodBuilder("pod1").Toleration("dedicated", "user1", kNoSchedule,
                                     TolerationOperator::kNone),
       NodeBuilder("nodeA").Taint("dedicated", "user1", kNoSchedule),
       Code::kSuccess,
       {}},
      {"A pod which can't be scheduled on a dedicated node assigned to user2 "
       "with effect NoSchedule",
       PodBuilder("pod1").Toleration("dedicated", "user2", kNoSchedule),
       NodeBuilder("nodeA").Taint("dedicated", "user1", kNoSchedule),
       Code::kUnschedulableAndUnresolvable,
       {"node(s) had untolerated taint(s)"}},
      {"A pod can be scheduled onto the node, with a toleration uses operator "
       "Exists that tolerates the taints on the node",
       PodBuilder("pod1").Toleration("foo", "", kNoSchedule,
                                     TolerationOperator::kExists),
       NodeBuilder("nodeA").Taint("foo", "bar", kNoSchedule),
       Code::kSuccess,
       {}},
      {"A pod has multiple tolerations, node has multiple taints, all the "
       "taints are tolerated, pod can be scheduled onto the node",
       PodBuilder("pod1")
           .Toleration("dedicated", "user2", kNoSchedule)
           .Toleration("foo", "", kNoSchedule, TolerationOperator::kExists),
       NodeBuilder("nodeA")
           .Taint("dedicated", "user2", kNoSchedule)
           .Taint("foo", "bar", kNoSchedule),
       Code::kSuccess,
       {}},
      {"A pod has a toleration that keys and values match the taint on the "
       "node, but (non-empty) effect doesn't match, can't be scheduled onto "
       "the node",
       PodBuilder("pod1").Toleration("foo", "bar", kPrefer),
       NodeBuilder("nodeA").Taint("foo", "bar", kNoSchedule),
       Code::kUnschedulableAndUnresolvable,
       {"node(s) had untolerated taint(s)"}},
      {"The pod has a toleration that keys and values match the taint on the "
       "node, the effect of toleration is empty, and the effect of taint is "
       "NoSchedule. Pod can be scheduled onto the node",
       PodBuilder("pod1").Toleration("foo", "bar", TaintEffect::kNone),
       NodeBuilder("nodeA").Taint("foo", "bar", kNoSchedule),
       Code::kSuccess,
       {}},
      {"The pod has a toleration that key and value don't match the taint on "
       "the node, but the effect of taint on node is PreferNoSchedule. Pod "
       "can be scheduled onto the node",
       PodBuilder("pod1").Toleration("dedicated", "user2", kNoSchedule),
       NodeBuilder("nodeA").Taint("dedicated", "user1", kPrefer),
       Code::kSuccess,
       {}},
      {"The pod has no toleration, but the effect of taint on node is "
       "PreferNoSchedule. Pod can be scheduled onto the node",
       PodBuilder("pod1"),
       NodeBuilder("nodeA").Taint("dedicated", "user1", kPrefer),
       Code::kSuccess,
       {}},
      {"An untolerated NoExecute taint rejects the pod too",
       PodBuilder("pod1"),
       NodeBuilder("nodeA").Taint("node.kubernetes.io/not-ready", "",
                                  TaintEffect::kNoExecute),
       Code::kUnschedulableAndUnresolvable,
       {"node(s) had untolerated taint(s)"}},
      {"The first untolerated taint is the one reported",
       PodBuilder("pod1").Toleration("a", "1", kNoSchedule),
       NodeBuilder("nodeA")
           .Taint("a", "1", kNoSchedule)
           .Taint("b", "2", kNoSchedule)
           .Taint("c", "3", kNoSchedule),
       Code::kUnschedulableAndUnresolvable,
       {"node(s) had untolerated taint(s)"}},
  };
}

class TaintTolerationFilterTest : public ::testing::TestWithParam<FilterCase> {
};

TEST_P(TaintTolerationFilterTest, Filter) {
  const FilterCase& c = GetParam();
  auto plugin = MakePlugin();
  auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin.get());
  ASSERT_NE(filter, nullptr);
  framework::CycleState state;
  auto node = testing::MakeNodeInfo(c.node.Obj());
  framework::Status s = filter->Filter(state, *c.pod.Info(), *node);
  EXPECT_EQ(framework::CodeName(s.code()), framework::CodeName(c.code));
  EXPECT_EQ(s.reasons(), c.reasons);
}

INSTANTIATE_TEST_SUITE_P(TestTaintTolerationFilter, TaintTolerationFilterTest,
                         ::testing::ValuesIn(FilterCases()),
                         CaseName<FilterCase>);

struct Expected {
  std::string node;
  int64_t score;
  friend bool operator==(const Expected&, const Expected&) = default;
  friend void PrintTo(const Expected& e, std::ostream* os) {
    *os << e.node << ":" << e.score;
  }
};

// Runs PreScore, Score on every node and NormalizeScore, as the framework
// does, and returns the normalised scores.
std::vector<Expected> RunScore(framework::Plugin& plugin,
                               const PodBuilder& pod_builder,
                               const std::vector<NodeBuilder>& nodes) {
  auto* pre_score = dynamic_cast<framework::PreScorePlugin*>(&plugin);
  auto* score = dynamic_cast<framework::ScorePlugin*>(&plugin);
  std::vector<framework::NodeInfoPtr> infos;
  for (const NodeBuilder& n : nodes) {
    infos.push_back(testing::MakeNodeInfo(n.Obj()));
  }
  framework::CycleState state;
  auto pod = pod_builder.Info();
  framework::Status s = pre_score->PreScore(state, *pod, infos);
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
  framework::NodeScoreList list;
  for (const auto& info : infos) {
    int64_t value = -1;
    s = score->Score(state, *pod, *info, &value);
    EXPECT_TRUE(s.IsSuccess()) << s.Message();
    list.push_back({info->name(), value});
  }
  EXPECT_TRUE(score->HasNormalizeScore());
  s = score->NormalizeScore(state, *pod, list);
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
  std::vector<Expected> out;
  for (const auto& ns : list) out.push_back({std::string(ns.name), ns.score});
  return out;
}

struct ScoreCase {
  std::string name;
  PodBuilder pod;
  std::vector<NodeBuilder> nodes;
  std::vector<Expected> expected;
  friend void PrintTo(const ScoreCase& c, std::ostream* os) { *os << c.name; }
};

// Cases from kube-scheduler's TestTaintTolerationScore, plus tolerations
// without effect, all-zero counts and integer truncation.
std::vector<ScoreCase> ScoreCases() {
  return {
      {"node with taints tolerated by the pod, gets a higher score than those "
       "node with intolerable taints",
       PodBuilder("pod1").Toleration("foo", "bar", kPrefer),
       {NodeBuilder("nodeA").Taint("foo", "bar", kPrefer),
        NodeBuilder("nodeB").Taint("foo", "blah", kPrefer)},
       {{"nodeA", 100}, {"nodeB", 0}}},
      {"the nodes that all of their taints are tolerated by the pod, get the "
       "same score, no matter how many tolerable taints a node has",
       PodBuilder("pod1")
           .Toleration("cpu-type", "arm64", kPrefer)
           .Toleration("disk-type", "ssd", kPrefer),
       {NodeBuilder("nodeA"),
        NodeBuilder("nodeB").Taint("cpu-type", "arm64", kPrefer),
        NodeBuilder("nodeC")
            .Taint("cpu-type", "arm64", kPrefer)
            .Taint("disk-type", "ssd", kPrefer)},
       {{"nodeA", 100}, {"nodeB", 100}, {"nodeC", 100}}},
      {"the more intolerable taints a node has, the lower score it gets.",
       PodBuilder("pod1").Toleration("foo", "bar", kPrefer),
       {NodeBuilder("nodeA"),
        NodeBuilder("nodeB").Taint("cpu-type", "arm64", kPrefer),
        NodeBuilder("nodeC")
            .Taint("cpu-type", "arm64", kPrefer)
            .Taint("disk-type", "ssd", kPrefer)},
       {{"nodeA", 100}, {"nodeB", 50}, {"nodeC", 0}}},
      {"only taints and tolerations that have effect PreferNoSchedule are "
       "checked by taints-tolerations priority function",
       PodBuilder("pod1")
           .Toleration("cpu-type", "arm64", kNoSchedule)
           .Toleration("disk-type", "ssd", kNoSchedule),
       {NodeBuilder("nodeA"),
        NodeBuilder("nodeB").Taint("cpu-type", "arm64", kNoSchedule),
        NodeBuilder("nodeC")
            .Taint("cpu-type", "arm64", kPrefer)
            .Taint("disk-type", "ssd", kPrefer)},
       {{"nodeA", 100}, {"nodeB", 100}, {"nodeC", 0}}},
      {"Default behaviour No taints and tolerations, lands on node with no "
       "taints",
       PodBuilder("pod1"),
       {NodeBuilder("nodeA"),
        NodeBuilder("nodeB").Taint("cpu-type", "arm64", kPrefer)},
       {{"nodeA", 100}, {"nodeB", 0}}},
      {"a toleration without effect counts for PreferNoSchedule taints",
       PodBuilder("pod1").Toleration("cpu-type", "", TaintEffect::kNone,
                                     TolerationOperator::kExists),
       {NodeBuilder("nodeA").Taint("cpu-type", "arm64", kPrefer),
        NodeBuilder("nodeB").Taint("disk-type", "ssd", kPrefer)},
       {{"nodeA", 100}, {"nodeB", 0}}},
      {"no node has an untolerated taint: every node gets the maximum",
       PodBuilder("pod1"),
       {NodeBuilder("nodeA"),
        NodeBuilder("nodeB").Taint("k", "v", kNoSchedule)},
       {{"nodeA", 100}, {"nodeB", 100}}},
      {"integer scaling truncates before reversing",
       PodBuilder("pod1"),
       {NodeBuilder("nodeA").Taint("a", "", kPrefer),
        NodeBuilder("nodeB")
            .Taint("a", "", kPrefer)
            .Taint("b", "", kPrefer)
            .Taint("c", "", kPrefer)},
       {{"nodeA", 67}, {"nodeB", 0}}},
  };
}

class TaintTolerationScoreTest : public ::testing::TestWithParam<ScoreCase> {};

TEST_P(TaintTolerationScoreTest, Score) {
  const ScoreCase& c = GetParam();
  auto plugin = MakePlugin();
  EXPECT_EQ(RunScore(*plugin, c.pod, c.nodes), c.expected);
}

INSTANTIATE_TEST_SUITE_P(TestTaintTolerationScore, TaintTolerationScoreTest,
                         ::testing::ValuesIn(ScoreCases()),
                         CaseName<ScoreCase>);

TEST(TaintTolerationTest, ScoreWithoutPreScoreIsAnError) {
  auto plugin = MakePlugin();
  auto* score = dynamic_cast<framework::ScorePlugin*>(plugin.get());
  framework::CycleState state;
  auto node = testing::MakeNodeInfo(NodeBuilder("n").Obj());
  int64_t value = 0;
  framework::Status s =
      score->Score(state, *PodBuilder("p").Info(), *node, &value);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "failed to read \"PreScoreTaintToleration\" from cycleState: not "
            "found");
}

TEST(TaintTolerationTest, EventsToRegister) {
  auto plugin = MakePlugin();
  auto* ext = dynamic_cast<framework::EnqueueExtensions*>(plugin.get());
  ASSERT_NE(ext, nullptr);
  auto events = ext->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.Label(), "Node/Add|UpdateNodeTaint");
  EXPECT_EQ(events[1].event.Label(), "Pod/UpdatePodToleration");
}

}  // namespace
}  // namespace ksched::plugins
