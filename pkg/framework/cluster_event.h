// Cluster events and queueing hints: which changes in the cluster may make
// a rejected pod schedulable, as each plugin declares them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "pkg/api/node.h"
#include "pkg/api/pod.h"
#include "pkg/api/podgroup.h"
#include "pkg/api/resource.h"
#include "pkg/api/storage.h"

namespace ksched::framework {

enum class EventResource : uint8_t {
  kPod,             // any pod
  kAssignedPod,     // a pod bound to a node
  kUnscheduledPod,  // a pod not bound yet
  kNode,
  kPersistentVolume,
  kPersistentVolumeClaim,
  kStorageClass,
  kCsiNode,
  kCsiDriver,
  kVolumeAttachment,
  // scheduling.x-k8s.io PodGroup (scheduler-plugins' custom resource).
  kPodGroup,
  // resource.k8s.io (Dynamic Resource Allocation).
  kResourceClaim,
  kResourceSlice,
  kDeviceClass,
  kWildCard,
};

// A bit set: one event may carry several update kinds.
enum ActionType : uint32_t {
  kAdd = 1u << 0,
  kDelete = 1u << 1,
  kUpdateNodeAllocatable = 1u << 2,
  kUpdateNodeLabel = 1u << 3,
  kUpdateNodeTaint = 1u << 4,
  kUpdateNodeCondition = 1u << 5,
  kUpdateNodeAnnotation = 1u << 6,
  kUpdatePodLabel = 1u << 7,
  kUpdatePodScaleDown = 1u << 8,
  kUpdatePodToleration = 1u << 9,
  kUpdatePodSchedulingGatesEliminated = 1u << 10,
  kUpdatePodGeneratedResourceClaim = 1u << 11,
  // Any other update.
  kUpdateOther = 1u << 12,
  // The node's status.declaredFeatures changed (reported only while
  // NodeDeclaredFeatures is on, as kube does).
  kUpdateNodeDeclaredFeature = 1u << 13,
  kUpdate = kUpdateNodeAllocatable | kUpdateNodeLabel | kUpdateNodeTaint |
            kUpdateNodeCondition | kUpdateNodeAnnotation |
            kUpdateNodeDeclaredFeature | kUpdatePodLabel | kUpdatePodScaleDown |
            kUpdatePodToleration | kUpdatePodSchedulingGatesEliminated |
            kUpdatePodGeneratedResourceClaim | kUpdateOther,
  kAll = kAdd | kDelete | kUpdate,
};

struct ClusterEvent {
  EventResource resource = EventResource::kWildCard;
  uint32_t action = kAll;
  // "Node/Add", "Pod/UpdatePodLabel": the label of
  // scheduler_queue_incoming_pods_total{event}.
  std::string Label() const;
};

// Whether `incoming` is the same as or more specific than `registered`.
bool MatchClusterEvents(const ClusterEvent& registered,
                        const ClusterEvent& incoming);

enum class QueueingHint : uint8_t { kQueueSkip, kQueue };

// The objects of a cluster event: the one before and the one after (either
// is null for an add or a delete). Which pair is set follows the event's
// resource.
struct EventObjects {
  const api::Pod* old_pod = nullptr;
  const api::Pod* new_pod = nullptr;
  const api::Node* old_node = nullptr;
  const api::Node* new_node = nullptr;
  const api::PersistentVolume* old_pv = nullptr;
  const api::PersistentVolume* new_pv = nullptr;
  const api::PersistentVolumeClaim* old_pvc = nullptr;
  const api::PersistentVolumeClaim* new_pvc = nullptr;
  const api::StorageClass* old_storage_class = nullptr;
  const api::StorageClass* new_storage_class = nullptr;
  const api::PodGroup* old_pod_group = nullptr;
  const api::PodGroup* new_pod_group = nullptr;
  const api::ResourceClaim* old_claim = nullptr;
  const api::ResourceClaim* new_claim = nullptr;
  const api::DeviceClass* old_device_class = nullptr;
  const api::DeviceClass* new_device_class = nullptr;
};

// Decides whether the event may make `pod` (which this plugin rejected)
// schedulable. An absent function always queues.
using QueueingHintFn =
    std::function<QueueingHint(const api::Pod& pod, const EventObjects& objs)>;

struct ClusterEventWithHint {
  ClusterEvent event;
  QueueingHintFn hint;
};

}  // namespace ksched::framework
