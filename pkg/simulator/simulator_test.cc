#include "pkg/simulator/simulator.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pkg/config/config.h"
#include "pkg/plugins/registry.h"
#include "pkg/simulator/report.h"

namespace ksched::simulator {
namespace {

class SimulatorTest : public ::testing::Test {
 protected:
  SimulationResult Run(const std::string& yaml,
                       SimulationOptions options = {}) {
    auto cluster = ParseCluster(yaml);
    EXPECT_TRUE(cluster.ok()) << cluster.error().message();
    auto result =
        Simulate(*cluster, config::DefaultConfig(), registry_, options);
    EXPECT_TRUE(result.ok()) << result.error().message();
    return *result;
  }
  static const PodOutcome& Pod(const SimulationResult& r,
                               const std::string& name) {
    for (const PodOutcome& p : r.pods) {
      if (p.name == name) return p;
    }
    ADD_FAILURE() << "no outcome for " << name;
    static PodOutcome none;
    return none;
  }
  framework::Registry registry_ = plugins::NewInTreeRegistry();
};

constexpr const char* kTwoNodes = R"(
kind: Node
metadata: {name: small, labels: {zone: a}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
kind: Node
metadata: {name: big, labels: {zone: b}}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "10"}}
)";

TEST_F(SimulatorTest, LeastAllocatedSpreadsPodsOverTheEmptierNode) {
  auto r = Run(std::string(kTwoNodes) + R"(
---
kind: Pod
metadata: {name: p1}
spec: {schedulerName: ksched, containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
)");
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(Pod(r, "p1").node, "big");
  EXPECT_EQ(Pod(r, "p1").message, "");
}

TEST_F(SimulatorTest, PodsAccumulateAndTheLastOneDoesNotFit) {
  std::string yaml = kTwoNodes;
  for (int i = 0; i < 4; ++i) {
    yaml +=
        "---\nkind: Pod\nmetadata: {name: p" + std::to_string(i) +
        "}\nspec: {schedulerName: ksched, containers: [{name: c, resources: "
        "{requests: {cpu: \"3\"}}}]}\n";
  }
  auto r = Run(yaml);
  ASSERT_EQ(r.pods.size(), 4u);
  int on_big = 0;
  for (const auto& p : r.pods)
    on_big += p.node == std::optional<std::string>("big");
  // big takes two 3-CPU pods, small none; the rest cannot fit.
  EXPECT_EQ(on_big, 2);
  EXPECT_FALSE(r.pods[2].node.has_value());
  // Preemption ran and found nothing of lower priority to evict on big;
  // small is short of cpu even empty (v1.35: unresolvable). DynamicResources
  // had no claim to free first.
  EXPECT_EQ(r.pods[2].message,
            "0/2 nodes are available: 2 Insufficient cpu. no new claims to "
            "deallocate, preemption: 0/2 nodes are available: 1 No "
            "preemption victims found for incoming pod, 1 Preemption is not "
            "helpful for scheduling.");
  EXPECT_EQ(r.nodes[1].pods, 2);
  EXPECT_EQ(r.nodes[1].requested.Find("cpu")->ToString(), "6");
}

TEST_F(SimulatorTest, HigherPriorityPodsGoFirst) {
  auto r = Run(std::string(kTwoNodes) + R"(
---
kind: Pod
metadata: {name: low}
spec: {schedulerName: ksched, priority: 1, containers: [{name: c, resources: {requests: {cpu: "6"}}}]}
---
kind: Pod
metadata: {name: high}
spec: {schedulerName: ksched, priority: 100, containers: [{name: c, resources: {requests: {cpu: "6"}}}]}
)");
  ASSERT_EQ(r.pods.size(), 2u);
  EXPECT_EQ(r.pods[0].name, "high");
  EXPECT_EQ(r.pods[0].node, "big");
  EXPECT_FALSE(r.pods[1].node.has_value());
}

TEST_F(SimulatorTest, OtherSchedulersPodsAreLeftAloneUnlessAllPods) {
  std::string yaml = std::string(kTwoNodes) + R"(
---
kind: Pod
metadata: {name: theirs}
spec: {containers: [{name: c}]}
)";
  auto r = Run(yaml);
  EXPECT_TRUE(r.pods.empty());
  EXPECT_EQ(r.other_scheduler_pods,
            std::vector<std::string>{"default/theirs (default-scheduler)"});
  auto all = Run(yaml, {.seed = 1, .all_pods = true});
  ASSERT_EQ(all.pods.size(), 1u);
  EXPECT_TRUE(all.pods[0].node.has_value());
}

TEST_F(SimulatorTest, NoNodesIsReportedAsKubeSchedulerSaysIt) {
  auto r = Run(R"(
kind: Pod
metadata: {name: p}
spec: {schedulerName: ksched, containers: [{name: c}]}
)");
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].message, "no nodes available to schedule pods");
}

TEST_F(SimulatorTest, SameSeedSamePlacement) {
  std::string yaml;
  for (int i = 0; i < 6; ++i) {
    yaml += "kind: Node\nmetadata: {name: n" + std::to_string(i) +
            "}\nstatus: {allocatable: {cpu: \"4\", memory: 8Gi, pods: "
            "\"10\"}}\n---\n";
  }
  for (int i = 0; i < 6; ++i) {
    yaml += "kind: Pod\nmetadata: {name: p" + std::to_string(i) +
            "}\nspec: {schedulerName: ksched, containers: [{name: c}]}\n---\n";
  }
  auto a = Run(yaml, {.seed = 7});
  auto b = Run(yaml, {.seed = 7});
  ASSERT_EQ(a.pods.size(), 6u);
  for (size_t i = 0; i < a.pods.size(); ++i)
    EXPECT_EQ(a.pods[i].node, b.pods[i].node);
  // Ties are broken at random: six identical pods on six identical nodes
  // do not all land on the first node.
  std::map<std::string, int> per_node;
  for (const auto& p : a.pods) ++per_node[*p.node];
  EXPECT_GT(per_node.size(), 1u);
}

// The bundled example: every rule it exercises lands where it must.
TEST_F(SimulatorTest, ExampleClusterSchedulesAsDocumented) {
  auto cluster = LoadClusterFile(std::string(KSCHED_SOURCE_DIR) +
                                 "/examples/cluster.yaml");
  ASSERT_TRUE(cluster.ok()) << cluster.error().message();
  auto result = Simulate(*cluster, config::DefaultConfig(), registry_, {});
  ASSERT_TRUE(result.ok()) << result.error().message();
  const SimulationResult& r = *result;

  // High priority first: the business-critical pods lead the queue.
  ASSERT_GE(r.pods.size(), 4u);
  std::set<std::string> first;
  for (int i = 0; i < 4; ++i) first.insert(r.pods[i].name);
  EXPECT_EQ(first,
            (std::set<std::string>{"web-0", "web-1", "web-2", "ledger-0"}));
  for (const char* web : {"web-0", "web-1", "web-2"}) {
    const PodOutcome& p = Pod(r, web);
    ASSERT_TRUE(p.node.has_value()) << web << ": " << p.message;
    EXPECT_TRUE(p.node->starts_with("cpu-")) << *p.node;
    EXPECT_NE(*p.node, "cpu-b-3");  // cordoned
  }
  const PodOutcome& cache = Pod(r, "cache-0");
  ASSERT_TRUE(cache.node.has_value()) << cache.message;
  EXPECT_TRUE(*cache.node == "cpu-b-1" || *cache.node == "cpu-b-2")
      << *cache.node;

  // gpu-a-1 has 2 of 4 GPUs left; three are asked for.
  EXPECT_EQ(Pod(r, "finetune-0").node, "gpu-b-1");
  // Preemption cannot help: the four nodes without taints are smaller than
  // the request (v1.35: unresolvable), the others are tainted or cordoned.
  // DynamicResources had no claim to free first.
  const std::string preemption_useless =
      " no new claims to deallocate, preemption: 0/7 nodes are available: 7 "
      "Preemption is not helpful for scheduling.";
  EXPECT_EQ(Pod(r, "notebook-0").message,
            "0/7 nodes are available: 1 node(s) were unschedulable, 2 node(s) "
            "had untolerated taint(s), 4 Insufficient "
            "nvidia.com/gpu." +
                preemption_useless);
  EXPECT_EQ(Pod(r, "analytics-0").message,
            "0/7 nodes are available: 1 node(s) were unschedulable, 2 node(s) "
            "had untolerated taint(s), 4 Insufficient cpu, 4 "
            "Insufficient memory." +
                preemption_useless);

  // ledger-0 fits only on the m6i.2xlarge nodes; cpu-a-1 is too full, so
  // the two batch pods on cpu-a-2 are evicted for it.
  EXPECT_EQ(Pod(r, "ledger-0").node, "cpu-a-2");
  ASSERT_EQ(r.preempted.size(), 2u);
  std::set<std::string> victims;
  for (const PreemptedPod& v : r.preempted) {
    victims.insert(v.ns + "/" + v.name);
    EXPECT_EQ(v.node, "cpu-a-2");
    EXPECT_EQ(v.by, "shop/ledger-0");
  }
  EXPECT_EQ(victims, (std::set<std::string>{"batch/nightly-etl-1",
                                            "batch/nightly-etl-2"}));

  // Hard zone spread (maxSkew 1): two api pods per zone.
  std::map<char, int> api_per_zone;
  for (const char* api : {"api-0", "api-1", "api-2", "api-3"}) {
    const PodOutcome& p = Pod(r, api);
    ASSERT_TRUE(p.node.has_value()) << api << ": " << p.message;
    ++api_per_zone[(*p.node)[4]];  // cpu-<zone>-N
  }
  EXPECT_EQ(api_per_zone, (std::map<char, int>{{'a', 2}, {'b', 2}}));

  // Required anti-affinity on the hostname: one kafka broker per node.
  std::set<std::string> kafka_nodes;
  for (const char* kafka : {"kafka-0", "kafka-1", "kafka-2"}) {
    const PodOutcome& p = Pod(r, kafka);
    ASSERT_TRUE(p.node.has_value()) << kafka << ": " << p.message;
    kafka_nodes.insert(*p.node);
  }
  EXPECT_EQ(kafka_nodes.size(), 3u);

  // The WaitForFirstConsumer claim only provisions in zone-b.
  ASSERT_TRUE(Pod(r, "reports-0").node.has_value())
      << Pod(r, "reports-0").message;
  EXPECT_TRUE(Pod(r, "reports-0").node->starts_with("cpu-b-"));
  // VolumeZone: the disk lives in zone-a.
  ASSERT_TRUE(Pod(r, "orders-db-0").node.has_value())
      << Pod(r, "orders-db-0").message;
  EXPECT_TRUE(Pod(r, "orders-db-0").node->starts_with("cpu-a-"));
  // VolumeRestrictions: the journal writer holds the ReadWriteOncePod claim.
  EXPECT_EQ(Pod(r, "journal-audit-0").message,
            "0/7 nodes are available: 1 node(s) were unschedulable, 2 node(s) "
            "had untolerated taint(s), 4 node(s) unavailable due to "
            "PersistentVolumeClaim with ReadWriteOncePod access mode already "
            "in-use by another pod. no new claims to deallocate, preemption: "
            "0/7 nodes are available: 3 Preemption is not helpful for "
            "scheduling, 4 No preemption victims found for incoming pod.");
  // NodeVolumeLimits: cpu-b-2 has both its EBS slots attached.
  EXPECT_EQ(Pod(r, "builder-0").message,
            "0/7 nodes are available: 1 node(s) exceed max volume count, 1 "
            "node(s) were unschedulable, 2 node(s) had untolerated taint(s), 3 "
            "node(s) didn't match Pod's node affinity/selector. no new claims "
            "to deallocate, preemption: 0/7 nodes are available: 1 No "
            "preemption victims found for incoming pod, 6 Preemption is not "
            "helpful for scheduling.");
  // Refused at VolumeBinding's PreFilter, before DynamicResources' PreFilter
  // ran: v1.35's DynamicResources PostFilter then fails on its missing
  // state, and DefaultPreemption after it never runs.
  EXPECT_EQ(Pod(r, "archiver-0").message,
            "0/7 nodes are available: pod has unbound immediate "
            "PersistentVolumeClaims. not found");
  // cpu-b-1 already serves host port 443.
  EXPECT_EQ(Pod(r, "ingress-canary").node, "cpu-b-2");
  EXPECT_EQ(Pod(r, "node-exporter-cpu-b-2").node, "cpu-b-2");
  EXPECT_FALSE(Pod(r, "etl-0").node.has_value());
  EXPECT_EQ(Pod(r, "etl-0").message,
            "waiting for scheduling gates: [example.com/quota-check]");
  EXPECT_EQ(r.other_scheduler_pods,
            std::vector<std::string>{"default/legacy-0 (default-scheduler)"});

  // Node summaries count running and newly placed pods, not finished ones.
  for (const NodeSummary& n : r.nodes) {
    if (n.name == "cpu-b-3") {
      EXPECT_EQ(n.pods, 0);
      EXPECT_TRUE(n.unschedulable);
    }
    if (n.name == "gpu-b-1") {
      EXPECT_EQ(n.requested.Find("nvidia.com/gpu")->Value(), 3);
    }
    if (n.name == "cpu-b-2") {
      EXPECT_EQ(n.requested.Find("cpu")->MilliValue() >= 550, true);
    }
  }

  std::string json = RenderJson(r);
  EXPECT_NE(json.find(R"("name":"notebook-0","node":null,)"), std::string::npos)
      << json;
  std::string table = RenderTable(r);
  EXPECT_NE(table.find("ml/finetune-0"), std::string::npos) << table;
  EXPECT_NE(table.find("cordoned"), std::string::npos) << table;
}

// Five pods of one priority and room for four: the first four of the file
// get the room, whatever the heap makes of equal keys.
TEST_F(SimulatorTest, EqualPriorityPodsAreTriedInFileOrder) {
  std::string yaml = R"(
kind: Node
metadata: {name: only}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
)";
  for (const char* name : {"p1", "p2", "p3", "p4", "p5"}) {
    yaml += std::string("---\nkind: Pod\nmetadata: {name: ") + name +
            "}\nspec: {schedulerName: ksched, containers: [{name: c, "
            "resources: {requests: {cpu: \"1\"}}}]}\n";
  }
  auto r = Run(yaml);
  ASSERT_EQ(r.pods.size(), 5u);
  std::vector<std::string> tried;
  for (const PodOutcome& p : r.pods) tried.push_back(p.name);
  EXPECT_EQ(tried, (std::vector<std::string>{"p1", "p2", "p3", "p4", "p5"}));
  for (const char* name : {"p1", "p2", "p3", "p4"}) {
    EXPECT_EQ(Pod(r, name).node, "only") << name;
  }
  EXPECT_FALSE(Pod(r, "p5").node.has_value());
}

// A snapshot's creationTimestamps come before file order: the oldest pod
// is tried first, and pods without one come after those with one.
TEST_F(SimulatorTest, EqualPriorityPodsAreTriedOldestFirst) {
  std::string yaml = R"(
kind: Node
metadata: {name: only}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "10"}}
)";
  const std::vector<std::pair<std::string, std::string>> pods = {
      {"undated", ""},
      {"newer", "2026-01-02T00:00:00Z"},
      {"older", "2026-01-01T00:00:00Z"}};
  for (const auto& [name, created] : pods) {
    yaml +=
        "---\nkind: Pod\nmetadata: {name: " + name +
        (created.empty() ? "" : ", creationTimestamp: \"" + created + "\"") +
        "}\nspec: {schedulerName: ksched, containers: [{name: c, "
        "resources: {requests: {cpu: \"1\"}}}]}\n";
  }
  auto r = Run(yaml);
  ASSERT_EQ(r.pods.size(), 3u);
  EXPECT_EQ(r.pods[0].name, "older");
  EXPECT_EQ(r.pods[1].name, "newer");
  EXPECT_EQ(r.pods[2].name, "undated");
  EXPECT_EQ(Pod(r, "older").node, "only");
  EXPECT_EQ(Pod(r, "newer").node, "only");
  EXPECT_FALSE(Pod(r, "undated").node.has_value());
}

TEST_F(SimulatorTest, ExplainShowsThePreemptionThatMadeRoom) {
  const std::string yaml = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: low, namespace: default}
spec:
  nodeName: n1
  priority: 0
  containers: [{name: c, resources: {requests: {cpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: high, namespace: default}
spec:
  schedulerName: ksched
  priority: 1000
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
)";
  SimulationOptions options;
  options.explain.emplace();
  SimulationResult r = Run(yaml, options);
  const PodOutcome& high = Pod(r, "high");
  ASSERT_EQ(high.node, std::optional<std::string>("n1"));
  ASSERT_NE(high.explanation, nullptr);
  const explain::Explanation& e = *high.explanation;
  EXPECT_EQ(e.nominated_node_tried, "n1");
  EXPECT_TRUE(e.preemption_cycle_earlier);
  EXPECT_EQ(e.preemption, (std::map<std::string, std::string>{
                              {"n1", "chosen, victims: default/low"}}));
  // The last cycle itself: one node, filtered alone, every plugin passed.
  EXPECT_EQ(high.record->selected_node(), "n1");
  EXPECT_EQ(e.filtered_nodes, 1);
}

TEST_F(SimulatorTest, ExplainRecordsAPreFilterThatNarrowsTheNodes) {
  // NodeAffinity's PreFilter narrows to the nodes a metadata.name field
  // selector names (as the DaemonSet controller pins its pods): only
  // those are filtered.
  std::string yaml;
  for (const char* n : {"n1", "n2", "n3"}) {
    yaml += std::string("apiVersion: v1\nkind: Node\nmetadata: {name: ") + n +
            "}\nstatus: {allocatable: {cpu: \"2\", memory: 4Gi, pods: "
            "\"10\"}}\n---\n";
  }
  yaml += R"(apiVersion: v1
kind: Pod
metadata: {name: pinned, namespace: default}
spec:
  schedulerName: ksched
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchFields:
              - {key: metadata.name, operator: In, values: [n2]}
          - matchFields:
              - {key: metadata.name, operator: In, values: [n3]}
  containers: [{name: c, resources: {requests: {cpu: "3"}}}]
)";
  SimulationOptions options;
  options.explain = std::set<std::string>{"default/pinned"};
  SimulationResult r = Run(yaml, options);
  const PodOutcome& pinned = Pod(r, "pinned");
  ASSERT_TRUE(pinned.record != nullptr);
  EXPECT_EQ(pinned.record->pre_filter_result(),
            (std::map<std::string, std::vector<std::string>>{
                {"NodeAffinity", {"n2", "n3"}}}));
  EXPECT_EQ(pinned.record->pre_filter_status().at("NodeAffinity"), "success");
  const auto filtered = pinned.record->FilterResults();
  EXPECT_EQ(filtered.size(), 2u);
  EXPECT_FALSE(filtered.count("n1"));
  ASSERT_NE(pinned.explanation, nullptr);
  EXPECT_EQ(pinned.explanation->filtered_nodes, 2);
  EXPECT_EQ(pinned.explanation->subject.total_nodes, 3);
  EXPECT_EQ(pinned.explanation->pre_filter,
            (std::vector<std::pair<std::string, std::string>>{
                {"NodeAffinity", "narrowed the nodes to 2"}}));
}

constexpr const char* kGangCluster = R"(
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: train}
spec: {minMember: 3}
---
kind: Pod
metadata: {name: train-0, labels: {scheduling.x-k8s.io/pod-group: train}}
spec: {schedulerName: ksched, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
kind: Pod
metadata: {name: train-1, labels: {scheduling.x-k8s.io/pod-group: train}}
spec: {schedulerName: ksched, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
kind: Pod
metadata: {name: lost-0, labels: {scheduling.x-k8s.io/pod-group: nowhere}}
spec: {schedulerName: ksched, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
)";

// Without Coscheduling a PodGroup is a label: its pods are plain pods, and
// no gang report pretends they waited for their group.
TEST_F(SimulatorTest, PodGroupsWithoutCoschedulingAreReportedAsPlainPods) {
  auto r = Run(kGangCluster);
  EXPECT_TRUE(Pod(r, "train-0").node.has_value());
  EXPECT_TRUE(Pod(r, "train-1").node.has_value());
  EXPECT_TRUE(Pod(r, "lost-0").node.has_value());
  EXPECT_TRUE(r.pod_groups.empty());
  EXPECT_EQ(r.pod_groups_ignored, 1);
  auto cluster = ParseCluster(kGangCluster);
  ASSERT_TRUE(cluster.ok());
  const auto notices = InputNotices(*cluster, "c.yaml", {"ksched"}, false, r);
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0],
            "note: 1 PodGroup in the input, but no profile runs "
            "Coscheduling: their pods were scheduled one by one, as plain "
            "pods (for gangs, run with a profile that does, such as --config "
            "examples/gang/scheduler-config.yaml)");
  EXPECT_EQ(RenderTable(r).find("POD GROUPS"), std::string::npos);
}

// With Coscheduling, kube's message for a member whose PodGroup does not
// exist stays as kube-scheduler words it, and the report names the group.
TEST_F(SimulatorTest, AMissingPodGroupIsNamed) {
  auto cluster = ParseCluster(kGangCluster);
  ASSERT_TRUE(cluster.ok());
  auto cfg = config::LoadConfigFile(std::string(KSCHED_SOURCE_DIR) +
                                    "/examples/gang/scheduler-config.yaml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message();
  auto r = Simulate(*cluster, *cfg, registry_, {});
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(Pod(*r, "lost-0").message,
            "0/1 nodes are available: 1 PodGroup not found. (no PodGroup "
            "default/nowhere, which its label scheduling.x-k8s.io/pod-group "
            "names)");
  ASSERT_EQ(r->pod_groups.size(), 1u);
  EXPECT_EQ(r->pod_groups[0].message, "waiting for 1 more pod");
  EXPECT_EQ(r->pod_groups_ignored, 0);
}

// probe_node tries each pending pod alone on one node: two pods that need
// the whole node both fit there, as neither takes room from the other, and
// one the node can never take says why, plugin by plugin.
TEST_F(SimulatorTest, ProbeNodeTriesEachPodAlone) {
  SimulationOptions options;
  options.probe_node = "n1";
  options.probe_pods = {"default/a", "default/b", "default/big"};
  const SimulationResult r = Run(R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  schedulerName: ksched
  containers: [{name: c, resources: {requests: {cpu: "4"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec:
  schedulerName: ksched
  containers: [{name: c, resources: {requests: {cpu: "4"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  schedulerName: ksched
  containers: [{name: c, resources: {requests: {cpu: "8", memory: 16Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: not-asked}
spec:
  schedulerName: ksched
  containers: [{name: c}]
)",
                                 options);
  ASSERT_EQ(r.pods.size(), 3u);
  EXPECT_EQ(Pod(r, "a").node, "n1");
  EXPECT_EQ(Pod(r, "b").node, "n1");
  EXPECT_EQ(Pod(r, "big").node, std::nullopt);
  EXPECT_EQ(Pod(r, "big").message,
            "NodeResourcesFit: Insufficient cpu, Insufficient memory");
  EXPECT_EQ(r.cycles, 0);
}

}  // namespace
}  // namespace ksched::simulator
