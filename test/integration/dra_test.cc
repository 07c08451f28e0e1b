// Dynamic Resource Allocation against the test API server, as a user meets
// it: the objects of the recorded v1.35 cluster (two nodes, a GPU class,
// a slice of two GPUs per node), the real ksched binary, and claims with
// CEL selectors. The claim is allocated and reserved before the Binding,
// exactly as kube-scheduler v1.35 left the recorded claim.
#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/api/resource.h"
#include "pkg/api/yaml.h"
#include "test/apiserver/test_objects.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing {
namespace {

using std::chrono::seconds;

const std::string kManifests =
    std::string(KSCHED_SHARED_DIR) + "/apiserver/v1.35/manifests/";
constexpr char kClaims[] =
    "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims";

class DraTest : public ClusterTestBase {
 protected:
  // Creates every object of a recorded manifest file.
  void CreateManifest(const std::string& file) {
    std::ifstream in(kManifests + file);
    // Unread, the manifest would be empty YAML: nothing created, and the
    // test failing much later on a wait that names something else.
    ASSERT_TRUE(in.is_open()) << "cannot read " << kManifests + file;
    std::stringstream text;
    text << in.rdbuf();
    auto docs = api::YamlToJson(text.str());
    ASSERT_TRUE(docs.ok()) << file << ": " << docs.error().message();
    for (const rapidjson::Document& doc : *docs) {
      rapidjson::StringBuffer out;
      rapidjson::Writer<rapidjson::StringBuffer> writer(out);
      doc.Accept(writer);
      const std::string kind = doc["kind"].GetString();
      std::string collection;
      if (kind == "Node") collection = "/api/v1/nodes";
      if (kind == "Pod") collection = "/api/v1/namespaces/default/pods";
      if (kind == "DeviceClass") {
        collection = "/apis/resource.k8s.io/v1/deviceclasses";
      }
      if (kind == "ResourceSlice") {
        collection = "/apis/resource.k8s.io/v1/resourceslices";
      }
      if (kind == "ResourceClaim") collection = kClaims;
      if (kind == "ResourceClaimTemplate") {
        collection =
            "/apis/resource.k8s.io/v1/namespaces/default/"
            "resourceclaimtemplates";
      }
      ASSERT_FALSE(collection.empty()) << kind;
      auto r = server_->Create(collection, out.GetString());
      ASSERT_EQ(r.code, 201) << file << ": " << r.body;
    }
  }
  // The recorded cluster: nodes, the class and both slices.
  void CreateRecordedCluster() {
    CreateManifest("nodes.yaml");
    CreateManifest("deviceclass.yaml");
    CreateManifest("resourceslices.yaml");
  }
  // A pod of ours using the claim `claim` (by name) or `tmpl` (template).
  void CreateClaimPod(const std::string& name, const std::string& claim,
                      bool is_template = false) {
    Create("/api/v1/namespaces/default/pods",
           PodJson({.name = name,
                    .cpu = "100m",
                    .scheduler = "ksched",
                    .extra_spec =
                        R"("resourceClaims":[{"name":"gpu",")" +
                        std::string(is_template ? "resourceClaimTemplateName"
                                                : "resourceClaimName") +
                        R"(":")" + claim + R"("}])"}));
  }
  void CreateGpuClaim(const std::string& name, const std::string& memory,
                      int count = 1) {
    Create(kClaims,
           R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
               "metadata":{"name":")" +
               name + R"("},
               "spec":{"devices":{"requests":[{"name":"gpu","exactly":{
                 "deviceClassName":"gpu.example.com","count":)" +
               std::to_string(count) + R"(,
                 "selectors":[{"cel":{"expression":
                   "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\")" +
               memory + R"(\")) >= 0"}}]}}]}}})");
  }
  // Node gpu-node-<n> with a slice of two 80 GiB GPUs in its own pool.
  void CreateTwoGpuNode(int n) {
    const std::string node = "gpu-node-" + std::to_string(n);
    CreateNode(node, "8");
    Create("/apis/resource.k8s.io/v1/resourceslices",
           R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
               "metadata":{"name":")" +
               node + R"(-gpu"},"spec":{"driver":"gpu.example.com",
               "nodeName":")" +
               node + R"(","pool":{"name":")" + node +
               R"(","generation":1,"resourceSliceCount":1},
               "devices":[{"name":"gpu-0","capacity":{"memory":{"value":"80Gi"}}},
                          {"name":"gpu-1","capacity":{"memory":{"value":"80Gi"}}}]}})");
  }
  api::ResourceClaim GetClaim(const std::string& name) {
    auto r = server_->Get(std::string(kClaims) + "/" + name);
    EXPECT_EQ(r.code, 200) << r.body;
    auto claim = api::DecodeJson<api::ResourceClaim>(r.body);
    EXPECT_TRUE(claim.ok()) << r.body;
    return claim.ok() ? *claim : api::ResourceClaim{};
  }
  std::string ScheduledMessage(const std::string& pod) {
    for (const auto& c : GetPod(pod).status.conditions) {
      if (c.type == "PodScheduled" && c.status == "False") return c.message;
    }
    return "";
  }
  // "driver/pool/device" of each allocated device.
  static std::vector<std::string> Devices(const api::ResourceClaim& c) {
    std::vector<std::string> out;
    if (!c.status.allocation) return out;
    for (const auto& r : c.status.allocation->devices.results) {
      out.push_back(r.driver + "/" + r.pool + "/" + r.device);
    }
    return out;
  }
};

// The recorded exchange: gpu-claim-64gi (memory >= 64Gi) can only be
// node-2's; kube-scheduler v1.35 gave it node-2/gpu-0 with the finalizer,
// the node selector and the reservation, then bound the pod.
TEST_F(DraTest, ClaimWithCelSelectorIsAllocatedThenThePodBound) {
  CreateRecordedCluster();
  CreateManifest("claim-64gi.yaml");
  CreateClaimPod("dra-pod-64gi", "gpu-claim-64gi");
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(GetPod("dra-pod-64gi").spec.node_name, "node-2");
  api::ResourceClaim claim = GetClaim("gpu-claim-64gi");
  EXPECT_EQ(
      claim.metadata.finalizers,
      std::vector<std::string>{"resource.kubernetes.io/delete-protection"});
  ASSERT_TRUE(claim.status.allocation.has_value());
  ASSERT_EQ(claim.status.allocation->devices.results.size(), 1u);
  const auto& result = claim.status.allocation->devices.results[0];
  EXPECT_EQ(result.request, "gpu");
  EXPECT_EQ(result.driver, "gpu.example.com");
  EXPECT_EQ(result.pool, "node-2");
  EXPECT_EQ(result.device, "gpu-0");
  // The node selector exactly as the recorded claim has it.
  auto recorded = api::DecodeJson<api::ResourceClaim>([] {
    std::ifstream in(std::string(KSCHED_SHARED_DIR) +
                     "/apiserver/v1.35/get-resourceclaim-allocated.json");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }());
  ASSERT_TRUE(recorded.ok());
  EXPECT_EQ(claim.status.allocation->node_selector,
            recorded->status.allocation->node_selector);
  EXPECT_EQ(claim.status.allocation->devices.config,
            recorded->status.allocation->devices.config);
  ASSERT_EQ(claim.status.reserved_for.size(), 1u);
  EXPECT_EQ(claim.status.reserved_for[0].resource, "pods");
  EXPECT_EQ(claim.status.reserved_for[0].name, "dra-pod-64gi");
  EXPECT_EQ(claim.status.reserved_for[0].uid,
            GetPod("dra-pod-64gi").metadata.uid);
  // The claim was written before the pod was bound.
  auto bindings = server_->Bindings();
  ASSERT_EQ(bindings.size(), 1u);
  EXPECT_EQ(bindings[0].code, 201);
  EXPECT_EQ(
      server_->RequestCount("PUT", "resourceclaims/gpu-claim-64gi/status"), 1);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// A claim shared by two pods is allocated once; the second pod goes where
// the allocation is and joins reservedFor.
TEST_F(DraTest, SharedClaimIsAllocatedOnceForBothPods) {
  CreateRecordedCluster();
  CreateGpuClaim("shared", "1Gi");
  CreateClaimPod("first", "shared");
  CreateClaimPod("second", "shared");
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(60)))
      << ksched_->Tail();
  api::ResourceClaim claim = GetClaim("shared");
  ASSERT_EQ(Devices(claim).size(), 1u);
  const std::string node = claim.status.allocation->devices.results[0].pool;
  EXPECT_EQ(GetPod("first").spec.node_name, node);
  EXPECT_EQ(GetPod("second").spec.node_name, node);
  ASSERT_EQ(claim.status.reserved_for.size(), 2u);
  EXPECT_NE(claim.status.reserved_for[0].uid, claim.status.reserved_for[1].uid);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// No GPU has 200Gi: the pod stays pending with v1.35's recorded message,
// in its condition and its event.
TEST_F(DraTest, ImpossibleClaimLeavesThePodPendingWithKubesMessage) {
  CreateRecordedCluster();
  CreateManifest("claim-200gi.yaml");
  CreateClaimPod("dra-pod-200gi", "gpu-claim-200gi");
  StartKsched();
  const std::string want =
      "0/2 nodes are available: 2 cannot allocate all claims. still not "
      "schedulable, preemption: 0/2 nodes are available: 2 Preemption is "
      "not helpful for scheduling.";
  ASSERT_TRUE(WaitUntil(
      [&] { return !ScheduledMessage("dra-pod-200gi").empty(); }, seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(ScheduledMessage("dra-pod-200gi"), want);
  ASSERT_TRUE(
      WaitUntil([&] { return HasEvent("dra-pod-200gi", "FailedScheduling"); },
                seconds(30)));
  bool found = false;
  for (const api::Event& e : Events()) {
    if (e.reason == "FailedScheduling" && e.note == want) found = true;
  }
  EXPECT_TRUE(found);
  EXPECT_FALSE(GetClaim("gpu-claim-200gi").status.allocation.has_value());
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// A pod whose template claim does not exist yet waits at PreEnqueue; the
// resourceclaim controller (played here) creates the claim and records it
// in the pod's status, and the pod is scheduled.
TEST_F(DraTest, TemplateClaimCreatedAfterThePodLetsItSchedule) {
  CreateRecordedCluster();
  CreateManifest("claimtemplate.yaml");
  CreateClaimPod("dra-pod-tmpl", "gpu-any", /*is_template=*/true);
  StartKsched();
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(GetPod("dra-pod-tmpl").spec.node_name, "");
  const std::string uid = GetPod("dra-pod-tmpl").metadata.uid;
  auto created = server_->Create(
      kClaims,
      R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
          "metadata":{"name":"dra-pod-tmpl-gpu-x1y2z",
            "annotations":{"resource.kubernetes.io/pod-claim-name":"gpu"},
            "ownerReferences":[{"apiVersion":"v1","kind":"Pod",
              "name":"dra-pod-tmpl","uid":")" +
          uid + R"(","controller":true,"blockOwnerDeletion":true}]},
          "spec":{"devices":{"requests":[{"name":"gpu","exactly":{
            "deviceClassName":"gpu.example.com"}}]}}})");
  ASSERT_EQ(created.code, 201) << created.body;
  auto patched =
      server_->Patch("/api/v1/namespaces/default/pods/dra-pod-tmpl/status",
                     R"({"status":{"resourceClaimStatuses":[{"name":"gpu",
          "resourceClaimName":"dra-pod-tmpl-gpu-x1y2z"}]}})");
  ASSERT_EQ(patched.code, 200) << patched.body;
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  api::ResourceClaim claim = GetClaim("dra-pod-tmpl-gpu-x1y2z");
  ASSERT_EQ(Devices(claim).size(), 1u);
  EXPECT_EQ(GetPod("dra-pod-tmpl").spec.node_name,
            claim.status.allocation->devices.results[0].pool);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// Nothing fits until a driver publishes a slice: the new slice moves the
// pod back to the queue.
TEST_F(DraTest, ResourceSliceAddedLaterRequeuesThePod) {
  CreateManifest("nodes.yaml");
  CreateManifest("deviceclass.yaml");
  CreateManifest("claim-64gi.yaml");
  CreateClaimPod("dra-pod-64gi", "gpu-claim-64gi");
  StartKsched();
  ASSERT_TRUE(WaitUntil(
      [&] { return !ScheduledMessage("dra-pod-64gi").empty(); }, seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(GetPod("dra-pod-64gi").spec.node_name, "");
  CreateManifest("resourceslices.yaml");
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(GetPod("dra-pod-64gi").spec.node_name, "node-2");
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// ksched dies after PreBind wrote the claim and before it sent the
// Binding. The next ksched finds the claim allocated and reserved for the
// pod, binds the pod where the devices are, and allocates nothing again.
TEST_F(DraTest, RestartBetweenPreBindAndBindLosesNothing) {
  CreateRecordedCluster();
  CreateManifest("claim-64gi.yaml");
  CreateClaimPod("dra-pod-64gi", "gpu-claim-64gi");
  server_->SetResponseDelay("resourceclaims/gpu-claim-64gi/status",
                            std::chrono::milliseconds(3000));
  // Without leader election, so the second process need not wait out the
  // first one's lease.
  const std::filesystem::path config = dir_ / "no-election.yaml";
  std::ofstream(config) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                           "kind: KubeSchedulerConfiguration\n"
                           "leaderElection:\n"
                           "  leaderElect: false\n";
  StartKsched({"--config", config.string()});
  ASSERT_TRUE(
      WaitUntil([&] { return server_->Served().delayed > 0; }, seconds(30)))
      << ksched_->Tail();
  ksched_->Kill();
  // The delayed status update lands; no Binding was ever sent.
  ASSERT_TRUE(WaitUntil(
      [&] { return !GetClaim("gpu-claim-64gi").status.reserved_for.empty(); },
      seconds(10)));
  EXPECT_EQ(server_->Bindings().size(), 0u);
  const std::vector<std::string> devices = Devices(GetClaim("gpu-claim-64gi"));
  ASSERT_EQ(devices.size(), 1u);
  server_->SetResponseDelay("resourceclaims/gpu-claim-64gi/status",
                            std::chrono::milliseconds(0));
  StartKsched({"--config", config.string()});
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(GetPod("dra-pod-64gi").spec.node_name, "node-2");
  api::ResourceClaim claim = GetClaim("gpu-claim-64gi");
  EXPECT_EQ(Devices(claim), devices);
  EXPECT_EQ(claim.status.reserved_for.size(), 1u);
  EXPECT_EQ(server_->CountBindings(201), 1);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// Four 2-GPU pods and four nodes of two GPUs each: every pod gets a node's
// pair, no GPU twice.
TEST_F(DraTest, FourPodsOfTwoGpusEachFillFourNodes) {
  CreateManifest("deviceclass.yaml");
  for (int n = 0; n < 4; ++n) CreateTwoGpuNode(n);
  for (int p = 0; p < 4; ++p) {
    const std::string name = "train-" + std::to_string(p);
    CreateGpuClaim(name, "64Gi", 2);
    CreateClaimPod(name, name);
  }
  StartKsched();
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 0; }, seconds(60)))
      << ksched_->Tail();
  std::set<std::string> all;
  std::set<std::string> nodes;
  for (int p = 0; p < 4; ++p) {
    const std::string name = "train-" + std::to_string(p);
    api::ResourceClaim claim = GetClaim(name);
    ASSERT_EQ(Devices(claim).size(), 2u) << name;
    for (const std::string& d : Devices(claim)) all.insert(d);
    EXPECT_EQ(GetPod(name).spec.node_name,
              claim.status.allocation->devices.results[0].pool);
    nodes.insert(GetPod(name).spec.node_name);
  }
  EXPECT_EQ(all.size(), 8u) << "no device allocated twice";
  EXPECT_EQ(nodes.size(), 4u);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// A gang of four pods of two GPUs each on three 2-GPU nodes: no member is
// bound and no claim allocated while the fourth cannot fit, and the devices
// the waiting members held in flight are given back: a 2-GPU pod outside
// the gang, created then, gets two of them. (Adding a fourth node instead
// would leave the members Coscheduling rejected waiting for an event of
// its own, as with kube-scheduler and scheduler-plugins.)
TEST_F(DraTest, GangOfFourTwoGpuPodsBindsWholeOrNotAtAll) {
  CreateManifest("deviceclass.yaml");
  for (int n = 0; n < 3; ++n) CreateTwoGpuNode(n);
  Create("/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups",
         R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup",
             "metadata":{"name":"train"},"spec":{"minMember":4}})");
  for (int p = 0; p < 4; ++p) {
    const std::string name = "train-" + std::to_string(p);
    CreateGpuClaim(name, "64Gi", 2);
    Create("/api/v1/namespaces/default/pods",
           PodJson({.name = name,
                    .cpu = "100m",
                    .scheduler = "ksched",
                    .labels = R"("scheduling.x-k8s.io/pod-group":"train")",
                    .extra_spec = R"("resourceClaims":[{"name":"gpu",)"
                                  R"("resourceClaimName":")" +
                                  name + R"("}])"}));
  }
  StartGangScheduler();
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const api::Event& e : Events()) {
          if (e.reason == "FailedScheduling") return true;
        }
        return false;
      },
      seconds(30)))
      << ksched_->Tail();
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(server_->Bindings().size(), 0u);
  for (int p = 0; p < 4; ++p) {
    EXPECT_FALSE(
        GetClaim("train-" + std::to_string(p)).status.allocation.has_value());
  }
  CreateGpuClaim("solo", "64Gi", 2);
  CreateClaimPod("solo", "solo");
  ASSERT_TRUE(WaitUntil([&] { return !GetPod("solo").spec.node_name.empty(); },
                        seconds(30)))
      << ksched_->Tail();
  api::ResourceClaim solo = GetClaim("solo");
  ASSERT_EQ(Devices(solo).size(), 2u);
  EXPECT_EQ(GetPod("solo").spec.node_name,
            solo.status.allocation->devices.results[0].pool);
  for (int p = 0; p < 4; ++p) {
    const std::string name = "train-" + std::to_string(p);
    EXPECT_EQ(GetPod(name).spec.node_name, "") << name;
    EXPECT_FALSE(GetClaim(name).status.allocation.has_value()) << name;
  }
  EXPECT_EQ(server_->CountBindings(201), 1);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

}  // namespace
}  // namespace ksched::testing
