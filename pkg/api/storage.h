// core/v1 PersistentVolumeClaim and PersistentVolume, storage.k8s.io/v1
// StorageClass: what volume binding reads.
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

}  // namespace ksched::api
