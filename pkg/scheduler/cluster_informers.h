// ClusterInformers: the informers a scheduler runs against an API server
// and where their changes go (kube-scheduler's eventhandlers.go):
//   pods (not finished)  -> the scheduler: bound ones to the cache,
//                           unbound ones with our schedulerName to the queue
//   nodes                -> the scheduler's cache
//   namespaces, PDBs     -> the objects plugins read
//   PVCs, PVs, classes,  -> the objects plugins read, and a cluster event
//   CSINodes, CSIDrivers,   (with the objects, for queueing hints) that may
//   VolumeAttachments       move pods the volume plugins rejected
//   PodGroups (when a       the objects plugins read, and a cluster event
//   profile gangs pods)     for the pods Coscheduling rejected
//   pods with the pod-group -> gang_members(), finished ones too (when a
//   label                      profile gangs pods), for the groups' status
//   DeviceClasses,           -> the DRA manager (when one is given), which
//   ResourceSlices,             turns its changes into the cluster events
//   ResourceClaims              of DynamicResources
// Each informer runs on a thread of its own. A resource discovery found
// the API server does not serve gets no informer (pods and nodes always
// do): its objects are simply absent, and NotServedNotes() says what that
// means.
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/discovery.h"
#include "pkg/client/rest_client.h"
#include "pkg/dra/dra_manager.h"
#include "pkg/framework/cluster_objects.h"
#include "pkg/framework/pod_group_members.h"
#include "pkg/informer/informer.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/util/cancellation.h"
#include "pkg/util/logger.h"
#include "pkg/util/random.h"

namespace ksched::scheduler {

// kube-scheduler's pod informer leaves finished pods out.
inline constexpr const char* kUnfinishedPods =
    "status.phase!=Succeeded,status.phase!=Failed";

class ClusterInformers {
 public:
  // `served`: what discovery found (see GroupVersionsToDiscover); nullptr
  // watches everything. `dra`: where resource.k8s.io/v1's DeviceClasses,
  // ResourceSlices and ResourceClaims (all namespaces) go, when the server
  // serves them; nullptr watches none of them. It must outlive this.
  ClusterInformers(client::RestClient& client, Scheduler& scheduler,
                   framework::InMemoryClusterObjects& objects,
                   util::Logger& log, util::Random& random,
                   informer::InformerOptions options = {},
                   bool watch_pod_groups = false,
                   const client::ServedResources* served = nullptr,
                   dra::DraManager* dra = nullptr);
  // Cancels and joins every informer.
  ~ClusterInformers();

  // The group-version paths ("/api/v1", "/apis/policy/v1", ...) whose
  // resources ksched watches or will watch, for discovery to ask about.
  static std::vector<std::string> GroupVersionsToDiscover(
      bool watch_pod_groups);
  // One line per group-version discovery found missing, or missing some of
  // the resources ksched reads: what is not watched and what that means.
  static std::vector<std::string> NotServedNotes(
      const client::ServedResources& served, bool watch_pod_groups);

  void Start();
  // Cancels and joins every informer: no event handler runs after it
  // returns, while the caches stay readable (GetPod) for whoever still
  // asks. Idempotent.
  void Stop();
  // Blocks until every informer has listed once; false if `stop` fired
  // first.
  bool WaitForSync(util::Cancellation& stop);
  // Names of the informers that have not listed yet.
  std::vector<std::string> Unsynced() const;

  // The pod as the informer last saw it.
  std::shared_ptr<const api::Pod> GetPod(const std::string& ns,
                                         const std::string& name) const;
  const informer::Informer<api::Pod>& pods() const { return *pods_; }
  const informer::Informer<api::Node>& nodes() const { return *nodes_; }
  // Every pod with the pod-group label, finished or not (empty unless the
  // PodGroups are watched).
  const framework::PodGroupMembers& gang_members() const {
    return gang_members_;
  }

 private:
  // nullptr when `served` says the API server does not serve T.
  template <typename T>
  std::unique_ptr<informer::Informer<T>> Make(
      std::string name, informer::Handlers<T> handlers,
      informer::InformerOptions options);

  client::RestClient& client_;
  util::Logger& log_;
  util::Random& random_;
  const client::ServedResources* served_;
  util::Cancellation stop_;
  std::unique_ptr<informer::Informer<api::Pod>> pods_;
  std::unique_ptr<informer::Informer<api::Node>> nodes_;
  std::unique_ptr<informer::Informer<api::Namespace>> namespaces_;
  std::unique_ptr<informer::Informer<api::PodDisruptionBudget>> pdbs_;
  std::unique_ptr<informer::Informer<api::PersistentVolumeClaim>> pvcs_;
  std::unique_ptr<informer::Informer<api::PersistentVolume>> pvs_;
  std::unique_ptr<informer::Informer<api::StorageClass>> storage_classes_;
  std::unique_ptr<informer::Informer<api::CsiNode>> csi_nodes_;
  std::unique_ptr<informer::Informer<api::CsiDriver>> csi_drivers_;
  std::unique_ptr<informer::Informer<api::VolumeAttachment>>
      volume_attachments_;
  std::unique_ptr<informer::Informer<api::PodGroup>> pod_groups_;
  framework::PodGroupMembers gang_members_;
  std::unique_ptr<informer::Informer<api::Pod>> gang_pods_;
  std::unique_ptr<informer::Informer<api::DeviceClass>> device_classes_;
  std::unique_ptr<informer::Informer<api::ResourceSlice>> resource_slices_;
  std::unique_ptr<informer::Informer<api::ResourceClaim>> resource_claims_;
  std::vector<std::function<void()>> runs_;
  std::vector<std::function<bool()>> synced_;
  std::vector<std::string> names_;
  std::vector<std::thread> threads_;
};

}  // namespace ksched::scheduler
