// NodeTree: the cache's nodes grouped by zone (kube-scheduler's nodeTree).
// Snapshots list nodes in List() order, which takes one node from each zone
// in turn, so filtering a prefix of the list (percentageOfNodesToScore)
// still spreads over the zones.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pkg/api/node.h"
#include "pkg/util/result.h"

namespace ksched::cache {

// The zone key of a node: region and zone from the topology.kubernetes.io
// labels (falling back to the deprecated failure-domain.beta ones), joined
// so that "a"+"bc" and "ab"+"c" never collide; "" when both are unset.
std::string ZoneKey(const api::Node& node);

class NodeTree {
 public:
  // Adding a node already in its zone is a no-op.
  void AddNode(const api::Node& node);
  // Errors when the node is not in the zone its labels name.
  util::Result<void> RemoveNode(const api::Node& node);
  // Moves the node when its zone changed; with an unchanged zone the node is
  // assumed to be in the tree already (the cache only updates nodes it has).
  void UpdateNode(const api::Node& old_node, const api::Node& new_node);

  // Every node, round-robin over the zones in the order they first
  // appeared: the first node of each zone, then the second of each, ...
  std::vector<std::string> List() const;

  size_t num_nodes() const { return num_nodes_; }
  // Bumped whenever List() may have changed (a node added, removed or moved
  // to another zone).
  uint64_t version() const { return version_; }
  // Zone keys in insertion order, and the nodes of each (for tests).
  const std::vector<std::string>& zones() const { return zones_; }
  const std::unordered_map<std::string, std::vector<std::string>>& tree()
      const {
    return tree_;
  }

 private:
  void RemoveZone(const std::string& zone);

  std::unordered_map<std::string, std::vector<std::string>> tree_;
  // The names in each zone of tree_, so that adding one of 100,000 nodes
  // does not compare it with every node of its zone.
  std::unordered_map<std::string, std::unordered_set<std::string>> members_;
  std::vector<std::string> zones_;
  size_t num_nodes_ = 0;
  uint64_t version_ = 0;
};

}  // namespace ksched::cache
