// GangManager against scheduler-plugins' core_test.go cases: PreFilter's
// quorum, gate and resource checks, Permit's count, the cluster resource
// check and the failure mark that orders a gang in the queue.
#include "pkg/plugins/coscheduling/gang_manager.h"

#include <gtest/gtest.h>

#include "pkg/plugins/coscheduling/pod_group_source.h"
#include "pkg/plugins/coscheduling/testing_util.h"
#include "pkg/util/fake_clock.h"

namespace ksched::plugins::coscheduling {
namespace {

using ::ksched::plugins::coscheduling::testing::MakePodGroup;
using ::ksched::plugins::coscheduling::testing::Member;
using ::ksched::testing::MakeNodeInfo;
using ::ksched::testing::NodeBuilder;

class GangManagerTest : public ::testing::Test {
 protected:
  GangManagerTest()
      : source_(objects_, &members_),
        manager_(source_, {.clock = &clock_,
                           .permit_wait = std::chrono::seconds(10),
                           .backoff = std::chrono::seconds(0)}) {}

  void AddMember(const api::Pod& pod) {
    members_.Upsert(std::make_shared<const api::Pod>(pod));
  }
  // Two nodes of 4 CPUs (and 32 pods each, as the test node builder
  // upstream has), the given pods on node-a.
  std::vector<framework::NodeInfoPtr> Nodes(
      const std::vector<api::Pod>& on_a = {}) {
    api::Node a =
        NodeBuilder("node-a").Capacity({{"cpu", "4"}, {"pods", "32"}}).Obj();
    api::Node b =
        NodeBuilder("node-b").Capacity({{"cpu", "4"}, {"pods", "32"}}).Obj();
    return {MakeNodeInfo(a, on_a), MakeNodeInfo(b)};
  }

  util::FakeClock clock_;
  framework::InMemoryClusterObjects objects_;
  framework::PodGroupMembers members_;
  PodGroupSource source_;
  GangManager manager_;
};

TEST_F(GangManagerTest, PreFilterPassesAPodOfNoGroup) {
  objects_.Upsert(MakePodGroup("ns", "pg1", 1));
  api::Pod p = Member("ns", "p", "").Obj();
  AddMember(Member("ns", "p1", "pg1").Obj());
  EXPECT_EQ(manager_.PreFilter(p, Nodes()), "");
}

TEST_F(GangManagerTest, PreFilterPassesAPodWhoseGroupDoesNotExist) {
  // Refused at Permit, as scheduler-plugins does.
  objects_.Upsert(MakePodGroup("ns", "pg1", 1));
  api::Pod p = Member("ns", "p", "pg-non-existent").Obj();
  AddMember(p);
  EXPECT_EQ(manager_.PreFilter(p, Nodes()), "");
}

TEST_F(GangManagerTest, PreFilterRefusesFewerPodsThanMinMember) {
  objects_.Upsert(MakePodGroup("ns", "pg1", 2));
  objects_.Upsert(MakePodGroup("ns", "pg2", 2));
  api::Pod p = Member("ns", "p", "pg1").Obj();
  AddMember(p);
  AddMember(Member("ns", "pg2-1", "pg2").Obj());
  EXPECT_EQ(manager_.PreFilter(p, Nodes()),
            "pre-filter pod p cannot find enough sibling pods, current pods "
            "number: 1, minMember of group: 2");
}

TEST_F(GangManagerTest, PreFilterPassesWithMinMemberPodsOrMore) {
  objects_.Upsert(MakePodGroup("ns", "pg1", 2));
  api::Pod p1a = Member("ns", "p1a", "pg1").Obj();
  AddMember(p1a);
  AddMember(Member("ns", "p1b", "pg1").Obj());
  EXPECT_EQ(manager_.PreFilter(p1a, Nodes()), "");
  AddMember(Member("ns", "p1c", "pg1").Obj());
  EXPECT_EQ(manager_.PreFilter(p1a, Nodes()), "");
}

TEST_F(GangManagerTest, PreFilterCountsOnlyPodsOfTheSameNamespace) {
  objects_.Upsert(MakePodGroup("ns", "pg1", 2));
  api::Pod p = Member("ns", "p", "pg1").Obj();
  AddMember(p);
  AddMember(Member("other", "q", "pg1").Obj());
  EXPECT_NE(manager_.PreFilter(p, Nodes()), "");
}

TEST_F(GangManagerTest, PreFilterPassesGatedPodsBeyondTheQuorum) {
  objects_.Upsert(MakePodGroup("ns", "pg1", 2));
  api::Pod p1a = Member("ns", "p1a", "pg1").Obj();
  AddMember(p1a);
  AddMember(Member("ns", "p1b", "pg1").Obj());
  AddMember(Member("ns", "p1c", "pg1").SchedulingGate("example-gate").Obj());
  EXPECT_EQ(manager_.PreFilter(p1a, Nodes()), "");
}

TEST_F(GangManagerTest, PreFilterRefusesWhenGatedPodsLeaveTooFew) {
  objects_.Upsert(MakePodGroup("ns", "pg1", 3));
  api::Pod p1a = Member("ns", "p1a", "pg1").Obj();
  AddMember(p1a);
  AddMember(Member("ns", "p1b", "pg1").SchedulingGate("example-gate").Obj());
  AddMember(Member("ns", "p1c", "pg1").Obj());
  EXPECT_EQ(manager_.PreFilter(p1a, Nodes()),
            "pre-filter pod p1a cannot find enough sibling pods without "
            "scheduling gates, current pods number: 2 (1 gated), minMember of "
            "group: 3");
}

TEST_F(GangManagerTest, PreFilterRefusesWhenAllSiblingsAreGated) {
  objects_.Upsert(MakePodGroup("ns", "pg1", 2));
  api::Pod p1a = Member("ns", "p1a", "pg1").Obj();
  AddMember(p1a);
  AddMember(Member("ns", "p1b", "pg1").SchedulingGate("g").Obj());
  AddMember(Member("ns", "p1c", "pg1").SchedulingGate("g").Obj());
  EXPECT_NE(manager_.PreFilter(p1a, Nodes()), "");
}

TEST_F(GangManagerTest, PreFilterChecksMinResourcesAgainstTheCluster) {
  api::Pod p1a = Member("ns", "p1a", "pg1").Obj();
  AddMember(p1a);
  AddMember(Member("ns", "p1b", "pg1").Obj());
  AddMember(Member("ns", "p1c", "pg1").Obj());
  // 8 CPUs in all.
  objects_.Upsert(MakePodGroup("ns", "pg1", 2, 0, {{"cpu", "6"}}));
  EXPECT_EQ(manager_.PreFilter(p1a, Nodes()), "");
  objects_.Upsert(MakePodGroup("ns", "pg2", 2, 0, {{"cpu", "10"}}));
  api::Pod p2a = Member("ns", "p2a", "pg2").Obj();
  AddMember(p2a);
  AddMember(Member("ns", "p2b", "pg2").Obj());
  EXPECT_EQ(manager_.PreFilter(p2a, Nodes()),
            "resource gap: cpu 2 (the group's minResources ask for 10 cpu; "
            "the cluster has 8 free)");
}

TEST_F(GangManagerTest, PreFilterRemembersAPassedResourceCheckForTheWait) {
  objects_.Upsert(MakePodGroup("ns", "pg1", 2, 0, {{"cpu", "6"}}));
  api::Pod p1a = Member("ns", "p1a", "pg1").Obj();
  AddMember(p1a);
  AddMember(Member("ns", "p1b", "pg1").Obj());
  ASSERT_EQ(manager_.PreFilter(p1a, Nodes()), "");
  // The cluster fills up with other pods: the check is not made again
  // until the Permit wait (10 s) has passed, or the gang failed.
  api::Pod filler = Member("ns", "filler", "").Req({{"cpu", "4"}}).Obj();
  filler.spec.node_name = "node-a";
  EXPECT_EQ(manager_.PreFilter(p1a, Nodes({filler})), "");
  manager_.ForgetPermitted("ns/pg1");
  EXPECT_EQ(manager_.PreFilter(p1a, Nodes({filler})),
            "resource gap: cpu 2 (the group's minResources ask for 6 cpu; "
            "the cluster has 4 free)");
  ASSERT_EQ(manager_.PreFilter(p1a, Nodes()), "");
  clock_.Advance(std::chrono::seconds(11));
  EXPECT_EQ(manager_.PreFilter(p1a, Nodes({filler})),
            "resource gap: cpu 2 (the group's minResources ask for 6 cpu; "
            "the cluster has 4 free)");
}

TEST_F(GangManagerTest, PreFilterRefusesAGroupBackingOff) {
  GangManager manager(source_, {.clock = &clock_,
                                .permit_wait = std::chrono::seconds(10),
                                .backoff = std::chrono::seconds(5)});
  objects_.Upsert(MakePodGroup("ns", "pg1", 1));
  api::Pod p = Member("ns", "p", "pg1").Obj();
  AddMember(p);
  manager.BackOff("ns/pg1");
  EXPECT_EQ(manager.PreFilter(p, Nodes()), "podGroup ns/pg1 failed recently");
  EXPECT_FALSE(manager.BackoffOver("ns/pg1"));
  // A second failure does not extend the backoff.
  clock_.Advance(std::chrono::seconds(3));
  manager.BackOff("ns/pg1");
  clock_.Advance(std::chrono::seconds(2));
  EXPECT_EQ(manager.PreFilter(p, Nodes()), "");
  EXPECT_TRUE(manager.BackoffOver("ns/pg1"));
}

TEST_F(GangManagerTest, BackoffOfZeroSecondsIsOff) {
  manager_.BackOff("ns/pg1");
  EXPECT_FALSE(manager_.BackingOff("ns/pg1"));
}

// ---- CheckClusterResource (two nodes of 3 CPUs, 4 CPUs asked) ----

class ClusterResourceTest : public GangManagerTest {
 protected:
  std::string Check(const std::vector<api::Pod>& on_a,
                    const std::vector<api::Pod>& on_b) {
    api::Node a =
        NodeBuilder("node-a").Capacity({{"cpu", "3"}, {"pods", "32"}}).Obj();
    api::Node b =
        NodeBuilder("node-b").Capacity({{"cpu", "3"}, {"pods", "32"}}).Obj();
    std::vector<framework::NodeInfoPtr> nodes = {MakeNodeInfo(a, on_a),
                                                 MakeNodeInfo(b, on_b)};
    objects_.Upsert(MakePodGroup("ns", "pg1", 1, 0, {{"cpu", "4"}}));
    api::Pod p = Member("ns", "p", "pg1").Obj();
    AddMember(p);
    manager_.ForgetPermitted("ns/pg1");
    return manager_.PreFilter(p, nodes);
  }
};

TEST_F(ClusterResourceTest, EnoughResources) {
  EXPECT_EQ(Check({Member("ns", "p1", "").Req({{"cpu", "2"}}).Obj()}, {}), "");
}

TEST_F(ClusterResourceTest, NotEnoughResources) {
  EXPECT_EQ(Check({Member("ns", "p1", "").Req({{"cpu", "2"}}).Obj()},
                  {Member("ns", "p2", "").Req({{"cpu", "1"}}).Obj()}),
            "resource gap: cpu 1 (the group's minResources ask for 4 cpu; "
            "the cluster has 3 free)");
}

TEST_F(ClusterResourceTest, TheGroupsOwnPlacedPodsCountAsFree) {
  EXPECT_EQ(Check({Member("ns", "p1", "pg1").Req({{"cpu", "2"}}).Obj()},
                  {Member("ns", "p2", "").Req({{"cpu", "1"}}).Obj()}),
            "");
}

TEST_F(ClusterResourceTest, PodsOfTheSameNameInAnotherNamespaceAreNotTheGroup) {
  EXPECT_NE(Check({Member("other", "p1", "pg1").Req({{"cpu", "2"}}).Obj()},
                  {Member("ns", "p2", "").Req({{"cpu", "1"}}).Obj()}),
            "");
}

TEST_F(GangManagerTest, TheQuorumAsksForMinMemberPodSlots) {
  // Room for CPU but only one pod slot left in the cluster.
  api::Node a =
      NodeBuilder("node-a").Capacity({{"cpu", "8"}, {"pods", "1"}}).Obj();
  objects_.Upsert(MakePodGroup("ns", "pg1", 2, 0, {{"cpu", "1"}}));
  api::Pod p = Member("ns", "p", "pg1").Obj();
  AddMember(p);
  AddMember(Member("ns", "q", "pg1").Obj());
  EXPECT_EQ(manager_.PreFilter(p, {MakeNodeInfo(a)}),
            "resource gap: pods 1 (the group's minMember asks for 2 pods; the "
            "cluster has room for 1)");
}

// ---- Permit ----

TEST_F(GangManagerTest, PermitOfAPodOfNoGroup) {
  objects_.Upsert(MakePodGroup("ns", "pg1", 2));
  bool first = true;
  EXPECT_EQ(manager_.Permit(Member("ns", "p", "").Obj(), &first),
            GangManager::PermitResult::kNoGang);
  EXPECT_FALSE(first);
}

TEST_F(GangManagerTest, PermitOfAPodWhoseGroupDoesNotExist) {
  objects_.Upsert(MakePodGroup("ns", "pg1", 2));
  bool first = true;
  EXPECT_EQ(manager_.Permit(Member("ns", "p", "pg-non-existent").Obj(), &first),
            GangManager::PermitResult::kGangNotFound);
}

TEST_F(GangManagerTest, PermitWaitsForTheQuorum) {
  objects_.Upsert(MakePodGroup("ns", "pg1", 2));
  api::Pod p = Member("ns", "p", "pg1").Obj();
  AddMember(p);
  bool first = false;
  EXPECT_EQ(manager_.Permit(p, &first), GangManager::PermitResult::kWait);
  EXPECT_TRUE(first);
}

TEST_F(GangManagerTest, PermitCountsBoundMembers) {
  objects_.Upsert(MakePodGroup("ns", "pg1", 2));
  api::Pod p1a = Member("ns", "p1a", "pg1").Obj();
  AddMember(p1a);
  AddMember(Member("ns", "p1b", "pg1").Node("node").Obj());
  bool first = true;
  EXPECT_EQ(manager_.Permit(p1a, &first), GangManager::PermitResult::kQuorum);
  EXPECT_FALSE(first);
}

TEST_F(GangManagerTest, PermitCountsAssumedMembersUntilUnreserved) {
  objects_.Upsert(MakePodGroup("ns", "pg1", 3));
  api::Pod a = Member("ns", "a", "pg1").Obj();
  api::Pod b = Member("ns", "b", "pg1").Obj();
  api::Pod c = Member("ns", "c", "pg1").Obj();
  for (const api::Pod& p : {a, b, c}) AddMember(p);
  bool first = false;
  EXPECT_EQ(manager_.Permit(a, &first), GangManager::PermitResult::kWait);
  EXPECT_TRUE(first);
  EXPECT_EQ(manager_.Permit(b, &first), GangManager::PermitResult::kWait);
  EXPECT_FALSE(first);
  manager_.Unreserve(b);
  EXPECT_EQ(manager_.Placed(*source_.Find(a), a), 1);
  EXPECT_EQ(manager_.Permit(b, &first), GangManager::PermitResult::kWait);
  EXPECT_EQ(manager_.Permit(c, &first), GangManager::PermitResult::kQuorum);
  // A member deleted while assumed no longer counts.
  members_.Remove(b);
  EXPECT_EQ(manager_.Placed(*source_.Find(a), a), 2);
}

// ---- queue order ----

TEST_F(GangManagerTest, AFailureOrdersTheGroupByItsTimeUntilCleared) {
  util::FakeClock clock(util::Clock::WallTime(std::chrono::seconds(1000)));
  GangManager manager(source_, {.clock = &clock});
  objects_.Upsert(MakePodGroup("ns", "pg1", 2, /*created_seconds=*/990));
  api::Pod p = Member("ns", "p", "pg1").Obj();
  const api::Timestamp created{std::chrono::seconds(990)};
  EXPECT_EQ(manager.SortTime(p), created);
  manager.MarkFailure("ns/pg1");
  ASSERT_TRUE(manager.SortTime(p).has_value());
  EXPECT_GT(*manager.SortTime(p), created);
  manager.ClearFailure("ns/pg1");
  EXPECT_EQ(manager.SortTime(p), created);
  EXPECT_EQ(manager.SortTime(Member("ns", "q", "").Obj()), std::nullopt);
}

TEST_F(GangManagerTest, WaitTimeIsTheGroupsThenThePluginsThenSixtySeconds) {
  Gang gang;
  EXPECT_EQ(manager_.WaitTime(gang), std::chrono::seconds(10));
  gang.schedule_timeout = std::chrono::seconds(0);
  EXPECT_EQ(manager_.WaitTime(gang), std::chrono::seconds(0));
  gang.schedule_timeout = std::chrono::seconds(25);
  EXPECT_EQ(manager_.WaitTime(gang), std::chrono::seconds(25));
  GangManager no_default(
      source_, {.clock = &clock_, .permit_wait = std::chrono::seconds(0)});
  EXPECT_EQ(no_default.WaitTime(std::nullopt), std::chrono::seconds(60));
}

}  // namespace
}  // namespace ksched::plugins::coscheduling
