// Validation of the typed plugin args after defaulting, as kube-scheduler
// v1.32's validation_pluginargs.go does it, with the same field errors.
//
// `raw_args` is the args' JSON as written: enumerations the API types decode
// to "other" (whenUnsatisfiable, node selector operators) are reported with
// the string the file actually holds.
#pragma once

#include <string_view>

#include "pkg/config/feature_gates.h"
#include "pkg/config/field_errors.h"
#include "pkg/config/v1_types.h"

namespace ksched::config::v1 {

FieldErrors ValidateDefaultPreemptionArgs(const FieldPath& path,
                                          const DefaultPreemptionArgs& args);
FieldErrors ValidateInterPodAffinityArgs(const FieldPath& path,
                                         const InterPodAffinityArgs& args);
FieldErrors ValidatePodTopologySpreadArgs(const FieldPath& path,
                                          const PodTopologySpreadArgs& args,
                                          std::string_view raw_args = "");
FieldErrors ValidateNodeResourcesBalancedAllocationArgs(
    const FieldPath& path, const NodeResourcesBalancedAllocationArgs& args);
FieldErrors ValidateNodeAffinityArgs(const FieldPath& path,
                                     const NodeAffinityArgs& args,
                                     std::string_view raw_args = "");
FieldErrors ValidateCoschedulingArgs(const FieldPath& path,
                                     const CoschedulingArgs& args);
FieldErrors ValidateVolumeBindingArgs(const FieldPath& path,
                                      const VolumeBindingArgs& args);
FieldErrors ValidateNodeResourcesFitArgs(const FieldPath& path,
                                         const NodeResourcesFitArgs& args);

FieldErrors ValidateDynamicResourcesArgs(const FieldPath& path,
                                         const DynamicResourcesArgs& args,
                                         const FeatureGates& gates);

// Dispatches on the args type; no errors for untyped args.
FieldErrors ValidatePluginArgs(const FieldPath& path,
                               const PluginConfig& config,
                               const FeatureGates& gates = FeatureGates());

}  // namespace ksched::config::v1
