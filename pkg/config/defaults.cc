#include "pkg/config/defaults.h"

#include <set>
#include <string>

#include "pkg/config/default_plugins.h"

namespace ksched::config::v1 {
namespace {

using std::chrono::seconds;

const std::vector<ResourceSpec>& DefaultResourceSpec() {
  static const std::vector<ResourceSpec> kSpec = {{"cpu", 1}, {"memory", 1}};
  return kSpec;
}

void DefaultArgs(DefaultPreemptionArgs& a, const FeatureGates&) {
  if (!a.min_candidate_nodes_percentage) a.min_candidate_nodes_percentage = 10;
  if (!a.min_candidate_nodes_absolute) a.min_candidate_nodes_absolute = 100;
}

// scheduler-plugins' SetDefaults_CoschedulingArgs.
void DefaultArgs(CoschedulingArgs& a, const FeatureGates&) {
  if (!a.permit_waiting_time_seconds) a.permit_waiting_time_seconds = 60;
  if (!a.pod_group_backoff_seconds) a.pod_group_backoff_seconds = 0;
  if (!a.pod_group_reject_percentage) a.pod_group_reject_percentage = 10;
}

void DefaultArgs(InterPodAffinityArgs& a, const FeatureGates&) {
  if (!a.hard_pod_affinity_weight) a.hard_pod_affinity_weight = 1;
}

void DefaultArgs(VolumeBindingArgs& a, const FeatureGates&) {
  if (!a.bind_timeout_seconds) a.bind_timeout_seconds = 600;
  // A default shape comes only with StorageCapacityScoring, which ksched
  // does not implement (validation refuses a shape).
}

// SetDefaults_DynamicResourcesArgs: each timeout only with its gates.
void DefaultArgs(DynamicResourcesArgs& a, const FeatureGates& gates) {
  using enum Feature;
  if (!a.filter_timeout && gates.Enabled(kDRASchedulerFilterTimeout)) {
    a.filter_timeout = Duration{seconds(10)};
  }
  if (!a.binding_timeout && gates.Enabled(kDRADeviceBindingConditions) &&
      gates.Enabled(kDRAResourceClaimDeviceStatus)) {
    a.binding_timeout = Duration{seconds(600)};
  }
}

void DefaultArgs(NodeResourcesBalancedAllocationArgs& a, const FeatureGates&) {
  if (a.resources.empty()) {
    a.resources = DefaultResourceSpec();
    return;
  }
  for (ResourceSpec& r : a.resources) {
    if (r.weight == 0) r.weight = 1;
  }
}

void DefaultArgs(PodTopologySpreadArgs& a, const FeatureGates&) {
  if (a.defaulting_type.empty()) a.defaulting_type = "System";
}

void DefaultArgs(NodeResourcesFitArgs& a, const FeatureGates&) {
  if (!a.scoring_strategy) {
    a.scoring_strategy =
        ScoringStrategy{"LeastAllocated", DefaultResourceSpec(), std::nullopt};
  }
  std::vector<ResourceSpec>& resources = a.scoring_strategy->resources;
  if (resources.empty()) resources = DefaultResourceSpec();
  for (ResourceSpec& r : resources) {
    if (r.weight == 0) r.weight = 1;
  }
}

void DefaultArgs(NodeAffinityArgs&, const FeatureGates&) {}
void DefaultArgs(std::monostate&, const FeatureGates&) {}

// pluginsNames: every plugin enabled at any extension point, sorted.
std::set<std::string> EnabledPluginNames(const Plugins& p) {
  std::set<std::string> names;
  for (const PluginSet* set :
       {&p.multi_point, &p.pre_filter, &p.filter, &p.post_filter, &p.reserve,
        &p.pre_score, &p.score, &p.pre_bind, &p.bind, &p.post_bind, &p.permit,
        &p.placement_generate, &p.placement_score, &p.pre_enqueue,
        &p.queue_sort}) {
    for (const Plugin& plugin : set->enabled) names.insert(plugin.name);
  }
  return names;
}

}  // namespace

void SetDefaults(TypedArgs* args, const FeatureGates& gates) {
  std::visit([&gates](auto& a) { DefaultArgs(a, gates); }, *args);
}

void SetDefaults(KubeSchedulerProfile* profile, const FeatureGates& gates) {
  profile->plugins = MergePlugins(DefaultPlugins(gates), profile->plugins);

  std::set<std::string, std::less<>> configured;
  for (PluginConfig& pc : profile->plugin_config) {
    configured.insert(pc.name);
    SetDefaults(&pc.args, gates);
  }
  for (const std::string& name : EnabledPluginNames(*profile->plugins)) {
    if (configured.contains(name)) continue;
    TypedArgs args = EmptyArgsFor(name);
    // Out-of-tree plugins, and plugins that take no args, get no entry.
    if (std::holds_alternative<std::monostate>(args)) continue;
    SetDefaults(&args, gates);
    profile->plugin_config.push_back({name, std::move(args), ""});
  }
}

void SetDefaults(KubeSchedulerConfiguration* c, const FeatureGates& gates) {
  if (!c->parallelism) c->parallelism = 16;

  if (c->profiles.empty()) c->profiles.emplace_back();
  // Only a lone profile gets a default name; validation requires every
  // profile of several to be named.
  if (c->profiles.size() == 1 && !c->profiles[0].scheduler_name) {
    c->profiles[0].scheduler_name = std::string(kDefaultSchedulerName);
  }
  for (KubeSchedulerProfile& profile : c->profiles) {
    SetDefaults(&profile, gates);
  }

  // DefaultPercentageOfNodesToScore is 0: adaptive.
  if (!c->percentage_of_nodes_to_score) c->percentage_of_nodes_to_score = 0;

  LeaderElectionConfiguration& le = c->leader_election;
  if (le.resource_lock.empty()) {
    le.resource_lock = std::string(kDefaultLeaderElectionResourceLock);
  }
  if (le.resource_namespace.empty()) {
    le.resource_namespace = std::string(kDefaultLeaderElectionNamespace);
  }
  if (le.resource_name.empty()) {
    le.resource_name = std::string(kDefaultLeaderElectionResourceName);
  }

  ClientConnectionConfiguration& cc = c->client_connection;
  if (cc.content_type.empty())
    cc.content_type = std::string(kDefaultContentType);
  // kube-scheduler's own QPS/burst, not client-go's generic ones.
  if (cc.qps == 0.0) cc.qps = 50.0;
  if (cc.burst == 0) cc.burst = 100;

  // RecommendedDefaultLeaderElectionConfiguration.
  if (le.lease_duration.value.count() == 0)
    le.lease_duration.value = seconds(15);
  if (le.renew_deadline.value.count() == 0)
    le.renew_deadline.value = seconds(10);
  if (le.retry_period.value.count() == 0) le.retry_period.value = seconds(2);
  if (!le.leader_elect) le.leader_elect = true;

  if (!c->pod_initial_backoff_seconds) c->pod_initial_backoff_seconds = 1;
  if (!c->pod_max_backoff_seconds) c->pod_max_backoff_seconds = 10;

  if (!c->enable_profiling) c->enable_profiling = true;
  // Contention profiling follows profiling unless set.
  if (*c->enable_profiling && !c->enable_contention_profiling) {
    c->enable_contention_profiling = true;
  }
}

}  // namespace ksched::config::v1
