// SliceIndex: an immutable snapshot of the cluster's ResourceSlices,
// indexed so the allocator finds the pools one node sees without walking
// every slice (slices by node name, slices any node may see, slices by
// pool), and so a device's CEL view is built once and shared by every
// cycle that evaluates selectors on it.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/api/node_selector.h"
#include "pkg/api/resource.h"
#include "pkg/cel/dra.h"
#include "pkg/dra/device_id.h"
#include "pkg/util/result.h"

namespace ksched::dra {

class SliceIndex {
 public:
  // One slice as the allocator reads it. Positions (`SliceIndex::slice(i)`)
  // follow slices(), so a lower position is an earlier name.
  struct Slice {
    const api::ResourceSlice* slice = nullptr;
    // The pool's position among all (driver, pool name) pairs, sorted.
    uint32_t pool = 0;
    // The position of its first device among all devices of the index.
    uint32_t first_device = 0;
    // spec.devices.size(), and what CountCheck asks of every slice of every
    // node it counts: kept here, beside first_device, because reading them
    // from the slice itself (somewhere on the heap) was a cache miss per
    // GPU node per cycle.
    uint32_t num_devices = 0;
    bool per_device_node_selection = false;  // spec.perDeviceNodeSelection
    bool binding_conditions = false;  // some device has bindingConditions
    // Whether two of its devices share a name (which makes its pool
    // invalid).
    bool duplicate_device_names = false;
    // spec.nodeSelector, compiled; null when the slice has none.
    std::unique_ptr<api::CompiledNodeSelector> node_selector;
    // Each device's own nodeSelector (per-device node selection), compiled;
    // empty when no device has one, else one entry (maybe null) per device.
    std::vector<std::unique_ptr<api::CompiledNodeSelector>>
        device_node_selectors;
    // Node-local, and none of its devices has anything the search checks
    // beyond being free and matching: no taint, no counters, no binding
    // conditions, no sharing, no capacity request policy (CountCheck).
    bool plain = false;
  };

  // A device made ready for CEL, or why it cannot be ("attribute x: parse
  // semantic version: ..."), which Kubernetes reports as the runtime error
  // of the selector that looks at the device.
  struct CelDevice {
    const cel::dra::DeviceActivation* activation = nullptr;
    const std::string* error = nullptr;  // set when activation is null
  };

  explicit SliceIndex(
      std::vector<std::shared_ptr<const api::ResourceSlice>> slices);
  ~SliceIndex();
  SliceIndex(const SliceIndex&) = delete;
  SliceIndex& operator=(const SliceIndex&) = delete;

  // Every slice, ordered by name (slices of equal names keep their order).
  const std::vector<std::shared_ptr<const api::ResourceSlice>>& slices() const {
    return slices_;
  }

  const Slice& slice(uint32_t position) const { return indexed_[position]; }
  size_t num_pools() const { return pool_slices_.size(); }
  size_t num_devices() const { return num_devices_; }

  // Positions, ascending, of the slices that name `node` in spec.nodeName
  // (and have neither shared counters nor per-device node selection).
  std::span<const uint32_t> SlicesOnNode(std::string_view node) const;
  // The nodes named by some slice's spec.nodeName (and listed by
  // SlicesOnNode), in the order first seen: every other node sees only
  // ClusterWideSlices and the counter pools.
  const std::vector<std::string_view>& NodesWithSlices() const {
    return node_names_;
  }
  // Positions, ascending, of every other slice with devices: all-nodes,
  // node-selector and per-device slices (and those of unknown shape). Each
  // node looks at these; a cluster has few of them.
  std::span<const uint32_t> ClusterWideSlices() const { return cluster_wide_; }
  // Positions, ascending, of the slices with shared counters (each belongs
  // to its whole pool, whatever node asks).
  std::span<const uint32_t> CounterSlices() const { return counter_slices_; }
  // Positions, ascending, of every slice of a pool, whatever node it is for.
  std::span<const uint32_t> PoolSlices(uint32_t pool) const {
    return pool_slices_[pool];
  }

  // The ordinals (first_device + index in its slice) of the device `id`:
  // several when slices of one pool repeat it (an older generation still
  // listed), none when no slice has it.
  std::span<const uint32_t> Ordinals(const DeviceId& id) const;

  // One selector's outcome on each device of the index, kept for the
  // index's lifetime: a CEL expression gives the same answer on the same
  // device every time, so cycles after the first look it up. Only
  // successful evaluations are kept (an error ends the attempt anyway).
  struct SelectorResults {
    util::Result<std::shared_ptr<const cel::dra::Selector>> compiled;
    // By device ordinal: 0 not evaluated yet, 1 no match, 2 match.
    std::unique_ptr<std::atomic<int8_t>[]> matches;
  };
  // The results table of `expression`, compiled through `cache` when it is
  // first asked for; null once kMaxSelectorTables expressions have tables
  // (a cluster with more distinct selectors evaluates them uncached).
  const SelectorResults* Selector(const std::string& expression,
                                  cel::dra::SelectorCache& cache) const;
  static constexpr size_t kMaxSelectorTables = 64;

  // A per-pool answer GatherPools keeps for the index's lifetime (0 not
  // known yet, 1 no, 2 yes): whether the pool matters to a node that sees
  // only its counter slices.
  std::atomic<int8_t>& PoolMemo(uint32_t pool) const {
    return pool_memo_[pool];
  }
  // Something GatherPools works out once per node and index, where the
  // answer depends only on the node's own slices. Filter asks for it on
  // every node of every cycle, so once stored it is read with one atomic
  // load: no lock, no reference count.
  class MemoCell {
   public:
    // The stored value, or null before one is.
    const void* Get() const { return value_.load(std::memory_order_acquire); }
    // The stored value, after storing `compute()`'s (a shared_ptr) if none
    // was; the cell keeps it for the index's lifetime.
    template <typename Compute>
    const void* GetOrCompute(const Compute& compute) const {
      if (const void* kept = Get()) return kept;
      std::lock_guard lock(mu_);
      if (owned_ == nullptr) {
        owned_ = compute();
        value_.store(owned_.get(), std::memory_order_release);
      }
      return owned_.get();
    }

   private:
    mutable std::mutex mu_;
    mutable std::shared_ptr<const void> owned_;
    mutable std::atomic<const void*> value_{nullptr};
  };
  // The node's cell: its own beside its own slices, or the one every node
  // without slices of its own shares (they all see the same pools).
  const MemoCell& NodeMemo(std::string_view node) const;
  // Whether another driver has a pool of the same name as this one.
  bool PoolNameShared(uint32_t pool) const { return pool_name_shared_[pool]; }
  // Whether some device has a capacity with a request policy or allows
  // multiple allocations.
  bool capacity_policies() const { return capacity_policies_; }

  // A list of pools GatherPools works out once per index (`compute` runs
  // on the first call, on one thread; later calls return its answer).
  const std::vector<uint32_t>& PoolList(
      const std::function<std::vector<uint32_t>()>& compute) const {
    std::call_once(pool_list_once_, [&] { pool_list_ = compute(); });
    return pool_list_;
  }

  // The CEL view of device `device_index` of the slice at `position`,
  // built on first use (thread-safe) and kept for the index's lifetime.
  CelDevice Cel(uint32_t position, size_t device_index) const;

 private:
  struct DeviceCache;
  std::vector<std::shared_ptr<const api::ResourceSlice>> slices_;
  std::vector<Slice> indexed_;
  struct NodeSlices {
    std::string_view name;
    std::vector<uint32_t> slices;
    MemoCell memo;
  };
  // Nodes with slices of their own, found by name in an open-addressing
  // table: Filter looks a node up on every node of every cycle, and a
  // std::unordered_map lookup costs a division per bucket step.
  const NodeSlices* FindNode(std::string_view name) const;
  std::deque<NodeSlices> nodes_;
  std::vector<std::string_view> node_names_;  // nodes_' names
  struct NodeSlot {
    size_t hash = 0;
    // The name, in node_name_arena_: a hit is confirmed there, among the
    // other names, not in the slice it came from somewhere on the heap.
    std::string_view name;
    const NodeSlices* node = nullptr;  // null: empty
  };
  std::string node_name_arena_;       // every node's name, one after another
  std::vector<NodeSlot> node_slots_;  // a power of two, at most half full
  // Whether some device has a capacity with a request policy or allows
  // multiple allocations (the capacity check then has work to do).
  bool capacity_policies_ = false;
  std::vector<uint32_t> cluster_wide_;
  std::vector<uint32_t> counter_slices_;
  std::vector<std::vector<uint32_t>> pool_slices_;
  std::vector<bool> pool_name_shared_;
  // "<driver>/<pool>/<device>" (views into the slices) -> ordinals.
  struct DeviceKey {
    std::string_view driver, pool, device;
    friend bool operator==(const DeviceKey&, const DeviceKey&) = default;
  };
  struct DeviceKeyHash {
    size_t operator()(const DeviceKey& k) const;
  };
  std::unordered_map<DeviceKey, std::vector<uint32_t>, DeviceKeyHash> ordinals_;
  size_t num_devices_ = 0;
  std::unique_ptr<std::atomic<int8_t>[]> pool_memo_;
  MemoCell no_slices_memo_;
  mutable std::once_flag pool_list_once_;
  mutable std::vector<uint32_t> pool_list_;
  std::unique_ptr<DeviceCache[]> devices_;
  mutable std::mutex selectors_mu_;
  mutable std::unordered_map<std::string, std::unique_ptr<SelectorResults>>
      selectors_;
};

}  // namespace ksched::dra
