// The claim/volume matching rules kube-scheduler's volume binder borrows
// from k8s.io/component-helpers/storage/volume (pv_helpers.go, helpers.go)
// and from v1helper.MatchTopologySelectorTerms, on ksched's API types.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/node_selector.h"
#include "pkg/api/storage.h"
#include "pkg/api/string_map.h"
#include "pkg/util/result.h"

namespace ksched::plugins::volumebinding {

// Set on a PV the binder (or the PV controller) bound to a claim.
inline constexpr std::string_view kAnnBoundByController =
    "pv.kubernetes.io/bound-by-controller";
// StorageClass.provisioner of classes that only hold static volumes.
inline constexpr std::string_view kNotSupportedProvisioner =
    "kubernetes.io/no-provisioner";
inline constexpr std::string_view kClaimLost = "Lost";
inline constexpr std::string_view kVolumeAvailable = "Available";
inline constexpr std::string_view kResourceStorage = "storage";

// The class of a claim / volume: the beta annotation wins over the field
// (GetPersistentVolumeClaimClass / GetPersistentVolumeClass).
std::string ClaimClass(const api::PersistentVolumeClaim& claim);
std::string VolumeClass(const api::PersistentVolume& volume);

// spec.volumeName set and the PV controller finished binding.
bool IsClaimFullyBound(const api::PersistentVolumeClaim& claim);
// The volume's claimRef names this claim (and its UID, when set).
bool IsVolumeBoundToClaim(const api::PersistentVolume& volume,
                          const api::PersistentVolumeClaim& claim);

// The "namespace/name" key of a claim.
std::string ClaimKey(const api::PersistentVolumeClaim& claim);

// A PV as the binder considers it, with its required node affinity compiled
// once per scheduling cycle rather than once per node.
struct CandidateVolume {
  explicit CandidateVolume(std::shared_ptr<const api::PersistentVolume> pv);

  std::shared_ptr<const api::PersistentVolume> pv;
  // Null when the PV has no required node affinity (it fits every node).
  std::shared_ptr<const api::CompiledNodeSelector> affinity;
};

// A node reduced to its labels: kube's CheckNodeAffinity matches PV node
// affinity against a Node carrying only the labels, so matchFields on
// metadata.name see an empty name.
api::Node LabelsOnlyNode(const api::Node& node);

// volume.CheckNodeAffinity, against LabelsOnlyNode(node). A term that does
// not parse matches nothing, as kube's error does.
bool VolumeNodeAffinityMatches(const CandidateVolume& volume,
                               const api::Node& labels_only_node);

// volume.FindMatchingVolume on the scheduler path (node set, delayed
// binding): the volume pre-bound to the claim if it fits the node, else the
// smallest available volume of the claim's class that satisfies size,
// volume mode, selector, node affinity and access modes and is not in
// `excluded`; nullptr when none. Fails only on a claim selector that does
// not parse.
util::Result<const CandidateVolume*> FindMatchingVolume(
    const api::PersistentVolumeClaim& claim,
    const std::vector<CandidateVolume>& volumes,
    const api::Node& labels_only_node, const std::set<std::string>& excluded);

// volume.GetBindVolumeToClaim: a copy of the volume bound to the claim
// (claimRef, and bound-by-controller unless the volume was pre-bound to it),
// and whether that changed anything.
std::pair<std::shared_ptr<const api::PersistentVolume>, bool> BindVolumeToClaim(
    const api::PersistentVolume& volume,
    const api::PersistentVolumeClaim& claim);

// v1helper.MatchTopologySelectorTerms: no terms match every label set; an
// empty or invalid term matches none.
bool MatchTopologySelectorTerms(
    const std::vector<api::TopologySelectorTerm>& terms,
    const api::StringMap& labels);

}  // namespace ksched::plugins::volumebinding
