#include "pkg/simulator/simulated_cluster.h"

#include "pkg/scheduler/scheduler.h"

namespace ksched::simulator {

using framework::Status;

void SimulatedCluster::PutLocked(std::shared_ptr<const api::Pod> pod) {
  const PodKey key = KeyOf(*pod);
  // The old entry's key views the old pod: it goes with it, and the new
  // entry views the new pod.
  pods_.erase(key);
  pods_.emplace(key, std::move(pod));
}

void SimulatedCluster::StorePod(std::shared_ptr<const api::Pod> pod) {
  std::lock_guard<std::mutex> lock(mu_);
  PutLocked(std::move(pod));
}

std::shared_ptr<const api::Pod> SimulatedCluster::GetPod(
    const std::string& ns, const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(PodKey{ns, name});
  return it == pods_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<const api::Pod>> SimulatedCluster::Pods() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::shared_ptr<const api::Pod>> out;
  for (const auto& [key, pod] : pods_) out.push_back(pod);
  return out;
}

void SimulatedCluster::Replace(std::shared_ptr<const api::Pod> old_pod,
                               std::shared_ptr<const api::Pod> new_pod) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    PutLocked(new_pod);
  }
  // Delivered without holding the lock: the scheduler may write back.
  if (scheduler_ != nullptr) scheduler_->OnPodUpdate(old_pod, new_pod);
}

Status SimulatedCluster::Bind(const api::Pod& pod, const std::string& node) {
  std::shared_ptr<const api::Pod> current =
      GetPod(pod.metadata.ns, pod.metadata.name);
  if (current == nullptr || current->metadata.uid != pod.metadata.uid) {
    return Status::Error("pods \"" + pod.metadata.name + "\" not found");
  }
  if (!current->spec.node_name.empty()) {
    return Status::Error("pod " + pod.metadata.name +
                         " is already assigned to node \"" +
                         current->spec.node_name + "\"");
  }
  auto bound = std::make_shared<api::Pod>(*current);
  bound->spec.node_name = node;
  bound->metadata.resource_version = std::to_string(++resource_version_);
  api::PodCondition scheduled;
  scheduled.type = std::string(api::kPodScheduled);
  scheduled.status = "True";
  std::erase_if(bound->status.conditions, [](const api::PodCondition& c) {
    return c.type == api::kPodScheduled;
  });
  bound->status.conditions.push_back(scheduled);
  Replace(current, bound);
  return Status();
}

Status SimulatedCluster::UpdatePodStatus(
    const api::Pod& pod, const framework::PodStatusUpdate& update) {
  std::shared_ptr<const api::Pod> current =
      GetPod(pod.metadata.ns, pod.metadata.name);
  if (current == nullptr) return Status::Error("pod not found");
  auto next = std::make_shared<api::Pod>(*current);
  if (update.condition) {
    std::erase_if(next->status.conditions, [&](const api::PodCondition& c) {
      return c.type == update.condition->type;
    });
    next->status.conditions.push_back(*update.condition);
  }
  if (update.nominated_node_name) {
    next->status.nominated_node_name = *update.nominated_node_name;
  }
  if (update.extended_resource_claim_status) {
    next->status.extended_resource_claim_status =
        *update.extended_resource_claim_status;
  }
  next->metadata.resource_version = std::to_string(++resource_version_);
  Replace(current, next);
  return Status();
}

void SimulatedCluster::RecordEvent(const api::Pod& regarding,
                                   std::string_view /*type*/,
                                   std::string_view reason,
                                   std::string_view /*action*/,
                                   const std::string& note) {
  if (reason != "Preempted") return;
  // "Preempted by pod <uid> on node <node>"
  std::string by, node;
  auto by_at = note.find("pod ");
  auto on_at = note.find(" on node ");
  if (by_at != std::string::npos && on_at != std::string::npos) {
    by = note.substr(by_at + 4, on_at - by_at - 4);
    node = note.substr(on_at + 9);
  }
  std::lock_guard<std::mutex> lock(mu_);
  preemptions_.push_back(
      {regarding.metadata.ns + "/" + regarding.metadata.name, node, by});
}

Status SimulatedCluster::DeletePod(const api::Pod& pod) {
  std::shared_ptr<const api::Pod> removed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_.find(KeyOf(pod));
    if (it == pods_.end() || it->second->metadata.uid != pod.metadata.uid) {
      return Status::Error("pods \"" + pod.metadata.name + "\" not found");
    }
    removed = it->second;
    pods_.erase(it);
  }
  if (scheduler_ != nullptr) scheduler_->OnPodDelete(removed);
  ReleaseClaimsOf(*removed);
  return Status();
}

Status SimulatedCluster::AnnotatePersistentVolumeClaim(
    const api::PersistentVolumeClaim& pvc, std::string_view key,
    std::string_view value) {
  api::PersistentVolumeClaim updated = pvc;
  updated.metadata.annotations.Set(key, std::string(value));
  objects_.Upsert(std::move(updated));
  return Status();
}

Status SimulatedCluster::UpdatePodGroupStatus(
    const api::PodGroup& group, const api::PodGroupStatus& status) {
  api::PodGroup updated = group;
  updated.status = status;
  objects_.Upsert(std::move(updated));
  return Status();
}

}  // namespace ksched::simulator
