#include "pkg/simulator/node_search.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>

#include "pkg/simulator/changes.h"
#include "pkg/simulator/cluster.h"
#include "pkg/simulator/plan.h"

namespace ksched::simulator {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A cluster where the training job fits from `fits_from` added nodes on,
// and smaller pods take the first nodes: with 1 to fits_from-1 nodes the
// same one pod is left pending, which is no sign that more do not help.
NodeSearchTrial TrainingJobFitsFrom(int fits_from, std::vector<int>* calls) {
  return [=](int n) -> util::Result<std::set<std::string>> {
    calls->push_back(n);
    if (n >= fits_from) return std::set<std::string>{};
    return std::set<std::string>{"ml/train-0"};
  };
}

TEST(SearchNodeCountTest, DoesNotStopWhenOneMoreNodeLeavesAsManyPending) {
  std::vector<int> calls;
  auto found = SearchNodeCount({.unscheduled_without = {"ml/train-0"},
                                .lower_bound = 1,
                                .upper_bound = 30},
                               TrainingJobFitsFrom(6, &calls));
  ASSERT_TRUE(found.ok()) << found.error().message();
  EXPECT_TRUE(found->found);
  EXPECT_EQ(found->nodes, 6);
  // Gallop 1, 2, 4, 8, then bisect 6, 5.
  EXPECT_THAT(calls, ElementsAre(1, 2, 4, 8, 6, 5));
  EXPECT_THAT(found->tried, ElementsAre(0, 1, 2, 4, 8, 6, 5));
}

TEST(SearchNodeCountTest, FindsTheSmallestCountForEveryAnswer) {
  for (int answer = 1; answer <= 40; ++answer) {
    for (int lower = 1; lower <= answer; lower += 3) {
      std::vector<int> calls;
      auto found = SearchNodeCount({.unscheduled_without = {"ml/train-0"},
                                    .lower_bound = lower,
                                    .upper_bound = 40},
                                   TrainingJobFitsFrom(answer, &calls));
      ASSERT_TRUE(found.ok());
      EXPECT_EQ(found->nodes, answer) << "lower bound " << lower;
      // Galloping and bisecting take about twice log2 of the gap.
      EXPECT_LE(
          calls.size(),
          2u * (std::bit_width(static_cast<unsigned>(answer - lower + 1))) + 1)
          << "answer " << answer << ", lower bound " << lower;
    }
  }
}

TEST(SearchNodeCountTest, ATightLowerBoundCostsOneRun) {
  std::vector<int> calls;
  auto found = SearchNodeCount({.unscheduled_without = {"ml/train-0"},
                                .lower_bound = 6,
                                .upper_bound = 30},
                               TrainingJobFitsFrom(6, &calls));
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->nodes, 6);
  EXPECT_THAT(calls, ElementsAre(6));
}

TEST(SearchNodeCountTest, PodsNoNodeCanTakeAreNotWaitedFor) {
  std::vector<int> calls;
  auto found = SearchNodeCount(
      {.unscheduled_without = {"ml/giant-0", "ml/train-0"},
       .hopeless = {"ml/giant-0"},
       .lower_bound = 1,
       .upper_bound = 30},
      [&](int n) -> util::Result<std::set<std::string>> {
        calls.push_back(n);
        if (n >= 3) return std::set<std::string>{"ml/giant-0"};
        return std::set<std::string>{"ml/giant-0", "ml/train-0"};
      });
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->found);
  EXPECT_EQ(found->nodes, 3);
  EXPECT_THAT(found->still_pending, IsEmpty());
}

TEST(SearchNodeCountTest, NothingToWaitForNeedsNoRun) {
  std::vector<int> calls;
  auto found = SearchNodeCount(
      {.unscheduled_without = {"ml/giant-0"}, .hopeless = {"ml/giant-0"}},
      TrainingJobFitsFrom(1, &calls));
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->nodes, 0);
  EXPECT_THAT(calls, IsEmpty());
  EXPECT_THAT(found->tried, ElementsAre(0));
}

TEST(SearchNodeCountTest, SaysWhatTheUpperBoundLeavesPending) {
  std::vector<int> calls;
  auto found = SearchNodeCount({.unscheduled_without = {"ml/train-0"},
                                .lower_bound = 1,
                                .upper_bound = 10},
                               TrainingJobFitsFrom(100, &calls));
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->found);
  EXPECT_EQ(found->nodes, 10);
  EXPECT_THAT(found->still_pending, ElementsAre("ml/train-0"));
  EXPECT_THAT(calls, ElementsAre(1, 2, 4, 8, 10));
}

TEST(SearchNodeCountTest, ALowerBoundAboveTheUpperTriesTheUpper) {
  std::vector<int> calls;
  auto found = SearchNodeCount({.unscheduled_without = {"ml/train-0"},
                                .lower_bound = 50,
                                .upper_bound = 10},
                               TrainingJobFitsFrom(50, &calls));
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->found);
  EXPECT_THAT(calls, ElementsAre(10));
}

TEST(SearchNodeCountTest, ATrialsErrorEndsTheSearch) {
  auto found = SearchNodeCount(
      {.unscheduled_without = {"ml/train-0"}, .upper_bound = 10},
      [](int) -> util::Result<std::set<std::string>> {
        return util::Error("no profiles configured");
      });
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.error().message(), "no profiles configured");
}

// One node with 8 GPUs, 6 of them held by a running pod's claim, and three
// pending pods asking 4, 8 and 8 GPUs from templates.
constexpr std::string_view kGpuCluster = R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: v1
kind: Node
metadata: {name: gpu-1}
status: {allocatable: {cpu: "64", memory: 512Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-1}
spec:
  driver: gpu.example.com
  nodeName: gpu-1
  pool: {name: gpu-1, generation: 1, resourceSliceCount: 1}
  devices: [{name: g0}, {name: g1}, {name: g2}, {name: g3}, {name: g4}, {name: g5}, {name: g6}, {name: g7}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: held, namespace: default}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu, count: 6}}]}}
status:
  allocation:
    devices:
      results:
      - {request: r, driver: gpu.example.com, pool: gpu-1, device: g0}
      - {request: r, driver: gpu.example.com, pool: gpu-1, device: g1}
      - {request: r, driver: gpu.example.com, pool: gpu-1, device: g2}
      - {request: r, driver: gpu.example.com, pool: gpu-1, device: g3}
      - {request: r, driver: gpu.example.com, pool: gpu-1, device: g4}
      - {request: r, driver: gpu.example.com, pool: gpu-1, device: g5}
  reservedFor: [{resource: pods, name: running, uid: pod-default-running}]
---
apiVersion: v1
kind: Pod
metadata: {name: running}
spec:
  nodeName: gpu-1
  containers: [{name: c, resources: {requests: {cpu: "8"}}}]
  resourceClaims: [{name: g, resourceClaimName: held}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: four}
spec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu, count: 4}}]}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: eight}
spec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu, count: 8}}]}}}
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  containers: [{name: c, resources: {requests: {cpu: "8"}}}]
  resourceClaims: [{name: g, resourceClaimTemplateName: four}]
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec:
  containers: [{name: c, resources: {requests: {cpu: "8"}}}]
  resourceClaims: [{name: g, resourceClaimTemplateName: eight}]
---
apiVersion: v1
kind: Pod
metadata: {name: c}
spec:
  containers: [{name: c, resources: {requests: {cpu: "60"}}}]
  resourceClaims: [{name: g, resourceClaimTemplateName: eight}]
)";

TEST(NodeCountLowerBoundTest, DevicesAndResourcesBeyondWhatIsFree) {
  auto cluster = ParseCluster(kGpuCluster);
  ASSERT_TRUE(cluster.ok()) << cluster.error().message();
  ClusterChanges changes;
  changes.node_template = cluster->nodes.front();
  const std::vector<api::ResourceSlice> slices =
      TemplateSlices(*cluster, changes);
  ASSERT_EQ(slices.size(), 1u);
  // 20 GPUs asked, 2 free, 8 a node: at least 3 nodes.
  EXPECT_EQ(NodeCountLowerBound(*cluster, *changes.node_template, slices,
                                {"default/a", "default/b", "default/c"}),
            3);
  // 4 asked, 2 free: one node.
  EXPECT_EQ(NodeCountLowerBound(*cluster, *changes.node_template, slices,
                                {"default/a"}),
            1);
  // CPU: 76 asked, 56 free, 64 a node: one; with no devices on the
  // template, devices bound nothing (those pods are the ones no such node
  // takes).
  EXPECT_EQ(NodeCountLowerBound(*cluster, *changes.node_template, {},
                                {"default/a", "default/b", "default/c"}),
            1);
}

}  // namespace
}  // namespace ksched::simulator
