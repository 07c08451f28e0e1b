#include "pkg/simulator/claim_controller.h"

#include <algorithm>
#include <random>
#include <set>

#include "pkg/dra/resourceclaim.h"
#include "pkg/simulator/workloads.h"

namespace ksched::simulator {
namespace claim_controller_detail {
namespace {

// Room for a 5-character suffix in a 63-character name, as the controller
// leaves it (the API server itself would cut generateName at 58).
constexpr size_t kMaxBaseLength = 57;
constexpr size_t kMaxGenerateNameLength = 58;

uint64_t Fnv64a(std::string_view data) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string Key(const std::string& ns, const std::string& name) {
  return ns + "/" + name;
}

bool IsDone(const api::Pod& pod) {
  return pod.status.phase == api::kPodPhaseSucceeded ||
         pod.status.phase == api::kPodPhaseFailed ||
         (pod.metadata.deletion_timestamp && pod.spec.node_name.empty());
}

// The pod that controls a generated claim, if any.
const api::OwnerReference* ControllingPod(const api::ResourceClaim& claim) {
  for (const api::OwnerReference& ref : claim.metadata.owner_references) {
    if (ref.controller.value_or(false) && ref.api_version == "v1" &&
        ref.kind == "Pod") {
      return &ref;
    }
  }
  return nullptr;
}

}  // namespace
}  // namespace claim_controller_detail
using namespace claim_controller_detail;

std::string GeneratedClaimPrefix(const std::string& pod,
                                 const std::string& pod_claim) {
  std::string prefix = pod + "-" + pod_claim + "-";
  if (prefix.size() <= kMaxBaseLength) return prefix;
  // Both parts keep their share, so a long pod name does not swallow the
  // claim's; the API server would cut only the end.
  const size_t total = prefix.size();
  return pod.substr(0, pod.size() * kMaxBaseLength / total) + "-" +
         pod_claim.substr(0, pod_claim.size() * kMaxBaseLength / total);
}

ClaimController::ClaimController(
    SimulatedCluster& api_server,
    const std::vector<api::ResourceClaimTemplate>& templates, uint64_t seed)
    : api_server_(api_server), seed_(seed) {
  for (const api::ResourceClaimTemplate& t : templates) {
    templates_[Key(t.metadata.ns, t.metadata.name)] = &t;
  }
}

std::vector<std::string> ClaimController::SyncPod(api::Pod& pod) {
  std::vector<std::string> failures;
  if (pod.metadata.deletion_timestamp) return failures;
  for (const api::PodResourceClaim& pod_claim : pod.spec.resource_claims) {
    if (!pod_claim.resource_claim_template_name) continue;
    // Made already (a live cluster's pods): nothing to do while the claim
    // exists and is the pod's.
    auto named = dra::ClaimName(pod, pod_claim);
    if (named.ok()) {
      if (!named->name) continue;
      auto existing =
          api_server_.GetResourceClaim(pod.metadata.ns, *named->name);
      if (existing.ok() && dra::IsForPod(pod, *existing.claim).ok()) continue;
    }
    std::string claim_name;
    std::string failure = CreateFromTemplate(pod, pod_claim, &claim_name);
    if (!failure.empty()) {
      failures.push_back("pod " + Key(pod.metadata.ns, pod.metadata.name) +
                         ", PodResourceClaim " + pod_claim.name + ": " +
                         failure);
      continue;
    }
    auto& statuses = pod.status.resource_claim_statuses;
    std::erase_if(statuses, [&](const api::PodResourceClaimStatus& s) {
      return s.name == pod_claim.name;
    });
    statuses.push_back(
        {.name = pod_claim.name, .resource_claim_name = std::move(claim_name)});
  }
  if (!pod.spec.node_name.empty()) ReserveForBoundPod(pod);
  return failures;
}

std::string ClaimController::CreateFromTemplate(
    api::Pod& pod, const api::PodResourceClaim& pod_claim,
    std::string* claim_name) {
  // A claim made before whose pod status was not recorded: the controller
  // looks for one owned by the pod and annotated with the entry first.
  if (!made_for_read_) {
    for (const auto& c : api_server_.ResourceClaims()) {
      const api::OwnerReference* owner = ControllingPod(*c);
      const std::string* annotated =
          c->metadata.annotations.Find(dra::kPodClaimNameAnnotation);
      if (owner == nullptr || annotated == nullptr) continue;
      made_for_.emplace(c->metadata.ns + "/" + owner->uid + "/" + *annotated,
                        c->metadata.name);
    }
    made_for_read_ = true;
  }
  const std::string made_key =
      pod.metadata.ns + "/" + pod.metadata.uid + "/" + pod_claim.name;
  if (auto it = made_for_.find(made_key); it != made_for_.end()) {
    *claim_name = it->second;
    return "";
  }
  const std::string& template_name = *pod_claim.resource_claim_template_name;
  auto t = templates_.find(Key(pod.metadata.ns, template_name));
  if (t == templates_.end()) {
    return "resource claim template \"" + template_name +
           "\": resourceclaimtemplate.resource.k8s.io \"" + template_name +
           "\" not found";
  }
  const api::ResourceClaimTemplate& from = *t->second;
  api::ResourceClaim claim;
  claim.metadata.generate_name =
      GeneratedClaimPrefix(pod.metadata.name, pod_claim.name);
  claim.metadata.ns = pod.metadata.ns;
  claim.metadata.labels = from.spec.metadata.labels;
  claim.metadata.annotations = from.spec.metadata.annotations;
  claim.metadata.annotations.Set(dra::kPodClaimNameAnnotation, pod_claim.name);
  claim.metadata.owner_references.push_back(
      api::OwnerReference{.api_version = "v1",
                          .kind = "Pod",
                          .name = pod.metadata.name,
                          .uid = pod.metadata.uid,
                          .controller = true});
  claim.spec = from.spec.spec;
  // The API server's generateName: at most 58 characters of the prefix and
  // five of rand.String's alphabet, from a generator of this pod's own so
  // that names do not depend on the order pods come in.
  std::mt19937_64 rng(seed_ ^ Fnv64a("ResourceClaim/" + pod.metadata.ns + "/" +
                                     pod.metadata.uid + "/" + pod_claim.name));
  const std::string base =
      claim.metadata.generate_name.substr(0, kMaxGenerateNameLength);
  for (int attempt = 0;; ++attempt) {
    std::string suffix;
    for (int i = 0; i < 5; ++i) {
      suffix += kNameAlphabet[rng() % kNameAlphabet.size()];
    }
    claim.metadata.name = base + suffix;
    claim.metadata.uid =
        "claim-" + claim.metadata.ns + "-" + claim.metadata.name;
    framework::ClaimWrite created = api_server_.CreateResourceClaim(claim);
    if (created.ok()) {
      *claim_name = created.claim->metadata.name;
      made_for_[made_key] = *claim_name;
      return "";
    }
    // A name taken already: the controller retries, and the API server
    // draws another suffix.
    if (attempt >= 10) return "create ResourceClaim: " + created.error;
  }
}

void ClaimController::ReserveForBoundPod(const api::Pod& pod) {
  for (const api::PodResourceClaim& pod_claim : pod.spec.resource_claims) {
    auto named = dra::ClaimName(pod, pod_claim);
    if (!named.ok() || !named->name) continue;
    auto claim = api_server_.GetResourceClaim(pod.metadata.ns, *named->name);
    if (!claim.ok() || !claim.claim->status.allocation ||
        dra::IsReservedForPod(pod, *claim.claim)) {
      continue;
    }
    if (named->must_check_owner && !dra::IsForPod(pod, *claim.claim).ok()) {
      continue;
    }
    api::ResourceClaim reserved = *claim.claim;
    reserved.status.reserved_for.push_back({.resource = "pods",
                                            .name = pod.metadata.name,
                                            .uid = pod.metadata.uid});
    (void)api_server_.UpdateResourceClaimStatus(reserved);
  }
}

void SettleClaims(std::vector<api::ResourceClaim>& claims,
                  const std::vector<api::Pod>& pods) {
  // Most clusters have no claims: their pods are not worth indexing.
  if (claims.empty()) return;
  std::map<std::string, const api::Pod*> pod_by_key;
  std::set<std::string> uids;
  for (const api::Pod& p : pods) {
    pod_by_key[Key(p.metadata.ns, p.metadata.name)] = &p;
    uids.insert(p.metadata.uid);
  }
  std::erase_if(claims, [&](api::ResourceClaim& claim) {
    auto& reserved = claim.status.reserved_for;
    const size_t before = reserved.size();
    std::erase_if(reserved, [&](const api::ResourceClaimConsumerReference& r) {
      if (!r.api_group.empty() || r.resource != "pods") return false;
      auto it = pod_by_key.find(Key(claim.metadata.ns, r.name));
      // A hand-written reservation may leave the UID out: the name says
      // which pod it is.
      return it == pod_by_key.end() ||
             (!r.uid.empty() && it->second->metadata.uid != r.uid) ||
             IsDone(*it->second);
    });
    if (reserved.size() < before && reserved.empty()) {
      // The last consumer is gone: the controller deallocates. It does so
      // only for claims with the scheduler's finalizer, which every claim
      // the scheduler allocated has; a hand-written file may leave the
      // finalizer out, and its claim is let go all the same.
      claim.status.allocation.reset();
      std::erase(claim.metadata.finalizers, api::kResourceClaimFinalizer);
    }
    if (!reserved.empty()) return false;
    // A generated claim whose pod is gone, or done: the garbage collector
    // (or the controller) deletes it.
    const api::OwnerReference* owner = ControllingPod(claim);
    if (owner == nullptr) return false;
    auto it = pod_by_key.find(Key(claim.metadata.ns, owner->name));
    return !uids.count(owner->uid) ||
           (it != pod_by_key.end() &&
            (it->second->metadata.uid != owner->uid || IsDone(*it->second)));
  });
}

}  // namespace ksched::simulator
