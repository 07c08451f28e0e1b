// Reserve, Unreserve and PreBind of VolumeBinding (kube's AssumePodVolumes,
// RevertAssumedPodVolumes and BindPodVolumes as binder_test.go checks them:
// TestAssumePodVolumes, TestRevertAssumedPodVolumes, TestBindAPIUpdate),
// with what ksched writes in place of kube's API updates; then the events
// and the factory.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pkg/framework/cancel_cause.h"
#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/recording_writer.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/volumebinding/binder.h"
#include "pkg/plugins/volumebinding/test_utils.h"
#include "pkg/plugins/volumebinding/volume_binding.h"

namespace ksched::plugins {
namespace {

namespace vb = volumebinding;
using framework::Status;
using vb::testutil::MakeNode;
using vb::testutil::PvBuilder;
using vb::testutil::PvcBuilder;

using vb::testutil::kHostname;
using vb::testutil::kZone;
const std::string kSelectedNode(api::kAnnSelectedNode);

framework::PodInfoPtr PodWithClaims(const std::string& name,
                                    std::vector<std::string> claims) {
  testing::PodBuilder b(name);
  for (size_t i = 0; i < claims.size(); ++i) {
    b.PvcVolume("vol" + std::to_string(i), claims[i]);
  }
  return b.Info();
}

// A plugin on two zone-a nodes, with the test classes and a writer.
class VolumeBindingCycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"node-a", "node-b"}) {
      infos_.push_back(
          testing::MakeNodeInfo(MakeNode(name).Label(kZone, "zone-a").Obj()));
    }
    handle_.SetNodes(infos_);
    vb::testutil::AddTestClasses(handle_.objects_);
    handle_.writer_ = &writer_;
    auto plugin = NewVolumeBinding(nullptr, handle_);
    ASSERT_TRUE(plugin.ok()) << plugin.error().message();
    owner_ = std::move(*plugin);
    pl_ = dynamic_cast<VolumeBinding*>(owner_.get());
    ASSERT_NE(pl_, nullptr);
  }

  // PreFilter, then Filter on `node`; the status of the first that fails.
  Status Schedule(framework::CycleState& state, const framework::PodInfo& pod,
                  const std::string& node) {
    Status s = pl_->PreFilter(state, pod, infos_, nullptr);
    if (s.IsSkip()) return Status();
    if (!s.IsSuccess()) return s;
    return pl_->Filter(state, pod, *handle_.snapshot().Get(node));
  }

  // A static volume on node-a and a claim that can take it.
  void AddStaticVolume() {
    handle_.objects_.Upsert(
        PvcBuilder("pvc-a", "static-sc").Uid("uid-a").Obj());
    handle_.objects_.Upsert(PvBuilder("pv-a", "static-sc")
                                .Available()
                                .NodeAffinity(kHostname, {"node-a"})
                                .ResourceVersion("7")
                                .Obj());
  }

  std::vector<framework::NodeInfoPtr> infos_;
  testing::FakeHandle handle_;
  testing::RecordingWriter writer_;
  std::unique_ptr<framework::Plugin> owner_;
  VolumeBinding* pl_ = nullptr;
};

// kube's dynamic provisioning trigger: PreBind sets selected-node.
TEST_F(VolumeBindingCycleTest, ProvisioningAnnotatesTheClaimInPreBind) {
  handle_.objects_.Upsert(PvcBuilder("pvc-a", "zonal-sc").Request("1Gi").Obj());
  auto pod = PodWithClaims("pod-a", {"pvc-a"});
  framework::CycleState state;
  ASSERT_EQ(Schedule(state, *pod, "node-b"), Status());
  ASSERT_EQ(pl_->Reserve(state, *pod, "node-b"), Status());
  EXPECT_EQ(pl_->assume_cache().AssumedSelectedNode("default", "pvc-a"),
            "node-b");
  EXPECT_TRUE(writer_.annotations.empty()) << "Reserve writes nothing";

  ASSERT_EQ(pl_->PreBind(state, *pod, "node-b"), Status());
  ASSERT_EQ(writer_.annotations.size(), 1u);
  EXPECT_EQ(writer_.annotations[0].pvc, "default/pvc-a");
  EXPECT_EQ(writer_.annotations[0].key, kSelectedNode);
  EXPECT_EQ(writer_.annotations[0].value, "node-b");
}

// While assumed, the claim reads as provisioned on node-b: a second pod
// with the same claim may only go there (FindPodVolumes' fast path).
TEST_F(VolumeBindingCycleTest, AssumedSelectedNodeBindsLaterPods) {
  handle_.objects_.Upsert(PvcBuilder("pvc-a", "zonal-sc").Obj());
  auto pod = PodWithClaims("pod-a", {"pvc-a"});
  framework::CycleState state;
  ASSERT_EQ(Schedule(state, *pod, "node-b"), Status());
  ASSERT_EQ(pl_->Reserve(state, *pod, "node-b"), Status());

  auto other = PodWithClaims("pod-b", {"pvc-a"});
  framework::CycleState other_state;
  EXPECT_EQ(Schedule(other_state, *other, "node-a"),
            Status::Unresolvable(std::string(vb::kErrReasonBindConflict)));
  EXPECT_EQ(pl_->Filter(other_state, *other, *infos_[1]), Status());
}

// Static binding: assumed in Reserve, not written (no PV write exists),
// and the PV is no longer offered to other claims.
TEST_F(VolumeBindingCycleTest, StaticBindingIsAssumedAndNotWritten) {
  AddStaticVolume();
  handle_.objects_.Upsert(PvcBuilder("pvc-b", "static-sc").Obj());
  auto pod = PodWithClaims("pod-a", {"pvc-a"});
  framework::CycleState state;
  ASSERT_EQ(Schedule(state, *pod, "node-a"), Status());
  ASSERT_EQ(pl_->Reserve(state, *pod, "node-a"), Status());
  auto ref = pl_->assume_cache().AssumedClaimRef("pv-a");
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->kind, "PersistentVolumeClaim");
  EXPECT_EQ(ref->api_version, "v1");
  EXPECT_EQ(ref->ns, "default");
  EXPECT_EQ(ref->name, "pvc-a");
  EXPECT_EQ(ref->uid, "uid-a");

  ASSERT_EQ(pl_->PreBind(state, *pod, "node-a"), Status());
  EXPECT_TRUE(writer_.annotations.empty());
  EXPECT_TRUE(pl_->assume_cache().AssumedClaimRef("pv-a").has_value())
      << "the binding stays assumed after PreBind";

  // pv-a now reads as bound to pvc-a: pvc-b finds nothing.
  auto other = PodWithClaims("pod-b", {"pvc-b"});
  framework::CycleState other_state;
  EXPECT_EQ(Schedule(other_state, *other, "node-a"),
            Status::Unresolvable(std::string(vb::kErrReasonBindConflict)));
  // A pod sharing pvc-a gets the same PV, on its node only.
  auto sharing = PodWithClaims("pod-c", {"pvc-a"});
  framework::CycleState sharing_state;
  EXPECT_EQ(Schedule(sharing_state, *sharing, "node-a"), Status());
  EXPECT_EQ(pl_->Filter(sharing_state, *sharing, *infos_[1]),
            Status::Unresolvable(std::string(vb::kErrReasonBindConflict)));
}

// TestRevertAssumedPodVolumes: Unreserve forgets both kinds.
TEST_F(VolumeBindingCycleTest, UnreserveForgetsAssumptions) {
  AddStaticVolume();
  handle_.objects_.Upsert(PvcBuilder("pvc-p", "zonal-sc").Obj());
  auto pod = PodWithClaims("pod-a", {"pvc-a", "pvc-p"});
  framework::CycleState state;
  ASSERT_EQ(Schedule(state, *pod, "node-a"), Status());
  ASSERT_EQ(pl_->Reserve(state, *pod, "node-a"), Status());
  ASSERT_TRUE(pl_->assume_cache().AssumedClaimRef("pv-a").has_value());
  ASSERT_EQ(pl_->assume_cache().AssumedSelectedNode("default", "pvc-p"),
            "node-a");

  pl_->Unreserve(state, *pod, "node-a");
  EXPECT_FALSE(pl_->assume_cache().AssumedClaimRef("pv-a").has_value());
  EXPECT_FALSE(
      pl_->assume_cache().AssumedSelectedNode("default", "pvc-p").has_value());
  // Idempotent, as kube's.
  pl_->Unreserve(state, *pod, "node-a");

  handle_.objects_.Upsert(PvcBuilder("pvc-b", "static-sc").Obj());
  auto other = PodWithClaims("pod-b", {"pvc-b"});
  framework::CycleState other_state;
  EXPECT_EQ(Schedule(other_state, *other, "node-a"), Status());
}

// An assumption gives way once the cluster's object moves on.
TEST_F(VolumeBindingCycleTest, AssumptionsEndWhenTheClusterCatchesUp) {
  AddStaticVolume();
  handle_.objects_.Upsert(
      PvcBuilder("pvc-p", "zonal-sc").ResourceVersion("1").Obj());
  auto pod = PodWithClaims("pod-a", {"pvc-a", "pvc-p"});
  framework::CycleState state;
  ASSERT_EQ(Schedule(state, *pod, "node-a"), Status());
  ASSERT_EQ(pl_->Reserve(state, *pod, "node-a"), Status());

  // The provisioner's annotation arrives with a new resourceVersion; the
  // PV controller binds pv-a.
  handle_.objects_.Upsert(PvcBuilder("pvc-p", "zonal-sc")
                              .ResourceVersion("2")
                              .SelectedNode("node-a")
                              .Obj());
  handle_.objects_.Upsert(PvBuilder("pv-a", "static-sc")
                              .Phase("Bound")
                              .ClaimRef("default", "pvc-a")
                              .ResourceVersion("8")
                              .Obj());
  framework::CycleState again;
  ASSERT_EQ(Schedule(again, *pod, "node-a"), Status());
  EXPECT_FALSE(pl_->assume_cache().AssumedClaimRef("pv-a").has_value());
  EXPECT_FALSE(
      pl_->assume_cache().AssumedSelectedNode("default", "pvc-p").has_value());
}

// TestBindAPIUpdate's API errors: PreBind fails with the write's message.
TEST_F(VolumeBindingCycleTest, PreBindWriteErrorIsAnError) {
  handle_.objects_.Upsert(PvcBuilder("pvc-a", "zonal-sc").Obj());
  writer_.result = Status::Error("the object has been modified");
  auto pod = PodWithClaims("pod-a", {"pvc-a"});
  framework::CycleState state;
  ASSERT_EQ(Schedule(state, *pod, "node-a"), Status());
  ASSERT_EQ(pl_->Reserve(state, *pod, "node-a"), Status());
  EXPECT_EQ(pl_->PreBind(state, *pod, "node-a"),
            Status::Error("the object has been modified"));
}

// v1.36: PreBind may run beside DynamicResources'; once the binding cycle
// is cancelled (preempted, or that PreBind failed) no claim is written.
TEST_F(VolumeBindingCycleTest, CancelledPreBindWritesNothing) {
  handle_.objects_.Upsert(PvcBuilder("pvc-a", "zonal-sc").Obj());
  auto pod = PodWithClaims("pod-a", {"pvc-a"});
  framework::CycleState state;
  ASSERT_EQ(Schedule(state, *pod, "node-a"), Status());
  ASSERT_EQ(pl_->Reserve(state, *pod, "node-a"), Status());
  framework::PreBindPreFlightResult preflight;
  ASSERT_EQ(pl_->PreBindPreFlight(state, *pod, "node-a", preflight), Status());
  EXPECT_TRUE(preflight.allow_parallel);
  framework::CancelCause cancel;
  cancel.Cancel("some other PreBind operation failed");
  state.set_binding_cancellation(&cancel);
  EXPECT_EQ(pl_->PreBind(state, *pod, "node-a"),
            Status::Error("some other PreBind operation failed"));
  EXPECT_TRUE(writer_.annotations.empty());
}

TEST_F(VolumeBindingCycleTest, PreBindWithoutWriterIsAnError) {
  handle_.objects_.Upsert(PvcBuilder("pvc-a", "zonal-sc").Obj());
  handle_.writer_ = nullptr;
  auto pod = PodWithClaims("pod-a", {"pvc-a"});
  framework::CycleState state;
  ASSERT_EQ(Schedule(state, *pod, "node-a"), Status());
  ASSERT_EQ(pl_->Reserve(state, *pod, "node-a"), Status());
  EXPECT_EQ(pl_->PreBind(state, *pod, "node-a"),
            Status::Error("cannot trigger provisioning of "
                          "PersistentVolumeClaim \"default/pvc-a\": no "
                          "cluster writer"));
}

// kube's PreBind: no volumes for the node it is asked to bind on.
TEST_F(VolumeBindingCycleTest, PreBindOnAnotherNodeIsAnError) {
  handle_.objects_.Upsert(PvcBuilder("pvc-a", "zonal-sc").Obj());
  auto pod = PodWithClaims("pod-a", {"pvc-a"});
  framework::CycleState state;
  ASSERT_EQ(Schedule(state, *pod, "node-a"), Status());
  ASSERT_EQ(pl_->Reserve(state, *pod, "node-a"), Status());
  EXPECT_EQ(pl_->PreBind(state, *pod, "node-b"),
            Status::Error("no pod volumes found for node \"node-b\""));
  EXPECT_TRUE(writer_.annotations.empty());
}

// TestAssumePodVolumes "all-bound": nothing assumed, nothing written.
TEST_F(VolumeBindingCycleTest, AllBoundNeedsNoBinding) {
  handle_.objects_.Upsert(
      PvcBuilder("pvc-a", "immediate-sc").BoundPv("pv-a").Obj());
  handle_.objects_.Upsert(PvBuilder("pv-a", "immediate-sc").Obj());
  auto pod = PodWithClaims("pod-a", {"pvc-a"});
  framework::CycleState state;
  ASSERT_EQ(Schedule(state, *pod, "node-a"), Status());
  ASSERT_EQ(pl_->Reserve(state, *pod, "node-a"), Status());
  EXPECT_EQ(pl_->PreBind(state, *pod, "node-a"), Status());
  EXPECT_TRUE(writer_.annotations.empty());
  EXPECT_FALSE(pl_->assume_cache().AssumedClaimRef("pv-a").has_value());
}

TEST_F(VolumeBindingCycleTest, PodWithoutClaimsPassesEveryPoint) {
  auto pod = testing::PodBuilder("pod-a").Info();
  framework::CycleState state;
  EXPECT_EQ(pl_->PreFilter(state, *pod, infos_, nullptr), Status::Skip());
  EXPECT_EQ(pl_->Reserve(state, *pod, "node-a"), Status());
  EXPECT_EQ(pl_->PreBind(state, *pod, "node-a"), Status());
  pl_->Unreserve(state, *pod, "node-a");
  EXPECT_TRUE(writer_.annotations.empty());
}

// Score is skipped (VolumeCapacityPriority off) and scores 0 if run.
TEST_F(VolumeBindingCycleTest, ScoreIsSkipped) {
  auto pod = testing::PodBuilder("pod-a").Info();
  framework::CycleState state;
  EXPECT_EQ(pl_->PreScore(state, *pod, infos_), Status::Skip());
  int64_t score = -1;
  EXPECT_EQ(pl_->Score(state, *pod, *infos_[0], &score), Status());
  EXPECT_EQ(score, 0);
}

// kube's getStateData error when PreFilter did not run.
TEST_F(VolumeBindingCycleTest, MissingStateIsAnError) {
  auto pod = PodWithClaims("pod-a", {"pvc-a"});
  framework::CycleState state;
  EXPECT_EQ(pl_->Filter(state, *pod, *infos_[0]), Status::Error("not found"));
  EXPECT_EQ(pl_->Reserve(state, *pod, "node-a"), Status::Error("not found"));
  EXPECT_EQ(pl_->PreBind(state, *pod, "node-a"), Status::Error("not found"));
}

// Preemption's clone carries the reservation without sharing it.
TEST_F(VolumeBindingCycleTest, ClonedStateIsIndependent) {
  handle_.objects_.Upsert(PvcBuilder("pvc-a", "zonal-sc").Obj());
  auto pod = PodWithClaims("pod-a", {"pvc-a"});
  framework::CycleState state;
  ASSERT_EQ(Schedule(state, *pod, "node-a"), Status());
  ASSERT_EQ(pl_->Reserve(state, *pod, "node-a"), Status());
  auto clone = state.Clone();
  ASSERT_EQ(pl_->Reserve(state, *pod, "node-b"), Status());
  EXPECT_EQ(pl_->PreBind(*clone, *pod, "node-a"), Status());
  EXPECT_EQ(pl_->PreBind(state, *pod, "node-b"), Status());
  ASSERT_EQ(writer_.annotations.size(), 2u);
  EXPECT_EQ(writer_.annotations[0].value, "node-a");
  EXPECT_EQ(writer_.annotations[1].value, "node-b");
}

TEST(VolumeBindingEventsTest, EventsToRegister) {
  testing::FakeHandle handle;
  VolumeBinding pl(handle);
  using framework::EventResource;
  const uint32_t add_or_update = framework::kAdd | framework::kUpdate;
  std::vector<std::pair<EventResource, uint32_t>> want = {
      {EventResource::kStorageClass, add_or_update},
      {EventResource::kPersistentVolumeClaim, add_or_update},
      {EventResource::kPersistentVolume, add_or_update},
      {EventResource::kNode, framework::kAdd | framework::kUpdateNodeLabel},
      {EventResource::kCsiNode, add_or_update},
  };
  std::vector<std::pair<EventResource, uint32_t>> got;
  for (const auto& e : pl.EventsToRegister()) {
    got.emplace_back(e.event.resource, e.event.action);
    EXPECT_FALSE(e.hint) << e.event.Label();
  }
  EXPECT_EQ(got, want);
}

TEST(NewVolumeBindingTest, ValidatesArgs) {
  testing::FakeHandle handle;
  config::VolumeBindingArgs args;
  auto ok = NewVolumeBinding(&args, handle);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)->Name(), "VolumeBinding");

  args.bind_timeout_seconds = -10;
  auto negative = NewVolumeBinding(&args, handle);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().message(),
            "bindTimeoutSeconds: Invalid value: -10: invalid "
            "BindTimeoutSeconds, should not be a negative value");

  // volume_binding_test.go's custom shape needs VolumeCapacityPriority.
  args.bind_timeout_seconds = 300;
  args.shape = {{0, 0}, {50, 3}, {100, 5}};
  auto shaped = NewVolumeBinding(&args, handle);
  ASSERT_FALSE(shaped.ok());
  EXPECT_EQ(shaped.error().message(),
            "shape: Invalid value: []config.UtilizationShapePoint{config."
            "UtilizationShapePoint{Utilization:0, Score:0}, config."
            "UtilizationShapePoint{Utilization:50, Score:3}, config."
            "UtilizationShapePoint{Utilization:100, Score:5}}: unexpected "
            "field `shape`, remove it or turn on the feature gate "
            "VolumeCapacityPriority");

  config::NodeAffinityArgs wrong;
  EXPECT_FALSE(NewVolumeBinding(&wrong, handle).ok());
}

}  // namespace
}  // namespace ksched::plugins
