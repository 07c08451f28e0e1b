// Cache: the scheduler's view of which pods sit on which nodes, fed by the
// informers (Add/Update/Remove) and by the scheduler itself (Assume, Forget,
// FinishBinding), mirroring kube-scheduler's internal cache.
//
// Pod lifecycle (keyed by UID):
//   AssumePod -> FinishBinding -> AddPod (informer confirms) -> ... Remove
//       |              |
//   ForgetPod    CleanupExpiredAssumedPods (no confirmation within the TTL)
//
// Each cycle starts with UpdateSnapshot, which copies only the NodeInfos
// that changed since the snapshot's generation, so the cycle reads a frozen
// view while events keep arriving. All methods are thread-safe (one mutex).
#pragma once

#include <chrono>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/pod.h"
#include "pkg/cache/image_index.h"
#include "pkg/cache/node_tree.h"
#include "pkg/framework/label_sets.h"
#include "pkg/framework/node_info.h"
#include "pkg/framework/pod_info.h"
#include "pkg/framework/snapshot.h"
#include "pkg/util/clock.h"
#include "pkg/util/result.h"

namespace ksched::cache {

class Cache {
 public:
  // assumed_pod_ttl: after FinishBinding, how long an assumed pod may wait
  // for the informer's confirmation before CleanupExpiredAssumedPods drops
  // it (0 = never expire, as kube-scheduler v1.32 configures it).
  Cache(const util::Clock& clock, std::chrono::nanoseconds assumed_pod_ttl);
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  // Accounts `pod` on pod.spec.nodeName before it is bound, so the next
  // cycles see its resources. Errors when the pod is already in the cache or
  // names no node (or has no UID).
  util::Result<void> AssumePod(framework::PodInfoPtr pod);
  // Binding ended (either way): from now on the assumed pod may expire.
  // A no-op for pods that are not assumed.
  util::Result<void> FinishBinding(const api::Pod& pod);
  // Binding failed: drops an assumed pod. Errors for pods that are not
  // assumed or were assumed on another node.
  util::Result<void> ForgetPod(const api::Pod& pod);
  bool IsAssumedPod(const api::Pod& pod) const;

  // Informer: a pod bound to a node. Confirms an assumed pod (moving it when
  // the informer names another node), re-adds an expired one, and errors
  // for a pod already added.
  util::Result<void> AddPod(framework::PodInfoPtr pod);
  // Errors for pods not in the cache or still assumed (an assumed pod gets
  // an Add before any Update). A pod whose node changed means the cache
  // missed events: kube-scheduler exits there; ksched applies the update and
  // returns an error so the caller reports the corruption.
  util::Result<void> UpdatePod(const api::Pod& old_pod,
                               framework::PodInfoPtr new_pod);
  // Removes the pod from the node the cache has it on. Errors when it is not
  // in the cache; like UpdatePod, a different non-empty node name is
  // reported as an error after the removal.
  util::Result<void> RemovePod(const api::Pod& pod);
  // The cached pod (assumed or added); nullptr when absent. Pods of a
  // removed node stay reachable until they are removed themselves.
  framework::PodInfoPtr GetPod(std::string_view uid) const;

  void AddNode(std::shared_ptr<const api::Node> node);
  void UpdateNode(const api::Node& old_node,
                  std::shared_ptr<const api::Node> new_node);
  // The node leaves the tree and the snapshots; its pods stay (on a
  // node-less NodeInfo) until their own deletions arrive, because pod and
  // node events come from different watches. Unknown nodes are ignored.
  void RemoveNode(const api::Node& node);

  // Brings `snapshot` up to date: copies only the NodeInfos whose
  // generation is newer than the snapshot's, and rebuilds the ordered node
  // list (zone round-robin) and the affinity lists only when membership
  // changed. If the result disagrees with the cache (e.g. the snapshot was
  // fed by another cache) the snapshot is rebuilt from scratch and an error
  // is returned, as kube does, so the caller can fail this cycle.
  util::Result<void> UpdateSnapshot(framework::Snapshot* snapshot);

  // Drops assumed pods whose binding finished and whose deadline passed
  // (by the clock); returns them.
  std::vector<framework::PodInfoPtr> CleanupExpiredAssumedPods();

  struct Stats {
    size_t nodes = 0;  // NodeInfos, including node-less ones holding pods
    size_t pods = 0;
    size_t assumed_pods = 0;
  };
  Stats GetStats() const;
  // Calls `visit` with every NodeInfo that has a node, in no particular
  // order, under the cache's lock (`visit` must not call the cache): for
  // reports that read the cache once, where a snapshot would copy it.
  void ForEachNodeInfo(
      const std::function<void(const framework::NodeInfo&)>& visit) const;
  // Human-readable state (nodes sorted by name, then assumed pods), for
  // debugging; expensive.
  std::string Dump() const;

  // Where the pods given to AddPod and UpdatePod (PodInfo::CreateBound)
  // share their label sets.
  framework::LabelSets& label_sets() { return label_sets_; }

  // ---- Introspection for tests and debugging. ----
  // A copy of the cached NodeInfo, image states filled as in a snapshot;
  // nullptr when the cache has no NodeInfo under that name.
  framework::NodeInfoPtr GetNodeInfo(std::string_view name) const;
  // NodeInfo names, most recently changed first (what UpdateSnapshot walks).
  std::vector<std::string> NodeNamesByRecency() const;
  // Node names in snapshot order (zone round-robin).
  std::vector<std::string> NodeTreeList() const;
  // Cluster-wide state of one image name; nullopt when no node has it.
  std::optional<framework::ImageStateSummary> GetImageState(
      std::string_view name) const;

 private:
  struct NodeEntry {
    std::string name;  // the NodeInfo may have no node to name it
    framework::NodeInfo info;
  };
  // Most recently changed first, so UpdateSnapshot stops at the first entry
  // the snapshot already has (kube's doubly linked list).
  using NodeList = std::list<NodeEntry>;

  struct PodState {
    framework::PodInfoPtr pod;
    // Set by FinishBinding when the TTL is not 0.
    std::optional<util::Clock::TimePoint> deadline;
    // An assumed pod never expires while its binding is in flight.
    bool binding_finished = false;
  };

  // All of these expect mu_ held.
  NodeList::iterator GetOrCreateNode(std::string_view name);
  void Touch(NodeList::iterator it);  // bump generation, move to head
  void EraseNode(NodeList::iterator it);
  util::Result<void> AddPodLocked(framework::PodInfoPtr pod, bool assumed);
  // `pod` must be the PodInfo the cache holds (it names the node it is on).
  util::Result<void> RemovePodLocked(framework::PodInfoPtr pod);
  framework::NodeInfoPtr CopyForSnapshot(const framework::NodeInfo& info) const;
  framework::NodeInfo SnapshotCopyOf(const framework::NodeInfo& info) const;
  // UpdateSnapshot's helpers (snapshot_update.cc).
  void RefreshLists(framework::Snapshot* snapshot, bool all) const;
  void RebuildSnapshot(framework::Snapshot* snapshot) const;
  // Fills an empty snapshot of a large cluster: every NodeInfo copied once,
  // into one block in the order passes walk (what Compact would make).
  void FillSnapshotInBlock(framework::Snapshot* snapshot) const;

  const util::Clock& clock_;
  const std::chrono::nanoseconds ttl_;

  mutable std::mutex mu_;
  NodeList list_;
  // Keys view NodeEntry::name (list nodes never move in memory).
  std::unordered_map<std::string_view, NodeList::iterator> nodes_;
  NodeTree tree_;
  ImageIndex images_;
  // Keys view the UID inside the state's own pod, so the 50,000 pods of a
  // large cluster cost no key copies. assumed_ views the same strings.
  std::unordered_map<std::string_view, PodState> pod_states_;
  std::unordered_set<std::string_view> assumed_;
  // The cache owns the generation clock: every NodeInfo change takes the
  // next value, so "changed since snapshot S" is generation > S.generation.
  int64_t generation_ = 0;
  // Every snapshot this cache fills holds only NodeInfos it copied, so they
  // can share one id space for memoised pod counts.
  std::shared_ptr<framework::PodCountKeys> pod_count_keys_ =
      std::make_shared<framework::PodCountKeys>();
  // Thread-safe on its own; used outside mu_.
  framework::LabelSets label_sets_;
};

}  // namespace ksched::cache
