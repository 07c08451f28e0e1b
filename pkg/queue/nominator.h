// Nominator: the pods preemption nominated to nodes, so that filtering on a
// node accounts for the pods expected to land there (kube-scheduler's
// nominator). Its own reader/writer lock lets the parallel Filter workers
// read it without contending with the scheduling queue's lock; the queue
// calls it while holding its own lock (order: queue lock, then this one).
#pragma once

#include <atomic>
#include <functional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "pkg/framework/pod_info.h"

namespace ksched::queue {

class Nominator {
 public:
  // Whether the pod still exists and is unbound (kube asks its pod lister):
  // a pod deleted or bound meanwhile is not nominated. Unset: always.
  using StillPendingFn = std::function<bool(const api::Pod&)>;

  explicit Nominator(StillPendingFn still_pending = nullptr)
      : still_pending_(std::move(still_pending)) {}

  // Nominates `pod` to `node` (kube's ModeOverride), or to the pod's
  // status.nominatedNodeName when `node` is empty (ModeNoop; nothing when
  // that is empty too). An earlier nomination of the pod is dropped first.
  void Add(const framework::PodInfoPtr& pod, const std::string& node);
  void Delete(const api::Pod& pod);
  // Replaces the nomination of `old_pod` with `new_pod`'s. When neither
  // carries status.nominatedNodeName, an in-memory nomination is kept: the
  // update may be one that raced with the preemption that nominated it.
  void Update(const api::Pod& old_pod, const framework::PodInfoPtr& new_pod);

  size_t size() const { return count_.load(std::memory_order_relaxed); }
  // The pods nominated to `node`, oldest nomination first.
  std::vector<framework::PodInfoPtr> PodsForNode(const std::string& node) const;
  // The node `uid` is nominated to, or "" (for tests and logs).
  std::string NodeOf(const std::string& uid) const;

 private:
  void AddLocked(const framework::PodInfoPtr& pod, const std::string& node);
  void DeleteLocked(const std::string& uid);

  StillPendingFn still_pending_;
  mutable std::shared_mutex mu_;
  // node name -> pods in nomination order.
  std::unordered_map<std::string, std::vector<framework::PodInfoPtr>> by_node_;
  // pod UID -> node name.
  std::unordered_map<std::string, std::string> node_of_;
  // node_of_.size(), readable without the lock: filtering checks it for
  // every pod and node and skips all lookups while it is zero.
  std::atomic<size_t> count_{0};
};

}  // namespace ksched::queue
