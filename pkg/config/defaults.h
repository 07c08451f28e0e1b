// Defaulting of a decoded v1 configuration, as kube-scheduler v1.35's
// SetDefaults_KubeSchedulerConfiguration and the plugin-args defaulters do
// (pkg/scheduler/apis/config/v1/defaults.go), including component-base's
// RecommendedDefaultLeaderElectionConfiguration.
//
// ksched's deliberate differences. ksched runs next to kube-scheduler as a
// second scheduler, so wherever kube-scheduler's default is its own identity
// ksched uses its own, and nothing else differs:
//   - a single profile without schedulerName is named "ksched"
//     (kube-scheduler: "default-scheduler"), so ksched never takes pods
//     meant for the default scheduler;
//   - leaderElection.resourceName defaults to "ksched" (kube-scheduler:
//     "kube-scheduler"), so the two never contend for one lease; the
//     namespace stays kube-system.
#pragma once

#include <string_view>

#include "pkg/config/feature_gates.h"
#include "pkg/config/v1_types.h"

namespace ksched::config {

inline constexpr std::string_view kDefaultSchedulerName = "ksched";
inline constexpr std::string_view kDefaultLeaderElectionResourceName = "ksched";
inline constexpr std::string_view kDefaultLeaderElectionNamespace =
    "kube-system";
inline constexpr std::string_view kDefaultLeaderElectionResourceLock = "leases";
inline constexpr std::string_view kDefaultContentType =
    "application/vnd.kubernetes.protobuf";

}  // namespace ksched::config

namespace ksched::config::v1 {

// Defaults depend on feature gates (the default plugins, DynamicResources'
// timeouts), as kube-scheduler's do: v1.35's unless `gates` say otherwise.
void SetDefaults(KubeSchedulerConfiguration* config,
                 const FeatureGates& gates = FeatureGates());

// Merges the default plugins into the profile and gives every configured
// args type its defaults; then appends default args, in plugin-name order,
// for each enabled plugin that has an args type and no pluginConfig entry.
void SetDefaults(KubeSchedulerProfile* profile,
                 const FeatureGates& gates = FeatureGates());

// The per-type args defaulters; no-op for monostate and NodeAffinityArgs.
void SetDefaults(TypedArgs* args, const FeatureGates& gates = FeatureGates());

}  // namespace ksched::config::v1
