#include "pkg/plugins/registry.h"

#include <cstdlib>
#include <iostream>

#include "pkg/plugins/coscheduling/coscheduling.h"
#include "pkg/plugins/defaultbinder/default_binder.h"
#include "pkg/plugins/defaultpreemption/default_preemption.h"
#include "pkg/plugins/dynamicresources/dynamic_resources.h"
#include "pkg/plugins/imagelocality/image_locality.h"
#include "pkg/plugins/interpodaffinity/plugin.h"
#include "pkg/plugins/names.h"
#include "pkg/plugins/nodeaffinity/node_affinity.h"
#include "pkg/plugins/nodedeclaredfeatures/node_declared_features.h"
#include "pkg/plugins/nodename/node_name.h"
#include "pkg/plugins/nodeports/node_ports.h"
#include "pkg/plugins/noderesources/balanced_allocation.h"
#include "pkg/plugins/noderesources/fit.h"
#include "pkg/plugins/nodeunschedulable/node_unschedulable.h"
#include "pkg/plugins/nodevolumelimits/node_volume_limits.h"
#include "pkg/plugins/podtopologyspread/plugin.h"
#include "pkg/plugins/queuesort/priority_sort.h"
#include "pkg/plugins/schedulinggates/scheduling_gates.h"
#include "pkg/plugins/tainttoleration/taint_toleration.h"
#include "pkg/plugins/unimplemented/unimplemented.h"
#include "pkg/plugins/volumebinding/volume_binding.h"
#include "pkg/plugins/volumerestrictions/volume_restrictions.h"
#include "pkg/plugins/volumezone/volume_zone.h"

namespace ksched::plugins {

const std::vector<std::string>& UnimplementedPluginNames() {
  // Alpha in v1.35; the default profile has it only when its gate is
  // turned on.
  static const std::vector<std::string> kNames = {
      std::string(names::kGangScheduling),
  };
  return kNames;
}

framework::Registry NewInTreeRegistry() {
  framework::Registry r;
  auto add = [&r](std::string_view name, framework::PluginFactory factory) {
    auto added = r.Register(std::string(name), std::move(factory));
    if (!added.ok()) {
      // Two plugins with one name is a programming error caught by tests.
      std::cerr << "ksched: " << added.error().message() << "\n";
      std::abort();
    }
  };
  add(names::kPrioritySort, NewPrioritySort);
  add(names::kSchedulingGates, NewSchedulingGates);
  add(names::kNodeUnschedulable, NewNodeUnschedulable);
  add(names::kNodeName, NewNodeName);
  add(names::kTaintToleration, NewTaintToleration);
  add(names::kNodeAffinity, NewNodeAffinity);
  add(names::kNodePorts, NewNodePorts);
  add(names::kNodeResourcesFit, NewNodeResourcesFit);
  add(names::kNodeResourcesBalancedAllocation,
      NewNodeResourcesBalancedAllocation);
  add(names::kImageLocality, NewImageLocality);
  add(names::kPodTopologySpread, NewPodTopologySpread);
  add(names::kInterPodAffinity, NewInterPodAffinity);
  add(names::kVolumeRestrictions, NewVolumeRestrictions);
  add(names::kNodeVolumeLimits, NewNodeVolumeLimits);
  add(names::kVolumeBinding, NewVolumeBinding);
  add(names::kVolumeZone, NewVolumeZone);
  add(names::kDefaultPreemption, NewDefaultPreemption);
  add(names::kDynamicResources, NewDynamicResources);
  add(names::kDefaultBinder, NewDefaultBinder);
  add(names::kCoscheduling, NewCoscheduling);
  add(names::kNodeDeclaredFeatures, NewNodeDeclaredFeatures);
  for (const std::string& name : UnimplementedPluginNames()) {
    add(name, UnimplementedFactory(name));
  }
  return r;
}

}  // namespace ksched::plugins
