// Decisions stay right across cycles when PodTopologySpread and
// InterPodAffinity answer from the per-node memo (pod_count_memo.h): the
// snapshot comes from the cache as in the scheduler, the pods move between
// cycles, and a stale memo would send the next pod to the wrong node.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "pkg/cache/cache.h"
#include "pkg/config/config.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/podtopologyspread/common.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/algorithm.h"
#include "pkg/scheduler/profile.h"
#include "pkg/util/fake_clock.h"
#include "pkg/util/random.h"

namespace ksched::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;

constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kHostname[] = "kubernetes.io/hostname";

class MemoisedCountsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    framework::Framework::Options o;
    o.parallelizer = &parallelizer_;
    o.clock = &clock_;
    auto profiles = BuildProfiles(config::DefaultConfig(), registry_, o);
    ASSERT_TRUE(profiles.ok()) << profiles.error().message();
    profiles_ = std::move(*profiles);
    fwk_ = profiles_.begin()->second.get();
    for (const char* name : {"n1", "n2"}) {
      cache_.AddNode(std::make_shared<const api::Node>(
          NodeBuilder(name)
              .Label(kHostname, name)
              .Label(kZone, std::string("zone-") + name)
              .Capacity({{"cpu", "1000"}, {"memory", "1Ti"}, {"pods", "110"}})
              .Obj()));
    }
  }

  void AddPod(const PodBuilder& pod) {
    ASSERT_TRUE(cache_.AddPod(pod.Info()).ok());
  }
  void RemovePod(const PodBuilder& pod) {
    ASSERT_TRUE(cache_.RemovePod(pod.Obj()).ok());
  }

  std::string Schedule(const PodBuilder& pod) {
    EXPECT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
    fwk_->SetSnapshot(&snapshot_);
    framework::CycleState state;
    ScheduleResult r =
        algorithm_.Schedule(*fwk_, state, *pod.Info(), snapshot_);
    return r.kind == ScheduleResult::Kind::kScheduled ? r.suggested_host
                                                      : r.FailureMessage();
  }

  static PodBuilder Web(const std::string& name, const std::string& node) {
    PodBuilder p(name);
    p.Uid(name).Label("app", "web").Node(node);
    return p;
  }
  static PodBuilder NewWeb() {
    PodBuilder p("web-new");
    p.Uid("web-new")
        .Label("app", "web")
        .SpreadConstraint(1, kZone,
                          api::UnsatisfiableConstraintAction::kDoNotSchedule,
                          "app", "web");
    return p;
  }

  framework::Registry registry_ = plugins::NewInTreeRegistry();
  framework::Parallelizer parallelizer_{2};
  util::FakeClock clock_;
  ProfileMap profiles_;
  framework::Framework* fwk_ = nullptr;
  cache::Cache cache_{clock_, std::chrono::seconds(30)};
  framework::Snapshot snapshot_;
  util::DefaultRandom random_{1};
  SchedulingAlgorithm algorithm_{0, random_};
};

TEST_F(MemoisedCountsTest, SpreadCountsFollowPodsBetweenCycles) {
  AddPod(Web("w1", "n1"));
  EXPECT_EQ(Schedule(NewWeb()), "n2");

  // The first cycle left its counts in the memo of both nodes.
  api::Selector selector;
  ASSERT_TRUE(selector.Add("app", api::Selector::Op::kIn, {"web"}).ok());
  const uint32_t key = plugins::podtopologyspread::CountKey(
      snapshot_.pod_count_keys(), selector, "default");
  ASSERT_NE(key, 0u);
  EXPECT_EQ(snapshot_.GetPtr("n1")->pod_counts().Find(key), 1);
  EXPECT_EQ(snapshot_.GetPtr("n2")->pod_counts().Find(key), 0);

  // Two web pods land on n2: with n2 counted afresh, only n1 keeps the
  // skew within 1; n2's remembered 0 would have chosen n2.
  AddPod(Web("w2", "n2"));
  AddPod(Web("w3", "n2"));
  EXPECT_EQ(Schedule(NewWeb()), "n1");
  EXPECT_EQ(snapshot_.GetPtr("n2")->pod_counts().Find(key), 2);

  // Unchanged since: the memo answers, and answers the same.
  EXPECT_EQ(Schedule(NewWeb()), "n1");
}

TEST_F(MemoisedCountsTest, IncomingAntiAffinityFollowsPodsBetweenCycles) {
  PodBuilder db("db");
  db.Uid("db").Label("app", "db").Node("n1");
  AddPod(db);
  PodBuilder incoming("client");
  incoming.Uid("client").PodAffinity(kHostname, "app", "db", /*anti=*/true);
  EXPECT_EQ(Schedule(incoming), "n2");
  EXPECT_EQ(Schedule(incoming), "n2");

  RemovePod(db);
  PodBuilder moved("db2");
  moved.Uid("db2").Label("app", "db").Node("n2");
  AddPod(moved);
  EXPECT_EQ(Schedule(incoming), "n1");
}

TEST_F(MemoisedCountsTest, ExistingAntiAffinityFollowsPodsBetweenCycles) {
  PodBuilder guard("guard");
  guard.Uid("guard").Node("n1").PodAffinity(kHostname, "app", "cache",
                                            /*anti=*/true);
  AddPod(guard);
  PodBuilder incoming("cache");
  incoming.Uid("cache").Label("app", "cache");
  EXPECT_EQ(Schedule(incoming), "n2");
  EXPECT_EQ(Schedule(incoming), "n2");

  RemovePod(guard);
  PodBuilder moved("guard2");
  moved.Uid("guard2").Node("n2").PodAffinity(kHostname, "app", "cache",
                                             /*anti=*/true);
  AddPod(moved);
  EXPECT_EQ(Schedule(incoming), "n1");
}

TEST_F(MemoisedCountsTest, ExistingPodsAffinityScoreFollowsPodsBetweenCycles) {
  // An existing pod's required affinity to app=api scores its node for an
  // incoming api pod (hardPodAffinityWeight); the memo must not keep the
  // node that scored nothing at nothing once the pod moves there.
  PodBuilder fan("fan");
  fan.Uid("fan").Node("n1").PodAffinity(kHostname, "app", "api");
  PodBuilder api_pod("api-0");
  api_pod.Uid("api-0").Label("app", "api").Node("n1");
  AddPod(api_pod);
  AddPod(fan);
  PodBuilder incoming("api-new");
  incoming.Uid("api-new").Label("app", "api");
  EXPECT_EQ(Schedule(incoming), "n1");
  EXPECT_EQ(Schedule(incoming), "n1");

  RemovePod(fan);
  PodBuilder moved("fan2");
  moved.Uid("fan2").Node("n2").PodAffinity(kHostname, "app", "api");
  AddPod(moved);
  EXPECT_EQ(Schedule(incoming), "n2");
}

}  // namespace
}  // namespace ksched::scheduler
