// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as ksched
// works with it. Field names follow the v1 API. config.h produces it decoded,
// defaulted (defaults.h) and validated, so every value is set; the few that
// stay std::optional are those where "unset" means something (a profile's
// percentageOfNodesToScore, a plugin's weight).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/api/selector.h"

namespace ksched::config {

// ---- plugins ----

struct Plugin {
  std::string name;
  std::optional<int32_t> weight;  // Score weight; unset means 1
  friend bool operator==(const Plugin&, const Plugin&) = default;
};

struct PluginSet {
  std::vector<Plugin> enabled;
  std::vector<Plugin> disabled;  // name "*" disables every default
  friend bool operator==(const PluginSet&, const PluginSet&) = default;
};

struct Plugins {
  PluginSet pre_enqueue;
  PluginSet queue_sort;
  PluginSet pre_filter;
  PluginSet filter;
  PluginSet post_filter;
  PluginSet pre_score;
  PluginSet score;
  PluginSet reserve;
  PluginSet permit;
  PluginSet pre_bind;
  PluginSet bind;
  PluginSet post_bind;
  PluginSet multi_point;
  // v1.36's pod-group placement points (TopologyAwareWorkloadScheduling):
  // read, merged and shown, but ksched runs no placement plugin yet.
  PluginSet placement_generate;
  PluginSet placement_score;
  friend bool operator==(const Plugins&, const Plugins&) = default;
};

// ---- typed plugin arguments (types_pluginargs.go) ----

struct PluginArgs {
  virtual ~PluginArgs() = default;
};

struct DefaultPreemptionArgs final : PluginArgs {
  int32_t min_candidate_nodes_percentage = 10;
  int32_t min_candidate_nodes_absolute = 100;
};

struct InterPodAffinityArgs final : PluginArgs {
  int32_t hard_pod_affinity_weight = 1;
  bool ignore_preferred_terms_of_existing_pods = false;
};

struct NodeAffinityArgs final : PluginArgs {
  std::optional<api::NodeAffinity> added_affinity;
};

struct ResourceSpec {
  std::string name;
  int64_t weight = 1;
  friend bool operator==(const ResourceSpec&, const ResourceSpec&) = default;
};

struct UtilizationShapePoint {
  int32_t utilization = 0;
  int32_t score = 0;
  friend bool operator==(const UtilizationShapePoint&,
                         const UtilizationShapePoint&) = default;
};

enum class ScoringStrategyType {
  kLeastAllocated,
  kMostAllocated,
  kRequestedToCapacityRatio
};

struct ScoringStrategy {
  ScoringStrategyType type = ScoringStrategyType::kLeastAllocated;
  std::vector<ResourceSpec> resources;       // default cpu:1, memory:1
  std::vector<UtilizationShapePoint> shape;  // RequestedToCapacityRatio only
};

struct NodeResourcesFitArgs final : PluginArgs {
  std::vector<std::string> ignored_resources;
  std::vector<std::string> ignored_resource_groups;
  ScoringStrategy scoring_strategy;
};

struct NodeResourcesBalancedAllocationArgs final : PluginArgs {
  std::vector<ResourceSpec> resources;  // default cpu:1, memory:1
};

enum class PodTopologySpreadDefaulting { kSystem, kList };

struct PodTopologySpreadArgs final : PluginArgs {
  std::vector<api::TopologySpreadConstraint> default_constraints;
  PodTopologySpreadDefaulting defaulting_type =
      PodTopologySpreadDefaulting::kSystem;
};

struct VolumeBindingArgs final : PluginArgs {
  int64_t bind_timeout_seconds = 600;
  std::vector<UtilizationShapePoint> shape;
};

// DynamicResources (v1.35): zero timeouts mean none.
struct DynamicResourcesArgs final : PluginArgs {
  std::chrono::nanoseconds filter_timeout{0};
  std::chrono::nanoseconds binding_timeout{0};
};

// scheduler-plugins' Coscheduling (kubescheduler.config.k8s.io/v1
// CoschedulingArgs, which scheduler-plugins registers in that group).
struct CoschedulingArgs final : PluginArgs {
  int64_t permit_waiting_time_seconds = 60;
  int64_t pod_group_backoff_seconds = 0;
  int32_t pod_group_reject_percentage = 10;
};

struct PluginConfig {
  std::string name;
  std::shared_ptr<const PluginArgs> args;  // null: the plugin takes none
  // The args as written in the file, as JSON ("" when absent): the only
  // form of the args of a plugin kube-scheduler has no args type for
  // (an out-of-tree plugin's), for that plugin to decode itself.
  std::string raw_args;
};

// ---- profiles and the whole file ----

struct Profile {
  std::string scheduler_name;
  std::optional<int32_t> percentage_of_nodes_to_score;
  Plugins plugins;  // after defaulting: merged with the default plugin set
  std::vector<PluginConfig> plugin_config;

  // The args for `plugin`, or nullptr.
  const PluginArgs* ArgsFor(std::string_view plugin) const;
};

struct LeaderElection {
  bool leader_elect = true;
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  std::string resource_lock = "leases";
  std::string resource_name;       // defaulted, see defaults.h
  std::string resource_namespace;  // defaulted, see defaults.h
};

struct ClientConnection {
  std::string kubeconfig;
  std::string accept_content_types;
  std::string content_type;
  double qps = 50;
  int32_t burst = 100;
};

struct ExtenderManagedResource {
  std::string name;
  bool ignored_by_scheduler = false;
};

struct ExtenderTlsConfig {
  bool insecure = false;
  std::string server_name;
  std::string cert_file;
  std::string key_file;
  std::string ca_file;
  std::string cert_data;  // base64-decoded bytes
  std::string key_data;
  std::string ca_data;
};

// An extender kube-scheduler (or ksched) calls out to.
struct Extender {
  std::string url_prefix;
  std::string filter_verb;
  std::string preempt_verb;
  std::string prioritize_verb;
  int64_t weight = 0;
  std::string bind_verb;
  bool enable_https = false;
  std::optional<ExtenderTlsConfig> tls_config;
  std::chrono::milliseconds http_timeout{0};
  bool node_cache_capable = false;
  std::vector<ExtenderManagedResource> managed_resources;
  bool ignorable = false;
};

struct KubeSchedulerConfiguration {
  int32_t parallelism = 16;
  LeaderElection leader_election;
  ClientConnection client_connection;
  bool enable_profiling = true;
  bool enable_contention_profiling = true;
  // 0 means adaptive (50 - nodes/125, at least 5%).
  int32_t percentage_of_nodes_to_score = 0;
  int64_t pod_initial_backoff_seconds = 1;
  int64_t pod_max_backoff_seconds = 10;
  std::vector<Profile> profiles;
  std::vector<Extender> extenders;
  bool delay_cache_until_active = false;

  // Fields present in the file that ksched accepts but does not act on,
  // as JSON paths ("clientConnection.contentType"), to report at start-up.
  std::vector<std::string> not_acted_on;
};

}  // namespace ksched::config
