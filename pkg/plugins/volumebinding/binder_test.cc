// Ports of kube-scheduler's volumebinding binder_test.go:
// TestFindPodVolumesWithoutProvisioning and TestFindPodVolumesWithProvisioning
// (the "without CSIStorageCapacity" runs: ksched has no capacity objects).
#include "pkg/plugins/volumebinding/binder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "pkg/framework/cluster_objects.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/volumebinding/assume_cache.h"
#include "pkg/plugins/volumebinding/pod_claims.h"
#include "pkg/plugins/volumebinding/test_utils.h"

namespace ksched::plugins::volumebinding {
namespace {

using testutil::MakeClass;
using testutil::PvBuilder;
using testutil::PvcBuilder;
using testutil::Topology;
using Bindings = std::vector<std::pair<std::string, std::string>>;
using Names = std::vector<std::string>;

constexpr const char* kWaitClass = "waitClass";
constexpr const char* kImmediateClass = "immediateClass";
constexpr const char* kWaitClassWithProvisioner = "waitClassWithProvisioner";
constexpr const char* kTopoMismatchClass = "topoMismatchClass";
constexpr const char* kNodeLabelKey = "nodeKey";
constexpr const char* kUnboundImmediate =
    "pod has unbound immediate PersistentVolumeClaims";

enum class ClaimState { kUnbound, kPrebound, kBound, kSelectedNode };

// makeTestPVC: namespace testns, one UID for every claim, Filesystem mode.
api::PersistentVolumeClaim TestPvc(const std::string& name,
                                   const std::string& size, ClaimState state,
                                   const std::string& pv,
                                   const std::string& class_name) {
  PvcBuilder b(name, class_name, "testns");
  b.Uid("pvc-uid").ResourceVersion("1").Request(size).VolumeMode("Filesystem");
  switch (state) {
    case ClaimState::kSelectedNode:
      b.SelectedNode("node1");
      break;
    case ClaimState::kBound:
      b.BoundPv(pv);
      break;
    case ClaimState::kPrebound:
      b.PreboundPv(pv);
      break;
    case ClaimState::kUnbound:
      break;
  }
  return b.Obj();
}

// makeTestPV: Available, Filesystem, node affinity on nodeKey.
api::PersistentVolume TestPv(const std::string& name, const std::string& node,
                             const std::string& capacity,
                             const api::PersistentVolumeClaim* bound_to,
                             const std::string& class_name) {
  PvBuilder b(name, class_name);
  b.ResourceVersion("1")
      .Capacity(capacity)
      .VolumeMode("Filesystem")
      .Available();
  if (!node.empty()) b.NodeAffinity(kNodeLabelKey, {node});
  if (bound_to != nullptr) b.BoundTo(*bound_to);
  return b.Obj();
}

const api::PersistentVolumeClaim kUnboundPvc =
    TestPvc("unbound-pvc", "1G", ClaimState::kUnbound, "", kWaitClass);
const api::PersistentVolumeClaim kUnboundPvc2 =
    TestPvc("unbound-pvc2", "5G", ClaimState::kUnbound, "", kWaitClass);
const api::PersistentVolumeClaim kPreboundPvc = TestPvc(
    "prebound-pvc", "1G", ClaimState::kPrebound, "pv-node1a", kWaitClass);
const api::PersistentVolumeClaim kBoundPvc =
    TestPvc("bound-pvc", "1G", ClaimState::kBound, "pv-bound", kWaitClass);
const api::PersistentVolumeClaim kImmediateUnboundPvc = TestPvc(
    "immediate-unbound-pvc", "1G", ClaimState::kUnbound, "", kImmediateClass);
const api::PersistentVolumeClaim kImmediateBoundPvc =
    TestPvc("immediate-bound-pvc", "1G", ClaimState::kBound,
            "pv-bound-immediate", kImmediateClass);
const api::PersistentVolumeClaim kProvisionedPvc =
    TestPvc("provisioned-pvc", "1Gi", ClaimState::kUnbound, "",
            kWaitClassWithProvisioner);
const api::PersistentVolumeClaim kNoProvisionerPvc =
    TestPvc("no-provisioner-pvc", "1Gi", ClaimState::kUnbound, "", kWaitClass);
const api::PersistentVolumeClaim kTopoMismatchPvc = TestPvc(
    "topo-mismatch-pvc", "1Gi", ClaimState::kUnbound, "", kTopoMismatchClass);
const api::PersistentVolumeClaim kSelectedNodePvc =
    TestPvc("provisioned-pvc", "1Gi", ClaimState::kSelectedNode, "",
            kWaitClassWithProvisioner);

const api::PersistentVolume kPvNode1a =
    TestPv("pv-node1a", "node1", "5G", nullptr, kWaitClass);
const api::PersistentVolume kPvNode1b =
    TestPv("pv-node1b", "node1", "10G", nullptr, kWaitClass);
const api::PersistentVolume kPvNode2 =
    TestPv("pv-node2", "node2", "1G", nullptr, kWaitClass);
const api::PersistentVolume kPvBound =
    TestPv("pv-bound", "node1", "1G", &kBoundPvc, kWaitClass);
const api::PersistentVolume kPvBoundImmediate = TestPv(
    "pv-bound-immediate", "node1", "1G", &kImmediateBoundPvc, kImmediateClass);
const api::PersistentVolume kPvBoundImmediateNode2 = TestPv(
    "pv-bound-immediate", "node2", "1G", &kImmediateBoundPvc, kImmediateClass);

api::Pod TestPod() {
  return testing::PodBuilder("test-pod")
      .Namespace("testns")
      .Node("node1")
      .Obj();
}

// makeGenericEphemeralPVC("test-volume", owned).
api::PersistentVolumeClaim GenericEphemeralPvc(bool owned) {
  PvcBuilder b("test-pod-test-volume", kImmediateClass, "testns");
  b.Uid("pvc-uid").ResourceVersion("1").Request("1G").BoundPv("pv-bound");
  if (owned) b.ControlledBy(TestPod());
  return b.Obj();
}

const api::PersistentVolumeClaim kCorrectGenericPvc = GenericEphemeralPvc(true);
const api::PersistentVolume kPvBoundGeneric =
    TestPv("pv-bound", "node1", "1G", &kCorrectGenericPvc, kWaitClass);

struct Scenario {
  std::string name;
  std::vector<api::PersistentVolume> pvs;
  // The pod's claims, as volumes vol0, vol1, ...; also the cluster's
  // claims unless `cluster_pvcs` is set.
  std::vector<api::PersistentVolumeClaim> pod_pvcs;
  std::optional<std::vector<api::PersistentVolumeClaim>> cluster_pvcs;
  std::optional<api::Pod> pod;  // default: TestPod() with pod_pvcs

  // Expected outcome: an error (failed PreFilter or FindPodVolumes), or the
  // reasons with the bindings (claim, PV) and the claims to provision.
  std::string error;
  Names reasons;
  Bindings bindings;
  Names provisions;
};

struct Outcome {
  std::string error;
  Names reasons;
  Bindings bindings;
  Names provisions;
};

Outcome RunScenario(const Scenario& s) {
  framework::InMemoryClusterObjects objects;
  objects.Upsert(
      MakeClass(kWaitClassWithProvisioner,
                api::kVolumeBindingWaitForFirstConsumer, "test-provisioner",
                {Topology(kNodeLabelKey, {"node1", "reference-value"})}));
  objects.Upsert(MakeClass(kImmediateClass, api::kVolumeBindingImmediate));
  objects.Upsert(MakeClass(kWaitClass, api::kVolumeBindingWaitForFirstConsumer,
                           "kubernetes.io/no-provisioner"));
  objects.Upsert(MakeClass(
      kTopoMismatchClass, api::kVolumeBindingWaitForFirstConsumer,
      "test-provisioner", {Topology(kNodeLabelKey, {"reference-value"})}));
  for (const auto& pv : s.pvs) objects.Upsert(pv);
  for (const auto& pvc : s.cluster_pvcs.value_or(s.pod_pvcs)) {
    objects.Upsert(pvc);
  }
  api::Pod pod;
  if (s.pod) {
    pod = *s.pod;
  } else {
    testing::PodBuilder b("test-pod");
    b.Namespace("testns").Node("node1");
    for (size_t i = 0; i < s.pod_pvcs.size(); ++i) {
      b.PvcVolume("vol" + std::to_string(i), s.pod_pvcs[i].metadata.name);
    }
    pod = b.Obj();
  }
  const api::Node node =
      testing::NodeBuilder("node1").Label(kNodeLabelKey, "node1").Obj();

  Outcome out;
  AssumeCache cache;
  auto claims = ReadPodClaims(pod, objects, cache);
  if (!claims.ok()) {
    out.error = claims.error().message();
    return out;
  }
  PodVolumeClaims classified = ClassifyClaims(*claims, objects, cache);
  if (!classified.unbound_immediate.empty()) {
    out.error = kUnboundImmediate;
    return out;
  }
  auto found = FindPodVolumes(classified, node);
  if (!found.ok()) {
    out.error = found.error().message();
    return out;
  }
  out.reasons = found->reasons;
  for (const auto& b : found->volumes.static_bindings) {
    out.bindings.emplace_back(b.claim->metadata.name, b.volume->metadata.name);
  }
  for (const auto& c : found->volumes.dynamic_provisions) {
    out.provisions.push_back(c->metadata.name);
  }
  return out;
}

// ctest lists each case by its name, not by its bytes.
void PrintTo(const Scenario& c, std::ostream* os) { *os << c.name; }

class FindPodVolumesTest : public ::testing::TestWithParam<Scenario> {};

TEST_P(FindPodVolumesTest, Outcome) {
  const Scenario& s = GetParam();
  Outcome got = RunScenario(s);
  EXPECT_EQ(got.error, s.error);
  EXPECT_EQ(got.reasons, s.reasons);
  EXPECT_EQ(got.bindings, s.bindings);
  EXPECT_EQ(got.provisions, s.provisions);
}

const std::string kBindConflict(kErrReasonBindConflict);
const std::string kNodeConflict(kErrReasonNodeConflict);
const std::string kPvNotExist(kErrReasonPVNotExist);

// TestFindPodVolumesWithoutProvisioning.
INSTANTIATE_TEST_SUITE_P(
    WithoutProvisioning, FindPodVolumesTest,
    ::testing::Values(
        Scenario{.name = "no_volumes", .pod = TestPod()},
        Scenario{.name = "no_pvcs",
                 .pod = testutil::WithOtherVolume(TestPod(), "scratch")},
        Scenario{.name = "pvc_not_found",
                 .pod_pvcs = {kBoundPvc},
                 .cluster_pvcs = std::vector<api::PersistentVolumeClaim>{},
                 .error = "persistentvolumeclaim \"bound-pvc\" not found"},
        Scenario{
            .name = "bound_pvc", .pvs = {kPvBound}, .pod_pvcs = {kBoundPvc}},
        Scenario{.name = "bound_pvc_pv_not_exists",
                 .pod_pvcs = {kBoundPvc},
                 .reasons = {kPvNotExist}},
        Scenario{.name = "prebound_pvc",
                 .pvs = {TestPv("pv-node1a", "node1", "5G", &kUnboundPvc,
                                kWaitClass)},
                 .pod_pvcs = {kPreboundPvc},
                 .error = kUnboundImmediate},
        Scenario{.name = "unbound_pvc_pv_same_node",
                 .pvs = {kPvNode2, kPvNode1a, kPvNode1b},
                 .pod_pvcs = {kUnboundPvc},
                 .bindings = {{"unbound-pvc", "pv-node1a"}}},
        Scenario{.name = "unbound_pvc_pv_different_node",
                 .pvs = {kPvNode2},
                 .pod_pvcs = {kUnboundPvc},
                 .reasons = {kBindConflict}},
        Scenario{.name = "two_unbound_pvcs",
                 .pvs = {kPvNode1a, kPvNode1b},
                 .pod_pvcs = {kUnboundPvc, kUnboundPvc2},
                 .bindings = {{"unbound-pvc", "pv-node1a"},
                              {"unbound-pvc2", "pv-node1b"}}},
        Scenario{.name = "two_unbound_pvcs_order_by_size",
                 .pvs = {kPvNode1a, kPvNode1b},
                 .pod_pvcs = {kUnboundPvc2, kUnboundPvc},
                 .bindings = {{"unbound-pvc", "pv-node1a"},
                              {"unbound-pvc2", "pv-node1b"}}},
        Scenario{.name = "two_unbound_pvcs_partial_match",
                 .pvs = {kPvNode1a},
                 .pod_pvcs = {kUnboundPvc, kUnboundPvc2},
                 .reasons = {kBindConflict},
                 .bindings = {{"unbound-pvc", "pv-node1a"}}},
        Scenario{.name = "one_bound_one_unbound",
                 .pvs = {kPvBound, kPvNode1a},
                 .pod_pvcs = {kUnboundPvc, kBoundPvc},
                 .bindings = {{"unbound-pvc", "pv-node1a"}}},
        Scenario{.name = "one_bound_one_unbound_no_match",
                 .pvs = {kPvBound, kPvNode2},
                 .pod_pvcs = {kUnboundPvc, kBoundPvc},
                 .reasons = {kBindConflict}},
        Scenario{.name = "one_prebound_one_unbound",
                 .pvs = {kPvNode1a, kPvNode1b},
                 .pod_pvcs = {kUnboundPvc, kPreboundPvc},
                 .error = kUnboundImmediate},
        Scenario{.name = "immediate_bound_pvc",
                 .pvs = {kPvBoundImmediate},
                 .pod_pvcs = {kImmediateBoundPvc}},
        Scenario{.name = "immediate_bound_pvc_wrong_node",
                 .pvs = {kPvBoundImmediateNode2},
                 .pod_pvcs = {kImmediateBoundPvc},
                 .reasons = {kNodeConflict}},
        Scenario{.name = "immediate_unbound_pvc",
                 .pod_pvcs = {kImmediateUnboundPvc},
                 .error = kUnboundImmediate},
        Scenario{.name = "immediate_unbound_pvc_delayed_mode_bound",
                 .pvs = {kPvBound},
                 .pod_pvcs = {kImmediateUnboundPvc, kBoundPvc},
                 .error = kUnboundImmediate},
        Scenario{.name = "immediate_unbound_pvc_delayed_mode_unbound",
                 .pod_pvcs = {kImmediateUnboundPvc, kUnboundPvc},
                 .error = kUnboundImmediate},
        Scenario{.name = "generic_ephemeral_no_pvc",
                 .pod = testutil::WithEphemeralVolume(TestPod(), "no-such-pvc"),
                 .error = "waiting for ephemeral volume controller to create "
                          "the persistentvolumeclaim "
                          "\"test-pod-no-such-pvc\""},
        Scenario{
            .name = "generic_ephemeral_with_pvc",
            .pvs = {kPvBoundGeneric},
            .cluster_pvcs = std::vector{kCorrectGenericPvc},
            .pod = testutil::WithEphemeralVolume(TestPod(), "test-volume")},
        Scenario{.name = "generic_ephemeral_wrong_pvc",
                 .pvs = {kPvBoundGeneric},
                 .cluster_pvcs = std::vector{GenericEphemeralPvc(false)},
                 .pod = testutil::WithEphemeralVolume(TestPod(), "test-volume"),
                 .error = "PVC testns/test-pod-test-volume was not created for "
                          "pod testns/test-pod (pod is not owner)"}),
    [](const ::testing::TestParamInfo<Scenario>& info) {
      return info.param.name;
    });

// TestFindPodVolumesWithProvisioning, plus the selected-node fast path.
INSTANTIATE_TEST_SUITE_P(
    WithProvisioning, FindPodVolumesTest,
    ::testing::Values(
        Scenario{.name = "one_provisioned",
                 .pod_pvcs = {kProvisionedPvc},
                 .provisions = {"provisioned-pvc"}},
        Scenario{.name = "two_unbound_pvcs_one_matched_one_provisioned",
                 .pvs = {kPvNode1a},
                 .pod_pvcs = {kUnboundPvc, kProvisionedPvc},
                 .bindings = {{"unbound-pvc", "pv-node1a"}},
                 .provisions = {"provisioned-pvc"}},
        Scenario{.name = "one_bound_one_provisioned",
                 .pvs = {kPvBound},
                 .pod_pvcs = {kBoundPvc, kProvisionedPvc},
                 .provisions = {"provisioned-pvc"}},
        Scenario{.name = "one_binding_one_selected_node",
                 .pvs = {kPvBound},
                 .pod_pvcs = {kBoundPvc, kSelectedNodePvc},
                 .provisions = {"provisioned-pvc"}},
        Scenario{.name = "immediate_unbound_pvc",
                 .pod_pvcs = {kImmediateUnboundPvc},
                 .error = kUnboundImmediate},
        Scenario{.name = "one_immediate_bound_one_provisioned",
                 .pvs = {kPvBoundImmediate},
                 .pod_pvcs = {kImmediateBoundPvc, kProvisionedPvc},
                 .provisions = {"provisioned-pvc"}},
        Scenario{.name = "invalid_provisioner",
                 .pod_pvcs = {kNoProvisionerPvc},
                 .reasons = {kBindConflict}},
        Scenario{.name = "volume_topology_unsatisfied",
                 .pod_pvcs = {kTopoMismatchPvc},
                 .reasons = {kBindConflict}},
        // FindPodVolumes' fast path: a node chosen earlier is the only one.
        Scenario{.name = "selected_node_elsewhere",
                 .pod_pvcs = {PvcBuilder(kSelectedNodePvc.metadata.name,
                                         kWaitClassWithProvisioner, "testns")
                                  .SelectedNode("node2")
                                  .Obj()},
                 .reasons = {kBindConflict}}),
    [](const ::testing::TestParamInfo<Scenario>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace ksched::plugins::volumebinding
