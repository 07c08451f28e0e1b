#include "pkg/config/ksched_rules.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

namespace ksched::config {
namespace {

// The extension points in the order the v1 type lists them.
std::vector<std::pair<std::string_view, const PluginSet*>> ExtensionPoints(
    const Plugins& p) {
  return {{"preEnqueue", &p.pre_enqueue},
          {"queueSort", &p.queue_sort},
          {"preFilter", &p.pre_filter},
          {"filter", &p.filter},
          {"postFilter", &p.post_filter},
          {"preScore", &p.pre_score},
          {"score", &p.score},
          {"reserve", &p.reserve},
          {"permit", &p.permit},
          {"preBind", &p.pre_bind},
          {"bind", &p.bind},
          {"postBind", &p.post_bind},
          {"multiPoint", &p.multi_point},
          {"placementGenerate", &p.placement_generate},
          {"placementScore", &p.placement_score}};
}

}  // namespace

FieldErrors CheckPluginWeights(const v1::KubeSchedulerConfiguration& config) {
  FieldErrors errs;
  for (size_t i = 0; i < config.profiles.size(); ++i) {
    const auto& plugins = config.profiles[i].plugins;
    if (!plugins) continue;
    FieldPath path = FieldPath("profiles").Index(i).Child("plugins");
    for (const auto& [point, set] : ExtensionPoints(*plugins)) {
      for (size_t j = 0; j < set->enabled.size(); ++j) {
        const std::optional<int32_t>& weight = set->enabled[j].weight;
        if (weight && *weight < 0) {
          errs.push_back(Invalid(
              path.Child(point).Child("enabled").Index(j).Child("weight"),
              GoValue(*weight), "must not be negative"));
        }
      }
    }
  }
  return errs;
}

std::string CheckKnownPlugins(const v1::KubeSchedulerConfiguration& config,
                              const std::vector<std::string>& known) {
  if (known.empty()) return "";
  std::set<std::string, std::less<>> known_set(known.begin(), known.end());
  auto unknown = [&](const FieldPath& path, const std::string& name) {
    std::string list;
    for (const std::string& k : known_set) {
      if (!list.empty()) list += ", ";
      list += k;
    }
    return path.String() + ": unknown plugin " + GoQuote(name) +
           " (known plugins: " + list + ")";
  };
  for (size_t i = 0; i < config.profiles.size(); ++i) {
    const v1::KubeSchedulerProfile& profile = config.profiles[i];
    FieldPath profile_path = FieldPath("profiles").Index(i);
    if (profile.plugins) {
      for (const auto& [point, set] : ExtensionPoints(*profile.plugins)) {
        FieldPath point_path = profile_path.Child("plugins").Child(point);
        for (const auto& [list_name, list] :
             {std::pair{"enabled", &set->enabled},
              std::pair{"disabled", &set->disabled}}) {
          for (size_t j = 0; j < list->size(); ++j) {
            const std::string& name = (*list)[j].name;
            if (name == "*" || known_set.contains(name)) continue;
            return unknown(point_path.Child(list_name).Index(j).Child("name"),
                           name);
          }
        }
      }
    }
    for (size_t j = 0; j < profile.plugin_config.size(); ++j) {
      const std::string& name = profile.plugin_config[j].name;
      if (known_set.contains(name)) continue;
      return unknown(profile_path.Child("pluginConfig").Index(j).Child("name"),
                     name);
    }
  }
  return "";
}

}  // namespace ksched::config
