#include "pkg/config/v1_types.h"

namespace ksched::config::v1 {

std::string_view ArgsKindFor(std::string_view plugin_name) {
  // The args kinds kubescheduler.config.k8s.io/v1 registers in v1.35;
  // kube-scheduler looks them up as "<plugin name>Args".
  static constexpr std::pair<std::string_view, std::string_view> kKinds[] = {
      {"DefaultPreemption", "DefaultPreemptionArgs"},
      {"InterPodAffinity", "InterPodAffinityArgs"},
      {"NodeResourcesFit", "NodeResourcesFitArgs"},
      {"PodTopologySpread", "PodTopologySpreadArgs"},
      {"NodeResourcesBalancedAllocation",
       "NodeResourcesBalancedAllocationArgs"},
      {"VolumeBinding", "VolumeBindingArgs"},
      {"NodeAffinity", "NodeAffinityArgs"},
      {"DynamicResources", "DynamicResourcesArgs"},
      // Not kube-scheduler's own: scheduler-plugins adds it to this group.
      {"Coscheduling", "CoschedulingArgs"},
  };
  for (const auto& [name, kind] : kKinds) {
    if (name == plugin_name) return kind;
  }
  return {};
}

bool IsRegisteredKind(std::string_view kind) {
  if (kind == kKind) return true;
  constexpr std::string_view kSuffix = "Args";
  if (!kind.ends_with(kSuffix)) return false;
  std::string_view plugin = kind.substr(0, kind.size() - kSuffix.size());
  return ArgsKindFor(plugin) == kind;
}

TypedArgs EmptyArgsFor(std::string_view plugin_name) {
  if (plugin_name == "DefaultPreemption") return DefaultPreemptionArgs{};
  if (plugin_name == "InterPodAffinity") return InterPodAffinityArgs{};
  if (plugin_name == "NodeResourcesFit") return NodeResourcesFitArgs{};
  if (plugin_name == "PodTopologySpread") return PodTopologySpreadArgs{};
  if (plugin_name == "NodeResourcesBalancedAllocation") {
    return NodeResourcesBalancedAllocationArgs{};
  }
  if (plugin_name == "VolumeBinding") return VolumeBindingArgs{};
  if (plugin_name == "NodeAffinity") return NodeAffinityArgs{};
  if (plugin_name == "Coscheduling") return CoschedulingArgs{};
  if (plugin_name == "DynamicResources") return DynamicResourcesArgs{};
  return std::monostate{};
}

}  // namespace ksched::config::v1
