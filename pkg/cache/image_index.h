// ImageIndex: for every image name any node reports, its size and how many
// nodes report it (the cache's imageStates), kept up to date node by node
// instead of recomputed over the cluster.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "pkg/api/node.h"
#include "pkg/api/string_map.h"
#include "pkg/framework/node_info.h"

namespace ksched::cache {

class ImageIndex {
 public:
  // Counts the node once for every distinct name in its status.images. The
  // size of a name is the one reported by the first node that added it.
  void AddNode(const api::Node& node);
  // Undoes AddNode; pass the same node object that was added.
  void RemoveNode(const api::Node& node);

  // The node's image states as ImageLocality reads them: one entry per
  // distinct name, with the cluster-wide size and node count as of now.
  api::FlatMap<framework::ImageStateSummary> Summaries(
      const api::Node& node) const;

  // nullptr when no node reports the name.
  const framework::ImageStateSummary* Find(std::string_view name) const;
  size_t size() const { return states_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };
  std::unordered_map<std::string, framework::ImageStateSummary, Hash,
                     std::equal_to<>>
      states_;
};

}  // namespace ksched::cache
