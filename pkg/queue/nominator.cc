#include "pkg/queue/nominator.h"

#include <algorithm>
#include <mutex>

namespace ksched::queue {

void Nominator::Add(const framework::PodInfoPtr& pod, const std::string& node) {
  std::unique_lock lock(mu_);
  AddLocked(pod, node);
}

void Nominator::Delete(const api::Pod& pod) {
  std::unique_lock lock(mu_);
  DeleteLocked(pod.metadata.uid);
}

void Nominator::Update(const api::Pod& old_pod,
                       const framework::PodInfoPtr& new_pod) {
  std::unique_lock lock(mu_);
  std::string node;
  if (old_pod.status.nominated_node_name.empty() &&
      new_pod->pod().status.nominated_node_name.empty()) {
    auto it = node_of_.find(old_pod.metadata.uid);
    if (it != node_of_.end()) node = it->second;
  }
  // Even when the node is unchanged the stored PodInfo must become the new
  // one: filtering reads its requests and labels.
  DeleteLocked(old_pod.metadata.uid);
  AddLocked(new_pod, node);
}

std::vector<framework::PodInfoPtr> Nominator::PodsForNode(
    const std::string& node) const {
  std::shared_lock lock(mu_);
  auto it = by_node_.find(node);
  if (it == by_node_.end()) return {};
  return it->second;
}

std::string Nominator::NodeOf(const std::string& uid) const {
  std::shared_lock lock(mu_);
  auto it = node_of_.find(uid);
  return it == node_of_.end() ? std::string() : it->second;
}

void Nominator::AddLocked(const framework::PodInfoPtr& pod,
                          const std::string& node) {
  const api::Pod& p = pod->pod();
  // Never more than one nomination per pod.
  DeleteLocked(p.metadata.uid);
  const std::string& target =
      node.empty() ? p.status.nominated_node_name : node;
  if (target.empty()) return;
  if (still_pending_ && !still_pending_(p)) return;
  node_of_[p.metadata.uid] = target;
  by_node_[target].push_back(pod);
  count_.store(node_of_.size(), std::memory_order_relaxed);
}

void Nominator::DeleteLocked(const std::string& uid) {
  auto it = node_of_.find(uid);
  if (it == node_of_.end()) return;
  auto pods = by_node_.find(it->second);
  if (pods != by_node_.end()) {
    auto& list = pods->second;
    auto pos = std::find_if(list.begin(), list.end(), [&](const auto& pi) {
      return pi->pod().metadata.uid == uid;
    });
    if (pos != list.end()) list.erase(pos);
    if (list.empty()) by_node_.erase(pods);
  }
  node_of_.erase(it);
  count_.store(node_of_.size(), std::memory_order_relaxed);
}

}  // namespace ksched::queue
