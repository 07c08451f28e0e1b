// PreBind's write of one claim (kube's bindClaim): the finalizer with an
// update of the claim, then the allocation and the pod's reservation with
// an update of its status, retried from a fresh read when the server
// answers 409 Conflict.
#include <algorithm>
#include <chrono>
#include <thread>

#include "pkg/plugins/dynamicresources/dynamic_resources.h"

namespace ksched::plugins {
namespace bind_claim_detail {
namespace {

// client-go's retry.DefaultRetry: five attempts, 10 ms apart.
constexpr int kConflictAttempts = 5;
constexpr std::chrono::milliseconds kConflictDelay{10};
// How long PreBind waits for the informer to deliver a claim it created,
// and how often it looks (kube: 120 s, every second; the cache is local
// here, so a shorter look costs nothing).
constexpr std::chrono::seconds kInformerWait{120};
constexpr std::chrono::milliseconds kInformerPoll{20};

std::string Ref(const api::ResourceClaim& c) {
  return c.metadata.ns + "/" + c.metadata.name;
}

}  // namespace
}  // namespace bind_claim_detail
using namespace bind_claim_detail;

util::Result<std::shared_ptr<const api::ResourceClaim>>
DynamicResources::BindClaim(
    const api::ResourceClaim& cached,
    const std::optional<api::AllocationResult>& allocation, const api::Pod& pod,
    const std::string& pending_uid, bool wait_for_informer) {
  framework::ClusterWriter* writer = handle_.writer();
  if (writer == nullptr) {
    return util::Error("claim " + Ref(cached) +
                       ": nothing may be written to the cluster here");
  }
  std::shared_ptr<const api::ResourceClaim> written;
  util::Error failure("");
  auto claim = std::make_shared<api::ResourceClaim>(cached);
  for (int attempt = 0; attempt < kConflictAttempts; ++attempt) {
    if (attempt > 0) {
      std::this_thread::sleep_for(kConflictDelay);
      framework::ClaimWrite fresh =
          writer->GetResourceClaim(cached.metadata.ns, cached.metadata.name);
      if (!fresh.ok()) {
        failure = util::Error("get updated claim " + Ref(cached) +
                              " after conflict: " + fresh.error);
        if (fresh.conflict()) continue;
        break;
      }
      claim = std::make_shared<api::ResourceClaim>(*fresh.claim);
    }
    if (claim->metadata.deletion_timestamp) {
      failure =
          util::Error("claim " + Ref(*claim) + " got deleted in the meantime");
      break;
    }
    if (allocation) {
      if (claim->status.allocation) {
        failure = util::Error("claim " + Ref(*claim) +
                              " got allocated elsewhere in the meantime");
        break;
      }
      auto& finalizers = claim->metadata.finalizers;
      if (std::find(finalizers.begin(), finalizers.end(),
                    api::kResourceClaimFinalizer) == finalizers.end()) {
        finalizers.emplace_back(api::kResourceClaimFinalizer);
        framework::ClaimWrite w = writer->UpdateResourceClaim(*claim);
        if (!w.ok()) {
          failure = util::Error("add finalizer to claim " + Ref(*claim) + ": " +
                                w.error);
          if (w.conflict()) continue;
          break;
        }
        claim = std::make_shared<api::ResourceClaim>(*w.claim);
      }
      claim->status.allocation = allocation;
    }
    claim->status.reserved_for.push_back(
        api::ResourceClaimConsumerReference{.resource = "pods",
                                            .name = pod.metadata.name,
                                            .uid = pod.metadata.uid});
    // With binding conditions on, every allocation carries the time it was
    // made (bindingTimeout counts from it), whether or not its devices
    // have conditions.
    if (binding_conditions()) {
      if (!claim->status.allocation) {
        failure = util::Error("claim " + Ref(*claim) +
                              " got deallocated elsewhere in the meantime");
        break;
      }
      if (!claim->status.allocation->allocation_timestamp) {
        claim->status.allocation->allocation_timestamp =
            api::Time{std::chrono::floor<std::chrono::seconds>(WallNow())};
      }
    }
    framework::ClaimWrite w = writer->UpdateResourceClaimStatus(*claim);
    if (!w.ok()) {
      failure = util::Error(
          std::string(allocation ? "add allocation and reservation to claim "
                                 : "add reservation to claim ") +
          Ref(*claim) + ": " + w.error);
      if (w.conflict()) continue;
      break;
    }
    written = w.claim;
    break;
  }
  // The devices move from in flight to the claim's allocation without a
  // moment where neither holds them: assume the written claim first. A
  // claim created in this PreBind is assumed once the informer has
  // delivered it (kube waits up to two minutes, looking every second).
  if (written != nullptr) {
    const auto deadline = handle_.clock().Now() + kInformerWait;
    while (!manager_->AssumeClaimAfterAPICall(written).ok() &&
           wait_for_informer && handle_.clock().Now() < deadline &&
           manager_->GetResourceClaim(written->metadata.ns,
                                      written->metadata.name) == nullptr) {
      if (options_.sleep) {
        options_.sleep(kInformerPoll);
      } else {
        std::this_thread::sleep_for(kInformerPoll);
      }
    }
  }
  if (allocation) manager_->RemoveClaimPendingAllocation(pending_uid);
  if (written == nullptr) return failure;
  return written;
}

}  // namespace ksched::plugins
