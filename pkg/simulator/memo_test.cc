// Keeping node-local answers across cycles (scheduler/node_result_memo.h)
// must not change a single decision: the same cluster simulated with and
// without it places and rejects the same pods on the same nodes,
// with the same messages.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/config/config.h"
#include "pkg/plugins/registry.h"
#include "pkg/simulator/cluster.h"
#include "pkg/simulator/simulator.h"

namespace ksched::simulator {
namespace {

// 1,500 small nodes (the adaptive percentage then stops each filter pass
// at 570 feasible nodes, so cycles start where the last one stopped):
// three zones, two instance types, every 7th tainted PreferNoSchedule,
// every 11th tainted NoSchedule, every 13th cordoned, every 5th holding an
// image, a running pod on every big node. Pending pods of several shapes,
// in runs and interleaved, take several to a node, so that a node's
// answers change as pods land on it; some fit nowhere. (No preemption: its
// parallel candidate search, as kube's, may pick a different node from run
// to run.)
std::string MixedClusterYaml() {
  std::string yaml;
  constexpr int kNodes = 1500;
  for (int i = 0; i < kNodes; ++i) {
    const std::string name = "n" + std::to_string(i);
    std::string taints;
    if (i % 7 == 0) {
      taints += "{key: soft, value: x, effect: PreferNoSchedule},";
    }
    if (i % 11 == 0)
      taints += "{key: dedicated, value: gpu, effect: NoSchedule},";
    yaml += "---\nkind: Node\nmetadata: {name: " + name +
            ", labels: {kubernetes.io/hostname: " + name +
            ", topology.kubernetes.io/zone: z" + std::to_string(i % 3) +
            ", type: " + (i % 2 ? "big" : "small") + "}}\nspec: {" +
            (i % 13 == 0 ? "unschedulable: true, " : "") + "taints: [" +
            taints + "]}\nstatus: {allocatable: {cpu: \"" +
            (i % 2 ? "2" : "1") + "\", memory: 8Gi, pods: \"10\"}" +
            (i % 5 == 0 ? ", images: [{names: [\"registry.example/app:1\"], "
                          "sizeBytes: 500000000}]"
                        : "") +
            "}\n";
  }
  for (int i = 1; i < kNodes; i += 2) {
    yaml += "---\nkind: Pod\nmetadata: {name: run" + std::to_string(i) +
            "}\nspec: {nodeName: n" + std::to_string(i) +
            ", containers: [{name: c, resources: {requests: {cpu: 600m, "
            "memory: 1Gi}}}]}\n";
  }
  auto pod = [&](const std::string& name, const std::string& spec) {
    yaml += "---\nkind: Pod\nmetadata: {name: " + name +
            "}\nspec: {schedulerName: ksched, " + spec + "}\n";
  };
  const std::string basic =
      "containers: [{name: c, image: registry.example/app:1, resources: "
      "{requests: {cpu: 250m, memory: 512Mi}}}]";
  for (int i = 0; i < 1800; ++i) {
    const std::string n = std::to_string(i);
    switch (i / 200 % 6) {
      case 0:  // a run of one shape
        pod("basic" + n, basic);
        break;
      case 1:  // interleaved shapes: the memo's signature keeps changing
        // (the other shape fits on no node).
        pod("mixed" + n,
            i % 2 ? basic
                  : "containers: [{name: c, resources: {requests: {cpu: "
                    "\"3\"}}}]");
        break;
      case 2:  // tolerating the NoSchedule taint
        pod("tolerant" + n,
            "tolerations: [{key: dedicated, operator: Exists}], " + basic);
        break;
      case 3:  // required and preferred node affinity
        pod("affine" + n,
            "nodeSelector: {type: big}, affinity: {nodeAffinity: "
            "{preferredDuringSchedulingIgnoredDuringExecution: [{weight: 5, "
            "preference: {matchExpressions: [{key: topology.kubernetes.io/"
            "zone, operator: In, values: [z1]}]}}]}}, " +
                basic);
        break;
      case 4:  // a host port: one per node
        pod("port" + n,
            "containers: [{name: c, ports: [{containerPort: 80, hostPort: "
            "8080}], resources: {requests: {cpu: 200m}}}]");
        break;
      case 5:  // spreading: not node-local, never memoised
        pod("spread" + n,
            "topologySpreadConstraints: [{maxSkew: 1, topologyKey: "
            "topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, "
            "labelSelector: {matchLabels: {app: s}}}], " +
                basic);
        break;
    }
  }
  return yaml;
}

TEST(NodeResultMemoTest, DecisionsAreTheSameWithAndWithoutIt) {
  auto cluster = ParseCluster(MixedClusterYaml());
  ASSERT_TRUE(cluster.ok()) << cluster.error().message();
  const framework::Registry registry = plugins::NewInTreeRegistry();
  SimulationOptions with;
  SimulationOptions without = with;
  without.memoize_node_results = false;
  auto a = Simulate(*cluster, config::DefaultConfig(), registry, with);
  auto b = Simulate(*cluster, config::DefaultConfig(), registry, without);
  ASSERT_TRUE(a.ok()) << a.error().message();
  ASSERT_TRUE(b.ok()) << b.error().message();

  // The memo answered for many nodes in one run and none in the other.
  EXPECT_GT(a->memoized_filter_passes, 100000);
  EXPECT_EQ(b->memoized_filter_passes, 0);

  ASSERT_EQ(a->pods.size(), b->pods.size());
  int scheduled = 0, unschedulable = 0;
  for (size_t i = 0; i < a->pods.size(); ++i) {
    SCOPED_TRACE(a->pods[i].name);
    EXPECT_EQ(a->pods[i].name, b->pods[i].name);
    EXPECT_EQ(a->pods[i].node, b->pods[i].node);
    EXPECT_EQ(a->pods[i].message, b->pods[i].message);
    EXPECT_EQ(a->pods[i].nominated_node, b->pods[i].nominated_node);
    (a->pods[i].node ? scheduled : unschedulable) += 1;
  }
  // Both outcomes occur.
  EXPECT_GT(scheduled, 1000);
  EXPECT_GT(unschedulable, 10);
  EXPECT_EQ(a->cycles, b->cycles);
}

}  // namespace
}  // namespace ksched::simulator
