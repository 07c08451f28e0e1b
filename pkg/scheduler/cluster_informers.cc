#include "pkg/scheduler/cluster_informers.h"

#include <optional>

#include "pkg/api/podgroup.h"
#include "pkg/client/rest_list_watch.h"
#include "pkg/scheduler/last_applied_digest.h"

namespace ksched::scheduler {
namespace {

using framework::ClusterEvent;
using framework::EventResource;

// Where a storage object goes in an event's objects, for the plugins'
// queueing hints; kinds no hint reads go nowhere.
void Place(queue::OwnedEventObjects& objs,
           std::shared_ptr<const api::PersistentVolume> old_object,
           std::shared_ptr<const api::PersistentVolume> new_object) {
  objs.old_pv = std::move(old_object);
  objs.new_pv = std::move(new_object);
}
void Place(queue::OwnedEventObjects& objs,
           std::shared_ptr<const api::PersistentVolumeClaim> old_object,
           std::shared_ptr<const api::PersistentVolumeClaim> new_object) {
  objs.old_pvc = std::move(old_object);
  objs.new_pvc = std::move(new_object);
}
void Place(queue::OwnedEventObjects& objs,
           std::shared_ptr<const api::StorageClass> old_object,
           std::shared_ptr<const api::StorageClass> new_object) {
  objs.old_storage_class = std::move(old_object);
  objs.new_storage_class = std::move(new_object);
}
void Place(queue::OwnedEventObjects& objs,
           std::shared_ptr<const api::PodGroup> old_object,
           std::shared_ptr<const api::PodGroup> new_object) {
  objs.old_pod_group = std::move(old_object);
  objs.new_pod_group = std::move(new_object);
}
template <typename T>
void Place(queue::OwnedEventObjects&, std::shared_ptr<const T>,
           std::shared_ptr<const T>) {}

// Keeps the objects in `objects`; when `resource` is set, each change is
// also a cluster event for the scheduler, with the objects before and after.
template <typename T>
informer::Handlers<T> StoreIn(framework::InMemoryClusterObjects& objects,
                              std::function<void(const T&)> remove,
                              Scheduler* scheduler = nullptr,
                              std::optional<EventResource> resource = {}) {
  auto notify = [scheduler, resource](uint32_t action,
                                      std::shared_ptr<const T> old_object,
                                      std::shared_ptr<const T> new_object) {
    if (scheduler == nullptr || !resource) return;
    queue::OwnedEventObjects objs;
    Place(objs, std::move(old_object), std::move(new_object));
    scheduler->OnClusterEvent(ClusterEvent{*resource, action}, objs);
  };
  return {
      .on_add =
          [&objects, notify](std::shared_ptr<const T> o) {
            objects.Upsert(*o);
            notify(framework::kAdd, nullptr, std::move(o));
          },
      .on_update =
          [&objects, notify](std::shared_ptr<const T> old_object,
                             std::shared_ptr<const T> o) {
            objects.Upsert(*o);
            notify(framework::kUpdateOther, std::move(old_object),
                   std::move(o));
          },
      .on_delete =
          [remove, notify](std::shared_ptr<const T> o) {
            remove(*o);
            notify(framework::kDelete, std::move(o), nullptr);
          },
  };
}

}  // namespace

template <typename T>
std::unique_ptr<informer::Informer<T>> ClusterInformers::Make(
    std::string name, informer::Handlers<T> handlers,
    informer::InformerOptions options) {
  constexpr client::Resource kResource = client::ResourceOf<T>::kResource;
  // Pods and nodes are what scheduling is; without them nothing would work
  // anyway, and their informer says why.
  const bool essential =
      kResource.group_version_path == "/api/v1" &&
      (kResource.plural == "pods" || kResource.plural == "nodes");
  if (served_ != nullptr && !essential &&
      !served_->Serves(kResource.group_version_path, kResource.plural)) {
    return nullptr;
  }
  auto made = std::make_unique<informer::Informer<T>>(
      name, std::make_unique<client::RestListerWatcher<T>>(client_),
      std::move(handlers), std::move(options), log_, random_);
  informer::Informer<T>* raw = made.get();
  runs_.push_back([this, raw] {
    raw->Run(stop_,
             [this](std::chrono::nanoseconds d) { return stop_.WaitFor(d); });
  });
  synced_.push_back([raw] { return raw->HasSynced(); });
  names_.push_back(std::move(name));
  return made;
}

ClusterInformers::ClusterInformers(client::RestClient& client,
                                   Scheduler& scheduler,
                                   framework::InMemoryClusterObjects& objects,
                                   util::Logger& log, util::Random& random,
                                   informer::InformerOptions options,
                                   bool watch_pod_groups,
                                   const client::ServedResources* served,
                                   dra::DraManager* dra)
    : client_(client), log_(log), random_(random), served_(served) {
  // One outage, one warning, whichever informers it hits.
  if (options.failure_log == nullptr) {
    options.failure_log = std::make_shared<informer::FailureLog>(log);
  }
  Scheduler* s = &scheduler;
  informer::InformerOptions pod_options = options;
  pod_options.field_selector = kUnfinishedPods;
  pods_ = Make<api::Pod>(
      "pods",
      {.on_add = [s](auto pod) { s->OnPodAdd(std::move(pod)); },
       .on_update = [s](auto old_pod,
                        auto new_pod) { s->OnPodUpdate(old_pod, new_pod); },
       .on_delete = [s](auto pod) { s->OnPodDelete(std::move(pod)); },
       .transform =
           [](api::Pod& pod) { DigestLastAppliedConfiguration(pod.metadata); }},
      pod_options);
  nodes_ = Make<api::Node>(
      "nodes",
      {.on_add = [s](auto node) { s->OnNodeAdd(std::move(node)); },
       .on_update = [s](auto old_node,
                        auto new_node) { s->OnNodeUpdate(old_node, new_node); },
       .on_delete = [s](auto node) { s->OnNodeDelete(std::move(node)); },
       .transform =
           [](api::Node& node) {
             DigestLastAppliedConfiguration(node.metadata);
           }},
      options);
  framework::InMemoryClusterObjects* o = &objects;
  namespaces_ = Make<api::Namespace>(
      "namespaces",
      StoreIn<api::Namespace>(
          objects, [o](const auto& x) { o->DeleteNamespace(x.metadata.name); }),
      options);
  pdbs_ = Make<api::PodDisruptionBudget>(
      "poddisruptionbudgets",
      StoreIn<api::PodDisruptionBudget>(objects,
                                        [o](const auto& x) {
                                          o->DeletePodDisruptionBudget(
                                              x.metadata.ns, x.metadata.name);
                                        }),
      options);
  pvcs_ = Make<api::PersistentVolumeClaim>(
      "persistentvolumeclaims",
      StoreIn<api::PersistentVolumeClaim>(
          objects,
          [o](const auto& x) {
            o->DeletePersistentVolumeClaim(x.metadata.ns, x.metadata.name);
          },
          s, EventResource::kPersistentVolumeClaim),
      options);
  pvs_ = Make<api::PersistentVolume>(
      "persistentvolumes",
      StoreIn<api::PersistentVolume>(
          objects,
          [o](const auto& x) { o->DeletePersistentVolume(x.metadata.name); }, s,
          EventResource::kPersistentVolume),
      options);
  storage_classes_ = Make<api::StorageClass>(
      "storageclasses",
      StoreIn<api::StorageClass>(
          objects,
          [o](const auto& x) { o->DeleteStorageClass(x.metadata.name); }, s,
          EventResource::kStorageClass),
      options);
  csi_nodes_ = Make<api::CsiNode>(
      "csinodes",
      StoreIn<api::CsiNode>(
          objects, [o](const auto& x) { o->DeleteCsiNode(x.metadata.name); }, s,
          EventResource::kCsiNode),
      options);
  csi_drivers_ = Make<api::CsiDriver>(
      "csidrivers",
      StoreIn<api::CsiDriver>(
          objects, [o](const auto& x) { o->DeleteCsiDriver(x.metadata.name); },
          s, EventResource::kCsiDriver),
      options);
  volume_attachments_ = Make<api::VolumeAttachment>(
      "volumeattachments",
      StoreIn<api::VolumeAttachment>(
          objects,
          [o](const auto& x) { o->DeleteVolumeAttachment(x.metadata.name); }, s,
          EventResource::kVolumeAttachment),
      options);
  if (watch_pod_groups) {
    pod_groups_ = Make<api::PodGroup>("podgroups",
                                      StoreIn<api::PodGroup>(
                                          objects,
                                          [o](const auto& x) {
                                            o->DeletePodGroup(x.metadata.ns,
                                                              x.metadata.name);
                                          },
                                          s, EventResource::kPodGroup),
                                      options);
    // Every member, finished ones too, for the groups' status counts
    // (the pod informer above leaves finished pods out).
    informer::InformerOptions member_options = options;
    member_options.label_selector = std::string(api::kPodGroupLabel);
    framework::PodGroupMembers* members = &gang_members_;
    gang_pods_ = Make<api::Pod>(
        "podgroup-pods",
        {.on_add = [members](auto pod) { members->Upsert(std::move(pod)); },
         .on_update = [members](auto,
                                auto pod) { members->Upsert(std::move(pod)); },
         .on_delete = [members](auto pod) { members->Remove(*pod); }},
        member_options);
  }
  if (dra != nullptr) {
    // The manager keeps them and tells the scheduler what changed.
    device_classes_ = Make<api::DeviceClass>(
        "deviceclasses",
        {.on_add = [dra](auto c) { dra->UpsertDeviceClass(std::move(c)); },
         .on_update = [dra](auto,
                            auto c) { dra->UpsertDeviceClass(std::move(c)); },
         .on_delete =
             [dra](auto c) { dra->DeleteDeviceClass(c->metadata.name); }},
        options);
    resource_slices_ = Make<api::ResourceSlice>(
        "resourceslices",
        {.on_add = [dra](auto s) { dra->UpsertResourceSlice(std::move(s)); },
         .on_update = [dra](auto,
                            auto s) { dra->UpsertResourceSlice(std::move(s)); },
         .on_delete =
             [dra](auto s) { dra->DeleteResourceSlice(s->metadata.name); }},
        options);
    resource_claims_ = Make<api::ResourceClaim>(
        "resourceclaims",
        {.on_add = [dra](auto c) { dra->UpsertResourceClaim(std::move(c)); },
         .on_update = [dra](auto,
                            auto c) { dra->UpsertResourceClaim(std::move(c)); },
         .on_delete =
             [dra](auto c) {
               dra->DeleteResourceClaim(c->metadata.ns, c->metadata.name);
             }},
        options);
  }
}

namespace {

// What ksched reads from each group-version, and what goes missing when
// the API server does not serve it.
struct WatchedGroupVersion {
  std::string_view path;
  std::vector<std::string_view> resources;
  std::string_view without;
  bool pod_groups = false;  // only asked about when a profile gangs pods
};

const std::vector<WatchedGroupVersion>& Watched() {
  static const auto* const kWatched = new std::vector<WatchedGroupVersion>{
      {"/api/v1",
       {"pods", "nodes", "namespaces", "persistentvolumeclaims",
        "persistentvolumes"},
       "pods and nodes are read anyway; the volume plugins see no claims or "
       "volumes, and namespace selectors of affinity terms match nothing"},
      {"/apis/policy/v1",
       {"poddisruptionbudgets"},
       "preemption counts no PodDisruptionBudget and may evict pods one "
       "protects"},
      {"/apis/storage.k8s.io/v1",
       {"storageclasses", "csinodes", "csidrivers", "volumeattachments"},
       "the volume plugins see no StorageClass, CSINode, CSIDriver or "
       "VolumeAttachment: pods with claims to bind wait, and CSI attach "
       "limits are not counted"},
      {"/apis/scheduling.x-k8s.io/v1alpha1",
       {"podgroups"},
       "the PodGroup CRD is not installed (the chart's podGroupCRD.install): "
       "pods of a pod group stay pending with \"PodGroup not found\"",
       true},
      {"/apis/resource.k8s.io/v1",
       {"deviceclasses", "resourceclaims", "resourceslices"},
       "the cluster has no dynamic resource allocation at v1 (Kubernetes "
       "v1.34 and later serve it), so DynamicResources is inert: pods with "
       "resourceClaims cannot be scheduled"},
  };
  return *kWatched;
}

std::string GroupVersionName(std::string_view path) {
  return client::GroupVersionOfPath(path);
}

}  // namespace

std::vector<std::string> ClusterInformers::GroupVersionsToDiscover(
    bool watch_pod_groups) {
  std::vector<std::string> paths;
  for (const WatchedGroupVersion& w : Watched()) {
    if (w.pod_groups && !watch_pod_groups) continue;
    paths.emplace_back(w.path);
  }
  return paths;
}

std::vector<std::string> ClusterInformers::NotServedNotes(
    const client::ServedResources& served, bool watch_pod_groups) {
  std::vector<std::string> notes;
  for (const WatchedGroupVersion& w : Watched()) {
    if (w.pod_groups && !watch_pod_groups) continue;
    const client::GroupVersionDiscovery* found = served.Find(w.path);
    if (found == nullptr) continue;
    std::string missing;
    for (std::string_view r : w.resources) {
      if (served.Serves(w.path, r)) continue;
      missing += (missing.empty() ? "" : ", ") + std::string(r);
    }
    if (missing.empty()) continue;
    const std::string gv = GroupVersionName(w.path);
    notes.push_back(
        (found->state == client::GroupVersionDiscovery::State::kNotServed
             ? "the API server does not serve " + gv + ", so " + missing +
                   " are not watched: "
             : "the API server's " + gv + " has no " + missing +
                   ", so they are not watched: ") +
        std::string(w.without));
  }
  return notes;
}

ClusterInformers::~ClusterInformers() { Stop(); }

void ClusterInformers::Stop() {
  stop_.Cancel();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void ClusterInformers::Start() {
  for (auto& run : runs_) threads_.emplace_back(run);
}

std::vector<std::string> ClusterInformers::Unsynced() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < synced_.size(); ++i) {
    if (!synced_[i]()) out.push_back(names_[i]);
  }
  return out;
}

bool ClusterInformers::WaitForSync(util::Cancellation& stop) {
  while (!Unsynced().empty()) {
    if (stop.WaitFor(std::chrono::milliseconds(20))) return false;
  }
  return true;
}

std::shared_ptr<const api::Pod> ClusterInformers::GetPod(
    const std::string& ns, const std::string& name) const {
  return pods_->Get(ns + "/" + name);
}

}  // namespace ksched::scheduler
