// SimulatedCluster: the API server of `ksched simulate`. It stores the pods,
// applies the scheduler's writes (bindings, status patches, deletions) as the
// API server would, and feeds each change back to the scheduler as the
// informers would.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/pod.h"
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

  // Stores a pod as it stands in the manifests (no event is sent).
  void StorePod(const api::Pod& pod);
  std::shared_ptr<const api::Pod> GetPod(const std::string& ns,
                                         const std::string& name) const;
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

  const std::vector<Preemption>& preemptions() const { return preemptions_; }

 private:
  static std::string Key(const std::string& ns, const std::string& name) {
    return ns + "/" + name;
  }
  // Replaces a stored pod and tells the scheduler.
  void Replace(std::shared_ptr<const api::Pod> old_pod,
               std::shared_ptr<const api::Pod> new_pod);

  framework::InMemoryClusterObjects& objects_;
  scheduler::Scheduler* scheduler_ = nullptr;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const api::Pod>> pods_;
  std::vector<Preemption> preemptions_;
  int64_t resource_version_ = 1000;
};

}  // namespace ksched::simulator
