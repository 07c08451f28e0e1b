// DynamicResources' side of extended resources backed by DRA: the claim it
// makes for a pod's extended resources is created in PreBind, the pod's
// status then says which request serves which container, and the claim is
// deleted again when the pod does not bind.
#include <algorithm>
#include <thread>

#include "pkg/plugins/dynamicresources/dynamic_resources.h"
#include "pkg/plugins/dynamicresources/state.h"

namespace ksched::plugins {
namespace extended_resources_plugin_detail {
namespace {

// client-go's retry.DefaultRetry: five attempts, 10 ms apart.
constexpr int kConflictAttempts = 5;
constexpr std::chrono::milliseconds kConflictDelay{10};

}  // namespace
}  // namespace extended_resources_plugin_detail
using namespace extended_resources_plugin_detail;

dynamic_resources::ClassForResource DynamicResources::ClassResolver() const {
  dra::DraManager* manager = manager_;
  return [manager](std::string_view resource) {
    return manager->DeviceClassForResource(resource);
  };
}

std::string DynamicResources::NewClaimUid() {
  // Unique within this process, and never a UID the API server hands out
  // (those are UUIDs).
  return "ksched-extended-resources-" + std::to_string(++claim_uids_);
}

util::Result<std::shared_ptr<const api::ResourceClaim>>
DynamicResources::CreateExtendedResourceClaim(
    const dynamic_resources::DraState& data, const api::Pod& pod) {
  framework::ClusterWriter* writer = handle_.writer();
  if (writer == nullptr) {
    return util::Error("nothing may be written to the cluster here");
  }
  if (data.chosen_extended_claim == nullptr) {
    return util::Error("extended resource claim not found for node");
  }
  api::ResourceClaim claim = *data.chosen_extended_claim;
  // What the API server fills in or refuses on create.
  claim.status = {};
  claim.metadata.name.clear();
  claim.metadata.uid.clear();
  claim.metadata.finalizers.clear();
  framework::ClaimWrite w = writer->CreateResourceClaim(claim);
  if (framework::MetricsRecorder* metrics = handle_.metrics()) {
    metrics->CountResourceClaimCreate(w.ok() ? "success" : "failure");
  }
  if (!w.ok()) {
    return util::Error("create claim for extended resources " +
                       pod.metadata.ns + "/: " + w.error);
  }
  return w.claim;
}

framework::Status DynamicResources::WriteExtendedResourceClaimStatus(
    const api::Pod& pod, const std::string& claim_name,
    const std::vector<api::ContainerExtendedResourceRequest>& mappings) {
  const std::string ref = pod.metadata.ns + "/" + pod.metadata.name;
  if (mappings.empty()) {
    return framework::Status::Error(
        "nil or empty request mappings, no update of pod " + ref +
        " ExtendedResourceClaimStatus");
  }
  framework::ClusterWriter* writer = handle_.writer();
  if (writer == nullptr) {
    return framework::Status::Error(
        "nothing may be written to the cluster here");
  }
  framework::PodStatusUpdate update;
  update.extended_resource_claim_status = api::PodExtendedResourceClaimStatus{
      .request_mappings = mappings, .resource_claim_name = claim_name};
  framework::Status s = writer->UpdatePodStatus(pod, update);
  if (!s.IsSuccess()) {
    return framework::Status::Error(
        "update pod " + ref + " ExtendedResourceClaimStatus: " + s.Message());
  }
  return {};
}

framework::Status DynamicResources::DeleteExtendedResourceClaim(
    const api::ResourceClaim& claim) {
  framework::ClusterWriter* writer = handle_.writer();
  if (writer == nullptr) {
    return framework::Status::Error(
        "nothing may be written to the cluster here");
  }
  const std::string ref = claim.metadata.ns + "/" + claim.metadata.name;
  api::ResourceClaim current = claim;
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0) {
      std::this_thread::sleep_for(kConflictDelay);
      framework::ClaimWrite fresh =
          writer->GetResourceClaim(claim.metadata.ns, claim.metadata.name);
      if (!fresh.ok()) {
        if (fresh.code == 404) return {};
        return framework::Status::Error("get resourceclaim " + ref + ": " +
                                        fresh.error);
      }
      current = *fresh.claim;
    }
    auto& finalizers = current.metadata.finalizers;
    auto it = std::find(finalizers.begin(), finalizers.end(),
                        api::kResourceClaimFinalizer);
    if (it == finalizers.end()) break;
    finalizers.erase(it);
    framework::ClaimWrite w = writer->UpdateResourceClaim(current);
    if (w.ok()) break;
    if (w.code == 404) return {};
    if (!w.conflict() || attempt + 1 >= kConflictAttempts) {
      return framework::Status::Error("update resourceclaim " + ref + ": " +
                                      w.error);
    }
  }
  return writer->DeleteResourceClaim(current);
}

}  // namespace ksched::plugins
