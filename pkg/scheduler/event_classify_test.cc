#include "pkg/scheduler/event_classify.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/framework/cluster_event.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::scheduler {
namespace {

using framework::kUpdateNodeAllocatable;
using framework::kUpdateNodeAnnotation;
using framework::kUpdateNodeCondition;
using framework::kUpdateNodeDeclaredFeature;
using framework::kUpdateNodeLabel;
using framework::kUpdateNodeTaint;
using framework::kUpdateOther;
using framework::kUpdatePodLabel;
using framework::kUpdatePodScaleDown;
using framework::kUpdatePodSchedulingGatesEliminated;
using framework::kUpdatePodToleration;
using testing::NodeBuilder;
using testing::PodBuilder;

NodeBuilder BaseNode() {
  return NodeBuilder("n1")
      .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}})
      .Label("zone", "a");
}

api::Node WithCondition(api::Node node, std::string type, std::string status) {
  api::NodeCondition c;
  c.type = std::move(type);
  c.status = std::move(status);
  node.status.conditions.push_back(std::move(c));
  return node;
}

// After kube-scheduler's TestNodeSchedulingPropertiesChange
// (framework/events_test.go): one action per kind of change, in kube's
// order, and none for changes a scheduler does not read.
TEST(NodeUpdateActionsTest, OneActionPerKindOfChange) {
  const api::Node base = BaseNode().Obj();
  struct Case {
    std::string name;
    api::Node old_node;
    api::Node new_node;
    std::vector<uint32_t> want;
  };
  std::vector<Case> cases;
  cases.push_back({"no change", base, base, {}});
  {
    api::Node changed = base;
    changed.status.allocatable =
        testing::MakeResourceList({{"cpu", "2"}, {"memory", "8Gi"}});
    cases.push_back({"allocatable", base, changed, {kUpdateNodeAllocatable}});
  }
  {
    // The same value written another way is no change (Semantic.DeepEqual).
    api::Node same = base;
    same.status.allocatable = testing::MakeResourceList(
        {{"cpu", "4000m"}, {"memory", "8192Mi"}, {"pods", "110"}});
    cases.push_back({"allocatable rewritten", base, same, {}});
  }
  {
    // kube compares allocatable only.
    api::Node changed = base;
    changed.status.capacity = testing::MakeResourceList({{"cpu", "64"}});
    cases.push_back({"capacity only", base, changed, {}});
  }
  cases.push_back({"labels",
                   base,
                   BaseNode().Label("disk", "ssd").Obj(),
                   {kUpdateNodeLabel}});
  cases.push_back(
      {"taints",
       base,
       BaseNode().Taint("dedicated", "db", api::TaintEffect::kNoSchedule).Obj(),
       {kUpdateNodeTaint}});
  cases.push_back(
      {"taint removed",
       BaseNode().Taint("dedicated", "db", api::TaintEffect::kNoSchedule).Obj(),
       base,
       {kUpdateNodeTaint}});
  // nodeSpecUnschedulableChanged: only a node that becomes schedulable
  // (uncordoned) is reported, as an UpdateNodeTaint.
  cases.push_back({"uncordoned",
                   BaseNode().Unschedulable().Obj(),
                   base,
                   {kUpdateNodeTaint}});
  cases.push_back({"cordoned", base, BaseNode().Unschedulable().Obj(), {}});
  cases.push_back({"cordoned with its taint",
                   base,
                   BaseNode()
                       .Unschedulable()
                       .Taint("node.kubernetes.io/unschedulable", "",
                              api::TaintEffect::kNoSchedule)
                       .Obj(),
                   {kUpdateNodeTaint}});
  cases.push_back({"uncordoned and its taint removed",
                   BaseNode()
                       .Unschedulable()
                       .Taint("node.kubernetes.io/unschedulable", "",
                              api::TaintEffect::kNoSchedule)
                       .Obj(),
                   base,
                   {kUpdateNodeTaint, kUpdateNodeTaint}});
  cases.push_back({"condition status",
                   WithCondition(base, "Ready", "False"),
                   WithCondition(base, "Ready", "True"),
                   {kUpdateNodeCondition}});
  cases.push_back({"condition added",
                   base,
                   WithCondition(base, "Ready", "True"),
                   {kUpdateNodeCondition}});
  {
    // Heartbeats, reasons and messages are not scheduling properties.
    api::Node old_node = WithCondition(base, "Ready", "True");
    api::Node new_node = old_node;
    new_node.status.conditions[0].reason = "KubeletReady";
    new_node.status.conditions[0].message = "kubelet is posting ready status";
    new_node.status.conditions[0].last_heartbeat_time = api::Time{};
    cases.push_back({"condition heartbeat", old_node, new_node, {}});
  }
  {
    api::Node changed = base;
    changed.metadata.annotations.Set("example.com/owner", "team-a");
    cases.push_back({"annotations", base, changed, {kUpdateNodeAnnotation}});
  }
  {
    // kubectl's last-applied annotation, kept by the informer as a digest.
    api::Node old_node = base;
    old_node.metadata.last_applied_digest = 0x1234;
    api::Node new_node = base;
    new_node.metadata.last_applied_digest = 0x5678;
    cases.push_back({"last-applied annotation",
                     old_node,
                     new_node,
                     {kUpdateNodeAnnotation}});
  }
  {
    api::Node changed = base;
    changed.metadata.resource_version = "42";
    changed.status.images.push_back({{"nginx:1.25"}, 1 << 20});
    cases.push_back({"resource version and images", base, changed, {}});
  }
  {
    api::Node changed = BaseNode().Label("disk", "ssd").Obj();
    changed.status.allocatable = testing::MakeResourceList({{"cpu", "2"}});
    changed = WithCondition(changed, "Ready", "True");
    cases.push_back(
        {"several at once, in kube's order",
         base,
         changed,
         {kUpdateNodeAllocatable, kUpdateNodeLabel, kUpdateNodeCondition}});
  }

  for (const Case& c : cases) {
    EXPECT_EQ(NodeUpdateActions(c.old_node, c.new_node), c.want) << c.name;
  }
}

// kube's extractNodeFeaturesChange: the declared features are compared in
// order, and only while NodeDeclaredFeatures is on.
TEST(NodeUpdateActionsTest, DeclaredFeaturesWithTheGate) {
  api::Node base = BaseNode().Obj();
  base.status.declared_features = {"FeatureA"};
  api::Node added = base;
  added.status.declared_features = {"FeatureA", "FeatureB"};
  api::Node cleared = base;
  cleared.status.declared_features.clear();

  EXPECT_EQ(NodeUpdateActions(base, added, /*declared_features=*/true),
            std::vector<uint32_t>{kUpdateNodeDeclaredFeature});
  EXPECT_EQ(NodeUpdateActions(base, cleared, /*declared_features=*/true),
            std::vector<uint32_t>{kUpdateNodeDeclaredFeature});
  EXPECT_EQ(NodeUpdateActions(base, base, /*declared_features=*/true),
            std::vector<uint32_t>{});
  // Gate off: the change is not a scheduling property.
  EXPECT_EQ(NodeUpdateActions(base, added, /*declared_features=*/false),
            std::vector<uint32_t>{});
  // After the other kinds of change, as kube appends it last.
  api::Node labelled = added;
  labelled.metadata.labels.Set("disk", "ssd");
  EXPECT_EQ(
      NodeUpdateActions(base, labelled, /*declared_features=*/true),
      (std::vector<uint32_t>{kUpdateNodeLabel, kUpdateNodeDeclaredFeature}));
}

PodBuilder BasePod() {
  return PodBuilder("p")
      .Label("app", "web")
      .Node("n1")
      .Req({{"cpu", "1"}, {"memory", "1Gi"}});
}

// After kube-scheduler's TestPodSchedulingPropertiesChange.
TEST(AssignedPodUpdateActionsTest, ClassifiesPodChanges) {
  const api::Pod base = BasePod().Obj();
  struct Case {
    std::string name;
    api::Pod old_pod;
    api::Pod new_pod;
    uint32_t want;
  };
  std::vector<Case> cases;
  {
    api::Pod changed = base;
    changed.metadata.labels.Set("app", "api");
    cases.push_back({"label changed", base, changed, kUpdatePodLabel});
  }
  cases.push_back({"label added", base, BasePod().Label("tier", "front").Obj(),
                   kUpdatePodLabel});
  {
    api::Pod changed = base;
    changed.spec.containers[0].resources.requests =
        testing::MakeResourceList({{"cpu", "500m"}, {"memory", "1Gi"}});
    cases.push_back(
        {"request scaled down", base, changed, kUpdatePodScaleDown});
  }
  {
    api::Pod changed = base;
    changed.spec.containers[0].resources.requests =
        testing::MakeResourceList({{"cpu", "1"}});
    cases.push_back({"request removed", base, changed, kUpdatePodScaleDown});
  }
  {
    api::Pod changed = base;
    changed.spec.containers[0].resources.requests =
        testing::MakeResourceList({{"cpu", "2"}, {"memory", "1Gi"}});
    cases.push_back({"request scaled up", base, changed, kUpdateOther});
  }
  {
    api::Pod changed = base;
    changed.spec.containers[0].resources.requests =
        testing::MakeResourceList({{"cpu", "1000m"}, {"memory", "1024Mi"}});
    cases.push_back({"request rewritten", base, changed, kUpdateOther});
  }
  cases.push_back(
      {"toleration added", base,
       BasePod()
           .Toleration("dedicated", "db", api::TaintEffect::kNoSchedule)
           .Obj(),
       kUpdatePodToleration});
  cases.push_back({"scheduling gates removed",
                   BasePod().SchedulingGate("example.com/quota").Obj(), base,
                   kUpdatePodSchedulingGatesEliminated});
  cases.push_back({"scheduling gate added", base,
                   BasePod().SchedulingGate("example.com/quota").Obj(),
                   kUpdateOther});
  {
    api::Pod changed = base;
    changed.metadata.annotations.Set("example.com/build", "7");
    changed.status.phase = std::string(api::kPodPhaseRunning);
    cases.push_back({"annotation and status", base, changed, kUpdateOther});
  }
  cases.push_back({"no change", base, base, kUpdateOther});
  {
    api::Pod changed = base;
    changed.metadata.labels.Set("app", "api");
    changed.spec.containers[0].resources.requests =
        testing::MakeResourceList({{"cpu", "100m"}, {"memory", "1Gi"}});
    cases.push_back({"label and scale down", base, changed,
                     kUpdatePodLabel | kUpdatePodScaleDown});
  }

  for (const Case& c : cases) {
    EXPECT_EQ(AssignedPodUpdateActions(c.old_pod, c.new_pod), c.want) << c.name;
  }
}

// extractPodScaleDown counts a pod as it holds its node: a resize the
// kubelet reports in the status counts with InPlacePodVerticalScaling on
// (v1.33+), pod-level requests always.
TEST(AssignedPodUpdateActionsTest, ScaleDownInTheStatusAndAtPodLevel) {
  const api::ResourceFeatures v135;
  const api::ResourceFeatures v132{.in_place_pod_vertical_scaling = false,
                                   .pod_level_resources = false};
  const api::Pod resized_up =
      BasePod().StatusResources("c0", {{"cpu", "3"}, {"memory", "1Gi"}}).Obj();
  const api::Pod resized_less =
      BasePod().StatusResources("c0", {{"cpu", "2"}, {"memory", "1Gi"}}).Obj();
  EXPECT_EQ(AssignedPodUpdateActions(resized_up, resized_less, v135),
            kUpdatePodScaleDown);
  EXPECT_EQ(AssignedPodUpdateActions(resized_less, resized_up, v135),
            kUpdateOther);
  // Down to the spec: still less than before.
  EXPECT_EQ(AssignedPodUpdateActions(resized_up, BasePod().Obj(), v135),
            kUpdatePodScaleDown);
  // At v1.32 the status is not read: nothing changed.
  EXPECT_EQ(AssignedPodUpdateActions(resized_up, resized_less, v132),
            kUpdateOther);
  // Pod-level requests lowered.
  const api::Pod pod_level = BasePod().PodLevelReq({{"cpu", "2"}}).Obj();
  const api::Pod pod_level_less =
      BasePod().PodLevelReq({{"cpu", "1500m"}}).Obj();
  EXPECT_EQ(AssignedPodUpdateActions(pod_level, pod_level_less, v135),
            kUpdatePodScaleDown);
  EXPECT_EQ(AssignedPodUpdateActions(pod_level, pod_level_less, v132),
            kUpdatePodScaleDown);
}

}  // namespace
}  // namespace ksched::scheduler
