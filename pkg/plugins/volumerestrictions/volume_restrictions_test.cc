#include "pkg/plugins/volumerestrictions/volume_restrictions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::plugins {
namespace {

using framework::Code;
using framework::QueueingHint;

const std::string kDiskConflict = "node(s) had no available disk";
const std::string kRwopConflict =
    "node(s) unavailable due to PersistentVolumeClaim with "
    "ReadWriteOncePod access mode already in-use by another pod";

api::Volume Gce(std::string pd) {
  api::Volume v;
  v.name = "gce";
  v.in_tree.gce_persistent_disk =
      api::GcePersistentDiskVolumeSource{.pd_name = std::move(pd)};
  return v;
}
api::Volume Aws(std::string id) {
  api::Volume v;
  v.name = "aws";
  v.in_tree.aws_elastic_block_store =
      api::AwsElasticBlockStoreVolumeSource{.volume_id = std::move(id)};
  return v;
}
api::Volume Rbd(std::vector<std::string> monitors) {
  api::Volume v;
  v.name = "rbd";
  v.in_tree.rbd = api::RbdVolumeSource{
      .monitors = std::move(monitors), .image = "bar", .pool = "foo"};
  return v;
}
api::Volume Iscsi(std::string iqn) {
  api::Volume v;
  v.name = "iscsi";
  v.in_tree.iscsi = api::IscsiVolumeSource{
      .target_portal = "127.0.0.1:3260", .iqn = std::move(iqn), .lun = 0};
  return v;
}

api::Pod PodWith(const api::Volume& v) {
  return testing::PodBuilder("p").Volume(v).Obj();
}

api::PersistentVolumeClaim Claim(std::string name, std::string mode) {
  api::PersistentVolumeClaim pvc;
  pvc.metadata.name = std::move(name);
  pvc.metadata.ns = "default";
  pvc.spec.access_modes = {std::move(mode)};
  return pvc;
}

struct Case {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> on_node;  // the snapshot's only node, "node-1"
  Code pre_filter = Code::kSuccess;
  std::string pre_filter_reason = "";
  Code filter = Code::kSuccess;
  std::string filter_reason = "";
};

// kube's harness: PreFilter, and Filter only when it succeeded.
void RunCases(const std::vector<Case>& cases,
              const std::vector<api::PersistentVolumeClaim>& claims = {}) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    api::Node node = testing::NodeBuilder("node-1").Obj();
    std::vector<api::Pod> pods;
    for (api::Pod p : c.on_node) {
      p.spec.node_name = "node-1";
      pods.push_back(std::move(p));
    }
    testing::FakeHandle handle({testing::MakeNodeInfo(node, pods)});
    for (const auto& claim : claims) handle.objects_.Upsert(claim);
    VolumeRestrictions plugin(handle);
    framework::CycleState state;
    auto pod = framework::PodInfo::Create(std::make_shared<api::Pod>(c.pod));
    framework::Status pre = plugin.PreFilter(state, *pod, {}, nullptr);
    EXPECT_EQ(pre.code(), c.pre_filter) << pre.Message();
    EXPECT_EQ(pre.Message(), c.pre_filter_reason);
    if (!pre.IsSuccess()) continue;
    framework::Status status =
        plugin.Filter(state, *pod, *handle.snapshot().Get("node-1"));
    EXPECT_EQ(status.code(), c.filter) << status.Message();
    EXPECT_EQ(status.Message(), c.filter_reason);
  }
}

// kube's TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts
// and TestISCSIDiskConflicts: "nothing", "one state", "same state",
// "different state" with each disk kind.
TEST(VolumeRestrictionsTest, DiskConflicts) {
  struct Kind {
    std::string name;
    api::Volume state, state2;
  } kinds[] = {
      {"gce", Gce("foo"), Gce("bar")},
      {"aws", Aws("foo"), Aws("bar")},
      {"rbd", Rbd({"a", "b"}), Rbd({"c", "d"})},
      {"iscsi", Iscsi("iqn.2016-12.server:storage.target01"),
       Iscsi("iqn.2017-12.server:storage.target01")},
  };
  for (const Kind& k : kinds) {
    SCOPED_TRACE(k.name);
    const api::Pod empty = testing::PodBuilder("p").Obj();
    RunCases({
        {.name = "nothing", .pod = empty, .pre_filter = Code::kSkip},
        {.name = "one state",
         .pod = empty,
         .on_node = {PodWith(k.state)},
         .pre_filter = Code::kSkip},
        {.name = "same state",
         .pod = PodWith(k.state),
         .on_node = {PodWith(k.state)},
         .filter = Code::kUnschedulable,
         .filter_reason = kDiskConflict},
        {.name = "different state",
         .pod = PodWith(k.state2),
         .on_node = {PodWith(k.state)}},
    });
  }
  // TestGCEDiskConflicts: "pod with a volume that doesn't have
  // restrictions".
  api::Volume plain;
  plain.name = "volume with no restriction";
  RunCases({{.name = "pod with a volume that doesn't have restrictions",
             .pod = PodWith(plain),
             .pre_filter = Code::kSkip}});
}

TEST(VolumeRestrictionsTest, ReadOnlyDisks) {
  auto read_only = [](api::Volume v) {
    if (v.in_tree.gce_persistent_disk)
      v.in_tree.gce_persistent_disk->read_only = true;
    if (v.in_tree.aws_elastic_block_store) {
      v.in_tree.aws_elastic_block_store->read_only = true;
    }
    if (v.in_tree.rbd) v.in_tree.rbd->read_only = true;
    if (v.in_tree.iscsi) v.in_tree.iscsi->read_only = true;
    return v;
  };
  // Two readers share a GCE PD, an RBD image or an iSCSI target; an EBS
  // volume attaches once whatever the mode.
  for (const api::Volume& v :
       {Gce("foo"), Rbd({"a", "b"}), Iscsi("iqn.2016-12.server:t")}) {
    SCOPED_TRACE(v.name);
    RunCases({{.name = "both read-only",
               .pod = PodWith(read_only(v)),
               .on_node = {PodWith(read_only(v))}},
              {.name = "one writer",
               .pod = PodWith(read_only(v)),
               .on_node = {PodWith(v)},
               .filter = Code::kUnschedulable,
               .filter_reason = kDiskConflict}});
  }
  RunCases({{.name = "ebs read-only",
             .pod = PodWith(read_only(Aws("foo"))),
             .on_node = {PodWith(read_only(Aws("foo")))},
             .filter = Code::kUnschedulable,
             .filter_reason = kDiskConflict}});
  // RBD: one shared monitor is enough; another pool is another image.
  api::Volume other_pool = Rbd({"b", "z"});
  other_pool.in_tree.rbd->pool = "other";
  RunCases({{.name = "rbd monitors overlap",
             .pod = PodWith(Rbd({"b", "z"})),
             .on_node = {PodWith(Rbd({"a", "b"}))},
             .filter = Code::kUnschedulable,
             .filter_reason = kDiskConflict},
            {.name = "rbd other pool",
             .pod = PodWith(other_pool),
             .on_node = {PodWith(Rbd({"a", "b"}))}}});
}

// kube's TestAccessModeConflicts.
TEST(VolumeRestrictionsTest, AccessModeConflicts) {
  auto pod = [](std::string name, std::vector<std::string> claims) {
    testing::PodBuilder b(std::move(name));
    b.Namespace("default");
    for (const std::string& c : claims) b.PvcVolume(c, c);
    return b.Obj();
  };
  const api::Pod with_one = pod("podWithOnePVC", {"claim-with-rwop-1"});
  const api::Pod with_two =
      pod("podWithTwoPVCs", {"claim-with-rwop-1", "claim-with-rwop-2"});
  const api::Pod one_conflict =
      pod("podWithOneConflict", {"claim-with-rwop-1"});
  const api::Pod two_conflicts =
      pod("podWithTwoConflicts", {"claim-with-rwop-1", "claim-with-rwop-2"});
  const api::Pod with_rwx = pod("podWithReadWriteManyPVC", {"claim-with-rwx"});
  const auto rwop1 = Claim("claim-with-rwop-1", "ReadWriteOncePod");
  const auto rwop2 = Claim("claim-with-rwop-2", "ReadWriteOncePod");
  const auto rwx = Claim("claim-with-rwx", "ReadWriteMany");
  RunCases({{.name = "nothing",
             .pod = testing::PodBuilder("p").Obj(),
             .pre_filter = Code::kSkip}});
  RunCases({{.name = "failed to get PVC",
             .pod = with_one,
             .pre_filter = Code::kUnschedulableAndUnresolvable,
             .pre_filter_reason =
                 "persistentvolumeclaim \"claim-with-rwop-1\" not found"}});
  RunCases({{.name = "no access mode conflict",
             .pod = with_one,
             .on_node = {with_rwx},
             .pre_filter = Code::kSkip}},
           {rwop1, rwx});
  RunCases({{.name = "access mode conflict, unschedulable",
             .pod = one_conflict,
             .on_node = {with_one, with_rwx},
             .filter = Code::kUnschedulable,
             .filter_reason = kRwopConflict}},
           {rwop1, rwx});
  RunCases({{.name = "two conflicts, unschedulable",
             .pod = two_conflicts,
             .on_node = {with_two, with_rwx},
             .filter = Code::kUnschedulable,
             .filter_reason = kRwopConflict}},
           {rwop1, rwop2, rwx});
}

// Preemption's what-if: removing the claim's user clears the conflict,
// adding it back restores it.
TEST(VolumeRestrictionsTest, PreFilterExtensionsFollowTheClaimsUser) {
  const api::Pod holder = testing::PodBuilder("holder")
                              .Namespace("default")
                              .Node("node-1")
                              .PvcVolume("data", "rwop")
                              .Obj();
  const api::Pod incoming = testing::PodBuilder("incoming")
                                .Namespace("default")
                                .PvcVolume("data", "rwop")
                                .Obj();
  api::Node node = testing::NodeBuilder("node-1").Obj();
  testing::FakeHandle handle({testing::MakeNodeInfo(node, {holder})});
  handle.objects_.Upsert(Claim("rwop", "ReadWriteOncePod"));
  VolumeRestrictions plugin(handle);
  framework::CycleState state;
  auto pod = framework::PodInfo::Create(std::make_shared<api::Pod>(incoming));
  ASSERT_TRUE(plugin.PreFilter(state, *pod, {}, nullptr).IsSuccess());
  const framework::NodeInfo& info = *handle.snapshot().Get("node-1");
  EXPECT_EQ(plugin.Filter(state, *pod, info).code(), Code::kUnschedulable);

  auto holder_info =
      framework::PodInfo::Create(std::make_shared<api::Pod>(holder));
  std::unique_ptr<framework::CycleState> what_if = state.Clone();
  ASSERT_TRUE(plugin.RemovePod(*what_if, *pod, holder_info, info).IsSuccess());
  EXPECT_TRUE(plugin.Filter(*what_if, *pod, info).IsSuccess());
  // The clone is the what-if's own: the cycle's state still conflicts.
  EXPECT_EQ(plugin.Filter(state, *pod, info).code(), Code::kUnschedulable);
  ASSERT_TRUE(plugin.AddPod(*what_if, *pod, holder_info, info).IsSuccess());
  EXPECT_EQ(plugin.Filter(*what_if, *pod, info).code(), Code::kUnschedulable);

  framework::CycleState empty;
  EXPECT_EQ(plugin.AddPod(empty, *pod, holder_info, info).Message(),
            "cannot read \"PreFilterVolumeRestrictions\" from cycleState");
}

// kube's Test_isSchedulableAfterPodDeleted.
TEST(VolumeRestrictionsTest, HintAfterPodDelete) {
  auto claim_pod = [](std::string claim) {
    return testing::PodBuilder("p").PvcVolume("v", std::move(claim)).Obj();
  };
  struct HintCase {
    std::string name;
    api::Pod pod, deleted;
    QueueingHint want;
  } cases[] = {
      {"queue-new-object-gcedisk-conflict", PodWith(Gce("foo")),
       PodWith(Gce("foo")), QueueingHint::kQueue},
      {"skip-new-object-gcedisk-no-conflict", PodWith(Gce("foo")),
       PodWith(Gce("bar")), QueueingHint::kQueueSkip},
      {"queue-new-object-awsdisk-conflict", PodWith(Aws("foo")),
       PodWith(Aws("foo")), QueueingHint::kQueue},
      {"skip-new-object-awsdisk-no-conflict", PodWith(Aws("foo")),
       PodWith(Aws("bar")), QueueingHint::kQueueSkip},
      {"queue-new-object-rbddisk-conflict", PodWith(Rbd({"a", "b"})),
       PodWith(Rbd({"a", "b"})), QueueingHint::kQueue},
      {"skip-new-object-rbddisk-no-conflict", PodWith(Rbd({"a", "b"})),
       PodWith(Rbd({"c", "d"})), QueueingHint::kQueueSkip},
      {"queue-new-object-iscsidisk-conflict",
       PodWith(Iscsi("iqn.2016-12.server:storage.target01")),
       PodWith(Iscsi("iqn.2016-12.server:storage.target01")),
       QueueingHint::kQueue},
      {"skip-new-object-iscsidisk-no-conflict",
       PodWith(Iscsi("iqn.2016-12.server:storage.target01")),
       PodWith(Iscsi("iqn.2017-12.server:storage.target01")),
       QueueingHint::kQueueSkip},
      {"queue-has-same-claim", claim_pod("claim-rwop"), claim_pod("claim-rwop"),
       QueueingHint::kQueue},
      {"skip-no-same-claim", claim_pod("claim-1-rwop"),
       claim_pod("claim-2-rwop"), QueueingHint::kQueueSkip},
  };
  for (const HintCase& c : cases) {
    EXPECT_EQ(
        VolumeRestrictions::HintAfterPodDelete(c.pod, {.old_pod = &c.deleted}),
        c.want)
        << c.name;
  }
  // Another namespace: skipped before anything else is compared.
  api::Pod elsewhere = PodWith(Gce("foo"));
  elsewhere.metadata.ns = "other";
  EXPECT_EQ(VolumeRestrictions::HintAfterPodDelete(PodWith(Gce("foo")),
                                                   {.old_pod = &elsewhere}),
            QueueingHint::kQueueSkip);
}

// kube's Test_isSchedulableAfterPersistentVolumeClaimChange.
TEST(VolumeRestrictionsTest, HintAfterClaimAdd) {
  const api::Pod two = testing::PodBuilder("p")
                           .Namespace("default")
                           .PvcVolume("a", "claim-with-rwx-1")
                           .PvcVolume("b", "claim-with-rwx-2")
                           .Obj();
  const api::Pod one = testing::PodBuilder("p")
                           .Namespace("default")
                           .PvcVolume("a", "claim-with-rwx-1")
                           .Obj();
  const api::Pod system = testing::PodBuilder("p")
                              .Namespace("kube-system")
                              .PvcVolume("a", "claim-with-rwx-1")
                              .Obj();
  const auto pvc1 = Claim("claim-with-rwx-1", "ReadWriteMany");
  const auto pvc2 = Claim("claim-with-rwx-2", "ReadWriteMany");
  EXPECT_EQ(VolumeRestrictions::HintAfterClaimAdd(two, {.new_pvc = &pvc1}),
            QueueingHint::kQueue)
      << "queue-new-object-pvc-belong-pod";
  EXPECT_EQ(VolumeRestrictions::HintAfterClaimAdd(one, {.new_pvc = &pvc2}),
            QueueingHint::kQueueSkip)
      << "skip-new-object-unused";
  EXPECT_EQ(VolumeRestrictions::HintAfterClaimAdd(system, {.new_pvc = &pvc1}),
            QueueingHint::kQueueSkip)
      << "skip-new-object-namespace-not-equal-pod";
}

}  // namespace
}  // namespace ksched::plugins
