#include "pkg/framework/image_states.h"

#include <string>
#include <unordered_map>

namespace ksched::framework {

void SetImageStates(const std::vector<NodeInfoPtr>& nodes) {
  std::unordered_map<std::string, int> nodes_with;
  for (const NodeInfoPtr& info : nodes) {
    if (info->node() == nullptr) continue;
    // A node listing a name twice still counts once.
    api::FlatMap<bool> seen;
    for (const api::ContainerImage& image : info->node()->status.images) {
      for (const std::string& name : image.names) {
        if (seen.Contains(name)) continue;
        seen.Set(name, true);
        ++nodes_with[name];
      }
    }
  }
  for (const NodeInfoPtr& info : nodes) {
    api::FlatMap<ImageStateSummary> states;
    if (info->node() != nullptr) {
      for (const api::ContainerImage& image : info->node()->status.images) {
        for (const std::string& name : image.names) {
          // The first entry naming an image gives its size, as in the cache.
          if (states.Contains(name)) continue;
          states.Set(name, {image.size_bytes, nodes_with[name]});
        }
      }
    }
    info->set_image_states(std::move(states));
  }
}

}  // namespace ksched::framework
