// Opportunistic batching: signatures, and decisions that reuse the last
// cycle's scores yet pick a node as good as a full cycle would.
#include "pkg/scheduler/batch.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "pkg/cache/cache.h"
#include "pkg/config/config.h"
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

class BatchMetricsRecorder final : public framework::MetricsRecorder {
 public:
  void ObserveExtensionPoint(std::string_view, framework::Code,
                             std::string_view,
                             std::chrono::nanoseconds) override {}
  void ObservePlugin(std::string_view, std::string_view, framework::Code,
                     std::chrono::nanoseconds) override {}
  void ObserveBatchAttempt(std::string_view, std::string_view result) override {
    ++attempts[std::string(result)];
  }
  void ObserveBatchFlush(std::string_view, std::string_view reason) override {
    ++flushes[std::string(reason)];
  }
  std::map<std::string, int> attempts;
  std::map<std::string, int> flushes;
};

// The default profile but for PodTopologySpread's defaults: none (List),
// for with any default constraint, the system's included, no pod is
// signed and batching never applies (DefaultProfileDoesNotBatch).
config::KubeSchedulerConfiguration NoDefaultSpreading() {
  config::KubeSchedulerConfiguration cfg = config::DefaultConfig();
  auto args = std::make_shared<config::PodTopologySpreadArgs>();
  args->defaulting_type = config::PodTopologySpreadDefaulting::kList;
  std::vector<config::PluginConfig>& configs =
      cfg.profiles.front().plugin_config;
  std::erase_if(configs, [](const config::PluginConfig& pc) {
    return pc.name == "PodTopologySpread";
  });
  configs.push_back({"PodTopologySpread", args, ""});
  return cfg;
}

class BatchTest : public test::DefaultProfileTest {
 protected:
  config::KubeSchedulerConfiguration Config() const override {
    return NoDefaultSpreading();
  }
  void SetUp() override {
    DefaultProfileTest::SetUp();
    if (HasFatalFailure()) return;
    algorithm_.EnableOpportunisticBatching(clock_, &metrics_);
  }

  // Nodes of assorted sizes, images and taints, so that scores differ,
  // ties happen, and nodes fill up at different times.
  void AddNodes(int n) {
    for (int i = 0; i < n; ++i) {
      const std::string name = "n" + std::to_string(i);
      NodeBuilder node(name);
      node.Label("kubernetes.io/hostname", name)
          .Label("tier", i % 3 == 0 ? "gold" : "silver")
          .Capacity({{"cpu", std::to_string(2 + (i * 7) % 9)},
                     {"memory", std::to_string(4 + (i * 5) % 13) + "Gi"},
                     {"pods", "110"}});
      if (i % 4 == 0) node.Image("registry/app:1", 300 * 1024 * 1024);
      if (i % 5 == 0) {
        node.Taint("spot", "true", api::TaintEffect::kPreferNoSchedule);
      }
      cache_.AddNode(std::make_shared<const api::Node>(node.Obj()));
    }
  }

  static PodBuilder Replica(int i) {
    PodBuilder pod("web-" + std::to_string(i));
    pod.Uid("uid-" + std::to_string(i))
        .Label("app", "web")
        .Req({{"cpu", "700m"}, {"memory", "1Gi"}})
        .Image("registry/app:1")
        .PreferredNodeAffinity(5, "tier", api::NodeSelectorOperator::kIn,
                               {"gold"});
    return pod;
  }

  ScheduleResult Schedule(SchedulingAlgorithm& algorithm,
                          const PodBuilder& pod) {
    EXPECT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
    fwk_->SetSnapshot(&snapshot_);
    framework::CycleState state;
    return algorithm.Schedule(*fwk_, state, *pod.Info(), snapshot_);
  }

  // What a full cycle over every node scores each feasible node.
  std::map<std::string, int64_t> FullCycleTotals(const PodBuilder& pod) {
    framework::PodInfoPtr info = pod.Info();
    framework::CycleState state;
    framework::PreFilterResult pre;
    std::set<std::string> narrowing;
    EXPECT_TRUE(fwk_->RunPreFilterPlugins(state, *info, snapshot_.nodes(), &pre,
                                          &narrowing)
                    .IsSuccess());
    std::vector<framework::NodeInfoPtr> feasible;
    for (const framework::NodeInfoPtr& node : snapshot_.nodes()) {
      if (fwk_->RunFilterPlugins(state, *info, *node).IsSuccess()) {
        feasible.push_back(node);
      }
    }
    std::map<std::string, int64_t> totals;
    if (feasible.empty()) return totals;
    std::vector<framework::NodePluginScores> scores;
    EXPECT_TRUE(fwk_->RunPreScorePlugins(state, *info, feasible).IsSuccess());
    EXPECT_TRUE(
        fwk_->RunScorePlugins(state, *info, feasible, &scores).IsSuccess());
    for (const auto& s : scores) totals[s.node->name()] = s.total_score;
    return totals;
  }

  cache::Cache cache_{clock_, std::chrono::seconds(30)};
  framework::Snapshot snapshot_;
  util::DefaultRandom random_{7};
  BatchMetricsRecorder metrics_;
  // Every node is evaluated each full cycle, so a full cycle's best is the
  // cluster's best.
  SchedulingAlgorithm algorithm_{100, random_};
};

TEST_F(BatchTest, EachBatchedChoiceScoresAsHighAsAFullCycleWould) {
  AddNodes(40);
  int placed = 0;
  for (int i = 0; i < 400; ++i) {
    const PodBuilder pod = Replica(i);
    ScheduleResult r = Schedule(algorithm_, pod);
    const std::map<std::string, int64_t> full = FullCycleTotals(pod);
    if (r.kind != ScheduleResult::Kind::kScheduled) {
      EXPECT_TRUE(full.empty()) << "pod " << i << ": " << r.FailureMessage();
      break;
    }
    ASSERT_TRUE(full.count(r.suggested_host))
        << "pod " << i << " went to " << r.suggested_host
        << ", which a full cycle finds infeasible";
    int64_t best = 0;
    for (const auto& [node, total] : full) best = std::max(best, total);
    EXPECT_EQ(full.at(r.suggested_host), best)
        << "pod " << i << " on " << r.suggested_host;
    PodBuilder assumed = pod;
    assumed.Node(r.suggested_host);
    ASSERT_TRUE(cache_.AddPod(assumed.Info()).ok());
    ++placed;
  }
  // The cluster filled up, and most decisions came from kept results: the
  // check above held for hints, rescored nodes and full nodes alike.
  EXPECT_GT(placed, 100);
  EXPECT_LT(placed, 400);
  EXPECT_GT(algorithm_.batched_pods(), placed * 3 / 4);
  EXPECT_GT(metrics_.attempts["hint_used"], 0);
}

TEST_F(BatchTest, KeptResultsAreDroppedWhenTheyMayNoLongerHold) {
  AddNodes(20);
  auto place = [&](const PodBuilder& pod) {
    ScheduleResult r = Schedule(algorithm_, pod);
    if (r.kind == ScheduleResult::Kind::kScheduled) {
      PodBuilder assumed = pod;
      assumed.Node(r.suggested_host);
      EXPECT_TRUE(cache_.AddPod(assumed.Info()).ok());
    }
    return r;
  };
  place(Replica(0));
  place(Replica(1));
  EXPECT_EQ(algorithm_.batched_pods(), 1);

  // A pod that asks for more is another signature.
  PodBuilder bigger("big");
  bigger.Uid("big").Label("app", "web").Req({{"cpu", "1"}});
  place(bigger);
  EXPECT_EQ(metrics_.flushes["pod_incompatible"], 1);
  EXPECT_EQ(algorithm_.batched_pods(), 1);

  // Too old: 500 ms after the results were kept.
  place(Replica(2));
  clock_.Advance(std::chrono::milliseconds(501));
  place(Replica(3));
  EXPECT_EQ(metrics_.flushes["expired"], 1);

  // A failed cycle in between (of another signature, which already drops
  // the results).
  place(Replica(4));
  int64_t batched = algorithm_.batched_pods();
  PodBuilder huge("huge");
  huge.Uid("huge").Req({{"cpu", "1000"}});
  EXPECT_EQ(place(huge).kind, ScheduleResult::Kind::kNoFit);
  place(Replica(5));
  EXPECT_EQ(algorithm_.batched_pods(), batched);

  // A pod with a nominated node does not take a hint.
  place(Replica(6));
  PodBuilder nominated = Replica(7);
  nominated.NominatedNode("n3");
  EXPECT_EQ(place(nominated).suggested_host, "n3");
  EXPECT_EQ(metrics_.flushes["pod_nominated"], 1);

  // Unsignable pods (spread constraints) keep nothing.
  PodBuilder spread = Replica(8);
  spread.SpreadConstraint(1, "kubernetes.io/hostname",
                          api::UnsatisfiableConstraintAction::kDoNotSchedule,
                          "app", "web");
  place(spread);
  EXPECT_EQ(metrics_.flushes["pod_not_batchable"], 1);
  const int64_t before = algorithm_.batched_pods();
  place(Replica(9));
  EXPECT_EQ(algorithm_.batched_pods(), before);
}

TEST_F(BatchTest, AFailedCycleOfTheSameSignatureDropsTheKeptResults) {
  AddNodes(3);
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  fwk_->SetSnapshot(&snapshot_);
  const framework::PodInfoPtr pod = Replica(1).Info();
  const std::optional<std::string> signature = fwk_->SignPod(pod->pod());
  ASSERT_TRUE(signature.has_value());
  // A cycle's state and scores, as the algorithm would have kept them.
  auto cycle_state = [&] {
    auto state = std::make_unique<framework::CycleState>();
    framework::PreFilterResult pre;
    std::set<std::string> narrowing;
    EXPECT_TRUE(fwk_->RunPreFilterPlugins(*state, *pod, snapshot_.nodes(), &pre,
                                          &narrowing)
                    .IsSuccess());
    EXPECT_TRUE(
        fwk_->RunPreScorePlugins(*state, *pod, snapshot_.nodes()).IsSuccess());
    return state;
  };
  auto state = cycle_state();
  framework::RawScores scored;
  ASSERT_TRUE(fwk_->RunRawScorePlugins(*state, *pod, snapshot_.nodes(), &scored)
                  .IsSuccess());
  std::vector<int64_t> totals;
  ASSERT_TRUE(
      fwk_->NormalizeAndWeigh(*state, *pod, scored, &totals).IsSuccess());

  OpportunisticBatch kept(clock_, random_, &metrics_);
  kept.Store(*fwk_, signature, "", "n2", scored, totals, /*cycle=*/10);
  kept.Failed(11);
  state = cycle_state();
  EXPECT_EQ(kept.NodeHint(*fwk_, *state, *pod, signature, 12, snapshot_), "");
  EXPECT_EQ(metrics_.flushes["pod_failed"], 1);
  EXPECT_EQ(metrics_.attempts["no_hint"], 1);

  // Without the failure the next cycle gets a hint: n2, where the last
  // pod was not assumed, rescored, or another of the kept nodes.
  OpportunisticBatch fresh(clock_, random_, &metrics_);
  fresh.Store(*fwk_, signature, "", "n2", scored, totals, 10);
  state = cycle_state();
  EXPECT_NE(fresh.NodeHint(*fwk_, *state, *pod, signature, 11, snapshot_), "");
  EXPECT_EQ(metrics_.attempts["no_hint"], 1);
  EXPECT_TRUE(metrics_.flushes.count("rescore_error") == 0);
}

TEST_F(BatchTest, SignaturesCoverWhatThePluginsReadAndNothingElse) {
  auto sign = [&](const PodBuilder& pod) { return fwk_->SignPod(pod.Obj()); };
  // Names, uids and other pods' identities are not read.
  ASSERT_TRUE(sign(Replica(1)).has_value());
  EXPECT_EQ(sign(Replica(1)), sign(Replica(2)));

  PodBuilder more = Replica(1);
  more.Req({{"cpu", "1"}});  // a second container
  EXPECT_NE(sign(Replica(1)), sign(more));
  PodBuilder tolerant = Replica(1);
  tolerant.Toleration("spot", "true", api::TaintEffect::kPreferNoSchedule);
  EXPECT_NE(sign(Replica(1)), sign(tolerant));
  PodBuilder selective = Replica(1);
  selective.NodeSelector("tier", "gold");
  EXPECT_NE(sign(Replica(1)), sign(selective));
  PodBuilder ported = Replica(1);
  ported.ContainerPort(8080);
  EXPECT_NE(sign(Replica(1)), sign(ported));
  // Other pods' (anti-)affinity terms match labels and the namespace.
  PodBuilder relabelled = Replica(1);
  relabelled.Label("app", "api");
  EXPECT_NE(sign(Replica(1)), sign(relabelled));
  PodBuilder elsewhere = Replica(1);
  elsewhere.Namespace("other");
  EXPECT_NE(sign(Replica(1)), sign(elsewhere));
  PodBuilder urgent = Replica(1);
  urgent.Priority(1000);
  EXPECT_NE(sign(Replica(1)), sign(urgent));

  // What depends on more than one node cannot be signed.
  PodBuilder anti = Replica(1);
  anti.PodAffinity("kubernetes.io/hostname", "app", "web", /*anti=*/true);
  EXPECT_FALSE(sign(anti).has_value());
  PodBuilder spread = Replica(1);
  spread.SpreadConstraint(1, "zone",
                          api::UnsatisfiableConstraintAction::kScheduleAnyway,
                          "app", "web");
  EXPECT_FALSE(sign(spread).has_value());
  PodBuilder claimed = Replica(1);
  claimed.PvcVolume("data", "data-0");
  EXPECT_FALSE(sign(claimed).has_value());
}

// kube v1.35 signs no pod while PodTopologySpread has default constraints,
// so in the default profile (system defaults) batching, on by default since
// v1.35, never hands out a hint and decisions are those of v1.32.
class DefaultProfileBatchTest : public test::DefaultProfileTest {};

TEST_F(DefaultProfileBatchTest, DefaultProfileDoesNotBatch) {
  // A bare pod (no workload, so the system defaults select nothing) and a
  // replica alike.
  EXPECT_FALSE(fwk_->SignPod(PodBuilder("bare").Req({{"cpu", "100m"}}).Obj())
                   .has_value());
  EXPECT_FALSE(fwk_->SignPod(PodBuilder("web-0")
                                 .Label("app", "web")
                                 .Req({{"cpu", "100m"}})
                                 .Obj())
                   .has_value());
}

}  // namespace
}  // namespace ksched::scheduler
