// Checks ksched makes on top of kube-scheduler's validation, on the
// configuration as written (before the default plugins are merged in, so
// that paths point at the file's own entries).
#pragma once

#include <string>
#include <vector>

#include "pkg/config/field_errors.h"
#include "pkg/config/v1_types.h"

namespace ksched::config {

// A negative Score weight. kube-scheduler lets it through and then scores
// with it, inverting the plugin's preference; ksched refuses it:
// `profiles[0].plugins.score.enabled[0].weight: Invalid value: -1: must not
// be negative`.
FieldErrors CheckPluginWeights(const v1::KubeSchedulerConfiguration& config);

// With a non-empty `known` list, the first plugin name (in any enabled or
// disabled list, multiPoint included, "*" aside, or in pluginConfig) that
// is not in it: `profiles[0].plugins.filter.enabled[1].name: unknown plugin
// "Foo" (known plugins: DefaultBinder, ImageLocality, ...)`; "" when all
// are known.
std::string CheckKnownPlugins(const v1::KubeSchedulerConfiguration& config,
                              const std::vector<std::string>& known);

}  // namespace ksched::config
