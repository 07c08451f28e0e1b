// The resource pools one node sees (Kubernetes' GatherPools): the node's
// own slices and the cluster-wide ones, grouped by (driver, pool), the
// newest generation only, each pool marked incomplete (not all of its
// slices published yet) or invalid (duplicate device names, bad counters)
// when it cannot be allocated from.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/api/node_selector.h"
#include "pkg/api/resource.h"
#include "pkg/dra/slice_index.h"
#include "pkg/util/result.h"

namespace ksched::dra {

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

// GatherPools' answer, kept by the index per node name when no slice
// selects nodes by anything but their name (the answer then depends on
// the name alone): every cycle's search on that node shares it.
util::Result<std::shared_ptr<const std::vector<Pool>>> PoolsForNode(
    const SliceIndex& index, const api::Node& node, bool partitionable_devices);

}  // namespace ksched::dra
