// Rejecting a GPU pod's CPU-only nodes on DynamicResources' candidates
// (FilterCandidatesPlugin) must not change a single decision: the same
// GPU cluster simulated with and without them places and rejects the same
// pods on the same nodes, with the same messages.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "pkg/config/config.h"
#include "pkg/plugins/registry.h"
#include "pkg/simulator/cluster.h"
#include "pkg/simulator/simulator.h"

namespace ksched::simulator {
namespace filter_candidates_test_detail {
namespace {

// 400 nodes, every fifth with 8 GPUs (h100 on even ones, a100 on odd);
// pods claiming 1, 2, 4 or 8 GPUs through templates, some h100 only, some
// 16 (more than any node has), and plain pods among them; some GPU nodes
// cordoned or tainted so that other plugins reject GPU nodes too. The GPUs
// run out before the pods do.
std::string GpuClusterYaml() {
  std::string yaml = R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
)";
  auto template_for = [&](const std::string& name, int count,
                          const std::string& selector) {
    yaml +=
        "---\napiVersion: resource.k8s.io/v1\nkind: "
        "ResourceClaimTemplate\nmetadata: {name: " +
        name +
        ", namespace: default}\nspec:\n  spec:\n    devices:\n      "
        "requests:\n      - name: gpu\n        exactly: "
        "{deviceClassName: gpu.example.com, allocationMode: ExactCount, "
        "count: " +
        std::to_string(count) + selector + "}\n";
  };
  for (int count : {1, 2, 4, 8, 16}) {
    template_for("gpu-" + std::to_string(count), count, "");
    template_for("h100-" + std::to_string(count), count,
                 ", selectors: [{cel: {expression: "
                 "'device.attributes[\"gpu.example.com\"].model == "
                 "\"h100\"'}}]");
  }
  constexpr int kNodes = 400;
  for (int i = 0; i < kNodes; ++i) {
    const std::string name = "n" + std::to_string(i);
    const bool gpu = i % 5 == 0;
    yaml +=
        "---\nkind: Node\nmetadata: {name: " + name +
        ", labels: {kubernetes.io/hostname: " + name +
        ", topology.kubernetes.io/zone: z" + std::to_string(i % 3) +
        "}}\nspec: {" + (gpu && i % 35 == 0 ? "unschedulable: true, " : "") +
        "taints: [" +
        (gpu && i % 45 == 0 ? "{key: dedicated, value: x, effect: NoSchedule}"
                            : "") +
        "]}\nstatus: {allocatable: {cpu: \"16\", memory: 64Gi, pods: "
        "\"110\"}}\n";
    if (!gpu) continue;
    yaml +=
        "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: " +
        name + "-gpus}\nspec:\n  driver: gpu.example.com\n  nodeName: " + name +
        "\n  pool: {name: " + name +
        ", generation: 1, resourceSliceCount: 1}\n  devices:\n";
    for (int d = 0; d < 8; ++d) {
      yaml += "  - name: gpu-" + std::to_string(d) +
              "\n    attributes: {model: {string: " +
              (i % 2 == 0 ? "h100" : "a100") + "}}\n";
    }
  }
  const char* claims[] = {"gpu-1", "gpu-2", "h100-1", "gpu-4",  "h100-2",
                          "gpu-1", "gpu-8", "h100-4", "gpu-16", "gpu-2"};
  for (int i = 0; i < 400; ++i) {
    const std::string n = std::to_string(i);
    if (i % 7 == 3) {
      yaml += "---\nkind: Pod\nmetadata: {name: plain" + n +
              "}\nspec: {schedulerName: ksched, containers: [{name: c, "
              "resources: {requests: {cpu: \"1\"}}}]}\n";
      continue;
    }
    yaml += "---\nkind: Pod\nmetadata: {name: gpu" + n +
            "}\nspec: {schedulerName: ksched, containers: [{name: c, "
            "resources: {requests: {cpu: \"2\"}}}], resourceClaims: [{name: "
            "gpu, resourceClaimTemplateName: " +
            claims[i % 10] + "}]}\n";
  }
  return yaml;
}

TEST(FilterCandidatesTest, DraDecisionsAreTheSameWithAndWithoutThem) {
  auto cluster = ParseCluster(GpuClusterYaml());
  ASSERT_TRUE(cluster.ok()) << cluster.error().message();
  const framework::Registry registry = plugins::NewInTreeRegistry();
  SimulationOptions with;
  SimulationOptions without = with;
  without.use_filter_candidates = false;
  auto a = Simulate(*cluster, config::DefaultConfig(), registry, with);
  auto b = Simulate(*cluster, config::DefaultConfig(), registry, without);
  ASSERT_TRUE(a.ok()) << a.error().message();
  ASSERT_TRUE(b.ok()) << b.error().message();

  // The CPU-only nodes were left out for GPU pods in one run only.
  EXPECT_GT(a->filter_candidate_rejections, 10000);
  EXPECT_EQ(b->filter_candidate_rejections, 0);

  ASSERT_EQ(a->pods.size(), b->pods.size());
  int scheduled = 0, unschedulable = 0, no_devices = 0;
  for (size_t i = 0; i < a->pods.size(); ++i) {
    SCOPED_TRACE(a->pods[i].name);
    EXPECT_EQ(a->pods[i].name, b->pods[i].name);
    EXPECT_EQ(a->pods[i].node, b->pods[i].node);
    EXPECT_EQ(a->pods[i].message, b->pods[i].message);
    (a->pods[i].node ? scheduled : unschedulable) += 1;
    no_devices += a->pods[i].message.find("cannot allocate all claims") !=
                  std::string::npos;
  }
  // GPU pods bind, and once the GPUs run out (and for 16 GPUs at once)
  // they fail with the message every node's plugins give.
  EXPECT_GT(scheduled, 150);
  EXPECT_GT(unschedulable, 40);
  EXPECT_GT(no_devices, 40);
  EXPECT_EQ(a->cycles, b->cycles);
  std::printf(
      "%d scheduled, %d unschedulable (%d for devices), %lld nodes "
      "left out unfiltered\n",
      scheduled, unschedulable, no_devices,
      static_cast<long long>(a->filter_candidate_rejections));
}

}  // namespace
}  // namespace filter_candidates_test_detail
}  // namespace ksched::simulator
