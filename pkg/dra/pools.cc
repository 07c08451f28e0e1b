#include "pkg/dra/pools.h"

#include <algorithm>
#include <atomic>
#include <span>
#include <utility>

namespace ksched::dra {
namespace pools_detail {
namespace {

// Which of a pool's gathered slices the node works with.
struct Gathered {
  uint32_t pool;
  uint32_t slice;
};

// The first device name two of the slices share, if any.
std::optional<std::string_view> DuplicateDeviceName(
    const SliceIndex& index, const std::vector<uint32_t>& slices) {
  if (slices.size() == 1) {
    // The common shape; the index knows.
    if (!index.slice(slices[0]).duplicate_device_names) return std::nullopt;
  }
  size_t total = 0;
  for (uint32_t s : slices) total += index.slice(s).slice->spec.devices.size();
  if (total < 2) return std::nullopt;
  std::vector<std::string_view> names;
  names.reserve(total);
  for (uint32_t s : slices) {
    for (const api::Device& d : index.slice(s).slice->spec.devices) {
      names.push_back(d.name);
    }
  }
  std::vector<std::string_view> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) {
    return std::nullopt;
  }
  // Report the first repeat in listing order, as a set-based scan would.
  for (size_t i = 1; i < names.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (names[j] == names[i]) return names[i];
    }
  }
  return std::nullopt;
}

const api::CounterSet* FindCounterSet(const Pool& pool, std::string_view name) {
  for (const api::CounterSet* set : pool.counter_sets) {
    if (set->name == name) return set;
  }
  return nullptr;
}

// Every counter a device of these slices consumes must exist.
util::Status ValidateCounterConsumption(const SliceIndex& index,
                                        const Pool& pool,
                                        const std::vector<uint32_t>& slices) {
  for (uint32_t s : slices) {
    for (const api::Device& d : index.slice(s).slice->spec.devices) {
      for (const api::DeviceCounterConsumption& c : d.consumes_counters) {
        const api::CounterSet* set = FindCounterSet(pool, c.counter_set);
        if (set == nullptr) {
          return util::Error("counter set " + c.counter_set + " not found");
        }
        for (const auto& [name, counter] : c.counters) {
          if (!set->counters.Contains(name)) {
            return util::Error("counter " + name +
                               " not found in counter set " + set->name);
          }
        }
      }
    }
  }
  return {};
}

// The pool's counters as arrays (it is valid: every counter a device
// consumes exists).
std::shared_ptr<const PoolCounters> FlattenCounters(const SliceIndex& index,
                                                    const Pool& pool) {
  auto out = std::make_shared<PoolCounters>();
  for (const api::CounterSet* set : pool.counter_sets) {
    for (const auto& [name, counter] : set->counters) {
      out->names.push_back({set->name, name});
      out->offered.push_back(counter.value);
    }
  }
  for (const std::vector<uint32_t>* slices :
       {&pool.slices, &pool.slices_not_targeting_node}) {
    for (uint32_t s : *slices) {
      out->slices.push_back({s, static_cast<uint32_t>(out->row_begin.size())});
      for (const api::Device& d : index.slice(s).slice->spec.devices) {
        out->row_begin.push_back(static_cast<uint32_t>(out->uses.size()));
        for (const api::DeviceCounterConsumption& c : d.consumes_counters) {
          for (const auto& [name, counter] : c.counters) {
            const int k = out->Find(c.counter_set, name);
            if (k < 0) continue;
            out->uses.push_back({static_cast<uint32_t>(k), counter.value});
          }
        }
      }
    }
  }
  out->row_begin.push_back(static_cast<uint32_t>(out->uses.size()));
  return out;
}

void MarkInvalid(Pool& pool, std::string reason) {
  pool.invalid = true;
  pool.invalid_reason = std::move(reason);
  pool.slices.clear();
  pool.counter_sets.clear();
  pool.slices_not_targeting_node.clear();
}

// Kubernetes' buildPool: `gathered` are the slices for this node, `all` the
// pool's slices of that generation when some were not for this node
// (empty otherwise).
Pool BuildPool(const SliceIndex& index, uint32_t id,
               const std::vector<uint32_t>& gathered,
               const std::vector<uint32_t>& all, bool partitionable) {
  Pool pool;
  pool.id = id;
  const api::ResourceSliceSpec& first = index.slice(gathered[0]).slice->spec;
  pool.driver = first.driver;
  pool.name = first.pool.name;
  std::vector<uint32_t> counter_slices;
  if (partitionable) {
    for (uint32_t s : gathered) {
      if (index.slice(s).slice->spec.shared_counters.empty()) {
        pool.slices.push_back(s);
      } else {
        counter_slices.push_back(s);
      }
    }
  } else {
    pool.slices = gathered;
  }
  if (auto dup = DuplicateDeviceName(index, pool.slices)) {
    MarkInvalid(pool, "duplicate device name " + std::string(*dup));
    return pool;
  }
  if (!partitionable) return pool;

  for (uint32_t s : counter_slices) {
    for (const api::CounterSet& set :
         index.slice(s).slice->spec.shared_counters) {
      if (FindCounterSet(pool, set.name) != nullptr) {
        MarkInvalid(pool, "duplicate counter set name " + set.name);
        return pool;
      }
      pool.counter_sets.push_back(&set);
    }
  }
  if (auto valid = ValidateCounterConsumption(index, pool, gathered); !valid) {
    MarkInvalid(pool, valid.error().message());
    return pool;
  }
  if (!all.empty() && all.size() != gathered.size()) {
    for (uint32_t s : all) {
      if (std::find(gathered.begin(), gathered.end(), s) == gathered.end()) {
        pool.slices_not_targeting_node.push_back(s);
      }
    }
    if (auto valid = ValidateCounterConsumption(index, pool,
                                                pool.slices_not_targeting_node);
        !valid) {
      MarkInvalid(pool, valid.error().message());
      return pool;
    }
  }
  if (!pool.counter_sets.empty() && !index.PoolNameShared(id)) {
    pool.counters = FlattenCounters(index, pool);
  }
  return pool;
}

// Whether the node sees the slice (Kubernetes' per-slice part of
// GatherPools).
util::Result<bool> SliceSelectsNode(const SliceIndex::Slice& entry,
                                    const api::Node& node, bool partitionable) {
  const api::ResourceSliceSpec& spec = entry.slice->spec;
  if (!partitionable && (spec.per_device_node_selection.has_value() ||
                         !spec.shared_counters.empty())) {
    return false;
  }
  // Counter sets belong to the whole pool, whichever node asks.
  if (!spec.shared_counters.empty()) return true;
  bool has_node_name = spec.node_name.has_value() && !spec.node_name->empty();
  bool all_nodes = spec.all_nodes.value_or(false);
  if (has_node_name || all_nodes || spec.node_selector.has_value()) {
    auto match = NodeMatches(node, spec.node_name, spec.all_nodes,
                             entry.node_selector.get());
    if (!match) {
      return match.error().Wrap("failed to perform node selection for slice " +
                                entry.slice->metadata.name);
    }
    return *match;
  }
  if (spec.per_device_node_selection.value_or(false)) {
    for (size_t d = 0; d < spec.devices.size(); ++d) {
      const api::Device& device = spec.devices[d];
      const api::CompiledNodeSelector* selector =
          entry.device_node_selectors.empty()
              ? nullptr
              : entry.device_node_selectors[d].get();
      auto match =
          NodeMatches(node, device.node_name, device.all_nodes, selector);
      if (!match) {
        return match.error().Wrap(
            "failed to perform node selection for device " + device.name +
            " in slice " + entry.slice->metadata.name);
      }
      if (*match) return true;
    }
    return false;
  }
  // A shape this version does not know: its devices are not for us.
  return false;
}

}  // namespace
}  // namespace pools_detail
using namespace pools_detail;

util::Result<bool> NodeMatches(const api::Node& node,
                               const std::optional<std::string>& node_name,
                               const std::optional<bool>& all_nodes,
                               const api::CompiledNodeSelector* selector) {
  if (node_name.has_value() && !node_name->empty()) {
    return node.metadata.name == *node_name;
  }
  if (all_nodes.value_or(false)) return true;
  if (selector != nullptr) {
    if (!selector->parse_error().empty()) {
      return util::Error("failed to parse node selector: " +
                         selector->parse_error());
    }
    return selector->Matches(node);
  }
  return false;
}

std::span<const PoolCounters::Use> PoolCounters::UsesOf(uint32_t slice,
                                                        uint32_t device) const {
  for (const SliceRows& rows : slices) {
    if (rows.slice != slice) continue;
    const uint32_t row = rows.first_row + device;
    return std::span<const Use>(uses.data() + row_begin[row],
                                row_begin[row + 1] - row_begin[row]);
  }
  return {};
}

int PoolCounters::Find(std::string_view set, std::string_view counter) const {
  for (size_t k = 0; k < names.size(); ++k) {
    if (names[k].set == set && names[k].counter == counter) {
      return static_cast<int>(k);
    }
  }
  return -1;
}

bool HasBindingConditions(const SliceIndex& index, const Pool& pool) {
  for (uint32_t s : pool.slices) {
    for (const api::Device& device : index.slice(s).slice->spec.devices) {
      if (!device.binding_conditions.empty()) return true;
    }
  }
  return false;
}

namespace pools_detail {
namespace {

// Adds what one pool's slices for the node make of it (the newest
// generation among them; the whole pool looked at when some are missing);
// nothing for a pool a newer generation replaces.
void AddPool(const SliceIndex& index, uint32_t pool_id,
             std::span<const Gathered> of_pool, bool partitionable,
             std::vector<Pool>& pools) {
  int64_t generation =
      index.slice(of_pool.front().slice).slice->spec.pool.generation;
  for (const Gathered& g : of_pool) {
    generation =
        std::max(generation, index.slice(g.slice).slice->spec.pool.generation);
  }
  std::vector<uint32_t> current;
  for (const Gathered& g : of_pool) {
    if (index.slice(g.slice).slice->spec.pool.generation == generation) {
      current.push_back(g.slice);
    }
  }
  const api::ResourcePool& spec_pool = index.slice(current[0]).slice->spec.pool;
  if (static_cast<int64_t>(current.size()) == spec_pool.resource_slice_count) {
    pools.push_back(BuildPool(index, pool_id, current, {}, partitionable));
    return;
  }
  // Some slices are missing for this node: look at the whole pool. A
  // newer generation elsewhere makes this one obsolete.
  std::vector<uint32_t> all;
  for (uint32_t s : index.PoolSlices(pool_id)) {
    int64_t g = index.slice(s).slice->spec.pool.generation;
    if (g > generation) return;
    if (g == generation) all.push_back(s);
  }
  if (static_cast<int64_t>(all.size()) != spec_pool.resource_slice_count) {
    Pool pool;
    pool.id = pool_id;
    pool.driver = index.slice(current[0]).slice->spec.driver;
    pool.name = spec_pool.name;
    pool.incomplete = true;
    pools.push_back(std::move(pool));
    return;
  }
  pools.push_back(BuildPool(index, pool_id, current, all, partitionable));
}

// Whether a pool matters to a node that sees only its counter slices (no
// device of it is for the node). Such a pool offers no device; it counts
// only when incomplete or invalid (an All request then fails, and a node
// without room says invalid pools were met). The answer is the same for
// every such node, so the index keeps it.
bool CounterOnlyPoolMatters(const SliceIndex& index, uint32_t pool_id);

// The pools with counter slices that matter to a node none of whose
// devices they have, in pool order; worked out once per index.
const std::vector<uint32_t>& MatteringCounterOnlyPools(
    const SliceIndex& index) {
  return index.PoolList([&] {
    std::vector<uint32_t> out;
    for (uint32_t s : index.CounterSlices()) {
      const uint32_t pool = index.slice(s).pool;
      if ((out.empty() || out.back() != pool) &&
          CounterOnlyPoolMatters(index, pool)) {
        out.push_back(pool);
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  });
}

bool CounterOnlyPoolMatters(const SliceIndex& index, uint32_t pool_id) {
  std::atomic<int8_t>& memo = index.PoolMemo(pool_id);
  const int8_t known = memo.load(std::memory_order_acquire);
  if (known != 0) return known == 2;
  std::vector<Gathered> counters;
  for (uint32_t s : index.PoolSlices(pool_id)) {
    if (!index.slice(s).slice->spec.shared_counters.empty()) {
      counters.push_back({pool_id, s});
    }
  }
  bool matters = false;
  if (!counters.empty()) {
    std::vector<Pool> built;
    AddPool(index, pool_id, counters, /*partitionable=*/true, built);
    matters = !built.empty() && (built[0].incomplete || built[0].invalid);
  }
  memo.store(matters ? 2 : 1, std::memory_order_release);
  return matters;
}

}  // namespace
}  // namespace pools_detail

util::Result<std::vector<Pool>> GatherPools(const SliceIndex& index,
                                            const api::Node& node,
                                            bool partitionable_devices) {
  // The node's own slices and the cluster-wide ones that select it.
  std::span<const uint32_t> own = index.SlicesOnNode(node.metadata.name);
  std::span<const uint32_t> wide = index.ClusterWideSlices();
  std::vector<Gathered> gathered;
  gathered.reserve(own.size() + wide.size());
  for (uint32_t s : own) gathered.push_back({index.slice(s).pool, s});
  // Counter slices belong to their whole pool, whatever node asks: those
  // of the pools with devices for this node, and those of pools without
  // any that matter all the same (kept by the index, so a node does not
  // look at every other node's counter slices).
  for (uint32_t s : wide) {
    auto match = SliceSelectsNode(index.slice(s), node, partitionable_devices);
    if (!match) return match.error();
    if (*match) gathered.push_back({index.slice(s).pool, s});
  }
  if (partitionable_devices) {
    std::vector<uint32_t> with_devices;
    with_devices.reserve(gathered.size());
    for (const Gathered& g : gathered) with_devices.push_back(g.pool);
    std::sort(with_devices.begin(), with_devices.end());
    with_devices.erase(std::unique(with_devices.begin(), with_devices.end()),
                       with_devices.end());
    auto add_counter_slices = [&](uint32_t pool) {
      for (uint32_t s : index.PoolSlices(pool)) {
        if (!index.slice(s).slice->spec.shared_counters.empty()) {
          gathered.push_back({pool, s});
        }
      }
    };
    for (uint32_t pool : with_devices) add_counter_slices(pool);
    for (uint32_t pool : MatteringCounterOnlyPools(index)) {
      if (!std::binary_search(with_devices.begin(), with_devices.end(), pool)) {
        add_counter_slices(pool);
      }
    }
  }
  std::sort(gathered.begin(), gathered.end(),
            [](const Gathered& a, const Gathered& b) {
              return a.pool != b.pool ? a.pool < b.pool : a.slice < b.slice;
            });

  std::vector<Pool> pools;
  pools.reserve(gathered.size());
  for (size_t begin = 0; begin < gathered.size();) {
    size_t end = begin;
    const uint32_t pool_id = gathered[begin].pool;
    while (end < gathered.size() && gathered[end].pool == pool_id) ++end;
    AddPool(index, pool_id,
            std::span<const Gathered>(gathered.data() + begin, end - begin),
            partitionable_devices, pools);
    begin = end;
  }
  // Devices with binding conditions make a pod wait in PreBind, so pools
  // that have any are tried after all others (in the same order).
  std::stable_partition(pools.begin(), pools.end(), [&](const Pool& pool) {
    return !HasBindingConditions(index, pool);
  });
  return pools;
}

util::Result<NodePools> PoolsForNode(const SliceIndex& index,
                                     const api::Node& node,
                                     bool partitionable_devices) {
  return PoolsForNode(index, node, node.metadata.name, partitionable_devices);
}

util::Result<NodePools> PoolsForNode(const SliceIndex& index,
                                     const api::Node& node,
                                     std::string_view node_name,
                                     bool partitionable_devices) {
  auto gather = [&] {
    auto pools = GatherPools(index, node, partitionable_devices);
    return std::make_shared<const std::vector<Pool>>(
        pools ? std::move(*pools) : std::vector<Pool>{});
  };
  if (!index.ClusterWideSlices().empty()) {
    auto pools = GatherPools(index, node, partitionable_devices);
    if (!pools) return pools.error();
    return NodePools(
        std::make_shared<const std::vector<Pool>>(std::move(*pools)));
  }
  // Without cluster-wide device slices nothing can fail and the node's
  // name is all that matters. An index serves one allocator
  // configuration; one asking with the other flag (tests) gathers afresh.
  // The pools lie in the kept object itself: every GPU node of every
  // cycle reads them, and a further pointer to follow was a further cache
  // miss.
  struct Kept {
    bool partitionable;
    std::vector<Pool> pools;
  };
  // A node without slices of its own sees what every such node sees (the
  // counter-only pools that matter, if any), so the index keeps one answer
  // for all of them, where a GPU cluster has thousands of CPU-only nodes.
  const auto* kept =
      static_cast<const Kept*>(index.NodeMemo(node_name).GetOrCompute([&] {
        auto pools = GatherPools(index, node, partitionable_devices);
        return std::static_pointer_cast<const void>(
            std::make_shared<const Kept>(
                Kept{partitionable_devices,
                     pools ? std::move(*pools) : std::vector<Pool>{}}));
      }));
  if (kept->partitionable != partitionable_devices) return NodePools(gather());
  return NodePools(&kept->pools);
}

}  // namespace ksched::dra
