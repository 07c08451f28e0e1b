// Cache::UpdateSnapshot (kube's TestSchedulerCache_UpdateSnapshot and
// TestSchedulerCache_updateNodeInfoSnapshotList) and the Snapshot methods
// it relies on.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "pkg/cache/cache.h"
#include "pkg/cache/test_util.h"
#include "pkg/framework/snapshot.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/util/fake_clock.h"

namespace ksched::cache {
namespace {

using framework::NodeInfoPtr;
using framework::PodInfoPtr;
using framework::Snapshot;
using ksched::testing::NodeBuilder;
using ksched::testing::PodBuilder;

std::vector<std::string> Names(const std::vector<NodeInfoPtr>& infos) {
  std::vector<std::string> names;
  for (const auto& n : infos) names.push_back(n->name());
  return names;
}

// compareCacheWithNodeInfoSnapshot: the snapshot holds exactly the cache's
// nodes, equal to the cache's NodeInfos, listed in tree order, with the
// affinity lists and PVC set derived from them.
void ExpectSnapshotMatchesCache(const Cache& cache, const Snapshot& snapshot) {
  std::vector<std::string> tree = cache.NodeTreeList();
  EXPECT_EQ(snapshot.num_node_infos(), tree.size());
  for (const std::string& name : cache.NodeNamesByRecency()) {
    SCOPED_TRACE(name);
    NodeInfoPtr want = cache.GetNodeInfo(name);
    const framework::NodeInfo* got = snapshot.Get(name);
    if (want->node() == nullptr) {
      EXPECT_EQ(got, nullptr);
      continue;
    }
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->node(), want->node());
    EXPECT_EQ(got->generation(), want->generation());
    EXPECT_EQ(test::PodNames(*got), test::PodNames(*want));
    EXPECT_EQ(got->requested(), want->requested());
    EXPECT_EQ(got->allocatable(), want->allocatable());
    EXPECT_EQ(got->pvc_ref_counts(), want->pvc_ref_counts());
  }
  ASSERT_EQ(Names(snapshot.nodes()), tree);
  std::vector<NodeInfoPtr> affinity, anti;
  for (const NodeInfoPtr& n : snapshot.nodes()) {
    EXPECT_EQ(snapshot.GetPtr(n->name()), n);
    if (!n->pods_with_affinity().empty()) affinity.push_back(n);
    if (!n->pods_with_required_anti_affinity().empty()) anti.push_back(n);
    for (const auto& [key, count] : n->pvc_ref_counts()) {
      EXPECT_TRUE(snapshot.IsPvcUsedByPods(key)) << key;
    }
  }
  // The affinity lists are kept in place, so their order may differ from
  // nodes(): the same NodeInfos, each once.
  auto sorted = [](std::vector<NodeInfoPtr> v) {
    std::sort(v.begin(), v.end(),
              [](const NodeInfoPtr& a, const NodeInfoPtr& b) {
                return a->name() < b->name();
              });
    return v;
  };
  EXPECT_EQ(sorted(snapshot.nodes_with_affinity_pods()), sorted(affinity));
  EXPECT_EQ(sorted(snapshot.nodes_with_required_anti_affinity_pods()),
            sorted(anti));
}

// ---- TestSchedulerCache_UpdateSnapshot ----

enum class OpKind {
  kAddNode,
  kRemoveNode,
  kUpdateNode,
  kAddPod,
  kAssumePod,
  kForgetPod,
  kAddPodWithAffinity,
  kAddPodWithPvc,
  kRemovePod,
  kRemovePodWithAffinity,
  kRemovePodWithPvc,
  kUpdatePod,
  kUpdateSnapshot,
};

struct Op {
  OpKind kind;
  int i = 0;
};

struct UpdateSnapshotCase {
  std::string name;
  std::vector<Op> ops;
  std::vector<int> want_recency;  // node indices, most recent first
  size_t want_with_affinity = 0;
  std::set<std::string> want_pvcs;
};

// ctest lists each case by its name, not by its bytes.
void PrintTo(const UpdateSnapshotCase& c, std::ostream* os) { *os << c.name; }

class UpdateSnapshotTest : public ::testing::TestWithParam<UpdateSnapshotCase> {
 protected:
  UpdateSnapshotTest() {
    for (int i = 0; i < 10; ++i) {
      std::string name = "test-node" + std::to_string(i);
      nodes_.push_back(NodeBuilder(name)
                           .Allocatable({{"cpu", "1000m"}, {"memory", "100m"}})
                           .Ptr());
      updated_nodes_.push_back(
          NodeBuilder(name)
              .Allocatable({{"cpu", "2000m"}, {"memory", "500m"}})
              .Ptr());
    }
    for (int i = 0; i < 20; ++i) {
      PodBuilder b("test-pod" + std::to_string(i));
      b.Namespace("test-ns")
          .Uid("test-puid" + std::to_string(i))
          .Node("test-node" + std::to_string(i % 10));
      pods_.push_back(b.Info());
      updated_pods_.push_back(b.Priority(1000).Info());
    }
    for (int i = 0; i < 2; ++i) {
      affinity_pods_.push_back(PodBuilder("p-affinity-" + std::to_string(i))
                                   .Namespace("test-ns")
                                   .Uid("puid-affinity-" + std::to_string(i))
                                   .PodAffinity("zone", "foo", "bar")
                                   .Node("test-node" + std::to_string(i))
                                   .Info());
    }
    for (int i = 0; i < 8; ++i) {
      pvc_pods_.push_back(
          PodBuilder("p-pvc-" + std::to_string(i))
              .Namespace("test-ns")
              .Uid("puid-pvc-" + std::to_string(i))
              .PvcVolume("v", "test-pvc" + std::to_string(i % 4))
              .Node("test-node" + std::to_string(i % 2))
              .Info());
    }
  }

  void Apply(const Op& op) {
    switch (op.kind) {
      case OpKind::kAddNode:
        cache_.AddNode(nodes_[op.i]);
        break;
      case OpKind::kRemoveNode:
        cache_.RemoveNode(*nodes_[op.i]);
        break;
      case OpKind::kUpdateNode:
        cache_.UpdateNode(*nodes_[op.i], updated_nodes_[op.i]);
        break;
      case OpKind::kAddPod:
        EXPECT_TRUE(cache_.AddPod(pods_[op.i]).ok());
        break;
      case OpKind::kAssumePod:
        EXPECT_TRUE(cache_.AssumePod(pods_[op.i]).ok());
        break;
      case OpKind::kForgetPod:
        EXPECT_TRUE(cache_.ForgetPod(pods_[op.i]->pod()).ok());
        break;
      case OpKind::kAddPodWithAffinity:
        EXPECT_TRUE(cache_.AddPod(affinity_pods_[op.i]).ok());
        break;
      case OpKind::kAddPodWithPvc:
        EXPECT_TRUE(cache_.AddPod(pvc_pods_[op.i]).ok());
        break;
      case OpKind::kRemovePod:
        EXPECT_TRUE(cache_.RemovePod(pods_[op.i]->pod()).ok());
        break;
      case OpKind::kRemovePodWithAffinity:
        EXPECT_TRUE(cache_.RemovePod(affinity_pods_[op.i]->pod()).ok());
        break;
      case OpKind::kRemovePodWithPvc:
        EXPECT_TRUE(cache_.RemovePod(pvc_pods_[op.i]->pod()).ok());
        break;
      case OpKind::kUpdatePod:
        EXPECT_TRUE(
            cache_.UpdatePod(pods_[op.i]->pod(), updated_pods_[op.i]).ok());
        break;
      case OpKind::kUpdateSnapshot:
        EXPECT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
        ExpectSnapshotMatchesCache(cache_, snapshot_);
        break;
    }
  }

  util::FakeClock clock_;
  Cache cache_{clock_, std::chrono::seconds(1)};
  Snapshot snapshot_;
  std::vector<std::shared_ptr<const api::Node>> nodes_, updated_nodes_;
  std::vector<PodInfoPtr> pods_, updated_pods_, affinity_pods_, pvc_pods_;
};

TEST_P(UpdateSnapshotTest, MatchesCache) {
  const UpdateSnapshotCase& c = GetParam();
  for (const Op& op : c.ops) Apply(op);

  std::vector<std::string> want_recency;
  for (int i : c.want_recency) {
    want_recency.push_back("test-node" + std::to_string(i));
  }
  EXPECT_EQ(cache_.NodeNamesByRecency(), want_recency);
  // As of the last UpdateSnapshot among the operations.
  EXPECT_EQ(snapshot_.nodes_with_affinity_pods().size(), c.want_with_affinity);
  for (int i = 0; i < 4; ++i) {
    std::string key = "test-ns/test-pvc" + std::to_string(i);
    EXPECT_EQ(snapshot_.IsPvcUsedByPods(key), c.want_pvcs.contains(key)) << key;
  }

  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  ExpectSnapshotMatchesCache(cache_, snapshot_);
}

Op AddNode(int i) { return {OpKind::kAddNode, i}; }
Op RemoveNode(int i) { return {OpKind::kRemoveNode, i}; }
Op UpdateNode(int i) { return {OpKind::kUpdateNode, i}; }
Op AddPod(int i) { return {OpKind::kAddPod, i}; }
Op AssumePod(int i) { return {OpKind::kAssumePod, i}; }
Op ForgetPod(int i) { return {OpKind::kForgetPod, i}; }
Op AddPodWithAffinity(int i) { return {OpKind::kAddPodWithAffinity, i}; }
Op AddPodWithPvc(int i) { return {OpKind::kAddPodWithPvc, i}; }
Op RemovePod(int i) { return {OpKind::kRemovePod, i}; }
Op RemovePodWithAffinity(int i) { return {OpKind::kRemovePodWithAffinity, i}; }
Op RemovePodWithPvc(int i) { return {OpKind::kRemovePodWithPvc, i}; }
Op UpdatePod(int i) { return {OpKind::kUpdatePod, i}; }
Op Snap() { return {OpKind::kUpdateSnapshot, 0}; }

const std::string kPvc0 = "test-ns/test-pvc0";
const std::string kPvc1 = "test-ns/test-pvc1";
const std::string kPvc2 = "test-ns/test-pvc2";
const std::string kPvc3 = "test-ns/test-pvc3";

INSTANTIATE_TEST_SUITE_P(
    Kube, UpdateSnapshotTest,
    ::testing::Values(
        UpdateSnapshotCase{"EmptyCache", {}, {}},
        UpdateSnapshotCase{"SingleNode", {AddNode(1)}, {1}},
        UpdateSnapshotCase{"AddNodeRemoveItAddItAgain",
                           {AddNode(1), Snap(), RemoveNode(1), AddNode(1)},
                           {1}},
        UpdateSnapshotCase{"AddNodeAndRemoveItInTheSameCycle",
                           {AddNode(1), Snap(), AddNode(2), RemoveNode(1)},
                           {2}},
        UpdateSnapshotCase{"AddNodesSnapshotInTheMiddle",
                           {AddNode(0), Snap(), AddNode(1), Snap(), AddNode(2),
                            Snap(), AddNode(3)},
                           {3, 2, 1, 0}},
        UpdateSnapshotCase{"AddNodesSnapshotInTheEnd",
                           {AddNode(0), AddNode(2), AddNode(5), AddNode(6)},
                           {6, 5, 2, 0}},
        UpdateSnapshotCase{
            "UpdateSomeNodes",
            {AddNode(0), AddNode(1), AddNode(5), Snap(), UpdateNode(1)},
            {1, 5, 0}},
        UpdateSnapshotCase{
            "AddNodesAndRemoveAll",
            {AddNode(0), AddNode(2), AddNode(5), AddNode(6), Snap(),
             RemoveNode(0), RemoveNode(2), RemoveNode(5), RemoveNode(6)},
            {}},
        UpdateSnapshotCase{"AddNodesAndRemoveSome",
                           {AddNode(0), AddNode(2), AddNode(5), AddNode(6),
                            Snap(), RemoveNode(0), RemoveNode(6)},
                           {5, 2}},
        UpdateSnapshotCase{
            "AddNodesRemoveAllAddMore",
            {AddNode(2), AddNode(5), AddNode(6), Snap(), RemoveNode(2),
             RemoveNode(5), RemoveNode(6), Snap(), AddNode(7), AddNode(9)},
            {9, 7}},
        UpdateSnapshotCase{
            "UpdateNodesInParticularOrder",
            {AddNode(8), UpdateNode(2), UpdateNode(8), Snap(), AddNode(1)},
            {1, 8, 2}},
        UpdateSnapshotCase{
            "AddSomeNodesAndSomePods",
            {AddNode(0), AddNode(2), AddNode(8), Snap(), AddPod(8), AddPod(2)},
            {2, 8, 0}},
        UpdateSnapshotCase{
            "UpdatingAPodMovesItsNodeToTheHead",
            {AddNode(0), AddPod(0), AddNode(2), AddNode(4), UpdatePod(0)},
            {0, 4, 2}},
        UpdateSnapshotCase{"AddPodBeforeItsNode",
                           {AddNode(0), AddPod(1), UpdatePod(1), AddNode(1)},
                           {1, 0}},
        UpdateSnapshotCase{"RemoveNodeBeforeItsPods",
                           {AddNode(0), AddNode(1), AddPod(1), AddPod(11),
                            Snap(), RemoveNode(1), Snap(), UpdatePod(1),
                            UpdatePod(11), RemovePod(1), RemovePod(11)},
                           {0}},
        UpdateSnapshotCase{
            "AddPodsWithAffinity",
            {AddNode(0), AddPodWithAffinity(0), Snap(), AddNode(1)},
            {1, 0},
            1},
        UpdateSnapshotCase{"AddPodsWithPvc",
                           {AddNode(0), AddPodWithPvc(0), Snap(), AddNode(1)},
                           {1, 0},
                           0,
                           {kPvc0}},
        UpdateSnapshotCase{"AddMultipleNodesWithPodsWithAffinity",
                           {AddNode(0), AddPodWithAffinity(0), Snap(),
                            AddNode(1), AddPodWithAffinity(1), Snap()},
                           {1, 0},
                           2},
        UpdateSnapshotCase{"AddMultipleNodesWithPodsWithPvc",
                           {AddNode(0), AddPodWithPvc(0), Snap(), AddNode(1),
                            AddPodWithPvc(1), Snap()},
                           {1, 0},
                           0,
                           {kPvc0, kPvc1}},
        UpdateSnapshotCase{"AddThenRemovePodsWithAffinity",
                           {AddNode(0), AddNode(1), AddPodWithAffinity(0),
                            Snap(), RemovePodWithAffinity(0), Snap()},
                           {0, 1},
                           0},
        UpdateSnapshotCase{"AddThenRemovePodWithPvc",
                           {AddNode(0), AddPodWithPvc(0), Snap(),
                            RemovePodWithPvc(0), AddPodWithPvc(2), Snap()},
                           {0},
                           0,
                           {kPvc2}},
        UpdateSnapshotCase{"AddThenRemovePodWithPvcAndAddItAgain",
                           {AddNode(0), AddPodWithPvc(0), Snap(),
                            RemovePodWithPvc(0), AddPodWithPvc(0), Snap()},
                           {0},
                           0,
                           {kPvc0}},
        UpdateSnapshotCase{
            "SwapPvcsKeepingTheCount",
            {AddNode(0), AddNode(1), AddPodWithPvc(0), AddPodWithPvc(1), Snap(),
             RemovePodWithPvc(0), RemovePodWithPvc(1), AddPodWithPvc(2),
             AddPodWithPvc(3), Snap()},
            {1, 0},
            0,
            {kPvc2, kPvc3}},
        UpdateSnapshotCase{
            "AddAndRemoveMultiplePodsWithPvc",
            {AddNode(0), AddNode(1), AddPodWithPvc(0), AddPodWithPvc(1),
             AddPodWithPvc(2), Snap(), RemovePodWithPvc(0), RemovePodWithPvc(1),
             Snap(), AddPodWithPvc(0), Snap(), AddPodWithPvc(3),
             AddPodWithPvc(4), AddPodWithPvc(5), Snap(), RemovePodWithPvc(0),
             RemovePodWithPvc(3), RemovePodWithPvc(4), Snap()},
            {0, 1},
            0,
            {kPvc1, kPvc2}},
        UpdateSnapshotCase{
            "AssumeAndForget",
            {AddNode(0), AddNode(2), AddNode(4), AddNode(8), Snap(),
             AssumePod(8), AssumePod(0), ForgetPod(0), Snap()},
            {0, 8, 4, 2}}),
    [](const ::testing::TestParamInfo<UpdateSnapshotCase>& info) {
      return info.param.name;
    });

// ---- Zone order (TestSchedulerCache_updateNodeInfoSnapshotList) ----

struct ZoneOrderCase {
  std::string name;
  // Node indices to add; -1 takes a snapshot.
  std::vector<int> ops;
  std::vector<std::string> want;
};

// ctest lists each case by its name, not by its bytes.
void PrintTo(const ZoneOrderCase& c, std::ostream* os) { *os << c.name; }

class ZoneOrderTest : public ::testing::TestWithParam<ZoneOrderCase> {};

TEST_P(ZoneOrderTest, SnapshotListsNodesRoundRobinOverZones) {
  // zone 0 holds node-0..1, zone 1 holds node-2..7.
  std::vector<std::shared_ptr<const api::Node>> nodes;
  for (int i = 0; i < 8; ++i) {
    int zone = i < 2 ? 0 : 1;
    nodes.push_back(NodeBuilder("node-" + std::to_string(i))
                        .Label("topology.kubernetes.io/region",
                               "region-" + std::to_string(zone))
                        .Label("topology.kubernetes.io/zone",
                               "zone-" + std::to_string(zone))
                        .Ptr());
  }
  util::FakeClock clock;
  Cache cache(clock, std::chrono::seconds(1));
  Snapshot snapshot;
  for (int op : GetParam().ops) {
    if (op < 0) {
      ASSERT_TRUE(cache.UpdateSnapshot(&snapshot).ok());
      ExpectSnapshotMatchesCache(cache, snapshot);
    } else {
      cache.AddNode(nodes[op]);
    }
  }
  ASSERT_TRUE(cache.UpdateSnapshot(&snapshot).ok());
  ExpectSnapshotMatchesCache(cache, snapshot);
  EXPECT_EQ(Names(snapshot.nodes()), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Kube, ZoneOrderTest,
    ::testing::Values(ZoneOrderCase{"EmptyCache", {}, {}},
                      ZoneOrderCase{"SingleNode", {0}, {"node-0"}},
                      ZoneOrderCase{
                          "TwoNodes", {0, -1, 1}, {"node-0", "node-1"}},
                      ZoneOrderCase{"Bug91601TwoZonesFourNodes",
                                    {2, 3, -1, 4, 0},
                                    {"node-2", "node-0", "node-3", "node-4"}},
                      ZoneOrderCase{"Bug91601SixNodesOneInAnotherZone",
                                    {2, 3, 4, 5, -1, 6, 0},
                                    {"node-2", "node-0", "node-3", "node-4",
                                     "node-5", "node-6"}},
                      ZoneOrderCase{"Bug91601SevenNodesTwoInAnotherZone",
                                    {2, -1, 3, 4, -1, 5, 6, 0, 1},
                                    {"node-2", "node-0", "node-3", "node-1",
                                     "node-4", "node-5", "node-6"}},
                      ZoneOrderCase{"Bug91601DifferentZoneOrder",
                                    {2, 1, -1, 3, 4, -1, 5, 6, 0},
                                    {"node-2", "node-1", "node-3", "node-0",
                                     "node-4", "node-5", "node-6"}}),
    [](const ::testing::TestParamInfo<ZoneOrderCase>& info) {
      return info.param.name;
    });

// ---- Incremental behaviour beyond kube's tables ----

class SnapshotUpdateTest : public ::testing::Test {
 protected:
  void AddNodes(int n) {
    for (int i = 0; i < n; ++i) cache_.AddNode(NodeBuilder(Name(i)).Ptr());
  }
  static std::string Name(int i) { return "n" + std::to_string(i); }

  util::FakeClock clock_;
  Cache cache_{clock_, std::chrono::seconds(1)};
  Snapshot snapshot_;
};

TEST_F(SnapshotUpdateTest, OnlyChangedNodeInfosAreCopied) {
  AddNodes(3);
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  NodeInfoPtr n0 = snapshot_.GetPtr("n0");
  NodeInfoPtr n1 = snapshot_.GetPtr("n1");
  NodeInfoPtr n2 = snapshot_.GetPtr("n2");
  const int64_t before = snapshot_.generation();

  ASSERT_TRUE(cache_.AddPod(test::MakeBasePod("n1", "p", "100m", "1")).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  EXPECT_GT(snapshot_.generation(), before);
  EXPECT_EQ(snapshot_.GetPtr("n0"), n0);
  EXPECT_EQ(snapshot_.GetPtr("n2"), n2);
  NodeInfoPtr n1_new = snapshot_.GetPtr("n1");
  EXPECT_NE(n1_new, n1);
  EXPECT_EQ(n1_new->pods().size(), 1u);
  // The list holds the new copy in the same position.
  EXPECT_EQ(Names(snapshot_.nodes()), cache_.NodeTreeList());
  EXPECT_EQ(snapshot_.nodes()[1], n1_new);

  // Nothing changed: nothing is copied, the generation stays.
  const int64_t gen = snapshot_.generation();
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  EXPECT_EQ(snapshot_.GetPtr("n1"), n1_new);
  EXPECT_EQ(snapshot_.generation(), gen);
}

// Memoised pod counts (pod_count_memo.h): the cache gives its snapshots one
// id space, an unchanged node keeps its answers into the next cycle, and a
// changed node arrives as a fresh copy without them.
TEST_F(SnapshotUpdateTest, MemoisedCountsSurviveOnlyOnUnchangedNodes) {
  AddNodes(2);
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  framework::PodCountKeys* keys = snapshot_.pod_count_keys();
  ASSERT_NE(keys, nullptr);
  const uint32_t key = keys->Intern("question");
  snapshot_.GetPtr("n0")->pod_counts().Store(key, 4);
  snapshot_.GetPtr("n1")->pod_counts().Store(key, 6);

  ASSERT_TRUE(cache_.AddPod(test::MakeBasePod("n1", "p", "100m", "1")).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  EXPECT_EQ(snapshot_.pod_count_keys(), keys);
  EXPECT_EQ(snapshot_.GetPtr("n0")->pod_counts().Find(key), 4);
  EXPECT_EQ(snapshot_.GetPtr("n1")->pod_counts().Find(key), std::nullopt);

  // A snapshot assembled by hand has no id space: plugins count afresh.
  framework::Snapshot by_hand(snapshot_.nodes());
  EXPECT_EQ(by_hand.pod_count_keys(), nullptr);
}

// A large snapshot lays its NodeInfos out in list order (an empty one is
// filled in one block, Cache::FillSnapshotInBlock; later, Snapshot::Compact):
// the copies stand for the nodes everywhere, equal to what the cache has,
// and a changed node later arrives as a fresh copy as before.
TEST_F(SnapshotUpdateTest, LargeSnapshotsAreLaidOutInListOrder) {
  constexpr int kNodes = 3000;
  AddNodes(kNodes);
  ASSERT_TRUE(cache_.AddPod(test::MakeBasePod("n7", "p", "100m", "1")).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  ExpectSnapshotMatchesCache(cache_, snapshot_);
  const std::vector<NodeInfoPtr>& nodes = snapshot_.nodes();
  ASSERT_EQ(nodes.size(), static_cast<size_t>(kNodes));
  ASSERT_EQ(snapshot_.generations().size(), nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    SCOPED_TRACE(nodes[i]->name());
    if (i > 0) {
      EXPECT_EQ(nodes[i].get(), nodes[i - 1].get() + 1);
    }
    EXPECT_EQ(snapshot_.GetPtr(nodes[i]->name()), nodes[i]);
    EXPECT_EQ(snapshot_.generations()[i], nodes[i]->generation());
  }
  EXPECT_TRUE(snapshot_.generations_unique());
  EXPECT_FALSE(snapshot_.ShouldCompact());

  // One node changes: it alone is replaced, out of the block.
  NodeInfoPtr n8 = snapshot_.GetPtr("n8");
  ASSERT_TRUE(cache_.AddPod(test::MakeBasePod("n9", "q", "100m", "1")).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  ExpectSnapshotMatchesCache(cache_, snapshot_);
  EXPECT_EQ(snapshot_.GetPtr("n8"), n8);
  const auto n9 = std::find_if(nodes.begin(), nodes.end(),
                               [](const auto& n) { return n->name() == "n9"; });
  ASSERT_NE(n9, nodes.end());
  EXPECT_EQ((*n9)->pods().size(), 1u);
  EXPECT_EQ(snapshot_.generations()[n9 - nodes.begin()], (*n9)->generation());
}

// A quarter of a large snapshot replaced: Compact copies the replaced
// NodeInfos back into their places in the block when nothing but the
// snapshot points into it, and into a new block when a cycle or a binding
// still holds a NodeInfo of the old one (which must not change under it).
TEST_F(SnapshotUpdateTest, CompactionReusesTheBlockOnlyWhenNoOneElseHoldsIt) {
  constexpr int kNodes = 3000;
  AddNodes(kNodes);
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  const framework::NodeInfo* const block = snapshot_.nodes().front().get();
  auto replace_a_quarter = [this](const std::string& prefix) {
    for (int i = 0; i < kNodes / 4; ++i) {
      ASSERT_TRUE(cache_
                      .AddPod(test::MakeBasePod("n" + std::to_string(i * 4),
                                                prefix + std::to_string(i),
                                                "100m", "1"))
                      .ok());
    }
    ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  };
  auto expect_in_one_block = [this](const framework::NodeInfo* first) {
    const std::vector<NodeInfoPtr>& nodes = snapshot_.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
      ASSERT_EQ(nodes[i].get(), first + i) << nodes[i]->name();
      ASSERT_EQ(snapshot_.GetPtr(nodes[i]->name()), nodes[i]);
    }
  };

  replace_a_quarter("a");
  ExpectSnapshotMatchesCache(cache_, snapshot_);
  expect_in_one_block(block);  // in place
  EXPECT_EQ(snapshot_.Get("n4")->pods().size(), 1u);

  NodeInfoPtr held = snapshot_.GetPtr("n8");  // a binding cycle's
  ASSERT_EQ(held.get(), block + 8);
  replace_a_quarter("b");
  ExpectSnapshotMatchesCache(cache_, snapshot_);
  const framework::NodeInfo* const second = snapshot_.nodes().front().get();
  EXPECT_NE(second, block);
  expect_in_one_block(second);
  EXPECT_EQ(snapshot_.Get("n8")->pods().size(), 2u);
  EXPECT_EQ(held->pods().size(), 1u);  // as it was when taken
  held.reset();

  // The new block is the snapshot's alone again.
  replace_a_quarter("c");
  ExpectSnapshotMatchesCache(cache_, snapshot_);
  expect_in_one_block(second);
  EXPECT_EQ(snapshot_.Get("n8")->pods().size(), 3u);
}

// Below a few thousand nodes the NodeInfos are not moved.
TEST_F(SnapshotUpdateTest, SmallSnapshotsKeepTheirCopies) {
  AddNodes(10);
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  EXPECT_FALSE(snapshot_.ShouldCompact());
  NodeInfoPtr n0 = snapshot_.GetPtr("n0");
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  EXPECT_EQ(snapshot_.GetPtr("n0"), n0);
  ExpectSnapshotMatchesCache(cache_, snapshot_);
}

TEST_F(SnapshotUpdateTest, NodeInfosHeldFromEarlierCyclesNeverChange) {
  AddNodes(1);
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  NodeInfoPtr held = snapshot_.GetPtr("n0");
  PodInfoPtr pod = test::MakeBasePod("n0", "p", "100m", "1");
  ASSERT_TRUE(cache_.AssumePod(pod).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  // A binding cycle still reading `held` sees the state it started with.
  EXPECT_TRUE(held->pods().empty());
  EXPECT_EQ(held->requested().milli_cpu, 0);
  // The copies share the PodInfo, never duplicate it.
  EXPECT_EQ(snapshot_.Get("n0")->pods()[0], pod);
  EXPECT_EQ(cache_.GetPod("p"), pod);
}

TEST_F(SnapshotUpdateTest, InconsistentSnapshotIsRebuiltAndReported) {
  AddNodes(3);
  // A generation from elsewhere makes the walk stop before any node.
  snapshot_.set_generation(1000);
  util::Result<void> first = cache_.UpdateSnapshot(&snapshot_);
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.error().message().find("not consistent"), std::string::npos);
  ExpectSnapshotMatchesCache(cache_, snapshot_);
  EXPECT_EQ(snapshot_.size(), 3u);
  // Recovered: the next update is incremental and clean.
  ASSERT_TRUE(cache_.AddPod(test::MakeBasePod("n2", "p", "100m", "1")).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  ExpectSnapshotMatchesCache(cache_, snapshot_);
  EXPECT_EQ(snapshot_.Get("n2")->pods().size(), 1u);
}

TEST_F(SnapshotUpdateTest, PodsOfUnknownNodesStayOutOfSnapshots) {
  AddNodes(1);
  ASSERT_TRUE(cache_.AddPod(test::MakeBasePod("ghost", "p", "100m", "1")).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  EXPECT_EQ(snapshot_.size(), 1u);
  EXPECT_EQ(snapshot_.Get("ghost"), nullptr);
  // The node arrives: it enters with the pod already accounted.
  cache_.AddNode(NodeBuilder("ghost").Ptr());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  ASSERT_NE(snapshot_.Get("ghost"), nullptr);
  EXPECT_EQ(snapshot_.Get("ghost")->requested().milli_cpu, 100);
  ExpectSnapshotMatchesCache(cache_, snapshot_);
}

TEST_F(SnapshotUpdateTest, RequiredAntiAffinityListFollowsPods) {
  AddNodes(3);
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  PodInfoPtr anti = PodBuilder("anti")
                        .Node("n1")
                        .PodAffinity("zone", "app", "db", /*anti=*/true)
                        .Info();
  ASSERT_TRUE(cache_.AddPod(anti).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  ASSERT_EQ(Names(snapshot_.nodes_with_required_anti_affinity_pods()),
            std::vector<std::string>{"n1"});
  EXPECT_EQ(Names(snapshot_.nodes_with_affinity_pods()),
            std::vector<std::string>{"n1"});
  ExpectSnapshotMatchesCache(cache_, snapshot_);

  // A second such pod on the same node: no membership change, the lists
  // take the new copy in place.
  ASSERT_TRUE(cache_
                  .AddPod(PodBuilder("anti2")
                              .Node("n1")
                              .PodAffinity("zone", "app", "db", true)
                              .Info())
                  .ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  EXPECT_EQ(snapshot_.nodes_with_required_anti_affinity_pods()[0],
            snapshot_.GetPtr("n1"));
  EXPECT_EQ(snapshot_.nodes_with_affinity_pods()[0], snapshot_.GetPtr("n1"));
  EXPECT_EQ(snapshot_.Get("n1")->pods_with_required_anti_affinity().size(), 2u);

  ASSERT_TRUE(cache_.RemovePod(anti->pod()).ok());
  ASSERT_TRUE(cache_.RemovePod(PodBuilder("anti2").Node("n1").Obj()).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  EXPECT_TRUE(snapshot_.nodes_with_required_anti_affinity_pods().empty());
  EXPECT_TRUE(snapshot_.nodes_with_affinity_pods().empty());
}

TEST_F(SnapshotUpdateTest, ImageCountsAreTakenWhenANodeInfoIsCopied) {
  cache_.AddNode(NodeBuilder("a").Image("img", 10).Ptr());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  EXPECT_EQ(snapshot_.Get("a")->image_states().Find("img")->num_nodes, 1);

  cache_.AddNode(NodeBuilder("b").Image("img", 10).Ptr());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  EXPECT_EQ(snapshot_.Get("b")->image_states().Find("img")->num_nodes, 2);
  // As in kube, a NodeInfo that did not change keeps the count it was
  // copied with until its next change.
  EXPECT_EQ(snapshot_.Get("a")->image_states().Find("img")->num_nodes, 1);
  ASSERT_TRUE(cache_.AddPod(test::MakeBasePod("a", "p", "1m", "1")).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  EXPECT_EQ(snapshot_.Get("a")->image_states().Find("img")->num_nodes, 2);
  // A fresh snapshot reads current counts everywhere.
  Snapshot fresh;
  ASSERT_TRUE(cache_.UpdateSnapshot(&fresh).ok());
  EXPECT_EQ(fresh.Get("b")->image_states().Find("img")->num_nodes, 2);
}

TEST_F(SnapshotUpdateTest, NodeRemovedAndReaddedBetweenCycles) {
  AddNodes(2);
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  NodeInfoPtr old = snapshot_.GetPtr("n0");
  cache_.RemoveNode(*NodeBuilder("n0").Ptr());
  cache_.AddNode(NodeBuilder("n0").Label("fresh", "yes").Ptr());
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  ExpectSnapshotMatchesCache(cache_, snapshot_);
  EXPECT_NE(snapshot_.GetPtr("n0"), old);
  EXPECT_TRUE(snapshot_.Get("n0")->node()->metadata.labels.Contains("fresh"));
}

TEST_F(SnapshotUpdateTest, ZoneChangeRelistsNodes) {
  auto in_zone = [](const std::string& name, const std::string& zone) {
    return NodeBuilder(name).Label("topology.kubernetes.io/zone", zone).Ptr();
  };
  cache_.AddNode(in_zone("a1", "a"));
  cache_.AddNode(in_zone("a2", "a"));
  cache_.AddNode(in_zone("b1", "b"));
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  EXPECT_EQ(Names(snapshot_.nodes()),
            (std::vector<std::string>{"a1", "b1", "a2"}));
  // a1 moves to zone b: same names, new order.
  cache_.UpdateNode(*in_zone("a1", "a"), in_zone("a1", "b"));
  ASSERT_TRUE(cache_.UpdateSnapshot(&snapshot_).ok());
  EXPECT_EQ(Names(snapshot_.nodes()),
            (std::vector<std::string>{"a2", "b1", "a1"}));
  ExpectSnapshotMatchesCache(cache_, snapshot_);
}

// ---- Snapshot's own maintenance ----

TEST(SnapshotTest, ResetIndexesNodesAffinityAndPvcs) {
  auto a = ksched::testing::MakeNodeInfo(
      NodeBuilder("a").Obj(),
      {PodBuilder("p").Node("a").PvcVolume("v", "data").Obj()});
  auto b = ksched::testing::MakeNodeInfo(
      NodeBuilder("b").Obj(),
      {PodBuilder("q").Node("b").PodAffinity("zone", "x", "y").Obj()});
  Snapshot snapshot({a, b});
  EXPECT_EQ(snapshot.size(), 2u);
  EXPECT_EQ(snapshot.num_node_infos(), 2u);
  EXPECT_EQ(snapshot.Get("a"), a.get());
  EXPECT_EQ(snapshot.GetPtr("b"), b);
  EXPECT_EQ(snapshot.Get("c"), nullptr);
  EXPECT_TRUE(snapshot.IsPvcUsedByPods("default/data"));
  EXPECT_FALSE(snapshot.IsPvcUsedByPods("default/other"));
  EXPECT_EQ(Names(snapshot.nodes_with_affinity_pods()),
            std::vector<std::string>{"b"});

  // The simulator edits NodeInfos in place and then reindexes.
  a->AddPod(PodBuilder("r").Node("a").PvcVolume("v", "logs").Info());
  EXPECT_FALSE(snapshot.IsPvcUsedByPods("default/logs"));
  snapshot.RebuildIndexes();
  EXPECT_TRUE(snapshot.IsPvcUsedByPods("default/logs"));
}

TEST(SnapshotTest, UpsertAndEraseReportWhatTheListsNeed) {
  auto a = ksched::testing::MakeNodeInfo(NodeBuilder("a").Obj());
  auto b = ksched::testing::MakeNodeInfo(
      NodeBuilder("b").Obj(),
      {PodBuilder("p").Node("b").PvcVolume("v", "data").Obj()});
  Snapshot snapshot({a, b});

  auto a2 = std::make_shared<framework::NodeInfo>(*a);
  a2->AddPod(PodBuilder("q").Node("a").PvcVolume("v", "data").Info());
  Snapshot::UpsertEffect effect = snapshot.Upsert(a2);
  EXPECT_FALSE(effect.added);
  EXPECT_FALSE(effect.affinity_changed);
  EXPECT_EQ(snapshot.nodes()[0], a2);  // swapped in place

  auto b2 = std::make_shared<framework::NodeInfo>(*b);
  b2->AddPod(PodBuilder("r").Node("b").PodAffinity("z", "k", "v", true).Info());
  ASSERT_TRUE(b2->RemovePod("p-uid"));
  effect = snapshot.Upsert(b2);
  // A listed node joins the affinity lists in place.
  EXPECT_FALSE(effect.affinity_changed);
  EXPECT_FALSE(effect.anti_affinity_changed);
  EXPECT_EQ(snapshot.nodes_with_required_anti_affinity_pods(),
            std::vector<NodeInfoPtr>{b2});
  EXPECT_EQ(snapshot.nodes_with_affinity_pods(), std::vector<NodeInfoPtr>{b2});
  // "data" is still used by a2.
  EXPECT_TRUE(snapshot.IsPvcUsedByPods("default/data"));

  effect =
      snapshot.Upsert(ksched::testing::MakeNodeInfo(NodeBuilder("c").Obj()));
  EXPECT_TRUE(effect.added);
  EXPECT_EQ(snapshot.num_node_infos(), 3u);
  EXPECT_EQ(snapshot.size(), 2u);  // until the lists are rebuilt
  EXPECT_EQ(snapshot.EraseIf([](std::string_view n) { return n == "a"; }), 1u);
  EXPECT_FALSE(snapshot.IsPvcUsedByPods("default/data"));
  snapshot.RebuildLists({"c", "a", "b"});
  EXPECT_EQ(Names(snapshot.nodes()), (std::vector<std::string>{"c", "b"}));
  EXPECT_EQ(snapshot.nodes_with_required_anti_affinity_pods(),
            std::vector<NodeInfoPtr>{b2});
}

// Leaving an affinity list swaps the last entry into the hole; that entry
// must still be found where it now is when its node changes again.
TEST(SnapshotTest, AffinityListsAreKeptInPlace) {
  auto with_anti = [](const std::string& node, const std::string& pod) {
    return ksched::testing::MakeNodeInfo(
        NodeBuilder(node).Obj(),
        {PodBuilder(pod).Node(node).PodAffinity("z", "k", "v", true).Obj()});
  };
  auto a = with_anti("a", "pa");
  auto b = with_anti("b", "pb");
  auto c = with_anti("c", "pc");
  Snapshot snapshot({a, b, c});
  ASSERT_EQ(snapshot.nodes_with_required_anti_affinity_pods(),
            (std::vector<NodeInfoPtr>{a, b, c}));

  auto a_plain = ksched::testing::MakeNodeInfo(NodeBuilder("a").Obj());
  snapshot.Upsert(a_plain);  // a leaves: c takes its place
  EXPECT_EQ(snapshot.nodes_with_required_anti_affinity_pods(),
            (std::vector<NodeInfoPtr>{c, b}));
  auto c2 = with_anti("c", "pc2");
  snapshot.Upsert(c2);  // replaced where it now sits
  EXPECT_EQ(snapshot.nodes_with_required_anti_affinity_pods(),
            (std::vector<NodeInfoPtr>{c2, b}));
  auto a2 = with_anti("a", "pa2");
  snapshot.Upsert(a2);  // a joins again, at the end
  EXPECT_EQ(snapshot.nodes_with_required_anti_affinity_pods(),
            (std::vector<NodeInfoPtr>{c2, b, a2}));
  auto b_plain = ksched::testing::MakeNodeInfo(NodeBuilder("b").Obj());
  snapshot.Upsert(b_plain);
  auto a3 = with_anti("a", "pa3");
  snapshot.Upsert(a3);
  EXPECT_EQ(snapshot.nodes_with_required_anti_affinity_pods(),
            (std::vector<NodeInfoPtr>{c2, a3}));
  EXPECT_EQ(snapshot.nodes_with_affinity_pods(),
            (std::vector<NodeInfoPtr>{c2, a3}));
}

}  // namespace
}  // namespace ksched::cache
