// resource.k8s.io/v1 decoding, against responses recorded from a real
// kube-apiserver v1.35.6 (shared/apiserver/v1.35, see its README.md), and a
// hand-written object that sets every field the recordings leave out.
#include "pkg/api/resource.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "pkg/api/codec.h"
#include "pkg/api/yaml.h"

namespace ksched::api {
namespace {

using ::testing::HasSubstr;

std::string ReadTestFile(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string RecordedDra(const std::string& name) {
  return ReadTestFile(std::string(KSCHED_SHARED_DIR) + "/apiserver/v1.35/" +
                      name);
}

Quantity Qty(const char* s) { return *Quantity::Parse(s); }

// A map entry, or a test failure (not a crash) when the key is missing.
template <typename V>
const V& At(const FlatMap<V>& map, std::string_view key) {
  static const V kMissing{};
  const V* value = map.Find(key);
  if (value == nullptr) {
    ADD_FAILURE() << "no key " << key;
    return kMissing;
  }
  return *value;
}

// The node selector the scheduler writes into an allocation for a
// node-local device: matchFields metadata.name In [node].
void ExpectNodeNameSelector(const std::optional<NodeSelector>& s,
                            const std::string& node) {
  ASSERT_TRUE(s.has_value());
  ASSERT_EQ(s->node_selector_terms.size(), 1u);
  const NodeSelectorTerm& term = s->node_selector_terms[0];
  EXPECT_TRUE(term.match_expressions.empty());
  ASSERT_EQ(term.match_fields.size(), 1u);
  EXPECT_EQ(term.match_fields[0].key, "metadata.name");
  EXPECT_EQ(term.match_fields[0].op, NodeSelectorOperator::kIn);
  EXPECT_EQ(term.match_fields[0].values, std::vector<std::string>{node});
}

// Both recorded slices: one pool per node, two GPUs differing only in name.
void ExpectGpuSlice(const ResourceSlice& s, const std::string& node,
                    const std::string& model, const char* memory) {
  EXPECT_EQ(s.metadata.name, node + "-gpu.example.com");
  EXPECT_EQ(s.metadata.generation, 1);
  EXPECT_EQ(s.spec.driver, "gpu.example.com");
  EXPECT_EQ(s.spec.pool.name, node);
  EXPECT_EQ(s.spec.pool.generation, 1);
  EXPECT_EQ(s.spec.pool.resource_slice_count, 1);
  EXPECT_EQ(s.spec.node_name, node);
  EXPECT_FALSE(s.spec.node_selector.has_value());
  EXPECT_FALSE(s.spec.all_nodes.has_value());
  EXPECT_FALSE(s.spec.per_device_node_selection.has_value());
  EXPECT_TRUE(s.spec.shared_counters.empty());
  ASSERT_EQ(s.spec.devices.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const Device& d = s.spec.devices[i];
    EXPECT_EQ(d.name, "gpu-" + std::to_string(i));
    ASSERT_EQ(d.attributes.size(), 1u);
    const DeviceAttribute* m = d.attributes.Find("model");
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->string_value, model);
    EXPECT_FALSE(m->int_value || m->bool_value || m->version_value);
    ASSERT_EQ(d.capacity.size(), 1u);
    const DeviceCapacity* mem = d.capacity.Find("memory");
    ASSERT_NE(mem, nullptr);
    EXPECT_EQ(mem->value, Qty(memory));
    EXPECT_FALSE(mem->request_policy.has_value());
    EXPECT_FALSE(d.node_name || d.all_nodes || d.binds_to_node ||
                 d.allow_multiple_allocations);
  }
}

// The spec of gpu-claim-64gi / gpu-claim-manual / gpu-claim-200gi.
void ExpectGpuClaimSpec(const ResourceClaimSpec& spec, const char* memory) {
  ASSERT_EQ(spec.devices.requests.size(), 1u);
  const DeviceRequest& r = spec.devices.requests[0];
  EXPECT_EQ(r.name, "gpu");
  EXPECT_TRUE(r.first_available.empty());
  ASSERT_TRUE(r.exactly.has_value());
  EXPECT_EQ(r.exactly->device_class_name, "gpu.example.com");
  EXPECT_EQ(r.exactly->allocation_mode, DeviceAllocationMode::kExactCount);
  EXPECT_EQ(r.exactly->count, 1);
  EXPECT_FALSE(r.exactly->admin_access.has_value());
  ASSERT_EQ(r.exactly->selectors.size(), 1u);
  ASSERT_TRUE(r.exactly->selectors[0].cel.has_value());
  EXPECT_EQ(r.exactly->selectors[0].cel->expression,
            "device.capacity[\"gpu.example.com\"].memory.compareTo("
            "quantity(\"" +
                std::string(memory) + "\")) >= 0");
  EXPECT_TRUE(spec.devices.constraints.empty());
  EXPECT_TRUE(spec.devices.config.empty());
}

void ExpectAllocated(const ResourceClaim& c, const std::string& node,
                     const std::string& device, const std::string& pod,
                     const std::string& pod_uid) {
  ASSERT_TRUE(c.status.allocation.has_value());
  const AllocationResult& a = *c.status.allocation;
  ASSERT_EQ(a.devices.results.size(), 1u);
  const DeviceRequestAllocationResult& r = a.devices.results[0];
  EXPECT_EQ(r.request, "gpu");
  EXPECT_EQ(r.driver, "gpu.example.com");
  EXPECT_EQ(r.pool, node);
  EXPECT_EQ(r.device, device);
  EXPECT_FALSE(r.admin_access.has_value());
  EXPECT_FALSE(r.share_id.has_value());
  EXPECT_TRUE(r.consumed_capacity.empty());
  EXPECT_TRUE(a.devices.config.empty());
  EXPECT_FALSE(a.allocation_timestamp.has_value());
  ExpectNodeNameSelector(a.node_selector, node);
  ASSERT_EQ(c.status.reserved_for.size(), 1u);
  const ResourceClaimConsumerReference& ref = c.status.reserved_for[0];
  EXPECT_EQ(ref.api_group, "");
  EXPECT_EQ(ref.resource, "pods");
  EXPECT_EQ(ref.name, pod);
  EXPECT_EQ(ref.uid, pod_uid);
  EXPECT_TRUE(c.status.devices.empty());
}

TEST(ResourceDecodeTest, DeviceClass) {
  auto c = DecodeJson<DeviceClass>(RecordedDra("get-deviceclass.json"));
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->metadata.name, "gpu.example.com");
  EXPECT_EQ(c->metadata.uid, "7f37282b-3b4c-4374-a908-b94dc2358fcb");
  EXPECT_EQ(c->metadata.resource_version, "212");
  EXPECT_EQ(c->metadata.generation, 1);
  EXPECT_EQ(FormatRfc3339(c->metadata.creation_timestamp.value),
            "2026-11-27T08:12:32Z");
  ASSERT_EQ(c->spec.selectors.size(), 1u);
  ASSERT_TRUE(c->spec.selectors[0].cel.has_value());
  EXPECT_EQ(c->spec.selectors[0].cel->expression,
            "device.driver == \"gpu.example.com\"");
  EXPECT_TRUE(c->spec.config.empty());
  EXPECT_FALSE(c->spec.extended_resource_name.has_value());
}

TEST(ResourceDecodeTest, DeviceClassList) {
  auto l = DecodeJson<DeviceClassList>(RecordedDra("list-deviceclasses.json"));
  ASSERT_TRUE(l.ok()) << l.error().message();
  EXPECT_EQ(l->metadata.resource_version, "225");
  ASSERT_EQ(l->items.size(), 1u);
  EXPECT_EQ(l->items[0].metadata.name, "gpu.example.com");
  // The list's item is the object GET returned.
  auto single = DecodeJson<DeviceClass>(RecordedDra("get-deviceclass.json"));
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(l->items[0], *single);
}

TEST(ResourceDecodeTest, ResourceSlices) {
  auto s1 =
      DecodeJson<ResourceSlice>(RecordedDra("get-resourceslice-node-1.json"));
  ASSERT_TRUE(s1.ok()) << s1.error().message();
  EXPECT_EQ(s1->metadata.uid, "6de483ff-41f4-4480-8a2e-59f717a0bbb4");
  EXPECT_EQ(s1->metadata.resource_version, "213");
  ExpectGpuSlice(*s1, "node-1", "GPU-40G", "40Gi");

  auto s2 =
      DecodeJson<ResourceSlice>(RecordedDra("get-resourceslice-node-2.json"));
  ASSERT_TRUE(s2.ok()) << s2.error().message();
  EXPECT_EQ(s2->metadata.uid, "f1d5e170-9691-47fe-9440-ab7b48cbba1c");
  ExpectGpuSlice(*s2, "node-2", "GPU-80G", "80Gi");
  // 80Gi is 80 * 2^30 bytes, not a string match.
  ASSERT_EQ(s2->spec.devices.size(), 2u);
  EXPECT_EQ(At(s2->spec.devices[0].capacity, "memory").value,
            Qty("85899345920"));
}

TEST(ResourceDecodeTest, ResourceSliceListAndPages) {
  auto all =
      DecodeJson<ResourceSliceList>(RecordedDra("list-resourceslices.json"));
  ASSERT_TRUE(all.ok()) << all.error().message();
  EXPECT_EQ(all->metadata.resource_version, "225");
  EXPECT_TRUE(all->metadata.continue_token.empty());
  ASSERT_EQ(all->items.size(), 2u);
  ExpectGpuSlice(all->items[0], "node-1", "GPU-40G", "40Gi");
  ExpectGpuSlice(all->items[1], "node-2", "GPU-80G", "80Gi");

  auto page1 = DecodeJson<ResourceSliceList>(
      RecordedDra("list-resourceslices-limit1.json"));
  ASSERT_TRUE(page1.ok()) << page1.error().message();
  EXPECT_THAT(page1->metadata.continue_token, ::testing::StartsWith("eyJ2Ij"));
  EXPECT_EQ(page1->metadata.remaining_item_count, 1);
  ASSERT_EQ(page1->items.size(), 1u);
  EXPECT_EQ(page1->items[0], all->items[0]);

  auto page2 = DecodeJson<ResourceSliceList>(
      RecordedDra("list-resourceslices-limit1-continue.json"));
  ASSERT_TRUE(page2.ok()) << page2.error().message();
  EXPECT_TRUE(page2->metadata.continue_token.empty());
  EXPECT_FALSE(page2->metadata.remaining_item_count.has_value());
  ASSERT_EQ(page2->items.size(), 1u);
  EXPECT_EQ(page2->items[0], all->items[1]);
}

TEST(ResourceDecodeTest, FreshClaimHasEmptyStatus) {
  auto c =
      DecodeJson<ResourceClaim>(RecordedDra("get-resourceclaim-fresh.json"));
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->metadata.name, "gpu-claim-manual");
  EXPECT_EQ(c->metadata.ns, "default");
  EXPECT_EQ(c->metadata.uid, "760b57d7-b585-4ebe-9653-0ed40a38f723");
  EXPECT_EQ(c->metadata.resource_version, "230");
  ExpectGpuClaimSpec(c->spec, "64Gi");
  EXPECT_EQ(c->status, ResourceClaimStatus{});
}

TEST(ResourceDecodeTest, UnallocatableClaim) {
  auto c = DecodeJson<ResourceClaim>(
      RecordedDra("get-resourceclaim-unallocatable.json"));
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->metadata.name, "gpu-claim-200gi");
  ExpectGpuClaimSpec(c->spec, "200Gi");
  EXPECT_FALSE(c->status.allocation.has_value());
  EXPECT_TRUE(c->status.reserved_for.empty());
}

TEST(ResourceDecodeTest, AllocatedClaim) {
  auto c = DecodeJson<ResourceClaim>(
      RecordedDra("get-resourceclaim-allocated.json"));
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->metadata.name, "gpu-claim-64gi");
  EXPECT_EQ(c->metadata.resource_version, "219");
  ExpectGpuClaimSpec(c->spec, "64Gi");
  ExpectAllocated(*c, "node-2", "gpu-0", "dra-pod-64gi",
                  "b55e872e-fbd9-4327-b862-e0038725362b");
}

TEST(ResourceDecodeTest, ClaimFromTemplateIsOwnedByItsPod) {
  auto c = DecodeJson<ResourceClaim>(
      RecordedDra("get-resourceclaim-generated-allocated.json"));
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->metadata.name, "dra-pod-tmpl-gpu-6m6vv");
  EXPECT_EQ(c->metadata.generate_name, "dra-pod-tmpl-gpu-");
  EXPECT_EQ(
      At(c->metadata.annotations, "resource.kubernetes.io/pod-claim-name"),
      "gpu");
  ASSERT_EQ(c->metadata.owner_references.size(), 1u);
  EXPECT_EQ(c->metadata.owner_references[0].kind, "Pod");
  EXPECT_EQ(c->metadata.owner_references[0].name, "dra-pod-tmpl");
  EXPECT_EQ(c->metadata.owner_references[0].controller, true);
  ASSERT_EQ(c->spec.devices.requests.size(), 1u);
  ASSERT_TRUE(c->spec.devices.requests[0].exactly.has_value());
  EXPECT_TRUE(c->spec.devices.requests[0].exactly->selectors.empty());
  ExpectAllocated(*c, "node-1", "gpu-0", "dra-pod-tmpl",
                  "f9fa61df-a68e-4be8-9e40-1a0a41fb37f4");
}

TEST(ResourceDecodeTest, ClaimStatusWrittenByPut) {
  // The server's answer to the scheduler-style status update (PreBind).
  auto c =
      DecodeJson<ResourceClaim>(RecordedDra("put-resourceclaim-status.json"));
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->metadata.resource_version, "234");
  ExpectAllocated(*c, "node-2", "gpu-1", "dra-pod-manual",
                  "c76ffd93-3c14-4cd2-932d-86ea653a64e7");
}

TEST(ResourceDecodeTest, ResourceClaimList) {
  auto l =
      DecodeJson<ResourceClaimList>(RecordedDra("list-resourceclaims.json"));
  ASSERT_TRUE(l.ok()) << l.error().message();
  EXPECT_EQ(l->metadata.resource_version, "225");
  ASSERT_EQ(l->items.size(), 2u);
  EXPECT_EQ(l->items[0].metadata.name, "gpu-claim-200gi");
  ExpectGpuClaimSpec(l->items[0].spec, "200Gi");
  EXPECT_FALSE(l->items[0].status.allocation.has_value());
  EXPECT_EQ(l->items[1].metadata.name, "gpu-claim-64gi");
  ExpectAllocated(l->items[1], "node-2", "gpu-0", "dra-pod-64gi",
                  "b55e872e-fbd9-4327-b862-e0038725362b");
}

TEST(ResourceDecodeTest, WatchEventObjects) {
  // Newline-delimited watch events; each object decodes as a claim,
  // bookmarks included (they carry only metadata.resourceVersion).
  std::istringstream lines(RecordedDra("watch-resourceclaims.json"));
  std::vector<std::string> types;
  std::vector<ResourceClaim> claims;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    auto doc = ParseJson(line);
    ASSERT_TRUE(doc.ok()) << doc.error().message();
    types.push_back((*doc)["type"].GetString());
    auto c = DecodeJson<ResourceClaim>((*doc)["object"]);
    ASSERT_TRUE(c.ok()) << c.error().message();
    claims.push_back(*std::move(c));
  }
  EXPECT_EQ(types, (std::vector<std::string>{"MODIFIED", "ADDED", "DELETED",
                                             "BOOKMARK", "BOOKMARK"}));
  ASSERT_EQ(claims.size(), 5u);
  EXPECT_EQ(claims[0].metadata.name, "gpu-claim-64gi");
  EXPECT_EQ(claims[0].metadata.resource_version, "226");
  EXPECT_EQ(At(claims[0].metadata.labels, "recorded"), "watch");
  ExpectAllocated(claims[0], "node-2", "gpu-0", "dra-pod-64gi",
                  "b55e872e-fbd9-4327-b862-e0038725362b");
  EXPECT_EQ(claims[1].metadata.name, "gpu-claim-watch");
  EXPECT_EQ(claims[1].metadata.uid, "0befa5ad-34ce-441d-82b7-8046b550ec36");
  EXPECT_EQ(claims[1].metadata.resource_version, "227");
  ExpectGpuClaimSpec(claims[1].spec, "64Gi");
  // The DELETED event carries the object as it last was, at the deletion's
  // resourceVersion.
  EXPECT_EQ(claims[2].metadata.uid, claims[1].metadata.uid);
  EXPECT_EQ(claims[2].metadata.resource_version, "228");
  EXPECT_EQ(claims[3].metadata.name, "");
  EXPECT_EQ(claims[3].metadata.resource_version, "228");
  EXPECT_TRUE(claims[3].spec.devices.requests.empty());
}

TEST(ResourceDecodeTest, PodReferencesItsClaimTemplate) {
  auto pod =
      DecodeJson<Pod>(RecordedDra("get-pod-with-resourceclaimstatuses.json"));
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  ASSERT_EQ(pod->spec.resource_claims.size(), 1u);
  EXPECT_EQ(pod->spec.resource_claims[0].name, "gpu");
  EXPECT_EQ(pod->spec.resource_claims[0].resource_claim_template_name,
            "gpu-any");
}

TEST(ResourceDecodeTest, ResourceClaimTemplateManifest) {
  // No GET of the template was recorded; its manifest is what kubectl sent.
  auto docs =
      YamlToJson(ReadTestFile(std::string(KSCHED_SHARED_DIR) +
                              "/apiserver/v1.35/manifests/claimtemplate.yaml"));
  ASSERT_TRUE(docs.ok()) << docs.error().message();
  ASSERT_EQ(docs->size(), 1u);
  auto t = DecodeJson<ResourceClaimTemplate>((*docs)[0]);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->metadata.name, "gpu-any");
  EXPECT_EQ(t->metadata.ns, "default");
  ASSERT_EQ(t->spec.spec.devices.requests.size(), 1u);
  EXPECT_EQ(t->spec.spec.devices.requests[0].name, "gpu");
  ASSERT_TRUE(t->spec.spec.devices.requests[0].exactly.has_value());
  EXPECT_EQ(t->spec.spec.devices.requests[0].exactly->device_class_name,
            "gpu.example.com");
  EXPECT_EQ(t->spec.spec.devices.requests[0].exactly->allocation_mode,
            DeviceAllocationMode::kUnset);
  EXPECT_EQ(t->spec.spec.devices.requests[0].exactly->count, 0);
}

// Every field the recordings leave unset, in the shapes of the v1.35 Go
// types (k8s.io/api/resource/v1/types.go).
constexpr char kFullSlice[] = R"({
  "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
  "metadata": {"name": "pool-a-0"},
  "spec": {
    "driver": "nic.example.com",
    "pool": {"name": "pool-a", "generation": 7, "resourceSliceCount": 3},
    "perDeviceNodeSelection": true,
    "sharedCounters": [
      {"name": "gpu-0-counters", "counters": {"memory": {"value": "80Gi"}}}],
    "devices": [{
      "name": "dev-0",
      "attributes": {
        "cores": {"int": 64},
        "rdma": {"bool": true},
        "model": {"string": "X1"},
        "nic.example.com/fw": {"version": "1.2.3"}},
      "capacity": {
        "bandwidth": {"value": "100G",
          "requestPolicy": {"default": "1G", "validValues": ["1G", "10G"]}},
        "queues": {"value": "64",
          "requestPolicy": {"default": "1",
            "validRange": {"min": "1", "max": "32", "step": "2"}}}},
      "consumesCounters": [
        {"counterSet": "gpu-0-counters", "counters": {"memory": {"value": "10Gi"}}}],
      "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "rack", "operator": "In", "values": ["r1"]}]}]},
      "taints": [{"key": "broken", "value": "fan", "effect": "NoExecute",
                  "timeAdded": "2026-11-27T08:00:00Z"},
                 {"key": "note", "effect": "None"}],
      "bindsToNode": true,
      "bindingConditions": ["Attached"],
      "bindingFailureConditions": ["AttachFailed"],
      "allowMultipleAllocations": true
    }, {
      "name": "dev-1", "nodeName": "node-9"
    }, {
      "name": "dev-2", "allNodes": true
    }]
  }
})";

constexpr char kFullClaim[] = R"({
  "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
  "metadata": {"name": "c", "namespace": "ns",
               "deletionTimestamp": "2026-11-27T09:00:00Z"},
  "spec": {"devices": {
    "requests": [
      {"name": "nic", "exactly": {
        "deviceClassName": "nic", "allocationMode": "All", "adminAccess": true,
        "tolerations": [{"key": "broken", "operator": "Exists",
                         "effect": "NoExecute", "tolerationSeconds": 30}],
        "capacity": {"requests": {"bandwidth": "10G"}}}},
      {"name": "gpu", "firstAvailable": [
        {"name": "big", "deviceClassName": "gpu-80g",
         "selectors": [{"cel": {"expression": "true"}}],
         "allocationMode": "ExactCount", "count": 2,
         "tolerations": [{"key": "k", "operator": "Equal", "value": "v"}],
         "capacity": {"requests": {"memory": "40Gi"}}},
        {"name": "small", "deviceClassName": "gpu-40g", "count": 4}]}],
    "constraints": [
      {"requests": ["nic", "gpu"], "matchAttribute": "example.com/numa"},
      {"distinctAttribute": "example.com/slot"}],
    "config": [
      {"requests": ["gpu"], "opaque": {"driver": "gpu.example.com",
        "parameters": {"mode": "shared", "n": [1, 2]}}}]}},
  "status": {
    "allocation": {
      "devices": {
        "results": [{
          "request": "gpu/big", "driver": "gpu.example.com", "pool": "p",
          "device": "d", "adminAccess": false,
          "tolerations": [{"key": "k", "operator": "Equal", "value": "v"}],
          "bindingConditions": ["Attached"],
          "bindingFailureConditions": ["AttachFailed"],
          "shareID": "9c1ae7f4-4c0e-4b8a-9d47-7b0c1d2e3f40",
          "consumedCapacity": {"memory": "40Gi"}}],
        "config": [{"source": "FromClass", "requests": ["gpu"],
                    "opaque": {"driver": "gpu.example.com",
                               "parameters": {"a": 1}}}]},
      "allocationTimestamp": "2026-11-27T08:30:00Z"},
    "reservedFor": [{"apiGroup": "scheduling.k8s.io", "resource": "workloads",
                     "name": "w", "uid": "u-1"}],
    "devices": [{
      "driver": "gpu.example.com", "pool": "p", "device": "d",
      "shareID": "9c1ae7f4-4c0e-4b8a-9d47-7b0c1d2e3f40",
      "conditions": [{"type": "Ready", "status": "True",
                      "observedGeneration": 2,
                      "lastTransitionTime": "2026-11-27T08:31:00Z",
                      "reason": "Up", "message": "ok"}],
      "data": {"pci": "0000:01:00.0"},
      "networkData": {"interfaceName": "eth1", "ips": ["10.0.0.2/24"],
                      "hardwareAddress": "aa:bb:cc:dd:ee:ff"}}]}
})";

constexpr char kFullClass[] = R"({
  "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
  "metadata": {"name": "gpu"},
  "spec": {
    "selectors": [{"cel": {"expression": "device.driver == \"g\""}}],
    "config": [{"opaque": {"driver": "g", "parameters": {"x": true}}}],
    "extendedResourceName": "example.com/gpu"}
})";

TEST(ResourceDecodeTest, EverySliceField) {
  auto s = DecodeJson<ResourceSlice>(kFullSlice);
  ASSERT_TRUE(s.ok()) << s.error().message();
  const ResourceSliceSpec& spec = s->spec;
  EXPECT_EQ(spec.driver, "nic.example.com");
  EXPECT_EQ(spec.pool.generation, 7);
  EXPECT_EQ(spec.pool.resource_slice_count, 3);
  EXPECT_EQ(spec.per_device_node_selection, true);
  EXPECT_FALSE(spec.node_name.has_value());
  ASSERT_EQ(spec.shared_counters.size(), 1u);
  EXPECT_EQ(spec.shared_counters[0].name, "gpu-0-counters");
  EXPECT_EQ(At(spec.shared_counters[0].counters, "memory").value, Qty("80Gi"));

  ASSERT_EQ(spec.devices.size(), 3u);
  const Device& d = spec.devices[0];
  EXPECT_EQ(At(d.attributes, "cores").int_value, 64);
  EXPECT_EQ(At(d.attributes, "rdma").bool_value, true);
  EXPECT_EQ(At(d.attributes, "model").string_value, "X1");
  EXPECT_EQ(At(d.attributes, "nic.example.com/fw").version_value, "1.2.3");
  EXPECT_FALSE(At(d.attributes, "cores").string_value.has_value());

  const DeviceCapacity& bw = At(d.capacity, "bandwidth");
  EXPECT_EQ(bw.value, Qty("100G"));
  ASSERT_TRUE(bw.request_policy.has_value());
  EXPECT_EQ(bw.request_policy->default_value, Qty("1G"));
  EXPECT_EQ(bw.request_policy->valid_values,
            (std::vector<Quantity>{Qty("1G"), Qty("10G")}));
  EXPECT_FALSE(bw.request_policy->valid_range.has_value());
  const DeviceCapacity& queues = At(d.capacity, "queues");
  ASSERT_TRUE(queues.request_policy && queues.request_policy->valid_range);
  EXPECT_EQ(queues.request_policy->valid_range->min, Qty("1"));
  EXPECT_EQ(queues.request_policy->valid_range->max, Qty("32"));
  EXPECT_EQ(queues.request_policy->valid_range->step, Qty("2"));

  ASSERT_EQ(d.consumes_counters.size(), 1u);
  EXPECT_EQ(d.consumes_counters[0].counter_set, "gpu-0-counters");
  EXPECT_EQ(At(d.consumes_counters[0].counters, "memory").value, Qty("10Gi"));
  ASSERT_TRUE(d.node_selector.has_value());
  ASSERT_EQ(d.node_selector->node_selector_terms.size(), 1u);
  ASSERT_EQ(d.node_selector->node_selector_terms[0].match_expressions.size(),
            1u);
  EXPECT_EQ(d.node_selector->node_selector_terms[0].match_expressions[0].key,
            "rack");
  ASSERT_EQ(d.taints.size(), 2u);
  EXPECT_EQ(d.taints[0].key, "broken");
  EXPECT_EQ(d.taints[0].value, "fan");
  EXPECT_EQ(d.taints[0].effect, DeviceTaintEffect::kNoExecute);
  ASSERT_TRUE(d.taints[0].time_added.has_value());
  EXPECT_EQ(FormatRfc3339(d.taints[0].time_added->value),
            "2026-11-27T08:00:00Z");
  EXPECT_EQ(d.taints[1].effect, DeviceTaintEffect::kNone);
  EXPECT_EQ(d.binds_to_node, true);
  EXPECT_EQ(d.binding_conditions, std::vector<std::string>{"Attached"});
  EXPECT_EQ(d.binding_failure_conditions,
            std::vector<std::string>{"AttachFailed"});
  EXPECT_EQ(d.allow_multiple_allocations, true);
  EXPECT_EQ(spec.devices[1].node_name, "node-9");
  EXPECT_EQ(spec.devices[2].all_nodes, true);
}

TEST(ResourceDecodeTest, EveryClaimField) {
  auto c = DecodeJson<ResourceClaim>(kFullClaim);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_TRUE(c->metadata.deletion_timestamp.has_value());
  const DeviceClaim& dc = c->spec.devices;
  ASSERT_EQ(dc.requests.size(), 2u);
  ASSERT_TRUE(dc.requests[0].exactly.has_value());
  const ExactDeviceRequest& nic = *dc.requests[0].exactly;
  EXPECT_EQ(nic.allocation_mode, DeviceAllocationMode::kAll);
  EXPECT_EQ(nic.admin_access, true);
  ASSERT_EQ(nic.tolerations.size(), 1u);
  EXPECT_EQ(nic.tolerations[0].op, DeviceTolerationOperator::kExists);
  EXPECT_EQ(nic.tolerations[0].effect, DeviceTaintEffect::kNoExecute);
  EXPECT_EQ(nic.tolerations[0].toleration_seconds, 30);
  ASSERT_TRUE(nic.capacity.has_value());
  EXPECT_EQ(At(nic.capacity->requests, "bandwidth"), Qty("10G"));

  EXPECT_FALSE(dc.requests[1].exactly.has_value());
  ASSERT_EQ(dc.requests[1].first_available.size(), 2u);
  const DeviceSubRequest& big = dc.requests[1].first_available[0];
  EXPECT_EQ(big.name, "big");
  EXPECT_EQ(big.device_class_name, "gpu-80g");
  ASSERT_EQ(big.selectors.size(), 1u);
  ASSERT_TRUE(big.selectors[0].cel.has_value());
  EXPECT_EQ(big.selectors[0].cel->expression, "true");
  EXPECT_EQ(big.allocation_mode, DeviceAllocationMode::kExactCount);
  EXPECT_EQ(big.count, 2);
  ASSERT_EQ(big.tolerations.size(), 1u);
  EXPECT_EQ(big.tolerations[0].op, DeviceTolerationOperator::kEqual);
  EXPECT_EQ(big.tolerations[0].effect, DeviceTaintEffect::kUnset);
  ASSERT_TRUE(big.capacity.has_value());
  EXPECT_EQ(At(big.capacity->requests, "memory"), Qty("40Gi"));
  EXPECT_EQ(dc.requests[1].first_available[1].count, 4);

  ASSERT_EQ(dc.constraints.size(), 2u);
  EXPECT_EQ(dc.constraints[0].requests,
            (std::vector<std::string>{"nic", "gpu"}));
  EXPECT_EQ(dc.constraints[0].match_attribute, "example.com/numa");
  EXPECT_FALSE(dc.constraints[0].distinct_attribute.has_value());
  EXPECT_EQ(dc.constraints[1].distinct_attribute, "example.com/slot");
  ASSERT_EQ(dc.config.size(), 1u);
  EXPECT_EQ(dc.config[0].requests, std::vector<std::string>{"gpu"});
  ASSERT_TRUE(dc.config[0].config.opaque.has_value());
  EXPECT_EQ(dc.config[0].config.opaque->driver, "gpu.example.com");
  EXPECT_EQ(dc.config[0].config.opaque->parameters.json,
            R"({"mode":"shared","n":[1,2]})");

  ASSERT_TRUE(c->status.allocation.has_value());
  const AllocationResult& a = *c->status.allocation;
  ASSERT_EQ(a.devices.results.size(), 1u);
  const DeviceRequestAllocationResult& r = a.devices.results[0];
  EXPECT_EQ(r.request, "gpu/big");
  EXPECT_EQ(r.admin_access, false);
  ASSERT_EQ(r.tolerations.size(), 1u);
  EXPECT_EQ(r.tolerations[0].value, "v");
  EXPECT_EQ(r.binding_conditions, std::vector<std::string>{"Attached"});
  EXPECT_EQ(r.binding_failure_conditions,
            std::vector<std::string>{"AttachFailed"});
  EXPECT_EQ(r.share_id, "9c1ae7f4-4c0e-4b8a-9d47-7b0c1d2e3f40");
  EXPECT_EQ(At(r.consumed_capacity, "memory"), Qty("40Gi"));
  ASSERT_EQ(a.devices.config.size(), 1u);
  EXPECT_EQ(a.devices.config[0].source, AllocationConfigSource::kFromClass);
  ASSERT_TRUE(a.devices.config[0].config.opaque.has_value());
  EXPECT_EQ(a.devices.config[0].config.opaque->parameters.json, R"({"a":1})");
  EXPECT_FALSE(a.node_selector.has_value());
  ASSERT_TRUE(a.allocation_timestamp.has_value());
  EXPECT_EQ(FormatRfc3339(a.allocation_timestamp->value),
            "2026-11-27T08:30:00Z");

  ASSERT_EQ(c->status.reserved_for.size(), 1u);
  EXPECT_EQ(c->status.reserved_for[0].api_group, "scheduling.k8s.io");
  EXPECT_EQ(c->status.reserved_for[0].resource, "workloads");
  ASSERT_EQ(c->status.devices.size(), 1u);
  const AllocatedDeviceStatus& ds = c->status.devices[0];
  EXPECT_EQ(ds.device, "d");
  EXPECT_EQ(ds.share_id, "9c1ae7f4-4c0e-4b8a-9d47-7b0c1d2e3f40");
  ASSERT_EQ(ds.conditions.size(), 1u);
  EXPECT_EQ(ds.conditions[0].type, "Ready");
  EXPECT_EQ(ds.conditions[0].observed_generation, 2);
  EXPECT_EQ(ds.conditions[0].reason, "Up");
  EXPECT_EQ(ds.data.json, R"({"pci":"0000:01:00.0"})");
  ASSERT_TRUE(ds.network_data.has_value());
  EXPECT_EQ(ds.network_data->interface_name, "eth1");
  EXPECT_EQ(ds.network_data->ips, std::vector<std::string>{"10.0.0.2/24"});
  EXPECT_EQ(ds.network_data->hardware_address, "aa:bb:cc:dd:ee:ff");
}

TEST(ResourceDecodeTest, EveryClassField) {
  auto c = DecodeJson<DeviceClass>(kFullClass);
  ASSERT_TRUE(c.ok()) << c.error().message();
  ASSERT_EQ(c->spec.config.size(), 1u);
  ASSERT_TRUE(c->spec.config[0].config.opaque.has_value());
  EXPECT_EQ(c->spec.config[0].config.opaque->driver, "g");
  EXPECT_EQ(c->spec.config[0].config.opaque->parameters.json, R"({"x":true})");
  EXPECT_EQ(c->spec.extended_resource_name, "example.com/gpu");
}

// Encoding writes the JSON names decoding reads, and the opaque parameters
// verbatim: what the scheduler needs to write an allocation back.
template <typename T>
void ExpectRoundTrip(const std::string& text) {
  auto first = DecodeJson<T>(text);
  ASSERT_TRUE(first.ok()) << first.error().message();
  std::string encoded = EncodeJson(*first);
  auto second = DecodeJson<T>(encoded);
  ASSERT_TRUE(second.ok()) << second.error().message() << "\n" << encoded;
  EXPECT_EQ(*first, *second) << encoded;
}

TEST(ResourceDecodeTest, RoundTrips) {
  ExpectRoundTrip<ResourceSlice>(kFullSlice);
  ExpectRoundTrip<ResourceClaim>(kFullClaim);
  ExpectRoundTrip<DeviceClass>(kFullClass);
  ExpectRoundTrip<ResourceClaim>(
      RecordedDra("get-resourceclaim-allocated.json"));
  ExpectRoundTrip<ResourceSliceList>(RecordedDra("list-resourceslices.json"));
  auto c = DecodeJson<ResourceClaim>(kFullClaim);
  ASSERT_TRUE(c.ok());
  std::string encoded = EncodeJson(*c);
  EXPECT_THAT(encoded, HasSubstr(R"("apiVersion":"resource.k8s.io/v1")"));
  EXPECT_THAT(encoded, HasSubstr(R"("kind":"ResourceClaim")"));
  EXPECT_THAT(encoded,
              HasSubstr(R"("parameters":{"mode":"shared","n":[1,2]})"));
  EXPECT_THAT(encoded, HasSubstr(R"("source":"FromClass")"));
}

TEST(ResourceDecodeTest, UnknownFieldsAreIgnored) {
  auto c = DecodeJson<DeviceClass>(
      R"({"metadata": {"name": "x", "futureMeta": 1},
          "spec": {"futureField": {"a": [1]},
                   "selectors": [{"cel": {"expression": "true"},
                                  "futureSelector": {}}]},
          "futureTop": null})");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->metadata.name, "x");
  ASSERT_EQ(c->spec.selectors.size(), 1u);
  ASSERT_TRUE(c->spec.selectors[0].cel.has_value());
  EXPECT_EQ(c->spec.selectors[0].cel->expression, "true");
  // An attribute kind this version does not know decodes with none set.
  auto s = DecodeJson<ResourceSlice>(
      R"({"spec": {"devices": [{"name": "d",
            "attributes": {"a": {"float": 1.5}}}]}})");
  ASSERT_TRUE(s.ok()) << s.error().message();
  ASSERT_EQ(s->spec.devices.size(), 1u);
  EXPECT_EQ(At(s->spec.devices[0].attributes, "a"), DeviceAttribute{});
}

TEST(ResourceDecodeTest, MalformedInputIsAnErrorNamingThePath) {
  // Cut off mid-document.
  std::string text = RecordedDra("get-resourceclaim-allocated.json");
  auto cut = DecodeJson<ResourceClaim>(text.substr(0, text.size() / 2));
  EXPECT_FALSE(cut.ok());

  auto generation = DecodeJson<ResourceSlice>(
      R"({"spec": {"pool": {"name": "p", "generation": "one"}}})");
  ASSERT_FALSE(generation.ok());
  EXPECT_THAT(generation.error().message(), HasSubstr("spec.pool.generation"));

  auto attribute = DecodeJson<ResourceSlice>(
      R"({"spec": {"devices": [{"name": "d", "attributes": {"n": {"int": "7"}}}]}})");
  ASSERT_FALSE(attribute.ok());
  EXPECT_THAT(attribute.error().message(),
              HasSubstr("spec.devices[0].attributes.n.int"));

  auto quantity = DecodeJson<ResourceSlice>(
      R"({"spec": {"devices": [{"name": "d",
            "capacity": {"memory": {"value": "lots"}}}]}})");
  ASSERT_FALSE(quantity.ok());
  EXPECT_THAT(quantity.error().message(),
              HasSubstr("spec.devices[0].capacity.memory.value"));

  auto requests = DecodeJson<ResourceClaim>(
      R"({"spec": {"devices": {"requests": {"name": "gpu"}}}})");
  ASSERT_FALSE(requests.ok());
  EXPECT_THAT(requests.error().message(), HasSubstr("spec.devices.requests"));

  auto reserved = DecodeJson<ResourceClaim>(
      R"({"status": {"reservedFor": [{"resource": "pods", "uid": 5}]}})");
  ASSERT_FALSE(reserved.ok());
  EXPECT_THAT(reserved.error().message(),
              HasSubstr("status.reservedFor[0].uid"));

  EXPECT_FALSE(DecodeJson<DeviceClassList>("[]").ok());
  EXPECT_FALSE(DecodeJson<ResourceClaimList>("").ok());
}

}  // namespace
}  // namespace ksched::api
