// Drives the built ksched binary the way a user does.
#include <gtest/gtest.h>

#include <fstream>

#include "pkg/util/json.h"
#include "test/cli/run_command.h"

namespace ksched {
namespace {

using testing::RunCommand;

const std::string kKsched = KSCHED_BINARY;
const std::string kExample =
    std::string(KSCHED_SOURCE_DIR) + "/examples/cluster.yaml";

std::string WriteTemp(const std::string& name, const std::string& content) {
  return testing::WriteTempFile(name, content);
}

TEST(SimulateCliTest, TableOnTheExample) {
  auto r = RunCommand(kKsched + " simulate --cluster " + kExample);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("NAMESPACE/POD"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ml/finetune-0"), std::string::npos);
  EXPECT_NE(r.out.find("gpu-b-1"), std::string::npos);
  EXPECT_NE(r.out.find("0/7 nodes are available: 1 node(s) were unschedulable"),
            std::string::npos);
  EXPECT_NE(r.out.find("NODES"), std::string::npos);
}

TEST(SimulateCliTest, JsonOnTheExampleHasTheStableFields) {
  auto r = RunCommand(kKsched + " simulate --quiet --output json --cluster " +
                      kExample);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // --quiet: no start-up notes
  rapidjson::Document doc;
  doc.Parse(r.out.c_str());
  ASSERT_FALSE(doc.HasParseError()) << r.out;
  ASSERT_TRUE(doc["pods"].IsArray());
  ASSERT_TRUE(doc["nodes"].IsArray());
  EXPECT_EQ(doc["nodes"].Size(), 7u);
  bool saw_unschedulable = false, saw_scheduled = false;
  for (const auto& pod : doc["pods"].GetArray()) {
    ASSERT_TRUE(pod["namespace"].IsString());
    ASSERT_TRUE(pod["name"].IsString());
    ASSERT_TRUE(pod["message"].IsString());
    if (pod["node"].IsNull()) {
      saw_unschedulable = true;
      EXPECT_GT(pod["message"].GetStringLength(), 0u);
    } else {
      saw_scheduled = true;
      EXPECT_TRUE(pod["node"].IsString());
    }
  }
  EXPECT_TRUE(saw_unschedulable && saw_scheduled);
  for (const auto& node : doc["nodes"].GetArray()) {
    EXPECT_TRUE(node["name"].IsString());
    EXPECT_TRUE(node["requested"].IsObject());
    EXPECT_TRUE(node["allocatable"].IsObject());
    EXPECT_TRUE(node["pods"].IsInt());
  }
}

TEST(SimulateCliTest, StartupNotesNameUnimplementedPlugins) {
  // kube-scheduler's default profile is implemented in full.
  auto r = RunCommand(kKsched + " simulate --cluster " + kExample);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err.find("not implemented"), std::string::npos) << r.err;
  // An alpha plugin of v1.35 ksched does not implement is accepted, and
  // said to do nothing.
  const std::string config =
      WriteTemp("gang-config.yaml",
                "apiVersion: kubescheduler.config.k8s.io/v1\n"
                "kind: KubeSchedulerConfiguration\n"
                "profiles:\n"
                "- schedulerName: ksched\n"
                "  plugins:\n"
                "    multiPoint:\n"
                "      enabled:\n"
                "      - name: GangScheduling\n");
  r = RunCommand(kKsched + " simulate --cluster " + kExample + " --config " +
                 config);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("plugins accepted but not implemented yet (they have "
                       "no effect): GangScheduling"),
            std::string::npos)
      << r.err;
}

TEST(SimulateCliTest, BadInvocationsExplainThemselves) {
  struct Case {
    std::string args;
    int exit_code;
    std::string err;
  } cases[] = {
      {"simulate", 2,
       "give the cluster as --cluster FILE or --kubeconfig FILE"},
      {"simulate --cluster", 2, "flag needs an argument: --cluster"},
      {"simulate --cluster x --output xml", 2,
       "--output must be table, json, yaml or html, not xml"},
      {"simulate --bogus", 2, "unknown flag: --bogus"},
      {"simulate --cluster /nonexistent.yaml", 1,
       "cannot open cluster file /nonexistent.yaml: No such file or "
       "directory"},
      {"simulate --cluster /tmp", 1,
       "cannot read cluster file /tmp: Is a directory"},
      {"frobnicate", 2, "unknown command \"frobnicate\""},
  };
  for (const Case& c : cases) {
    auto r = RunCommand(kKsched + " " + c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.err), std::string::npos) << c.args << "\n" << r.err;
  }
}

TEST(SimulateCliTest, MalformedClusterAndConfigFilesAreClearErrors) {
  std::string bad_yaml =
      WriteTemp("bad.yaml", "kind: Pod\nmetadata: {name: [\n");
  auto r = RunCommand(kKsched + " simulate --cluster " + bad_yaml);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("malformed YAML: line"), std::string::npos) << r.err;

  std::string unknown_plugin = WriteTemp("unknown-plugin.yaml", R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: ksched
  plugins:
    filter:
      enabled: [{name: NodeFrobnicator}]
)");
  r = RunCommand(kKsched + " simulate --cluster " + kExample + " --config " +
                 unknown_plugin);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown plugin \"NodeFrobnicator\""), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("NodeResourcesFit"), std::string::npos) << r.err;
}

TEST(SimulateCliTest, ConfigProfilesAndWeightsTakeEffect) {
  // MostAllocated packs: the pod goes to the fuller node.
  std::string cluster = WriteTemp("pack.yaml", R"(
kind: Node
metadata: {name: empty}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
kind: Node
metadata: {name: busy}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
kind: Pod
metadata: {name: running}
spec: {nodeName: busy, containers: [{name: c, resources: {requests: {cpu: "2", memory: 4Gi}}}]}
---
kind: Pod
metadata: {name: new}
spec: {schedulerName: packer, containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
)");
  std::string config = WriteTemp("packer.yaml", R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: packer
  plugins:
    score:
      disabled: [{name: NodeResourcesBalancedAllocation}, {name: ImageLocality}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
)");
  auto r = RunCommand(kKsched + " simulate --quiet --output json --cluster " +
                      cluster + " --config " + config);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("name":"new","node":"busy")"), std::string::npos)
      << r.out;
}

// A file that gives the simulation nothing to do still exits 0, and says
// why the table is empty on stderr.
TEST(SimulateCliTest, AnEmptyClusterSaysWhatIsMissing) {
  const std::string services = WriteTemp("services.yaml", R"(
kind: ConfigMap
metadata: {name: web}
---
kind: Service
metadata: {name: web}
---
kind: ConfigMap
metadata: {name: api}
)");
  auto r = RunCommand(kKsched + " simulate --quiet --cluster " + services);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no nodes in " + services + "\n"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("no pending pods for profiles [ksched]\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ignored 3 objects of kinds ConfigMap, Service\n"),
            std::string::npos)
      << r.err;

  // Nodes but no pod of ours: only that is said.
  const std::string nodes_only = WriteTemp("nodes-only.yaml", R"(
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
---
kind: Pod
metadata: {name: theirs}
spec: {containers: [{name: c}]}
)");
  r = RunCommand(kKsched + " simulate --quiet --cluster " + nodes_only);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "no pending pods for profiles [ksched]\n");

  // The example: nothing to say.
  r = RunCommand(kKsched + " simulate --quiet --cluster " + kExample);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
}

// A node and a GPU class; `more` adds the documents under test.
std::string DraCluster(const std::string& more,
                       const std::string& class_selector =
                           "device.driver == \"gpu.example.com\"") {
  return R"(kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec: {selectors: [{cel: {expression: ')" +
         class_selector + R"('}}]}
---
)" + more;
}

// What kube-apiserver refuses on create, a cluster file cannot hold either:
// exit 1 with the API server's message, never an internal error (70).
TEST(SimulateCliTest, DraObjectsTheApiServerRefusesAreRefused) {
  const std::string pod = R"(---
kind: Pod
metadata: {name: trainer}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: two-gpus}]
  containers: [{name: c, resources: {claims: [{name: gpu}]}}]
)";
  // A negative count used to reach vector::reserve in the allocator.
  std::string negative = WriteTemp("negative-count.yaml", DraCluster(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: two-gpus}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com, count: -2}
)" + pod));
  auto r = RunCommand(kKsched + " simulate --quiet --cluster " + negative);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.err.starts_with("Error: ")) << r.err;
  EXPECT_NE(r.err.find(": ResourceClaim.resource.k8s.io \"two-gpus\" is "
                       "invalid: spec.devices.requests[0].exactly.count: "
                       "Invalid value: -2: must be greater than zero\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;

  // The same in a subrequest, in a typed list whose items have no kind.
  std::string subrequest = WriteTemp("negative-subrequest.yaml", DraCluster(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaimList
items:
- metadata: {name: two-gpus}
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable: [{name: big, deviceClassName: gpu.example.com, count: -1}]
)" + pod));
  r = RunCommand(kKsched + " simulate --quiet --cluster " + subrequest);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("items[0]: ResourceClaim.resource.k8s.io \"two-gpus\" "
                       "is invalid: spec.devices.requests[0].firstAvailable[0]"
                       ".count: Invalid value: -1: must be greater than "
                       "zero\n"),
            std::string::npos)
      << r.err;
}

TEST(SimulateCliTest, DeviceClassWithACelSyntaxErrorIsRefused) {
  // Used to be reported only when a pod was scheduled, with exit 0.
  std::string cluster =
      WriteTemp("cel-syntax.yaml", DraCluster(R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one-gpu}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
)",
                                              "device.driver =="));
  auto r = RunCommand(kKsched + " simulate --quiet --cluster " + cluster);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(": DeviceClass.resource.k8s.io \"gpu.example.com\" is "
                       "invalid: spec.selectors[0].cel.expression: Invalid "
                       "value: \"device.driver ==\": compilation failed: "
                       "ERROR: <input>:1:"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Syntax error"), std::string::npos) << r.err;
}

TEST(SimulateCliTest, ContainerClaimNamingNoPodClaimIsRefused) {
  std::string cluster = WriteTemp("container-claim.yaml", DraCluster(R"(
kind: Pod
metadata: {name: trainer}
spec:
  containers: [{name: c, resources: {claims: [{name: gpu}]}}]
)"));
  auto r = RunCommand(kKsched + " simulate --quiet --cluster " + cluster);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(": Pod \"trainer\" is invalid: "
                       "spec.containers[0].resources.claims[0]: Not found: "
                       "\"gpu\": must be one of the names in "
                       "pod.spec.resourceClaims which is empty\n"),
            std::string::npos)
      << r.err;
}

TEST(VersionCliTest, PrintsTheVersion) {
  for (const char* how : {" version", " --version"}) {
    auto r = RunCommand(kKsched + how);
    EXPECT_EQ(r.exit_code, 0) << how;
    EXPECT_EQ(r.out, std::string("ksched ") + KSCHED_VERSION + "\n") << how;
  }
}

}  // namespace
}  // namespace ksched
