#include "pkg/plugins/nodevolumelimits/node_volume_limits.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::plugins {
namespace {

using framework::Code;
using framework::QueueingHint;

const std::string kNode = "node-for-max-pd-test-1";
const std::string kEbs = "ebs.csi.aws.com";
const std::string kGce = "pd.csi.storage.gke.io";
const std::string kInTreeEbs = "kubernetes.io/aws-ebs";
const std::string kHostPath = "kubernetes.io/hostpath";
const std::string kMaxCount = "node(s) exceed max volume count";

enum class LimitSource { kNoCsiNode, kCsiNode, kCsiNodeWithoutLimit };

api::Pod ClaimsPod(std::vector<std::string> claims) {
  testing::PodBuilder b("pod");
  b.Namespace("");
  for (size_t i = 0; i < claims.size(); ++i) {
    b.PvcVolume("v" + std::to_string(i), claims[i]);
  }
  return b.Obj();
}

api::Volume InlineEbs(std::string id) {
  api::Volume v;
  v.name = "inline";
  v.in_tree.aws_elastic_block_store =
      api::AwsElasticBlockStoreVolumeSource{.volume_id = std::move(id)};
  return v;
}

api::Volume ConfigMapVolume(std::string name) {
  api::Volume v;  // a source ksched does not decode: none of the above
  v.name = std::move(name);
  return v;
}

// The pod "abc" in namespace "test" with generic ephemeral volumes.
api::Pod EphemeralPod(std::string uid, std::vector<std::string> volumes) {
  testing::PodBuilder b("abc");
  b.Namespace("test").Uid(std::move(uid));
  for (const std::string& v : volumes) b.EphemeralVolume(v);
  return b.Obj();
}

api::PersistentVolumeClaim EphemeralClaim(std::string name,
                                          std::string owner_uid) {
  api::PersistentVolumeClaim pvc;
  pvc.metadata.name = std::move(name);
  pvc.metadata.ns = "test";
  pvc.spec.storage_class_name = "csi-sc";
  if (!owner_uid.empty()) {
    pvc.metadata.owner_references.push_back({.api_version = "v1",
                                             .kind = "Pod",
                                             .name = "abc",
                                             .uid = std::move(owner_uid),
                                             .controller = true});
  }
  return pvc;
}

// kube's TestCSILimits fixtures: for each driver, PVs and claims
// "csi-<driver>-<0..3>" (the in-tree EBS "driver" gets in-tree EBS PVs, the
// host-path one PVs of a source no CSI driver took over), three extra
// claims, the class "csi-sc" of the first driver, a CSINode and
// VolumeAttachments.
struct Fixture {
  std::vector<std::string> drivers;
  LimitSource limits = LimitSource::kNoCsiNode;
  int32_t max_volumes = 0;
  int attachments = 0;
  std::vector<api::PersistentVolumeClaim> extra_claims;

  void Fill(framework::InMemoryClusterObjects& o) const {
    for (const std::string& d : drivers) {
      for (int j = 0; j < 4; ++j) {
        const std::string name = "csi-" + d + "-" + std::to_string(j);
        api::PersistentVolume pv;
        pv.metadata.name = name;
        if (d == kInTreeEbs) {
          pv.spec.in_tree.aws_elastic_block_store =
              api::AwsElasticBlockStoreVolumeSource{.volume_id = name};
        } else if (d != kHostPath) {
          pv.spec.csi =
              api::CsiVolumeSource{.driver = d, .volume_handle = name};
        }
        o.Upsert(pv);
        api::PersistentVolumeClaim pvc;
        pvc.metadata.name = name;
        pvc.spec.volume_name = name;
        o.Upsert(pvc);
      }
    }
    api::PersistentVolumeClaim csi4;
    csi4.metadata.name = "csi-4";
    csi4.spec.storage_class_name = "csi-sc";
    o.Upsert(csi4);
    api::PersistentVolumeClaim csi5;
    csi5.metadata.name = "csi-5";
    o.Upsert(csi5);
    api::PersistentVolumeClaim csi6 = csi4;
    csi6.metadata.name = "csi-6";
    csi6.spec.volume_name = "missing-in-action";
    o.Upsert(csi6);
    for (const auto& c : extra_claims) o.Upsert(c);
    api::StorageClass sc;
    sc.metadata.name = "csi-sc";
    sc.provisioner = drivers.front();
    o.Upsert(sc);
    if (limits != LimitSource::kNoCsiNode) {
      api::CsiNode csi_node;
      csi_node.metadata.name = kNode;
      // kube's fixture still sets it; v1.32 no longer reads it for EBS.
      csi_node.metadata.annotations.Set(
          "storage.alpha.kubernetes.io/migrated-plugins", kInTreeEbs);
      for (const std::string& d : drivers) {
        api::CsiNodeDriver driver{.name = d, .node_id = "node-1"};
        if (limits == LimitSource::kCsiNode) {
          driver.allocatable = api::VolumeNodeResources{.count = max_volumes};
        }
        csi_node.spec.drivers.push_back(driver);
      }
      o.Upsert(csi_node);
    }
    for (const std::string& d : drivers) {
      for (int j = 0; j < attachments; ++j) {
        api::VolumeAttachment va;
        va.metadata.name = "va-" + d + "-" + std::to_string(j);
        va.spec.node_name = kNode;
        va.spec.attacher = d;
        va.spec.source.persistent_volume_name =
            "csi-" + d + "-" + std::to_string(j);
        o.Upsert(va);
      }
    }
  }
};

struct Case {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> existing;
  Fixture fixture;
  Code pre_filter = Code::kSuccess;
  Code filter = Code::kSuccess;
  std::string reason = "";
};

void RunCases(const Case& c) {
  SCOPED_TRACE(c.name);
  testing::FakeHandle handle;
  c.fixture.Fill(handle.objects_);
  NodeVolumeLimits plugin(handle);
  framework::CycleState state;
  auto pod = framework::PodInfo::Create(std::make_shared<api::Pod>(c.pod));
  framework::Status pre = plugin.PreFilter(state, *pod, {}, nullptr);
  ASSERT_EQ(pre.code(), c.pre_filter) << pre.Message();
  if (pre.IsSkip()) return;
  std::vector<api::Pod> existing = c.existing;
  for (api::Pod& p : existing) p.spec.node_name = kNode;
  framework::NodeInfoPtr node =
      testing::MakeNodeInfo(testing::NodeBuilder(kNode).Obj(), existing);
  framework::Status status = plugin.Filter(state, *pod, *node);
  EXPECT_EQ(status.code(), c.filter) << status.Message();
  EXPECT_EQ(status.Message(), c.reason);
}

// kube's TestCSILimits, case by case, in its order.
TEST(NodeVolumeLimitsTest, CsiLimits) {
  const api::Pod running = ClaimsPod({"csi-ebs.csi.aws.com-3"});
  const api::Pod pending = ClaimsPod({"csi-4"});
  const api::Pod unbound2 = ClaimsPod({"csi-4"});
  const api::Pod missing_pv = ClaimsPod({"csi-6"});
  const api::Pod no_class = ClaimsPod({"csi-5"});
  const api::Pod gce_two =
      ClaimsPod({"csi-pd.csi.storage.gke.io-1", "csi-pd.csi.storage.gke.io-2"});
  const api::Pod in_tree_one = ClaimsPod({"csi-kubernetes.io/aws-ebs-0"});
  const api::Pod in_tree_two =
      ClaimsPod({"csi-kubernetes.io/aws-ebs-1", "csi-kubernetes.io/aws-ebs-2"});
  const api::Pod ebs_one = ClaimsPod({"csi-ebs.csi.aws.com-0"});
  const api::Pod ebs_two =
      ClaimsPod({"csi-ebs.csi.aws.com-1", "csi-ebs.csi.aws.com-2"});
  const api::Pod non_migratable = ClaimsPod({"csi-kubernetes.io/hostpath-0"});
  const api::Pod ephemeral = EphemeralPod("12345", {"xyz"});
  const api::Pod ephemeral_two = EphemeralPod("12345II", {"x", "y"});
  const api::Pod inline_ebs =
      testing::PodBuilder("pod").Volume(InlineEbs("aws-inline1")).Obj();
  const api::Pod inline_same_id =
      testing::PodBuilder("pod")
          .Volume(InlineEbs("csi-ebs.csi.aws.com-1"))
          .Obj();
  const api::Pod only_config = testing::PodBuilder("pod")
                                   .Volume(ConfigMapVolume("cm"))
                                   .Volume(ConfigMapVolume("secret"))
                                   .Obj();
  api::Pod pvc_and_config = ClaimsPod({"csi-ebs.csi.aws.com-0"});
  pvc_and_config.spec.volumes.push_back(ConfigMapVolume("cm"));
  api::Pod ephemeral_and_config = ephemeral;
  ephemeral_and_config.spec.volumes.push_back(ConfigMapVolume("cm"));
  api::Pod inline_and_config = inline_ebs;
  inline_and_config.spec.volumes.push_back(ConfigMapVolume("cm"));

  const auto claim = EphemeralClaim("abc-xyz", "12345");
  const auto conflicting = EphemeralClaim("abc-xyz", "");
  const auto claim_x = EphemeralClaim("abc-x", "12345II");
  const auto claim_y = EphemeralClaim("abc-y", "12345II");

  auto fx = [](std::vector<std::string> drivers, LimitSource limits,
               int32_t max, int attachments = 0,
               std::vector<api::PersistentVolumeClaim> extra = {}) {
    return Fixture{std::move(drivers), limits, max, attachments,
                   std::move(extra)};
  };
  const LimitSource kCsiNode = LimitSource::kCsiNode;
  const LimitSource kNoLimit = LimitSource::kCsiNodeWithoutLimit;
  const Code kU = Code::kUnschedulable;
  const std::vector<Case> cases = {
      {"should count VolumeAttachments towards volume limit when no pods exist",
       ebs_one,
       {},
       fx({kEbs}, kCsiNode, 2, 2),
       Code::kSuccess,
       kU,
       kMaxCount},
      {"should schedule pod when VolumeAttachments count does not exceed limit",
       ebs_one,
       {},
       fx({kEbs}, kCsiNode, 2, 1)},
      {"fits when node volume limit >= new pods CSI volume",
       ebs_one,
       {running, ebs_two},
       fx({kEbs}, kCsiNode, 4)},
      {"doesn't when node volume limit <= pods CSI volume",
       ebs_one,
       {running, ebs_two},
       fx({kEbs}, kCsiNode, 2),
       Code::kSuccess,
       kU,
       kMaxCount},
      {"should when driver does not support volume limits",
       ebs_one,
       {running, ebs_two},
       fx({kEbs}, kNoLimit, 2)},
      {"count pending PVCs towards volume limit <= pods CSI volume",
       ebs_one,
       {pending, ebs_two},
       fx({kEbs}, kCsiNode, 2),
       Code::kSuccess,
       kU,
       kMaxCount},
      {"count multiple pending pvcs towards volume limit >= pods CSI volume",
       ebs_one,
       {pending, unbound2, ebs_two},
       fx({kEbs}, kCsiNode, 4)},
      {"should count PVCs with invalid PV name but valid SC",
       ebs_one,
       {missing_pv, ebs_two},
       fx({kEbs}, kCsiNode, 2),
       Code::kSuccess,
       kU,
       kMaxCount},
      {"don't count pvcs with missing SC towards volume limit",
       ebs_one,
       {running, no_class},
       fx({kEbs}, kCsiNode, 2)},
      {"count pvcs with the same type towards volume limit",
       ebs_one,
       {gce_two, ebs_two},
       fx({kEbs, kGce}, kCsiNode, 2),
       Code::kSuccess,
       kU,
       kMaxCount},
      {"don't count pvcs with different type towards volume limit",
       gce_two,
       {ebs_two, running},
       fx({kEbs, kGce}, kCsiNode, 2)},
      {"should count in-tree volumes if migration is enabled",
       in_tree_one,
       {in_tree_two},
       fx({kInTreeEbs, kEbs}, kCsiNode, 2),
       Code::kSuccess,
       kU,
       kMaxCount},
      {"nil csi node",
       inline_ebs,
       {in_tree_two},
       fx({kInTreeEbs, kEbs}, LimitSource::kNoCsiNode, 0)},
      {"should count unbound in-tree volumes if migration is enabled",
       pending,
       {in_tree_two},
       fx({kInTreeEbs, kEbs}, kCsiNode, 2),
       Code::kSuccess,
       kU,
       kMaxCount},
      {"should not limit pod if volume used does not report limits",
       in_tree_one,
       {in_tree_two},
       fx({kInTreeEbs, kEbs}, kNoLimit, 2)},
      {"should not count non-migratable in-tree volumes",
       non_migratable,
       {ebs_two},
       fx({kHostPath, kEbs}, kCsiNode, 2)},
      {"should count in-tree inline volumes if migration is enabled",
       inline_ebs,
       {in_tree_two},
       fx({kInTreeEbs, kEbs}, kCsiNode, 2),
       Code::kSuccess,
       kU,
       kMaxCount},
      {"should count in-tree and csi volumes if migration is enabled (when "
       "scheduling in-tree volumes)",
       in_tree_one,
       {ebs_two},
       fx({kInTreeEbs, kEbs}, kCsiNode, 2),
       Code::kSuccess,
       kU,
       kMaxCount},
      {"should count in-tree, inline and csi volumes if migration is enabled "
       "(when scheduling in-tree volumes)",
       inline_ebs,
       {ebs_two, in_tree_one},
       fx({kInTreeEbs, kEbs}, kCsiNode, 3),
       Code::kSuccess,
       kU,
       kMaxCount},
      {"should not count in-tree, inline and csi volumes if migration is "
       "enabled (when scheduling in-tree volumes)",
       inline_same_id,
       {ebs_two, in_tree_one},
       fx({kInTreeEbs, kEbs}, kCsiNode, 3)},
      {"should count in-tree and csi volumes if migration is enabled (when "
       "scheduling csi volumes)",
       ebs_one,
       {in_tree_two},
       fx({kInTreeEbs, kEbs}, kCsiNode, 2),
       Code::kSuccess,
       kU,
       kMaxCount},
      // kube's fake lister says "persistentvolumeclaims"; the informer's
      // lister, which users see, says "persistentvolumeclaim".
      {"ephemeral volume missing",
       ephemeral,
       {},
       fx({kEbs}, kNoLimit, 0),
       Code::kSuccess,
       Code::kUnschedulableAndUnresolvable,
       "looking up PVC test/abc-xyz: persistentvolumeclaim \"abc-xyz\" not "
       "found"},
      {"ephemeral volume not owned",
       ephemeral,
       {},
       fx({kEbs}, kNoLimit, 0, 0, {conflicting}),
       Code::kSuccess,
       Code::kError,
       "PVC test/abc-xyz was not created for pod test/abc (pod is not owner)"},
      {"ephemeral volume unbound",
       ephemeral,
       {},
       fx({kEbs}, kNoLimit, 0, 0, {claim})},
      {"ephemeral doesn't when node volume limit <= pods CSI volume",
       ephemeral,
       {running, ebs_two},
       fx({kEbs}, kCsiNode, 2, 0, {claim}),
       Code::kSuccess,
       kU,
       kMaxCount},
      {"ephemeral doesn't when node volume limit <= pods ephemeral CSI volume",
       ebs_one,
       {running, ephemeral_two},
       fx({kEbs}, kCsiNode, 2, 0, {claim_x, claim_y}),
       Code::kSuccess,
       kU,
       kMaxCount},
      {"persistent doesn't when node volume limit <= pods ephemeral CSI volume "
       "+ persistent volume, ephemeral disabled",
       ebs_one,
       {running, ephemeral, ebs_two},
       fx({kEbs}, kCsiNode, 3, 0, {claim}),
       Code::kSuccess,
       kU,
       kMaxCount},
      {"persistent doesn't when node volume limit <= pods ephemeral CSI volume "
       "+ persistent volume",
       ebs_one,
       {running, ephemeral, ebs_two},
       fx({kEbs}, kCsiNode, 3, 0, {claim}),
       Code::kSuccess,
       kU,
       kMaxCount},
      {"persistent okay when node volume limit > pods ephemeral CSI volume + "
       "persistent volume",
       ebs_one,
       {running, ephemeral, ebs_two},
       fx({kEbs}, kCsiNode, 5, 0, {claim})},
      {"skip Filter when the pod only uses secrets and configmaps",
       only_config,
       {},
       fx({kEbs}, kCsiNode, 2),
       Code::kSkip},
      {"don't skip Filter when the pod has pvcs",
       pvc_and_config,
       {},
       fx({kEbs}, kCsiNode, 2)},
      {"don't skip Filter when the pod has ephemeral volumes",
       ephemeral_and_config,
       {},
       fx({kEbs}, kNoLimit, 0),
       Code::kSuccess,
       Code::kUnschedulableAndUnresolvable,
       "looking up PVC test/abc-xyz: persistentvolumeclaim \"abc-xyz\" not "
       "found"},
      {"don't skip Filter when the pod has inline migratable volumes",
       inline_and_config,
       {in_tree_two},
       fx({kInTreeEbs, kEbs}, kCsiNode, 2),
       Code::kSuccess,
       kU,
       kMaxCount},
  };
  for (const Case& c : cases) RunCases(c);
}

TEST(NodeVolumeLimitsTest, AttachmentsOfOtherNodesAndInTreeVolumesDoNotCount) {
  testing::FakeHandle handle;
  Fixture{{kEbs}, LimitSource::kCsiNode, 1, 0}.Fill(handle.objects_);
  api::VolumeAttachment elsewhere;
  elsewhere.metadata.name = "va-elsewhere";
  elsewhere.spec.node_name = "another-node";
  elsewhere.spec.attacher = kEbs;
  elsewhere.spec.source.persistent_volume_name = "csi-ebs.csi.aws.com-1";
  handle.objects_.Upsert(elsewhere);
  NodeVolumeLimits plugin(handle);
  framework::CycleState state;
  auto pod = framework::PodInfo::Create(
      std::make_shared<api::Pod>(ClaimsPod({"csi-ebs.csi.aws.com-0"})));
  framework::NodeInfoPtr node =
      testing::MakeNodeInfo(testing::NodeBuilder(kNode).Obj());
  EXPECT_TRUE(plugin.Filter(state, *pod, *node).IsSuccess());
  // The same attachment moved to this node fills its one slot.
  elsewhere.spec.node_name = kNode;
  handle.objects_.Upsert(elsewhere);
  EXPECT_EQ(plugin.Filter(state, *pod, *node).Message(), kMaxCount);
  handle.objects_.DeleteVolumeAttachment("va-elsewhere");
  EXPECT_TRUE(plugin.Filter(state, *pod, *node).IsSuccess());
}

// kube's TestCSILimitsQHint.
TEST(NodeVolumeLimitsTest, HintAfterPodDelete) {
  const api::Pod pod = ClaimsPod({"csi-ebs.csi.aws.com-2"});
  api::Pod with_claim = ClaimsPod({"placeholder"});
  with_claim.spec.node_name = kNode;
  api::Pod with_inline = testing::PodBuilder("d").Volume(InlineEbs("")).Obj();
  with_inline.spec.node_name = kNode;
  api::Pod without = testing::PodBuilder("d").Obj();
  without.spec.node_name = kNode;
  api::Pod unscheduled = ClaimsPod({"csi-ebs.csi.aws.com-0"});
  EXPECT_EQ(NodeVolumeLimits::HintAfterPodDelete(pod, {.old_pod = &with_claim}),
            QueueingHint::kQueue)
      << "return a Queue when a deleted pod has a PVC";
  EXPECT_EQ(
      NodeVolumeLimits::HintAfterPodDelete(pod, {.old_pod = &with_inline}),
      QueueingHint::kQueue)
      << "return a Queue when a deleted pod has a inline migratable volume";
  EXPECT_EQ(NodeVolumeLimits::HintAfterPodDelete(pod, {.old_pod = &without}),
            QueueingHint::kQueueSkip)
      << "return a QueueSkip when a deleted pod doesn't have any volume";
  EXPECT_EQ(
      NodeVolumeLimits::HintAfterPodDelete(pod, {.old_pod = &unscheduled}),
      QueueingHint::kQueueSkip)
      << "return a QueueSkip when a deleted pod is not scheduled.";
}

// kube's TestCSILimitsAddedPVCQHint.
TEST(NodeVolumeLimitsTest, HintAfterClaimAdd) {
  auto claim = [](std::string name, std::string ns) {
    api::PersistentVolumeClaim pvc;
    pvc.metadata.name = std::move(name);
    pvc.metadata.ns = std::move(ns);
    return pvc;
  };
  const api::Pod no_volumes =
      testing::PodBuilder("pod1").Namespace("ns1").Obj();
  const api::Pod with_pvc1 =
      testing::PodBuilder("pod1").Namespace("ns1").PvcVolume("v", "pvc1").Obj();
  const api::Pod with_ephemeral = testing::PodBuilder("pod1")
                                      .Namespace("ns1")
                                      .EphemeralVolume("ephemeral")
                                      .Obj();
  const auto in_ns2 = claim("pvc1", "ns2");
  const auto pvc1 = claim("pvc1", "ns1");
  const auto generated = claim("pod1-ephemeral", "ns1");
  const auto pvc2 = claim("pvc2", "ns1");
  EXPECT_EQ(
      NodeVolumeLimits::HintAfterClaimAdd(no_volumes, {.new_pvc = &in_ns2}),
      QueueingHint::kQueueSkip)
      << "a pod isn't in the same namespace as an added PVC";
  EXPECT_EQ(NodeVolumeLimits::HintAfterClaimAdd(with_pvc1, {.new_pvc = &pvc1}),
            QueueingHint::kQueue)
      << "a pod is in the same namespace as an added PVC";
  EXPECT_EQ(NodeVolumeLimits::HintAfterClaimAdd(with_ephemeral,
                                                {.new_pvc = &generated}),
            QueueingHint::kQueue)
      << "a pod has an ephemeral volume related to an added PVC";
  EXPECT_EQ(NodeVolumeLimits::HintAfterClaimAdd(with_pvc1, {.new_pvc = &pvc2}),
            QueueingHint::kQueueSkip)
      << "a pod doesn't have the same PVC as an added PVC";
  EXPECT_EQ(NodeVolumeLimits::HintAfterClaimAdd(no_volumes, {.new_pvc = &pvc2}),
            QueueingHint::kQueueSkip)
      << "a pod doesn't have any PVC attached";
}

}  // namespace
}  // namespace ksched::plugins
