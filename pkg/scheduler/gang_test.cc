// Gangs through the whole scheduling loop: Coscheduling enabled as
// scheduler-plugins' profile enables it, pods and PodGroups delivered by
// the tests, bindings and failures recorded by a fake API server. These
// are the all-or-nothing guarantees: a gang binds whole or leaves nothing
// reserved, and competing gangs never deadlock.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/api/podgroup.h"
#include "pkg/config/config.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/fake_api_server.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/util/fake_clock.h"

namespace ksched::scheduler {
namespace {

using ksched::testing::NodeBuilder;
using ksched::testing::PodBuilder;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;

constexpr char kGangProfile[] = "ksched";

// scheduler-plugins' own example profile, with a short Permit wait.
constexpr char kGangConfig[] = R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
- schedulerName: ksched
  plugins:
    multiPoint:
      enabled:
      - name: Coscheduling
    queueSort:
      enabled:
      - name: Coscheduling
      disabled:
      - name: "*"
  pluginConfig:
  - name: Coscheduling
    args:
      permitWaitingTimeSeconds: 10
)";

class GangSchedulingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cfg = config::ParseConfig(kGangConfig);
    ASSERT_TRUE(cfg.ok()) << cfg.error().message();
    Scheduler::Dependencies deps;
    deps.clock = &clock_;
    deps.random = &random_;
    deps.binder = &api_;
    deps.writer = &api_;
    deps.objects = &objects_;
    deps.pod_lookup = [this](const std::string& ns, const std::string& name) {
      return api_.Get(ns, name);
    };
    deps.binding_workers = 1;
    auto created = Scheduler::Create(*cfg, registry_, std::move(deps));
    ASSERT_TRUE(created.ok()) << created.error().message();
    sched_ = std::move(*created);
    ASSERT_TRUE(sched_->SchedulesGangs());
  }
  void TearDown() override { sched_.reset(); }

  void AddNodes(int n, const std::string& cpu = "4") {
    for (int i = 1; i <= n; ++i) {
      const std::string name = "n" + std::to_string(i);
      sched_->OnNodeAdd(
          NodeBuilder(name)
              .Label("kubernetes.io/hostname", name)
              .Capacity({{"cpu", cpu}, {"memory", "16Gi"}, {"pods", "110"}})
              .Ptr());
    }
  }
  void AddPodGroup(const std::string& name, int32_t min_member,
                   int64_t created_seconds) {
    api::PodGroup g;
    g.metadata.ns = "default";
    g.metadata.name = name;
    g.metadata.uid = "pg-" + name;
    g.metadata.creation_timestamp.value =
        api::Timestamp(std::chrono::seconds(created_seconds));
    g.spec.min_member = min_member;
    objects_.Upsert(g);
    queue::OwnedEventObjects objs;
    objs.new_pod_group = objects_.GetPodGroup("default", name);
    sched_->OnClusterEvent(
        {framework::EventResource::kPodGroup, framework::kAdd}, objs);
  }
  static PodBuilder Member(const std::string& name, const std::string& group,
                           const std::string& cpu) {
    PodBuilder b(name);
    b.SchedulerName(kGangProfile).Req({{"cpu", cpu}, {"memory", "1Gi"}});
    if (!group.empty()) b.Label(std::string(api::kPodGroupLabel), group);
    return b;
  }
  std::shared_ptr<const api::Pod> AddPod(const PodBuilder& builder) {
    std::shared_ptr<const api::Pod> pod = builder.Ptr();
    api_.Store(pod);
    sched_->OnPodAdd(pod);
    return pod;
  }
  // Runs a scheduling cycle for every pod in the active queue, the ones
  // that cycles activate included; then lets the bindings finish.
  int ScheduleActive() {
    int cycles = 0;
    while (sched_->queue().PendingCounts().active > 0) {
      if (!sched_->ScheduleOne()) break;
      ++cycles;
    }
    SettleBindings();
    return cycles;
  }
  // Past every backoff, then flushed to the active queue.
  void AfterBackoff() {
    clock_.Advance(std::chrono::seconds(11));
    sched_->Tick();
    SettleBindings();
  }
  // Lets the binding cycles finish (pods held at Permit have none yet).
  void SettleBindings() { sched_->WaitForBindings(); }
  std::vector<std::string> BoundPods() const {
    std::vector<std::string> pods;
    for (const auto& [pod, node] : api_.Binds()) pods.push_back(pod);
    return pods;
  }
  int64_t RequestedMilliCpu() const {
    int64_t total = 0;
    for (int i = 1; i <= 8; ++i) {
      framework::NodeInfoPtr info =
          sched_->cache().GetNodeInfo("n" + std::to_string(i));
      if (info != nullptr) total += info->requested().milli_cpu;
    }
    return total;
  }
  size_t WaitingCount() {
    size_t n = 0;
    sched_->waiting_pods().ForEach([&n](framework::WaitingPod& w) {
      if (!w.Done()) ++n;
    });
    return n;
  }
  bool Waiting(const api::Pod& pod) {
    return sched_->waiting_pods().Get(pod.metadata.uid) != nullptr;
  }
  std::string LastEvent(const std::string& pod) const {
    auto events = api_.Events("default/" + pod);
    return events.empty() ? ""
                          : events.back().reason + ": " + events.back().note;
  }

  util::FakeClock clock_;
  util::DefaultRandom random_{1};
  framework::InMemoryClusterObjects objects_;
  test::FakeApiServer api_;
  framework::Registry registry_ = plugins::NewInTreeRegistry();
  std::unique_ptr<Scheduler> sched_;
};

TEST_F(GangSchedulingTest, MembersWaitAtPermitUntilTheQuorumThenAllBind) {
  AddNodes(4);
  AddPodGroup("train", 4, 100);
  std::vector<std::shared_ptr<const api::Pod>> pods;
  for (int i = 0; i < 4; ++i) {
    pods.push_back(AddPod(Member("w" + std::to_string(i), "train", "2")));
  }
  // One at a time: the first three are held at Permit, assumed.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(sched_->ScheduleOne());
    EXPECT_TRUE(Waiting(*pods[i])) << i;
    EXPECT_TRUE(sched_->cache().IsAssumedPod(*pods[i])) << i;
  }
  EXPECT_THAT(api_.Binds(), IsEmpty());
  EXPECT_EQ(RequestedMilliCpu(), 6000);

  ASSERT_TRUE(sched_->ScheduleOne());
  sched_->WaitForBindings();
  EXPECT_THAT(BoundPods(), UnorderedElementsAre("default/w0", "default/w1",
                                                "default/w2", "default/w3"));
  for (const auto& pod : pods) EXPECT_FALSE(Waiting(*pod));
}

TEST_F(GangSchedulingTest, IncompleteGangStaysPendingUntilItsLastMember) {
  AddNodes(4);
  AddPodGroup("train", 4, 100);
  for (int i = 0; i < 3; ++i) {
    AddPod(Member("w" + std::to_string(i), "train", "1"));
  }
  EXPECT_EQ(ScheduleActive(), 3);
  EXPECT_THAT(api_.Binds(), IsEmpty());
  EXPECT_EQ(RequestedMilliCpu(), 0);
  // Why, where users look: refused before any node was tried, so
  // preemption cannot help either.
  EXPECT_EQ(LastEvent("w0"),
            "FailedScheduling: 0/4 nodes are available: pre-filter pod w0 "
            "cannot find enough sibling pods, current pods number: 3, "
            "minMember of group: 4. no new claims to deallocate, preemption: "
            "0/4 nodes are available: 4 "
            "Preemption is not helpful for scheduling., PodGroup "
            "default/train gets rejected due to Pod w0 is unschedulable even "
            "after PostFilter");
  EXPECT_EQ(sched_->queue().Find(Member("w0", "train", "1").Obj()).first,
            "unschedulable");

  // The fourth member is the event the other three wait for.
  AddPod(Member("w3", "train", "1"));
  AfterBackoff();
  ScheduleActive();
  EXPECT_THAT(BoundPods(), UnorderedElementsAre("default/w0", "default/w1",
                                                "default/w2", "default/w3"));
}

TEST_F(GangSchedulingTest, GangThatFitsOnlyPartlyReleasesEveryReservation) {
  // Three nodes take three 3-cpu members; the fourth fits nowhere.
  AddNodes(3);
  AddPodGroup("train", 4, 100);
  for (int i = 0; i < 4; ++i) {
    AddPod(Member("w" + std::to_string(i), "train", "3"));
  }
  ScheduleActive();
  EXPECT_THAT(api_.Binds(), IsEmpty());
  EXPECT_EQ(RequestedMilliCpu(), 0);
  EXPECT_EQ(sched_->cache().GetStats().assumed_pods, 0u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_FALSE(Waiting(Member("w" + std::to_string(i), "train", "3").Obj()));
  }
  EXPECT_THAT(LastEvent("w0"), HasSubstr("rejection in PostFilter"));
  EXPECT_THAT(LastEvent("w3"),
              HasSubstr("0/3 nodes are available: 3 Insufficient cpu."));

  // The room the gang gave back goes to a pod of no gang.
  AddPod(Member("small", "", "3"));
  ScheduleActive();
  EXPECT_THAT(BoundPods(), UnorderedElementsAre("default/small"));
}

TEST_F(GangSchedulingTest, CompetingGangsDoNotDeadlock) {
  // Room for four 3-cpu pods and two gangs of three (scheduler-plugins
  // #114). Priorities interleave the gangs in the queue (preemption is off
  // for them), so after a0 b0 a1 b1 each gang holds half the cluster and
  // neither can complete on its own.
  AddNodes(4);
  AddPodGroup("a", 3, 100);
  AddPodGroup("b", 3, 200);
  const std::vector<std::pair<std::string, int32_t>> pods = {
      {"a0", 4}, {"b0", 3}, {"a1", 2}, {"b1", 1}, {"a2", 0}, {"b2", -1}};
  for (const auto& [name, priority] : pods) {
    AddPod(Member(name, name.substr(0, 1), "3")
               .Priority(priority)
               .PreemptionPolicy(api::PreemptionPolicy::kNever));
  }
  ASSERT_TRUE(sched_->ScheduleOne());  // a0
  ASSERT_TRUE(sched_->ScheduleOne());  // b0
  ASSERT_TRUE(sched_->ScheduleOne());  // a1
  ASSERT_TRUE(sched_->ScheduleOne());  // b1
  EXPECT_EQ(WaitingCount(), 4u);
  EXPECT_EQ(RequestedMilliCpu(), 12000);
  // a2 fits nowhere: gang a gives back what it held...
  ASSERT_TRUE(sched_->ScheduleOne());
  SettleBindings();
  EXPECT_EQ(WaitingCount(), 2u);
  EXPECT_EQ(RequestedMilliCpu(), 6000);
  EXPECT_THAT(LastEvent("a0"), HasSubstr("rejection in PostFilter"));
  // ...so the last member of b completes it.
  AddPod(
      Member("b2", "b", "3").PreemptionPolicy(api::PreemptionPolicy::kNever));
  ScheduleActive();
  EXPECT_THAT(BoundPods(),
              UnorderedElementsAre("default/b0", "default/b1", "default/b2"));
  // Gang a keeps trying, and holds nothing while it cannot complete.
  for (int round = 0; round < 3; ++round) {
    AfterBackoff();
    ScheduleActive();
  }
  EXPECT_THAT(BoundPods(), SizeIs(3));
  EXPECT_EQ(WaitingCount(), 0u);
  EXPECT_EQ(RequestedMilliCpu(), 9000);  // gang b alone
}

TEST_F(GangSchedulingTest, PermitTimeoutReleasesTheWaitingMembers) {
  AddNodes(2);
  AddPodGroup("train", 3, 100);
  // The third member belongs to another scheduler: it counts towards the
  // quorum's existence but is never placed here.
  AddPod(Member("w0", "train", "1"));
  AddPod(Member("w1", "train", "1"));
  AddPod(Member("w2", "train", "1").SchedulerName("other"));
  ScheduleActive();
  EXPECT_TRUE(Waiting(Member("w0", "train", "1").Obj()));
  EXPECT_TRUE(Waiting(Member("w1", "train", "1").Obj()));
  EXPECT_EQ(RequestedMilliCpu(), 2000);

  clock_.Advance(std::chrono::seconds(10));
  sched_->Tick();
  SettleBindings();
  EXPECT_EQ(WaitingCount(), 0u);
  EXPECT_EQ(RequestedMilliCpu(), 0);
  EXPECT_THAT(api_.Binds(), IsEmpty());
  EXPECT_THAT(LastEvent("w0"), HasSubstr("rejected due to timeout after "
                                         "waiting 10s at plugin Coscheduling"));
}

}  // namespace
}  // namespace ksched::scheduler
