#include "pkg/config/convert.h"

#include <memory>
#include <type_traits>
#include <variant>

namespace ksched::config {
namespace {

std::shared_ptr<const PluginArgs> ConvertArgs(
    const v1::DefaultPreemptionArgs& in) {
  auto out = std::make_shared<DefaultPreemptionArgs>();
  out->min_candidate_nodes_percentage =
      in.min_candidate_nodes_percentage.value_or(0);
  out->min_candidate_nodes_absolute =
      in.min_candidate_nodes_absolute.value_or(0);
  return out;
}

std::shared_ptr<const PluginArgs> ConvertArgs(const v1::CoschedulingArgs& in) {
  auto out = std::make_shared<CoschedulingArgs>();
  out->permit_waiting_time_seconds = in.permit_waiting_time_seconds.value_or(0);
  out->pod_group_backoff_seconds = in.pod_group_backoff_seconds.value_or(0);
  out->pod_group_reject_percentage = in.pod_group_reject_percentage.value_or(0);
  return out;
}

std::shared_ptr<const PluginArgs> ConvertArgs(
    const v1::DynamicResourcesArgs& in) {
  auto out = std::make_shared<DynamicResourcesArgs>();
  if (in.filter_timeout) out->filter_timeout = in.filter_timeout->value;
  if (in.binding_timeout) out->binding_timeout = in.binding_timeout->value;
  return out;
}

std::shared_ptr<const PluginArgs> ConvertArgs(
    const v1::InterPodAffinityArgs& in) {
  auto out = std::make_shared<InterPodAffinityArgs>();
  out->hard_pod_affinity_weight = in.hard_pod_affinity_weight.value_or(0);
  out->ignore_preferred_terms_of_existing_pods =
      in.ignore_preferred_terms_of_existing_pods;
  return out;
}

std::shared_ptr<const PluginArgs> ConvertArgs(const v1::NodeAffinityArgs& in) {
  auto out = std::make_shared<NodeAffinityArgs>();
  out->added_affinity = in.added_affinity;
  return out;
}

ScoringStrategyType StrategyType(const std::string& type) {
  // Validation has admitted only these three.
  if (type == "MostAllocated") return ScoringStrategyType::kMostAllocated;
  if (type == "RequestedToCapacityRatio") {
    return ScoringStrategyType::kRequestedToCapacityRatio;
  }
  return ScoringStrategyType::kLeastAllocated;
}

std::shared_ptr<const PluginArgs> ConvertArgs(
    const v1::NodeResourcesFitArgs& in) {
  auto out = std::make_shared<NodeResourcesFitArgs>();
  out->ignored_resources = in.ignored_resources;
  out->ignored_resource_groups = in.ignored_resource_groups;
  if (in.scoring_strategy) {
    const v1::ScoringStrategy& s = *in.scoring_strategy;
    out->scoring_strategy.type = StrategyType(s.type);
    out->scoring_strategy.resources = s.resources;
    if (s.requested_to_capacity_ratio) {
      out->scoring_strategy.shape = s.requested_to_capacity_ratio->shape;
    }
  }
  return out;
}

std::shared_ptr<const PluginArgs> ConvertArgs(
    const v1::NodeResourcesBalancedAllocationArgs& in) {
  auto out = std::make_shared<NodeResourcesBalancedAllocationArgs>();
  out->resources = in.resources;
  return out;
}

std::shared_ptr<const PluginArgs> ConvertArgs(
    const v1::PodTopologySpreadArgs& in) {
  auto out = std::make_shared<PodTopologySpreadArgs>();
  out->default_constraints = in.default_constraints;
  out->defaulting_type = in.defaulting_type == "List"
                             ? PodTopologySpreadDefaulting::kList
                             : PodTopologySpreadDefaulting::kSystem;
  return out;
}

std::shared_ptr<const PluginArgs> ConvertArgs(const v1::VolumeBindingArgs& in) {
  auto out = std::make_shared<VolumeBindingArgs>();
  out->bind_timeout_seconds = in.bind_timeout_seconds.value_or(0);
  if (in.shape) out->shape = *in.shape;
  return out;
}

std::shared_ptr<const PluginArgs> ConvertArgs(const std::monostate&) {
  return nullptr;
}

Profile ConvertProfile(const v1::KubeSchedulerProfile& in) {
  Profile out;
  out.scheduler_name = in.scheduler_name.value_or("");
  out.percentage_of_nodes_to_score = in.percentage_of_nodes_to_score;
  if (in.plugins) out.plugins = *in.plugins;
  for (const v1::PluginConfig& pc : in.plugin_config) {
    PluginConfig converted;
    converted.name = pc.name;
    converted.args =
        std::visit([](const auto& args) { return ConvertArgs(args); }, pc.args);
    converted.raw_args = pc.raw_args;
    out.plugin_config.push_back(std::move(converted));
  }
  return out;
}

Extender ConvertExtender(const v1::Extender& in) {
  Extender out;
  out.url_prefix = in.url_prefix;
  out.filter_verb = in.filter_verb;
  out.preempt_verb = in.preempt_verb;
  out.prioritize_verb = in.prioritize_verb;
  out.weight = in.weight;
  out.bind_verb = in.bind_verb;
  out.enable_https = in.enable_https;
  if (in.tls_config) {
    const v1::ExtenderTlsConfig& t = *in.tls_config;
    out.tls_config = ExtenderTlsConfig{
        t.insecure, t.server_name,    t.cert_file,     t.key_file,
        t.ca_file,  t.cert_data.data, t.key_data.data, t.ca_data.data};
  }
  out.http_timeout = ToMilliseconds(in.http_timeout.value);
  out.node_cache_capable = in.node_cache_capable;
  out.managed_resources = in.managed_resources;
  out.ignorable = in.ignorable;
  return out;
}

}  // namespace

std::chrono::milliseconds ToMilliseconds(std::chrono::nanoseconds d) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d);
  if (ms.count() == 0 && d.count() > 0) return std::chrono::milliseconds(1);
  return ms;
}

KubeSchedulerConfiguration Convert(const v1::KubeSchedulerConfiguration& in) {
  KubeSchedulerConfiguration out;
  out.parallelism = in.parallelism.value_or(0);

  const v1::LeaderElectionConfiguration& le = in.leader_election;
  out.leader_election.leader_elect = le.leader_elect.value_or(false);
  out.leader_election.lease_duration = ToMilliseconds(le.lease_duration.value);
  out.leader_election.renew_deadline = ToMilliseconds(le.renew_deadline.value);
  out.leader_election.retry_period = ToMilliseconds(le.retry_period.value);
  out.leader_election.resource_lock = le.resource_lock;
  out.leader_election.resource_name = le.resource_name;
  out.leader_election.resource_namespace = le.resource_namespace;

  const v1::ClientConnectionConfiguration& cc = in.client_connection;
  out.client_connection.kubeconfig = cc.kubeconfig;
  out.client_connection.accept_content_types = cc.accept_content_types;
  out.client_connection.content_type = cc.content_type;
  out.client_connection.qps = cc.qps;
  out.client_connection.burst = cc.burst;

  out.enable_profiling = in.enable_profiling.value_or(false);
  out.enable_contention_profiling =
      in.enable_contention_profiling.value_or(false);
  out.percentage_of_nodes_to_score =
      in.percentage_of_nodes_to_score.value_or(0);
  out.pod_initial_backoff_seconds = in.pod_initial_backoff_seconds.value_or(0);
  out.pod_max_backoff_seconds = in.pod_max_backoff_seconds.value_or(0);
  for (const v1::KubeSchedulerProfile& p : in.profiles) {
    out.profiles.push_back(ConvertProfile(p));
  }
  for (const v1::Extender& e : in.extenders) {
    out.extenders.push_back(ConvertExtender(e));
  }
  out.delay_cache_until_active = in.delay_cache_until_active;
  return out;
}

}  // namespace ksched::config
