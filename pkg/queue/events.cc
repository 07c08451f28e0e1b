#include "pkg/queue/events.h"

#include <type_traits>

#include "pkg/api/pod_resources.h"

namespace ksched::queue {
namespace {

// A request removed or lowered frees room on the pod's node
// (extractPodScaleDown): counted as the pod holds it, status resources
// included when in-place resize is on, pod-level requests always.
bool ScaledDown(const api::Pod& new_pod, const api::Pod& old_pod,
                const api::ResourceFeatures& features) {
  api::PodResourcesOptions options;
  options.use_status_resources = features.in_place_pod_vertical_scaling;
  options.in_place_pod_level_resources_vertical_scaling =
      features.in_place_pod_level_resources_vertical_scaling;
  const api::ResourceList old_req = api::PodRequests(old_pod, options);
  const api::ResourceList new_req = api::PodRequests(new_pod, options);
  for (const auto& [name, old_q] : old_req) {
    const api::Quantity* new_q = new_req.Find(name);
    if (new_q == nullptr || old_q.MilliValue() > new_q->MilliValue()) {
      return true;
    }
  }
  return false;
}

}  // namespace

OwnedEventObjects OwnedEventObjects::CopyOf(
    const framework::EventObjects& objs) {
  OwnedEventObjects out;
  if (objs.old_pod) out.old_pod = std::make_shared<api::Pod>(*objs.old_pod);
  if (objs.new_pod) out.new_pod = std::make_shared<api::Pod>(*objs.new_pod);
  if (objs.old_node) {
    out.old_node = std::make_shared<api::Node>(*objs.old_node);
  }
  if (objs.new_node) {
    out.new_node = std::make_shared<api::Node>(*objs.new_node);
  }
  auto copy = [](const auto* object) {
    using T = std::remove_cvref_t<decltype(*object)>;
    return object ? std::make_shared<const T>(*object) : nullptr;
  };
  out.old_pv = copy(objs.old_pv);
  out.new_pv = copy(objs.new_pv);
  out.old_pvc = copy(objs.old_pvc);
  out.new_pvc = copy(objs.new_pvc);
  out.old_storage_class = copy(objs.old_storage_class);
  out.new_storage_class = copy(objs.new_storage_class);
  out.old_claim = copy(objs.old_claim);
  out.new_claim = copy(objs.new_claim);
  out.old_pod_group = copy(objs.old_pod_group);
  out.new_pod_group = copy(objs.new_pod_group);
  return out;
}

std::vector<framework::ClusterEvent> PodSchedulingPropertiesChange(
    const api::Pod& new_pod, const api::Pod& old_pod,
    const api::ResourceFeatures& features) {
  const framework::EventResource resource =
      new_pod.spec.node_name.empty() ? framework::EventResource::kUnscheduledPod
                                     : framework::EventResource::kAssignedPod;
  std::vector<framework::ClusterEvent> events;
  auto add = [&](uint32_t action) { events.push_back({resource, action}); };
  if (!(new_pod.metadata.labels == old_pod.metadata.labels)) {
    add(framework::kUpdatePodLabel);
  }
  if (ScaledDown(new_pod, old_pod, features)) {
    add(framework::kUpdatePodScaleDown);
  }
  if (new_pod.spec.scheduling_gates.empty() &&
      !old_pod.spec.scheduling_gates.empty()) {
    add(framework::kUpdatePodSchedulingGatesEliminated);
  }
  // The API only lets tolerations be added, so a length change is a change.
  if (new_pod.spec.tolerations.size() != old_pod.spec.tolerations.size()) {
    add(framework::kUpdatePodToleration);
  }
  // The resourceclaim controller recorded a claim it made from a template
  // (DynamicResourceAllocation, locked on since v1.34).
  if (new_pod.status.resource_claim_statuses !=
      old_pod.status.resource_claim_statuses) {
    add(framework::kUpdatePodGeneratedResourceClaim);
  }
  if (events.empty()) add(framework::kUpdateOther);
  return events;
}

}  // namespace ksched::queue
