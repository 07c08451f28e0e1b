// kubescheduler.config.k8s.io/v1 exactly as written in a file: optional
// fields stay std::optional (Go's pointers) so that defaulting and
// validation can tell "absent" from "zero", as kube-scheduler's do. The
// loader decodes into these, defaults and validates them, and only then
// converts them to the types of types.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/config/types.h"

namespace ksched::config::v1 {

inline constexpr std::string_view kGroup = "kubescheduler.config.k8s.io";
inline constexpr std::string_view kGroupVersion =
    "kubescheduler.config.k8s.io/v1";
inline constexpr std::string_view kKind = "KubeSchedulerConfiguration";

// metav1.Duration.
struct Duration {
  std::chrono::nanoseconds value{0};
  friend bool operator==(const Duration&, const Duration&) = default;
};

// A Go []byte: base64 in JSON, raw bytes here.
struct Bytes {
  std::string data;
  friend bool operator==(const Bytes&, const Bytes&) = default;
};

// ---- plugin args (types_pluginargs.go); apiVersion/kind are optional ----

struct TypeMeta {
  std::string api_version;
  std::string kind;
  // apiVersion and kind only select the args type; two args of one type
  // compare by their values, as kube-scheduler's converted objects do.
  friend bool operator==(const TypeMeta&, const TypeMeta&) { return true; }
};

struct DefaultPreemptionArgs : TypeMeta {
  std::optional<int32_t> min_candidate_nodes_percentage;
  std::optional<int32_t> min_candidate_nodes_absolute;
  friend bool operator==(const DefaultPreemptionArgs&,
                         const DefaultPreemptionArgs&) = default;
};

struct InterPodAffinityArgs : TypeMeta {
  std::optional<int32_t> hard_pod_affinity_weight;
  bool ignore_preferred_terms_of_existing_pods = false;
  friend bool operator==(const InterPodAffinityArgs&,
                         const InterPodAffinityArgs&) = default;
};

struct RequestedToCapacityRatioParam {
  std::vector<UtilizationShapePoint> shape;
  friend bool operator==(const RequestedToCapacityRatioParam&,
                         const RequestedToCapacityRatioParam&) = default;
};

struct ScoringStrategy {
  std::string type;
  std::vector<ResourceSpec> resources;
  std::optional<RequestedToCapacityRatioParam> requested_to_capacity_ratio;
  friend bool operator==(const ScoringStrategy&,
                         const ScoringStrategy&) = default;
};

struct NodeResourcesFitArgs : TypeMeta {
  std::vector<std::string> ignored_resources;
  std::vector<std::string> ignored_resource_groups;
  std::optional<ScoringStrategy> scoring_strategy;
  friend bool operator==(const NodeResourcesFitArgs&,
                         const NodeResourcesFitArgs&) = default;
};

struct PodTopologySpreadArgs : TypeMeta {
  std::vector<api::TopologySpreadConstraint> default_constraints;
  std::string defaulting_type;
  friend bool operator==(const PodTopologySpreadArgs&,
                         const PodTopologySpreadArgs&) = default;
};

struct NodeResourcesBalancedAllocationArgs : TypeMeta {
  std::vector<ResourceSpec> resources;
  friend bool operator==(const NodeResourcesBalancedAllocationArgs&,
                         const NodeResourcesBalancedAllocationArgs&) = default;
};

struct VolumeBindingArgs : TypeMeta {
  std::optional<int64_t> bind_timeout_seconds;
  // Present-but-empty differs from absent: validation rejects any shape
  // (ksched does not score by storage capacity, StorageCapacityScoring).
  std::optional<std::vector<UtilizationShapePoint>> shape;
  friend bool operator==(const VolumeBindingArgs&,
                         const VolumeBindingArgs&) = default;
};

struct NodeAffinityArgs : TypeMeta {
  std::optional<api::NodeAffinity> added_affinity;
  friend bool operator==(const NodeAffinityArgs&,
                         const NodeAffinityArgs&) = default;
};

struct CoschedulingArgs : TypeMeta {
  std::optional<int64_t> permit_waiting_time_seconds;
  std::optional<int64_t> pod_group_backoff_seconds;
  std::optional<int32_t> pod_group_reject_percentage;
  friend bool operator==(const CoschedulingArgs&,
                         const CoschedulingArgs&) = default;
};

// DynamicResourcesArgs (v1.35): how long Filter may spend allocating devices
// on one node, and how long PreBind waits for binding conditions.
struct DynamicResourcesArgs : TypeMeta {
  std::optional<Duration> filter_timeout;
  std::optional<Duration> binding_timeout;
  friend bool operator==(const DynamicResourcesArgs&,
                         const DynamicResourcesArgs&) = default;
};

// The typed args of a plugin; monostate for a plugin name kube-scheduler
// has no args type for (its args are kept only as raw JSON).
using TypedArgs =
    std::variant<std::monostate, DefaultPreemptionArgs, InterPodAffinityArgs,
                 NodeResourcesFitArgs, PodTopologySpreadArgs,
                 NodeResourcesBalancedAllocationArgs, VolumeBindingArgs,
                 NodeAffinityArgs, CoschedulingArgs, DynamicResourcesArgs>;

// The args kind registered for a plugin name ("DefaultPreemptionArgs"), or
// "" when kube-scheduler v1.35 registers none.
std::string_view ArgsKindFor(std::string_view plugin_name);
// Whether kubescheduler.config.k8s.io/v1 registers `kind`: the
// configuration itself or one of the args kinds.
bool IsRegisteredKind(std::string_view kind);
// A TypedArgs holding the (empty) args type registered for plugin_name.
TypedArgs EmptyArgsFor(std::string_view plugin_name);

struct PluginConfig {
  std::string name;
  TypedArgs args;
  std::string raw_args;  // the args as JSON text; "" when absent or null
};

// ---- component-base ----

struct LeaderElectionConfiguration {
  std::optional<bool> leader_elect;
  Duration lease_duration;
  Duration renew_deadline;
  Duration retry_period;
  std::string resource_lock;
  std::string resource_name;
  std::string resource_namespace;
};

struct ClientConnectionConfiguration {
  std::string kubeconfig;
  std::string accept_content_types;
  std::string content_type;
  double qps = 0;
  int32_t burst = 0;
};

// ---- extenders ----

struct ExtenderTlsConfig {
  bool insecure = false;
  std::string server_name;
  std::string cert_file;
  std::string key_file;
  std::string ca_file;
  Bytes cert_data;
  Bytes key_data;
  Bytes ca_data;
};

struct Extender {
  std::string url_prefix;
  std::string filter_verb;
  std::string preempt_verb;
  std::string prioritize_verb;
  int64_t weight = 0;
  std::string bind_verb;
  bool enable_https = false;
  std::optional<ExtenderTlsConfig> tls_config;
  Duration http_timeout;
  bool node_cache_capable = false;
  std::vector<ExtenderManagedResource> managed_resources;
  bool ignorable = false;
};

// ---- the file ----

struct KubeSchedulerProfile {
  std::optional<std::string> scheduler_name;
  std::optional<int32_t> percentage_of_nodes_to_score;
  std::optional<Plugins> plugins;
  std::vector<PluginConfig> plugin_config;
};

struct KubeSchedulerConfiguration : TypeMeta {
  std::optional<int32_t> parallelism;
  LeaderElectionConfiguration leader_election;
  ClientConnectionConfiguration client_connection;
  std::optional<bool> enable_profiling;
  std::optional<bool> enable_contention_profiling;
  std::optional<int32_t> percentage_of_nodes_to_score;
  std::optional<int64_t> pod_initial_backoff_seconds;
  std::optional<int64_t> pod_max_backoff_seconds;
  std::vector<KubeSchedulerProfile> profiles;
  std::vector<Extender> extenders;
  bool delay_cache_until_active = false;
};

}  // namespace ksched::config::v1
