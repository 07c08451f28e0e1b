// calPreFilterState's per-node count, shared by the full count of a cycle
// and the incremental one (incremental_counts.h).
//
// Internal to the plugin.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "pkg/framework/node_info.h"
#include "pkg/plugins/podtopologyspread/common.h"

namespace ksched::plugins::podtopologyspread {

// Per node and constraint ([node * constraints + constraint]): the node's
// topology value, its hash and the matching pods on the node, or -1 when
// the node does not count for the constraint. Filled in parallel, one node
// per call, so the per-node work allocates nothing.
struct NodeCounts {
  NodeCounts(size_t nodes, size_t constraints)
      : value(nodes * constraints),
        hash(nodes * constraints),
        count(nodes * constraints, -1) {}
  std::vector<std::string_view> value;
  std::vector<uint64_t> hash;
  std::vector<int32_t> count;
};

// Counts `info` into `out` at [base, base + constraints): a node counts
// when it has every topology key, and for a constraint when it passes its
// inclusion policies. The values point into the node's labels.
void CountNode(const framework::NodeInfo& info, const Constraints& cs,
               const SelectorGroups& groups, const InclusionContext& inclusion,
               size_t base, NodeCounts& out);

}  // namespace ksched::plugins::podtopologyspread
