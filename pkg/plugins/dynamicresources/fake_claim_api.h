// FakeClaimApi: a thread-safe ClusterWriter whose ResourceClaims behave as
// the API server's (resourceVersions, 409 on a stale write, the status
// subresource taking only the status, the Unreserve patch), delivering each
// write to a DraManager as the informer would, unless a test holds the informer
// back.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/dra/dra_manager.h"
#include "pkg/framework/cluster_writer.h"

namespace ksched::plugins::dra_testing {

class FakeClaimApi final : public framework::ClusterWriter {
 public:
  explicit FakeClaimApi(dra::DraManager& informer) : informer_(informer) {}

  // Stores a claim (a fresh resourceVersion) and tells the informer.
  void Create(api::ResourceClaim claim);
  // Changes the stored claim as another client would; the informer hears
  // of it only if `deliver`.
  void Modify(const std::string& name,
              const std::function<void(api::ResourceClaim&)>& change,
              bool deliver = false);
  std::shared_ptr<const api::ResourceClaim> Stored(
      const std::string& name) const;

  // Every claim request, e.g. "update default/c", "update-status default/c",
  // "get default/c", "unreserve default/c pod-uid".
  std::vector<std::string> calls;
  // Writes that answer with this status instead (0: none).
  int fail_status_updates_with = 0;

  framework::ClaimWrite GetResourceClaim(const std::string& ns,
                                         const std::string& name) override;
  framework::ClaimWrite UpdateResourceClaim(
      const api::ResourceClaim& claim) override;
  framework::ClaimWrite UpdateResourceClaimStatus(
      const api::ResourceClaim& claim) override;
  framework::Status UnreserveResourceClaim(const api::ResourceClaim& claim,
                                           std::string_view pod_uid) override;

  framework::Status UpdatePodStatus(
      const api::Pod&, const framework::PodStatusUpdate&) override {
    return {};
  }
  void RecordEvent(const api::Pod&, std::string_view, std::string_view,
                   std::string_view, const std::string&) override {}
  framework::Status DeletePod(const api::Pod&) override { return {}; }
  framework::Status AnnotatePersistentVolumeClaim(
      const api::PersistentVolumeClaim&, std::string_view,
      std::string_view) override {
    return {};
  }
  framework::Status UpdatePodGroupStatus(const api::PodGroup&,
                                         const api::PodGroupStatus&) override {
    return {};
  }

 private:
  framework::ClaimWrite Write(const api::ResourceClaim& claim, bool status);
  void Store(std::shared_ptr<api::ResourceClaim> claim, bool deliver);

  dra::DraManager& informer_;
  // PreBind and Unreserve call from binding threads.
  mutable std::recursive_mutex mu_;
  std::map<std::string, std::shared_ptr<const api::ResourceClaim>> claims_;
  int64_t version_ = 100;
};

}  // namespace ksched::plugins::dra_testing
