// PreFilter and Filter of VolumeBinding: the cases of kube-scheduler's
// volume_binding_test.go TestVolumeBinding (Filter statuses only: the
// capacity-priority scores need a gate that is off in v1.32), and more in
// the same form for what kube covers in binder_test.go.
#include "pkg/plugins/volumebinding/volume_binding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/volumebinding/binder.h"
#include "pkg/plugins/volumebinding/test_utils.h"

namespace ksched::plugins {
namespace {

namespace vb = volumebinding;
using framework::Code;
using framework::Status;
using vb::testutil::MakeNode;
using vb::testutil::PvBuilder;
using vb::testutil::PvcBuilder;

const std::string kBindConflict(vb::kErrReasonBindConflict);
const std::string kNodeConflict(vb::kErrReasonNodeConflict);
const std::string kPvNotExist(vb::kErrReasonPVNotExist);
using vb::testutil::kHostname;
using vb::testutil::kZone;
const std::string kRegion = "topology.kubernetes.io/region";

Status Unresolvable(std::vector<std::string> reasons) {
  return Status(Code::kUnschedulableAndUnresolvable, std::move(reasons));
}
Status Unresolvable(std::string reason) {
  return Status::Unresolvable(std::move(reason));
}

struct Case {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<api::PersistentVolumeClaim> pvcs;
  std::vector<api::PersistentVolume> pvs;
  Status want_pre_filter;
  // One per node, when PreFilter succeeded.
  std::vector<Status> want_filter;
};

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

api::Pod PodA() { return testing::PodBuilder("pod-a").Obj(); }
api::Pod PodWithClaims(std::vector<std::string> claims) {
  testing::PodBuilder b("pod-a");
  for (size_t i = 0; i < claims.size(); ++i) {
    b.PvcVolume("vol" + std::to_string(i), claims[i]);
  }
  return b.Obj();
}

// ctest lists each case by its name, not by its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class VolumeBindingTest : public ::testing::TestWithParam<Case> {};

TEST_P(VolumeBindingTest, PreFilterAndFilter) {
  const Case& c = GetParam();
  std::vector<framework::NodeInfoPtr> infos;
  for (const api::Node& node : c.nodes) {
    infos.push_back(testing::MakeNodeInfo(node));
  }
  testing::FakeHandle handle(infos);
  vb::testutil::AddTestClasses(handle.objects_);
  for (const auto& pvc : c.pvcs) handle.objects_.Upsert(pvc);
  for (const auto& pv : c.pvs) handle.objects_.Upsert(pv);
  auto plugin = NewVolumeBinding(nullptr, handle);
  ASSERT_TRUE(plugin.ok()) << plugin.error().message();
  auto* pl = dynamic_cast<VolumeBinding*>(plugin->get());
  ASSERT_NE(pl, nullptr);

  auto pod = framework::PodInfo::Create(std::make_shared<api::Pod>(c.pod));
  framework::CycleState state;
  framework::PreFilterResult result;
  Status got = pl->PreFilter(state, *pod, infos, &result);
  EXPECT_EQ(got, c.want_pre_filter)
      << got.Message() << " want " << c.want_pre_filter.Message();
  EXPECT_TRUE(result.AllNodes());
  // The framework runs no Filter after a PreFilter that did not succeed.
  if (!got.IsSuccess()) return;
  ASSERT_EQ(c.want_filter.size(), infos.size());
  for (size_t i = 0; i < infos.size(); ++i) {
    Status s = pl->Filter(state, *pod, *infos[i]);
    EXPECT_EQ(s, c.want_filter[i]) << infos[i]->name() << ": " << s.Message()
                                   << " want " << c.want_filter[i].Message();
  }
}

// TestVolumeBinding.
INSTANTIATE_TEST_SUITE_P(
    KubeTestVolumeBinding, VolumeBindingTest,
    ::testing::Values(
        Case{.name = "pod_has_no_pvcs",
             .pod = PodA(),
             .nodes = {MakeNode("node-a").Obj()},
             .want_pre_filter = Status::Skip()},
        Case{.name = "all_bound",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "wait-sc").BoundPv("pv-a").Obj()},
             .pvs = {PvBuilder("pv-a", "wait-sc").Available().Obj()},
             .want_filter = {Status()}},
        Case{.name = "pvc_does_not_exist",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .want_pre_filter =
                 Unresolvable("persistentvolumeclaim \"pvc-a\" not found")},
        Case{.name = "part_of_pvcs_do_not_exist",
             .pod = PodWithClaims({"pvc-a", "pvc-b"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "wait-sc").BoundPv("pv-a").Obj()},
             .want_pre_filter =
                 Unresolvable("persistentvolumeclaim \"pvc-b\" not found")},
        Case{.name = "immediate_claims_not_bound",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "immediate-sc").Obj()},
             .want_pre_filter = Unresolvable(
                 "pod has unbound immediate PersistentVolumeClaims")},
        Case{.name = "unbound_claims_no_matches",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "wait-sc").Obj()},
             .want_filter = {Unresolvable(kBindConflict)}},
        Case{.name = "bound_and_unbound_unsatisfied",
             .pod = PodWithClaims({"pvc-a", "pvc-b"}),
             .nodes = {MakeNode("node-a").Label("foo", "barbar").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "wait-sc").BoundPv("pv-a").Obj(),
                      PvcBuilder("pvc-b", "wait-sc").Obj()},
             .pvs = {PvBuilder("pv-a", "wait-sc")
                         .Available()
                         .NodeAffinity("foo", {"bar"})
                         .Obj()},
             .want_filter = {Unresolvable(std::vector<std::string>{
                 kNodeConflict, kBindConflict})}},
        Case{.name = "pv_not_found",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "wait-sc").BoundPv("pv-a").Obj()},
             .want_filter = {Unresolvable(kPvNotExist)}},
        Case{.name = "pv_not_found_claim_lost",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "wait-sc")
                          .BoundPv("pv-a")
                          .Phase("Lost")
                          .Obj()},
             .want_pre_filter = Unresolvable(
                 "persistentvolumeclaim \"pvc-a\" bound to "
                 "non-existent persistentvolume \"pv-a\"")},
        Case{.name = "local_volumes_with_close_capacity",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj(), MakeNode("node-b").Obj(),
                       MakeNode("node-c").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "wait-sc").Request("50Gi").Obj()},
             .pvs = {PvBuilder("pv-a-0", "wait-sc")
                         .Available()
                         .Capacity("200Gi")
                         .NodeAffinity(kHostname, {"node-a"})
                         .Obj(),
                     PvBuilder("pv-a-1", "wait-sc")
                         .Available()
                         .Capacity("200Gi")
                         .NodeAffinity(kHostname, {"node-a"})
                         .Obj(),
                     PvBuilder("pv-b-0", "wait-sc")
                         .Available()
                         .Capacity("100Gi")
                         .NodeAffinity(kHostname, {"node-b"})
                         .Obj(),
                     PvBuilder("pv-b-1", "wait-sc")
                         .Available()
                         .Capacity("100Gi")
                         .NodeAffinity(kHostname, {"node-b"})
                         .Obj()},
             .want_filter = {Status(), Status(), Unresolvable(kBindConflict)}},
        Case{
            .name = "local_volumes_with_close_capacity_multiple_pvcs",
            .pod = PodWithClaims({"pvc-0", "pvc-1"}),
            .nodes = {MakeNode("node-a").Obj(), MakeNode("node-b").Obj(),
                      MakeNode("node-c").Obj()},
            .pvcs = {PvcBuilder("pvc-0", "wait-sc").Request("50Gi").Obj(),
                     PvcBuilder("pvc-1", "wait-hdd-sc").Request("100Gi").Obj()},
            .pvs = {PvBuilder("pv-a-0", "wait-sc")
                        .Available()
                        .Capacity("200Gi")
                        .NodeAffinity(kHostname, {"node-a"})
                        .Obj(),
                    PvBuilder("pv-a-1", "wait-sc")
                        .Available()
                        .Capacity("200Gi")
                        .NodeAffinity(kHostname, {"node-a"})
                        .Obj(),
                    PvBuilder("pv-a-2", "wait-hdd-sc")
                        .Available()
                        .Capacity("200Gi")
                        .NodeAffinity(kHostname, {"node-a"})
                        .Obj(),
                    PvBuilder("pv-a-3", "wait-hdd-sc")
                        .Available()
                        .Capacity("200Gi")
                        .NodeAffinity(kHostname, {"node-a"})
                        .Obj(),
                    PvBuilder("pv-b-0", "wait-sc")
                        .Available()
                        .Capacity("100Gi")
                        .NodeAffinity(kHostname, {"node-b"})
                        .Obj(),
                    PvBuilder("pv-b-1", "wait-sc")
                        .Available()
                        .Capacity("100Gi")
                        .NodeAffinity(kHostname, {"node-b"})
                        .Obj(),
                    PvBuilder("pv-b-2", "wait-hdd-sc")
                        .Available()
                        .Capacity("100Gi")
                        .NodeAffinity(kHostname, {"node-b"})
                        .Obj(),
                    PvBuilder("pv-b-3", "wait-hdd-sc")
                        .Available()
                        .Capacity("100Gi")
                        .NodeAffinity(kHostname, {"node-b"})
                        .Obj()},
            .want_filter = {Status(), Status(), Unresolvable(kBindConflict)}},
        Case{.name = "zonal_volumes_with_close_capacity",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("zone-a-node-a")
                           .Label(kRegion, "region-a")
                           .Label(kZone, "zone-a")
                           .Obj(),
                       MakeNode("zone-a-node-b")
                           .Label(kRegion, "region-a")
                           .Label(kZone, "zone-a")
                           .Obj(),
                       MakeNode("zone-b-node-a")
                           .Label(kRegion, "region-b")
                           .Label(kZone, "zone-b")
                           .Obj(),
                       MakeNode("zone-b-node-b")
                           .Label(kRegion, "region-b")
                           .Label(kZone, "zone-b")
                           .Obj(),
                       MakeNode("zone-c-node-a")
                           .Label(kRegion, "region-c")
                           .Label(kZone, "zone-c")
                           .Obj(),
                       MakeNode("zone-c-node-b")
                           .Label(kRegion, "region-c")
                           .Label(kZone, "zone-c")
                           .Obj()},
             .pvcs = {PvcBuilder("pvc-a", "wait-sc").Request("50Gi").Obj()},
             .pvs = {PvBuilder("pv-a-0", "wait-sc")
                         .Available()
                         .Capacity("200Gi")
                         .NodeAffinity(kRegion, {"region-a"})
                         .NodeAffinity(kZone, {"zone-a"})
                         .Obj(),
                     PvBuilder("pv-a-1", "wait-sc")
                         .Available()
                         .Capacity("200Gi")
                         .NodeAffinity(kRegion, {"region-a"})
                         .NodeAffinity(kZone, {"zone-a"})
                         .Obj(),
                     PvBuilder("pv-b-0", "wait-sc")
                         .Available()
                         .Capacity("100Gi")
                         .NodeAffinity(kRegion, {"region-b"})
                         .NodeAffinity(kZone, {"zone-b"})
                         .Obj(),
                     PvBuilder("pv-b-1", "wait-sc")
                         .Available()
                         .Capacity("100Gi")
                         .NodeAffinity(kRegion, {"region-b"})
                         .NodeAffinity(kZone, {"zone-b"})
                         .Obj()},
             .want_filter = {Status(), Status(), Status(), Status(),
                             Unresolvable(kBindConflict),
                             Unresolvable(kBindConflict)}}),
    CaseName);

api::Node ZoneNode(const std::string& name, const std::string& zone) {
  return MakeNode(name).Label(kZone, zone).Obj();
}

api::LabelSelector MatchLabel(std::string key, std::string value) {
  api::LabelSelector selector;
  selector.match_labels.Set(key, std::move(value));
  return selector;
}

// The other claim states PreFilter rejects, and the volume matching and
// provisioning rules of binder.go / pv_helpers.go, one rule per case.
INSTANTIATE_TEST_SUITE_P(
    Claims, VolumeBindingTest,
    ::testing::Values(
        Case{.name = "deleting_pvc",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "wait-sc").Deleting().Obj()},
             .want_pre_filter = Unresolvable(
                 "persistentvolumeclaim \"pvc-a\" is being deleted")},
        // IsDelayBindingMode: a class that does not exist is not delayed.
        Case{.name = "missing_storage_class",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "no-such-sc").Obj()},
             .want_pre_filter = Unresolvable(
                 "pod has unbound immediate PersistentVolumeClaims")},
        Case{.name = "claim_without_class",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "").NoClass().Obj()},
             .want_pre_filter = Unresolvable(
                 "pod has unbound immediate PersistentVolumeClaims")},
        // Pre-bound by volumeName: left to the PV controller.
        Case{.name = "prebound_claim_in_wait_class",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "wait-sc").PreboundPv("pv-a").Obj()},
             .pvs = {PvBuilder("pv-a", "wait-sc").Available().Obj()},
             .want_pre_filter = Unresolvable(
                 "pod has unbound immediate PersistentVolumeClaims")},
        // The beta annotation names the class when the field is absent.
        Case{.name = "beta_class_annotation",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "")
                          .NoClass()
                          .Annotation(std::string(api::kAnnBetaStorageClass),
                                      "wait-sc")
                          .Obj()},
             .pvs = {PvBuilder("pv-a", "wait-sc").Available().Obj()},
             .want_filter = {Status()}},
        Case{.name = "ephemeral_claim_missing",
             .pod = vb::testutil::WithEphemeralVolume(PodA(), "scratch"),
             .nodes = {MakeNode("node-a").Obj()},
             .want_pre_filter = Unresolvable(
                 "waiting for ephemeral volume controller to create the "
                 "persistentvolumeclaim \"pod-a-scratch\"")},
        Case{.name = "ephemeral_claim_not_owned",
             .pod = vb::testutil::WithEphemeralVolume(PodA(), "scratch"),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pod-a-scratch", "wait-sc").Obj()},
             .want_pre_filter = Unresolvable(
                 "PVC default/pod-a-scratch was not created for "
                 "pod default/pod-a (pod is not owner)")},
        Case{.name = "ephemeral_claim_owned_and_provisionable",
             .pod = vb::testutil::WithEphemeralVolume(PodA(), "scratch"),
             .nodes = {ZoneNode("node-a", "zone-a"),
                       ZoneNode("node-b", "zone-b")},
             .pvcs = {PvcBuilder("pod-a-scratch", "zonal-sc")
                          .ControlledBy(PodA())
                          .Obj()},
             .want_filter = {Status(), Unresolvable(kBindConflict)}},
        Case{
            .name = "bound_pv_node_affinity",
            .pod = PodWithClaims({"pvc-a"}),
            .nodes = {MakeNode("node-a").Obj(), MakeNode("node-b").Obj()},
            .pvcs = {PvcBuilder("pvc-a", "immediate-sc").BoundPv("pv-a").Obj()},
            .pvs = {PvBuilder("pv-a", "immediate-sc")
                        .NodeAffinity(kHostname, {"node-a"})
                        .Obj()},
            .want_filter = {Status(), Unresolvable(kNodeConflict)}},
        // CheckNodeAffinity matches a node reduced to its labels: a field
        // requirement on metadata.name never matches.
        Case{
            .name = "bound_pv_affinity_on_node_name_field",
            .pod = PodWithClaims({"pvc-a"}),
            .nodes = {MakeNode("node-a").Obj()},
            .pvcs = {PvcBuilder("pvc-a", "immediate-sc").BoundPv("pv-a").Obj()},
            .pvs = {PvBuilder("pv-a", "immediate-sc")
                        .AddExpression("metadata.name",
                                       api::NodeSelectorOperator::kIn,
                                       {"node-a"}, /*field=*/true)
                        .Obj()},
            .want_filter = {Unresolvable(kNodeConflict)}},
        // Reasons come in kube's order, whatever the claims' order.
        Case{.name = "reasons_in_kube_order",
             .pod = PodWithClaims({"pvc-b", "pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "wait-sc").BoundPv("pv-a").Obj(),
                      PvcBuilder("pvc-b", "wait-sc").Obj()},
             .want_filter = {Unresolvable(std::vector<std::string>{
                 kBindConflict, kPvNotExist})}}),
    CaseName);

INSTANTIATE_TEST_SUITE_P(
    StaticVolumes, VolumeBindingTest,
    ::testing::Values(
        Case{.name = "pv_too_small",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "static-sc").Request("10Gi").Obj()},
             .pvs = {PvBuilder("pv-a", "static-sc")
                         .Available()
                         .Capacity("5Gi")
                         .Obj()},
             .want_filter = {Unresolvable(kBindConflict)}},
        Case{.name = "access_modes",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj(), MakeNode("node-b").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "static-sc")
                          .AccessModes({"ReadWriteOnce"})
                          .Obj()},
             .pvs = {PvBuilder("pv-rwx", "static-sc")
                         .Available()
                         .AccessModes({"ReadWriteMany"})
                         .NodeAffinity(kHostname, {"node-a"})
                         .Obj(),
                     PvBuilder("pv-rwo", "static-sc")
                         .Available()
                         .AccessModes({"ReadOnlyMany", "ReadWriteOnce"})
                         .NodeAffinity(kHostname, {"node-b"})
                         .Obj()},
             .want_filter = {Unresolvable(kBindConflict), Status()}},
        Case{.name = "volume_mode",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs =
                 {PvcBuilder("pvc-a", "static-sc").VolumeMode("Block").Obj()},
             .pvs = {PvBuilder("pv-a", "static-sc").Available().Obj()},
             .want_filter = {Unresolvable(kBindConflict)}},
        Case{.name = "claim_selector",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj(), MakeNode("node-b").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "static-sc")
                          .Selector(MatchLabel("tier", "gold"))
                          .Obj()},
             .pvs = {PvBuilder("pv-gold", "static-sc")
                         .Available()
                         .Label("tier", "gold")
                         .NodeAffinity(kHostname, {"node-a"})
                         .Obj(),
                     PvBuilder("pv-plain", "static-sc")
                         .Available()
                         .NodeAffinity(kHostname, {"node-b"})
                         .Obj()},
             .want_filter = {Status(), Unresolvable(kBindConflict)}},
        Case{.name = "pv_of_another_class",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "static-sc").Obj()},
             .pvs = {PvBuilder("pv-a", "wait-sc").Available().Obj()},
             .want_filter = {Unresolvable(kBindConflict)}},
        Case{.name = "pv_claimed_by_another_claim",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "static-sc").Obj()},
             .pvs = {PvBuilder("pv-a", "static-sc")
                         .Available()
                         .ClaimRef("default", "pvc-other")
                         .Obj()},
             .want_filter = {Unresolvable(kBindConflict)}},
        Case{.name = "pv_not_available",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "static-sc").Obj()},
             .pvs = {PvBuilder("pv-a", "static-sc").Phase("Released").Obj()},
             .want_filter = {Unresolvable(kBindConflict)}},
        Case{.name = "pv_being_deleted",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "static-sc").Obj()},
             .pvs =
                 {PvBuilder("pv-a", "static-sc").Available().Deleting().Obj()},
             .want_filter = {Unresolvable(kBindConflict)}},
        // A volume reserved for the claim is its only candidate, whatever
        // its phase, and only where its node affinity allows.
        Case{.name = "pv_prebound_to_the_claim",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj(), MakeNode("node-b").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "static-sc").Obj()},
             .pvs = {PvBuilder("pv-a", "static-sc")
                         .Phase("Pending")
                         .ClaimRef("default", "pvc-a")
                         .NodeAffinity(kHostname, {"node-a"})
                         .Obj(),
                     PvBuilder("pv-b", "static-sc")
                         .Available()
                         .NodeAffinity(kHostname, {"node-b"})
                         .Obj()},
             .want_filter = {Status(), Unresolvable(kBindConflict)}}),
    CaseName);

INSTANTIATE_TEST_SUITE_P(
    Provisioning, VolumeBindingTest,
    ::testing::Values(
        Case{.name = "allowed_topologies",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {ZoneNode("node-a", "zone-a"),
                       ZoneNode("node-b", "zone-b"), MakeNode("node-c").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "zonal-sc").Request("1Gi").Obj()},
             .want_filter = {Status(), Unresolvable(kBindConflict),
                             Unresolvable(kBindConflict)}},
        Case{.name = "no_provisioner",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {MakeNode("node-a").Obj()},
             .pvcs = {PvcBuilder("pvc-a", "static-sc").Obj()},
             .want_filter = {Unresolvable(kBindConflict)}},
        // A static volume first, provisioning where there is none.
        Case{.name = "static_volume_or_provisioning",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {ZoneNode("node-a", "zone-a"),
                       ZoneNode("node-b", "zone-b"),
                       ZoneNode("node-c", "zone-c")},
             .pvcs = {PvcBuilder("pvc-a", "zonal-sc").Obj()},
             .pvs = {PvBuilder("pv-b", "zonal-sc")
                         .Available()
                         .NodeAffinity(kHostname, {"node-b"})
                         .Obj()},
             .want_filter = {Status(), Status(), Unresolvable(kBindConflict)}},
        Case{.name = "selected_node_annotation",
             .pod = PodWithClaims({"pvc-a"}),
             .nodes = {ZoneNode("node-a", "zone-a"),
                       ZoneNode("node-b", "zone-a")},
             .pvcs =
                 {PvcBuilder("pvc-a", "zonal-sc").SelectedNode("node-b").Obj()},
             .want_filter = {Unresolvable(kBindConflict), Status()}}),
    CaseName);

}  // namespace
}  // namespace ksched::plugins
