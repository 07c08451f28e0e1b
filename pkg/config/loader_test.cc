#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "pkg/config/config.h"
#include "pkg/config/config_test_util.h"
#include "pkg/config/default_plugins.h"

namespace ksched::config {
namespace {

using std::chrono::milliseconds;
using test_util::Args;
using test_util::ErrorFor;
using test_util::kHeader;
using test_util::MustParse;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Error(std::string_view text, const LoadOptions& options = {}) {
  auto config = ParseConfig(text, options);
  return config.ok() ? "<accepted>" : config.error().message();
}

TEST(LoaderTest, MinimalFile) {
  auto config = ParseConfig(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n");
  ASSERT_TRUE(config.ok()) << config.error().message();
  ASSERT_EQ(config->profiles.size(), 1u);
  EXPECT_EQ(config->profiles[0].scheduler_name, "ksched");
  EXPECT_EQ(config->profiles[0].plugins, DefaultPlugins());
  EXPECT_EQ(config->profiles[0].plugin_config.size(), 8u);
  EXPECT_EQ(config->parallelism, 16);
}

// v1.36's placementGenerate and placementScore extension points are read
// and merged like the others.
TEST(LoaderTest, PlacementExtensionPointsAreRead) {
  auto config = ParseConfig(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "- schedulerName: ksched\n"
      "  plugins:\n"
      "    placementGenerate:\n"
      "      disabled: [{name: '*'}]\n"
      "    placementScore:\n"
      "      enabled: [{name: NodeResourcesFit, weight: 2}]\n");
  ASSERT_TRUE(config.ok()) << config.error().message();
  const Plugins& p = config->profiles[0].plugins;
  ASSERT_EQ(p.placement_generate.disabled.size(), 1u);
  EXPECT_EQ(p.placement_generate.disabled[0].name, "*");
  ASSERT_EQ(p.placement_score.enabled.size(), 1u);
  EXPECT_EQ(p.placement_score.enabled[0].name, "NodeResourcesFit");
  EXPECT_EQ(p.placement_score.enabled[0].weight, 2);
}

TEST(LoaderTest, RealisticFile) {
  KubeSchedulerConfiguration c = MustParse(R"(
parallelism: 8
clientConnection:
  kubeconfig: /etc/kubernetes/scheduler.conf
  qps: 100
  burst: 200
leaderElection:
  leaderElect: true
  leaseDuration: 30s
  renewDeadline: 20s
  retryPeriod: 5s
  resourceNamespace: ksched-system
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
percentageOfNodesToScore: 40
profiles:
- schedulerName: ksched
  plugins:
    multiPoint:
      enabled:
      - name: ImageLocality
        weight: 5
      disabled:
      - name: NodeResourcesBalancedAllocation
    score:
      disabled:
      - name: TaintToleration
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - name: cpu
          weight: 2
        - name: memory
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: ScheduleAnyway
- schedulerName: ksched-binpack
  percentageOfNodesToScore: 100
  plugins:
    score:
      enabled:
      - name: NodeResourcesFit
        weight: 10
)");
  EXPECT_EQ(c.parallelism, 8);
  EXPECT_EQ(c.client_connection.kubeconfig, "/etc/kubernetes/scheduler.conf");
  EXPECT_EQ(c.client_connection.qps, 100);
  EXPECT_EQ(c.client_connection.burst, 200);
  EXPECT_EQ(c.client_connection.content_type,
            "application/vnd.kubernetes.protobuf");
  EXPECT_TRUE(c.leader_election.leader_elect);
  EXPECT_EQ(c.leader_election.lease_duration, milliseconds(30000));
  EXPECT_EQ(c.leader_election.renew_deadline, milliseconds(20000));
  EXPECT_EQ(c.leader_election.retry_period, milliseconds(5000));
  EXPECT_EQ(c.leader_election.resource_namespace, "ksched-system");
  EXPECT_EQ(c.leader_election.resource_name, "ksched");
  EXPECT_EQ(c.pod_initial_backoff_seconds, 2);
  EXPECT_EQ(c.pod_max_backoff_seconds, 20);
  EXPECT_EQ(c.percentage_of_nodes_to_score, 40);
  ASSERT_EQ(c.profiles.size(), 2u);

  const Profile& spread = c.profiles[0];
  EXPECT_EQ(spread.scheduler_name, "ksched");
  const auto& enabled = spread.plugins.multi_point.enabled;
  ASSERT_EQ(enabled.size(), 19u);
  EXPECT_EQ(enabled[16], (Plugin{"ImageLocality", 5}));
  EXPECT_EQ(enabled[17], (Plugin{"DefaultBinder", std::nullopt}));
  EXPECT_EQ(
      spread.plugins.multi_point.disabled,
      (std::vector<Plugin>{{"NodeResourcesBalancedAllocation", std::nullopt}}));
  EXPECT_EQ(spread.plugins.score.disabled,
            (std::vector<Plugin>{{"TaintToleration", std::nullopt}}));
  std::vector<std::string> names;
  for (const PluginConfig& pc : spread.plugin_config) names.push_back(pc.name);
  // No default args for the disabled NodeResourcesBalancedAllocation.
  EXPECT_THAT(names,
              ElementsAre("NodeResourcesFit", "PodTopologySpread",
                          "DefaultPreemption", "DynamicResources",
                          "InterPodAffinity", "NodeAffinity", "VolumeBinding"));
  auto* fit = Args<NodeResourcesFitArgs>(spread, "NodeResourcesFit");
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->scoring_strategy.type, ScoringStrategyType::kMostAllocated);
  EXPECT_EQ(fit->scoring_strategy.resources,
            (std::vector<ResourceSpec>{{"cpu", 2}, {"memory", 1}}));
  auto* pts = Args<PodTopologySpreadArgs>(spread, "PodTopologySpread");
  ASSERT_NE(pts, nullptr);
  EXPECT_EQ(pts->defaulting_type, PodTopologySpreadDefaulting::kList);
  ASSERT_EQ(pts->default_constraints.size(), 1u);
  EXPECT_EQ(pts->default_constraints[0].topology_key,
            "topology.kubernetes.io/zone");
  EXPECT_EQ(pts->default_constraints[0].when_unsatisfiable,
            api::UnsatisfiableConstraintAction::kScheduleAnyway);

  const Profile& binpack = c.profiles[1];
  EXPECT_EQ(binpack.scheduler_name, "ksched-binpack");
  EXPECT_EQ(binpack.percentage_of_nodes_to_score, 100);
  EXPECT_EQ(binpack.plugins.multi_point, DefaultPlugins().multi_point);
  EXPECT_EQ(binpack.plugins.score.enabled,
            (std::vector<Plugin>{{"NodeResourcesFit", 10}}));
  EXPECT_EQ(binpack.plugin_config.size(), 8u);
}

TEST(LoaderTest, OptionsTestPluginConfigShape) {
  // The shape of cmd/kube-scheduler/app/options/options_test.go's
  // "plugin config" file and the defaulted result it expects.
  KubeSchedulerConfiguration c = MustParse(R"(
clientConnection:
  kubeconfig: /tmp/kubeconfig
profiles:
- plugins:
    reserve:
      enabled:
      - name: foo
      - name: bar
      disabled:
      - name: VolumeBinding
    preBind:
      enabled:
      - name: foo
      disabled:
      - name: VolumeBinding
  pluginConfig:
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: 2
  - name: foo
    args:
      bar: baz
)");
  const Profile& p = c.profiles[0];
  EXPECT_EQ(p.scheduler_name, "ksched");
  EXPECT_EQ(p.plugins.reserve,
            (PluginSet{{{"foo", std::nullopt}, {"bar", std::nullopt}},
                       {{"VolumeBinding", std::nullopt}}}));
  EXPECT_EQ(p.plugins.pre_bind, (PluginSet{{{"foo", std::nullopt}},
                                           {{"VolumeBinding", std::nullopt}}}));
  std::vector<std::string> names;
  for (const PluginConfig& pc : p.plugin_config) names.push_back(pc.name);
  EXPECT_THAT(names,
              ElementsAre("InterPodAffinity", "foo", "DefaultPreemption",
                          "DynamicResources", "NodeAffinity",
                          "NodeResourcesBalancedAllocation", "NodeResourcesFit",
                          "PodTopologySpread", "VolumeBinding"));
  EXPECT_EQ(Args<InterPodAffinityArgs>(p, "InterPodAffinity")
                ->hard_pod_affinity_weight,
            2);
  EXPECT_EQ(p.ArgsFor("foo"), nullptr);
  EXPECT_EQ(p.plugin_config[1].raw_args, R"({"bar":"baz"})");
}

TEST(LoaderTest, JsonInput) {
  auto config = ParseConfig(R"({
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "parallelism": 4,
    "leaderElection": {"leaderElect": false},
    "profiles": [{
      "schedulerName": "json-scheduler",
      "pluginConfig": [{"name": "DefaultPreemption",
                        "args": {"minCandidateNodesAbsolute": 5}}]
    }]
  })");
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_EQ(config->parallelism, 4);
  EXPECT_FALSE(config->leader_election.leader_elect);
  EXPECT_EQ(config->profiles[0].scheduler_name, "json-scheduler");
  auto* args =
      Args<DefaultPreemptionArgs>(config->profiles[0], "DefaultPreemption");
  ASSERT_NE(args, nullptr);
  EXPECT_EQ(args->min_candidate_nodes_absolute, 5);
  EXPECT_EQ(args->min_candidate_nodes_percentage, 10);

  EXPECT_EQ(Error(R"({"apiVersion": "kubescheduler.config.k8s.io/v1",
 "kind": "KubeSchedulerConfiguration", "bogus": 1})"),
            "bogus: unknown field");
  EXPECT_EQ(Error("{\"apiVersion\": \"kubescheduler.config.k8s.io/v1\",\n"
                  " \"kind\": \"KubeSchedulerConfiguration\",\n"
                  " \"parallelism\": \"1}"),
            "malformed JSON: line 3, column 20: Missing a closing quotation "
            "mark in string.");
  // A trailing comma is still valid YAML, as kube-scheduler reads it.
  EXPECT_EQ(Error("{\"apiVersion\": \"kubescheduler.config.k8s.io/v1\",\n"
                  " \"kind\": \"KubeSchedulerConfiguration\",}"),
            "<accepted>");
}

TEST(LoaderTest, YamlFlowMappingIsNotMistakenForJson) {
  auto config = ParseConfig(
      "{apiVersion: kubescheduler.config.k8s.io/v1, kind: "
      "KubeSchedulerConfiguration, parallelism: 3}");
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_EQ(config->parallelism, 3);
}

TEST(LoaderTest, UnknownFieldsAreErrorsNamingThePath) {
  EXPECT_EQ(ErrorFor("foo: 1\n"), "foo: unknown field");
  EXPECT_EQ(ErrorFor("leaderElection:\n  leaseDurationSeconds: 15\n"),
            "leaderElection.leaseDurationSeconds: unknown field");
  EXPECT_EQ(ErrorFor("profiles:\n- plugins:\n    filter:\n      enabled:\n"
                     "      - nmae: NodePorts\n"),
            "profiles[0].plugins.filter.enabled[0].nmae: unknown field");
  EXPECT_EQ(ErrorFor("profiles:\n- plugins:\n    placementScroe: {}\n"),
            "profiles[0].plugins.placementScroe: unknown field");
  // Field names are case-sensitive.
  EXPECT_EQ(ErrorFor("Parallelism: 3\n"), "Parallelism: unknown field");
  EXPECT_EQ(ErrorFor(R"(
profiles:
- pluginConfig:
  - name: NodeResourcesFit
  - name: DefaultPreemption
    args:
      minCandidateNodesPercentage: 5
      foo: true
)"),
            "profiles[0].pluginConfig[1].args.foo: unknown field");
  EXPECT_EQ(ErrorFor(R"(
profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        resources:
        - Name: cpu
)"),
            "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0]."
            "Name: unknown field");
  EXPECT_EQ(ErrorFor("profiles:\n- pluginConfig:\n  - name: X\n    arg: 1\n"),
            "profiles[0].pluginConfig[0].arg: unknown field");
  // Args of a plugin without an args type are not checked.
  EXPECT_EQ(ErrorFor("profiles:\n- pluginConfig:\n  - name: Custom\n"
                     "    args: {anything: [1, 2]}\n"),
            "<accepted>");
}

TEST(LoaderTest, ArgsOfPluginsWithoutAnArgsTypeAreKeptRaw) {
  // kube-scheduler keeps them undecoded (runtime.Unknown) and accepts them,
  // in-tree plugin or not.
  KubeSchedulerConfiguration c = MustParse(R"(
profiles:
- pluginConfig:
  - name: NodePorts
    args:
      anything: [1, "two"]
  - name: MyOutOfTreePlugin
    args:
      threshold: 0.5
)");
  const Profile& p = c.profiles[0];
  EXPECT_EQ(p.ArgsFor("NodePorts"), nullptr);
  EXPECT_EQ(p.plugin_config[0].raw_args, R"({"anything":[1,"two"]})");
  EXPECT_EQ(p.ArgsFor("MyOutOfTreePlugin"), nullptr);
  EXPECT_EQ(p.plugin_config[1].raw_args, R"({"threshold":0.5})");
}

TEST(LoaderTest, WrongTypesNameThePath) {
  EXPECT_EQ(ErrorFor("parallelism: \"16\"\n"),
            "parallelism: expected integer, got string");
  EXPECT_EQ(ErrorFor("parallelism: 1.5\n"),
            "parallelism: expected 32-bit integer, got 1.5");
  EXPECT_EQ(ErrorFor("profiles: {}\n"), "profiles: expected array, got object");
  EXPECT_EQ(ErrorFor("leaderElection:\n  leaderElect: \"true\"\n"),
            "leaderElection.leaderElect: expected bool, got string");
  EXPECT_EQ(ErrorFor("profiles:\n- schedulerName: 42\n"),
            "profiles[0].schedulerName: expected string, got number");
  EXPECT_EQ(ErrorFor("profiles:\n- plugins:\n    score:\n      enabled:\n"
                     "      - name: ImageLocality\n        weight: high\n"),
            "profiles[0].plugins.score.enabled[0].weight: expected integer, "
            "got string");
  EXPECT_EQ(ErrorFor(R"(
profiles:
- pluginConfig:
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: [1]
)"),
            "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: "
            "expected integer, got array");
  EXPECT_EQ(ErrorFor("profiles:\n- pluginConfig:\n  - name: VolumeBinding\n"
                     "    args: 5\n"),
            "profiles[0].pluginConfig[0].args: expected object, got number");
}

TEST(LoaderTest, NullsAreAbsentValues) {
  KubeSchedulerConfiguration c =
      MustParse("parallelism: null\nprofiles: null\nleaderElection: ~\n");
  EXPECT_EQ(c.parallelism, 16);
  EXPECT_EQ(c.profiles.size(), 1u);
  EXPECT_TRUE(c.leader_election.leader_elect);
}

TEST(LoaderTest, BadDurations) {
  EXPECT_EQ(ErrorFor("leaderElection:\n  leaseDuration: abc\n"),
            "leaderElection.leaseDuration: time: invalid duration \"abc\"");
  EXPECT_EQ(ErrorFor("leaderElection:\n  renewDeadline: \"10\"\n"),
            "leaderElection.renewDeadline: time: missing unit in duration "
            "\"10\"");
  EXPECT_EQ(ErrorFor("leaderElection:\n  retryPeriod: 2\n"),
            "leaderElection.retryPeriod: expected duration string such as "
            "\"15s\", got number");
  EXPECT_EQ(ErrorFor("leaderElection:\n  leaseDuration: 1d\n"),
            "leaderElection.leaseDuration: time: unknown unit \"d\" in "
            "duration \"1d\"");
  EXPECT_EQ(ErrorFor("extenders:\n- httpTimeout: 5 s\n"),
            "extenders[0].httpTimeout: time: unknown unit \" s\" in duration "
            "\"5 s\"");
  // Sub-millisecond durations keep a positive value.
  KubeSchedulerConfiguration c = MustParse(
      "leaderElection:\n  leaderElect: false\n  retryPeriod: 500us\n");
  EXPECT_EQ(c.leader_election.retry_period, milliseconds(1));
}

TEST(LoaderTest, MalformedYamlNamesLineAndColumn) {
  std::string err = Error(std::string(kHeader) +
                          "profiles:\n- schedulerName: [a\n  plugins: {}\n");
  EXPECT_THAT(err, StartsWith("malformed YAML: line "));
  EXPECT_THAT(err, HasSubstr("column"));
  EXPECT_EQ(Error(std::string(kHeader) + "parallelism: 1\n  bad: indent\n"),
            "malformed YAML: line 4, column 6: illegal map value");
}

TEST(LoaderTest, MultipleDocumentsAreRefused) {
  EXPECT_EQ(Error(std::string(kHeader) + "---\n" + kHeader),
            "the configuration holds 2 YAML documents; ksched reads exactly "
            "one KubeSchedulerConfiguration");
  // A leading document marker alone is fine.
  EXPECT_EQ(Error("---\n" + std::string(kHeader)), "<accepted>");
}

TEST(LoaderTest, RepeatedKeysAreRefused) {
  EXPECT_EQ(ErrorFor("parallelism: 1\nparallelism: 2\n"),
            "line 4, column 1: key \"parallelism\" already set in map");
  EXPECT_EQ(ErrorFor("profiles:\n- schedulerName: a\n  schedulerName: b\n"),
            "line 5, column 3: key \"schedulerName\" already set in map");
  EXPECT_EQ(Error(R"({"apiVersion": "kubescheduler.config.k8s.io/v1",
 "kind": "KubeSchedulerConfiguration",
 "profiles": [{"schedulerName": "a", "schedulerName": "b"}]})"),
            "profiles[0].schedulerName: duplicate field");
}

TEST(LoaderTest, DeepNestingIsRefusedNotFollowed) {
  std::string deep_json =
      "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_EQ(Error(deep_json), "JSON nested deeper than 256 levels");
  std::string deep_yaml = std::string(kHeader) +
                          "profiles: " + std::string(300, '[') +
                          std::string(300, ']') + "\n";
  EXPECT_THAT(Error(deep_yaml), HasSubstr("nested deeper than 256 levels"));
}

TEST(LoaderTest, ApiVersionAndKindAreChecked) {
  const std::string want =
      "(expected apiVersion: kubescheduler.config.k8s.io/v1, kind: "
      "KubeSchedulerConfiguration)";
  EXPECT_EQ(Error(""), "Object 'Kind' is missing in the configuration " + want);
  EXPECT_EQ(Error("parallelism: 3\n"),
            "Object 'Kind' is missing in the configuration " + want);
  EXPECT_EQ(Error("kind: KubeSchedulerConfiguration\n"),
            "Object 'apiVersion' is missing in the configuration " + want);
  EXPECT_EQ(Error("apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
                  "kind: KubeSchedulerConfiguration\n"),
            "no kind \"KubeSchedulerConfiguration\" is registered for version "
            "\"kubescheduler.config.k8s.io/v1beta3\"; ksched reads "
            "kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration");
  EXPECT_EQ(Error("apiVersion: kubescheduler.config.k8s.io/v1\n"
                  "kind: KubeProxyConfiguration\n"),
            "no kind \"KubeProxyConfiguration\" is registered for version "
            "\"kubescheduler.config.k8s.io/v1\"; ksched reads "
            "kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration");
  EXPECT_EQ(Error("apiVersion: kubescheduler.config.k8s.io/v1\n"
                  "kind: DefaultPreemptionArgs\n"),
            "couldn't decode as KubeSchedulerConfiguration, got "
            "kubescheduler.config.k8s.io/v1, Kind=DefaultPreemptionArgs");
  EXPECT_EQ(Error("apiVersion: 1\nkind: KubeSchedulerConfiguration\n"),
            "apiVersion: expected string, got number");
  EXPECT_THAT(Error("- a\n- b\n"),
              StartsWith("couldn't get version/kind: the configuration is a "
                         "JSON array, not an object"));
}

TEST(LoaderTest, ArgsMayCarryTheirApiVersionAndKind) {
  KubeSchedulerConfiguration c = MustParse(R"(
profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: DefaultPreemptionArgs
      minCandidateNodesPercentage: 50
)");
  auto* args = Args<DefaultPreemptionArgs>(c.profiles[0], "DefaultPreemption");
  ASSERT_NE(args, nullptr);
  EXPECT_EQ(args->min_candidate_nodes_percentage, 50);
  EXPECT_EQ(args->min_candidate_nodes_absolute, 100);

  EXPECT_EQ(ErrorFor(R"(
profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: InterPodAffinityArgs
)"),
            "profiles[0].pluginConfig[0].args: args for plugin "
            "DefaultPreemption were not of type "
            "DefaultPreemptionArgs.kubescheduler.config.k8s.io, got "
            "InterPodAffinityArgs.kubescheduler.config.k8s.io");
  EXPECT_EQ(ErrorFor(R"(
profiles:
- pluginConfig:
  - name: VolumeBinding
    args:
      apiVersion: kubescheduler.config.k8s.io/v1beta3
)"),
            "profiles[0].pluginConfig[0].args: decoding args for plugin "
            "VolumeBinding: no kind \"VolumeBindingArgs\" is registered for "
            "version \"kubescheduler.config.k8s.io/v1beta3\"");
}

TEST(LoaderTest, NegativeWeightIsRefused) {
  EXPECT_EQ(ErrorFor(R"(
profiles:
- plugins:
    score:
      enabled:
      - name: ImageLocality
        weight: 2
      - name: NodeAffinity
        weight: -1
)"),
            "profiles[0].plugins.score.enabled[1].weight: Invalid value: -1: "
            "must not be negative");
  EXPECT_EQ(ErrorFor("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n"
                     "      - {name: TaintToleration, weight: -3}\n"),
            "profiles[0].plugins.multiPoint.enabled[0].weight: Invalid "
            "value: -3: must not be negative");
  // Zero means "unset", as in kube-scheduler.
  EXPECT_EQ(ErrorFor("profiles:\n- plugins:\n    score:\n      enabled:\n"
                     "      - {name: ImageLocality, weight: 0}\n"),
            "<accepted>");
}

LoadOptions KnownDefaults() {
  LoadOptions options;
  for (const Plugin& p : DefaultPlugins().multi_point.enabled) {
    options.known_plugins.push_back(p.name);
  }
  options.known_plugins.push_back("CustomPlugin");
  return options;
}

TEST(LoaderTest, UnknownPluginListsTheKnownOnes) {
  const std::string known =
      "(known plugins: CustomPlugin, DefaultBinder, DefaultPreemption, "
      "DynamicResources, ImageLocality, InterPodAffinity, NodeAffinity, "
      "NodeDeclaredFeatures, NodeName, NodePorts, "
      "NodeResourcesBalancedAllocation, NodeResourcesFit, NodeUnschedulable, "
      "NodeVolumeLimits, PodTopologySpread, PrioritySort, SchedulingGates, "
      "TaintToleration, VolumeBinding, VolumeRestrictions, VolumeZone)";
  EXPECT_EQ(ErrorFor(R"(
profiles:
- plugins:
    filter:
      enabled:
      - name: NodePorts
      - name: Foo
)",
                     KnownDefaults()),
            "profiles[0].plugins.filter.enabled[1].name: unknown plugin "
            "\"Foo\" " +
                known);
  EXPECT_EQ(ErrorFor("profiles:\n- plugins:\n    multiPoint:\n      disabled:\n"
                     "      - name: \"*\"\n      - name: Gone\n",
                     KnownDefaults()),
            "profiles[0].plugins.multiPoint.disabled[1].name: unknown plugin "
            "\"Gone\" " +
                known);
  EXPECT_EQ(
      ErrorFor("profiles:\n- pluginConfig:\n  - name: CustomPlugin\n"
               "  - name: Bar\n",
               KnownDefaults()),
      "profiles[0].pluginConfig[1].name: unknown plugin \"Bar\" " + known);
  EXPECT_EQ(ErrorFor("profiles:\n- plugins:\n    score:\n      disabled:\n"
                     "      - name: \"*\"\n      enabled:\n"
                     "      - name: CustomPlugin\n",
                     KnownDefaults()),
            "<accepted>");
  // Without a list any name goes.
  EXPECT_EQ(ErrorFor("profiles:\n- plugins:\n    filter:\n      enabled:\n"
                     "      - name: Foo\n"),
            "<accepted>");
}

TEST(LoaderTest, NotActedOnListsPresentFields) {
  KubeSchedulerConfiguration c = MustParse(R"(
enableProfiling: true
enableContentionProfiling: false
delayCacheUntilActive: true
clientConnection:
  contentType: application/json
  acceptContentTypes: application/json
leaderElection:
  leaderElect: false
  resourceLock: endpointsleases
)");
  EXPECT_THAT(
      c.not_acted_on,
      ElementsAre("enableProfiling", "enableContentionProfiling",
                  "clientConnection.contentType",
                  "clientConnection.acceptContentTypes",
                  "delayCacheUntilActive", "leaderElection.resourceLock"));
  EXPECT_TRUE(MustParse("leaderElection:\n  resourceLock: leases\n")
                  .not_acted_on.empty());
  EXPECT_TRUE(MustParse("parallelism: 2\nclientConnection:\n  qps: 5\n")
                  .not_acted_on.empty());
}

TEST(LoaderTest, ArgsForFindsTypedArgs) {
  KubeSchedulerConfiguration c = MustParse("");
  const Profile& p = c.profiles[0];
  EXPECT_NE(dynamic_cast<const VolumeBindingArgs*>(p.ArgsFor("VolumeBinding")),
            nullptr);
  EXPECT_EQ(
      dynamic_cast<const InterPodAffinityArgs*>(p.ArgsFor("VolumeBinding")),
      nullptr);
  EXPECT_EQ(p.ArgsFor("NodePorts"), nullptr);
  EXPECT_EQ(p.ArgsFor("NoSuchPlugin"), nullptr);
}

class LoadConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ksched_config_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  std::filesystem::path dir_;
};

TEST_F(LoadConfigFileTest, ReadsAFile) {
  std::string path =
      Write("config.yaml", std::string(kHeader) + "parallelism: 5\n");
  auto config = LoadConfigFile(path);
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_EQ(config->parallelism, 5);
}

TEST_F(LoadConfigFileTest, ErrorsNameTheFile) {
  std::string missing = (dir_ / "missing.yaml").string();
  EXPECT_EQ(
      LoadConfigFile(missing).error().message(),
      "reading config file \"" + missing + "\": No such file or directory");
  EXPECT_EQ(LoadConfigFile(dir_.string()).error().message(),
            "reading config file \"" + dir_.string() + "\": is a directory");
  std::string bad = Write("bad.yaml", std::string(kHeader) + "foo: 1\n");
  EXPECT_EQ(LoadConfigFile(bad).error().message(),
            "config file \"" + bad + "\": foo: unknown field");
  std::string unknown = Write("unknown.yaml", std::string(kHeader) +
                                                  "profiles:\n- pluginConfig:\n"
                                                  "  - name: Nope\n");
  EXPECT_THAT(LoadConfigFile(unknown, KnownDefaults()).error().message(),
              HasSubstr("profiles[0].pluginConfig[0].name: unknown plugin "
                        "\"Nope\""));
}

TEST_F(LoadConfigFileTest, RefusesFilesOver16MiB) {
  std::string path = (dir_ / "huge.yaml").string();
  std::filesystem::resize_file(Write("huge.yaml", kHeader),
                               kMaxConfigFileBytes + 1);
  EXPECT_EQ(LoadConfigFile(path).error().message(),
            "config file \"" + path +
                "\" is 16777217 bytes; ksched refuses "
                "files over 16 MiB");
  // Exactly at the limit the file is read (and here refused for content).
  std::filesystem::resize_file(path, kMaxConfigFileBytes);
  EXPECT_THAT(LoadConfigFile(path).error().message(), Not(HasSubstr("16 MiB")));
}

TEST_F(LoadConfigFileTest, UnreadablePathsAreReported) {
  std::string file = Write("plain.yaml", kHeader);
  EXPECT_EQ(
      LoadConfigFile(file + "/config.yaml").error().message(),
      "reading config file \"" + file + "/config.yaml\": Not a directory");
  // Root reads any file, so the permission case needs an ordinary user.
  if (::geteuid() != 0) {
    std::filesystem::permissions(file, std::filesystem::perms::none);
    EXPECT_EQ(LoadConfigFile(file).error().message(),
              "reading config file \"" + file + "\": Permission denied");
  }
}

}  // namespace
}  // namespace ksched::config
