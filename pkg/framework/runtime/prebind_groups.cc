#include "pkg/framework/runtime/prebind_groups.h"

#include <utility>

namespace ksched::framework {

std::vector<std::vector<PreBindPlugin*>> PreBindPluginGroups(
    const std::vector<PreBindPlugin*>& plugins, const PluginNames& skipped,
    const PluginNames& parallel) {
  std::vector<std::vector<PreBindPlugin*>> groups;
  std::vector<PreBindPlugin*> together;
  for (PreBindPlugin* pl : plugins) {
    const bool skip = skipped.contains(pl->Name());
    // A skipped plugin that allowed parallel runs does not split its
    // neighbours; a skipped one that did not, does.
    if (parallel.contains(pl->Name())) {
      if (!skip) together.push_back(pl);
      continue;
    }
    if (!together.empty()) groups.push_back(std::exchange(together, {}));
    if (!skip) groups.push_back({pl});
  }
  if (!together.empty()) groups.push_back(std::move(together));
  return groups;
}

}  // namespace ksched::framework
