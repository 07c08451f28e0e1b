// The decisions of kube-scheduler's volume binder (binder.go): a pod's
// claims sorted into bound / to bind / unbound immediate, and, per node,
// which PVs the claims to bind would take and which claims would be
// provisioned. Pure functions of their inputs, so Filter can run them on
// many nodes at once and Reserve can run them again for the chosen node.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/storage.h"
#include "pkg/plugins/volumebinding/pv_helpers.h"
#include "pkg/util/result.h"

namespace ksched::plugins::volumebinding {

// Filter reasons (ConflictReason), in the order kube reports them.
inline constexpr std::string_view kErrReasonNodeConflict =
    "node(s) didn't match PersistentVolume's node affinity";
inline constexpr std::string_view kErrReasonBindConflict =
    "node(s) didn't find available persistent volumes to bind";
// Never reported by ksched: it needs CSIStorageCapacity objects.
inline constexpr std::string_view kErrReasonNotEnoughSpace =
    "node(s) did not have enough free storage";
inline constexpr std::string_view kErrReasonPVNotExist =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent "
    "pv(s)";

using ClaimPtr = std::shared_ptr<const api::PersistentVolumeClaim>;
using VolumePtr = std::shared_ptr<const api::PersistentVolume>;
using StorageClassPtr = std::shared_ptr<const api::StorageClass>;

struct BoundClaim {
  ClaimPtr claim;
  std::optional<CandidateVolume> volume;  // nullopt: the PV does not exist
};

// An unbound claim of a WaitForFirstConsumer class.
struct DelayedClaim {
  ClaimPtr claim;
  StorageClassPtr storage_class;
};

// PodVolumeClaims: read once in PreFilter, immutable afterwards.
struct PodVolumeClaims {
  std::vector<BoundClaim> bound;
  std::vector<DelayedClaim> delayed;
  // Unbound (or pre-bound, not yet fully bound) claims of Immediate classes:
  // the PV controller, not the scheduler, must bind them.
  std::vector<ClaimPtr> unbound_immediate;
  // The volumes of the delayed claims' classes, by class.
  std::map<std::string, std::vector<CandidateVolume>, std::less<>>
      volumes_by_class;
};

struct StaticBinding {
  ClaimPtr claim;
  VolumePtr volume;
};

// PodVolumes: what binding the pod's volumes on one node takes.
struct PodVolumes {
  std::vector<StaticBinding> static_bindings;
  std::vector<ClaimPtr> dynamic_provisions;
};

struct FindResult {
  PodVolumes volumes;
  std::vector<std::string> reasons;  // empty: the node fits
};

// FindPodVolumes: whether the node fits the pod's claims, and how. Fails
// (an Error status, not a rejection) on a claim selector that does not
// parse or a claim to provision without a StorageClass.
util::Result<FindResult> FindPodVolumes(const PodVolumeClaims& claims,
                                        const api::Node& node);

}  // namespace ksched::plugins::volumebinding
