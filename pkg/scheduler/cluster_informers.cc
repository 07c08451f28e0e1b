#include "pkg/scheduler/cluster_informers.h"

#include "pkg/client/rest_list_watch.h"

namespace ksched::scheduler {
namespace {

using framework::ClusterEvent;
using framework::EventResource;

template <typename T>
informer::Handlers<T> StoreIn(framework::InMemoryClusterObjects& objects,
                              std::function<void(const T&)> remove,
                              std::function<void(uint32_t)> notify = {}) {
  return {
      .on_add =
          [&objects, notify](std::shared_ptr<const T> o) {
            objects.Upsert(*o);
            if (notify) notify(framework::kAdd);
          },
      .on_update =
          [&objects, notify](std::shared_ptr<const T>,
                             std::shared_ptr<const T> o) {
            objects.Upsert(*o);
            if (notify) notify(framework::kUpdateOther);
          },
      .on_delete =
          [remove, notify](std::shared_ptr<const T> o) {
            remove(*o);
            if (notify) notify(framework::kDelete);
          },
  };
}

}  // namespace

template <typename T>
std::unique_ptr<informer::Informer<T>> ClusterInformers::Make(
    std::string name, informer::Handlers<T> handlers,
    informer::InformerOptions options) {
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
                                   informer::InformerOptions options)
    : client_(client), log_(log), random_(random) {
  // One outage, one warning, whichever informers it hits.
  if (options.failure_log == nullptr) {
    options.failure_log = std::make_shared<informer::FailureLog>(log);
  }
  Scheduler* s = &scheduler;
  auto notify = [s](EventResource resource) {
    return [s, resource](uint32_t action) {
      s->OnClusterEvent(ClusterEvent{resource, action});
    };
  };
  informer::InformerOptions pod_options = options;
  pod_options.field_selector = kUnfinishedPods;
  pods_ = Make<api::Pod>(
      "pods",
      {.on_add = [s](auto pod) { s->OnPodAdd(std::move(pod)); },
       .on_update = [s](auto old_pod,
                        auto new_pod) { s->OnPodUpdate(old_pod, new_pod); },
       .on_delete = [s](auto pod) { s->OnPodDelete(std::move(pod)); }},
      pod_options);
  nodes_ = Make<api::Node>(
      "nodes",
      {.on_add = [s](auto node) { s->OnNodeAdd(std::move(node)); },
       .on_update = [s](auto old_node,
                        auto new_node) { s->OnNodeUpdate(old_node, new_node); },
       .on_delete = [s](auto node) { s->OnNodeDelete(std::move(node)); }},
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
          notify(EventResource::kPersistentVolumeClaim)),
      options);
  pvs_ = Make<api::PersistentVolume>(
      "persistentvolumes",
      StoreIn<api::PersistentVolume>(
          objects,
          [o](const auto& x) { o->DeletePersistentVolume(x.metadata.name); },
          notify(EventResource::kPersistentVolume)),
      options);
  storage_classes_ = Make<api::StorageClass>(
      "storageclasses",
      StoreIn<api::StorageClass>(
          objects,
          [o](const auto& x) { o->DeleteStorageClass(x.metadata.name); },
          notify(EventResource::kStorageClass)),
      options);
}

ClusterInformers::~ClusterInformers() {
  stop_.Cancel();
  for (std::thread& t : threads_) t.join();
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
