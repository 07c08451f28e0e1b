// A recorded scheduling cycle decides what an unrecorded one decides, and
// the scores it records are the scores the choice was made with.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "pkg/cache/cache.h"
#include "pkg/config/config.h"
#include "pkg/framework/cycle_recorder.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/algorithm.h"
#include "pkg/scheduler/default_profile_test_base.h"
#include "pkg/scheduler/profile.h"
#include "pkg/util/fake_clock.h"

namespace ksched::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;

class RecordedCycleTest : public test::DefaultProfileTest {};

TEST_F(RecordedCycleTest, RecordingChangesNothingAndTheBestRecordedTotalWins) {
  std::mt19937 rng(20261126);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  int scheduled = 0, unschedulable = 0;
  for (int round = 0; round < 30; ++round) {
    cache::Cache cache(clock_, std::chrono::seconds(30));
    const int node_count = 5 + pick(40);
    for (int i = 0; i < node_count; ++i) {
      const std::string name = "n" + std::to_string(i);
      NodeBuilder node(name);
      node.Label("kubernetes.io/hostname", name)
          .Label("zone", "z" + std::to_string(pick(3)))
          .Capacity({{"cpu", std::to_string(1 + pick(8))},
                     {"memory", std::to_string(1 + pick(16)) + "Gi"},
                     {"pods", "110"}});
      if (pick(4) == 0) {
        node.Taint("dedicated", "x",
                   pick(2) ? api::TaintEffect::kNoSchedule
                           : api::TaintEffect::kPreferNoSchedule);
      }
      if (pick(3) == 0) node.Image("app:" + std::to_string(pick(2)), 5 << 20);
      cache.AddNode(std::make_shared<const api::Node>(node.Obj()));
      // Some load already on the node.
      for (int k = pick(3); k > 0; --k) {
        PodBuilder running("r" + std::to_string(i) + "-" + std::to_string(k));
        running.Uid("r" + std::to_string(i) + "-" + std::to_string(k))
            .Node(name)
            .Req({{"cpu", std::to_string(100 * (1 + pick(5))) + "m"}});
        ASSERT_TRUE(cache.AddPod(running.Info()).ok());
      }
    }
    framework::Snapshot snapshot;
    ASSERT_TRUE(cache.UpdateSnapshot(&snapshot).ok());
    fwk_->SetSnapshot(&snapshot);

    PodBuilder pod("p" + std::to_string(round));
    pod.Uid("p" + std::to_string(round))
        // Every fifth pod asks for more than any node has.
        .Req({{"cpu", round % 5 == 0
                          ? std::string("20")
                          : std::to_string(200 * (1 + pick(12))) + "m"},
              {"memory", std::to_string(1 + pick(8)) + "Gi"}})
        .Image("app:" + std::to_string(pick(2)));
    if (pick(2)) {
      pod.PreferredNodeAffinity(1 + pick(10), "zone",
                                api::NodeSelectorOperator::kIn, {"z1"});
    }
    if (pick(3) == 0) {
      pod.Toleration("dedicated", "x", api::TaintEffect::kNoSchedule);
    }

    // Same seed for both: ties are broken alike.
    util::DefaultRandom plain_random(round), recorded_random(round);
    SchedulingAlgorithm plain(0, plain_random), recorded(0, recorded_random);
    framework::CycleState plain_state;
    const ScheduleResult want =
        plain.Schedule(*fwk_, plain_state, *pod.Info(), snapshot);
    framework::CycleRecorder recorder;
    framework::CycleState state;
    state.set_recorder(&recorder);
    const ScheduleResult got =
        recorded.Schedule(*fwk_, state, *pod.Info(), snapshot);

    ASSERT_EQ(got.kind, want.kind) << "round " << round;
    EXPECT_EQ(got.suggested_host, want.suggested_host) << "round " << round;
    EXPECT_EQ(got.FailureMessage(), want.FailureMessage()) << "round " << round;
    if (got.kind != ScheduleResult::Kind::kScheduled) {
      ++unschedulable;
      // Every node was filtered and none passed every plugin.
      const auto filtered = recorder.FilterResults();
      EXPECT_EQ(filtered.size(), static_cast<size_t>(node_count));
      for (const auto& [node, verdicts] : filtered) {
        bool all_passed = true;
        for (const auto& verdict : verdicts) all_passed &= verdict.passed();
        EXPECT_FALSE(all_passed) << node;
      }
      continue;
    }
    ++scheduled;
    EXPECT_EQ(recorder.selected_node(), got.suggested_host);
    const auto filtered = recorder.FilterResults();
    for (const auto& verdict : filtered.at(got.suggested_host)) {
      EXPECT_EQ(verdict.Outcome(), framework::CycleRecorder::kPassed)
          << verdict.plugin;
    }
    if (got.feasible_nodes < 2) continue;  // taken without scoring
    std::map<std::string, int64_t> totals;
    for (const auto& [node, plugins] : recorder.scores()) {
      for (const auto& [plugin, s] : plugins) {
        EXPECT_EQ(s.weighted, s.normalized * fwk_->ScoreWeight(plugin))
            << node << " " << plugin;
        EXPECT_GE(s.normalized, 0);
        EXPECT_LE(s.normalized, framework::kMaxNodeScore);
        totals[node] += s.weighted;
      }
    }
    int64_t best = -1;
    for (const auto& [node, total] : totals) best = std::max(best, total);
    ASSERT_TRUE(totals.count(got.suggested_host));
    EXPECT_EQ(totals.at(got.suggested_host), best) << "round " << round;
  }
  // Both outcomes were exercised.
  EXPECT_GT(scheduled, 5);
  EXPECT_GT(unschedulable, 0);
}

}  // namespace
}  // namespace ksched::scheduler
