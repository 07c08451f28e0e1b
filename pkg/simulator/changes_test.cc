#include "pkg/simulator/changes.h"

#include <gtest/gtest.h>

#include "pkg/config/config.h"
#include "pkg/plugins/registry.h"
#include "pkg/simulator/simulator.h"

namespace ksched::simulator {
namespace {

// n1 runs a ReplicaSet's pod, a StatefulSet's, a bare pod and a
// DaemonSet's; n2 has room for 1.5 CPU, n3 for 1.
const char kCluster[] = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: 1500m, memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: n3}
status: {allocatable: {cpu: "1", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-abcde
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f, uid: u, controller: true}]
spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: db-0
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: u, controller: true}]
spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bare}
spec: {nodeName: n1, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: agent-xyz12
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: u, controller: true}]
spec: {nodeName: n1, containers: [{name: c}]}
)";

class ChangesTest : public ::testing::Test {
 protected:
  Cluster Parse(const std::string& more = "") {
    auto c = ParseCluster(std::string(kCluster) + more);
    EXPECT_TRUE(c.ok()) << c.error().message();
    return c.ok() ? std::move(*c) : Cluster{};
  }
  SimulationResult Run(const Cluster& c, const AppliedChanges& applied) {
    SimulationOptions options;
    options.all_pods = true;
    options.changes = &applied;
    auto r = Simulate(c, config::DefaultConfig(), registry_, options);
    EXPECT_TRUE(r.ok()) << r.error().message();
    return r.ok() ? std::move(*r) : SimulationResult{};
  }
  framework::Registry registry_ = plugins::NewInTreeRegistry();
};

TEST_F(ChangesTest, ADrainReplacesControllersPodsAndTheyFitElsewhere) {
  Cluster c = Parse();
  auto applied = ApplyChanges(c, {.drain = {"n1"}, .force = true}, 1);
  ASSERT_TRUE(applied.ok()) << applied.error().message();
  // Cordoned as kubectl cordon leaves it.
  EXPECT_TRUE(c.nodes[0].spec.unschedulable);
  ASSERT_EQ(c.nodes[0].spec.taints.size(), 1u);
  EXPECT_EQ(c.nodes[0].spec.taints[0].key, "node.kubernetes.io/unschedulable");
  ASSERT_EQ(applied->displaced.size(), 4u);
  const DisplacedPod& web = applied->displaced[0];
  EXPECT_EQ(web.pod, "default/web-abcde");
  EXPECT_EQ(web.node, "n1");
  EXPECT_EQ(web.fate, DisplacedPod::Fate::kRecreated);
  // A ReplicaSet's replacement: its generateName, a new suffix.
  EXPECT_TRUE(web.recreated.starts_with("default/web-5d8f-")) << web.recreated;
  EXPECT_EQ(web.recreated.size(), std::string("default/web-5d8f-").size() + 5);
  // A StatefulSet's: the same name.
  EXPECT_EQ(applied->displaced[1].recreated, "default/db-0");
  // The bare pod is deleted (--force); nothing replaces it.
  EXPECT_EQ(applied->displaced[2].recreated, "");
  EXPECT_EQ(applied->displaced[2].fate, DisplacedPod::Fate::kDeleted);
  // The DaemonSet's pod stays on its node, as kubectl drain
  // --ignore-daemonsets leaves it.
  EXPECT_EQ(applied->displaced[3].pod, "default/agent-xyz12");
  EXPECT_EQ(applied->displaced[3].fate, DisplacedPod::Fate::kStaysDaemon);
  ASSERT_EQ(c.pods.size(), 3u);
  EXPECT_EQ(c.pods[2].metadata.name, "agent-xyz12");
  EXPECT_EQ(c.pods[2].spec.node_name, "n1");

  SimulationResult r = Run(c, *applied);
  ASSERT_EQ(r.displaced.size(), 4u);
  EXPECT_TRUE(r.displaced[0].new_node.has_value()) << r.displaced[0].message;
  EXPECT_TRUE(r.displaced[1].new_node.has_value()) << r.displaced[1].message;
  EXPECT_NE(r.displaced[0].new_node, std::optional<std::string>("n1"));
}

// kubectl drain refuses a node with bare pods unless --force.
TEST_F(ChangesTest, ADrainWithBarePodsNeedsForce) {
  Cluster c = Parse();
  const Cluster before = c;
  auto applied = ApplyChanges(c, {.drain = {"n1"}}, 1);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.error().message(),
            "--drain n1: cannot delete Pods that declare no controller (use "
            "--force to override): default/bare");
  // A refused drain evicts nothing.
  EXPECT_EQ(c.pods, before.pods);
}

// A mirror pod (a static pod's copy in the API) stays, as drain skips it;
// a removed node takes its DaemonSet pod with it.
TEST_F(ChangesTest, MirrorPodsStayAndRemovedNodesTakeDaemonPods) {
  Cluster c = Parse(R"(
---
apiVersion: v1
kind: Pod
metadata:
  name: etcd-n2
  annotations: {kubernetes.io/config.mirror: abc}
spec: {nodeName: n2, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: agent-n2
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: u, controller: true}]
spec: {nodeName: n3, containers: [{name: c}]}
)");
  auto applied = ApplyChanges(c, {.drain = {"n2"}, .remove_nodes = {"n3"}}, 1);
  ASSERT_TRUE(applied.ok()) << applied.error().message();
  ASSERT_EQ(applied->displaced.size(), 2u);
  EXPECT_EQ(applied->displaced[0].pod, "default/etcd-n2");
  EXPECT_EQ(applied->displaced[0].fate, DisplacedPod::Fate::kStaysMirror);
  EXPECT_EQ(applied->displaced[1].pod, "default/agent-n2");
  EXPECT_EQ(applied->displaced[1].fate, DisplacedPod::Fate::kGoneWithNode);
}

TEST_F(ChangesTest, ADrainWhosePodsDoNotFitSaysWhy) {
  Cluster c = Parse();
  // Without n1 and n2 only n3's 1 CPU is left for 1.5 CPU of pods.
  auto applied = ApplyChanges(
      c, {.drain = {"n1"}, .remove_nodes = {"n2"}, .force = true}, 1);
  ASSERT_TRUE(applied.ok()) << applied.error().message();
  EXPECT_EQ(c.nodes.size(), 2u);
  SimulationResult r = Run(c, *applied);
  int placed = 0, stuck = 0;
  for (const DisplacedOutcome& d : r.displaced) {
    if (d.recreated.empty()) continue;
    if (d.new_node) {
      ++placed;
      EXPECT_EQ(*d.new_node, "n3");
    } else {
      ++stuck;
      EXPECT_TRUE(d.message.starts_with("0/2 nodes are available: "))
          << d.message;
    }
  }
  EXPECT_EQ(placed, 1);
  EXPECT_EQ(stuck, 1);
}

TEST_F(ChangesTest, AddedNodesAreTemplateCopiesWithTheirOwnNames) {
  Cluster c = Parse();
  api::Node t = c.nodes[2];
  t.metadata.name = "n";
  t.metadata.labels.Set("kubernetes.io/hostname", "n");
  // n-1 exists already: the copies skip it.
  api::Node taken = t;
  taken.metadata.name = "n-1";
  c.nodes.push_back(taken);
  auto applied = ApplyChanges(c, {.add_nodes = 2, .node_template = t}, 1);
  ASSERT_TRUE(applied.ok()) << applied.error().message();
  EXPECT_EQ(applied->added_nodes, (std::vector<std::string>{"n-2", "n-3"}));
  EXPECT_EQ(*c.nodes.back().metadata.labels.Find("kubernetes.io/hostname"),
            "n-3");
}

TEST_F(ChangesTest, MistakesAreClearErrors) {
  Cluster c = Parse();
  auto r = ApplyChanges(c, {.drain = {"nope"}}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "--drain nope: no such node in the cluster");
  r = ApplyChanges(c, {.add_nodes = 1}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "--add-nodes needs --node-template FILE");
  r = ApplyChanges(c, {.cordon = {"n2"}}, 1);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(c.nodes[1].spec.unschedulable);
  EXPECT_TRUE(r->displaced.empty());  // cordoning moves nothing
}

}  // namespace
}  // namespace ksched::simulator
