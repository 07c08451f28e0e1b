#include "pkg/config/default_plugins.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace ksched::config {

Plugins DefaultPlugins(const FeatureGates& gates) {
  Plugins plugins;
  plugins.multi_point.enabled = {
      {"SchedulingGates", std::nullopt},
      {"PrioritySort", std::nullopt},
      {"NodeUnschedulable", std::nullopt},
      {"NodeName", std::nullopt},
      {"TaintToleration", 3},
      {"NodeAffinity", 2},
      {"NodePorts", std::nullopt},
      {"NodeResourcesFit", 1},
      {"VolumeRestrictions", std::nullopt},
      {"NodeVolumeLimits", std::nullopt},
      {"VolumeBinding", std::nullopt},
      {"VolumeZone", std::nullopt},
      {"PodTopologySpread", 2},
      {"InterPodAffinity", 2},
      {"DefaultPreemption", std::nullopt},
      {"NodeResourcesBalancedAllocation", 1},
      {"ImageLocality", 1},
      {"DefaultBinder", std::nullopt},
  };
  std::vector<Plugin>& enabled = plugins.multi_point.enabled;
  if (gates.Enabled(Feature::kNodeDeclaredFeatures)) {
    enabled.push_back({"NodeDeclaredFeatures", std::nullopt});
  }
  if (gates.Enabled(Feature::kDynamicResourceAllocation)) {
    auto preemption = std::find_if(
        enabled.begin(), enabled.end(),
        [](const Plugin& p) { return p.name == "DefaultPreemption"; });
    enabled.insert(preemption, {"DynamicResources", 2});
  }
  if (gates.Enabled(Feature::kGangScheduling)) {
    enabled.push_back({"GangScheduling", std::nullopt});
  }
  return plugins;
}

PluginSet MergePluginSet(const PluginSet& defaults, const PluginSet& custom) {
  PluginSet merged;
  std::set<std::string, std::less<>> disabled;
  // Disabled entries keep only their names: a weight means nothing there.
  for (const Plugin& p : custom.disabled) {
    merged.disabled.push_back({p.name, std::nullopt});
    disabled.insert(p.name);
  }
  for (const Plugin& p : defaults.disabled) {
    merged.disabled.push_back({p.name, std::nullopt});
    disabled.insert(p.name);
  }

  // By name, the last custom entry wins (a Go map filled in order).
  std::map<std::string, size_t, std::less<>> custom_index;
  for (size_t i = 0; i < custom.enabled.size(); ++i) {
    custom_index[custom.enabled[i].name] = i;
  }
  std::set<size_t> replaced;
  if (!disabled.contains("*")) {
    for (const Plugin& p : defaults.enabled) {
      if (disabled.contains(p.name)) continue;
      if (auto it = custom_index.find(p.name); it != custom_index.end()) {
        // Reconfigured default: keep its place, take the custom settings.
        merged.enabled.push_back(custom.enabled[it->second]);
        replaced.insert(it->second);
      } else {
        merged.enabled.push_back(p);
      }
    }
  }
  // Duplicated custom plugins are kept; building the framework rejects them.
  for (size_t i = 0; i < custom.enabled.size(); ++i) {
    if (!replaced.contains(i)) merged.enabled.push_back(custom.enabled[i]);
  }
  return merged;
}

Plugins MergePlugins(Plugins defaults, const std::optional<Plugins>& custom) {
  if (!custom) return defaults;
  Plugins& d = defaults;
  const Plugins& c = *custom;
  d.multi_point = MergePluginSet(d.multi_point, c.multi_point);
  d.pre_enqueue = MergePluginSet(d.pre_enqueue, c.pre_enqueue);
  d.queue_sort = MergePluginSet(d.queue_sort, c.queue_sort);
  d.pre_filter = MergePluginSet(d.pre_filter, c.pre_filter);
  d.filter = MergePluginSet(d.filter, c.filter);
  d.post_filter = MergePluginSet(d.post_filter, c.post_filter);
  d.pre_score = MergePluginSet(d.pre_score, c.pre_score);
  d.score = MergePluginSet(d.score, c.score);
  d.reserve = MergePluginSet(d.reserve, c.reserve);
  d.permit = MergePluginSet(d.permit, c.permit);
  d.pre_bind = MergePluginSet(d.pre_bind, c.pre_bind);
  d.bind = MergePluginSet(d.bind, c.bind);
  d.post_bind = MergePluginSet(d.post_bind, c.post_bind);
  d.placement_generate =
      MergePluginSet(d.placement_generate, c.placement_generate);
  d.placement_score = MergePluginSet(d.placement_score, c.placement_score);
  return defaults;
}

}  // namespace ksched::config
