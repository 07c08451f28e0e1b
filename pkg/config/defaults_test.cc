// Defaulting, checked through ParseConfig: expected values are those of
// kube-scheduler's defaults_test.go and scheme_test.go (v1), with ksched's
// own scheduler and lease names.
#include "pkg/config/defaults.h"

#include <gtest/gtest.h>

#include "pkg/config/config.h"
#include "pkg/config/config_test_util.h"
#include "pkg/config/default_plugins.h"

namespace ksched::config {
namespace {

using std::chrono::milliseconds;
using test_util::Args;
using test_util::ErrorFor;
using test_util::MustParse;

std::vector<std::string> ConfigNames(const Profile& profile) {
  std::vector<std::string> names;
  for (const PluginConfig& pc : profile.plugin_config) names.push_back(pc.name);
  return names;
}

const std::vector<std::string> kDefaultArgsOrder = {
    "DefaultPreemption",
    "DynamicResources",
    "InterPodAffinity",
    "NodeAffinity",
    "NodeResourcesBalancedAllocation",
    "NodeResourcesFit",
    "PodTopologySpread",
    "VolumeBinding"};

void ExpectDefaultArgs(const Profile& profile) {
  ASSERT_EQ(ConfigNames(profile), kDefaultArgsOrder);
  auto* preemption = Args<DefaultPreemptionArgs>(profile, "DefaultPreemption");
  ASSERT_NE(preemption, nullptr);
  EXPECT_EQ(preemption->min_candidate_nodes_percentage, 10);
  EXPECT_EQ(preemption->min_candidate_nodes_absolute, 100);
  // DRASchedulerFilterTimeout is on: 10 s; binding conditions are on at
  // v1.36 (DRADeviceBindingConditions and DRAResourceClaimDeviceStatus):
  // 10 minutes.
  auto* dra = Args<DynamicResourcesArgs>(profile, "DynamicResources");
  ASSERT_NE(dra, nullptr);
  EXPECT_EQ(dra->filter_timeout, std::chrono::seconds(10));
  EXPECT_EQ(dra->binding_timeout, std::chrono::minutes(10));
  auto* affinity = Args<InterPodAffinityArgs>(profile, "InterPodAffinity");
  ASSERT_NE(affinity, nullptr);
  EXPECT_EQ(affinity->hard_pod_affinity_weight, 1);
  EXPECT_FALSE(affinity->ignore_preferred_terms_of_existing_pods);
  auto* node_affinity = Args<NodeAffinityArgs>(profile, "NodeAffinity");
  ASSERT_NE(node_affinity, nullptr);
  EXPECT_FALSE(node_affinity->added_affinity.has_value());
  auto* balanced = Args<NodeResourcesBalancedAllocationArgs>(
      profile, "NodeResourcesBalancedAllocation");
  ASSERT_NE(balanced, nullptr);
  EXPECT_EQ(balanced->resources,
            (std::vector<ResourceSpec>{{"cpu", 1}, {"memory", 1}}));
  auto* fit = Args<NodeResourcesFitArgs>(profile, "NodeResourcesFit");
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->scoring_strategy.type, ScoringStrategyType::kLeastAllocated);
  EXPECT_EQ(fit->scoring_strategy.resources,
            (std::vector<ResourceSpec>{{"cpu", 1}, {"memory", 1}}));
  EXPECT_TRUE(fit->scoring_strategy.shape.empty());
  EXPECT_TRUE(fit->ignored_resources.empty());
  auto* spread = Args<PodTopologySpreadArgs>(profile, "PodTopologySpread");
  ASSERT_NE(spread, nullptr);
  EXPECT_EQ(spread->defaulting_type, PodTopologySpreadDefaulting::kSystem);
  EXPECT_TRUE(spread->default_constraints.empty());
  auto* binding = Args<VolumeBindingArgs>(profile, "VolumeBinding");
  ASSERT_NE(binding, nullptr);
  EXPECT_EQ(binding->bind_timeout_seconds, 600);
  EXPECT_TRUE(binding->shape.empty());  // VolumeCapacityPriority is off
}

TEST(DefaultsTest, EmptyConfigurationGetsEveryDefault) {
  KubeSchedulerConfiguration c = MustParse("");
  EXPECT_EQ(c.parallelism, 16);
  EXPECT_TRUE(c.leader_election.leader_elect);
  EXPECT_EQ(c.leader_election.lease_duration, milliseconds(15000));
  EXPECT_EQ(c.leader_election.renew_deadline, milliseconds(10000));
  EXPECT_EQ(c.leader_election.retry_period, milliseconds(2000));
  EXPECT_EQ(c.leader_election.resource_lock, "leases");
  EXPECT_EQ(c.leader_election.resource_namespace, "kube-system");
  EXPECT_EQ(c.client_connection.qps, 50);
  EXPECT_EQ(c.client_connection.burst, 100);
  EXPECT_EQ(c.client_connection.content_type,
            "application/vnd.kubernetes.protobuf");
  EXPECT_TRUE(c.enable_profiling);
  EXPECT_TRUE(c.enable_contention_profiling);
  EXPECT_EQ(c.percentage_of_nodes_to_score, 0);
  EXPECT_EQ(c.pod_initial_backoff_seconds, 1);
  EXPECT_EQ(c.pod_max_backoff_seconds, 10);
  EXPECT_FALSE(c.delay_cache_until_active);
  EXPECT_TRUE(c.extenders.empty());
  EXPECT_TRUE(c.not_acted_on.empty());
  ASSERT_EQ(c.profiles.size(), 1u);
  const Profile& profile = c.profiles[0];
  EXPECT_FALSE(profile.percentage_of_nodes_to_score.has_value());
  EXPECT_EQ(profile.plugins, DefaultPlugins());
  EXPECT_EQ(profile.plugins.multi_point.enabled.size(), 20u);
  ExpectDefaultArgs(profile);
}

TEST(DefaultsTest, KschedIdentityReplacesKubeSchedulerDefaults) {
  EXPECT_EQ(kDefaultSchedulerName, "ksched");
  EXPECT_EQ(kDefaultLeaderElectionResourceName, "ksched");
  EXPECT_EQ(kDefaultLeaderElectionNamespace, "kube-system");
  KubeSchedulerConfiguration c = MustParse("");
  EXPECT_EQ(c.profiles[0].scheduler_name, "ksched");
  EXPECT_EQ(c.leader_election.resource_name, "ksched");

  // The same with an explicit but unnamed profile.
  EXPECT_EQ(MustParse("profiles:\n- {}\n").profiles[0].scheduler_name,
            "ksched");
  // Explicit names are kept.
  KubeSchedulerConfiguration named = MustParse(
      "profiles:\n- schedulerName: default-scheduler\n"
      "leaderElection:\n  resourceName: kube-scheduler\n"
      "  resourceNamespace: other\n");
  EXPECT_EQ(named.profiles[0].scheduler_name, "default-scheduler");
  EXPECT_EQ(named.leader_election.resource_name, "kube-scheduler");
  EXPECT_EQ(named.leader_election.resource_namespace, "other");
}

TEST(DefaultsTest, OnlyALoneProfileIsNamed) {
  EXPECT_EQ(ErrorFor("profiles:\n- {}\n- schedulerName: b\n"),
            "profiles[0].schedulerName: Required value");
}

TEST(DefaultsTest, DefaultConfigIsTheDefaultedEmptyFile) {
  KubeSchedulerConfiguration d = DefaultConfig();
  KubeSchedulerConfiguration parsed = MustParse("");
  EXPECT_EQ(d.parallelism, parsed.parallelism);
  EXPECT_EQ(d.leader_election.resource_name, "ksched");
  EXPECT_EQ(d.leader_election.lease_duration, milliseconds(15000));
  EXPECT_EQ(d.client_connection.burst, 100);
  EXPECT_EQ(d.pod_max_backoff_seconds, 10);
  ASSERT_EQ(d.profiles.size(), 1u);
  EXPECT_EQ(d.profiles[0].scheduler_name, "ksched");
  EXPECT_EQ(d.profiles[0].plugins, parsed.profiles[0].plugins);
  ExpectDefaultArgs(d.profiles[0]);
  EXPECT_TRUE(d.not_acted_on.empty());
}

TEST(DefaultsTest, TwoProfilesMergeTheirOwnPlugins) {
  // defaults_test.go "two profiles", with the first profile named so that
  // validation passes.
  KubeSchedulerConfiguration c = MustParse(R"(
parallelism: 16
profiles:
- schedulerName: first
  pluginConfig:
  - name: FooPlugin
- schedulerName: custom-scheduler
  plugins:
    bind:
      enabled:
      - name: BarPlugin
      disabled:
      - name: DefaultBinder
)");
  ASSERT_EQ(c.profiles.size(), 2u);
  const Profile& first = c.profiles[0];
  EXPECT_EQ(first.plugins, DefaultPlugins());
  std::vector<std::string> want_names = {"FooPlugin"};
  want_names.insert(want_names.end(), kDefaultArgsOrder.begin(),
                    kDefaultArgsOrder.end());
  EXPECT_EQ(ConfigNames(first), want_names);
  EXPECT_EQ(first.plugin_config[0].args, nullptr);
  EXPECT_EQ(first.plugin_config[0].raw_args, "");

  const Profile& second = c.profiles[1];
  EXPECT_EQ(second.scheduler_name, "custom-scheduler");
  // A per-point disable leaves the multiPoint defaults as they are.
  EXPECT_EQ(second.plugins.multi_point, DefaultPlugins().multi_point);
  EXPECT_EQ(second.plugins.bind,
            (PluginSet{{{"BarPlugin", std::nullopt}},
                       {{"DefaultBinder", std::nullopt}}}));
  ExpectDefaultArgs(second);
}

TEST(DefaultsTest, ProfilingOffLeavesContentionProfilingOff) {
  KubeSchedulerConfiguration c = MustParse("enableProfiling: false\n");
  EXPECT_FALSE(c.enable_profiling);
  EXPECT_FALSE(c.enable_contention_profiling);
  c = MustParse("enableProfiling: false\nenableContentionProfiling: true\n");
  EXPECT_TRUE(c.enable_contention_profiling);
}

TEST(DefaultsTest, ExplicitValuesAreKept) {
  KubeSchedulerConfiguration c = MustParse(R"(
parallelism: 8
percentageOfNodesToScore: 10
podInitialBackoffSeconds: 3
podMaxBackoffSeconds: 30
delayCacheUntilActive: true
clientConnection:
  qps: 12.5
  burst: 7
  contentType: application/json
leaderElection:
  leaderElect: false
  leaseDuration: 1m
  renewDeadline: 45s
  retryPeriod: 1500ms
profiles:
- percentageOfNodesToScore: 50
)");
  EXPECT_EQ(c.parallelism, 8);
  EXPECT_EQ(c.percentage_of_nodes_to_score, 10);
  EXPECT_EQ(c.profiles[0].percentage_of_nodes_to_score, 50);
  EXPECT_EQ(c.pod_initial_backoff_seconds, 3);
  EXPECT_EQ(c.pod_max_backoff_seconds, 30);
  EXPECT_TRUE(c.delay_cache_until_active);
  EXPECT_DOUBLE_EQ(c.client_connection.qps, 12.5);
  EXPECT_EQ(c.client_connection.burst, 7);
  EXPECT_EQ(c.client_connection.content_type, "application/json");
  EXPECT_FALSE(c.leader_election.leader_elect);
  EXPECT_EQ(c.leader_election.lease_duration, milliseconds(60000));
  EXPECT_EQ(c.leader_election.renew_deadline, milliseconds(45000));
  EXPECT_EQ(c.leader_election.retry_period, milliseconds(1500));
}

TEST(DefaultsTest, ZeroQpsAndBurstMeanTheDefaults) {
  KubeSchedulerConfiguration c =
      MustParse("clientConnection:\n  qps: 0\n  burst: 0\n");
  EXPECT_EQ(c.client_connection.qps, 50);
  EXPECT_EQ(c.client_connection.burst, 100);
}

TEST(DefaultsTest, ExplicitArgsGetTheirMissingDefaults) {
  KubeSchedulerConfiguration c = MustParse(R"(
profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      minCandidateNodesPercentage: 50
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: 0
  - name: NodeResourcesFit
    args:
      ignoredResources: ["foo"]
      scoringStrategy:
        type: MostAllocated
  - name: NodeResourcesBalancedAllocation
    args:
      resources:
      - name: cpu
      - name: memory
        weight: 0
      - name: scalar.io/scalar1
        weight: 1
  - name: VolumeBinding
    args:
      bindTimeoutSeconds: 300
  - name: PodTopologySpread
    args:
      defaultConstraints:
      - maxSkew: 2
        topologyKey: planet
        whenUnsatisfiable: DoNotSchedule
      defaultingType: List
)");
  const Profile& p = c.profiles[0];
  auto* preemption = Args<DefaultPreemptionArgs>(p, "DefaultPreemption");
  ASSERT_NE(preemption, nullptr);
  EXPECT_EQ(preemption->min_candidate_nodes_percentage, 50);
  EXPECT_EQ(preemption->min_candidate_nodes_absolute, 100);
  // An explicit 0 is not replaced.
  EXPECT_EQ(Args<InterPodAffinityArgs>(p, "InterPodAffinity")
                ->hard_pod_affinity_weight,
            0);
  auto* fit = Args<NodeResourcesFitArgs>(p, "NodeResourcesFit");
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->ignored_resources, std::vector<std::string>{"foo"});
  EXPECT_EQ(fit->scoring_strategy.type, ScoringStrategyType::kMostAllocated);
  EXPECT_EQ(fit->scoring_strategy.resources,
            (std::vector<ResourceSpec>{{"cpu", 1}, {"memory", 1}}));
  EXPECT_EQ(Args<NodeResourcesBalancedAllocationArgs>(
                p, "NodeResourcesBalancedAllocation")
                ->resources,
            (std::vector<ResourceSpec>{
                {"cpu", 1}, {"memory", 1}, {"scalar.io/scalar1", 1}}));
  EXPECT_EQ(Args<VolumeBindingArgs>(p, "VolumeBinding")->bind_timeout_seconds,
            300);
  auto* spread = Args<PodTopologySpreadArgs>(p, "PodTopologySpread");
  ASSERT_NE(spread, nullptr);
  EXPECT_EQ(spread->defaulting_type, PodTopologySpreadDefaulting::kList);
  ASSERT_EQ(spread->default_constraints.size(), 1u);
  EXPECT_EQ(spread->default_constraints[0].max_skew, 2);
  EXPECT_EQ(spread->default_constraints[0].topology_key, "planet");
  EXPECT_EQ(spread->default_constraints[0].when_unsatisfiable,
            api::UnsatisfiableConstraintAction::kDoNotSchedule);
  // The configured entries stay in file order; NodeAffinity's defaults are
  // appended after them.
  EXPECT_EQ(ConfigNames(p),
            (std::vector<std::string>{
                "DefaultPreemption", "InterPodAffinity", "NodeResourcesFit",
                "NodeResourcesBalancedAllocation", "VolumeBinding",
                "PodTopologySpread", "DynamicResources", "NodeAffinity"}));
}

TEST(DefaultsTest, ScoringStrategyWeightZeroBecomesOne) {
  KubeSchedulerConfiguration c = MustParse(R"(
profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources:
        - name: cpu
          weight: 0
        - name: example.com/gpu
          weight: 5
        requestedToCapacityRatio:
          shape:
          - utilization: 0
            score: 0
          - utilization: 100
            score: 10
)");
  auto* fit = Args<NodeResourcesFitArgs>(c.profiles[0], "NodeResourcesFit");
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->scoring_strategy.type,
            ScoringStrategyType::kRequestedToCapacityRatio);
  EXPECT_EQ(fit->scoring_strategy.resources,
            (std::vector<ResourceSpec>{{"cpu", 1}, {"example.com/gpu", 5}}));
  EXPECT_EQ(fit->scoring_strategy.shape,
            (std::vector<UtilizationShapePoint>{{0, 0}, {100, 10}}));
}

TEST(DefaultsTest, EmptyAndMissingArgsGetTypedDefaults) {
  // scheme_test.go "empty and no plugin args".
  KubeSchedulerConfiguration c = MustParse(R"(
profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
  - name: InterPodAffinity
    args:
  - name: NodeResourcesFit
  - name: OutOfTreePlugin
    args:
  - name: VolumeBinding
    args:
  - name: PodTopologySpread
  - name: NodeAffinity
  - name: NodeResourcesBalancedAllocation
)");
  const Profile& p = c.profiles[0];
  EXPECT_EQ(ConfigNames(p),
            (std::vector<std::string>{
                "DefaultPreemption", "InterPodAffinity", "NodeResourcesFit",
                "OutOfTreePlugin", "VolumeBinding", "PodTopologySpread",
                "NodeAffinity", "NodeResourcesBalancedAllocation",
                "DynamicResources"}));
  EXPECT_EQ(Args<DefaultPreemptionArgs>(p, "DefaultPreemption")
                ->min_candidate_nodes_absolute,
            100);
  EXPECT_EQ(Args<InterPodAffinityArgs>(p, "InterPodAffinity")
                ->hard_pod_affinity_weight,
            1);
  EXPECT_EQ(Args<NodeResourcesFitArgs>(p, "NodeResourcesFit")
                ->scoring_strategy.resources.size(),
            2u);
  EXPECT_EQ(p.ArgsFor("OutOfTreePlugin"), nullptr);
  EXPECT_EQ(p.plugin_config[3].raw_args, "");
  EXPECT_EQ(Args<VolumeBindingArgs>(p, "VolumeBinding")->bind_timeout_seconds,
            600);
  EXPECT_EQ(
      Args<PodTopologySpreadArgs>(p, "PodTopologySpread")->defaulting_type,
      PodTopologySpreadDefaulting::kSystem);
  EXPECT_NE(Args<NodeAffinityArgs>(p, "NodeAffinity"), nullptr);
  EXPECT_EQ(Args<NodeResourcesBalancedAllocationArgs>(
                p, "NodeResourcesBalancedAllocation")
                ->resources.size(),
            2u);
}

TEST(DefaultsTest, NoDefaultArgsForDisabledPlugins) {
  KubeSchedulerConfiguration c = MustParse(R"(
profiles:
- plugins:
    multiPoint:
      disabled:
      - name: "*"
      enabled:
      - name: PrioritySort
      - name: NodeAffinity
        weight: 4
      - name: DefaultBinder
)");
  const Profile& p = c.profiles[0];
  EXPECT_EQ(p.plugins.multi_point.enabled,
            (std::vector<Plugin>{{"PrioritySort", std::nullopt},
                                 {"NodeAffinity", 4},
                                 {"DefaultBinder", std::nullopt}}));
  EXPECT_EQ(p.plugins.multi_point.disabled,
            (std::vector<Plugin>{{"*", std::nullopt}}));
  EXPECT_EQ(ConfigNames(p), std::vector<std::string>{"NodeAffinity"});
}

TEST(DefaultsTest, DisablingOneDefaultRemovesItAndItsArgs) {
  KubeSchedulerConfiguration c = MustParse(R"(
profiles:
- plugins:
    multiPoint:
      disabled:
      - name: VolumeBinding
      enabled:
      - name: ImageLocality
        weight: 7
)");
  const Profile& p = c.profiles[0];
  const auto& enabled = p.plugins.multi_point.enabled;
  ASSERT_EQ(enabled.size(), 19u);
  for (const Plugin& plugin : enabled) EXPECT_NE(plugin.name, "VolumeBinding");
  // Re-enabled with a weight: same place (17th of 19), new weight.
  EXPECT_EQ(enabled[16], (Plugin{"ImageLocality", 7}));
  EXPECT_EQ(p.ArgsFor("VolumeBinding"), nullptr);
  EXPECT_NE(p.ArgsFor("NodeResourcesFit"), nullptr);
}

}  // namespace
}  // namespace ksched::config
