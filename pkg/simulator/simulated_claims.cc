// SimulatedCluster's ResourceClaims: what the API server answers the
// DynamicResources plugin's reads and writes, and the claims it stores for
// the resourceclaim controller (claim_controller.h).
#include <algorithm>

#include "pkg/simulator/simulated_cluster.h"

namespace ksched::simulator {
namespace simulated_claims_detail {
namespace {

using framework::ClaimWrite;

// The API server's limit on status.reservedFor.
constexpr size_t kMaxReservedFor = 256;

std::string ClaimKey(const std::string& ns, const std::string& name) {
  return ns + "/" + name;
}

ClaimWrite Failure(int code, std::string message) {
  return ClaimWrite{.code = code, .error = std::move(message)};
}

ClaimWrite NotFound(const std::string& name) {
  return Failure(404,
                 "resourceclaims.resource.k8s.io \"" + name + "\" not found");
}

ClaimWrite Conflict(const std::string& name) {
  return Failure(409,
                 "Operation cannot be fulfilled on resourceclaims.resource."
                 "k8s.io \"" +
                     name +
                     "\": the object has been modified; please apply your "
                     "changes to the latest version and try again");
}

// Five characters of the API server's generateName alphabet (no vowels,
// no look-alikes), made from a count.
std::string GeneratedSuffix(int64_t n) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out(5, kAlphabet[0]);
  uint64_t v = static_cast<uint64_t>(n) * 2654435761u;
  for (char& c : out) {
    c = kAlphabet[v % kAlphabet.size()];
    v /= kAlphabet.size();
  }
  return out;
}

ClaimWrite Invalid(const std::string& name, const std::string& cause) {
  return Failure(422, "ResourceClaim.resource.k8s.io \"" + name +
                          "\" is invalid: " + cause);
}

}  // namespace
}  // namespace simulated_claims_detail
using namespace simulated_claims_detail;

ClaimWrite SimulatedCluster::CreateResourceClaim(
    const api::ResourceClaim& sent) {
  api::ResourceClaim claim = sent;
  if (claim.metadata.name.empty()) {
    if (claim.metadata.generate_name.empty()) {
      return Failure(422,
                     "ResourceClaim.resource.k8s.io \"\" is invalid: "
                     "metadata.name: Required value: name or "
                     "generateName is required");
    }
    // The API server's five random characters; a count keeps the names of
    // one simulation the same from run to run.
    std::lock_guard<std::mutex> lock(mu_);
    claim.metadata.name = claim.metadata.generate_name.substr(0, 58) +
                          GeneratedSuffix(++generated_names_);
  }
  if (claim.metadata.uid.empty()) {
    claim.metadata.uid =
        "claim-" + claim.metadata.ns + "-" + claim.metadata.name;
  }
  std::shared_ptr<const api::ResourceClaim> stored;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string key = ClaimKey(claim.metadata.ns, claim.metadata.name);
    if (claims_.count(key)) {
      return Failure(409, "resourceclaims.resource.k8s.io \"" +
                              claim.metadata.name + "\" already exists");
    }
    // Every object gets a version of this server's counter, whatever the
    // manifest said: the DRA manager keeps only newer versions, and a
    // snapshot's versions would be ahead of the writes that follow.
    claim.metadata.resource_version = std::to_string(++resource_version_);
    stored = std::make_shared<const api::ResourceClaim>(std::move(claim));
    claims_[key] = stored;
  }
  Deliver(stored);
  return ClaimWrite{.claim = stored};
}

framework::Status SimulatedCluster::DeleteResourceClaim(
    const api::ResourceClaim& claim) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (claims_.erase(ClaimKey(claim.metadata.ns, claim.metadata.name)) == 0) {
      return framework::Status();  // gone already
    }
  }
  if (dra_ != nullptr) {
    dra_->DeleteResourceClaim(claim.metadata.ns, claim.metadata.name);
  }
  return framework::Status();
}

std::vector<std::shared_ptr<const api::ResourceClaim>>
SimulatedCluster::ResourceClaims() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::shared_ptr<const api::ResourceClaim>> out;
  out.reserve(claims_.size());
  for (const auto& [key, claim] : claims_) out.push_back(claim);
  return out;
}

void SimulatedCluster::Deliver(std::shared_ptr<const api::ResourceClaim> c) {
  if (dra_ != nullptr) dra_->UpsertResourceClaim(std::move(c));
}

ClaimWrite SimulatedCluster::GetResourceClaim(const std::string& ns,
                                              const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = claims_.find(ClaimKey(ns, name));
  if (it == claims_.end()) return NotFound(name);
  return ClaimWrite{.claim = it->second};
}

ClaimWrite SimulatedCluster::WriteClaim(const api::ResourceClaim& sent,
                                        const ClaimChange& change) {
  std::shared_ptr<const api::ResourceClaim> stored;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = claims_.find(ClaimKey(sent.metadata.ns, sent.metadata.name));
    if (it == claims_.end()) return NotFound(sent.metadata.name);
    // An update without a resourceVersion is unconditional, as the API
    // server takes it for claims.
    if (!sent.metadata.resource_version.empty() &&
        sent.metadata.resource_version !=
            it->second->metadata.resource_version) {
      return Conflict(sent.metadata.name);
    }
    api::ResourceClaim next = *it->second;
    if (ClaimWrite refused = change(next); !refused.error.empty()) {
      return refused;
    }
    next.metadata.resource_version = std::to_string(++resource_version_);
    stored = std::make_shared<const api::ResourceClaim>(std::move(next));
    it->second = stored;
  }
  Deliver(stored);
  return ClaimWrite{.claim = stored};
}

ClaimWrite SimulatedCluster::UpdateResourceClaim(
    const api::ResourceClaim& claim) {
  // The main resource: metadata changes; the spec is immutable and the
  // status belongs to its subresource.
  return WriteClaim(claim, [&claim](api::ResourceClaim& next) {
    next.metadata.labels = claim.metadata.labels;
    next.metadata.annotations = claim.metadata.annotations;
    next.metadata.finalizers = claim.metadata.finalizers;
    next.metadata.owner_references = claim.metadata.owner_references;
    return ClaimWrite{};
  });
}

ClaimWrite SimulatedCluster::UpdateResourceClaimStatus(
    const api::ResourceClaim& claim) {
  // The status subresource: only the status changes.
  return WriteClaim(claim, [&claim](api::ResourceClaim& next) {
    const size_t reserved = claim.status.reserved_for.size();
    if (reserved > kMaxReservedFor) {
      return Invalid(claim.metadata.name,
                     "status.reservedFor: Too many: " +
                         std::to_string(reserved) + ": must have at most " +
                         std::to_string(kMaxReservedFor) + " items");
    }
    next.status = claim.status;
    return ClaimWrite{};
  });
}

framework::Status SimulatedCluster::UnreserveResourceClaim(
    const api::ResourceClaim& claim, std::string_view pod_uid) {
  // A strategic-merge patch: no resourceVersion, the UID as a
  // precondition of sorts (a different one is an attempt to change it).
  api::ResourceClaim unconditional = claim;
  unconditional.metadata.resource_version.clear();
  ClaimWrite w = WriteClaim(unconditional, [&](api::ResourceClaim& next) {
    if (next.metadata.uid != claim.metadata.uid) {
      return Invalid(claim.metadata.name, "metadata.uid: Invalid value: \"" +
                                              claim.metadata.uid +
                                              "\": field is immutable");
    }
    std::erase_if(next.status.reserved_for,
                  [pod_uid](const api::ResourceClaimConsumerReference& r) {
                    return r.uid == pod_uid;
                  });
    return ClaimWrite{};
  });
  if (!w.ok()) return framework::Status::Error(w.error);
  return framework::Status();
}

void SimulatedCluster::ReleaseClaimsOf(const api::Pod& pod) {
  std::vector<std::shared_ptr<const api::ResourceClaim>> changed, deleted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = claims_.begin(); it != claims_.end();) {
      const api::ResourceClaim& claim = *it->second;
      if (claim.metadata.ns != pod.metadata.ns) {
        ++it;
        continue;
      }
      api::ResourceClaim next = claim;
      const bool was_reserved =
          std::erase_if(next.status.reserved_for,
                        [&](const api::ResourceClaimConsumerReference& r) {
                          return r.uid == pod.metadata.uid;
                        });
      if (was_reserved && next.status.reserved_for.empty()) {
        next.status.allocation.reset();
        std::erase(next.metadata.finalizers, api::kResourceClaimFinalizer);
      }
      bool owned = false;
      for (const api::OwnerReference& ref : claim.metadata.owner_references) {
        owned |= ref.controller.value_or(false) && ref.kind == "Pod" &&
                 ref.uid == pod.metadata.uid;
      }
      if (owned && next.status.reserved_for.empty()) {
        deleted.push_back(it->second);
        it = claims_.erase(it);
        continue;
      }
      if (was_reserved) {
        next.metadata.resource_version = std::to_string(++resource_version_);
        it->second =
            std::make_shared<const api::ResourceClaim>(std::move(next));
        changed.push_back(it->second);
      }
      ++it;
    }
  }
  for (auto& c : changed) Deliver(std::move(c));
  if (dra_ != nullptr) {
    for (const auto& c : deleted) {
      dra_->DeleteResourceClaim(c->metadata.ns, c->metadata.name);
    }
  }
}

}  // namespace ksched::simulator
