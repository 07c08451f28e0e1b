// The resource pools one node sees (Kubernetes' GatherPools): the node's
// own slices and the cluster-wide ones, grouped by (driver, pool), the
// newest generation only, each pool marked incomplete (not all of its
// slices published yet) or invalid (duplicate device names, bad counters)
// when it cannot be allocated from.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/node_selector.h"
#include "pkg/api/resource.h"
#include "pkg/dra/slice_index.h"
#include "pkg/util/result.h"

namespace ksched::dra {

// A pool's counters as arrays, so a search adds and compares them without
// looking names up (partitionable devices). Counter k is one counter of
// one of the pool's counter sets.
struct PoolCounters {
  struct Name {
    std::string_view set;
    std::string_view counter;
  };
  struct Use {
    uint32_t counter = 0;
    api::Quantity value;
  };
  // Where a device slice's rows start in row_begin.
  struct SliceRows {
    uint32_t slice = 0;  // SliceIndex position
    uint32_t first_row = 0;
  };

  std::vector<Name> names;
  std::vector<api::Quantity> offered;  // what the counter sets offer
  // The pool's device slices: those for the node, then the others.
  std::vector<SliceRows> slices;
  // Row r (one device) uses uses[row_begin[r] .. row_begin[r + 1]).
  std::vector<uint32_t> row_begin;
  std::vector<Use> uses;

  std::span<const Use> UsesOf(uint32_t slice, uint32_t device) const;
  // The counter named so, or -1.
  int Find(std::string_view set, std::string_view counter) const;
};

struct Pool {
  uint32_t id = 0;  // SliceIndex pool position
  std::string_view driver;
  std::string_view name;
  bool incomplete = false;
  bool invalid = false;
  std::string invalid_reason;
  // Slices with devices this node may use, in name order (positions in the
  // SliceIndex).
  std::vector<uint32_t> slices;
  // Partitionable devices only: the pool's counter sets, and its device
  // slices for other nodes (their allocated devices use counters too).
  std::vector<const api::CounterSet*> counter_sets;
  std::vector<uint32_t> slices_not_targeting_node;
  // The counters as arrays, for a valid pool with counter sets whose name
  // no other driver's pool has; null otherwise. Kubernetes keys counters
  // by pool *name*, so pools that share one also share counters: the
  // search keeps those by name.
  std::shared_ptr<const PoolCounters> counters;

  // "<driver>/<pool>", as Kubernetes prints a PoolID.
  std::string String() const {
    return std::string(driver) + "/" + std::string(name);
  }
};

// Whether a slice's (or, with per-device node selection, a device's) node
// fields select `node`. Fails when the node selector did not parse.
util::Result<bool> NodeMatches(const api::Node& node,
                               const std::optional<std::string>& node_name,
                               const std::optional<bool>& all_nodes,
                               const api::CompiledNodeSelector* selector);

// Whether a device of the pool's slices for the node has binding
// conditions.
bool HasBindingConditions(const SliceIndex& index, const Pool& pool);

// The pools `node` sees, sorted by (driver, pool name), those with devices
// that have binding conditions last. Fails (Kubernetes'
// message, without the "gather pool information: " its caller adds) only
// when a node selector does not parse.
util::Result<std::vector<Pool>> GatherPools(const SliceIndex& index,
                                            const api::Node& node,
                                            bool partitionable_devices);

// The pools one node sees: borrowed from the index (valid while it lives)
// or owned.
class NodePools {
 public:
  explicit NodePools(const std::vector<Pool>* kept) : pools_(kept) {}
  explicit NodePools(std::shared_ptr<const std::vector<Pool>> owned)
      : owned_(std::move(owned)), pools_(owned_.get()) {}
  const std::vector<Pool>& operator*() const { return *pools_; }
  const std::vector<Pool>* operator->() const { return pools_; }

 private:
  std::shared_ptr<const std::vector<Pool>> owned_;
  const std::vector<Pool>* pools_ = nullptr;
};

// GatherPools' answer, kept by the index per node name when no slice
// selects nodes by anything but their name (the answer then depends on
// the name alone): every cycle's search on that node shares it. Nodes
// without slices of their own all share one answer.
util::Result<NodePools> PoolsForNode(const SliceIndex& index,
                                     const api::Node& node,
                                     bool partitionable_devices);
// The same, with the node's name read from where the caller keeps it
// (equal to node.metadata.name).
util::Result<NodePools> PoolsForNode(const SliceIndex& index,
                                     const api::Node& node,
                                     std::string_view node_name,
                                     bool partitionable_devices);

}  // namespace ksched::dra
