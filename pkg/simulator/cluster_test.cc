#include "pkg/simulator/cluster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "pkg/api/yaml.h"
#include "pkg/simulator/snapshot.h"

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
- {apiVersion: v1, kind: Pod, metadata: {name: a, namespace: x}, spec: {nodeName: n2, containers: [{name: c}]}}
---
apiVersion: v1
kind: PodList
items:
- {metadata: {name: b}, spec: {schedulerName: ksched, containers: [{name: c}]}}
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
  EXPECT_EQ(c->ignored_kinds, (std::map<std::string, int>{{"ConfigMap", 1}}));
  ASSERT_EQ(c->namespaces.size(), 1u);
  EXPECT_EQ(*c->namespaces[0].metadata.labels.Find("team"), "a");
}

// For the progress line: how far the reader is, as it reads, whether the
// file is a JSON List or YAML.
TEST(ClusterTest, ReportsTheBytesReadAsItemsAre) {
  std::string yaml = "apiVersion: v1\nkind: List\nitems:\n";
  std::string json = R"({"apiVersion": "v1", "kind": "List", "items": [)";
  for (int i = 0; i < 50; ++i) {
    const std::string name = "n" + std::to_string(i);
    yaml += "- {apiVersion: v1, kind: Node, metadata: {name: " + name + "}}\n";
    json += std::string(i > 0 ? "," : "") +
            R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": ")" +
            name + R"("}})";
  }
  json += "]}";
  for (const std::string& text : {yaml, json}) {
    std::vector<uint64_t> read;
    auto c = ParseCluster(text, [&](uint64_t bytes, uint64_t total) {
      EXPECT_EQ(total, text.size());
      read.push_back(bytes);
    });
    ASSERT_TRUE(c.ok()) << c.error().message();
    EXPECT_EQ(c->nodes.size(), 50u);
    ASSERT_GE(read.size(), 50u) << text;
    EXPECT_TRUE(std::is_sorted(read.begin(), read.end())) << text;
    EXPECT_LT(read.front(), text.size() / 10) << text;
    EXPECT_GE(read.back(), text.size() - 5) << text;
    EXPECT_LE(read.back(), text.size()) << text;
  }
}

TEST(ClusterTest, ResolvesPriorityClassesAsAdmissionDoes) {
  auto c = ParseCluster(R"(
{kind: PriorityClass, apiVersion: scheduling.k8s.io/v1, metadata: {name: high}, value: 1000, preemptionPolicy: Never}
---
{kind: PriorityClass, apiVersion: scheduling.k8s.io/v1, metadata: {name: base}, value: 10, globalDefault: true}
---
{kind: Pod, apiVersion: v1, metadata: {name: a}, spec: {priorityClassName: high, containers: [{name: c}]}}
---
{kind: Pod, apiVersion: v1, metadata: {name: b}, spec: {containers: [{name: c}]}}
---
{kind: Pod, apiVersion: v1, metadata: {name: c}, spec: {priorityClassName: system-node-critical, containers: [{name: c}]}}
---
{kind: Pod, apiVersion: v1, metadata: {name: d}, spec: {priority: 7, priorityClassName: high, containers: [{name: c}]}}
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
      {"kind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c}]}\n---\n"
       "kind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c}]}\n",
       "document 2: pod default/a is defined twice"},
      {"kind: Node\nmetadata: {}\n",
       "document 1: Node \"\" is invalid: metadata.name: Required value: name "
       "or generateName is required"},
      {"kind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, "
       "resources: {requests: {cpu: \"-1\"}}}]}\n",
       "document 1: Pod \"a\" is invalid: "
       "spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": "
       "must be greater than or equal to 0"},
      {"metadata: {name: a}\n", "document 1: object has no kind"},
      {"kind: List\nitems: [{kind: Node, metadata: {name: 5}, spec: {taints: "
       "3}}]\n",
       "document 1: items[0]: spec.taints: expected array, got number"},
      {"kind: Pod\nmetadata: {name: a}\nspec: {priorityClassName: gold, "
       "containers: [{name: c}]}\n",
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

TEST(ClusterTest, FileErrorsNameTheSystemsReason) {
  auto missing = LoadClusterFile("/nonexistent/cluster.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(),
            "cannot open cluster file /nonexistent/cluster.yaml: No such file "
            "or directory");
  auto directory = LoadClusterFile(::testing::TempDir());
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(
      directory.error().message(),
      "cannot read cluster file " + ::testing::TempDir() + ": Is a directory");
}

// What `curl .../api/v1/nodes` and `.../pods` print: typed lists whose items
// carry no kind, in JSON; the item kind comes from the list's.
TEST(ClusterTest, TypedListItemsTakeTheListsKind) {
  auto c = ParseCluster(
      R"({"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"7"},)"
      R"("items":[{"metadata":{"name":"n1"}},{"metadata":{"name":"n2"}}]})"
      "\n"
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},)"
      R"("items":[{"metadata":{"name":"p","namespace":"a"},)"
      R"("spec":{"containers":[{"name":"c"}]}}]})"
      "\n"
      R"({"kind":"PersistentVolumeClaimList","apiVersion":"v1",)"
      R"("items":[{"metadata":{"name":"data","namespace":"a"}}]})");
  ASSERT_TRUE(c.ok()) << c.error().message();
  ASSERT_EQ(c->nodes.size(), 2u);
  EXPECT_EQ(c->nodes[1].metadata.name, "n2");
  ASSERT_EQ(c->pods.size(), 1u);
  EXPECT_EQ(c->pods[0].metadata.ns, "a");
  ASSERT_EQ(c->persistent_volume_claims.size(), 1u);
  EXPECT_TRUE(c->ignored_kinds.empty());
}

// A plain List names no kind for its items: each must carry its own, and
// the error says so.
TEST(ClusterTest, PlainListItemsNeedTheirOwnKind) {
  auto c = ParseCluster("kind: List\nitems:\n- metadata: {name: n1}\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message().find(
                "document 1: items[0]: object has no kind (items of a kind: "
                "List carry their own kind"),
            std::string::npos)
      << c.error().message();
}

// resource.k8s.io objects are checked as the API server checks them, by
// the JSON reader too and in typed lists; an ExactCount request without a
// count asks for one device, as the API server's defaults make it.
TEST(ClusterTest, DraObjectsAreValidatedAndDefaulted) {
  auto bad = ParseCluster(
      R"({"kind":"ResourceClaimList","apiVersion":"resource.k8s.io/v1",)"
      R"("items":[{"metadata":{"name":"c"},"spec":{"devices":{"requests":)"
      R"([{"name":"gpu","exactly":{"deviceClassName":"gpu","count":-2}}]}}}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find(
                "items[0]: ResourceClaim.resource.k8s.io \"c\" is invalid: "
                "spec.devices.requests[0].exactly.count: Invalid value: -2: "
                "must be greater than zero"),
            std::string::npos)
      << bad.error().message();

  auto c = ParseCluster(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: t}
spec:
  spec:
    devices:
      requests:
      - {name: a, exactly: {deviceClassName: gpu, allocationMode: ExactCount, count: 0}}
      - {name: b, firstAvailable: [{name: s, deviceClassName: gpu, allocationMode: ExactCount}]}
      - {name: c, exactly: {deviceClassName: gpu}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: a, exactly: {deviceClassName: gpu, allocationMode: ExactCount}}]}}
)");
  ASSERT_TRUE(c.ok()) << c.error().message();
  ASSERT_EQ(c->resource_claim_templates.size(), 1u);
  const auto& requests =
      c->resource_claim_templates[0].spec.spec.devices.requests;
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].exactly->count, 1);
  EXPECT_EQ(requests[1].first_available[0].count, 1);
  // An unset mode stays unset; the allocator reads it as ExactCount of 1.
  EXPECT_EQ(requests[2].exactly->count, 0);
  ASSERT_EQ(c->resource_claims.size(), 1u);
  EXPECT_EQ(c->resource_claims[0].spec.devices.requests[0].exactly->count, 1);
}

// The bundled example (anchors and merge keys: the node-tree path) read
// back from its snapshot as JSON (split item by item) and as YAML
// (libyaml's events) is the same cluster.
TEST(ClusterTest, EveryReaderGivesTheSameCluster) {
  auto example = LoadClusterFile(std::string(KSCHED_SOURCE_DIR) +
                                 "/examples/cluster.yaml");
  ASSERT_TRUE(example.ok()) << example.error().message();
  const std::string json = SnapshotJson(*example);
  auto from_json = ParseCluster(json);
  ASSERT_TRUE(from_json.ok()) << from_json.error().message();
  EXPECT_EQ(SnapshotJson(*from_json), json);
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  const std::string yaml = api::JsonToYaml(doc);
  auto from_yaml = ParseCluster(yaml);
  ASSERT_TRUE(from_yaml.ok()) << from_yaml.error().message();
  EXPECT_EQ(SnapshotJson(*from_yaml), json);
  EXPECT_EQ(from_yaml->pods.size(), example->pods.size());
}

// 45,000 items: nodes, pods bound to them and pending, a Deployment and a
// PriorityClass (named by pods before it) in the later part, and a kind
// the simulator ignores in both parts.
std::vector<std::string> ManyItems() {
  std::vector<std::string> items;
  for (int i = 0; i < 45000; ++i) {
    const std::string n = std::to_string(i);
    if (i == 100 || i == 30000) {
      items.push_back(R"({"apiVersion":"apps/v1","kind":"Deployment",)"
                      R"("metadata":{"name":"d)" +
                      n +
                      R"("},"spec":{"replicas":2,"selector":{"matchLabels":)"
                      R"({"app":"a"}},"template":{"metadata":{"labels":)"
                      R"({"app":"a"}},"spec":{"containers":[{"name":"c",)"
                      R"("image":"i"}]}}}})");
    } else if (i == 5 || i == 40000) {
      items.push_back(R"({"apiVersion":"v1","kind":"ConfigMap",)"
                      R"("metadata":{"name":"cm)" +
                      n + R"("}})");
    } else if (i == 41000) {
      items.push_back(R"({"apiVersion":"scheduling.k8s.io/v1",)"
                      R"("kind":"PriorityClass","metadata":{"name":"high"},)"
                      R"("value":1000})");
    } else if (i % 3 == 0) {
      items.push_back(R"({"apiVersion":"v1","kind":"Node","metadata":)"
                      R"({"name":"n)" +
                      n +
                      R"("},"status":{"allocatable":{"cpu":"4",)"
                      R"("memory":"8Gi","pods":"110"}}})");
    } else {
      items.push_back(
          R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p)" + n +
          R"("},"spec":{)" +
          (i % 3 == 1 ? R"("nodeName":"n)" + std::to_string(i - 1) + R"(",)"
                      : std::string(R"("priorityClassName":"high",)")) +
          R"("containers":[{"name":"c","image":"i","resources":)"
          R"({"requests":{"cpu":"100m"}}}]}})");
    }
  }
  return items;
}

std::string AsList(const std::vector<std::string>& items) {
  std::string out = R"({"apiVersion":"v1","kind":"List","items":[)";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ",\n";
    out += items[i];
  }
  return out + "]}";
}

// A list long enough to be read in runs on several threads gives the
// cluster, and the errors, that one pass gives.
TEST(ClusterTest, LongListsReadInRunsAsInOnePass) {
  const std::vector<std::string> items = ManyItems();
  // Two runs, however many cores this machine has.
  const int two_threads = 2;
  auto in_runs = ParseCluster(AsList(items), {}, two_threads);
  ASSERT_TRUE(in_runs.ok()) << in_runs.error().message();
  const int one_thread = 1;
  auto one_pass = ParseCluster(AsList(items), {}, one_thread);
  ASSERT_TRUE(one_pass.ok()) << one_pass.error().message();
  EXPECT_EQ(in_runs->nodes.size(), 14999u);
  EXPECT_EQ(in_runs->pods.size(), 29996u);
  EXPECT_EQ(SnapshotJson(*in_runs), SnapshotJson(*one_pass));
  EXPECT_EQ(in_runs->pods, one_pass->pods);
  EXPECT_EQ(in_runs->workload_order, one_pass->workload_order);
  EXPECT_EQ(in_runs->ignored_kinds, one_pass->ignored_kinds);
  EXPECT_EQ(in_runs->ignored_kinds.at("ConfigMap"), 2);
  // The PriorityClass comes after pods that name it: resolved all the same.
  EXPECT_EQ(in_runs->pods[1].spec.priority, 1000);

  // A node named again far from where it was first.
  std::vector<std::string> twice = items;
  twice[30001] = twice[3];
  auto dup = ParseCluster(AsList(twice), {}, two_threads);
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().message(),
            "document 1: items[30001]: node n3 is defined twice");

  // Bad items in two places: the first is the one reported.
  std::vector<std::string> bad = items;
  const std::string negative = R"("cpu":"-1")";
  for (size_t at : {size_t{25000}, size_t{44000}}) {
    const size_t cpu = bad[at].find(R"("cpu":"100m")");
    ASSERT_NE(cpu, std::string::npos) << at;
    bad[at].replace(cpu, 12, negative);
  }
  auto invalid = ParseCluster(AsList(bad), {}, two_threads);
  ASSERT_FALSE(invalid.ok());
  EXPECT_NE(invalid.error().message().find("document 1: items[25000]"),
            std::string::npos)
      << invalid.error().message();
  bad[25000] = items[25000];
  auto later = ParseCluster(AsList(bad), {}, two_threads);
  ASSERT_FALSE(later.ok());
  EXPECT_NE(later.error().message().find("document 1: items[44000]"),
            std::string::npos)
      << later.error().message();
}

}  // namespace
}  // namespace ksched::simulator
