// kube-scheduler v1.35's default plugin set and the way a profile's
// `plugins` is merged into it (pkg/scheduler/apis/config/v1/
// default_plugins.go).
#pragma once

#include <optional>

#include "pkg/config/feature_gates.h"
#include "pkg/config/types.h"

namespace ksched::config {

// The default multiPoint list: 18 plugins, Score weights where the plugin
// scores, and those the gates add (applyFeatureGates): DynamicResources
// (weight 2) just before DefaultPreemption when DynamicResourceAllocation is
// on, so that PostFilter frees an idle claim before it evicts a pod;
// NodeDeclaredFeatures and GangScheduling at the end when theirs are.
Plugins DefaultPlugins(const FeatureGates& gates = FeatureGates());

// mergePluginSet: the defaults minus the custom-disabled ones (all of them
// for "*"), with a custom-enabled plugin of the same name replacing the
// default in place (its weight wins), then the other custom-enabled plugins
// in their order. Disabled lists of both sides are kept, weights dropped.
PluginSet MergePluginSet(const PluginSet& defaults, const PluginSet& custom);

// mergePlugins: MergePluginSet for every extension point; no custom plugins
// leaves the defaults as they are.
Plugins MergePlugins(Plugins defaults, const std::optional<Plugins>& custom);

}  // namespace ksched::config
