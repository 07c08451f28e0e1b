// SimulatedCluster: the API server of `ksched simulate`. It stores the pods
// and the ResourceClaims, applies the scheduler's writes (bindings, status
// patches, deletions, claim updates) as the API server would, and feeds
// each change back to the scheduler as the informers would: pods to the
// scheduler, claims to the DRA manager.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/pod.h"
#include "pkg/api/resource.h"
#include "pkg/dra/dra_manager.h"
#include "pkg/framework/binder.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/framework/cluster_writer.h"

namespace ksched::scheduler {
class Scheduler;
}

namespace ksched::simulator {

class SimulatedCluster final : public framework::Binder,
                               public framework::ClusterWriter {
 public:
  struct Preemption {
    std::string victim;  // namespace/name
    std::string node;
    std::string by;  // the preemptor's UID, as the event says
  };

  explicit SimulatedCluster(framework::InMemoryClusterObjects& objects)
      : objects_(objects) {}

  // Where changes are delivered; set before anything is written.
  void set_scheduler(scheduler::Scheduler* scheduler) {
    scheduler_ = scheduler;
  }

  // Where claim writes are delivered, as the claim informer would deliver
  // them; set before any claim is stored. May stay null (no DRA).
  void set_dra(dra::DraManager* dra) { dra_ = dra; }

  // Stores a claim as the manifests give it, as the resourceclaim
  // controller creates it or as the scheduler creates one for extended
  // resources, with a new resourceVersion (and a UID when it has none), a
  // name made from generateName when it has none, and delivers it. Fails,
  // as a create does, when the name is taken (409 AlreadyExists).
  framework::ClaimWrite CreateResourceClaim(
      const api::ResourceClaim& claim) override;
  // Removes a claim and delivers the deletion.
  framework::Status DeleteResourceClaim(
      const api::ResourceClaim& claim) override;
  // The claims as they stand now, by namespace/name.
  std::vector<std::shared_ptr<const api::ResourceClaim>> ResourceClaims() const;

  // Stores a pod as it stands in the manifests (no event is sent). The
  // scheduler is handed the same object: one copy of each pod in memory.
  void StorePod(std::shared_ptr<const api::Pod> pod);
  std::shared_ptr<const api::Pod> GetPod(const std::string& ns,
                                         const std::string& name) const;
  // In no particular order.
  std::vector<std::shared_ptr<const api::Pod>> Pods() const;

  // framework::Binder: a v1.Binding as the API server checks it.
  framework::Status Bind(const api::Pod& pod, const std::string& node) override;

  // framework::ClusterWriter
  framework::Status UpdatePodStatus(
      const api::Pod& pod, const framework::PodStatusUpdate& update) override;
  void RecordEvent(const api::Pod& regarding, std::string_view type,
                   std::string_view reason, std::string_view action,
                   const std::string& note) override;
  framework::Status DeletePod(const api::Pod& pod) override;
  framework::Status AnnotatePersistentVolumeClaim(
      const api::PersistentVolumeClaim& pvc, std::string_view key,
      std::string_view value) override;
  framework::Status UpdatePodGroupStatus(
      const api::PodGroup& group, const api::PodGroupStatus& status) override;
  // resource.k8s.io/v1 ResourceClaims (simulated_claims.cc), with the API
  // server's answers: 404 for a missing claim, 409 for a stale
  // resourceVersion, 422 for a claim reserved for more than 256 consumers
  // or a patch whose UID is not the claim's.
  framework::ClaimWrite GetResourceClaim(const std::string& ns,
                                         const std::string& name) override;
  framework::ClaimWrite UpdateResourceClaim(
      const api::ResourceClaim& claim) override;
  framework::ClaimWrite UpdateResourceClaimStatus(
      const api::ResourceClaim& claim) override;
  framework::Status UnreserveResourceClaim(const api::ResourceClaim& claim,
                                           std::string_view pod_uid) override;

  const std::vector<Preemption>& preemptions() const { return preemptions_; }

 private:
  static std::string Key(const std::string& ns, const std::string& name) {
    return ns + "/" + name;
  }
  // A stored pod's namespace and name as views of the pod's own strings:
  // the index of 300,000 pods holds no copy of them. An entry is keyed
  // anew whenever its pod is replaced.
  struct PodKey {
    std::string_view ns;
    std::string_view name;
    friend bool operator==(const PodKey&, const PodKey&) = default;
  };
  struct PodKeyHash {
    size_t operator()(const PodKey& key) const {
      const size_t h = std::hash<std::string_view>()(key.ns);
      return h ^ (std::hash<std::string_view>()(key.name) + 0x9e3779b97f4a7c15 +
                  (h << 6) + (h >> 2));
    }
  };
  static PodKey KeyOf(const api::Pod& pod) {
    return {pod.metadata.ns, pod.metadata.name};
  }
  // Stores `pod` under its own name, in place of any pod of that name.
  // Expects mu_ held.
  void PutLocked(std::shared_ptr<const api::Pod> pod);
  // Replaces a stored pod and tells the scheduler.
  void Replace(std::shared_ptr<const api::Pod> old_pod,
               std::shared_ptr<const api::Pod> new_pod);
  // One write of a stored claim: `change` edits a copy of the stored
  // object (after the resourceVersion check against `sent`) and may refuse
  // it; the result is stored with the next resourceVersion and delivered.
  using ClaimChange = std::function<framework::ClaimWrite(api::ResourceClaim&)>;
  framework::ClaimWrite WriteClaim(const api::ResourceClaim& sent,
                                   const ClaimChange& change);
  // What the resourceclaim controller does when a pod is deleted (a
  // preemption victim): its reservations go, a claim left unreserved is
  // deallocated, and a claim made for it is deleted.
  void ReleaseClaimsOf(const api::Pod& pod);
  // Hands a stored claim to the DRA manager (outside mu_: the manager's
  // listener reaches the scheduler, which may write back).
  void Deliver(std::shared_ptr<const api::ResourceClaim> claim);

  framework::InMemoryClusterObjects& objects_;
  scheduler::Scheduler* scheduler_ = nullptr;
  mutable std::mutex mu_;
  std::unordered_map<PodKey, std::shared_ptr<const api::Pod>, PodKeyHash> pods_;
  std::map<std::string, std::shared_ptr<const api::ResourceClaim>> claims_;
  dra::DraManager* dra_ = nullptr;
  std::vector<Preemption> preemptions_;
  int64_t resource_version_ = 1000;
  int64_t generated_names_ = 0;
};

}  // namespace ksched::simulator
