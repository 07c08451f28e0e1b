#include "pkg/framework/cluster_event.h"

namespace ksched::framework {
namespace {

std::string ResourceName(EventResource r) {
  switch (r) {
    case EventResource::kPod:
      return "Pod";
    case EventResource::kAssignedPod:
      return "AssignedPod";
    case EventResource::kUnscheduledPod:
      return "UnschedulablePod";
    case EventResource::kNode:
      return "Node";
    case EventResource::kPersistentVolume:
      return "PersistentVolume";
    case EventResource::kPersistentVolumeClaim:
      return "PersistentVolumeClaim";
    case EventResource::kStorageClass:
      return "storage.k8s.io/StorageClass";
    case EventResource::kCsiNode:
      return "storage.k8s.io/CSINode";
    case EventResource::kCsiDriver:
      return "storage.k8s.io/CSIDriver";
    case EventResource::kVolumeAttachment:
      return "storage.k8s.io/VolumeAttachment";
    case EventResource::kPodGroup:
      // How kube-scheduler names a custom resource's events (its GVK).
      return "podgroups.v1alpha1.scheduling.x-k8s.io";
    case EventResource::kResourceClaim:
      return "resource.k8s.io/ResourceClaim";
    case EventResource::kResourceSlice:
      return "resource.k8s.io/ResourceSlice";
    case EventResource::kDeviceClass:
      return "resource.k8s.io/DeviceClass";
    case EventResource::kWildCard:
      return "*";
  }
  return "?";
}

std::string ActionName(uint32_t a) {
  if (a == kAll) return "*";
  if (a == kUpdate) return "Update";
  struct Named {
    uint32_t bit;
    const char* name;
  };
  static constexpr Named kNames[] = {
      {kAdd, "Add"},
      {kDelete, "Delete"},
      {kUpdateNodeAllocatable, "UpdateNodeAllocatable"},
      {kUpdateNodeLabel, "UpdateNodeLabel"},
      {kUpdateNodeTaint, "UpdateNodeTaint"},
      {kUpdateNodeCondition, "UpdateNodeCondition"},
      {kUpdateNodeAnnotation, "UpdateNodeAnnotation"},
      {kUpdateNodeDeclaredFeature, "UpdateNodeDeclaredFeature"},
      {kUpdatePodLabel, "UpdatePodLabel"},
      {kUpdatePodScaleDown, "UpdatePodScaleDown"},
      {kUpdatePodToleration, "UpdatePodToleration"},
      {kUpdatePodSchedulingGatesEliminated,
       "UpdatePodSchedulingGatesEliminated"},
      {kUpdatePodGeneratedResourceClaim, "UpdatePodGeneratedResourceClaim"},
      {kUpdateOther, "Update"},
  };
  std::string out;
  for (const Named& n : kNames) {
    if (a & n.bit) {
      if (!out.empty()) out += "|";
      out += n.name;
    }
  }
  return out;
}

bool MatchResources(EventResource registered, EventResource incoming) {
  return registered == EventResource::kWildCard || registered == incoming ||
         (registered == EventResource::kPod &&
          (incoming == EventResource::kAssignedPod ||
           incoming == EventResource::kUnscheduledPod));
}

}  // namespace

std::string ClusterEvent::Label() const {
  return ResourceName(resource) + "/" + ActionName(action);
}

bool MatchClusterEvents(const ClusterEvent& registered,
                        const ClusterEvent& incoming) {
  if (registered.resource == EventResource::kWildCard &&
      registered.action == kAll) {
    return true;
  }
  return MatchResources(registered.resource, incoming.resource) &&
         (registered.action & incoming.action) != 0;
}

}  // namespace ksched::framework
