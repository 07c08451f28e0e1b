// `ksched simulate` planning a GPU cluster (examples/gpu and the files in
// test/cli/testdata): how many GPU nodes a job needs when smaller pods
// take new nodes first, pods no node of a template can take, gates that
// leave a file's claims unread, gangs beside other pods, the reason a GPU
// pod is counted under, and the input mistakes a hand-written file makes.
#include <gtest/gtest.h>

#include <string>

#include "pkg/util/json.h"
#include "test/cli/run_command.h"

namespace ksched::gpu_plan_cli {
namespace {

using testing::RunCommand;

const std::string kKsched = KSCHED_BINARY;
const std::string kSource = KSCHED_SOURCE_DIR;
const std::string kGpu = kSource + "/examples/gpu/";
const std::string kTestdata = kSource + "/test/cli/testdata/";
const std::string kSimulate =
    kKsched + " simulate --quiet --cluster " + kGpu + "cluster.yaml ";
const std::string kTrain = "--add " + kGpu + "train-job.yaml ";
const std::string kH100 = "--node-template " + kGpu + "h100-node.yaml ";

rapidjson::Document Json(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str());
  return doc;
}

TEST(GpuPlanCliTest, EightGpuJobFitsAfterTheNodesSmallerPodsTakeFirst) {
  // The embed Deployment's 2-GPU pods come first and spread over the new
  // nodes: one more node leaves the job as pending as one fewer did, up to
  // the count at which a node stays whole for it.
  auto r = RunCommand(kSimulate + kTrain + kH100 + "--add-nodes-until-fits");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("NODES NEEDED\n7 more nodes like gpu-h100 fit every "
                       "pending pod such nodes can take\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("ml/train (Job): 1/1 scheduled"), std::string::npos);
  // The fine-tuning pod wants A100s, which no H100 node has.
  EXPECT_NE(r.out.find("no node like gpu-h100 can take 1 pod:\n  "
                       "ml/finetune-0: DynamicResources: cannot allocate all "
                       "claims (its claim gpus, request gpus: no device "
                       "matches class a100.gpu.example.com (8 devices on the "
                       "node))\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("searched in 8 runs (0, 1, 2, 4, 8, 6, 7 more nodes, "
                       "and one trying each pod alone), "),
            std::string::npos)
      << r.out;

  // The answer is the smallest: one node fewer leaves the job pending.
  r = RunCommand(kSimulate + kTrain + kH100 + "--add-nodes 6");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ml/train (Job): 0/1 scheduled, 1 unschedulable"),
            std::string::npos)
      << r.out;
  r = RunCommand(kSimulate + kTrain + kH100 + "--add-nodes 7");
  EXPECT_NE(r.out.find("ml/train (Job): 1/1 scheduled"), std::string::npos);

  r = RunCommand(kSimulate + kTrain + kH100 + "--add-nodes-until-fits -o json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  rapidjson::Document doc = Json(r.out);
  ASSERT_FALSE(doc.HasParseError()) << r.out;
  EXPECT_EQ(doc["nodesNeeded"].GetInt(), 7);
  const rapidjson::Value& search = doc["nodeSearch"];
  EXPECT_TRUE(search["found"].GetBool());
  EXPECT_EQ(search["runs"].GetInt(), 8);
  ASSERT_EQ(search["cannotTake"].Size(), 1u);
  EXPECT_STREQ(search["cannotTake"][0]["pod"].GetString(), "ml/finetune-0");
  EXPECT_GE(search["seconds"].GetDouble(), 0.0);
}

TEST(GpuPlanCliTest, ATemplateWithoutDevicesIsSaidAndNoCountIsGiven) {
  const std::string cpu_node = testing::WriteTempFile(
      "gpu-plan-cpu-node.yaml",
      "apiVersion: v1\nkind: Node\nmetadata: {name: cpu-big}\n"
      "status:\n  allocatable: {cpu: \"96\", memory: 768Gi, "
      "pods: \"110\"}\n");
  auto r = RunCommand(kKsched + " simulate --cluster " + kGpu +
                      "cluster.yaml " + kTrain + "--node-template " + cpu_node +
                      " --add-nodes-until-fits");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: --node-template cpu-big: no ResourceSlices "
                       "in its file, nor published for a node cpu-big in the "
                       "cluster: nodes added from it publish no devices, "
                       "while 4 of the cluster's nodes do\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("none: every pending pod such nodes can take fits "
                       "already\nno node like cpu-big can take 4 pods:\n"),
            std::string::npos)
      << r.out;
  // One reason for the pods of one template, said once.
  EXPECT_NE(r.out.find("  ml/finetune-0, serve/embed-76f8bd47dd-pdnqs, "
                       "serve/embed-76f8bd47dd-885gw, ml/train-82jf2: "
                       "DynamicResources: cannot allocate all claims (its "
                       "claim gpus, request gpus: no device matches (the node "
                       "publishes no devices))\n"),
            std::string::npos)
      << r.out;
}

TEST(GpuPlanCliTest, StatsGiveTheSearchItsOwnLine) {
  auto r =
      RunCommand(kSimulate + kTrain + kH100 + "--add-nodes-until-fits --stats");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("stats: search "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" s, 8 runs before the plan shown\n"), std::string::npos)
      << r.err;
  // No time is negative: the searches' preparing is not the last run's.
  EXPECT_EQ(r.err.find(" -0"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(" -"), std::string::npos) << r.err;
}

TEST(GpuPlanCliTest, CapacitySaysWhatTheClaimsLackOnTheClosestNode) {
  const std::string train = testing::WriteTempFile(
      "gpu-plan-train-pod.yaml", R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: eight-h100, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpus
        exactly: {deviceClassName: h100.gpu.example.com, count: 8}
---
apiVersion: v1
kind: Pod
metadata: {name: train, namespace: ml}
spec:
  schedulerName: ksched
  containers:
  - name: t
    resources:
      requests: {cpu: "32", memory: 256Gi}
      claims: [{name: gpus}]
  resourceClaims:
  - {name: gpus, resourceClaimTemplateName: eight-h100}
)");
  auto r = RunCommand(kSimulate + "--capacity " + train);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("CAPACITY\n0 more pods like ml/train fit\nthe next "
                       "one: 0/4 nodes are available: 4 cannot allocate all "
                       "claims."),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("its claims, e.g. on gpu-h100-1: claim "
                       "ml/train-1-gpus-"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(", request gpus: 0 of 8 matching devices free, 8 "
                       "needed\n"),
            std::string::npos)
      << r.out;
}

TEST(GpuPlanCliTest, AnOlderVersionSaysOnceThatItIgnoresTheClaims) {
  for (const std::string version : {"1.32", "1.33"}) {
    auto r = RunCommand(kSimulate + kTrain + "--emulated-version " + version);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string warning =
        "warning: 12 pods ask for ResourceClaims; DynamicResourceAllocation "
        "is off at " +
        version +
        ": their claims are ignored; --feature-gates "
        "DynamicResourceAllocation=true turns it on\n";
    const size_t at = r.out.find(warning);
    EXPECT_NE(at, std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(warning, at + 1), std::string::npos) << "said twice";
    // Ignored indeed: the 8-GPU job lands on a node, GPUs or not.
    EXPECT_NE(r.out.find("ml/train (Job): 1/1 scheduled"), std::string::npos);

    r = RunCommand(kSimulate + kTrain + "--emulated-version " + version +
                   " --feature-gates DynamicResourceAllocation=true");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("ResourceClaims; DynamicResourceAllocation"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("ml/train (Job): 0/1 scheduled"), std::string::npos)
        << r.out;
  }
  // Turned off by the flag: said so.
  auto r = RunCommand(kSimulate +
                      "--emulated-version 1.33 --feature-gates "
                      "DynamicResourceAllocation=false");
  EXPECT_NE(r.out.find("DynamicResourceAllocation is off (--feature-gates): "
                       "their claims are ignored"),
            std::string::npos)
      << r.out << r.err;
  // The gate is offered in --help, though GA at the binary's version.
  r = RunCommand(kKsched + " simulate --help");
  EXPECT_NE(r.out.find("kube:DynamicResourceAllocation=true|false (GA - "
                       "default=false at 1.32, 1.33)"),
            std::string::npos)
      << r.out;
}

TEST(GpuPlanCliTest, AGangThatDoesNotFitDoesNotStarveThePodsBehindIt) {
  // While two ddp members hold gpu-h100-1's 4 free GPUs at Permit, the
  // embed pods fail there; when the group is given up, nothing the queue
  // hears of frees the GPUs, and the running scheduler tries the embed
  // pods again only when it flushes its unschedulable pods. Two of them
  // fit then.
  const std::string gang = "--add " + kTestdata + "ddp-gang.yaml --config " +
                           kSource + "/examples/gang/scheduler-config.yaml ";
  auto r = RunCommand(kSimulate + gang);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("not tried"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("serve/embed (Deployment): 4/6 scheduled"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("gpu-h100-1  32/96 33%"), std::string::npos) << r.out;
  // The group's line gives what it lacks.
  EXPECT_NE(r.out.find("ml/ddp (PodGroup, minMember 4): 0/4: only 2 of 4 fit "
                       "(0/4 nodes are available: 4 cannot allocate all "
                       "claims."),
            std::string::npos)
      << r.out;

  // With a group backoff, members released with the others keep kube's
  // words and say what their group lacks.
  const std::string config = testing::WriteTempFile(
      "gpu-plan-backoff.yaml", R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: ksched
    plugins:
      multiPoint:
        enabled: [{name: Coscheduling}]
      queueSort:
        enabled: [{name: Coscheduling}]
        disabled: [{name: "*"}]
    pluginConfig:
      - name: Coscheduling
        args: {permitWaitingTimeSeconds: 60, podGroupBackoffSeconds: 10}
)");
  r = RunCommand(kSimulate + "--add " + kTestdata + "ddp-gang.yaml --config " +
                 config);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0/1 nodes are available: 1 optimistic rejection in "
                       "PostFilter. (PodGroup ml/ddp: only 2 of 4 fit (0/4 "
                       "nodes are available: 4 cannot allocate all claims."),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("podGroup ml/ddp failed recently"), std::string::npos);
  EXPECT_EQ(r.out.find("failed recently. still not schedulable, preemption: "
                       "0/4 nodes are available: 4 Preemption is not helpful "
                       "for scheduling., PodGroup ml/ddp gets rejected due to "
                       "Pod ddp-3 is unschedulable even after PostFilter\n"),
            std::string::npos)
      << "a member backing off without its group's shortage:\n"
      << r.out;
}

TEST(GpuPlanCliTest, PendingReasonsCountWhatWouldHaveToChange) {
  auto r = RunCommand(kKsched + " simulate --quiet --cluster " + kTestdata +
                      "cpu-and-gpu-nodes.yaml -o json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  rapidjson::Document doc = Json(r.out);
  ASSERT_FALSE(doc.HasParseError()) << r.out;
  const rapidjson::Value& reasons = doc["pendingReasons"];
  ASSERT_EQ(reasons.Size(), 2u) << r.out;
  // Two pods whose messages differ only by their names: one bucket.
  EXPECT_STREQ(reasons[0]["reason"].GetString(),
               "ResourceClaim not created yet");
  EXPECT_EQ(reasons[0]["pods"].GetInt(), 2);
  // 4 CPU-only nodes said Insufficient cpu, the GPU node only that the
  // claim does not fit: the claim is what would have to change.
  EXPECT_STREQ(reasons[1]["reason"].GetString(), "cannot allocate all claims");
  EXPECT_EQ(reasons[1]["pods"].GetInt(), 1);
}

TEST(GpuPlanCliTest, JsonWithATrailingCommaIsReadAsKubectlReadsItAndSaidSo) {
  const std::string file = testing::WriteTempFile(
      "gpu-plan-cluster.json",
      "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": "
      "{\"name\": \"n1\"}, \"status\": {\"allocatable\": {\"cpu\": "
      "\"4\", \"pods\": \"10\"}},}\n");
  auto r = RunCommand(kKsched + " simulate --cluster " + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: " + file + ": not valid JSON ("),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("): read as YAML, as kubectl reads a file whose first "
                       "JSON value is malformed\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("n1"), std::string::npos) << r.out;
}

TEST(GpuPlanCliTest, AHugeNameGivesAShortError) {
  const std::string name(10 * 1024 * 1024, 'n');
  const std::string file = testing::WriteTempFile(
      "gpu-plan-huge.yaml",
      "apiVersion: v1\nkind: Node\nmetadata: {name: " + name + "}\n");
  auto r = RunCommand(kKsched + " simulate --cluster " + file);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_LT(r.err.size(), 4096u);
  EXPECT_NE(r.err.find("...(10485760 bytes)"), std::string::npos)
      << r.err.substr(0, 2000);
  EXPECT_NE(r.err.find("must be no more than 253 characters"),
            std::string::npos)
      << r.err.substr(0, 2000);
}

TEST(GpuPlanCliTest, CapacityRefusesAFileOfSeveralPods) {
  const std::string file = testing::WriteTempFile(
      "gpu-plan-two.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  "
      "containers: [{name: c}]\n---\napiVersion: v1\nkind: "
      "Pod\nmetadata: {name: b}\nspec:\n  containers: [{name: "
      "c}]\n");
  auto r = RunCommand(kSimulate + "--capacity " + file);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Error: --capacity " + file +
                       " must hold one Pod or workload, not 2 (2 Pods)\n"),
            std::string::npos)
      << r.err;
}

TEST(GpuPlanCliTest, CapacityCopiesAreNotCountedAsReassignedPods) {
  const std::string file = testing::WriteTempFile(
      "gpu-plan-probe.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: probe}\nspec:\n  "
      "containers:\n  - name: c\n    resources: {requests: {cpu: "
      "\"1\"}}\n");
  auto r = RunCommand(kKsched + " simulate --cluster " + kGpu +
                      "cluster.yaml --capacity " + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: the --capacity copies of default/probe are "
                       "scheduled with profile ksched (its schedulerName "
                       "default-scheduler is not a profile here)\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("pods of workloads or drains are scheduled"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace ksched::gpu_plan_cli
