// Ports of kube-scheduler's cache_test.go: the pod lifecycle (assume,
// forget, confirm, expire, update, remove) and node operations.
#include "pkg/cache/cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "pkg/cache/test_util.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/util/fake_clock.h"

namespace ksched::cache {
namespace {

using ksched::testing::NodeBuilder;
using ksched::testing::PodBuilder;
using std::chrono::seconds;
using test::ExpectNodeInfo;
using test::MakeBasePod;
using test::Port;
using test::WantNodeInfo;

constexpr int64_t kDefaultMilliCpu = 100;
constexpr int64_t kDefaultMemory = 200 * 1024 * 1024;
constexpr auto kTtl = seconds(10);

class CacheTest : public ::testing::Test {
 protected:
  util::FakeClock clock_;
  Cache cache_{clock_, kTtl};

  void ExpectForgotten(const api::Pod& pod) {
    EXPECT_FALSE(cache_.IsAssumedPod(pod)) << pod.metadata.name;
    EXPECT_EQ(cache_.GetPod(pod.metadata.uid), nullptr) << pod.metadata.name;
  }
};

// TestAssumePodScheduled: assumed pods are summed on their node; assuming
// twice fails; forgetting removes them again.
void AssumeCheckForget(const std::vector<framework::PodInfoPtr>& pods,
                       const WantNodeInfo& want) {
  util::FakeClock clock;
  Cache cache(clock, kTtl);
  for (const auto& pod : pods) {
    ASSERT_TRUE(cache.AssumePod(pod).ok());
    EXPECT_FALSE(cache.AssumePod(pod).ok()) << "pod already in cache";
  }
  ExpectNodeInfo(cache.GetNodeInfo("node").get(), want);
  for (const auto& pod : pods) {
    ASSERT_TRUE(cache.ForgetPod(pod->pod()).ok());
    EXPECT_FALSE(cache.IsAssumedPod(pod->pod()));
    EXPECT_EQ(cache.GetPod(pod->pod().metadata.uid), nullptr);
  }
  // The node-less NodeInfo went away with its last pod.
  EXPECT_EQ(cache.GetNodeInfo("node"), nullptr);
}

TEST(AssumePodScheduledTest, OnePodWithRequestAndPort) {
  AssumeCheckForget({MakeBasePod("node", "p0", "100m", "500", "", {{80}})},
                    {100, 500, 100, 500, {"p0"}, {{80}}});
}

TEST(AssumePodScheduledTest, RequestsAndPortsAreSummed) {
  AssumeCheckForget({MakeBasePod("node", "p1", "100m", "500", "", {{80}}),
                     MakeBasePod("node", "p2", "200m", "1Ki", "", {{8080}})},
                    {300, 1524, 300, 1524, {"p1", "p2"}, {{80}, {8080}}});
}

TEST(AssumePodScheduledTest, PodWithoutRequestsGetsNonZeroDefaults) {
  AssumeCheckForget({MakeBasePod("node", "p3", "", "", "", {{80}})},
                    {0, 0, kDefaultMilliCpu, kDefaultMemory, {"p3"}, {{80}}});
}

TEST(AssumePodScheduledTest, ExtendedResourcesAreSummed) {
  util::FakeClock clock;
  Cache cache(clock, kTtl);
  ASSERT_TRUE(cache
                  .AssumePod(MakeBasePod("node", "p4", "100m", "500",
                                         "example.com/foo:3", {{80}}))
                  .ok());
  EXPECT_EQ(cache.GetNodeInfo("node")->requested().Scalar("example.com/foo"),
            3);
  ASSERT_TRUE(cache
                  .AssumePod(MakeBasePod("node", "p5", "200m", "1Ki",
                                         "example.com/foo:5", {{8080}}))
                  .ok());
  auto info = cache.GetNodeInfo("node");
  ExpectNodeInfo(info.get(),
                 {300, 1524, 300, 1524, {"p4", "p5"}, {{80}, {8080}}});
  EXPECT_EQ(info->requested().Scalar("example.com/foo"), 8);
}

TEST(AssumePodScheduledTest, InvalidExtendedKeyIsIgnored) {
  AssumeCheckForget({MakeBasePod("node", "p6", "100m", "500",
                                 "random-invalid-extended-key:100", {{0}})},
                    {100, 500, 100, 500, {"p6"}, {}});
}

TEST_F(CacheTest, AssumeRequiresUidAndNode) {
  EXPECT_FALSE(cache_.AssumePod(PodBuilder("p").Uid("").Node("n").Info()).ok());
  EXPECT_FALSE(cache_.AssumePod(PodBuilder("p").Info()).ok());
  EXPECT_EQ(cache_.GetStats().pods, 0u);
}

// TestExpirePod.
TEST_F(CacheTest, ExpirePodAfterBindingFinished) {
  auto pod = MakeBasePod("node", "p0", "100m", "500", "", {{80}});
  ASSERT_TRUE(cache_.AssumePod(pod).ok());
  ASSERT_TRUE(cache_.FinishBinding(pod->pod()).ok());
  clock_.Advance(2 * kTtl);
  auto expired = cache_.CleanupExpiredAssumedPods();
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0], pod);
  ExpectForgotten(pod->pod());
  EXPECT_EQ(cache_.GetNodeInfo("node"), nullptr);
}

TEST_F(CacheTest, ExpireOnlyPodsPastDeadlineWithFinishedBinding) {
  auto p0 = MakeBasePod("node", "p0", "100m", "500", "", {{80}});
  auto p1 = MakeBasePod("node", "p1", "200m", "1Ki", "", {{8080}});
  auto p2 = MakeBasePod("node", "p2", "200m", "1Ki", "", {{8080}});
  ASSERT_TRUE(cache_.AssumePod(p0).ok());
  ASSERT_TRUE(cache_.FinishBinding(p0->pod()).ok());
  clock_.Advance(kTtl * 3 / 2);
  ASSERT_TRUE(cache_.AssumePod(p1).ok());
  ASSERT_TRUE(cache_.FinishBinding(p1->pod()).ok());
  ASSERT_TRUE(cache_.AssumePod(p2).ok());  // binding still in flight
  clock_.Advance(kTtl / 2);                // now = assume(p0) + 2 ttl

  auto expired = cache_.CleanupExpiredAssumedPods();
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0]->pod().metadata.name, "p0");
  ExpectNodeInfo(cache_.GetNodeInfo("node").get(),
                 {400, 2048, 400, 2048, {"p1", "p2"}, {{8080}}});
  EXPECT_EQ(cache_.GetStats().assumed_pods, 2u);
}

TEST_F(CacheTest, AssumedPodWithoutFinishedBindingNeverExpires) {
  auto pod = MakeBasePod("node", "p0", "100m", "500", "", {{80}});
  ASSERT_TRUE(cache_.AssumePod(pod).ok());
  clock_.Advance(3 * kTtl);
  EXPECT_TRUE(cache_.CleanupExpiredAssumedPods().empty());
  ExpectNodeInfo(cache_.GetNodeInfo("node").get(),
                 {100, 500, 100, 500, {"p0"}, {{80}}});
  EXPECT_TRUE(cache_.IsAssumedPod(pod->pod()));
}

TEST_F(CacheTest, DeadlineMustBeStrictlyPassed) {
  auto pod = MakeBasePod("node", "p0", "100m", "500");
  ASSERT_TRUE(cache_.AssumePod(pod).ok());
  ASSERT_TRUE(cache_.FinishBinding(pod->pod()).ok());
  clock_.Advance(kTtl);
  EXPECT_TRUE(cache_.CleanupExpiredAssumedPods().empty());
  clock_.Advance(std::chrono::nanoseconds(1));
  EXPECT_EQ(cache_.CleanupExpiredAssumedPods().size(), 1u);
}

TEST(CacheExpiryTest, ZeroTtlNeverExpires) {
  util::FakeClock clock;
  Cache cache(clock, std::chrono::nanoseconds(0));
  auto pod = MakeBasePod("node", "p0", "100m", "500");
  ASSERT_TRUE(cache.AssumePod(pod).ok());
  ASSERT_TRUE(cache.FinishBinding(pod->pod()).ok());
  clock.Advance(std::chrono::hours(24 * 365));
  EXPECT_TRUE(cache.CleanupExpiredAssumedPods().empty());
  EXPECT_TRUE(cache.IsAssumedPod(pod->pod()));
}

TEST_F(CacheTest, FinishBindingOfUnknownOrAddedPodIsNoop) {
  auto pod = MakeBasePod("node", "p0", "100m", "500");
  EXPECT_TRUE(cache_.FinishBinding(pod->pod()).ok());
  ASSERT_TRUE(cache_.AddPod(pod).ok());
  EXPECT_TRUE(cache_.FinishBinding(pod->pod()).ok());
  clock_.Advance(3 * kTtl);
  EXPECT_TRUE(cache_.CleanupExpiredAssumedPods().empty());
  EXPECT_NE(cache_.GetPod("p0"), nullptr);
}

// TestAddPodWillConfirm.
TEST_F(CacheTest, AddPodConfirmsAssumedPod) {
  auto p1 = MakeBasePod("node", "test-1", "100m", "500", "", {{80}});
  auto p2 = MakeBasePod("node", "test-2", "200m", "1Ki", "", {{8080}});
  ASSERT_TRUE(cache_.AssumePod(p1).ok());
  ASSERT_TRUE(cache_.AssumePod(p2).ok());
  ASSERT_TRUE(cache_.AddPod(p1).ok());
  EXPECT_FALSE(cache_.AddPod(p1).ok()) << "pod already in added state";
  EXPECT_FALSE(cache_.IsAssumedPod(p1->pod()));
  EXPECT_TRUE(cache_.IsAssumedPod(p2->pod()));
  ASSERT_TRUE(cache_.ForgetPod(p2->pod()).ok());
  ExpectNodeInfo(cache_.GetNodeInfo("node").get(),
                 {100, 500, 100, 500, {"test-1"}, {{80}}});
  // A confirmed pod no longer expires.
  ASSERT_TRUE(cache_.FinishBinding(p1->pod()).ok());
  clock_.Advance(3 * kTtl);
  EXPECT_TRUE(cache_.CleanupExpiredAssumedPods().empty());
}

// TestAddPodAlwaysUpdatesPodInfoInNodeInfo.
TEST_F(CacheTest, AddPodReplacesTheAssumedPodInfo) {
  auto assumed = MakeBasePod("node1", "test-1", "100m", "500", "", {{80, ""}});
  api::Pod confirmed_obj = assumed->pod();
  confirmed_obj.metadata.resource_version = "42";
  auto confirmed = framework::PodInfo::Create(
      std::make_shared<const api::Pod>(confirmed_obj));
  ASSERT_TRUE(cache_.AssumePod(assumed).ok());
  ASSERT_TRUE(cache_.AddPod(confirmed).ok());
  EXPECT_EQ(cache_.GetPod("test-1"), confirmed);
  auto info = cache_.GetNodeInfo("node1");
  ASSERT_EQ(info->pods().size(), 1u);
  EXPECT_EQ(info->pods()[0], confirmed);
  ExpectNodeInfo(info.get(), {100, 500, 100, 500, {"test-1"}, {{80, ""}}});
}

// TestAddPodWillReplaceAssumed: the informer's node wins.
TEST_F(CacheTest, AddPodOnAnotherNodeMovesTheAssumedPod) {
  auto assumed =
      MakeBasePod("assumed-node-1", "test-1", "100m", "500", "", {{80, ""}});
  auto added =
      MakeBasePod("actual-node", "test-1", "100m", "500", "", {{80, ""}});
  auto updated =
      MakeBasePod("actual-node", "test-1", "200m", "500", "", {{90, ""}});
  ASSERT_TRUE(cache_.AssumePod(assumed).ok());
  ASSERT_TRUE(cache_.AddPod(added).ok());
  ASSERT_TRUE(cache_.UpdatePod(added->pod(), updated).ok());
  EXPECT_EQ(cache_.GetNodeInfo("assumed-node-1"), nullptr);
  ExpectNodeInfo(cache_.GetNodeInfo("actual-node").get(),
                 {200, 500, 200, 500, {"test-1"}, {{90, ""}}});
}

// TestAddPodAfterExpiration.
TEST_F(CacheTest, AddPodAfterExpirationAddsItBack) {
  auto pod = MakeBasePod("node", "p0", "100m", "500", "", {{80}});
  ASSERT_TRUE(cache_.AssumePod(pod).ok());
  ASSERT_TRUE(cache_.FinishBinding(pod->pod()).ok());
  clock_.Advance(2 * kTtl);
  ASSERT_EQ(cache_.CleanupExpiredAssumedPods().size(), 1u);
  ASSERT_TRUE(cache_.AddPod(pod).ok());
  EXPECT_FALSE(cache_.IsAssumedPod(pod->pod()));
  ExpectNodeInfo(cache_.GetNodeInfo("node").get(),
                 {100, 500, 100, 500, {"p0"}, {{80}}});
}

// TestUpdatePod: add, then update back and forth.
TEST_F(CacheTest, UpdatePodReplacesItsAccounting) {
  auto v0 = MakeBasePod("node", "test", "100m", "500", "", {{80}});
  auto v1 = MakeBasePod("node", "test", "200m", "1Ki", "", {{8080}});
  ASSERT_TRUE(cache_.AddPod(v0).ok());
  ASSERT_TRUE(cache_.UpdatePod(v0->pod(), v1).ok());
  ExpectNodeInfo(cache_.GetNodeInfo("node").get(),
                 {200, 1024, 200, 1024, {"test"}, {{8080}}});
  ASSERT_TRUE(cache_.UpdatePod(v1->pod(), v0).ok());
  ExpectNodeInfo(cache_.GetNodeInfo("node").get(),
                 {100, 500, 100, 500, {"test"}, {{80}}});
}

// TestUpdatePodAndGet.
TEST_F(CacheTest, GetReturnsTheAssumedPod) {
  auto pod = MakeBasePod("node", "test", "100m", "500", "", {{80}});
  EXPECT_EQ(cache_.GetPod("test"), nullptr);
  EXPECT_FALSE(cache_.UpdatePod(pod->pod(), pod).ok()) << "unknown pod";
  ASSERT_TRUE(cache_.AssumePod(pod).ok());
  EXPECT_EQ(cache_.GetPod("test"), pod);
}

TEST_F(CacheTest, GetReturnsTheUpdatedPod) {
  auto v0 = MakeBasePod("node", "test", "100m", "500", "", {{80}});
  auto v1 = MakeBasePod("node", "test", "200m", "1Ki", "", {{8080}});
  EXPECT_FALSE(cache_.UpdatePod(v0->pod(), v1).ok()) << "unknown pod";
  ASSERT_TRUE(cache_.AddPod(v0).ok());
  ASSERT_TRUE(cache_.UpdatePod(v0->pod(), v1).ok());
  EXPECT_EQ(cache_.GetPod("test"), v1);
}

TEST_F(CacheTest, AssumedPodCannotBeUpdated) {
  auto v0 = MakeBasePod("node", "test", "100m", "500");
  auto v1 = MakeBasePod("node", "test", "200m", "1Ki");
  ASSERT_TRUE(cache_.AssumePod(v0).ok());
  EXPECT_FALSE(cache_.UpdatePod(v0->pod(), v1).ok());
  EXPECT_EQ(cache_.GetPod("test"), v0);
}

TEST_F(CacheTest, UpdateToAnotherNodeIsAppliedAndReported) {
  auto v0 = MakeBasePod("node-a", "test", "100m", "500");
  auto v1 = MakeBasePod("node-b", "test", "100m", "500");
  ASSERT_TRUE(cache_.AddPod(v0).ok());
  EXPECT_FALSE(cache_.UpdatePod(v0->pod(), v1).ok());
  EXPECT_EQ(cache_.GetNodeInfo("node-a"), nullptr);
  ExpectNodeInfo(cache_.GetNodeInfo("node-b").get(),
                 {100, 500, 100, 500, {"test"}, {}});
  EXPECT_EQ(cache_.GetStats().pods, 1u);
}

// TestExpireAddUpdatePod.
TEST_F(CacheTest, ExpiredPodCanBeAddedAndUpdated) {
  auto v0 = MakeBasePod("node", "test", "100m", "500", "", {{80}});
  auto v1 = MakeBasePod("node", "test", "200m", "1Ki", "", {{8080}});
  ASSERT_TRUE(cache_.AssumePod(v0).ok());
  ASSERT_TRUE(cache_.FinishBinding(v0->pod()).ok());
  clock_.Advance(2 * kTtl);
  ASSERT_EQ(cache_.CleanupExpiredAssumedPods().size(), 1u);
  ASSERT_TRUE(cache_.AddPod(v0).ok());
  ASSERT_TRUE(cache_.UpdatePod(v0->pod(), v1).ok());
  ExpectNodeInfo(cache_.GetNodeInfo("node").get(),
                 {200, 1024, 200, 1024, {"test"}, {{8080}}});
  ASSERT_TRUE(cache_.UpdatePod(v1->pod(), v0).ok());
  ExpectNodeInfo(cache_.GetNodeInfo("node").get(),
                 {100, 500, 100, 500, {"test"}, {{80}}});
}

// TestEphemeralStorageResource.
TEST_F(CacheTest, EphemeralStorageIsAccounted) {
  auto pod = PodBuilder("pod-with-ephemeral-storage")
                 .Namespace("default-namespace")
                 .Uid("pod-with-ephemeral-storage")
                 .Node("node")
                 .Req({{"ephemeral-storage", "500"}})
                 .Info();
  ASSERT_TRUE(cache_.AddPod(pod).ok());
  auto info = cache_.GetNodeInfo("node");
  EXPECT_EQ(info->requested().ephemeral_storage, 500);
  ExpectNodeInfo(
      info.get(),
      {0, 0, kDefaultMilliCpu, kDefaultMemory, {pod->pod().metadata.name}, {}});
  ASSERT_TRUE(cache_.RemovePod(pod->pod()).ok());
  EXPECT_EQ(cache_.GetPod("pod-with-ephemeral-storage"), nullptr);
}

// TestRemovePod, for a bound and an assumed pod: both may arrive before
// their node, and the node that held the pod moves to the head.
void RemovePodCase(bool assume) {
  util::FakeClock clock;
  Cache cache(clock, kTtl);
  auto pod = MakeBasePod("node-1", "test", "100m", "500", "", {{80}});
  ASSERT_TRUE((assume ? cache.AssumePod(pod) : cache.AddPod(pod)).ok());
  ExpectNodeInfo(cache.GetNodeInfo("node-1").get(),
                 {100, 500, 100, 500, {"test"}, {{80}}});
  cache.AddNode(NodeBuilder("node-1").Ptr());
  cache.AddNode(NodeBuilder("node-2").Ptr());
  ASSERT_TRUE(cache.RemovePod(pod->pod()).ok());
  EXPECT_EQ(cache.GetPod("test"), nullptr);
  EXPECT_FALSE(cache.IsAssumedPod(pod->pod()));
  EXPECT_FALSE(cache.RemovePod(pod->pod()).ok()) << "already removed";
  EXPECT_EQ(cache.NodeNamesByRecency().front(), "node-1");
  ExpectNodeInfo(cache.GetNodeInfo("node-1").get(), {0, 0, 0, 0, {}, {}});
}

TEST(RemovePodTest, BoundPod) { RemovePodCase(false); }
TEST(RemovePodTest, AssumedPod) { RemovePodCase(true); }

TEST_F(CacheTest, RemovePodWithEmptyNodeNameRemovesTheCachedOne) {
  auto pod = MakeBasePod("node", "test", "100m", "500");
  ASSERT_TRUE(cache_.AddPod(pod).ok());
  api::Pod last_known = pod->pod();
  last_known.spec.node_name.clear();
  EXPECT_TRUE(cache_.RemovePod(last_known).ok());
  EXPECT_EQ(cache_.GetStats().pods, 0u);
}

TEST_F(CacheTest, RemovePodFromAnotherNodeIsAppliedAndReported) {
  auto pod = MakeBasePod("node-a", "test", "100m", "500");
  ASSERT_TRUE(cache_.AddPod(pod).ok());
  api::Pod elsewhere = pod->pod();
  elsewhere.spec.node_name = "node-b";
  EXPECT_FALSE(cache_.RemovePod(elsewhere).ok());
  EXPECT_EQ(cache_.GetPod("test"), nullptr);
  EXPECT_EQ(cache_.GetNodeInfo("node-a"), nullptr);
}

// TestForgetPod.
TEST_F(CacheTest, ForgetPod) {
  auto pod = MakeBasePod("node", "test", "100m", "500", "", {{80}});
  ASSERT_TRUE(cache_.AssumePod(pod).ok());
  EXPECT_TRUE(cache_.IsAssumedPod(pod->pod()));
  auto got = cache_.GetPod("test");
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->pod().metadata.ns, pod->pod().metadata.ns);
  EXPECT_EQ(got->pod().metadata.name, pod->pod().metadata.name);
  ASSERT_TRUE(cache_.ForgetPod(pod->pod()).ok());
  ExpectForgotten(pod->pod());
  EXPECT_FALSE(cache_.ForgetPod(pod->pod()).ok()) << "no longer assumed";
}

TEST_F(CacheTest, ForgetPodOnAnotherNodeOrNotAssumedErrors) {
  auto pod = MakeBasePod("node-a", "test", "100m", "500");
  ASSERT_TRUE(cache_.AssumePod(pod).ok());
  api::Pod elsewhere = pod->pod();
  elsewhere.spec.node_name = "node-b";
  EXPECT_FALSE(cache_.ForgetPod(elsewhere).ok());
  EXPECT_TRUE(cache_.IsAssumedPod(pod->pod()));

  auto added = MakeBasePod("node-a", "added", "100m", "500");
  ASSERT_TRUE(cache_.AddPod(added).ok());
  EXPECT_FALSE(cache_.ForgetPod(added->pod()).ok());
  EXPECT_NE(cache_.GetPod("added"), nullptr);
}

// TestNodeOperators: add, snapshot, update and remove a node with pods.
void NodeOperatorsCase(const std::vector<framework::PodInfoPtr>& pods,
                       size_t num_nodes) {
  constexpr int64_t kMb = 1024 * 1024;
  auto make_node = [&](const std::string& name, bool first_kind) {
    NodeBuilder b(name);
    b.Taint("test-key", "test-value", api::TaintEffect::kPreferNoSchedule);
    if (first_kind) {
      b.Capacity(
           {{"cpu", "1000m"}, {"memory", "100m"}, {"example.com/foo", "1"}})
          .Image("gcr.io/80:latest", 80 * kMb)
          .Image("gcr.io/80:v1", 80 * kMb)
          .Image("gcr.io/300:latest", 300 * kMb)
          .Image("gcr.io/300:v1", 300 * kMb);
    } else {
      b.Capacity({{"cpu", "500m"}, {"memory", "50m"}, {"example.com/foo", "2"}})
          .Image("gcr.io/600:latest", 600 * kMb)
          .Image("gcr.io/80:latest", 80 * kMb)
          .Image("gcr.io/900:latest", 900 * kMb);
    }
    return b.Obj();
  };
  std::vector<api::Node> nodes;
  for (size_t i = 0; i < num_nodes; ++i) {
    nodes.push_back(
        make_node("test-node-" + std::to_string(i + 1), i % 2 == 0));
  }

  util::FakeClock clock;
  Cache cache(clock, kTtl);
  for (const api::Node& n : nodes) {
    cache.AddNode(std::make_shared<const api::Node>(n));
  }
  for (const auto& pod : pods) ASSERT_TRUE(cache.AddPod(pod).ok());
  const api::Node& node = nodes[0];

  // Step 1: the node and its pods are in the cache and the tree.
  auto got = cache.GetNodeInfo(node.metadata.name);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(cache.NodeTreeList().size(), num_nodes);
  EXPECT_EQ(got->allocatable().milli_cpu, 1000);
  EXPECT_EQ(got->pods().size(), pods.size());
  EXPECT_EQ(got->requested().milli_cpu,
            500 * static_cast<int64_t>(pods.size()));
  // Image states: "gcr.io/80:latest" is on every node, the 300 image only on
  // the first kind of node.
  const size_t first_kind = (num_nodes + 1) / 2;
  EXPECT_EQ(
      *got->image_states().Find("gcr.io/80:latest"),
      (framework::ImageStateSummary{80 * kMb, static_cast<int>(num_nodes)}));
  EXPECT_EQ(
      *got->image_states().Find("gcr.io/300:latest"),
      (framework::ImageStateSummary{300 * kMb, static_cast<int>(first_kind)}));

  // Step 2: a snapshot holds every node, equal to the cache's.
  framework::Snapshot snapshot;
  ASSERT_TRUE(cache.UpdateSnapshot(&snapshot).ok());
  ASSERT_EQ(snapshot.size(), num_nodes);
  const framework::NodeInfo* snap = snapshot.Get(node.metadata.name);
  ASSERT_NE(snap, nullptr);
  EXPECT_EQ(snap->generation(), got->generation());
  EXPECT_EQ(snap->requested(), got->requested());
  EXPECT_EQ(snap->image_states(), got->image_states());

  // Step 3: updating the node bumps the generation and keeps the tree.
  api::Node updated = node;
  updated.status.allocatable.Set("memory", *api::Quantity::Parse("1Gi"));
  cache.UpdateNode(node, std::make_shared<const api::Node>(updated));
  auto after = cache.GetNodeInfo(node.metadata.name);
  EXPECT_GT(after->generation(), got->generation());
  EXPECT_EQ(after->allocatable().memory, 1LL << 30);
  EXPECT_EQ(after->requested(), got->requested());
  EXPECT_EQ(after->image_states(), got->image_states());
  EXPECT_EQ(cache.NodeTreeList().size(), num_nodes);

  // Step 4: the node can be removed while it still has pods.
  cache.RemoveNode(updated);
  auto ghost = cache.GetNodeInfo(node.metadata.name);
  ASSERT_NE(ghost, nullptr) << "pods keep a node-less NodeInfo";
  EXPECT_EQ(ghost->node(), nullptr);
  EXPECT_EQ(cache.NodeTreeList().size(), num_nodes - 1);
  EXPECT_EQ(cache.GetImageState("gcr.io/300:latest")->num_nodes,
            static_cast<int>(first_kind - 1));
  for (const auto& pod : pods) {
    EXPECT_NE(cache.GetPod(pod->pod().metadata.uid), nullptr);
  }
  ASSERT_TRUE(cache.UpdateSnapshot(&snapshot).ok());
  EXPECT_EQ(snapshot.Get(node.metadata.name), nullptr);
  EXPECT_EQ(snapshot.size(), num_nodes - 1);

  // Step 5: removing the pods of the removed node still works, and the last
  // one takes the node-less NodeInfo with it.
  for (const auto& pod : pods) {
    ASSERT_TRUE(cache.RemovePod(pod->pod()).ok());
    EXPECT_EQ(cache.GetPod(pod->pod().metadata.uid), nullptr);
  }
  EXPECT_EQ(cache.GetNodeInfo(node.metadata.name), nullptr);
  EXPECT_EQ(cache.GetStats().nodes, num_nodes - 1);
}

TEST(NodeOperatorsTest, NodeWithOnePod) {
  NodeOperatorsCase({PodBuilder("pod1")
                         .Uid("pod1")
                         .Node("test-node-1")
                         .Req({{"cpu", "500m"}, {"memory", "50m"}})
                         .ContainerPort(80, "TCP", "", 80)
                         .Info()},
                    4);
}

TEST(NodeOperatorsTest, NodeWithTwoPods) {
  NodeOperatorsCase({PodBuilder("pod1")
                         .Uid("pod1")
                         .Node("test-node-1")
                         .Req({{"cpu", "500m"}, {"memory", "50m"}})
                         .Info(),
                     PodBuilder("pod2")
                         .Uid("pod2")
                         .Node("test-node-1")
                         .Req({{"cpu", "500m"}, {"memory", "50m"}})
                         .Info()},
                    3);
}

TEST_F(CacheTest, RemovingAnUnknownNodeIsIgnoredAndReaddingWorks) {
  auto node = NodeBuilder("n").Ptr();
  cache_.RemoveNode(*node);
  cache_.AddNode(node);
  cache_.RemoveNode(*node);
  cache_.RemoveNode(*node);
  EXPECT_EQ(cache_.GetStats().nodes, 0u);
  EXPECT_TRUE(cache_.NodeTreeList().empty());
  cache_.AddNode(node);
  EXPECT_EQ(cache_.NodeTreeList(), std::vector<std::string>{"n"});
}

TEST_F(CacheTest, ReAddingANodeDoesNotDoubleCountImagesOrTree) {
  auto node = NodeBuilder("n").Image("img", 10).Ptr();
  cache_.AddNode(node);
  cache_.AddNode(node);
  EXPECT_EQ(cache_.GetImageState("img")->num_nodes, 1);
  EXPECT_EQ(cache_.NodeTreeList().size(), 1u);
  // An update that drops the image releases it.
  cache_.UpdateNode(*node, NodeBuilder("n").Ptr());
  EXPECT_FALSE(cache_.GetImageState("img").has_value());
}

TEST_F(CacheTest, GenerationGrowsOnEveryNodeInfoChange) {
  auto node = NodeBuilder("n").Ptr();
  cache_.AddNode(node);
  int64_t g1 = cache_.GetNodeInfo("n")->generation();
  auto pod = MakeBasePod("n", "p", "100m", "500");
  ASSERT_TRUE(cache_.AssumePod(pod).ok());
  int64_t g2 = cache_.GetNodeInfo("n")->generation();
  ASSERT_TRUE(cache_.AddPod(pod).ok());
  int64_t g3 = cache_.GetNodeInfo("n")->generation();
  cache_.UpdateNode(*node, NodeBuilder("n").Label("a", "b").Ptr());
  int64_t g4 = cache_.GetNodeInfo("n")->generation();
  ASSERT_TRUE(cache_.RemovePod(pod->pod()).ok());
  int64_t g5 = cache_.GetNodeInfo("n")->generation();
  EXPECT_LT(g1, g2);
  EXPECT_LT(g2, g3);
  EXPECT_LT(g3, g4);
  EXPECT_LT(g4, g5);
}

TEST_F(CacheTest, StatsAndDump) {
  cache_.AddNode(NodeBuilder("n1").Ptr());
  ASSERT_TRUE(cache_.AddPod(MakeBasePod("n1", "bound", "100m", "500")).ok());
  ASSERT_TRUE(
      cache_.AssumePod(MakeBasePod("n2", "assumed", "100m", "500")).ok());
  Cache::Stats stats = cache_.GetStats();
  EXPECT_EQ(stats.nodes, 2u);  // n2 only holds a pod so far
  EXPECT_EQ(stats.pods, 2u);
  EXPECT_EQ(stats.assumed_pods, 1u);
  std::string dump = cache_.Dump();
  EXPECT_NE(dump.find("Node name: n1\n"), std::string::npos) << dump;
  EXPECT_NE(dump.find("Node name: n2 (removed)"), std::string::npos) << dump;
  EXPECT_NE(dump.find("name: assumed, namespace: node_info_cache_test, "
                      "uid: assumed (assumed)"),
            std::string::npos)
      << dump;
  EXPECT_NE(dump.find("Dump of assumed pods (number: 1)"), std::string::npos);
}

// Events and cycles race in production: the informer thread mutates the
// cache while the scheduling loop snapshots it. Meant for ThreadSanitizer;
// the assertions check the snapshots stay self-consistent.
TEST(CacheConcurrencyTest, EventsRaceWithSnapshots) {
  util::FakeClock clock;
  Cache cache(clock, kTtl);
  constexpr int kNodes = 20;
  for (int i = 0; i < kNodes; ++i) {
    cache.AddNode(NodeBuilder("n" + std::to_string(i)).Ptr());
  }
  std::atomic<bool> done{false};
  std::thread informer([&] {
    for (int i = 0; i < 2000; ++i) {
      auto pod = MakeBasePod("n" + std::to_string(i % kNodes),
                             "p" + std::to_string(i), "10m", "1");
      EXPECT_TRUE(cache.AssumePod(pod).ok());
      EXPECT_TRUE(cache.FinishBinding(pod->pod()).ok());
      EXPECT_TRUE(cache.AddPod(pod).ok());
      if (i % 3 == 0) {
        EXPECT_TRUE(cache.RemovePod(pod->pod()).ok());
      }
      if (i % 100 == 0) clock.Advance(kTtl);
      (void)cache.CleanupExpiredAssumedPods();
    }
    done = true;
  });
  framework::Snapshot snapshot;
  int cycles = 0;
  while (!done || cycles == 0) {
    ASSERT_TRUE(cache.UpdateSnapshot(&snapshot).ok());
    ASSERT_EQ(snapshot.size(), static_cast<size_t>(kNodes));
    for (const auto& n : snapshot.nodes()) {
      EXPECT_EQ(n->requested().milli_cpu,
                10 * static_cast<int64_t>(n->pods().size()));
    }
    ++cycles;
  }
  informer.join();
  ASSERT_TRUE(cache.UpdateSnapshot(&snapshot).ok());
  size_t pods = 0;
  for (const auto& n : snapshot.nodes()) pods += n->pods().size();
  EXPECT_EQ(pods, 2000u - 667u);
  EXPECT_EQ(cache.GetStats().pods, pods);
}

}  // namespace
}  // namespace ksched::cache
