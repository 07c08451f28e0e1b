// The Coscheduling plugin against scheduler-plugins' coscheduling_test.go
// cases (queue order, Permit, PostFilter, backoff), plus what its
// extension points do to the other waiting members of a gang.
#include "pkg/plugins/coscheduling/coscheduling.h"

#include <gtest/gtest.h>

#include "pkg/framework/pods_to_activate.h"
#include "pkg/framework/testing/fake_handle.h"
#include "pkg/plugins/coscheduling/testing_util.h"

namespace ksched::plugins {
namespace {

using framework::Code;
using framework::Status;
using ::ksched::plugins::coscheduling::testing::MakePodGroup;
using ::ksched::plugins::coscheduling::testing::Member;
using ::ksched::testing::FakeHandle;
using ::ksched::testing::MakeNodeInfo;
using ::ksched::testing::NodeBuilder;

class CoschedulingTest : public ::testing::Test {
 protected:
  CoschedulingTest() : handle_(Nodes()) {}

  static std::vector<framework::NodeInfoPtr> Nodes() {
    return {MakeNodeInfo(NodeBuilder("node").Capacity({{"cpu", "4"}}).Obj())};
  }

  std::unique_ptr<Coscheduling> Make(config::CoschedulingArgs args = {}) {
    auto source = std::make_unique<coscheduling::PodGroupSource>(
        handle_.objects(), handle_.pod_group_members());
    return std::make_unique<Coscheduling>(args, handle_, std::move(source));
  }
  framework::PodInfoPtr Add(const ksched::testing::PodBuilder& b) {
    handle_.pod_group_members_.Upsert(b.Ptr());
    return b.Info();
  }
  // Holds `pod` at Permit, as the scheduler does after a Wait.
  std::shared_ptr<framework::WaitingPod> Wait(
      const framework::PodInfoPtr& pod) {
    auto waiting = std::make_shared<framework::WaitingPod>(
        pod,
        std::vector<std::pair<std::string, std::chrono::milliseconds>>{
            {"Coscheduling", std::chrono::seconds(60)}},
        handle_.clock().Now());
    handle_.waiting_pods_.Add(waiting);
    return waiting;
  }

  FakeHandle handle_;
};

// ---- QueueSort (TestLess) ----

struct LessCase {
  const char* name;
  framework::QueuedPodInfo a;
  framework::QueuedPodInfo b;
  bool want;
};

framework::QueuedPodInfo Queued(std::string ns, std::string name,
                                int32_t priority, int64_t queued_at,
                                std::string group = "") {
  framework::QueuedPodInfo q;
  q.pod_info = Member(std::move(ns), std::move(name), std::move(group))
                   .Priority(priority)
                   .Info();
  q.initial_attempt_timestamp =
      util::Clock::TimePoint(std::chrono::seconds(queued_at));
  q.timestamp = *q.initial_attempt_timestamp;
  return q;
}

TEST_F(CoschedulingTest, LessOrdersByPriorityThenGroupTimeThenName) {
  constexpr int32_t kLow = 10;
  constexpr int32_t kHigh = 100;
  constexpr int64_t kNow = 1000;
  std::unique_ptr<Coscheduling> cs = Make();
  handle_.objects_.Upsert(MakePodGroup("ns1", "pg1", 1, kNow + 1));
  handle_.objects_.Upsert(MakePodGroup("ns2", "pg2", 1, kNow + 2));
  const LessCase cases[] = {
      {"p1.priority less than p2.priority", Queued("ns1", "p1", kLow, kNow),
       Queued("ns2", "p2", kHigh, kNow), false},
      {"p1.priority greater than p2.priority", Queued("ns1", "p1", kHigh, kNow),
       Queued("ns2", "p2", kLow, kNow), true},
      {"equal priority, p1 queued earlier",
       Queued("ns1", "p1", kHigh, kNow + 1),
       Queued("ns2", "p2", kHigh, kNow + 2), true},
      {"equal priority, p2 queued earlier",
       Queued("ns1", "p1", kHigh, kNow + 2),
       Queued("ns2", "p2", kHigh, kNow + 1), false},
      {"p1 lower priority, p1 in pg1", Queued("ns1", "p1", kLow, kNow, "pg1"),
       Queued("ns2", "p2", kHigh, kNow), false},
      {"p1 higher priority, p1 in pg1", Queued("ns1", "p1", kHigh, kNow, "pg1"),
       Queued("ns2", "p2", kLow, kNow), true},
      {"equal priority, pg1 created before p2 was queued",
       Queued("ns1", "p1", kHigh, kNow + 5, "pg1"),
       Queued("ns2", "p2", kHigh, kNow + 2), true},
      {"equal priority, p2 queued before pg1 was created",
       Queued("ns1", "p1", kHigh, kNow, "pg1"),
       Queued("ns2", "p2", kHigh, kNow), false},
      {"p1 lower priority, both in groups",
       Queued("ns1", "p1", kLow, kNow, "pg1"),
       Queued("ns2", "p2", kHigh, kNow, "pg2"), false},
      {"p1 higher priority, p2's group not found",
       Queued("ns1", "p1", kHigh, kNow), Queued("ns2", "p2", kLow, kNow, "pg1"),
       true},
      {"equal priority, pg1 older than pg2",
       Queued("ns1", "p1", kHigh, kNow + 9, "pg1"),
       Queued("ns2", "p2", kHigh, kNow, "pg2"), true},
      {"same name in two namespaces: one group missing",
       Queued("ns1", "p1", kHigh, kNow + 1, "pg2"),
       Queued("ns2", "p2", kHigh, kNow + 1, "pg2"), true},
      {"equal times: namespace/name decides",
       Queued("ns1", "p2", kHigh, kNow + 1),
       Queued("ns1", "p1", kHigh, kNow + 1), false},
      {"a group's members sort by name",
       Queued("ns1", "a", kHigh, kNow + 50, "pg1"),
       Queued("ns1", "b", kHigh, kNow, "pg1"), true},
  };
  for (const LessCase& c : cases) {
    EXPECT_EQ(cs->Less(c.a, c.b), c.want) << c.name;
  }
}

TEST_F(CoschedulingTest, AFailedGroupSortsBehindAYoungerOne) {
  handle_.clock_.Advance(std::chrono::seconds(1000));
  std::unique_ptr<Coscheduling> cs = Make();
  handle_.objects_.Upsert(MakePodGroup("ns", "old", 1, 10));
  handle_.objects_.Upsert(MakePodGroup("ns", "young", 1, 20));
  framework::QueuedPodInfo a = Queued("ns", "a", 0, 900, "old");
  framework::QueuedPodInfo b = Queued("ns", "b", 0, 900, "young");
  EXPECT_TRUE(cs->Less(a, b));
  cs->manager().MarkFailure("ns/old");
  EXPECT_FALSE(cs->Less(a, b));
  cs->manager().ClearFailure("ns/old");
  EXPECT_TRUE(cs->Less(a, b));
}

// ---- PreFilter ----

TEST_F(CoschedulingTest, PreFilterRefusalIsUnresolvable) {
  std::unique_ptr<Coscheduling> cs = Make();
  handle_.objects_.Upsert(MakePodGroup("ns", "pg1", 2));
  framework::PodInfoPtr p = Add(Member("ns", "p", "pg1"));
  framework::CycleState state;
  framework::PreFilterResult result;
  Status s = cs->PreFilter(state, *p, handle_.snapshot().nodes(), &result);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(),
            "pre-filter pod p cannot find enough sibling pods, current pods "
            "number: 1, minMember of group: 2");
  EXPECT_TRUE(result.AllNodes());
}

// ---- Permit ----

TEST_F(CoschedulingTest, PermitOfPodsWithoutAGroupWithoutQuorumAndWithIt) {
  std::unique_ptr<Coscheduling> cs = Make();
  handle_.objects_.Upsert(MakePodGroup("ns", "pg1", 1));
  handle_.objects_.Upsert(MakePodGroup("ns", "pg2", 2));
  framework::CycleState state;
  std::chrono::milliseconds timeout{0};
  EXPECT_EQ(
      cs->Permit(state, *Add(Member("ns", "p", "")), "node", &timeout).code(),
      Code::kSuccess);
  EXPECT_EQ(cs->Permit(state, *Add(Member("ns", "p2", "pg2")), "node", &timeout)
                .code(),
            Code::kWait);
  EXPECT_EQ(timeout, std::chrono::seconds(60));
  EXPECT_EQ(cs->Permit(state, *Add(Member("ns", "p1", "pg1")), "node", &timeout)
                .code(),
            Code::kSuccess);
  Status missing = cs->Permit(state, *Add(Member("ns", "p3", "pg-missing")),
                              "node", &timeout);
  EXPECT_EQ(missing.code(), Code::kUnschedulable);
  EXPECT_EQ(missing.Message(), "PodGroup not found");
}

TEST_F(CoschedulingTest, PermitWaitsTheGroupsTimeoutElseThePlugins) {
  config::CoschedulingArgs args;
  args.permit_waiting_time_seconds = 10;
  std::unique_ptr<Coscheduling> cs = Make(args);
  handle_.objects_.Upsert(MakePodGroup("ns", "pg1", 3, 0, {}, 25));
  handle_.objects_.Upsert(MakePodGroup("ns", "pg2", 3, 0, {}, 0));
  handle_.objects_.Upsert(MakePodGroup("ns", "pg3", 3));
  framework::CycleState state;
  std::chrono::milliseconds timeout{0};
  cs->Permit(state, *Add(Member("ns", "a", "pg1")), "node", &timeout);
  EXPECT_EQ(timeout, std::chrono::seconds(25));
  // 0 in the group keeps the plugin's.
  cs->Permit(state, *Add(Member("ns", "b", "pg2")), "node", &timeout);
  EXPECT_EQ(timeout, std::chrono::seconds(10));
  cs->Permit(state, *Add(Member("ns", "c", "pg3")), "node", &timeout);
  EXPECT_EQ(timeout, std::chrono::seconds(10));
}

TEST_F(CoschedulingTest, TheFirstWaiterActivatesItsSiblings) {
  std::unique_ptr<Coscheduling> cs = Make();
  handle_.objects_.Upsert(MakePodGroup("ns", "pg1", 3));
  framework::PodInfoPtr pod1 = Add(Member("ns", "pod1", "pg1"));
  framework::PodInfoPtr pod2 = Add(Member("ns", "pod2", "pg1"));
  Add(Member("ns", "pod3", "pg1"));
  Add(Member("ns", "other", "pg2"));
  framework::CycleState state;
  auto to_activate = std::make_shared<framework::PodsToActivate>();
  state.Write(framework::kPodsToActivateKey, to_activate);
  std::chrono::milliseconds timeout{0};
  ASSERT_EQ(cs->Permit(state, *pod1, "node", &timeout).code(), Code::kWait);
  std::vector<std::string> activated;
  for (const auto& [key, pod] : to_activate->Take()) activated.push_back(key);
  EXPECT_EQ(activated, (std::vector<std::string>{"ns/pod2", "ns/pod3"}));
  // The second waiter does not activate again.
  framework::CycleState state2;
  auto to_activate2 = std::make_shared<framework::PodsToActivate>();
  state2.Write(framework::kPodsToActivateKey, to_activate2);
  ASSERT_EQ(cs->Permit(state2, *pod2, "node", &timeout).code(), Code::kWait);
  EXPECT_TRUE(to_activate2->Take().empty());
}

TEST_F(CoschedulingTest, TheQuorumAllowsEveryWaitingMemberAtOnce) {
  std::unique_ptr<Coscheduling> cs = Make();
  handle_.objects_.Upsert(MakePodGroup("ns", "pg1", 3));
  handle_.objects_.Upsert(MakePodGroup("ns", "pg2", 2));
  framework::PodInfoPtr a = Add(Member("ns", "a", "pg1"));
  framework::PodInfoPtr b = Add(Member("ns", "b", "pg1"));
  framework::PodInfoPtr c = Add(Member("ns", "c", "pg1"));
  framework::PodInfoPtr x = Add(Member("ns", "x", "pg2"));
  framework::CycleState state;
  std::chrono::milliseconds timeout{0};
  ASSERT_EQ(cs->Permit(state, *a, "node", &timeout).code(), Code::kWait);
  auto wa = Wait(a);
  ASSERT_EQ(cs->Permit(state, *b, "node", &timeout).code(), Code::kWait);
  auto wb = Wait(b);
  ASSERT_EQ(cs->Permit(state, *x, "node", &timeout).code(), Code::kWait);
  auto wx = Wait(x);
  EXPECT_FALSE(wa->Done());
  ASSERT_EQ(cs->Permit(state, *c, "node", &timeout).code(), Code::kSuccess);
  EXPECT_TRUE(wa->Done());
  EXPECT_TRUE(wb->Done());
  EXPECT_TRUE(wa->Wait().IsSuccess());
  EXPECT_TRUE(wb->Wait().IsSuccess());
  EXPECT_FALSE(wx->Done());
}

// ---- PostFilter ----

TEST_F(CoschedulingTest, PostFilterWithoutAGroup) {
  std::unique_ptr<Coscheduling> cs = Make();
  handle_.objects_.Upsert(MakePodGroup("ns", "pg1", 2));
  framework::CycleState state;
  framework::PostFilterResult result;
  Status s = cs->PostFilter(state, *Add(Member("ns", "p", "")), {}, &result);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "can not find pod group");
}

TEST_F(CoschedulingTest, PostFilterKeepsAGroupWithEnoughPlacedMembers) {
  std::unique_ptr<Coscheduling> cs = Make();
  handle_.objects_.Upsert(MakePodGroup("ns", "pg1", 1));
  Add(Member("ns", "p1", "pg1").Node("node"));
  framework::CycleState state;
  framework::PostFilterResult result;
  Status s = cs->PostFilter(state, *Add(Member("ns", "p", "pg1")), {}, &result);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "");
}

TEST_F(CoschedulingTest, PostFilterRejectsTheGroupAndItsWaitingMembers) {
  std::unique_ptr<Coscheduling> cs = Make();
  handle_.objects_.Upsert(MakePodGroup("ns", "pg1", 3));
  handle_.objects_.Upsert(MakePodGroup("ns", "pg2", 2));
  framework::CycleState state;
  std::chrono::milliseconds timeout{0};
  framework::PodInfoPtr p1 = Add(Member("ns", "p1", "pg1"));
  ASSERT_EQ(cs->Permit(state, *p1, "node", &timeout).code(), Code::kWait);
  auto w1 = Wait(p1);
  framework::PodInfoPtr x = Add(Member("ns", "x", "pg2"));
  ASSERT_EQ(cs->Permit(state, *x, "node", &timeout).code(), Code::kWait);
  auto wx = Wait(x);
  framework::PostFilterResult result;
  Status s = cs->PostFilter(state, *Add(Member("ns", "p", "pg1")), {}, &result);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(),
            "PodGroup ns/pg1 gets rejected due to Pod p is unschedulable even "
            "after PostFilter");
  ASSERT_TRUE(w1->Done());
  Status rejected = w1->Wait();
  EXPECT_EQ(rejected.code(), Code::kUnschedulable);
  EXPECT_EQ(rejected.Message(), "optimistic rejection in PostFilter");
  EXPECT_EQ(rejected.plugin(), "Coscheduling");
  EXPECT_FALSE(wx->Done());
}

// How many of minMember may be missing before PostFilter gives up on the
// group: podGroupRejectPercentage of it (10 by default), inclusive.
bool Rejects(int32_t min_member, int placed, int32_t percentage) {
  FakeHandle handle;
  config::CoschedulingArgs args;
  args.pod_group_reject_percentage = percentage;
  auto source = std::make_unique<coscheduling::PodGroupSource>(
      handle.objects(), handle.pod_group_members());
  Coscheduling cs(args, handle, std::move(source));
  handle.objects_.Upsert(MakePodGroup("ns", "pg", min_member));
  for (int i = 0; i < placed; ++i) {
    handle.pod_group_members_.Upsert(
        Member("ns", "m" + std::to_string(i), "pg").Node("node").Ptr());
  }
  framework::CycleState state;
  framework::PostFilterResult result;
  Status s = cs.PostFilter(state, *Member("ns", "p", "pg").Info(), {}, &result);
  return !s.Message().empty();
}

TEST(CoschedulingRejectPercentageTest, BoundariesOfTheMissingShare) {
  EXPECT_FALSE(Rejects(10, 9, 10));  // 10 % missing: kept
  EXPECT_TRUE(Rejects(8, 7, 10));    // 12.5 %: rejected
  EXPECT_TRUE(Rejects(2, 1, 10));
  EXPECT_TRUE(Rejects(10, 9, 0));     // 0: any missing member rejects
  EXPECT_FALSE(Rejects(10, 0, 100));  // 100: never
}

// TestPodGroupBackoffTime: a gang that failed backs off, so its members are
// not tried in a loop.
TEST_F(CoschedulingTest, AFailedGroupBacksOff) {
  config::CoschedulingArgs args;
  args.permit_waiting_time_seconds = 10;
  args.pod_group_backoff_seconds = 1;
  std::unique_ptr<Coscheduling> cs = Make(args);
  handle_.objects_.Upsert(MakePodGroup("ns", "pg1", 3));
  framework::PodInfoPtr pod1 = Add(Member("ns", "pod1", "pg1"));
  framework::PodInfoPtr pod2 = Add(Member("ns", "pod2", "pg1"));
  framework::PodInfoPtr pod3 = Add(Member("ns", "pod3", "pg1"));
  framework::CycleState state;
  state.Write(framework::kPodsToActivateKey,
              std::make_shared<framework::PodsToActivate>());
  std::chrono::milliseconds timeout{0};
  ASSERT_EQ(cs->Permit(state, *pod1, "node", &timeout).code(), Code::kWait);
  framework::PostFilterResult post;
  cs->PostFilter(state, *pod2, {}, &post);
  framework::PreFilterResult pre;
  Status s = cs->PreFilter(state, *pod3, handle_.snapshot().nodes(), &pre);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "podGroup ns/pg1 failed recently");
  handle_.clock_.Advance(std::chrono::seconds(1));
  EXPECT_TRUE(cs->PreFilter(state, *pod3, handle_.snapshot().nodes(), &pre)
                  .IsSuccess());
}

// ---- Unreserve ----

TEST_F(CoschedulingTest, UnreserveReleasesTheWholeGroup) {
  std::unique_ptr<Coscheduling> cs = Make();
  handle_.objects_.Upsert(MakePodGroup("ns", "pg1", 3));
  handle_.objects_.Upsert(MakePodGroup("ns", "pg2", 2));
  framework::CycleState state;
  std::chrono::milliseconds timeout{0};
  framework::PodInfoPtr a = Add(Member("ns", "a", "pg1"));
  framework::PodInfoPtr b = Add(Member("ns", "b", "pg1"));
  framework::PodInfoPtr x = Add(Member("ns", "x", "pg2"));
  for (const auto& p : {a, b, x}) {
    ASSERT_EQ(cs->Permit(state, *p, "node", &timeout).code(), Code::kWait);
  }
  auto wb = Wait(b);
  auto wx = Wait(x);
  // a timed out (its binding cycle failed): its siblings let go too.
  cs->Unreserve(state, *a, "node");
  ASSERT_TRUE(wb->Done());
  EXPECT_EQ(wb->Wait().Message(), "rejection in Unreserve");
  EXPECT_FALSE(wx->Done());
  EXPECT_EQ(
      cs->manager().Placed(*cs->manager().source().Find(a->pod()), a->pod()),
      1);  // b, until its own Unreserve
  cs->Unreserve(state, *b, "node");
  EXPECT_EQ(
      cs->manager().Placed(*cs->manager().source().Find(a->pod()), a->pod()),
      0);
}

// ---- queueing hints ----

TEST_F(CoschedulingTest, EventsRequeueForAMemberOrTheGroup) {
  std::unique_ptr<Coscheduling> cs = Make();
  std::vector<framework::ClusterEventWithHint> events = cs->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  api::Pod pod = Member("ns", "p", "pg1").Obj();
  api::Pod sibling = Member("ns", "q", "pg1").Obj();
  api::Pod stranger = Member("ns", "s", "pg2").Obj();
  api::Pod elsewhere = Member("other", "q", "pg1").Obj();
  auto pod_hint = [&](const api::Pod& added) {
    framework::EventObjects objs;
    objs.new_pod = &added;
    return events[0].hint(pod, objs);
  };
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(pod_hint(sibling), framework::QueueingHint::kQueue);
  EXPECT_EQ(pod_hint(stranger), framework::QueueingHint::kQueueSkip);
  EXPECT_EQ(pod_hint(elsewhere), framework::QueueingHint::kQueueSkip);

  api::PodGroup mine = MakePodGroup("ns", "pg1", 2);
  api::PodGroup other = MakePodGroup("ns", "pg2", 2);
  auto group_hint = [&](const api::PodGroup& g) {
    framework::EventObjects objs;
    objs.new_pod_group = &g;
    return events[1].hint(pod, objs);
  };
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kPodGroup);
  EXPECT_EQ(group_hint(mine), framework::QueueingHint::kQueue);
  EXPECT_EQ(group_hint(other), framework::QueueingHint::kQueueSkip);
}

TEST_F(CoschedulingTest, AnyPodRequeuesAGroupWhoseBackoffEnded) {
  config::CoschedulingArgs args;
  args.pod_group_backoff_seconds = 5;
  std::unique_ptr<Coscheduling> cs = Make(args);
  handle_.objects_.Upsert(MakePodGroup("ns", "pg1", 1));
  framework::PodInfoPtr p = Add(Member("ns", "p", "pg1"));
  cs->manager().BackOff("ns/pg1");
  framework::CycleState state;
  framework::PreFilterResult pre;
  ASSERT_FALSE(
      cs->PreFilter(state, *p, handle_.snapshot().nodes(), &pre).IsSuccess());
  api::Pod stranger = Member("ns", "s", "").Obj();
  framework::EventObjects objs;
  objs.new_pod = &stranger;
  auto hint = cs->EventsToRegister()[0].hint;
  EXPECT_EQ(hint(p->pod(), objs), framework::QueueingHint::kQueueSkip);
  handle_.clock_.Advance(std::chrono::seconds(5));
  EXPECT_EQ(hint(p->pod(), objs), framework::QueueingHint::kQueue);
}

}  // namespace
}  // namespace ksched::plugins
