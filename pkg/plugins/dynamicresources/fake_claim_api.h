// FakeClaimApi: a thread-safe ClusterWriter whose ResourceClaims behave as
// the API server's (resourceVersions, 409 on a stale write, the status
// subresource taking only the status, the Unreserve patch, names made from
// generateName on create, deletion), delivering each write to a DraManager
// as the informer would, unless a test holds the informer back. Pod status
// writes are recorded.
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
  // The names of the stored claims, sorted.
  std::vector<std::string> Names() const;

  // Every request, e.g. "update default/c", "update-status default/c",
  // "get default/c", "unreserve default/c pod-uid", "create default/<name or
  // generateName>", "delete default/c", "patch-pod-status default/pod".
  std::vector<std::string> calls;
  // Writes that answer with this status instead (0: none).
  int fail_status_updates_with = 0;
  // Non-empty: creates fail with this error (400 Bad Request).
  std::string fail_creates_with;
  // Every patch (the pod status, the Unreserve patch) fails with "patch
  // error", as kube's test reactor with failPatch.
  bool fail_patches = false;

  // The pod status writes, in order.
  struct PodStatusWrite {
    std::string pod;  // namespace/name
    framework::PodStatusUpdate update;
  };
  std::vector<PodStatusWrite> pod_status_writes;

  framework::ClaimWrite GetResourceClaim(const std::string& ns,
                                         const std::string& name) override;
  framework::ClaimWrite UpdateResourceClaim(
      const api::ResourceClaim& claim) override;
  framework::ClaimWrite UpdateResourceClaimStatus(
      const api::ResourceClaim& claim) override;
  framework::Status UnreserveResourceClaim(const api::ResourceClaim& claim,
                                           std::string_view pod_uid) override;
  framework::ClaimWrite CreateResourceClaim(
      const api::ResourceClaim& claim) override;
  framework::Status DeleteResourceClaim(
      const api::ResourceClaim& claim) override;

  framework::Status UpdatePodStatus(
      const api::Pod& pod, const framework::PodStatusUpdate& update) override;
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
  // The suffix the next claim created from generateName gets (kube's test
  // reactor counts from 0).
  int generated_names_ = 0;
};

}  // namespace ksched::plugins::dra_testing
