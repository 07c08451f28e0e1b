// How a pod names its ResourceClaims and how a claim refers back to its
// pods (k8s.io/dynamic-resource-allocation/resourceclaim), with Kubernetes'
// error messages, which users see in pod conditions and events.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/api/resource.h"
#include "pkg/util/result.h"

namespace ksched::dra {

// The claim a pod's spec.resourceClaims entry stands for.
struct PodClaimName {
  // Unset: the entry came from a template and the controller decided no
  // claim is needed; the entry is skipped.
  std::optional<std::string> name;
  // Generated from a template: the claim must be controlled by the pod.
  bool must_check_owner = false;
};

// resourceClaimName as is; resourceClaimTemplateName through
// status.resourceClaimStatuses ("pod \"ns/p\": ResourceClaim not created
// yet" until the controller recorded the claim).
util::Result<PodClaimName> ClaimName(const api::Pod& pod,
                                     const api::PodResourceClaim& pod_claim);

// Fails unless the claim is in the pod's namespace and controlled by it.
util::Result<void> IsForPod(const api::Pod& pod,
                            const api::ResourceClaim& claim);

// Whether status.reservedFor names the pod (by UID).
bool IsReservedForPod(const api::Pod& pod, const api::ResourceClaim& claim);

// "req/sub" refers to a sub-request: exactly two '/'-separated segments.
bool IsSubRequestRef(std::string_view ref);
// The request part of "req/sub" (the whole ref otherwise).
std::string_view BaseRequestRef(std::string_view ref);

// The generated claim's annotation naming the pod's claim entry.
inline constexpr std::string_view kPodClaimNameAnnotation =
    "resource.kubernetes.io/pod-claim-name";

}  // namespace ksched::dra
