// Golden tests of `ksched simulate` with Dynamic Resource Allocation on
// examples/dra-cluster.yaml: which devices each pod gets, the pods no
// device fits, how many more 2-GPU pods fit, and the plans (drain, added
// nodes) with claims. After a deliberate change, regenerate with
// KSCHED_UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "pkg/util/json.h"
#include "test/cli/run_command.h"

namespace ksched::dra_golden {

using testing::ExpectGolden;
using testing::RunCommand;

const std::string kKsched = KSCHED_BINARY;
const std::string kSource = KSCHED_SOURCE_DIR;
const std::string kSimulate = kKsched + " simulate --quiet --cluster " +
                              kSource + "/examples/dra-cluster.yaml ";

TEST(DraGoldenTest, TableOnTheExample) {
  auto r = RunCommand(kSimulate);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  ExpectGolden("dra_example.txt", r.out);
}

// --explain says per node which request lacked devices.
TEST(DraGoldenTest, ExplainNamesTheRequestWithoutDevices) {
  auto r = RunCommand(kSimulate + "--explain");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("    DynamicResources on node-1: claim ml/huge-gpu, "
                       "request gpu: no device matches class gpu.example.com "
                       "and the request's selectors (8 devices on the "
                       "node)\n"),
            std::string::npos)
      << r.out;
  auto json = RunCommand(kSimulate + "--explain -o json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find(
                "\"details\":{\"node-1\":\"claim ml/huge-gpu, request gpu: no "
                "device matches class gpu.example.com and the request's "
                "selectors (8 devices on the node)\""),
            std::string::npos)
      << json.out.substr(0, 4000);
}

// The devices v1.36 turns on (examples/devices): partitions, shares and
// tolerated taints in DEVICES, then what counter sets, shared devices and
// tainted devices have left.
TEST(DraGoldenTest, TableOnTheDevicesExample) {
  auto r = RunCommand(kKsched + " simulate --quiet --cluster " + kSource +
                      "/examples/devices/cluster.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  ExpectGolden("devices_example.txt", r.out);
}

// --explain says per request why a node's devices did not serve it: the
// counter set a partition draws on is spent, a taint is not tolerated, a
// shared NIC's bandwidth is spent.
TEST(DraGoldenTest, ExplainNamesCountersTaintsAndCapacity) {
  auto r = RunCommand(kKsched + " simulate --quiet --cluster " + kSource +
                      "/examples/devices/cluster.yaml --explain");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line :
       {"    DynamicResources on node-1: claim partition/claim-1g-gpu0, "
        "request gpu: 0 of 3 matching devices free, 1 needed; counter set "
        "gpu-0-counters: 80Gi of 80Gi memory in use, 10Gi needed\n",
        "    DynamicResources on node-2: claim taints/claim-notol-b, request "
        "accel: 0 of 2 matching devices free, 1 needed; accel-0: taint "
        "example.com/unhealthy=ecc:NoSchedule not tolerated\n",
        "    DynamicResources on node-3: claim capacity/claim-bw-60gi, "
        "request nic: 0 of 1 matching devices free, 1 needed; nic-0: "
        "bandwidth 55Gi of 100Gi consumed, 60Gi requested\n"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
}

TEST(DraGoldenTest, JsonOnTheExample) {
  auto r = RunCommand(kSimulate + "-o json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectGolden("dra_example.json", r.out);
  rapidjson::Document doc;
  doc.Parse(r.out.c_str());
  ASSERT_FALSE(doc.HasParseError());
  // The two notebooks share one claim, so one device.
  std::string shared[2];
  int notebooks = 0;
  for (const auto& pod : doc["pods"].GetArray()) {
    const std::string name = pod["name"].GetString();
    if (name.rfind("notebook-", 0) != 0) continue;
    ASSERT_TRUE(pod.HasMember("claims")) << name;
    const auto& device = pod["claims"][0]["devices"][0];
    shared[notebooks++] = std::string(device["pool"].GetString()) + "/" +
                          device["device"].GetString();
  }
  ASSERT_EQ(notebooks, 2);
  EXPECT_EQ(shared[0], shared[1]);
}

TEST(DraGoldenTest, HowManyMoreTwoGpuPodsFit) {
  auto r = RunCommand(kSimulate + "--capacity " + kSource +
                      "/examples/dra-train-pod.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectGolden("dra_capacity.txt", r.out);
}

TEST(DraGoldenTest, ADrainedNodesClaimsAreLetGo) {
  // inference-0 is a bare pod: --force deletes it, and the claim made for
  // it goes with it, so node-1's GPUs are free (but the node is cordoned).
  auto r = RunCommand(kSimulate + "--drain node-1 --force");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectGolden("dra_drain.txt", r.out);
}

TEST(DraGoldenTest, AddedNodesHaveTheTemplateNodesDevices) {
  // The template is node-2 as `kubectl get node -o yaml` gives it: its copy
  // publishes node-2's eight 40 GiB GPUs in a pool of its own, and makes
  // room for four more 2-GPU training pods than the cluster alone has.
  const std::string node = testing::WriteTempFile(
      "dra-node-template.yaml",
      "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-2\n  labels: "
      "{gpu-model: GPU-40G}\nstatus:\n  allocatable: {cpu: \"32\", memory: "
      "128Gi, pods: \"110\"}\n");
  auto r =
      RunCommand(kSimulate + "--add-nodes 1 --node-template " + node +
                 " --capacity " + kSource + "/examples/dra-train-pod.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("6 more pods like ml/train fit: node-1 2, node-2 2, "
                       "node-2-1 2\n"),
            std::string::npos)
      << r.out;
  ExpectGolden("dra_add_nodes.txt", r.out);
}

// --capacity and added nodes count what partitions draw on their GPU's
// counters: on examples/devices, node-1's 3g partitions are free but the
// counters of both GPUs are too spent for one more; a copy of node-1 takes
// a pending 3g pod off it, which leaves room for exactly one.
TEST(DraGoldenTest, PartitionCapacityCountsTheGpusCounters) {
  std::ifstream in(kSource + "/examples/devices/cluster.yaml");
  std::stringstream cluster;
  cluster << in.rdbuf();
  cluster << "\n---\napiVersion: resource.k8s.io/v1\nkind: "
             "ResourceClaimTemplate\nmetadata: {name: one-3g, namespace: "
             "partition}\nspec:\n  spec:\n    devices:\n      requests:\n"
             "      - name: gpu\n        exactly:\n          deviceClassName: "
             "gpu.example.com\n          selectors:\n          - cel: "
             "{expression: 'device.attributes[\"gpu.example.com\"].profile "
             "== \"3g.40gb\"'}\n";
  const std::string cluster_file =
      testing::WriteTempFile("devices-with-template.yaml", cluster.str());
  const std::string pod = testing::WriteTempFile(
      "infer-3g-pod.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: infer, namespace: "
      "partition}\nspec:\n  schedulerName: ksched\n  resourceClaims:\n"
      "  - {name: gpu, resourceClaimTemplateName: one-3g}\n  containers:\n"
      "  - name: c\n    image: x\n    resources:\n      claims: [{name: "
      "gpu}]\n");
  const std::string simulate =
      kKsched + " simulate --quiet --cluster " + cluster_file;

  auto alone = RunCommand(simulate + " --capacity " + pod);
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_NE(alone.out.find("0 more pods like partition/infer fit\n"),
            std::string::npos)
      << alone.out;
  EXPECT_NE(alone.out.find("counter set gpu-1-counters: 50Gi of 80Gi memory "
                           "in use, 40Gi needed"),
            std::string::npos)
      << alone.out;

  const std::string node = testing::WriteTempFile(
      "devices-node-template.yaml",
      "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-1\n  labels: "
      "{kubernetes.io/hostname: node-1}\nstatus:\n  allocatable: {cpu: "
      "\"8\", memory: 16Gi, pods: \"110\"}\n");
  auto added = RunCommand(simulate + " --add-nodes 1 --node-template " + node +
                          " --capacity " + pod);
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_NE(added.out.find("1 more pods like partition/infer fit: node-1 1\n"),
            std::string::npos)
      << added.out;
  EXPECT_NE(added.out.find("node-1-1    gpu.example.com/node-1-1 "
                           "gpu-0-counters: memory 30Gi of 80Gi left"),
            std::string::npos)
      << added.out;
}

}  // namespace ksched::dra_golden
