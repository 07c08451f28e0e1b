// Devices as kube-scheduler v1.36 allocated them in the v1.36 recordings
// (shared/apiserver/v1.36, scenarios 4, 5, 6 and 8), replayed with the real
// ksched against the test API server: the same objects, created in the
// recorded order, and the same devices, shares, messages and order of
// writes as kube-scheduler's (<scenario>.scheduler-writes.json).
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/api/resource.h"
#include "pkg/api/yaml.h"
#include "pkg/client/testing/recorded.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing::devices_v136 {
namespace {

using client::testing::Recorded;
using std::chrono::seconds;

const std::string kManifests =
    std::string(KSCHED_SHARED_DIR) + "/apiserver/v1.36/manifests/";
constexpr char kSlices[] = "/apis/resource.k8s.io/v1/resourceslices";

std::string Text(const rapidjson::Value& v) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  v.Accept(writer);
  return out.GetString();
}

// The verb of an audit entry as the HTTP method that made it.
std::string Method(const std::string& verb) {
  if (verb == "create") return "POST";
  if (verb == "update") return "PUT";
  if (verb == "patch") return "PATCH";
  return "DELETE";
}

class DevicesV136Test : public ClusterTestBase {
 protected:
  // Every object of a recorded manifest; pods are ours (schedulerName).
  void CreateManifest(const std::string& file) {
    std::ifstream in(kManifests + file);
    // Unread, the manifest would be empty YAML: nothing created, and the
    // test failing much later on a wait that names something else.
    ASSERT_TRUE(in.is_open()) << "cannot read " << kManifests + file;
    std::stringstream text;
    text << in.rdbuf();
    auto docs = api::YamlToJson(text.str());
    ASSERT_TRUE(docs.ok()) << file << ": " << docs.error().message();
    for (rapidjson::Document& doc : *docs) {
      const std::string kind = doc["kind"].GetString();
      if (kind == "ServiceAccount") continue;
      std::string ns;
      if (doc["metadata"].HasMember("namespace")) {
        ns = doc["metadata"]["namespace"].GetString();
      }
      std::string collection;
      if (kind == "Namespace") collection = "/api/v1/namespaces";
      if (kind == "Node") collection = "/api/v1/nodes";
      if (kind == "Pod") {
        collection = "/api/v1/namespaces/" + ns + "/pods";
        doc["spec"].AddMember("schedulerName", "ksched", doc.GetAllocator());
      }
      if (kind == "DeviceClass") {
        collection = "/apis/resource.k8s.io/v1/deviceclasses";
      }
      if (kind == "ResourceSlice") collection = kSlices;
      if (kind == "ResourceClaim") {
        collection =
            "/apis/resource.k8s.io/v1/namespaces/" + ns + "/resourceclaims";
      }
      ASSERT_FALSE(collection.empty()) << kind;
      auto r = server_->Create(collection, Text(doc));
      ASSERT_EQ(r.code, 201) << file << ": " << r.body;
    }
  }
  // The nodes of the recordings: node-2 and node-3 as the manifest has
  // them, node-1 as recorded.
  void CreateNodes() {
    CreateManifest("namespaces.yaml");
    CreateManifest("nodes.yaml");
    Create("/api/v1/nodes",
           Recorded("v1.36/post-node-declaredfeatures.request.json"));
  }
  // A claim and its pod, as the recording made them, one after the other.
  void CreateClaimAndPod(const std::string& scenario,
                         const std::string& suffix) {
    CreateManifest(scenario + "-claim-" + suffix + ".yaml");
    CreateManifest(scenario + "-pod-" + suffix + ".yaml");
  }

  api::Pod PodIn(const std::string& ns, const std::string& name) {
    auto r = server_->Get("/api/v1/namespaces/" + ns + "/pods/" + name);
    EXPECT_EQ(r.code, 200) << r.body;
    auto pod = api::DecodeJson<api::Pod>(r.body);
    return pod.ok() ? *pod : api::Pod{};
  }
  api::ResourceClaim Claim(const std::string& ns, const std::string& name) {
    auto r = server_->Get("/apis/resource.k8s.io/v1/namespaces/" + ns +
                          "/resourceclaims/" + name);
    EXPECT_EQ(r.code, 200) << r.body;
    auto claim = api::DecodeJson<api::ResourceClaim>(r.body);
    return claim.ok() ? *claim : api::ResourceClaim{};
  }
  bool WaitBound(const std::string& ns, const std::string& pod) {
    return WaitUntil([&] { return !PodIn(ns, pod).spec.node_name.empty(); },
                     seconds(30));
  }
  // The PodScheduled=False message, once there is one.
  std::string WaitUnschedulable(const std::string& ns, const std::string& pod,
                                const std::string& reason = "Unschedulable") {
    std::string message;
    WaitUntil(
        [&] {
          for (const api::PodCondition& c : PodIn(ns, pod).status.conditions) {
            if (c.type == "PodScheduled" && c.status == "False" &&
                c.reason == reason) {
              message = c.message;
              return true;
            }
          }
          return false;
        },
        seconds(30));
    return message;
  }
  // The one device allocated to a claim.
  std::string Device(const api::ResourceClaim& claim) {
    if (!claim.status.allocation ||
        claim.status.allocation->devices.results.size() != 1) {
      return "<none>";
    }
    return claim.status.allocation->devices.results[0].device;
  }

  // kube-scheduler's writes about one pod and its claim in a recording
  // (events aside), as "METHOD path".
  static std::vector<std::string> RecordedWrites(const std::string& file,
                                                 const std::string& pod,
                                                 const std::string& claim) {
    rapidjson::Document writes;
    writes.Parse(Recorded("v1.36/" + file).c_str());
    std::vector<std::string> out;
    for (const auto& w : writes.GetArray()) {
      const std::string uri = w["requestURI"].GetString();
      if (uri.find("/pods/" + pod + "/") == std::string::npos &&
          !uri.ends_with("/resourceclaims/" + claim) &&
          uri.find("/resourceclaims/" + claim + "/") == std::string::npos) {
        continue;
      }
      out.push_back(Method(w["verb"].GetString()) + " " + uri);
    }
    return out;
  }
  // ksched's writes about one pod and its claim, in the order the server
  // received them.
  std::vector<std::string> Writes(const std::string& pod,
                                  const std::string& claim) {
    std::vector<std::string> out;
    for (const auto& [method, target] : server_->Requests()) {
      if (method == "GET") continue;
      const std::string path = target.substr(0, target.find('?'));
      if (path.find("/pods/" + pod + "/") == std::string::npos &&
          !path.ends_with("/resourceclaims/" + claim) &&
          path.find("/resourceclaims/" + claim + "/") == std::string::npos) {
        continue;
      }
      out.push_back(method + " " + path);
    }
    return out;
  }
  // The messages kube-scheduler wrote in pods' PodScheduled conditions, in
  // order.
  static std::vector<std::string> RecordedMessages(const std::string& file,
                                                   const std::string& pod) {
    rapidjson::Document writes;
    writes.Parse(Recorded("v1.36/" + file).c_str());
    std::vector<std::string> out;
    for (const auto& w : writes.GetArray()) {
      const std::string uri = w["requestURI"].GetString();
      if (uri.find("/pods/" + pod + "/status") == std::string::npos) continue;
      const auto& status = w["requestObject"]["status"];
      if (!status.HasMember("conditions")) continue;
      for (const auto& c : status["conditions"].GetArray()) {
        if (c.HasMember("message")) out.push_back(c["message"].GetString());
      }
    }
    return out;
  }
};

// Scenario 4: one GPU offered whole or as partitions drawing on its
// counters. kube gave claim-full gpu-0, then partitions of gpu-1, and
// could place neither a partition of the whole gpu-0 nor a whole gpu-1.
TEST_F(DevicesV136Test, PartitionsNeverExceedTheirGpu) {
  CreateNodes();
  CreateManifest("s4-deviceclass-gpu.yaml");
  Create(kSlices,
         Recorded("v1.36/post-resourceslice-sharedcounters.request.json"));
  Create(kSlices, Recorded("v1.36/post-resourceslice-partitions.request.json"));
  StartKsched();

  const std::string writes = "s4-partitionable-devices.scheduler-writes.json";
  for (const auto& [suffix, device] :
       std::vector<std::pair<std::string, std::string>>{
           {"full", "gpu-0"}, {"3g", "gpu-1-3g-0"}, {"1g", "gpu-1-1g-0"}}) {
    CreateClaimAndPod("s4", suffix);
    ASSERT_TRUE(WaitBound("partition", "pod-" + suffix)) << ksched_->Tail();
    EXPECT_EQ(PodIn("partition", "pod-" + suffix).spec.node_name, "node-1");
    EXPECT_EQ(Device(Claim("partition", "claim-" + suffix)), device) << suffix;
    // nominatedNodeName, the finalizer, the allocation, the binding: in
    // kube's order.
    EXPECT_EQ(Writes("pod-" + suffix, "claim-" + suffix),
              RecordedWrites(writes, "pod-" + suffix, "claim-" + suffix))
        << suffix;
  }
  const api::ResourceClaim full = Claim("partition", "claim-full");
  ASSERT_TRUE(full.status.allocation.has_value());
  EXPECT_TRUE(full.status.allocation->allocation_timestamp.has_value());

  for (const std::string suffix : {"1g-gpu0", "full-2"}) {
    CreateClaimAndPod("s4", suffix);
    EXPECT_EQ(WaitUnschedulable("partition", "pod-" + suffix),
              RecordedMessages(writes, "pod-" + suffix).at(0))
        << ksched_->Tail();
    EXPECT_FALSE(Claim("partition", "claim-" + suffix).status.allocation);
  }
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// Scenario 5: a tainted device goes only to a claim that tolerates the
// taint, and the allocation carries the toleration.
TEST_F(DevicesV136Test, ATaintedDeviceGoesOnlyToAToleratingClaim) {
  CreateNodes();
  CreateManifest("s5-deviceclass-accel.yaml");
  Create(kSlices,
         Recorded("v1.36/post-resourceslice-device-taint.request.json"));
  StartKsched();
  const std::string writes = "s5-device-taints.scheduler-writes.json";

  CreateClaimAndPod("s5", "notol-a");
  ASSERT_TRUE(WaitBound("taints", "pod-notol-a")) << ksched_->Tail();
  EXPECT_EQ(Device(Claim("taints", "claim-notol-a")), "accel-1");

  CreateClaimAndPod("s5", "notol-b");
  EXPECT_EQ(WaitUnschedulable("taints", "pod-notol-b"),
            RecordedMessages(writes, "pod-notol-b").at(0))
      << ksched_->Tail();

  CreateClaimAndPod("s5", "tol");
  ASSERT_TRUE(WaitBound("taints", "pod-tol")) << ksched_->Tail();
  const api::ResourceClaim tol = Claim("taints", "claim-tol");
  EXPECT_EQ(Device(tol), "accel-0");
  const auto want = api::DecodeJson<api::ResourceClaim>(
      Recorded("v1.36/get-resourceclaim-taint-tolerated-allocated.json"));
  ASSERT_TRUE(want.ok());
  ASSERT_TRUE(tol.status.allocation.has_value());
  EXPECT_EQ(tol.status.allocation->devices.results[0].tolerations,
            want->status.allocation->devices.results[0].tolerations);
  EXPECT_FALSE(Claim("taints", "claim-notol-b").status.allocation);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// Scenario 6: four claims share one NIC until its bandwidth is spent; each
// share has its own shareID and the capacity its request policy rounds to.
TEST_F(DevicesV136Test, SharesOfOneNicUntilItsBandwidthIsSpent) {
  CreateNodes();
  CreateManifest("s6-deviceclass-nic.yaml");
  Create(kSlices,
         Recorded("v1.36/post-resourceslice-consumable-capacity.request.json"));
  StartKsched();
  const std::string writes = "s6-consumable-capacity.scheduler-writes.json";

  std::vector<std::string> share_ids;
  for (const auto& [suffix, consumed] :
       std::vector<std::pair<std::string, std::string>>{{"20gi", "20Gi"},
                                                        {"33gi", "35Gi"}}) {
    CreateClaimAndPod("s6", suffix);
    ASSERT_TRUE(WaitBound("capacity", "pod-bw-" + suffix)) << ksched_->Tail();
    const api::ResourceClaim claim = Claim("capacity", "claim-bw-" + suffix);
    ASSERT_EQ(Device(claim), "nic-0");
    const auto& result = claim.status.allocation->devices.results[0];
    ASSERT_TRUE(result.share_id.has_value());
    EXPECT_EQ(result.share_id->size(), 36u);  // a UUID
    share_ids.push_back(*result.share_id);
    const api::Quantity* bandwidth = result.consumed_capacity.Find("bandwidth");
    ASSERT_NE(bandwidth, nullptr);
    EXPECT_EQ(bandwidth->ToString(), consumed);
  }
  EXPECT_NE(share_ids[0], share_ids[1]);

  CreateClaimAndPod("s6", "60gi");
  EXPECT_EQ(WaitUnschedulable("capacity", "pod-bw-60gi"),
            RecordedMessages(writes, "pod-bw-60gi").at(0))
      << ksched_->Tail();

  CreateClaimAndPod("s6", "default");
  ASSERT_TRUE(WaitBound("capacity", "pod-bw-default")) << ksched_->Tail();
  const api::ResourceClaim dflt = Claim("capacity", "claim-bw-default");
  ASSERT_EQ(Device(dflt), "nic-0");
  EXPECT_EQ(dflt.status.allocation->devices.results[0]
                .consumed_capacity.Find("bandwidth")
                ->ToString(),
            "10Gi");
  EXPECT_FALSE(Claim("capacity", "claim-bw-60gi").status.allocation);
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// Scenario 7: a pod asks for example.com/gpu as it always did; no node has
// it in allocatable, and a DeviceClass names it. ksched makes the pod a
// claim of its own, allocates it on node-2's GPUs, writes the pod's
// extendedResourceClaimStatus and binds it, in kube's order.
TEST_F(DevicesV136Test, AnExtendedResourcePodGetsItsOwnClaimAndStatus) {
  CreateNodes();
  Create("/apis/resource.k8s.io/v1/deviceclasses",
         Recorded("v1.36/post-deviceclass-extendedresource.request.json"));
  CreateManifest("s7-resourceslice-node-2-gpu.yaml");
  StartKsched();
  CreateManifest("s7-pod-extended-resource.yaml");
  ASSERT_TRUE(WaitBound("extres", "pod-ext-gpu")) << ksched_->Tail();

  const auto recorded = api::DecodeJson<api::Pod>(
      Recorded("v1.36/get-pod-extended-resource-bound.json"));
  ASSERT_TRUE(recorded.ok());
  const api::Pod pod = PodIn("extres", "pod-ext-gpu");
  EXPECT_EQ(pod.spec.node_name, recorded->spec.node_name);
  ASSERT_TRUE(pod.status.extended_resource_claim_status.has_value());
  const auto& status = *pod.status.extended_resource_claim_status;
  EXPECT_EQ(status.request_mappings,
            recorded->status.extended_resource_claim_status->request_mappings);
  const std::string name = status.resource_claim_name;
  EXPECT_TRUE(name.starts_with("pod-ext-gpu-extended-resources-")) << name;

  const auto want = api::DecodeJson<api::ResourceClaim>(
      Recorded("v1.36/get-resourceclaim-extended-resource.json"));
  ASSERT_TRUE(want.ok());
  const api::ResourceClaim claim = Claim("extres", name);
  EXPECT_EQ(claim.metadata.generate_name, want->metadata.generate_name);
  EXPECT_EQ(claim.metadata.annotations, want->metadata.annotations);
  ASSERT_EQ(claim.metadata.owner_references.size(), 1u);
  EXPECT_EQ(claim.metadata.owner_references[0].uid, pod.metadata.uid);
  EXPECT_EQ(claim.metadata.owner_references[0].controller, true);
  EXPECT_EQ(claim.metadata.finalizers, want->metadata.finalizers);
  EXPECT_EQ(claim.spec, want->spec);
  ASSERT_TRUE(claim.status.allocation.has_value());
  EXPECT_EQ(claim.status.allocation->devices, want->status.allocation->devices);
  EXPECT_EQ(claim.status.allocation->node_selector,
            want->status.allocation->node_selector);
  ASSERT_EQ(claim.status.reserved_for.size(), 1u);
  EXPECT_EQ(claim.status.reserved_for[0].uid, pod.metadata.uid);

  // nominatedNodeName, the claim's creation, finalizer and allocation, the
  // pod's status, the binding: kube's writes, in kube's order.
  auto normalized = [](std::vector<std::string> writes,
                       const std::string& claim_name) {
    for (std::string& w : writes) {
      if (const size_t at = w.find(claim_name); at != std::string::npos) {
        w.replace(at, claim_name.size(), "<claim>");
      }
    }
    return writes;
  };
  rapidjson::Document writes;
  writes.Parse(
      Recorded("v1.36/s7-extended-resource.scheduler-writes.json").c_str());
  std::vector<std::string> kube;
  for (const auto& w : writes.GetArray()) {
    const std::string uri = w["requestURI"].GetString();
    if (uri.find("/events") != std::string::npos) continue;
    kube.push_back(Method(w["verb"].GetString()) + " " + uri);
  }
  std::vector<std::string> ours;
  for (const auto& [method, target] : server_->Requests()) {
    if (method == "GET") continue;
    const std::string path = target.substr(0, target.find('?'));
    if (path.find("/namespaces/extres/") == std::string::npos ||
        path.find("/events") != std::string::npos || path.ends_with("/pods")) {
      continue;
    }
    ours.push_back(method + " " + path);
  }
  EXPECT_EQ(normalized(ours, name), normalized(kube, want->metadata.name));
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

// Scenario 8: a device that must be attached first. The pod waits in
// PreBind until the driver reports the binding condition, then binds; a
// device whose attachment fails is given back and allocated again.
TEST_F(DevicesV136Test, BindingConditionsHoldThePodUntilTheDeviceIsAttached) {
  CreateNodes();
  CreateManifest("s8-deviceclass-attach.yaml");
  Create(kSlices,
         Recorded("v1.36/post-resourceslice-binding-conditions.request.json"));
  StartKsched();
  const std::string writes = "s8-binding-conditions.scheduler-writes.json";

  // The driver's report on a claim's device, as the recording sent it.
  auto report = [&](const std::string& claim_name, const std::string& device,
                    const std::string& type, const std::string& reason,
                    const std::string& message) {
    rapidjson::Document claim;
    auto r = server_->Get(
        "/apis/resource.k8s.io/v1/namespaces/bindcond/resourceclaims/" +
        claim_name);
    ASSERT_EQ(r.code, 200);
    claim.Parse(r.body.c_str());
    auto& a = claim.GetAllocator();
    rapidjson::Value condition(rapidjson::kObjectType);
    condition.AddMember("type", rapidjson::Value(type.c_str(), a), a);
    condition.AddMember("status", "True", a);
    condition.AddMember("reason", rapidjson::Value(reason.c_str(), a), a);
    condition.AddMember("message", rapidjson::Value(message.c_str(), a), a);
    condition.AddMember("lastTransitionTime", "2026-11-29T01:33:35Z", a);
    rapidjson::Value entry(rapidjson::kObjectType);
    entry.AddMember("driver", "attach.example.com", a);
    entry.AddMember("pool", "fabric", a);
    entry.AddMember("device", rapidjson::Value(device.c_str(), a), a);
    rapidjson::Value conditions(rapidjson::kArrayType);
    conditions.PushBack(condition, a);
    entry.AddMember("conditions", conditions, a);
    rapidjson::Value devices(rapidjson::kArrayType);
    devices.PushBack(entry, a);
    if (claim["status"].HasMember("devices")) {
      claim["status"]["devices"] = devices;
    } else {
      claim["status"].AddMember("devices", devices, a);
    }
    auto w = server_->Update(
        "/apis/resource.k8s.io/v1/namespaces/bindcond/resourceclaims/" +
            claim_name + "/status",
        Text(claim));
    ASSERT_EQ(w.code, 200) << w.body;
  };

  // Success: allocated, waiting (nominated, not bound), then bound.
  CreateClaimAndPod("s8", "attach-ok");
  ASSERT_TRUE(WaitUntil(
      [&] { return HasEvent("pod-attach-ok", "BindingConditionsPending"); },
      seconds(30)))
      << ksched_->Tail();
  api::ResourceClaim ok = Claim("bindcond", "claim-attach-ok");
  ASSERT_EQ(Device(ok), "fabric-dev-0");
  const auto& result = ok.status.allocation->devices.results[0];
  EXPECT_EQ(result.binding_conditions,
            std::vector<std::string>{"example.com/attached"});
  EXPECT_EQ(result.binding_failure_conditions,
            std::vector<std::string>{"example.com/failed"});
  ASSERT_TRUE(ok.status.allocation->node_selector.has_value());
  const std::string chosen =
      ok.status.allocation->node_selector->node_selector_terms[0]
          .match_fields[0]
          .values[0];
  const api::Pod waiting = PodIn("bindcond", "pod-attach-ok");
  EXPECT_TRUE(waiting.spec.node_name.empty());
  EXPECT_EQ(waiting.status.nominated_node_name, chosen);

  report("claim-attach-ok", "fabric-dev-0", "example.com/attached", "Attached",
         "device attached to " + chosen);
  ASSERT_TRUE(WaitBound("bindcond", "pod-attach-ok")) << ksched_->Tail();
  EXPECT_EQ(PodIn("bindcond", "pod-attach-ok").spec.node_name, chosen);
  EXPECT_EQ(Writes("pod-attach-ok", "claim-attach-ok"),
            RecordedWrites(writes, "pod-attach-ok", "claim-attach-ok"));

  // Failure: the driver reports the failure condition; PreBind fails with
  // kube's words, the next attempt gives the claim back, the one after
  // allocates the device again and waits; attached, the pod binds.
  CreateClaimAndPod("s8", "attach-fail");
  ASSERT_TRUE(WaitUntil(
      [&] { return HasEvent("pod-attach-fail", "BindingConditionsPending"); },
      seconds(30)))
      << ksched_->Tail();
  ASSERT_EQ(Device(Claim("bindcond", "claim-attach-fail")), "fabric-dev-1");
  report("claim-attach-fail", "fabric-dev-1", "example.com/failed",
         "AttachFailed", "fabric manager could not attach the device");
  const std::vector<std::string> messages =
      RecordedMessages(writes, "pod-attach-fail");
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(WaitUnschedulable("bindcond", "pod-attach-fail", "SchedulerError"),
            messages[0])
      << ksched_->Tail();
  EXPECT_EQ(WaitUnschedulable("bindcond", "pod-attach-fail"), messages[1])
      << ksched_->Tail();
  ASSERT_TRUE(WaitUntil(
      [&] {
        const api::ResourceClaim c = Claim("bindcond", "claim-attach-fail");
        return c.status.allocation.has_value() && c.status.devices.empty();
      },
      seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(Device(Claim("bindcond", "claim-attach-fail")), "fabric-dev-1");
  report("claim-attach-fail", "fabric-dev-1", "example.com/attached",
         "Attached", "device attached");
  ASSERT_TRUE(WaitBound("bindcond", "pod-attach-fail")) << ksched_->Tail();
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

}  // namespace
}  // namespace ksched::testing::devices_v136
