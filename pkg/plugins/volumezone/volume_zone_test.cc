#include "pkg/plugins/volumezone/volume_zone.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::plugins {
namespace {

using framework::Code;
using framework::QueueingHint;

const std::string kBetaZone = "failure-domain.beta.kubernetes.io/zone";
const std::string kBetaRegion = "failure-domain.beta.kubernetes.io/region";
const std::string kZone = "topology.kubernetes.io/zone";
const std::string kRegion = "topology.kubernetes.io/region";
const std::string kConflict = "node(s) had no available volume zone";

api::PersistentVolume Pv(std::string name,
                         std::map<std::string, std::string> labels) {
  api::PersistentVolume pv;
  pv.metadata.name = std::move(name);
  for (const auto& [k, v] : labels) pv.metadata.labels.Set(k, v);
  return pv;
}

api::PersistentVolumeClaim Pvc(std::string name, std::string volume,
                               std::optional<std::string> class_name = {},
                               std::string ns = "default") {
  api::PersistentVolumeClaim pvc;
  pvc.metadata.name = std::move(name);
  pvc.metadata.ns = std::move(ns);
  pvc.spec.volume_name = std::move(volume);
  pvc.spec.storage_class_name = std::move(class_name);
  return pvc;
}

api::StorageClass Class(std::string name, std::optional<std::string> mode) {
  api::StorageClass sc;
  sc.metadata.name = std::move(name);
  sc.volume_binding_mode = std::move(mode);
  return sc;
}

// createPodWithVolume: one claim volume in namespace "default".
api::Pod PodWithClaim(const std::string& claim) {
  return testing::PodBuilder("pod")
      .Namespace("default")
      .PvcVolume("v", claim)
      .Obj();
}

api::Node Node(std::map<std::string, std::string> labels) {
  testing::NodeBuilder b("host1");
  for (const auto& [k, v] : labels) b.Label(k, v);
  return b.Obj();
}

struct Case {
  std::string name;
  api::Pod pod;
  api::Node node;
  Code pre_filter = Code::kSuccess;
  std::string pre_filter_reason = "";
  Code filter = Code::kSuccess;
  std::string filter_reason = "";
};

// Runs kube's harness: PreFilter, then Filter unless PreFilter rejected or
// skipped (ksched's framework calls Filter only after a success).
void RunCases(testing::FakeHandle& handle, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    VolumeZone plugin(handle);
    framework::CycleState state;
    auto pod = framework::PodInfo::Create(std::make_shared<api::Pod>(c.pod));
    framework::Status pre = plugin.PreFilter(state, *pod, {}, nullptr);
    EXPECT_EQ(pre.code(), c.pre_filter) << pre.Message();
    if (!c.pre_filter_reason.empty()) {
      EXPECT_EQ(pre.Message(), c.pre_filter_reason);
    }
    if (!pre.IsSuccess()) continue;
    framework::NodeInfoPtr node = testing::MakeNodeInfo(c.node);
    framework::Status status = plugin.Filter(state, *pod, *node);
    EXPECT_EQ(status.code(), c.filter) << status.Message();
    EXPECT_EQ(status.Message(), c.filter_reason);
  }
}

// kube's TestSingleZone.
TEST(VolumeZoneTest, SingleZone) {
  testing::FakeHandle handle;
  auto& o = handle.objects_;
  o.Upsert(Pv("Vol_1", {{kBetaZone, "us-west1-a"}}));
  o.Upsert(Pv("Vol_2", {{kBetaRegion, "us-west1"}, {"uselessLabel", "none"}}));
  o.Upsert(Pv("Vol_3", {{kBetaRegion, "us-west1"}}));
  o.Upsert(Pv("Vol_Stable_1", {{kZone, "us-west1-a"}}));
  o.Upsert(
      Pv("Vol_Stable_2", {{kRegion, "us-west1"}, {"uselessLabel", "none"}}));
  o.Upsert(
      Pv("Vol_Stable_3", {{kZone, "us-west1-a"}, {kRegion, "us-west1-a"}}));
  for (const auto& [claim, volume] :
       std::vector<std::pair<std::string, std::string>>{
           {"PVC_1", "Vol_1"},
           {"PVC_2", "Vol_2"},
           {"PVC_3", "Vol_3"},
           {"PVC_4", "Vol_not_exist"},
           {"PVC_Stable_1", "Vol_Stable_1"},
           {"PVC_Stable_2", "Vol_Stable_2"},
           {"PVC_Stable_3", "Vol_Stable_3"}}) {
    o.Upsert(Pvc(claim, volume));
  }
  const std::pair<std::string, std::string> useless{"uselessLabel", "none"};
  const Code kUU = Code::kUnschedulableAndUnresolvable;
  RunCases(handle,
           {
               {.name = "pod without volume",
                .pod = testing::PodBuilder("pod").Obj(),
                .node = Node({{kBetaZone, "us-west1-a"}}),
                .pre_filter = Code::kSkip},
               {.name = "node without labels",
                .pod = PodWithClaim("PVC_1"),
                .node = Node({})},
               {.name = "beta zone label matched",
                .pod = PodWithClaim("PVC_1"),
                .node = Node({{kBetaZone, "us-west1-a"}, useless})},
               {.name = "beta region label matched",
                .pod = PodWithClaim("PVC_2"),
                .node = Node({{kBetaRegion, "us-west1"}, useless})},
               {.name = "beta region label doesn't match",
                .pod = PodWithClaim("PVC_2"),
                .node = Node({{kBetaRegion, "no_us-west1"}, useless}),
                .filter = kUU,
                .filter_reason = kConflict},
               {.name = "beta zone label doesn't match",
                .pod = PodWithClaim("PVC_1"),
                .node = Node({{kBetaZone, "no_us-west1-a"}, useless}),
                .filter = kUU,
                .filter_reason = kConflict},
               {.name = "zone label matched",
                .pod = PodWithClaim("PVC_Stable_1"),
                .node = Node({{kZone, "us-west1-a"}, useless})},
               {.name = "region label matched",
                .pod = PodWithClaim("PVC_Stable_2"),
                .node = Node({{kRegion, "us-west1"}, useless})},
               {.name = "region label doesn't match",
                .pod = PodWithClaim("PVC_Stable_2"),
                .node = Node({{kRegion, "no_us-west1"}, useless}),
                .filter = kUU,
                .filter_reason = kConflict},
               {.name = "zone label doesn't match",
                .pod = PodWithClaim("PVC_Stable_1"),
                .node = Node({{kZone, "no_us-west1-a"}, useless}),
                .filter = kUU,
                .filter_reason = kConflict},
               {.name = "pv with zone and region, node with only zone",
                .pod = PodWithClaim("PVC_Stable_3"),
                .node = Node({{kZone, "us-west1-a"}}),
                .filter = kUU,
                .filter_reason = kConflict},
               {.name = "pv with zone,node with beta zone",
                .pod = PodWithClaim("PVC_Stable_1"),
                .node = Node({{kBetaZone, "us-west1-a"}}),
                .filter = kUU,
                .filter_reason = kConflict},
               {.name = "pv with beta label,node with ga label, matched",
                .pod = PodWithClaim("PVC_1"),
                .node = Node({{kZone, "us-west1-a"}})},
               {.name = "pv with beta label,node with ga label, don't match",
                .pod = PodWithClaim("PVC_1"),
                .node = Node({{kZone, "us-west1-b"}}),
                .filter = kUU,
                .filter_reason = kConflict},
           });
}

// kube's TestMultiZone.
TEST(VolumeZoneTest, MultiZone) {
  testing::FakeHandle handle;
  auto& o = handle.objects_;
  o.Upsert(Pv("Vol_1", {{kBetaZone, "us-west1-a"}}));
  o.Upsert(Pv("Vol_2", {{kBetaZone, "us-west1-b"}, {"uselessLabel", "none"}}));
  o.Upsert(Pv("Vol_3", {{kBetaZone, "us-west1-c__us-west1-a"}}));
  o.Upsert(Pv("Vol_Stable_1", {{kZone, "us-west1-a"}}));
  o.Upsert(Pv("Vol_Stable_2", {{kZone, "us-west1-c__us-west1-a"}}));
  for (const auto& [claim, volume] :
       std::vector<std::pair<std::string, std::string>>{
           {"PVC_1", "Vol_1"},
           {"PVC_2", "Vol_2"},
           {"PVC_3", "Vol_3"},
           {"PVC_4", "Vol_not_exist"},
           {"PVC_Stable_1", "Vol_Stable_1"},
           {"PVC_Stable_2", "Vol_Stable_2"}}) {
    o.Upsert(Pvc(claim, volume));
  }
  const std::pair<std::string, std::string> useless{"uselessLabel", "none"};
  const Code kUU = Code::kUnschedulableAndUnresolvable;
  RunCases(handle, {
                       {.name = "node without labels",
                        .pod = PodWithClaim("PVC_3"),
                        .node = Node({})},
                       {.name = "beta zone label matched",
                        .pod = PodWithClaim("PVC_3"),
                        .node = Node({{kBetaZone, "us-west1-a"}, useless})},
                       {.name = "beta zone label doesn't match",
                        .pod = PodWithClaim("PVC_1"),
                        .node = Node({{kBetaZone, "us-west1-b"}, useless}),
                        .filter = kUU,
                        .filter_reason = kConflict},
                       {.name = "zone label matched",
                        .pod = PodWithClaim("PVC_Stable_2"),
                        .node = Node({{kZone, "us-west1-a"}, useless})},
                       {.name = "zone label doesn't match",
                        .pod = PodWithClaim("PVC_Stable_1"),
                        .node = Node({{kZone, "us-west1-b"}, useless}),
                        .filter = kUU,
                        .filter_reason = kConflict},
                   });
}

// kube's TestWithBinding. kube's fake lister says "storageclasses..."; the
// informer's lister, which users see, says "storageclass...".
TEST(VolumeZoneTest, WithBinding) {
  testing::FakeHandle handle;
  auto& o = handle.objects_;
  o.Upsert(Class("Class_Immediate", std::nullopt));
  o.Upsert(Class("Class_Wait", "WaitForFirstConsumer"));
  o.Upsert(Pv("Vol_1", {{kBetaZone, "us-west1-a"}}));
  o.Upsert(Pvc("PVC_1", "Vol_1"));
  o.Upsert(Pvc("PVC_NoSC", "", "Class_0"));
  o.Upsert(Pvc("PVC_EmptySC", ""));
  o.Upsert(Pvc("PVC_WaitSC", "", "Class_Wait"));
  o.Upsert(Pvc("PVC_ImmediateSC", "", "Class_Immediate"));
  const api::Node node =
      Node({{kBetaZone, "us-west1-a"}, {"uselessLabel", "none"}});
  const Code kUU = Code::kUnschedulableAndUnresolvable;
  RunCases(
      handle,
      {
          {.name = "label zone failure domain matched",
           .pod = PodWithClaim("PVC_1"),
           .node = node},
          {.name = "unbound volume empty storage class",
           .pod = PodWithClaim("PVC_EmptySC"),
           .node = node,
           .pre_filter = kUU,
           .pre_filter_reason =
               "PersistentVolumeClaim had no pv name and storageClass name"},
          {.name = "unbound volume no storage class",
           .pod = PodWithClaim("PVC_NoSC"),
           .node = node,
           .pre_filter = kUU,
           .pre_filter_reason =
               "storageclass.storage.k8s.io \"Class_0\" not found"},
          {.name = "unbound volume immediate binding mode",
           .pod = PodWithClaim("PVC_ImmediateSC"),
           .node = node,
           .pre_filter = kUU,
           .pre_filter_reason = "VolumeBindingMode not set for StorageClass "
                                "\"Class_Immediate\""},
          {.name = "unbound volume wait binding mode",
           .pod = PodWithClaim("PVC_WaitSC"),
           .node = node,
           .pre_filter = Code::kSkip},
      });
}

TEST(VolumeZoneTest, MissingObjectsAreUnresolvable) {
  testing::FakeHandle handle;
  handle.objects_.Upsert(Pvc("to-nowhere", "Vol_not_exist"));
  const Code kUU = Code::kUnschedulableAndUnresolvable;
  RunCases(
      handle,
      {
          {.name = "claim missing",
           .pod = PodWithClaim("absent"),
           .node = Node({}),
           .pre_filter = kUU,
           .pre_filter_reason = "persistentvolumeclaim \"absent\" not found"},
          {.name = "volume missing",
           .pod = PodWithClaim("to-nowhere"),
           .node = Node({}),
           .pre_filter = kUU,
           .pre_filter_reason = "persistentvolume \"Vol_not_exist\" not found"},
          {.name = "claim without a name",
           .pod = PodWithClaim(""),
           .node = Node({}),
           .pre_filter = kUU,
           .pre_filter_reason = "PersistentVolumeClaim had no name"},
      });
}

TEST(VolumeZoneTest, LabelZonesToSet) {
  EXPECT_EQ(volumezone::LabelZonesToSet("us-west1-c__us-west1-a"),
            (std::set<std::string>{"us-west1-a", "us-west1-c"}));
  EXPECT_EQ(volumezone::LabelZonesToSet(" a __ b "),
            (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(volumezone::LabelZonesToSet("a__"), std::nullopt);
  EXPECT_EQ(volumezone::LabelZonesToSet(""), std::nullopt);
  // A label that does not parse is ignored, as if absent.
  EXPECT_TRUE(volumezone::PvTopologies(Pv("v", {{kZone, "a__"}})).empty());
}

// kube's TestIsSchedulableAfterPersistentVolumeClaimAdded.
TEST(VolumeZoneTest, HintAfterClaimChange) {
  const api::Pod with_pvc1 = PodWithClaim("PVC_1");
  const api::Pod with_pvc2 = PodWithClaim("PVC_2");
  const api::Pod without =
      testing::PodBuilder("pod_1").Namespace("default").Obj();
  const api::PersistentVolumeClaim pvc1 = Pvc("PVC_1", "Vol_1");
  const api::PersistentVolumeClaim pvc1_unbound = Pvc("PVC_1", "");
  const api::PersistentVolumeClaim pvc1_ns1 = Pvc("PVC_1", "", {}, "ns1");
  struct HintCase {
    std::string name;
    const api::Pod& pod;
    framework::EventObjects objs;
    QueueingHint want;
  } cases[] = {
      {"pvc-was-added-but-pod-refers-no-pvc",
       without,
       {.new_pvc = &pvc1},
       QueueingHint::kQueueSkip},
      {"pvc-was-added-and-pod-was-bound-to-different-pvc",
       with_pvc2,
       {.new_pvc = &pvc1},
       QueueingHint::kQueueSkip},
      {"pvc-was-added-and-pod-was-bound-to-pvc-but-different-ns",
       with_pvc1,
       {.new_pvc = &pvc1_ns1},
       QueueingHint::kQueueSkip},
      {"pvc-was-added-and-pod-was-bound-to-the-pvc",
       with_pvc1,
       {.new_pvc = &pvc1},
       QueueingHint::kQueue},
      {"pvc-was-updated-and-pod-was-bound-to-the-pvc",
       with_pvc1,
       {.old_pvc = &pvc1_unbound, .new_pvc = &pvc1},
       QueueingHint::kQueue},
      {"pvc-was-updated-but-pod-refers-no-pvc",
       without,
       {.old_pvc = &pvc1_unbound, .new_pvc = &pvc1},
       QueueingHint::kQueueSkip},
  };
  for (const HintCase& c : cases) {
    EXPECT_EQ(VolumeZone::HintAfterClaimChange(c.pod, c.objs), c.want)
        << c.name;
  }
}

// kube's TestIsSchedulableAfterStorageClassAdded.
TEST(VolumeZoneTest, HintAfterStorageClassAdd) {
  const api::Pod pod = PodWithClaim("PVC_1");
  const api::StorageClass no_mode = Class("SC_1", std::nullopt);
  const api::StorageClass wait = Class("SC_1", "WaitForFirstConsumer");
  EXPECT_EQ(VolumeZone::HintAfterStorageClassAdd(
                pod, {.new_storage_class = &no_mode}),
            QueueingHint::kQueueSkip)
      << "sc-doesn't-have-volume-binding-mode";
  EXPECT_EQ(
      VolumeZone::HintAfterStorageClassAdd(pod, {.new_storage_class = &wait}),
      QueueingHint::kQueue)
      << "new-sc-is-wait-for-first-consumer-mode";
}

// kube's TestIsSchedulableAfterPersistentVolumeChange.
TEST(VolumeZoneTest, HintAfterVolumeChange) {
  const api::Pod pod = PodWithClaim("PVC_1");
  const api::PersistentVolume b = Pv("Vol_1", {{kBetaZone, "us-west1-b"}});
  const api::PersistentVolume a = Pv("Vol_1", {{kBetaZone, "us-west1-a"}});
  const api::PersistentVolume a_and_zone =
      Pv("Vol_1", {{kBetaZone, "us-west1-a"}, {kZone, "zone"}});
  EXPECT_EQ(VolumeZone::HintAfterVolumeChange(pod, {.new_pv = &b}),
            QueueingHint::kQueue)
      << "new-pv-was-added";
  EXPECT_EQ(
      VolumeZone::HintAfterVolumeChange(pod, {.old_pv = &a, .new_pv = &b}),
      QueueingHint::kQueue)
      << "pv-was-updated-and-changed-topology";
  EXPECT_EQ(VolumeZone::HintAfterVolumeChange(
                pod, {.old_pv = &a, .new_pv = &a_and_zone}),
            QueueingHint::kQueue)
      << "pv-was-updated-and-added-topology-label";
  EXPECT_EQ(VolumeZone::HintAfterVolumeChange(
                pod, {.old_pv = &a_and_zone, .new_pv = &a_and_zone}),
            QueueingHint::kQueueSkip)
      << "pv-was-updated-but-no-topology-is-changed";
}

}  // namespace
}  // namespace ksched::plugins
