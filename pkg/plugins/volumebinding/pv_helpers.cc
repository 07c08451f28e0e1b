#include "pkg/plugins/volumebinding/pv_helpers.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "pkg/api/label_selector.h"

namespace ksched::plugins::volumebinding {
namespace {

constexpr std::string_view kFilesystem = "Filesystem";

api::Quantity StorageOf(const api::ResourceList& list) {
  const api::Quantity* q = list.Find(kResourceStorage);
  return q == nullptr ? api::Quantity() : *q;
}

// An absent volume mode is Filesystem on both sides, as the API defaults it.
bool VolumeModeMismatch(const api::PersistentVolumeClaimSpec& claim,
                        const api::PersistentVolumeSpec& volume) {
  std::string_view requested =
      claim.volume_mode ? std::string_view(*claim.volume_mode) : kFilesystem;
  std::string_view offered =
      volume.volume_mode ? std::string_view(*volume.volume_mode) : kFilesystem;
  return requested != offered;
}

// Every mode the claim asks for is one the volume offers.
bool AccessModesSatisfied(const api::PersistentVolumeClaim& claim,
                          const api::PersistentVolume& volume) {
  const auto& offered = volume.spec.access_modes;
  return std::all_of(
      claim.spec.access_modes.begin(), claim.spec.access_modes.end(),
      [&](const std::string& mode) {
        return std::find(offered.begin(), offered.end(), mode) != offered.end();
      });
}

}  // namespace

std::string ClaimClass(const api::PersistentVolumeClaim& claim) {
  if (const std::string* beta =
          claim.metadata.annotations.Find(api::kAnnBetaStorageClass)) {
    return *beta;
  }
  return claim.spec.storage_class_name.value_or("");
}

std::string VolumeClass(const api::PersistentVolume& volume) {
  if (const std::string* beta =
          volume.metadata.annotations.Find(api::kAnnBetaStorageClass)) {
    return *beta;
  }
  return volume.spec.storage_class_name;
}

bool IsClaimFullyBound(const api::PersistentVolumeClaim& claim) {
  return !claim.spec.volume_name.empty() &&
         claim.metadata.annotations.Contains(api::kAnnBindCompleted);
}

bool IsVolumeBoundToClaim(const api::PersistentVolume& volume,
                          const api::PersistentVolumeClaim& claim) {
  const auto& ref = volume.spec.claim_ref;
  if (!ref) return false;
  if (ref->name != claim.metadata.name || ref->ns != claim.metadata.ns) {
    return false;
  }
  return ref->uid.empty() || ref->uid == claim.metadata.uid;
}

std::string ClaimKey(const api::PersistentVolumeClaim& claim) {
  return claim.metadata.ns + "/" + claim.metadata.name;
}

CandidateVolume::CandidateVolume(
    std::shared_ptr<const api::PersistentVolume> volume)
    : pv(std::move(volume)) {
  const auto& affinity = pv->spec.node_affinity;
  if (affinity && affinity->required) {
    this->affinity =
        std::make_shared<const api::CompiledNodeSelector>(*affinity->required);
  }
}

api::Node LabelsOnlyNode(const api::Node& node) {
  api::Node labels_only;
  labels_only.metadata.labels = node.metadata.labels;
  return labels_only;
}

bool VolumeNodeAffinityMatches(const CandidateVolume& volume,
                               const api::Node& labels_only_node) {
  return volume.affinity == nullptr ||
         volume.affinity->Matches(labels_only_node);
}

util::Result<const CandidateVolume*> FindMatchingVolume(
    const api::PersistentVolumeClaim& claim,
    const std::vector<CandidateVolume>& volumes,
    const api::Node& labels_only_node, const std::set<std::string>& excluded) {
  const api::Quantity requested = StorageOf(claim.spec.resources.requests);
  const std::string requested_class = ClaimClass(claim);
  std::optional<api::Selector> selector;
  if (claim.spec.selector) {
    auto parsed = api::Selector::FromLabelSelector(&*claim.spec.selector);
    if (!parsed.ok()) {
      return util::Error("error creating internal label selector for claim: " +
                         ClaimKey(claim) + ": " + parsed.error().message());
    }
    selector = std::move(*parsed);
  }

  const CandidateVolume* smallest = nullptr;
  api::Quantity smallest_size;
  for (const CandidateVolume& candidate : volumes) {
    const api::PersistentVolume& volume = *candidate.pv;
    if (excluded.contains(volume.metadata.name)) continue;
    const bool bound_to_claim = IsVolumeBoundToClaim(volume, claim);
    if (volume.spec.claim_ref && !bound_to_claim) continue;
    const api::Quantity size = StorageOf(volume.spec.capacity);
    if (size < requested) continue;
    if (VolumeModeMismatch(claim.spec, volume.spec)) continue;
    if (volume.metadata.deletion_timestamp) continue;
    // Computed here, in kube's order, because a pre-bound volume needs the
    // answer as much as the others.
    const bool affinity_ok =
        VolumeNodeAffinityMatches(candidate, labels_only_node);
    if (bound_to_claim) {
      // A volume pre-bound to the claim is the only candidate: when it does
      // not fit the node, nothing does.
      return affinity_ok ? &candidate : nullptr;
    }
    if (volume.status.phase != kVolumeAvailable) continue;
    if (selector && !selector->Matches(volume.metadata.labels)) continue;
    if (VolumeClass(volume) != requested_class) continue;
    if (!affinity_ok) continue;
    if (!AccessModesSatisfied(claim, volume)) continue;
    if (smallest == nullptr || smallest_size > size) {
      smallest = &candidate;
      smallest_size = size;
    }
  }
  return smallest;
}

std::pair<std::shared_ptr<const api::PersistentVolume>, bool> BindVolumeToClaim(
    const api::PersistentVolume& volume,
    const api::PersistentVolumeClaim& claim) {
  const bool set_bound_by_controller = !IsVolumeBoundToClaim(volume, claim);
  auto bound = std::make_shared<api::PersistentVolume>(volume);
  bool dirty = false;
  const auto& ref = volume.spec.claim_ref;
  if (!ref || ref->name != claim.metadata.name ||
      ref->ns != claim.metadata.ns || ref->uid != claim.metadata.uid) {
    // reference.GetReference(claim).
    api::ObjectReference claim_ref;
    claim_ref.kind = "PersistentVolumeClaim";
    claim_ref.ns = claim.metadata.ns;
    claim_ref.name = claim.metadata.name;
    claim_ref.uid = claim.metadata.uid;
    claim_ref.api_version = "v1";
    claim_ref.resource_version = claim.metadata.resource_version;
    bound->spec.claim_ref = std::move(claim_ref);
    dirty = true;
  }
  if (set_bound_by_controller &&
      !bound->metadata.annotations.Contains(kAnnBoundByController)) {
    bound->metadata.annotations.Set(kAnnBoundByController, "yes");
    dirty = true;
  }
  return {std::move(bound), dirty};
}

bool MatchTopologySelectorTerms(
    const std::vector<api::TopologySelectorTerm>& terms,
    const api::StringMap& labels) {
  if (terms.empty()) return true;
  for (const api::TopologySelectorTerm& term : terms) {
    if (term.match_label_expressions.empty()) continue;
    api::Selector selector;
    bool valid = true;
    for (const auto& requirement : term.match_label_expressions) {
      if (!selector
               .Add(requirement.key, api::Selector::Op::kIn, requirement.values)
               .ok()) {
        valid = false;
        break;
      }
    }
    if (valid && selector.Matches(labels)) return true;
  }
  return false;
}

}  // namespace ksched::plugins::volumebinding
