// Snapshot: the NodeInfos one scheduling cycle sees (the cache's view at
// the start of the cycle), so a cycle never reads a half-applied update.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/framework/node_info.h"

namespace ksched::framework {

class Snapshot {
 public:
  Snapshot() = default;
  // Builds a snapshot from a list of NodeInfos (tests, the simulator); the
  // cache keeps one up to date incrementally instead.
  explicit Snapshot(std::vector<NodeInfoPtr> nodes) { Reset(std::move(nodes)); }

  void Reset(std::vector<NodeInfoPtr> nodes);

  // Every node, in a stable order (the order node filtering walks).
  const std::vector<NodeInfoPtr>& nodes() const { return nodes_; }
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
  size_t size() const { return nodes_.size(); }

  // Whether any pod in the snapshot uses the PVC "namespace/claim".
  bool IsPvcUsedByPods(std::string_view key) const;

  int64_t generation() const { return generation_; }
  void set_generation(int64_t g) { generation_ = g; }

  // Rebuilds the derived lists after NodeInfos changed in place.
  void RebuildIndexes();

 private:
  std::vector<NodeInfoPtr> nodes_;
  std::vector<NodeInfoPtr> with_affinity_;
  std::vector<NodeInfoPtr> with_required_anti_affinity_;
  std::unordered_map<std::string_view, NodeInfoPtr> by_name_;
  int64_t generation_ = 0;
};

}  // namespace ksched::framework
