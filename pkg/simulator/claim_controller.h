// The part of Kubernetes' resourceclaim controller (kube-controller-manager)
// that `ksched simulate` needs, since no controller manager runs there:
// claims made from a pod's ResourceClaimTemplates, reservations of running
// pods, and claims let go when their pods are gone (a drained or removed
// node's pods, pods left out of the simulation).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/api/resource.h"
#include "pkg/simulator/simulated_cluster.h"

namespace ksched::simulator {

// The generateName of the claim made for `pod_claim` of pod `pod`:
// "<pod>-<pod claim>-", both parts cut in proportion when that is longer
// than 57 characters (then without the trailing '-'), as the controller
// words it.
std::string GeneratedClaimPrefix(const std::string& pod,
                                 const std::string& pod_claim);

class ClaimController {
 public:
  // `templates`: the cluster's ResourceClaimTemplates. `seed`: the
  // simulation's, for the API server's random name suffixes.
  ClaimController(SimulatedCluster& api_server,
                  const std::vector<api::ResourceClaimTemplate>& templates,
                  uint64_t seed);

  // Before `pod` reaches the scheduler: creates the claim of each
  // resourceClaimTemplateName entry that has none yet (named from
  // GeneratedClaimPrefix plus five random characters, owned by the pod,
  // the template's labels, annotations and spec) and records them in the
  // pod's status.resourceClaimStatuses; for a pod bound to a node, reserves
  // its allocated claims for it. Returns what failed, one line per claim
  // entry (a template that does not exist): the pod then stays without
  // the claim, and DynamicResources holds it at PreEnqueue.
  std::vector<std::string> SyncPod(api::Pod& pod);

 private:
  std::string CreateFromTemplate(api::Pod& pod,
                                 const api::PodResourceClaim& pod_claim,
                                 std::string* claim_name);
  void ReserveForBoundPod(const api::Pod& pod);

  SimulatedCluster& api_server_;
  std::map<std::string, const api::ResourceClaimTemplate*> templates_;
  // The claims made for a pod's entry: "<ns>/<pod uid>/<pod claim>" ->
  // claim name, from the claims the cluster had (read once, when the
  // first template claim is needed) and every claim made since, so a pod
  // costs a lookup rather than a pass over every claim.
  std::map<std::string, std::string> made_for_;
  bool made_for_read_ = false;
  uint64_t seed_;
};

// The claims as the controller leaves them once the pods they name are
// gone or done: reservations of pods that no longer exist (or finished,
// or have another UID now) are removed, a claim left with none is
// deallocated, and a claim generated for a pod that is gone is deleted
// (as the garbage collector would).
void SettleClaims(std::vector<api::ResourceClaim>& claims,
                  const std::vector<api::Pod>& pods);

}  // namespace ksched::simulator
