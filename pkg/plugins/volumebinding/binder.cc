#include "pkg/plugins/volumebinding/binder.h"

#include <algorithm>
#include <set>
#include <utility>

#include "pkg/config/field_errors.h"

namespace ksched::plugins::volumebinding {
namespace {

api::Quantity RequestedStorage(const api::PersistentVolumeClaim& claim) {
  const api::Quantity* q = claim.spec.resources.requests.Find(kResourceStorage);
  return q == nullptr ? api::Quantity() : *q;
}

struct MatchResult {
  bool found_all = true;
  std::vector<StaticBinding> bindings;
  std::vector<const DelayedClaim*> unmatched;
};

// findMatchingVolumes: the smallest claims pick first, so that a small claim
// does not take the only volume a larger one fits in; a volume goes to one
// claim at most.
util::Result<MatchResult> FindMatchingVolumes(
    std::vector<const DelayedClaim*> claims, const PodVolumeClaims& pod_claims,
    const api::Node& labels_only) {
  // Go sorts these few claims by insertion sort, which is stable.
  std::stable_sort(claims.begin(), claims.end(),
                   [](const DelayedClaim* a, const DelayedClaim* b) {
                     return RequestedStorage(*a->claim) <
                            RequestedStorage(*b->claim);
                   });
  static const std::vector<CandidateVolume> kNone;
  MatchResult result;
  std::set<std::string> chosen;
  for (const DelayedClaim* delayed : claims) {
    auto it = pod_claims.volumes_by_class.find(ClaimClass(*delayed->claim));
    const auto& volumes =
        it == pod_claims.volumes_by_class.end() ? kNone : it->second;
    auto match =
        FindMatchingVolume(*delayed->claim, volumes, labels_only, chosen);
    if (!match.ok()) return match.error();
    if (*match == nullptr) {
      result.unmatched.push_back(delayed);
      result.found_all = false;
      continue;
    }
    chosen.insert((*match)->pv->metadata.name);
    result.bindings.push_back({delayed->claim, (*match)->pv});
  }
  return result;
}

struct ProvisionResult {
  bool satisfied = true;
  bool sufficient_storage = true;
  std::vector<ClaimPtr> provisions;
};

// checkVolumeProvisions: every remaining claim must be provisionable on the
// node. Storage capacity is not checked: ksched has no CSIDriver or
// CSIStorageCapacity objects, which kube reads as "no capacity tracking".
util::Result<ProvisionResult> CheckVolumeProvisions(
    const std::vector<const DelayedClaim*>& claims, const api::Node& node) {
  ProvisionResult result;
  for (const DelayedClaim* delayed : claims) {
    const api::PersistentVolumeClaim& claim = *delayed->claim;
    std::string class_name = ClaimClass(claim);
    if (class_name.empty()) {
      return util::Error("no class for claim " +
                         config::GoQuote(ClaimKey(claim)));
    }
    if (delayed->storage_class == nullptr) {
      return util::Error("failed to find storage class " +
                         config::GoQuote(class_name));
    }
    const api::StorageClass& storage_class = *delayed->storage_class;
    if (storage_class.provisioner.empty() ||
        storage_class.provisioner == kNotSupportedProvisioner ||
        !MatchTopologySelectorTerms(storage_class.allowed_topologies,
                                    node.metadata.labels)) {
      return ProvisionResult{false, true, {}};
    }
    result.provisions.push_back(delayed->claim);
  }
  return result;
}

}  // namespace

util::Result<FindResult> FindPodVolumes(const PodVolumeClaims& claims,
                                        const api::Node& node) {
  bool bound_satisfied = true;
  bool bound_volumes_found = true;
  bool unbound_satisfied = true;
  bool sufficient_storage = true;
  FindResult result;
  auto finish = [&]() -> util::Result<FindResult> {
    if (!bound_satisfied) {
      result.reasons.emplace_back(kErrReasonNodeConflict);
    }
    if (!unbound_satisfied) {
      result.reasons.emplace_back(kErrReasonBindConflict);
    }
    if (!sufficient_storage) {
      result.reasons.emplace_back(kErrReasonNotEnoughSpace);
    }
    if (!bound_volumes_found) result.reasons.emplace_back(kErrReasonPVNotExist);
    return std::move(result);
  };

  // PV node affinity is matched against the node's labels only.
  const api::Node labels_only = LabelsOnlyNode(node);

  // checkBoundClaims stops at the first claim that fails either way.
  for (const BoundClaim& bound : claims.bound) {
    if (!bound.volume) {
      bound_volumes_found = false;
      break;
    }
    if (!VolumeNodeAffinityMatches(*bound.volume, labels_only)) {
      bound_satisfied = false;
      break;
    }
  }

  if (claims.delayed.empty()) return finish();

  std::vector<const DelayedClaim*> to_match;
  std::vector<const DelayedClaim*> to_provision;
  for (const DelayedClaim& delayed : claims.delayed) {
    // A claim a previous attempt chose a node for (even "") is provisioned
    // there or nowhere.
    const std::string* selected =
        delayed.claim->metadata.annotations.Find(api::kAnnSelectedNode);
    if (selected == nullptr) {
      to_match.push_back(&delayed);
    } else if (*selected != node.metadata.name) {
      unbound_satisfied = false;
      return finish();
    } else {
      to_provision.push_back(&delayed);
    }
  }

  if (!to_match.empty()) {
    auto matched =
        FindMatchingVolumes(std::move(to_match), claims, labels_only);
    if (!matched.ok()) return matched.error();
    unbound_satisfied = matched->found_all;
    result.volumes.static_bindings = std::move(matched->bindings);
    to_provision.insert(to_provision.end(), matched->unmatched.begin(),
                        matched->unmatched.end());
  }

  // Claims without a matching volume fall back to dynamic provisioning,
  // whose verdict then overrides the matching's.
  if (!to_provision.empty()) {
    auto provisioned = CheckVolumeProvisions(to_provision, node);
    if (!provisioned.ok()) return provisioned.error();
    unbound_satisfied = provisioned->satisfied;
    sufficient_storage = provisioned->sufficient_storage;
    result.volumes.dynamic_provisions = std::move(provisioned->provisions);
  }
  return finish();
}

}  // namespace ksched::plugins::volumebinding
