// Snapshot: the NodeInfos one scheduling cycle sees (the cache's view at
// the start of the cycle), so a cycle never reads a half-applied update.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/framework/node_count_index.h"
#include "pkg/framework/node_info.h"

namespace ksched::framework {

class Snapshot {
 public:
  Snapshot() = default;
  // Builds a snapshot from a list of NodeInfos (tests, the simulator); the
  // cache keeps one up to date incrementally instead.
  explicit Snapshot(std::vector<NodeInfoPtr> nodes) { Reset(std::move(nodes)); }

  void Reset(std::vector<NodeInfoPtr> nodes);
  // Reset to NodeInfos that already lie in one block, listed in its order:
  // what Compact makes, without first a copy of each on its own (at
  // 100,000 nodes, a second copy of every NodeInfo at the run's peak).
  void ResetInBlock(std::shared_ptr<std::vector<NodeInfo>> block);

  // Every node, in a stable order (the order node filtering walks).
  const std::vector<NodeInfoPtr>& nodes() const { return nodes_; }
  // nodes()[i]->generation() for each i, kept apart so that a pass can
  // tell which nodes changed without touching their NodeInfos.
  const std::vector<int64_t>& generations() const { return generations_; }
  // Whether a generation names one state of one node: true when the
  // scheduler cache maintains the snapshot (its generations come from one
  // clock), false for snapshots built from lists, whose NodeInfos may all
  // be at generation 0.
  bool generations_unique() const { return generations_unique_; }
  void set_generations_unique(bool unique) { generations_unique_ = unique; }
  // Nodes with at least one pod with (anti-)affinity / required
  // anti-affinity: the only ones inter-pod affinity must look at.
  const std::vector<NodeInfoPtr>& nodes_with_affinity_pods() const {
    return with_affinity_;
  }
  const std::vector<NodeInfoPtr>& nodes_with_required_anti_affinity_pods()
      const {
    return with_required_anti_affinity_;
  }
  // nullptr when absent.
  const NodeInfo* Get(std::string_view name) const;
  NodeInfoPtr GetPtr(std::string_view name) const;
  // Where the node of that name is in nodes(), or -1 when it is not listed.
  int32_t PositionOf(std::string_view name) const;
  size_t size() const { return nodes_.size(); }

  // Whether any pod in the snapshot uses the PVC "namespace/claim".
  bool IsPvcUsedByPods(std::string_view key) const;

  // The id space of the NodeInfos' pod-count memos; null (no memo) unless
  // the snapshot's producer guarantees what pod_count_memo.h requires.
  PodCountKeys* pod_count_keys() const { return pod_count_keys_.get(); }
  void set_pod_count_keys(std::shared_ptr<PodCountKeys> keys) {
    pod_count_keys_ = std::move(keys);
  }

  int64_t generation() const { return generation_; }
  void set_generation(int64_t g) { generation_ = g; }

  // ---- What changed, for answers kept across cycles. ----
  //
  // The version of what the positions of nodes() name: bumped whenever the
  // list is rebuilt, after which a position may name another node.
  uint64_t layout_version() const { return layout_version_; }
  // How many times a listed NodeInfo was replaced in place (Upsert).
  uint64_t change_count() const {
    return changes_base_ + changed_positions_.size();
  }
  // Appends to `out` the positions of nodes() replaced since
  // change_count() was `since` under layout `layout` (repeats possible);
  // false when that is no longer known: the list was rebuilt, or the log
  // dropped those changes. Positions whose NodeInfo was copied (Compact)
  // but not changed are not listed.
  bool ChangedSince(uint64_t layout, uint64_t since,
                    std::vector<int32_t>* out) const;
  // Per-node answers plugins keep across cycles (node_count_index.h); empty
  // in a copy.
  NodeCountIndex& node_counts() const { return node_counts_; }

  // Rebuilds the derived lists after NodeInfos changed in place.
  void RebuildIndexes();

  // ---- Incremental maintenance, for the scheduler cache. ----
  //
  // The cache never mutates a NodeInfo a snapshot holds: it swaps in a fresh
  // copy, so a NodeInfoPtr a plugin (or a binding cycle) still holds from an
  // earlier cycle stays unchanged.

  // What Upsert changed that the lists cannot absorb in place.
  struct UpsertEffect {
    bool added = false;  // a new name: nodes() must be rebuilt
    // The node started or stopped having pods with affinity / required
    // anti-affinity and could not be placed in the list in place (it is
    // not listed in nodes() yet): the matching list must be rebuilt.
    bool affinity_changed = false;
    bool anti_affinity_changed = false;
  };
  // Inserts `info` under info->name(), or replaces the NodeInfo of that name
  // in the map and in every list it is in. The PVC-in-use set is kept exact.
  UpsertEffect Upsert(NodeInfoPtr info);
  // Drops the NodeInfos whose name `drop` selects (from the map only: the
  // caller rebuilds the lists); returns how many were dropped.
  size_t EraseIf(const std::function<bool(std::string_view name)>& drop);
  // How many NodeInfos the map holds (nodes() may lag until a rebuild).
  size_t num_node_infos() const { return slots_.size(); }
  // Rebuilds nodes() in `order` (names the map lacks are skipped) and the
  // affinity lists.
  void RebuildLists(const std::vector<std::string>& order);
  // Rebuilds only the affinity lists from nodes().
  void RebuildAffinityLists();
  // Copies every listed NodeInfo into one block, in nodes() order, and
  // lists the copies instead. A filter or score pass walks nodes() in
  // order: NodeInfos allocated one by one as the cache saw their nodes and
  // pods lie all over the heap, and at tens of thousands of nodes each
  // one's first touch is a cache and TLB miss that prefetching cannot hide;
  // laid out in walking order, the hardware streams them. NodeInfoPtrs held
  // from before keep their objects (they are copies, not moves). When no
  // one but this snapshot points into the last block and nodes() still
  // lists it in order, the replaced NodeInfos are copied into their places
  // in it instead: no second block at the peak, and only the nodes that
  // changed are copied.
  void Compact();
  // Whether enough of nodes() was replaced since the last Compact (or was
  // never compacted) for another to pay: a quarter of a large list. Small
  // lists stay in cache anyway.
  bool ShouldCompact() const;
  // Below this many nodes the NodeInfos of a pass fit in the core's own
  // caches: a snapshot is never compacted.
  static constexpr size_t kMinCompactNodes = 2048;

  // Which version of the cache's node order nodes() follows, so a node that
  // left and rejoined (or changed zone) between cycles is relisted in place.
  uint64_t node_order_version() const { return node_order_version_; }
  void set_node_order_version(uint64_t v) { node_order_version_ = v; }

 private:
  // Where a NodeInfo sits, so a replacement is swapped in place instead of
  // rebuilding lists of thousands of nodes.
  struct Slot {
    NodeInfoPtr info;
    int32_t pos = -1;  // in nodes_; -1 when not listed
    int32_t affinity_pos = -1;
    int32_t anti_affinity_pos = -1;
  };
  // Puts `info` (the NodeInfo of `slot`) in `list` if `member`, else takes
  // the slot's entry out by swapping the last one in; `pos` is the slot's
  // position field for that list.
  void PlaceInList(std::vector<NodeInfoPtr>& list, int32_t Slot::*pos,
                   Slot& slot, const NodeInfoPtr& info, bool member);
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };
  template <typename V>
  using StringMap =
      std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

  void CountPvcs(const NodeInfo& info, int delta);
  // Compact's copy into block_ itself; false (nothing done) when it may
  // not.
  bool CompactInPlace();
  // Lists `copy` at nodes_[i] in place of what was there, in its slot and
  // the affinity lists too.
  void Relist(size_t i, NodeInfoPtr copy);
  // Records that the NodeInfo at `position` of nodes_ was replaced.
  void LogChange(int32_t position);
  // Records that nodes_ was rebuilt: positions may name other nodes.
  void Relaid();

  std::vector<NodeInfoPtr> nodes_;
  std::vector<int64_t> generations_;  // parallel to nodes_
  bool generations_unique_ = false;
  std::vector<NodeInfoPtr> with_affinity_;
  std::vector<NodeInfoPtr> with_required_anti_affinity_;
  StringMap<Slot> slots_;
  // PVC key -> how many NodeInfos of the map use it (kube's usedPVCSet,
  // counted so it can be kept exact without a rescan).
  StringMap<int> pvc_users_;
  int64_t generation_ = 0;
  std::shared_ptr<PodCountKeys> pod_count_keys_;
  uint64_t node_order_version_ = 0;
  // NodeInfos upserted since the last Compact.
  size_t upserted_since_compact_ = 0;
  // Positions replaced by Upsert, oldest first; changed_positions_[0] was
  // change number changes_base_. Trimmed from the front when long.
  std::vector<int32_t> changed_positions_;
  uint64_t changes_base_ = 0;
  uint64_t layout_version_ = 0;
  mutable NodeCountIndex node_counts_;
  // The block the last Compact or ResetInBlock laid nodes() out in.
  std::shared_ptr<std::vector<NodeInfo>> block_;
};

}  // namespace ksched::framework
