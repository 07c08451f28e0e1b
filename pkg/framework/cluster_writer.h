// ClusterWriter: what the scheduler writes to the cluster besides bindings.
// The API client implements it with PATCH/POST/DELETE requests; the
// simulator and tests apply or record the writes in memory.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/api/pod.h"
#include "pkg/api/podgroup.h"
#include "pkg/api/resource.h"
#include "pkg/api/storage.h"
#include "pkg/framework/status.h"

namespace ksched::framework {

struct PodStatusUpdate {
  // Set or replace the condition of this type (PodScheduled).
  std::optional<api::PodCondition> condition;
  // status.nominatedNodeName: a node to set, "" to clear, nullopt to keep.
  std::optional<std::string> nominated_node_name;
  // status.extendedResourceClaimStatus to set (DRAExtendedResource).
  std::optional<api::PodExtendedResourceClaimStatus>
      extended_resource_claim_status;
};

// What a ResourceClaim write or read answered: the object the server
// returned, or the error (its text as the API client words it) and the
// HTTP status (0 when no response came), so a caller can retry a conflict.
struct ClaimWrite {
  std::shared_ptr<const api::ResourceClaim> claim;
  int code = 0;
  std::string error;
  bool ok() const { return claim != nullptr; }
  bool conflict() const { return code == 409; }
};

class ClusterWriter {
 public:
  virtual ~ClusterWriter() = default;

  // Patches the pod's status subresource.
  virtual Status UpdatePodStatus(const api::Pod& pod,
                                 const PodStatusUpdate& update) = 0;
  // Records an events.k8s.io/v1 Event about the pod ("Normal"/"Warning").
  virtual void RecordEvent(const api::Pod& regarding, std::string_view type,
                           std::string_view reason, std::string_view action,
                           const std::string& note) = 0;
  // Deletes the pod, only if it still has this UID (preemption victims).
  virtual Status DeletePod(const api::Pod& pod) = 0;
  // Sets one annotation on a claim (volume binding's selected node).
  virtual Status AnnotatePersistentVolumeClaim(
      const api::PersistentVolumeClaim& pvc, std::string_view key,
      std::string_view value) = 0;
  // Replaces the PodGroup's status (its status subresource).
  virtual Status UpdatePodGroupStatus(const api::PodGroup& group,
                                      const api::PodGroupStatus& status) = 0;

  // resource.k8s.io/v1 ResourceClaims, for DynamicResources. Get reads the
  // API server (not a cache); Update PUTs the object (the finalizer);
  // UpdateStatus PUTs its status subresource (allocation and reservedFor,
  // or the deallocation); both carry the object's resourceVersion, so a
  // stale one answers 409.
  virtual ClaimWrite GetResourceClaim(const std::string& ns,
                                      const std::string& name) {
    (void)ns;
    (void)name;
    return ClaimWrite{.error = "resource claims are not supported here"};
  }
  // POSTs a new claim (its generateName makes the name); the created
  // object, or why not.
  virtual ClaimWrite CreateResourceClaim(const api::ResourceClaim& claim) {
    (void)claim;
    return ClaimWrite{.error = "resource claims are not supported here"};
  }
  // DELETEs the claim (gone already counts as done).
  virtual Status DeleteResourceClaim(const api::ResourceClaim& claim) {
    (void)claim;
    return Status::Error("resource claims are not supported here");
  }
  virtual ClaimWrite UpdateResourceClaim(const api::ResourceClaim& claim) {
    (void)claim;
    return ClaimWrite{.error = "resource claims are not supported here"};
  }
  virtual ClaimWrite UpdateResourceClaimStatus(
      const api::ResourceClaim& claim) {
    (void)claim;
    return ClaimWrite{.error = "resource claims are not supported here"};
  }
  // Removes the pod from status.reservedFor with kube-scheduler's
  // strategic-merge patch of the status subresource
  // ({"metadata":{"uid":<claim>},"status":{"reservedFor":[{"$patch":
  // "delete","uid":<pod>}]}}).
  virtual Status UnreserveResourceClaim(const api::ResourceClaim& claim,
                                        std::string_view pod_uid) {
    (void)claim;
    (void)pod_uid;
    return Status::Error("resource claims are not supported here");
  }
};

}  // namespace ksched::framework
