#include "pkg/scheduler/algorithm.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "pkg/config/config.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/default_profile_test_base.h"
#include "pkg/scheduler/profile.h"
#include "pkg/util/fake_clock.h"

namespace ksched::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;

// Cases after kube-scheduler's TestNumFeasibleNodesToFind.
TEST(NumFeasibleNodesToFindTest, AdaptiveAndConfiguredPercentages) {
  struct Case {
    int32_t percentage;
    int32_t nodes;
    int32_t want;
  } cases[] = {
      {0, 10, 10},     {40, 10, 10},    {0, 1000, 420},   {40, 1000, 400},
      {70, 1000, 700}, {0, 6000, 300},  {40, 6000, 2400}, {0, 500, 230},
      {0, 5000, 500},  {0, 15000, 750}, {1, 1000, 100},   {100, 150, 150},
      {0, 99, 99},     {0, 100, 100},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(NumFeasibleNodesToFind(c.percentage, c.nodes), c.want)
        << c.percentage << "% of " << c.nodes;
  }
}

class FixedRandom final : public util::Random {
 public:
  uint64_t Intn(uint64_t n) override { return counter_++ % n; }

 private:
  uint64_t counter_ = 0;
};

// After kube-scheduler's TestSelectHost: the highest total wins; ties are
// broken among the tied nodes only, each of them reachable.
TEST(SelectHostTest, PicksAmongTheBestOnly) {
  util::DefaultRandom random(42);
  SchedulingAlgorithm algorithm(0, random);
  std::vector<framework::NodeInfoPtr> nodes;
  for (const char* n : {"a", "b", "c", "d"}) {
    nodes.push_back(testing::MakeNodeInfo(NodeBuilder(n).Obj()));
  }
  std::vector<framework::NodePluginScores> scores = {{nodes[0].get(), 1},
                                                     {nodes[1].get(), 2},
                                                     {nodes[2].get(), 2},
                                                     {nodes[3].get(), 0}};
  std::map<std::string, int> picked;
  for (int i = 0; i < 2000; ++i) ++picked[algorithm.SelectHost(scores)];
  EXPECT_EQ(picked.size(), 2u);
  EXPECT_GT(picked["b"], 800);
  EXPECT_GT(picked["c"], 800);
  EXPECT_EQ(algorithm.SelectHost({{nodes[3].get(), 7}}), "d");
  EXPECT_EQ(algorithm.SelectHost({}), "");
}

class AlgorithmTest : public test::DefaultProfileTest {
 protected:
  ScheduleResult Schedule(const framework::PodInfo& pod,
                          std::vector<framework::NodeInfoPtr> nodes) {
    snapshot_.Reset(std::move(nodes));
    fwk_->SetSnapshot(&snapshot_);
    framework::CycleState state;
    return algorithm_.Schedule(*fwk_, state, pod, snapshot_);
  }

  static std::vector<framework::NodeInfoPtr> Nodes(int n,
                                                   const char* cpu = "4") {
    std::vector<framework::NodeInfoPtr> nodes;
    for (int i = 0; i < n; ++i) {
      nodes.push_back(testing::MakeNodeInfo(
          NodeBuilder("n" + std::to_string(i))
              .Capacity({{"cpu", cpu}, {"memory", "8Gi"}, {"pods", "110"}})
              .Obj()));
    }
    return nodes;
  }

  framework::Snapshot snapshot_;
  util::DefaultRandom random_{1};
  SchedulingAlgorithm algorithm_{0, random_};
};

TEST_F(AlgorithmTest, NoNodes) {
  ScheduleResult r = Schedule(*PodBuilder().Info(), {});
  EXPECT_EQ(r.kind, ScheduleResult::Kind::kError);
  EXPECT_EQ(r.FailureMessage(), "no nodes available to schedule pods");
}

TEST_F(AlgorithmTest, NothingFitsExplainsEveryNode) {
  auto nodes = Nodes(3, "1");
  nodes.push_back(testing::MakeNodeInfo(
      NodeBuilder("tainted")
          .Capacity({{"cpu", "8"}, {"pods", "110"}})
          .Taint("dedicated", "gpu", api::TaintEffect::kNoSchedule)
          .Obj()));
  ScheduleResult r = Schedule(*PodBuilder().Req({{"cpu", "2"}}).Info(), nodes);
  ASSERT_EQ(r.kind, ScheduleResult::Kind::kNoFit);
  EXPECT_EQ(r.FailureMessage(),
            "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 "
            "Insufficient cpu.");
  EXPECT_EQ(r.diagnosis.unschedulable_plugins,
            (std::set<std::string>{"NodeResourcesFit", "TaintToleration"}));
}

TEST_F(AlgorithmTest, SingleFeasibleNodeIsTakenWithoutScoring) {
  auto nodes = Nodes(5, "1");
  nodes.push_back(testing::MakeNodeInfo(
      NodeBuilder("big").Capacity({{"cpu", "16"}, {"pods", "110"}}).Obj()));
  ScheduleResult r = Schedule(*PodBuilder().Req({{"cpu", "4"}}).Info(), nodes);
  ASSERT_EQ(r.kind, ScheduleResult::Kind::kScheduled) << r.FailureMessage();
  EXPECT_EQ(r.suggested_host, "big");
  EXPECT_EQ(r.feasible_nodes, 1);
  EXPECT_EQ(r.evaluated_nodes, 6);
}

TEST_F(AlgorithmTest, StopsFilteringOnceEnoughNodesAreFeasibleAndRotates) {
  // 200 nodes: the adaptive percentage (48%) gives 96, raised to the
  // 100-node minimum.
  auto nodes = Nodes(200);
  ScheduleResult r = Schedule(*PodBuilder().Req({{"cpu", "1"}}).Info(), nodes);
  ASSERT_EQ(r.kind, ScheduleResult::Kind::kScheduled);
  EXPECT_EQ(r.feasible_nodes, 100);
  EXPECT_EQ(r.evaluated_nodes, 100);
  EXPECT_EQ(algorithm_.next_start_node_index(), 100u);
  r = Schedule(*PodBuilder().Req({{"cpu", "1"}}).Info(), nodes);
  EXPECT_EQ(algorithm_.next_start_node_index(), 0u);
}

TEST_F(AlgorithmTest, NominatedNodeIsTriedFirst) {
  auto nodes = Nodes(10);
  ScheduleResult r = Schedule(
      *PodBuilder().Req({{"cpu", "1"}}).NominatedNode("n7").Info(), nodes);
  ASSERT_EQ(r.kind, ScheduleResult::Kind::kScheduled);
  EXPECT_EQ(r.suggested_host, "n7");
  EXPECT_EQ(r.evaluated_nodes, 1);
  // A nominated node that no longer fits falls back to the others.
  r = Schedule(*PodBuilder().Req({{"cpu", "8"}}).NominatedNode("n7").Info(),
               Nodes(3, "8"));
  EXPECT_EQ(r.kind, ScheduleResult::Kind::kScheduled);
}

TEST_F(AlgorithmTest, PreFilterResultNarrowsTheNodes) {
  auto nodes = Nodes(4);
  ScheduleResult r =
      Schedule(*PodBuilder()
                    .NodeAffinityFieldTerm(
                        "metadata.name", api::NodeSelectorOperator::kIn, {"n2"})
                    .Info(),
               nodes);
  ASSERT_EQ(r.kind, ScheduleResult::Kind::kScheduled);
  EXPECT_EQ(r.suggested_host, "n2");
  r = Schedule(*PodBuilder()
                    .Req({{"cpu", "100"}})
                    .NodeAffinityFieldTerm(
                        "metadata.name", api::NodeSelectorOperator::kIn, {"n2"})
                    .Info(),
               nodes);
  ASSERT_EQ(r.kind, ScheduleResult::Kind::kNoFit);
  EXPECT_EQ(r.FailureMessage(),
            "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't "
            "satisfy plugin(s) [NodeAffinity].");
}

TEST_F(AlgorithmTest, ScoringPrefersTheLeastAllocatedNode) {
  auto nodes = Nodes(3);
  nodes[0]->AddPod(
      PodBuilder("a").Req({{"cpu", "3"}, {"memory", "6Gi"}}).Info());
  nodes[2]->AddPod(
      PodBuilder("b").Req({{"cpu", "2"}, {"memory", "4Gi"}}).Info());
  ScheduleResult r = Schedule(
      *PodBuilder().Req({{"cpu", "1"}, {"memory", "1Gi"}}).Info(), nodes);
  ASSERT_EQ(r.kind, ScheduleResult::Kind::kScheduled);
  EXPECT_EQ(r.suggested_host, "n1");
  EXPECT_EQ(r.feasible_nodes, 3);
}

}  // namespace
}  // namespace ksched::scheduler
