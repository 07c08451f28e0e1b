#include "pkg/plugins/dynamicresources/fake_claim_api.h"

#include <algorithm>

namespace ksched::plugins::dra_testing {

void FakeClaimApi::Store(std::shared_ptr<api::ResourceClaim> claim,
                         bool deliver) {
  claim->metadata.resource_version = std::to_string(++version_);
  if (claim->metadata.uid.empty()) {
    claim->metadata.uid = "uid-" + claim->metadata.name;
  }
  std::shared_ptr<const api::ResourceClaim> stored = claim;
  claims_[claim->metadata.name] = stored;
  if (deliver) informer_.UpsertResourceClaim(stored);
}

void FakeClaimApi::Create(api::ResourceClaim claim) {
  std::lock_guard lock(mu_);
  Store(std::make_shared<api::ResourceClaim>(std::move(claim)), true);
}

void FakeClaimApi::Modify(
    const std::string& name,
    const std::function<void(api::ResourceClaim&)>& change, bool deliver) {
  std::lock_guard lock(mu_);
  auto copy = std::make_shared<api::ResourceClaim>(*claims_.at(name));
  change(*copy);
  Store(std::move(copy), deliver);
}

std::shared_ptr<const api::ResourceClaim> FakeClaimApi::Stored(
    const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = claims_.find(name);
  return it == claims_.end() ? nullptr : it->second;
}

std::vector<std::string> FakeClaimApi::Names() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, claim] : claims_) names.push_back(name);
  return names;
}

framework::ClaimWrite FakeClaimApi::GetResourceClaim(const std::string& ns,
                                                     const std::string& name) {
  std::lock_guard lock(mu_);
  calls.push_back("get " + ns + "/" + name);
  auto stored = Stored(name);
  if (stored == nullptr) {
    return {
        .code = 404,
        .error = "resourceclaims.resource.k8s.io \"" + name + "\" not found"};
  }
  return {.claim = stored, .code = 200};
}

framework::ClaimWrite FakeClaimApi::Write(const api::ResourceClaim& claim,
                                          bool status) {
  auto stored = Stored(claim.metadata.name);
  if (stored == nullptr) {
    return {.code = 404,
            .error = "resourceclaims.resource.k8s.io \"" + claim.metadata.name +
                     "\" not found"};
  }
  if (status && fail_status_updates_with != 0) {
    return {.code = fail_status_updates_with, .error = "injected failure"};
  }
  if (claim.metadata.resource_version != stored->metadata.resource_version) {
    return {.code = 409,
            .error =
                "Operation cannot be fulfilled on "
                "resourceclaims.resource.k8s.io \"" +
                claim.metadata.name +
                "\": the object has been modified; please apply your "
                "changes to the latest version and try again"};
  }
  // The main resource ignores the status, the status subresource everything
  // else.
  auto next = std::make_shared<api::ResourceClaim>(*stored);
  if (status) {
    next->status = claim.status;
  } else {
    next->metadata = claim.metadata;
    next->spec = claim.spec;
  }
  Store(next, true);
  return {.claim = Stored(claim.metadata.name), .code = 200};
}

framework::ClaimWrite FakeClaimApi::UpdateResourceClaim(
    const api::ResourceClaim& claim) {
  std::lock_guard lock(mu_);
  calls.push_back("update " + claim.metadata.ns + "/" + claim.metadata.name);
  return Write(claim, false);
}

framework::ClaimWrite FakeClaimApi::UpdateResourceClaimStatus(
    const api::ResourceClaim& claim) {
  std::lock_guard lock(mu_);
  calls.push_back("update-status " + claim.metadata.ns + "/" +
                  claim.metadata.name);
  return Write(claim, true);
}

framework::Status FakeClaimApi::UnreserveResourceClaim(
    const api::ResourceClaim& claim, std::string_view pod_uid) {
  std::lock_guard lock(mu_);
  calls.push_back("unreserve " + claim.metadata.ns + "/" + claim.metadata.name +
                  " " + std::string(pod_uid));
  if (fail_patches) return framework::Status::Error("patch error");
  auto stored = Stored(claim.metadata.name);
  if (stored == nullptr || stored->metadata.uid != claim.metadata.uid) {
    return framework::Status::Error("unreserve: no such claim");
  }
  auto next = std::make_shared<api::ResourceClaim>(*stored);
  std::erase_if(next->status.reserved_for,
                [&](const api::ResourceClaimConsumerReference& r) {
                  return r.uid == pod_uid;
                });
  Store(next, true);
  return {};
}

framework::ClaimWrite FakeClaimApi::CreateResourceClaim(
    const api::ResourceClaim& claim) {
  std::lock_guard lock(mu_);
  calls.push_back("create " + claim.metadata.ns + "/" +
                  (claim.metadata.name.empty() ? claim.metadata.generate_name
                                               : claim.metadata.name));
  if (!fail_creates_with.empty()) {
    return {.code = 400, .error = fail_creates_with};
  }
  // What the API server refuses on create.
  if (!claim.metadata.uid.empty()) {
    return {.code = 400, .error = "UID must not be set on create"};
  }
  if (!claim.metadata.resource_version.empty()) {
    return {.code = 400, .error = "resourceVersion must not be set on create"};
  }
  auto created = std::make_shared<api::ResourceClaim>(claim);
  if (created->metadata.name.empty()) {
    if (created->metadata.generate_name.empty()) {
      return {.code = 422, .error = "name or generateName is required"};
    }
    created->metadata.name =
        created->metadata.generate_name + std::to_string(generated_names_++);
  }
  if (claims_.contains(created->metadata.name)) {
    return {.code = 409,
            .error = "resourceclaims.resource.k8s.io \"" +
                     created->metadata.name + "\" already exists"};
  }
  const std::string name = created->metadata.name;
  Store(std::move(created), true);
  return {.claim = Stored(name), .code = 201};
}

framework::Status FakeClaimApi::DeleteResourceClaim(
    const api::ResourceClaim& claim) {
  std::lock_guard lock(mu_);
  calls.push_back("delete " + claim.metadata.ns + "/" + claim.metadata.name);
  auto stored = Stored(claim.metadata.name);
  if (stored == nullptr) return {};  // gone already
  if (!stored->metadata.finalizers.empty()) {
    // The API server only marks an object that still has finalizers.
    auto next = std::make_shared<api::ResourceClaim>(*stored);
    if (!next->metadata.deletion_timestamp) {
      next->metadata.deletion_timestamp = api::Time{};
    }
    Store(std::move(next), true);
    return {};
  }
  claims_.erase(claim.metadata.name);
  informer_.DeleteResourceClaim(claim.metadata.ns, claim.metadata.name);
  return {};
}

framework::Status FakeClaimApi::UpdatePodStatus(
    const api::Pod& pod, const framework::PodStatusUpdate& update) {
  std::lock_guard lock(mu_);
  const std::string ref = pod.metadata.ns + "/" + pod.metadata.name;
  calls.push_back("patch-pod-status " + ref);
  if (fail_patches) return framework::Status::Error("patch error");
  pod_status_writes.push_back({ref, update});
  return {};
}

}  // namespace ksched::plugins::dra_testing
