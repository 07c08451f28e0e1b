// The simulator counts requests as the scheduler's cache does: a running
// pod resized in place holds what its status reports (v1.33+), pod-level
// requests stand for the containers' (v1.34+); the --capacity bound counts
// alike.
#include <gtest/gtest.h>

#include <string>

#include "pkg/config/config.h"
#include "pkg/plugins/registry.h"
#include "pkg/simulator/plan.h"
#include "pkg/simulator/simulator.h"

namespace ksched::simulator {
namespace {

// One 4-cpu node with a pod that asks for 1 cpu and, resized in place,
// holds 3500m.
constexpr const char* kResizedCluster = R"(
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "10"}}
---
kind: Pod
metadata: {name: resized, uid: resized}
spec:
  nodeName: n1
  containers: [{name: app, image: app, resources: {requests: {cpu: "1", memory: 1Gi}}}]
status:
  phase: Running
  containerStatuses:
  - name: app
    allocatedResources: {cpu: 3500m, memory: 1Gi}
    resources: {requests: {cpu: 3500m, memory: 1Gi}}
)";

constexpr const char* kPending = R"(
---
kind: Pod
metadata: {name: pending}
spec: {schedulerName: ksched, containers: [{name: c, image: c, resources: {requests: {cpu: "1"}}}]}
)";

class ResourcesTest : public ::testing::Test {
 protected:
  SimulationResult Run(const std::string& yaml,
                       const config::FeatureGates& gates) {
    auto cluster = ParseCluster(yaml);
    EXPECT_TRUE(cluster.ok()) << cluster.error().message();
    SimulationOptions options;
    options.features = gates;
    auto result =
        Simulate(*cluster, config::DefaultConfig(), registry_, options);
    EXPECT_TRUE(result.ok()) << result.error().message();
    return result.ok() ? *result : SimulationResult{};
  }
  static int64_t RequestedMilliCpu(const SimulationResult& r) {
    for (const NodeSummary& n : r.nodes) {
      if (n.name != "n1") continue;
      const api::Quantity* cpu = n.requested.Find("cpu");
      return cpu == nullptr ? 0 : cpu->MilliValue();
    }
    return -1;
  }
  framework::Registry registry_ = plugins::NewInTreeRegistry();
};

TEST_F(ResourcesTest, ResizedPodFillsTheNodeAtV135) {
  SimulationResult r =
      Run(std::string(kResizedCluster) + kPending, config::FeatureGates());
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_FALSE(r.pods[0].node.has_value());
  EXPECT_NE(r.pods[0].message.find("Insufficient cpu"), std::string::npos)
      << r.pods[0].message;
  EXPECT_EQ(RequestedMilliCpu(r), 3500);
}

TEST_F(ResourcesTest, ResizedPodCountsItsSpecAtV132) {
  SimulationResult r = Run(std::string(kResizedCluster) + kPending,
                           config::FeatureGates(config::KubeVersion{1, 32}));
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].node, std::optional<std::string>("n1"));
  EXPECT_EQ(RequestedMilliCpu(r), 2000);
}

TEST_F(ResourcesTest, CapacityUpperBoundCountsAsTheScheduler) {
  auto cluster = ParseCluster(kResizedCluster);
  ASSERT_TRUE(cluster.ok()) << cluster.error().message();
  const api::ResourceFeatures v135;
  const api::ResourceFeatures v132{.in_place_pod_vertical_scaling = false,
                                   .pod_level_resources = false};
  api::Pod copy;
  api::Container c;
  c.name = "c";
  c.resources.requests.Set("cpu", *api::Quantity::Parse("100m"));
  copy.spec.containers.push_back(c);
  // 500m free at v1.35; 3 cpu at v1.32, where the pod slots (9 left) bind.
  EXPECT_EQ(CapacityUpperBound(*cluster, copy, v135), 5);
  EXPECT_EQ(CapacityUpperBound(*cluster, copy, v132), 9);
  // Pod-level requests of 1 cpu: none fits in 500m; at v1.32 they are not
  // read and the containers' 100m counts.
  copy.spec.resources.emplace().requests.Set("cpu", *api::Quantity::Parse("1"));
  EXPECT_EQ(CapacityUpperBound(*cluster, copy, v135), 0);
  EXPECT_EQ(CapacityUpperBound(*cluster, copy, v132), 9);
}

}  // namespace
}  // namespace ksched::simulator
