#include "pkg/scheduler/event_classify.h"

#include <map>
#include <string>

#include "pkg/api/pod_resources.h"
#include "pkg/framework/cluster_event.h"

namespace ksched::scheduler {
namespace {

std::map<std::string, std::string> ConditionStatuses(const api::Node& node) {
  std::map<std::string, std::string> out;
  for (const auto& c : node.status.conditions) out[c.type] = c.status;
  return out;
}

// Whether any requested resource went down (or disappeared), counted as
// the pod holds it: a resize the kubelet applied shows in the status only.
// Pod-level requests count whatever PodLevelResources says, as in kube's
// extractPodScaleDown; so does its comparison in milli-units.
bool ScaledDown(const api::Pod& old_pod, const api::Pod& new_pod,
                const api::ResourceFeatures& features) {
  api::PodResourcesOptions options;
  options.use_status_resources = features.in_place_pod_vertical_scaling;
  options.in_place_pod_level_resources_vertical_scaling =
      features.in_place_pod_level_resources_vertical_scaling;
  api::ResourceList before = api::PodRequests(old_pod, options);
  api::ResourceList after = api::PodRequests(new_pod, options);
  for (const auto& [name, q] : before) {
    const api::Quantity* now = after.Find(name);
    if (now == nullptr || q.MilliValue() > now->MilliValue()) return true;
  }
  return false;
}

}  // namespace

std::vector<uint32_t> NodeUpdateActions(const api::Node& old_node,
                                        const api::Node& new_node,
                                        bool declared_features) {
  std::vector<uint32_t> actions;
  // Uncordoning is reported as a taint change, as kube-scheduler does
  // (nodeSpecUnschedulableChanged); cordoning makes no pod schedulable, so
  // it is not reported (a taint added with it is, below).
  if (old_node.spec.unschedulable && !new_node.spec.unschedulable) {
    actions.push_back(framework::kUpdateNodeTaint);
  }
  if (old_node.status.allocatable != new_node.status.allocatable) {
    actions.push_back(framework::kUpdateNodeAllocatable);
  }
  if (old_node.metadata.labels != new_node.metadata.labels) {
    actions.push_back(framework::kUpdateNodeLabel);
  }
  if (old_node.spec.taints != new_node.spec.taints) {
    actions.push_back(framework::kUpdateNodeTaint);
  }
  if (ConditionStatuses(old_node) != ConditionStatuses(new_node)) {
    actions.push_back(framework::kUpdateNodeCondition);
  }
  if (old_node.metadata.annotations != new_node.metadata.annotations ||
      old_node.metadata.last_applied_digest !=
          new_node.metadata.last_applied_digest) {
    actions.push_back(framework::kUpdateNodeAnnotation);
  }
  // The API server keeps the list sorted, so comparing in order suffices.
  if (declared_features &&
      old_node.status.declared_features != new_node.status.declared_features) {
    actions.push_back(framework::kUpdateNodeDeclaredFeature);
  }
  return actions;
}

uint32_t AssignedPodUpdateActions(const api::Pod& old_pod,
                                  const api::Pod& new_pod,
                                  const api::ResourceFeatures& features) {
  uint32_t actions = 0;
  if (old_pod.metadata.labels != new_pod.metadata.labels) {
    actions |= framework::kUpdatePodLabel;
  }
  if (ScaledDown(old_pod, new_pod, features)) {
    actions |= framework::kUpdatePodScaleDown;
  }
  if (!old_pod.spec.scheduling_gates.empty() &&
      new_pod.spec.scheduling_gates.empty()) {
    actions |= framework::kUpdatePodSchedulingGatesEliminated;
  }
  if (old_pod.spec.tolerations != new_pod.spec.tolerations) {
    actions |= framework::kUpdatePodToleration;
  }
  return actions == 0 ? framework::kUpdateOther : actions;
}

}  // namespace ksched::scheduler
