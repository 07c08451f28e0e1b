// For the scheduler's tests: the API server as the scheduler sees it, in
// memory.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/framework/binder.h"
#include "pkg/framework/cluster_writer.h"

namespace ksched::scheduler::test {

// The API server as the scheduler sees it: a pod store (the informer's
// lister), the Binding subresource, status patches, events and deletions.
// Thread-safe; it never calls back into the scheduler.
class FakeApiServer final : public framework::Binder,
                            public framework::ClusterWriter {
 public:
  using Status = framework::Status;
  struct Event {
    std::string type, reason, action, note;
  };

  void Store(std::shared_ptr<const api::Pod> pod) {
    std::lock_guard<std::mutex> lock(mu_);
    pods_[Key(*pod)] = std::move(pod);
  }
  void Remove(const api::Pod& pod) {
    std::lock_guard<std::mutex> lock(mu_);
    pods_.erase(Key(pod));
  }
  std::shared_ptr<const api::Pod> Get(const std::string& ns,
                                      const std::string& name) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_.find(ns + "/" + name);
    return it == pods_.end() ? nullptr : it->second;
  }
  std::shared_ptr<const api::Pod> Get(const api::Pod& pod) const {
    return Get(pod.metadata.ns, pod.metadata.name);
  }
  void SetBindResult(Status s) {
    std::lock_guard<std::mutex> lock(mu_);
    bind_result_ = std::move(s);
  }
  // What DeletePod answers; on failure nothing is deleted.
  void SetDeleteResult(Status s) {
    std::lock_guard<std::mutex> lock(mu_);
    delete_result_ = std::move(s);
  }

  // ---- framework::Binder ----
  Status Bind(const api::Pod& pod, const std::string& node) override {
    std::lock_guard<std::mutex> lock(mu_);
    binds_.emplace_back(Key(pod), node);
    if (!bind_result_.IsSuccess()) return bind_result_;
    auto it = pods_.find(Key(pod));
    if (it == pods_.end() || it->second->metadata.uid != pod.metadata.uid) {
      return Status::Error("pods \"" + pod.metadata.name + "\" not found");
    }
    auto bound = std::make_shared<api::Pod>(*it->second);
    bound->spec.node_name = node;
    it->second = std::move(bound);
    return Status();
  }

  // ---- framework::ClusterWriter ----
  Status UpdatePodStatus(const api::Pod& pod,
                         const framework::PodStatusUpdate& update) override {
    std::lock_guard<std::mutex> lock(mu_);
    status_writes_[Key(pod)].push_back(update);
    auto it = pods_.find(Key(pod));
    if (it != pods_.end()) {
      auto next = std::make_shared<api::Pod>(*it->second);
      if (update.condition) {
        std::erase_if(next->status.conditions, [&](const auto& c) {
          return c.type == update.condition->type;
        });
        next->status.conditions.push_back(*update.condition);
      }
      if (update.nominated_node_name) {
        next->status.nominated_node_name = *update.nominated_node_name;
      }
      it->second = std::move(next);
    }
    return Status();
  }
  void RecordEvent(const api::Pod& regarding, std::string_view type,
                   std::string_view reason, std::string_view action,
                   const std::string& note) override {
    std::lock_guard<std::mutex> lock(mu_);
    events_[Key(regarding)].push_back(
        {std::string(type), std::string(reason), std::string(action), note});
  }
  Status DeletePod(const api::Pod& pod) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!delete_result_.IsSuccess()) return delete_result_;
    deleted_.push_back(Key(pod));
    pods_.erase(Key(pod));
    return Status();
  }
  Status AnnotatePersistentVolumeClaim(const api::PersistentVolumeClaim&,
                                       std::string_view,
                                       std::string_view) override {
    return Status();
  }

  Status UpdatePodGroupStatus(const api::PodGroup& group,
                              const api::PodGroupStatus& status) override {
    std::lock_guard<std::mutex> lock(mu_);
    pod_group_statuses_[group.metadata.ns + "/" + group.metadata.name]
        .push_back(status);
    return Status();
  }

  // ---- what happened ----
  std::vector<std::pair<std::string, std::string>> Binds() const {
    std::lock_guard<std::mutex> lock(mu_);
    return binds_;
  }
  std::vector<framework::PodStatusUpdate> StatusWrites(
      const std::string& pod) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = status_writes_.find(pod);
    return it == status_writes_.end()
               ? std::vector<framework::PodStatusUpdate>()
               : it->second;
  }
  std::vector<Event> Events(const std::string& pod) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = events_.find(pod);
    return it == events_.end() ? std::vector<Event>() : it->second;
  }
  std::vector<api::PodGroupStatus> PodGroupStatuses(
      const std::string& group) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pod_group_statuses_.find(group);
    return it == pod_group_statuses_.end() ? std::vector<api::PodGroupStatus>()
                                           : it->second;
  }
  std::vector<std::string> Deleted() const {
    std::lock_guard<std::mutex> lock(mu_);
    return deleted_;
  }

 private:
  static std::string Key(const api::Pod& pod) {
    return pod.metadata.ns + "/" + pod.metadata.name;
  }

  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const api::Pod>> pods_;
  Status bind_result_;
  Status delete_result_;
  std::vector<std::pair<std::string, std::string>> binds_;
  std::map<std::string, std::vector<framework::PodStatusUpdate>> status_writes_;
  std::map<std::string, std::vector<Event>> events_;
  std::vector<std::string> deleted_;
  std::map<std::string, std::vector<api::PodGroupStatus>> pod_group_statuses_;
};

}  // namespace ksched::scheduler::test
