#include "pkg/dra/resourceclaim.h"

#include <algorithm>

namespace ksched::dra {

util::Result<PodClaimName> ClaimName(const api::Pod& pod,
                                     const api::PodResourceClaim& pod_claim) {
  if (pod_claim.resource_claim_name) {
    return PodClaimName{.name = *pod_claim.resource_claim_name};
  }
  const std::string pod_ref = pod.metadata.ns + "/" + pod.metadata.name;
  if (pod_claim.resource_claim_template_name) {
    for (const api::PodResourceClaimStatus& s :
         pod.status.resource_claim_statuses) {
      if (s.name == pod_claim.name) {
        return PodClaimName{.name = s.resource_claim_name,
                            .must_check_owner = true};
      }
    }
    return util::Error("pod \"" + pod_ref +
                       "\": ResourceClaim not created yet");
  }
  return util::Error("pod \"" + pod_ref + "\", spec.resourceClaim \"" +
                     pod_claim.name +
                     "\": none of the supported fields are set");
}

util::Result<void> IsForPod(const api::Pod& pod,
                            const api::ResourceClaim& claim) {
  bool controlled = false;
  for (const api::OwnerReference& ref : claim.metadata.owner_references) {
    if (ref.controller.value_or(false)) {
      // metav1.IsControlledBy looks at the controller reference only.
      controlled = ref.uid == pod.metadata.uid;
      break;
    }
  }
  // v1.36 words the two cases apart (resourceclaim.IsForPod).
  if (claim.metadata.ns != pod.metadata.ns) {
    return util::Error("ResourceClaim " + claim.metadata.ns + "/" +
                       claim.metadata.name +
                       " is not in the same namespace as Pod " +
                       pod.metadata.ns + "/" + pod.metadata.name);
  }
  if (!controlled) {
    return util::Error("ResourceClaim " + claim.metadata.ns + "/" +
                       claim.metadata.name + " was not created for Pod " +
                       pod.metadata.ns + "/" + pod.metadata.name +
                       " (Pod is not owner)");
  }
  return {};
}

bool IsReservedForPod(const api::Pod& pod, const api::ResourceClaim& claim) {
  return std::any_of(claim.status.reserved_for.begin(),
                     claim.status.reserved_for.end(),
                     [&](const api::ResourceClaimConsumerReference& r) {
                       return r.uid == pod.metadata.uid;
                     });
}

bool IsSubRequestRef(std::string_view ref) {
  return std::count(ref.begin(), ref.end(), '/') == 1;
}

std::string_view BaseRequestRef(std::string_view ref) {
  return ref.substr(0, ref.find('/'));
}

}  // namespace ksched::dra
