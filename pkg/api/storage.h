// core/v1 PersistentVolumeClaim and PersistentVolume, storage.k8s.io/v1
// StorageClass, CSINode, CSIDriver and VolumeAttachment: what the volume
// plugins read.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pkg/api/meta.h"
#include "pkg/api/pod.h"
#include "pkg/api/selector.h"

namespace ksched::api {

inline constexpr std::string_view kAnnSelectedNode =
    "volume.kubernetes.io/selected-node";
inline constexpr std::string_view kAnnBindCompleted =
    "pv.kubernetes.io/bind-completed";
inline constexpr std::string_view kAnnBetaStorageClass =
    "volume.beta.kubernetes.io/storage-class";
inline constexpr std::string_view kVolumeBindingImmediate = "Immediate";
inline constexpr std::string_view kVolumeBindingWaitForFirstConsumer =
    "WaitForFirstConsumer";

struct PersistentVolumeClaimSpec {
  std::vector<std::string> access_modes;
  std::optional<LabelSelector> selector;
  ResourceRequirements resources;
  std::string volume_name;
  std::optional<std::string> storage_class_name;
  std::optional<std::string> volume_mode;
  friend bool operator==(const PersistentVolumeClaimSpec&,
                         const PersistentVolumeClaimSpec&) = default;
};

struct PersistentVolumeClaimStatus {
  std::string phase;  // Pending, Bound, Lost
  std::vector<std::string> access_modes;
  ResourceList capacity;
  friend bool operator==(const PersistentVolumeClaimStatus&,
                         const PersistentVolumeClaimStatus&) = default;
};

struct PersistentVolumeClaim {
  ObjectMeta metadata;
  PersistentVolumeClaimSpec spec;
  PersistentVolumeClaimStatus status;
  friend bool operator==(const PersistentVolumeClaim&,
                         const PersistentVolumeClaim&) = default;
};

struct VolumeNodeAffinity {
  std::optional<NodeSelector> required;
  friend bool operator==(const VolumeNodeAffinity&,
                         const VolumeNodeAffinity&) = default;
};

struct CsiVolumeSource {
  std::string driver;
  std::string volume_handle;
  friend bool operator==(const CsiVolumeSource&,
                         const CsiVolumeSource&) = default;
};

struct PersistentVolumeSpec {
  ResourceList capacity;
  std::vector<std::string> access_modes;
  std::optional<ObjectReference> claim_ref;
  std::string persistent_volume_reclaim_policy;
  std::string storage_class_name;
  std::optional<std::string> volume_mode;
  std::optional<VolumeNodeAffinity> node_affinity;
  std::optional<CsiVolumeSource> csi;
  // A PV's in-tree source: what CSI migration translates, so that
  // NodeVolumeLimits counts it against the driver that took it over.
  InTreeVolumeSources in_tree;
  friend bool operator==(const PersistentVolumeSpec&,
                         const PersistentVolumeSpec&) = default;
};

struct PersistentVolumeStatus {
  std::string phase;  // Available, Bound, Released, Failed
  friend bool operator==(const PersistentVolumeStatus&,
                         const PersistentVolumeStatus&) = default;
};

struct PersistentVolume {
  ObjectMeta metadata;
  PersistentVolumeSpec spec;
  PersistentVolumeStatus status;
  friend bool operator==(const PersistentVolume&,
                         const PersistentVolume&) = default;
};

struct TopologySelectorLabelRequirement {
  std::string key;
  std::vector<std::string> values;
  friend bool operator==(const TopologySelectorLabelRequirement&,
                         const TopologySelectorLabelRequirement&) = default;
};

struct TopologySelectorTerm {
  std::vector<TopologySelectorLabelRequirement> match_label_expressions;
  friend bool operator==(const TopologySelectorTerm&,
                         const TopologySelectorTerm&) = default;
};

struct StorageClass {
  ObjectMeta metadata;
  std::string provisioner;
  std::optional<std::string> volume_binding_mode;
  std::vector<TopologySelectorTerm> allowed_topologies;
  friend bool operator==(const StorageClass&, const StorageClass&) = default;
};

// storage.k8s.io/v1 CSINode: the CSI drivers a node runs and how many of
// each driver's volumes it can attach.
struct VolumeNodeResources {
  std::optional<int32_t> count;
  friend bool operator==(const VolumeNodeResources&,
                         const VolumeNodeResources&) = default;
};

struct CsiNodeDriver {
  std::string name;
  std::string node_id;  // "nodeID"
  std::vector<std::string> topology_keys;
  std::optional<VolumeNodeResources> allocatable;
  friend bool operator==(const CsiNodeDriver&, const CsiNodeDriver&) = default;
};

struct CsiNodeSpec {
  std::vector<CsiNodeDriver> drivers;
  friend bool operator==(const CsiNodeSpec&, const CsiNodeSpec&) = default;
};

struct CsiNode {
  ObjectMeta metadata;
  CsiNodeSpec spec;
  friend bool operator==(const CsiNode&, const CsiNode&) = default;
};

// storage.k8s.io/v1 CSIDriver: how a driver's volumes are attached and
// whether it reports storage capacity.
struct CsiDriverSpec {
  std::optional<bool> attach_required;
  std::optional<bool> pod_info_on_mount;
  std::optional<bool> storage_capacity;
  std::vector<std::string> volume_lifecycle_modes;
  friend bool operator==(const CsiDriverSpec&, const CsiDriverSpec&) = default;
};

struct CsiDriver {
  ObjectMeta metadata;
  CsiDriverSpec spec;
  friend bool operator==(const CsiDriver&, const CsiDriver&) = default;
};

// storage.k8s.io/v1 VolumeAttachment: a volume attached (or being attached)
// to a node; NodeVolumeLimits counts those of PVs against the node's limit.
struct VolumeAttachmentSource {
  std::optional<std::string> persistent_volume_name;
  friend bool operator==(const VolumeAttachmentSource&,
                         const VolumeAttachmentSource&) = default;
};

struct VolumeAttachmentSpec {
  std::string attacher;
  VolumeAttachmentSource source;
  std::string node_name;
  friend bool operator==(const VolumeAttachmentSpec&,
                         const VolumeAttachmentSpec&) = default;
};

struct VolumeAttachmentStatus {
  bool attached = false;
  friend bool operator==(const VolumeAttachmentStatus&,
                         const VolumeAttachmentStatus&) = default;
};

struct VolumeAttachment {
  ObjectMeta metadata;
  VolumeAttachmentSpec spec;
  VolumeAttachmentStatus status;
  friend bool operator==(const VolumeAttachment&,
                         const VolumeAttachment&) = default;
};

}  // namespace ksched::api
