#include "pkg/plugins/volumebinding/pod_claims.h"

#include <utility>

#include "pkg/config/field_errors.h"
#include "pkg/plugins/volumebinding/pv_helpers.h"

namespace ksched::plugins::volumebinding {
namespace {

using config::GoQuote;

// ephemeral.VolumeIsForPod: the claim is in the pod's namespace and the pod
// is its controller (metav1.IsControlledBy compares UIDs).
bool IsClaimForPod(const api::Pod& pod,
                   const api::PersistentVolumeClaim& claim) {
  if (claim.metadata.ns != pod.metadata.ns) return false;
  for (const api::OwnerReference& ref : claim.metadata.owner_references) {
    if (ref.controller.value_or(false)) return ref.uid == pod.metadata.uid;
  }
  return false;
}

// volume.IsDelayBindingMode. A class without volumeBindingMode is treated
// as Immediate, the value the API server defaults it to (kube reports an
// error, for an object that cannot reach it).
bool IsDelayBindingMode(const api::StorageClass* storage_class) {
  return storage_class != nullptr &&
         storage_class->volume_binding_mode.value_or(
             std::string(api::kVolumeBindingImmediate)) ==
             api::kVolumeBindingWaitForFirstConsumer;
}

}  // namespace

std::optional<std::string> ClaimNameOf(const api::Pod& pod,
                                       const api::Volume& volume) {
  if (volume.persistent_volume_claim) {
    return volume.persistent_volume_claim->claim_name;
  }
  if (volume.ephemeral) return pod.metadata.name + "-" + volume.name;
  return std::nullopt;
}

util::Result<std::vector<ClaimPtr>> ReadPodClaims(
    const api::Pod& pod, const framework::ClusterObjects& objects,
    AssumeCache& cache) {
  std::vector<ClaimPtr> claims;
  for (const api::Volume& volume : pod.spec.volumes) {
    std::optional<std::string> name = ClaimNameOf(pod, volume);
    if (!name) continue;
    const bool ephemeral = !volume.persistent_volume_claim;
    ClaimPtr claim = cache.GetClaim(objects, pod.metadata.ns, *name);
    if (claim == nullptr) {
      // Normal right after a pod with an ephemeral volume is created.
      if (ephemeral) {
        return util::Error(
            "waiting for ephemeral volume controller to create the "
            "persistentvolumeclaim " +
            GoQuote(*name));
      }
      return util::Error("persistentvolumeclaim " + GoQuote(*name) +
                         " not found");
    }
    if (claim->status.phase == kClaimLost) {
      return util::Error("persistentvolumeclaim " +
                         GoQuote(claim->metadata.name) +
                         " bound to non-existent persistentvolume " +
                         GoQuote(claim->spec.volume_name));
    }
    if (claim->metadata.deletion_timestamp) {
      return util::Error("persistentvolumeclaim " +
                         GoQuote(claim->metadata.name) + " is being deleted");
    }
    if (ephemeral && !IsClaimForPod(pod, *claim)) {
      return util::Error("PVC " + claim->metadata.ns + "/" +
                         claim->metadata.name + " was not created for pod " +
                         pod.metadata.ns + "/" + pod.metadata.name +
                         " (pod is not owner)");
    }
    claims.push_back(std::move(claim));
  }
  return claims;
}

PodVolumeClaims ClassifyClaims(const std::vector<ClaimPtr>& claims,
                               const framework::ClusterObjects& objects,
                               AssumeCache& cache) {
  PodVolumeClaims out;
  for (const ClaimPtr& claim : claims) {
    if (IsClaimFullyBound(*claim)) {
      BoundClaim bound{claim, std::nullopt};
      if (VolumePtr pv = cache.GetVolume(objects, claim->spec.volume_name)) {
        bound.volume.emplace(std::move(pv));
      }
      out.bound.push_back(std::move(bound));
      continue;
    }
    std::string class_name = ClaimClass(*claim);
    StorageClassPtr storage_class =
        class_name.empty() ? nullptr : objects.GetStorageClass(class_name);
    // A claim pre-bound to a PV by name is left to the PV controller, like
    // an Immediate one.
    if (IsDelayBindingMode(storage_class.get()) &&
        claim->spec.volume_name.empty()) {
      out.delayed.push_back({claim, std::move(storage_class)});
    } else {
      out.unbound_immediate.push_back(claim);
    }
  }
  for (const DelayedClaim& delayed : out.delayed) {
    std::string class_name = ClaimClass(*delayed.claim);
    if (out.volumes_by_class.contains(class_name)) continue;
    std::vector<CandidateVolume> volumes;
    for (VolumePtr& pv : cache.ListVolumes(objects, class_name)) {
      volumes.emplace_back(std::move(pv));
    }
    out.volumes_by_class.emplace(std::move(class_name), std::move(volumes));
  }
  return out;
}

bool ArePodVolumesBound(const api::Pod& pod,
                        const framework::ClusterObjects& objects,
                        AssumeCache& cache) {
  for (const api::Volume& volume : pod.spec.volumes) {
    std::optional<std::string> name = ClaimNameOf(pod, volume);
    if (!name) continue;
    ClaimPtr claim = cache.GetClaim(objects, pod.metadata.ns, *name);
    if (claim == nullptr || !IsClaimFullyBound(*claim)) return false;
    if (volume.ephemeral && !IsClaimForPod(pod, *claim)) return false;
  }
  return true;
}

}  // namespace ksched::plugins::volumebinding
