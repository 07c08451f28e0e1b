#include "pkg/config/types.h"

namespace ksched::config {

const PluginArgs* Profile::ArgsFor(std::string_view plugin) const {
  // Validation has ruled out two entries for one plugin.
  for (const PluginConfig& pc : plugin_config) {
    if (pc.name == plugin) return pc.args.get();
  }
  return nullptr;
}

}  // namespace ksched::config
