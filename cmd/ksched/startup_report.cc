#include "cmd/ksched/startup_report.h"

#include <algorithm>
#include <set>

#include "pkg/config/config.h"
#include "pkg/plugins/registry.h"

namespace ksched::cmd {

util::Result<config::KubeSchedulerConfiguration> LoadConfiguration(
    const std::string& path, const framework::Registry& registry,
    const config::FeatureGates& gates) {
  if (path.empty()) return config::DefaultConfig(gates);
  config::LoadOptions options;
  options.known_plugins = registry.Names();
  options.gates = gates;
  return config::LoadConfigFile(path, options);
}

std::vector<std::string> StartupNotes(
    const config::KubeSchedulerConfiguration& cfg) {
  std::vector<std::string> notes;
  for (const std::string& field : cfg.not_acted_on) {
    notes.push_back("configuration field " + field +
                    " is accepted but has no effect in ksched");
  }
  const auto& unimplemented = plugins::UnimplementedPluginNames();
  std::set<std::string> enabled;
  for (const config::Profile& p : cfg.profiles) {
    const config::PluginSet* sets[] = {
        &p.plugins.pre_enqueue, &p.plugins.queue_sort,  &p.plugins.pre_filter,
        &p.plugins.filter,      &p.plugins.post_filter, &p.plugins.pre_score,
        &p.plugins.score,       &p.plugins.reserve,     &p.plugins.permit,
        &p.plugins.pre_bind,    &p.plugins.bind,        &p.plugins.post_bind,
        &p.plugins.multi_point};
    for (const config::PluginSet* s : sets) {
      for (const config::Plugin& plugin : s->enabled) {
        if (std::find(unimplemented.begin(), unimplemented.end(),
                      plugin.name) != unimplemented.end()) {
          enabled.insert(plugin.name);
        }
      }
    }
  }
  if (!enabled.empty()) {
    std::string list;
    for (const std::string& name : enabled) {
      if (!list.empty()) list += ", ";
      list += name;
    }
    notes.push_back(
        "plugins accepted but not implemented yet (they have no "
        "effect): " +
        list);
  }
  return notes;
}

}  // namespace ksched::cmd
