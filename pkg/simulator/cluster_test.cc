#include "pkg/simulator/cluster.h"

#include <gtest/gtest.h>

namespace ksched::simulator {
namespace {

TEST(ClusterTest, ReadsDocumentsListsAndTypedLists) {
  auto c = ParseCluster(R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n2}}
- {apiVersion: v1, kind: Pod, metadata: {name: a, namespace: x}, spec: {nodeName: n2}}
---
apiVersion: v1
kind: PodList
items:
- {metadata: {name: b}, spec: {schedulerName: ksched}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ignored}
---
apiVersion: v1
kind: Namespace
metadata: {name: x, labels: {team: a}}
)");
  ASSERT_TRUE(c.ok()) << c.error().message();
  ASSERT_EQ(c->nodes.size(), 2u);
  EXPECT_EQ(c->nodes[1].metadata.name, "n2");
  ASSERT_EQ(c->pods.size(), 2u);
  EXPECT_EQ(c->pods[0].metadata.ns, "x");
  EXPECT_EQ(c->pods[0].spec.node_name, "n2");
  // What admission would have filled in.
  EXPECT_EQ(c->pods[1].metadata.ns, "default");
  EXPECT_EQ(c->pods[1].metadata.uid, "pod-default-b");
  EXPECT_EQ(c->pods[0].spec.scheduler_name, "default-scheduler");
  EXPECT_EQ(c->pods[1].spec.scheduler_name, "ksched");
  EXPECT_EQ(c->pods[1].spec.priority, 0);
  EXPECT_EQ(c->ignored, std::vector<std::string>{"1 ConfigMap"});
  ASSERT_EQ(c->namespaces.size(), 1u);
  EXPECT_EQ(*c->namespaces[0].metadata.labels.Find("team"), "a");
}

TEST(ClusterTest, ResolvesPriorityClassesAsAdmissionDoes) {
  auto c = ParseCluster(R"(
{kind: PriorityClass, apiVersion: scheduling.k8s.io/v1, metadata: {name: high}, value: 1000, preemptionPolicy: Never}
---
{kind: PriorityClass, apiVersion: scheduling.k8s.io/v1, metadata: {name: base}, value: 10, globalDefault: true}
---
{kind: Pod, apiVersion: v1, metadata: {name: a}, spec: {priorityClassName: high}}
---
{kind: Pod, apiVersion: v1, metadata: {name: b}, spec: {}}
---
{kind: Pod, apiVersion: v1, metadata: {name: c}, spec: {priorityClassName: system-node-critical}}
---
{kind: Pod, apiVersion: v1, metadata: {name: d}, spec: {priority: 7, priorityClassName: high}}
)");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->pods[0].spec.priority, 1000);
  EXPECT_EQ(c->pods[0].spec.preemption_policy, api::PreemptionPolicy::kNever);
  EXPECT_EQ(c->pods[1].spec.priority, 10);
  EXPECT_EQ(c->pods[2].spec.priority, 2000001000);
  EXPECT_EQ(c->pods[3].spec.priority, 7);
}

TEST(ClusterTest, ErrorsNameTheDocumentAndField) {
  struct Case {
    const char* yaml;
    const char* error;
  } cases[] = {
      {"kind: Pod\nmetadata: {name: a}\nspec: {containers: [{resources: "
       "{requests: {cpu: lots}}}]}\n",
       "document 1: spec.containers[0].resources.requests.cpu: invalid "
       "quantity \"lots\""},
      {"kind: Pod\nmetadata: {name: a}\n---\nkind: Pod\nmetadata: {name: a}\n",
       "document 2: pod default/a is defined twice"},
      {"kind: Node\nmetadata: {}\n",
       "document 1: metadata.name: Required value"},
      {"metadata: {name: a}\n", "document 1: object has no kind"},
      {"kind: List\nitems: [{kind: Node, metadata: {name: 5}, spec: {taints: "
       "3}}]\n",
       "document 1: items[0]: spec.taints: expected array, got number"},
      {"kind: Pod\nmetadata: {name: a}\nspec: {priorityClassName: gold}\n",
       "pod default/a: no PriorityClass with name gold was found"},
      {"kind: Pod\nmetadata: {name: a\n", "malformed YAML: line "},
      {"- just\n- a list\n", "document 1: expected an object"},
  };
  for (const Case& c : cases) {
    auto cluster = ParseCluster(c.yaml);
    ASSERT_FALSE(cluster.ok()) << c.yaml;
    EXPECT_NE(cluster.error().message().find(c.error), std::string::npos)
        << "want: " << c.error << "\n got: " << cluster.error().message();
  }
}

TEST(ClusterTest, MissingFileIsAClearError) {
  auto c = LoadClusterFile("/nonexistent/cluster.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message(),
            "cannot open cluster file /nonexistent/cluster.yaml");
}

}  // namespace
}  // namespace ksched::simulator
