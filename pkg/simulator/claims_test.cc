// DRA in the simulator without the allocator: reading the resource.k8s.io
// kinds, the simulated API server's claims, the resourceclaim controller's
// part, the plan changes to slices, and what the report says about devices.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>

#include "pkg/config/config.h"
#include "pkg/dra/dra_manager.h"
#include "pkg/dra/resourceclaim.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/plugins/registry.h"
#include "pkg/simulator/changes.h"
#include "pkg/simulator/claim_controller.h"
#include "pkg/simulator/cluster.h"
#include "pkg/simulator/device_outcomes.h"
#include "pkg/simulator/plan.h"
#include "pkg/simulator/report.h"
#include "pkg/simulator/simulated_cluster.h"
#include "pkg/simulator/simulator.h"
#include "pkg/simulator/snapshot.h"

namespace ksched::simulator {
namespace {

constexpr const char* kDraObjects = R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpu}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: gpu-0}
  - {name: gpu-1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ml}
spec:
  metadata:
    labels: {team: ml}
    annotations: {note: from-template}
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com}
)";

TEST(DraClusterTest, ReadsTheResourceKindsBareAndInLists) {
  auto c = ParseCluster(std::string(kDraObjects) + R"(
---
apiVersion: v1
kind: List
items:
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: shared}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, count: 2}}]}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSliceList
items:
- metadata: {name: node-2-gpu}
  spec: {driver: gpu.example.com, nodeName: node-2, pool: {name: node-2, generation: 1, resourceSliceCount: 1}, devices: [{name: gpu-0}]}
)");
  ASSERT_TRUE(c.ok()) << c.error().message();
  ASSERT_EQ(c->device_classes.size(), 1u);
  ASSERT_EQ(c->resource_slices.size(), 2u);
  EXPECT_EQ(c->resource_slices[1].spec.node_name, "node-2");
  ASSERT_EQ(c->resource_claim_templates.size(), 1u);
  EXPECT_EQ(c->resource_claim_templates[0].metadata.ns, "ml");
  ASSERT_EQ(c->resource_claims.size(), 1u);
  EXPECT_EQ(c->resource_claims[0].metadata.ns, "default");
  EXPECT_EQ(c->resource_claims[0].metadata.uid, "claim-default-shared");
  EXPECT_TRUE(c->ignored_kinds.empty());

  // The same as JSON.
  auto json = ParseCluster(
      R"({"apiVersion":"v1","kind":"List","items":[{"apiVersion":)"
      R"("resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"a"}}]})");
  ASSERT_TRUE(json.ok()) << json.error().message();
  EXPECT_EQ(json->device_classes.size(), 1u);
}

TEST(DraClusterTest, DuplicatesAreErrorsInAFileAndWhenMerging) {
  auto twice = ParseCluster(std::string(kDraObjects) + R"(
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
)");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message().find(
                "DeviceClass gpu.example.com is defined twice"),
            std::string::npos)
      << twice.error().message();

  auto base = ParseCluster(kDraObjects);
  ASSERT_TRUE(base.ok());
  auto same_template = ParseCluster(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ml}
spec: {spec: {devices: {requests: []}}}
)");
  ASSERT_TRUE(same_template.ok());
  auto merged = MergeCluster(*base, std::move(*same_template));
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().message(),
            "ResourceClaimTemplate ml/one-gpu is defined twice");
  // Another namespace is another template.
  auto other = ParseCluster(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec: {spec: {devices: {requests: []}}}
)");
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(MergeCluster(*base, std::move(*other)).ok());
  EXPECT_EQ(base->resource_claim_templates.size(), 2u);
}

TEST(DraClusterTest, SnapshotsCarryTheResourceKinds) {
  auto c = ParseCluster(std::string(kDraObjects) + R"(
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: ml}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
)");
  ASSERT_TRUE(c.ok()) << c.error().message();
  auto again = ParseCluster(SnapshotJson(*c));
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(again->device_classes, c->device_classes);
  EXPECT_EQ(again->resource_slices, c->resource_slices);
  EXPECT_EQ(again->resource_claim_templates, c->resource_claim_templates);
  EXPECT_EQ(again->resource_claims, c->resource_claims);
}

api::ResourceClaim Claim(const std::string& name) {
  api::ResourceClaim c;
  c.metadata.name = name;
  c.metadata.ns = "default";
  c.metadata.uid = "uid-" + name;
  c.spec.devices.requests.push_back(
      {.name = "gpu",
       .exactly =
           api::ExactDeviceRequest{.device_class_name = "gpu.example.com"}});
  return c;
}

class SimulatedClaimsTest : public ::testing::Test {
 protected:
  SimulatedClaimsTest() { api_server_.set_dra(&dra_); }
  framework::InMemoryClusterObjects objects_;
  dra::DraManager dra_;
  SimulatedCluster api_server_{objects_};
};

TEST_F(SimulatedClaimsTest, WritesAsTheApiServerAnswersThem) {
  auto created = api_server_.CreateResourceClaim(Claim("a"));
  ASSERT_TRUE(created.ok()) << created.error;
  const std::string rv0 = created.claim->metadata.resource_version;
  EXPECT_EQ(dra_.GetResourceClaim("default", "a"), created.claim);

  auto again = api_server_.CreateResourceClaim(Claim("a"));
  EXPECT_EQ(again.code, 409);
  EXPECT_EQ(again.error, "resourceclaims.resource.k8s.io \"a\" already exists");

  auto missing = api_server_.GetResourceClaim("default", "nope");
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(missing.code, 404);
  EXPECT_EQ(missing.error, "resourceclaims.resource.k8s.io \"nope\" not found");

  // The finalizer: a new resourceVersion, delivered to the manager.
  api::ResourceClaim with_finalizer = *created.claim;
  with_finalizer.metadata.finalizers.emplace_back(api::kResourceClaimFinalizer);
  with_finalizer.status.reserved_for.push_back({.resource = "pods"});
  auto updated = api_server_.UpdateResourceClaim(with_finalizer);
  ASSERT_TRUE(updated.ok()) << updated.error;
  EXPECT_GT(std::stoll(updated.claim->metadata.resource_version),
            std::stoll(rv0));
  EXPECT_EQ(updated.claim->metadata.finalizers.size(), 1u);
  EXPECT_TRUE(updated.claim->status.reserved_for.empty())
      << "the main resource does not write the status";
  EXPECT_EQ(dra_.GetResourceClaim("default", "a"), updated.claim);

  // The stale object (the version before the finalizer) conflicts.
  api::ResourceClaim stale = *created.claim;
  stale.status.reserved_for.push_back({.resource = "pods", .name = "p"});
  auto conflict = api_server_.UpdateResourceClaimStatus(stale);
  EXPECT_TRUE(conflict.conflict());
  EXPECT_EQ(conflict.error,
            "Operation cannot be fulfilled on resourceclaims.resource.k8s.io "
            "\"a\": the object has been modified; please apply your changes "
            "to the latest version and try again");

  // Allocation and reservations on the fresh one.
  api::ResourceClaim allocated = *updated.claim;
  allocated.status.allocation.emplace();
  allocated.status.allocation->devices.results.push_back(
      {.request = "gpu",
       .driver = "gpu.example.com",
       .pool = "node-1",
       .device = "gpu-0"});
  allocated.status.reserved_for.push_back(
      {.resource = "pods", .name = "p1", .uid = "uid-p1"});
  allocated.status.reserved_for.push_back(
      {.resource = "pods", .name = "p2", .uid = "uid-p2"});
  allocated.metadata.labels.Set("ignored", "by the status subresource");
  auto status = api_server_.UpdateResourceClaimStatus(allocated);
  ASSERT_TRUE(status.ok()) << status.error;
  EXPECT_EQ(status.claim->status.reserved_for.size(), 2u);
  EXPECT_TRUE(status.claim->metadata.labels.empty());
  EXPECT_EQ(dra_.ListAllAllocatedDevices().size(), 1u);

  // Unreserve: a patch, whatever version the scheduler holds.
  ASSERT_TRUE(
      api_server_.UnreserveResourceClaim(*updated.claim, "uid-p1").IsSuccess());
  auto after = api_server_.GetResourceClaim("default", "a");
  ASSERT_EQ(after.claim->status.reserved_for.size(), 1u);
  EXPECT_EQ(after.claim->status.reserved_for[0].uid, "uid-p2");
  EXPECT_EQ(dra_.GetResourceClaim("default", "a"), after.claim);
  api::ResourceClaim other_uid = *after.claim;
  other_uid.metadata.uid = "someone-else";
  auto refused = api_server_.UnreserveResourceClaim(other_uid, "uid-p2");
  EXPECT_FALSE(refused.IsSuccess());
  EXPECT_EQ(refused.Message(),
            "ResourceClaim.resource.k8s.io \"a\" is invalid: metadata.uid: "
            "Invalid value: \"someone-else\": field is immutable");
  api::ResourceClaim gone = Claim("gone");
  EXPECT_EQ(api_server_.UpdateResourceClaimStatus(gone).code, 404);
}

TEST_F(SimulatedClaimsTest, AtMost256Reservations) {
  auto created = api_server_.CreateResourceClaim(Claim("shared"));
  ASSERT_TRUE(created.ok());
  api::ResourceClaim full = *created.claim;
  full.status.allocation.emplace();
  for (int i = 0; i < 257; ++i) {
    full.status.reserved_for.push_back(
        {.resource = "pods", .uid = std::to_string(i)});
  }
  auto w = api_server_.UpdateResourceClaimStatus(full);
  EXPECT_EQ(w.code, 422);
  EXPECT_EQ(w.error,
            "ResourceClaim.resource.k8s.io \"shared\" is invalid: "
            "status.reservedFor: Too many: 257: must have at most 256 items");
}

TEST_F(SimulatedClaimsTest, ADeletedPodsClaimsAreLetGo) {
  api::Pod victim;
  victim.metadata.name = "victim";
  victim.metadata.ns = "default";
  victim.metadata.uid = "uid-victim";
  victim.spec.node_name = "node-1";
  api_server_.StorePod(std::make_shared<const api::Pod>(victim));
  auto reserved = [](api::ResourceClaim c, const std::string& device) {
    c.status.allocation.emplace();
    c.status.allocation->devices.results.push_back(
        {.request = "gpu", .driver = "d", .pool = "p", .device = device});
    c.status.reserved_for.push_back(
        {.resource = "pods", .name = "victim", .uid = "uid-victim"});
    c.metadata.finalizers.emplace_back(api::kResourceClaimFinalizer);
    return c;
  };
  api::ResourceClaim generated = reserved(Claim("victim-gpu-abcde"), "a");
  generated.metadata.owner_references.push_back({.api_version = "v1",
                                                 .kind = "Pod",
                                                 .name = "victim",
                                                 .uid = "uid-victim",
                                                 .controller = true});
  ASSERT_TRUE(api_server_.CreateResourceClaim(generated).ok());
  ASSERT_TRUE(
      api_server_.CreateResourceClaim(reserved(Claim("shared"), "b")).ok());
  EXPECT_EQ(dra_.ListAllAllocatedDevices().size(), 2u);
  ASSERT_TRUE(api_server_.DeletePod(victim).IsSuccess());
  EXPECT_FALSE(
      api_server_.GetResourceClaim("default", "victim-gpu-abcde").ok());
  EXPECT_EQ(dra_.GetResourceClaim("default", "victim-gpu-abcde"), nullptr);
  auto shared = api_server_.GetResourceClaim("default", "shared");
  ASSERT_TRUE(shared.ok());
  EXPECT_FALSE(shared.claim->status.allocation);
  EXPECT_TRUE(shared.claim->status.reserved_for.empty());
  EXPECT_TRUE(shared.claim->metadata.finalizers.empty());
  EXPECT_EQ(dra_.ListAllAllocatedDevices().size(), 0u);
}

TEST(ClaimControllerTest, GenerateNameIsCutInProportion) {
  EXPECT_EQ(GeneratedClaimPrefix("train-0", "gpu"), "train-0-gpu-");
  // 70 + 20 + 2 characters: each part keeps 57/92 of its length, and the
  // trailing '-' goes.
  const std::string pod(70, 'p'), claim(20, 'c');
  EXPECT_EQ(
      GeneratedClaimPrefix(pod, claim),
      std::string(70 * 57 / 92, 'p') + "-" + std::string(20 * 57 / 92, 'c'));
  // 57 characters exactly are kept whole.
  const std::string fits(57 - 5, 'p');
  EXPECT_EQ(GeneratedClaimPrefix(fits, "gpu"), fits + "-gpu-");
}

api::Pod PodWithTemplate(const std::string& name, const std::string& tmpl) {
  api::Pod pod;
  pod.metadata.name = name;
  pod.metadata.ns = "ml";
  pod.metadata.uid = "uid-" + name;
  pod.spec.resource_claims.push_back(
      {.name = "gpu", .resource_claim_template_name = tmpl});
  return pod;
}

TEST_F(SimulatedClaimsTest, TheControllerMakesClaimsFromTemplates) {
  auto c = ParseCluster(kDraObjects);
  ASSERT_TRUE(c.ok());
  ClaimController controller(api_server_, c->resource_claim_templates, 7);
  api::Pod pod = PodWithTemplate("train-0", "one-gpu");
  EXPECT_TRUE(controller.SyncPod(pod).empty());
  ASSERT_EQ(pod.status.resource_claim_statuses.size(), 1u);
  const auto& status = pod.status.resource_claim_statuses[0];
  EXPECT_EQ(status.name, "gpu");
  ASSERT_TRUE(status.resource_claim_name);
  const std::string& name = *status.resource_claim_name;
  ASSERT_EQ(name.size(), std::string("train-0-gpu-").size() + 5);
  EXPECT_EQ(name.substr(0, 12), "train-0-gpu-");
  for (char ch : name.substr(12)) {
    EXPECT_NE(kNameAlphabet.find(ch), std::string_view::npos) << name;
  }
  auto claim = api_server_.GetResourceClaim("ml", name);
  ASSERT_TRUE(claim.ok());
  const api::ResourceClaim& made = *claim.claim;
  EXPECT_EQ(made.metadata.generate_name, "train-0-gpu-");
  EXPECT_EQ(*made.metadata.annotations.Find(dra::kPodClaimNameAnnotation),
            "gpu");
  EXPECT_EQ(*made.metadata.annotations.Find("note"), "from-template");
  EXPECT_EQ(*made.metadata.labels.Find("team"), "ml");
  ASSERT_EQ(made.metadata.owner_references.size(), 1u);
  EXPECT_EQ(made.metadata.owner_references[0],
            (api::OwnerReference{.api_version = "v1",
                                 .kind = "Pod",
                                 .name = "train-0",
                                 .uid = "uid-train-0",
                                 .controller = true}));
  EXPECT_EQ(made.spec, c->resource_claim_templates[0].spec.spec);
  EXPECT_EQ(dra_.GetResourceClaim("ml", name), claim.claim);

  // Done already: nothing new.
  EXPECT_TRUE(controller.SyncPod(pod).empty());
  EXPECT_EQ(api_server_.ResourceClaims().size(), 1u);

  // The same seed, the same name (another server, another controller).
  framework::InMemoryClusterObjects objects;
  SimulatedCluster other(objects);
  ClaimController again(other, c->resource_claim_templates, 7);
  api::Pod same = PodWithTemplate("train-0", "one-gpu");
  again.SyncPod(same);
  EXPECT_EQ(same.status.resource_claim_statuses,
            pod.status.resource_claim_statuses);
}

TEST_F(SimulatedClaimsTest, AMissingTemplateMakesNoClaim) {
  ClaimController controller(api_server_, {}, 1);
  api::Pod pod = PodWithTemplate("train-0", "nope");
  auto failures = controller.SyncPod(pod);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0],
            "pod ml/train-0, PodResourceClaim gpu: resource claim template "
            "\"nope\": resourceclaimtemplate.resource.k8s.io \"nope\" not "
            "found");
  EXPECT_TRUE(pod.status.resource_claim_statuses.empty());
  EXPECT_TRUE(api_server_.ResourceClaims().empty());
}

TEST(SettleClaimsTest, ClaimsOfPodsThatAreGoneAreLetGo) {
  api::Pod running;
  running.metadata = {.name = "stays", .ns = "default", .uid = "uid-stays"};
  running.spec.node_name = "node-1";
  std::vector<api::Pod> pods = {running};

  auto allocated = [](api::ResourceClaim c) {
    c.status.allocation.emplace();
    c.status.allocation->devices.results.push_back(
        {.request = "gpu", .driver = "d", .pool = "p", .device = "x"});
    c.metadata.finalizers.emplace_back(api::kResourceClaimFinalizer);
    return c;
  };
  // Shared by a pod that stays and one that is gone: still allocated.
  api::ResourceClaim shared = allocated(Claim("shared"));
  shared.status.reserved_for = {
      {.resource = "pods", .name = "stays", .uid = "uid-stays"},
      {.resource = "pods", .name = "gone", .uid = "uid-gone"}};
  // Only the gone pod's: deallocated, the finalizer removed.
  api::ResourceClaim lone = allocated(Claim("lone"));
  lone.status.reserved_for = {
      {.resource = "pods", .name = "gone", .uid = "uid-gone"}};
  // A pod of that name with another UID (re-created): not its pod.
  api::ResourceClaim replaced = allocated(Claim("replaced"));
  replaced.status.reserved_for = {
      {.resource = "pods", .name = "stays", .uid = "uid-old"}};
  // Generated for the gone pod: deleted.
  api::ResourceClaim generated = Claim("gone-gpu-abcde");
  generated.metadata.owner_references.push_back({.api_version = "v1",
                                                 .kind = "Pod",
                                                 .name = "gone",
                                                 .uid = "uid-gone",
                                                 .controller = true});
  // Allocated, unused, nobody's: left alone (the controller deallocates
  // only when the last consumer goes).
  api::ResourceClaim unused = allocated(Claim("unused"));
  std::vector<api::ResourceClaim> claims = {shared, lone, replaced, generated,
                                            unused};
  SettleClaims(claims, pods);
  ASSERT_EQ(claims.size(), 4u);
  EXPECT_EQ(claims[0].status.reserved_for.size(), 1u);
  EXPECT_TRUE(claims[0].status.allocation);
  EXPECT_FALSE(claims[1].status.allocation);
  EXPECT_TRUE(claims[1].metadata.finalizers.empty());
  EXPECT_FALSE(claims[2].status.allocation);
  EXPECT_EQ(claims[3].metadata.name, "unused");
  EXPECT_TRUE(claims[3].status.allocation);
}

TEST(DraChangesTest, AddedNodesGetCopiesOfTheTemplateNodesSlices) {
  auto c = ParseCluster(std::string(kDraObjects) + R"(
---
kind: Node
metadata: {name: node-1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "10"}}
)");
  ASSERT_TRUE(c.ok()) << c.error().message();
  ClusterChanges changes{.add_nodes = 2, .node_template = c->nodes[0]};
  auto applied = ApplyChanges(*c, changes, 1);
  ASSERT_TRUE(applied.ok()) << applied.error().message();
  ASSERT_EQ(c->resource_slices.size(), 3u);
  const api::ResourceSlice& copy = c->resource_slices[1];
  EXPECT_EQ(copy.metadata.name, "node-1-1-gpu");
  EXPECT_EQ(copy.spec.node_name, "node-1-1");
  EXPECT_EQ(copy.spec.pool.name, "node-1-1");
  EXPECT_EQ(copy.spec.devices, c->resource_slices[0].spec.devices);
  EXPECT_EQ(c->resource_slices[2].spec.pool.name, "node-1-2");
  // A pool not named after its node gets the node's name appended.
  api::ResourceSlice odd = c->resource_slices[0];
  odd.metadata.name = "gpus";
  odd.spec.pool.name = "rack-a";
  auto renamed = CopySliceForNode(odd, "node-1", "node-9");
  EXPECT_EQ(renamed.metadata.name, "gpus-node-9");
  EXPECT_EQ(renamed.spec.pool.name, "rack-a-node-9");

  // Removing a node takes its slices along.
  auto removed = ApplyChanges(*c, {.remove_nodes = {"node-1"}}, 1);
  ASSERT_TRUE(removed.ok()) << removed.error().message();
  EXPECT_EQ(c->resource_slices.size(), 2u);
}

TEST(DeviceOutcomesTest, DevicesOfOnePoolAreListedAfterTheFirstFullId) {
  std::vector<AllocatedDevice> devices = {
      {"gpu", "gpu.example.com", "node-7", "gpu-0"},
      {"gpu", "gpu.example.com", "node-7", "gpu-1"},
      {"nic", "nic.example.com", "node-7", "eth-0"},
      {"gpu2", "gpu.example.com", "node-7", "gpu-5"}};
  EXPECT_EQ(DeviceList(devices),
            "gpu.example.com/node-7/gpu-0, gpu-1, nic.example.com/node-7/"
            "eth-0, gpu.example.com/node-7/gpu-5");
}

TEST(DeviceOutcomesTest, NodesCountTheirDevicesTakenPerDriver) {
  auto c = ParseCluster(kDraObjects);
  ASSERT_TRUE(c.ok());
  ClaimsByKey claims;
  api::ResourceClaim one = Claim("one");
  one.status.allocation.emplace();
  one.status.allocation->devices.results.push_back({.request = "gpu",
                                                    .driver = "gpu.example.com",
                                                    .pool = "node-1",
                                                    .device = "gpu-1"});
  // Admin access takes no device from others.
  one.status.allocation->devices.results.push_back({.request = "gpu",
                                                    .driver = "gpu.example.com",
                                                    .pool = "node-1",
                                                    .device = "gpu-0",
                                                    .admin_access = true});
  claims["default/one"] = std::make_shared<const api::ResourceClaim>(one);
  auto by_node = DevicesByNode(c->resource_slices, claims);
  ASSERT_EQ(by_node["node-1"].size(), 1u);
  EXPECT_EQ(by_node["node-1"][0].driver, "gpu.example.com");
  EXPECT_EQ(by_node["node-1"][0].allocated, 1);
  EXPECT_EQ(by_node["node-1"][0].total, 2);
}

// A pod whose claim is allocated already needs no allocator: it goes where
// the allocation is, and the report says which devices it holds.
class DraSimulationTest : public ::testing::Test {
 protected:
  SimulationResult Run(const std::string& yaml) {
    auto cluster = ParseCluster(yaml);
    EXPECT_TRUE(cluster.ok()) << cluster.error().message();
    auto result = Simulate(*cluster, config::DefaultConfig(), registry_, {});
    EXPECT_TRUE(result.ok()) << result.error().message();
    return *result;
  }
  framework::Registry registry_ = plugins::NewInTreeRegistry();
};

constexpr const char* kTwoGpuNodes = R"(
kind: Node
metadata: {name: node-1, labels: {kubernetes.io/hostname: node-1}}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "10"}}
---
kind: Node
metadata: {name: node-2, labels: {kubernetes.io/hostname: node-2}}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "10"}}
)";

TEST_F(DraSimulationTest, AnAllocatedClaimPinsItsPodAndTheReportNamesDevices) {
  auto r = Run(std::string(kTwoGpuNodes) + "---" + kDraObjects + R"(
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: ready, namespace: ml}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0}
      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-1}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - {key: metadata.name, operator: In, values: [node-1]}
---
kind: Pod
metadata: {name: user, namespace: ml}
spec:
  schedulerName: ksched
  containers: [{name: c}]
  resourceClaims: [{name: gpu, resourceClaimName: ready}]
)");
  ASSERT_EQ(r.pods.size(), 1u);
  const PodOutcome& p = r.pods[0];
  EXPECT_EQ(p.node, "node-1") << p.message;
  ASSERT_EQ(p.claims.size(), 1u);
  EXPECT_EQ(p.claims[0].pod_claim, "gpu");
  EXPECT_EQ(p.claims[0].claim, "ready");
  EXPECT_EQ(DeviceList(p.claims[0].devices),
            "gpu.example.com/node-1/gpu-0, gpu-1");
  ASSERT_EQ(r.nodes.size(), 2u);
  ASSERT_EQ(r.nodes[0].devices.size(), 1u);
  EXPECT_EQ(r.nodes[0].devices[0].allocated, 2);
  EXPECT_EQ(r.nodes[0].devices[0].total, 2);
  EXPECT_TRUE(r.nodes[1].devices.empty());

  const std::string table = RenderTable(r);
  EXPECT_NE(table.find("DEVICES\nml/user                 node-1: "
                       "gpu.example.com/node-1/gpu-0, gpu-1 (claim ready)\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("gpu.example.com 2/2 devices"), std::string::npos)
      << table;
  const std::string json = RenderJson(r);
  EXPECT_NE(json.find(R"("claims":[{"podClaim":"gpu","claim":"ready",)"
                      R"("devices":[{"request":"gpu","driver":)"
                      R"("gpu.example.com","pool":"node-1","device":"gpu-0"})"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("devices":[{"driver":"gpu.example.com",)"
                      R"("allocated":2,"total":2}])"),
            std::string::npos)
      << json;
}

TEST_F(DraSimulationTest, AClusterWithoutResourceApiHoldsPodsWithClaims) {
  auto cluster = ParseCluster(std::string(kTwoGpuNodes) + R"(
---
kind: Pod
metadata: {name: user, namespace: ml}
spec:
  schedulerName: ksched
  containers: [{name: c}]
  resourceClaims: [{name: gpu, resourceClaimName: ready}]
)");
  ASSERT_TRUE(cluster.ok()) << cluster.error().message();
  cluster->dra_served = false;  // as a live cluster before v1.34 reads
  auto r = Simulate(*cluster, config::DefaultConfig(), registry_, {});
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->pods.size(), 1u);
  EXPECT_FALSE(r->pods[0].node);
  EXPECT_EQ(r->pods[0].message,
            "pod \"ml/user\": its ResourceClaims cannot be allocated: the API "
            "server does not serve resource.k8s.io/v1 to ksched");
}

TEST_F(DraSimulationTest, AMissingTemplateLeavesThePodPendingAtPreEnqueue) {
  auto r = Run(std::string(kTwoGpuNodes) + "---" + kDraObjects + R"(
---
kind: Pod
metadata: {name: orphan, namespace: ml}
spec:
  schedulerName: ksched
  containers: [{name: c}]
  resourceClaims: [{name: gpu, resourceClaimTemplateName: nope}]
)");
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_FALSE(r.pods[0].node);
  EXPECT_EQ(r.pods[0].message,
            "pod \"ml/orphan\": ResourceClaim not created yet");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0],
            "pod ml/orphan, PodResourceClaim gpu: resource claim template "
            "\"nope\": resourceclaimtemplate.resource.k8s.io \"nope\" not "
            "found");
}

// Two nodes of two GPUs; web-abcde (a ReplicaSet's) runs on node-1 with
// both of node-1's GPUs: one from its own template claim, one from a claim
// it shares with nobody else yet.
constexpr const char* kRunningOnNode1 = R"(
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-2-gpu}
spec:
  driver: gpu.example.com
  nodeName: node-2
  pool: {name: node-2, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: gpu-0}
  - {name: gpu-1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: ml}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
status:
  allocation:
    devices: {results: [{request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-1}]}
    nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [node-1]}]}]}
  reservedFor: [{resource: pods, name: web-abcde, uid: uid-web}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: web-abcde-gpu-xyzzy
  namespace: ml
  annotations: {resource.kubernetes.io/pod-claim-name: gpu}
  ownerReferences: [{apiVersion: v1, kind: Pod, name: web-abcde, uid: uid-web, controller: true}]
  finalizers: [resource.kubernetes.io/delete-protection]
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
status:
  allocation:
    devices: {results: [{request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0}]}
    nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [node-1]}]}]}
  reservedFor: [{resource: pods, name: web-abcde, uid: uid-web}]
---
kind: Pod
metadata:
  name: web-abcde
  namespace: ml
  uid: uid-web
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: uid-rs, controller: true}]
spec:
  nodeName: node-1
  schedulerName: ksched
  containers: [{name: c}]
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-gpu}
  - {name: shared, resourceClaimName: shared}
status:
  phase: Running
  resourceClaimStatuses: [{name: gpu, resourceClaimName: web-abcde-gpu-xyzzy}]
)";

TEST_F(DraSimulationTest, ADrainedPodsClaimsAreLetGoAndItsReplacementGetsNew) {
  auto cluster = ParseCluster(std::string(kTwoGpuNodes) + "---" + kDraObjects +
                              kRunningOnNode1);
  ASSERT_TRUE(cluster.ok()) << cluster.error().message();
  // The template claim is the ReplicaSet pod's in namespace ml.
  PlanInput input;
  input.changes.drain = {"node-1"};
  auto plan = PreparePlan(*cluster, input, config::DefaultConfig());
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  SimulationOptions options;
  plan->Into(options);
  auto r = Simulate(plan->cluster, config::DefaultConfig(), registry_, options);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->pods.size(), 1u);
  const PodOutcome& again = r->pods[0];
  EXPECT_EQ(again.node, "node-2") << again.message;
  ASSERT_EQ(again.claims.size(), 2u);
  // A new claim from the template (the old one went with its pod), and the
  // shared claim deallocated when its last consumer went, allocated again.
  EXPECT_NE(again.claims[0].claim, "web-abcde-gpu-xyzzy");
  EXPECT_EQ(again.claims[0].claim.rfind(again.name + "-gpu-", 0), 0u);
  EXPECT_EQ(DeviceList(again.claims[0].devices),
            "gpu.example.com/node-2/gpu-0");
  EXPECT_EQ(again.claims[1].claim, "shared");
  EXPECT_EQ(DeviceList(again.claims[1].devices),
            "gpu.example.com/node-2/gpu-1");
  EXPECT_EQ(r->nodes[0].devices[0].allocated, 0);
  EXPECT_EQ(r->nodes[1].devices[0].allocated, 2);
}

TEST(DeviceBoundTest, CopiesAreBoundedByTheFreeDevicesTheirTemplatesTake) {
  auto cluster = ParseCluster(std::string(kTwoGpuNodes) + "---" + kDraObjects +
                              kRunningOnNode1);
  ASSERT_TRUE(cluster.ok()) << cluster.error().message();
  api::Pod copy = PodWithTemplate("train", "one-gpu");
  // 4 devices, 2 of them allocated: 2 more one-GPU copies at most.
  EXPECT_EQ(DeviceCapacityUpperBound(*cluster, copy), 2);
  // A shared claim takes nothing per copy.
  copy.spec.resource_claims = {
      {.name = "gpu", .resource_claim_name = "shared"}};
  EXPECT_EQ(DeviceCapacityUpperBound(*cluster, copy),
            std::numeric_limits<int>::max() - 1);
  // When the pod holding them is gone, its devices count as free.
  std::erase_if(cluster->pods, [](const api::Pod& p) {
    return p.metadata.name == "web-abcde";
  });
  copy = PodWithTemplate("train", "one-gpu");
  EXPECT_EQ(DeviceCapacityUpperBound(*cluster, copy), 4);
}

}  // namespace
}  // namespace ksched::simulator
