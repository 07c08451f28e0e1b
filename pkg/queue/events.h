// The cluster events the scheduling queue itself raises or derives, and the
// owned form of an event's objects that the queue keeps while pods are in
// flight (framework/events.go of kube-scheduler v1.32).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/pod.h"
#include "pkg/api/pod_resources.h"
#include "pkg/framework/cluster_event.h"

namespace ksched::queue {

// Events the scheduler's informer handlers report about pods.
inline constexpr framework::ClusterEvent kEventAssignedPodAdd{
    framework::EventResource::kAssignedPod, framework::kAdd};
inline constexpr framework::ClusterEvent kEventAssignedPodDelete{
    framework::EventResource::kAssignedPod, framework::kDelete};
inline constexpr framework::ClusterEvent kEventUnscheduledPodAdd{
    framework::EventResource::kUnscheduledPod, framework::kAdd};
inline constexpr framework::ClusterEvent kEventUnscheduledPodDelete{
    framework::EventResource::kUnscheduledPod, framework::kDelete};
// The wildcard event: every plugin is assumed interested, every rejected pod
// is moved (UnschedulableTimeout and ForceActivate are both this event).
inline constexpr framework::ClusterEvent kEventWildCard{
    framework::EventResource::kWildCard, framework::kAll};

// Labels of scheduler_queue_incoming_pods_total{event} for the moves that
// are not cluster events.
inline constexpr std::string_view kScheduleAttemptFailure =
    "ScheduleAttemptFailure";
inline constexpr std::string_view kBackoffComplete = "BackoffComplete";
inline constexpr std::string_view kForceActivate = "ForceActivate";
// A pod Pop took from backoffQ because activeQ was empty (v1.33+).
inline constexpr std::string_view kPopFromBackoffQ = "PopFromBackoffQ";
inline constexpr std::string_view kUnschedulableTimeout =
    "UnschedulableTimeout";
inline constexpr std::string_view kPodAdd = "UnscheduledPodAdd";
inline constexpr std::string_view kPodUpdate = "UnscheduledPodUpdate";

// framework.ClusterEventIsWildCard.
inline bool IsWildCard(const framework::ClusterEvent& e) {
  return e.resource == framework::EventResource::kWildCard &&
         e.action == framework::kAll;
}

// An event's objects kept alive by the queue: events that arrive while pods
// are in their scheduling cycle are replayed to those pods' queueing hints
// when they come back, possibly long after the informer moved on.
struct OwnedEventObjects {
  std::shared_ptr<const api::Pod> old_pod;
  std::shared_ptr<const api::Pod> new_pod;
  std::shared_ptr<const api::Node> old_node;
  std::shared_ptr<const api::Node> new_node;
  std::shared_ptr<const api::PersistentVolume> old_pv;
  std::shared_ptr<const api::PersistentVolume> new_pv;
  std::shared_ptr<const api::PersistentVolumeClaim> old_pvc;
  std::shared_ptr<const api::PersistentVolumeClaim> new_pvc;
  std::shared_ptr<const api::StorageClass> old_storage_class;
  std::shared_ptr<const api::StorageClass> new_storage_class;
  std::shared_ptr<const api::PodGroup> old_pod_group;
  std::shared_ptr<const api::PodGroup> new_pod_group;
  std::shared_ptr<const api::ResourceClaim> old_claim;
  std::shared_ptr<const api::ResourceClaim> new_claim;

  // Copies whatever `objs` points at.
  static OwnedEventObjects CopyOf(const framework::EventObjects& objs);
  framework::EventObjects View() const {
    return {.old_pod = old_pod.get(),
            .new_pod = new_pod.get(),
            .old_node = old_node.get(),
            .new_node = new_node.get(),
            .old_pv = old_pv.get(),
            .new_pv = new_pv.get(),
            .old_pvc = old_pvc.get(),
            .new_pvc = new_pvc.get(),
            .old_storage_class = old_storage_class.get(),
            .new_storage_class = new_storage_class.get(),
            .old_pod_group = old_pod_group.get(),
            .new_pod_group = new_pod_group.get(),
            .old_claim = old_claim.get(),
            .new_claim = new_claim.get()};
  }
};

// The update events an unscheduled or assigned pod's change amounts to
// (framework.PodSchedulingPropertiesChange): label change, scale down,
// scheduling gates eliminated, tolerations added; UpdateOther when none.
// The resource is AssignedPod when new_pod is bound, else UnscheduledPod.
// `features` say whether a resize reported in the status counts.
std::vector<framework::ClusterEvent> PodSchedulingPropertiesChange(
    const api::Pod& new_pod, const api::Pod& old_pod,
    const api::ResourceFeatures& features = {});

}  // namespace ksched::queue
