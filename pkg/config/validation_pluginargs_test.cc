// Plugin args validation (validation_pluginargs_test.go cases), through
// ParseConfig so that messages carry the pluginConfig path.
#include "pkg/config/validation_pluginargs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pkg/config/config_test_util.h"

namespace ksched::config {
namespace {

using test_util::ErrorFor;
using ::testing::HasSubstr;

// A profile whose only pluginConfig entry is `name` with `args` (YAML flow).
std::string WithArgs(const std::string& name, const std::string& args) {
  return "profiles:\n- pluginConfig:\n  - name: " + name +
         "\n    args: " + args + "\n";
}

constexpr char kArgs[] = "profiles[0].pluginConfig[0].args.";

TEST(PluginArgsValidationTest, DefaultPreemption) {
  EXPECT_EQ(ErrorFor(WithArgs("DefaultPreemption",
                              "{minCandidateNodesPercentage: -1}")),
            std::string(kArgs) +
                "minCandidateNodesPercentage: Invalid value: -1: not in valid "
                "range [0, 100]");
  EXPECT_EQ(ErrorFor(WithArgs("DefaultPreemption",
                              "{minCandidateNodesPercentage: 900}")),
            std::string(kArgs) +
                "minCandidateNodesPercentage: Invalid value: 900: not in "
                "valid range [0, 100]");
  EXPECT_EQ(ErrorFor(WithArgs("DefaultPreemption",
                              "{minCandidateNodesAbsolute: -1}")),
            std::string(kArgs) +
                "minCandidateNodesAbsolute: Invalid value: -1: not in valid "
                "range [0, inf)");
  EXPECT_EQ(
      ErrorFor(WithArgs("DefaultPreemption",
                        "{minCandidateNodesPercentage: 0, "
                        "minCandidateNodesAbsolute: 0}")),
      "[" + std::string(kArgs) +
          "minCandidateNodesPercentage: Invalid value: 0: cannot be zero at "
          "the same time as minCandidateNodesAbsolute, " +
          kArgs +
          "minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the "
          "same time as minCandidateNodesPercentage]");
}

TEST(PluginArgsValidationTest, InterPodAffinity) {
  EXPECT_EQ(
      ErrorFor(WithArgs("InterPodAffinity", "{hardPodAffinityWeight: 101}")),
      std::string(kArgs) +
          "hardPodAffinityWeight: Invalid value: 101: not in valid "
          "range [0, 100]");
  EXPECT_EQ(
      ErrorFor(WithArgs("InterPodAffinity", "{hardPodAffinityWeight: -1}")),
      std::string(kArgs) +
          "hardPodAffinityWeight: Invalid value: -1: not in valid "
          "range [0, 100]");
  EXPECT_EQ(
      ErrorFor(WithArgs("InterPodAffinity", "{hardPodAffinityWeight: 10}")),
      "<accepted>");
}

std::string Spread(const std::string& constraints,
                   const std::string& type = "List") {
  return WithArgs("PodTopologySpread", "{defaultingType: " + type +
                                           ", defaultConstraints: [" +
                                           constraints + "]}");
}

TEST(PluginArgsValidationTest, PodTopologySpreadConstraints) {
  EXPECT_EQ(
      ErrorFor(Spread("{maxSkew: 1, topologyKey: node, whenUnsatisfiable: "
                      "DoNotSchedule}, {maxSkew: 2, topologyKey: zone, "
                      "whenUnsatisfiable: ScheduleAnyway}")),
      "<accepted>");
  EXPECT_EQ(ErrorFor(Spread("{maxSkew: -1, topologyKey: node, "
                            "whenUnsatisfiable: DoNotSchedule}")),
            std::string(kArgs) +
                "defaultConstraints[0].maxSkew: Invalid value: -1: not in "
                "valid range (0, inf)");
  EXPECT_EQ(ErrorFor(Spread("{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}")),
            std::string(kArgs) +
                "defaultConstraints[0].topologyKey: Required value: can not "
                "be empty");
  EXPECT_EQ(ErrorFor(Spread("{maxSkew: 1, topologyKey: node}")),
            std::string(kArgs) +
                "defaultConstraints[0].whenUnsatisfiable: Required value: can "
                "not be empty");
  EXPECT_EQ(ErrorFor(Spread("{maxSkew: 1, topologyKey: node, "
                            "whenUnsatisfiable: \"unknown action\"}")),
            std::string(kArgs) +
                "defaultConstraints[0].whenUnsatisfiable: Unsupported value: "
                "\"unknown action\": supported values: \"DoNotSchedule\", "
                "\"ScheduleAnyway\"");
  EXPECT_EQ(
      ErrorFor(Spread("{maxSkew: 1, topologyKey: node, whenUnsatisfiable: "
                      "DoNotSchedule}, {maxSkew: 2, topologyKey: node, "
                      "whenUnsatisfiable: DoNotSchedule}")),
      std::string(kArgs) +
          "defaultConstraints[1]: Duplicate value: \"{node, "
          "DoNotSchedule}\"");
  EXPECT_EQ(ErrorFor(Spread("{maxSkew: 1, topologyKey: key, whenUnsatisfiable: "
                            "DoNotSchedule, labelSelector: {matchLabels: {a: "
                            "b}}}")),
            std::string(kArgs) +
                "defaultConstraints[0].labelSelector: Forbidden: constraint "
                "must not define a selector, as they deduced for each pod");
  EXPECT_THAT(ErrorFor(Spread("{maxSkew: 1, topologyKey: \"a b\", "
                              "whenUnsatisfiable: DoNotSchedule}")),
              HasSubstr("defaultConstraints[0].topologyKey: Invalid value: "
                        "\"a b\": name part must consist of alphanumeric "
                        "characters, '-', '_' or '.', and must start and end "
                        "with an alphanumeric character (e.g. 'MyName',  or "
                        "'my.name',  or '123-abc', regex used for validation "
                        "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"));
}

TEST(PluginArgsValidationTest, PodTopologySpreadDefaultingType) {
  EXPECT_EQ(ErrorFor(WithArgs("PodTopologySpread", "{defaultingType: List}")),
            "<accepted>");
  EXPECT_EQ(
      ErrorFor(WithArgs("PodTopologySpread", "{defaultingType: unknown}")),
      std::string(kArgs) +
          "defaultingType: Unsupported value: \"unknown\": supported "
          "values: \"System\", \"List\"");
  EXPECT_EQ(ErrorFor(Spread("{maxSkew: 1, topologyKey: key, whenUnsatisfiable: "
                            "DoNotSchedule}",
                            "System")),
            std::string(kArgs) +
                "defaultingType: Invalid value: \"System\": when "
                ".defaultConstraints are not empty");
}

TEST(PluginArgsValidationTest, NodeResourcesBalancedAllocation) {
  EXPECT_EQ(
      ErrorFor(WithArgs("NodeResourcesBalancedAllocation",
                        "{resources: [{name: cpu, weight: 2}, {name: "
                        "memory, weight: 1}]}")),
      std::string(kArgs) + "resources[0].weight: Invalid value: 2: must be 1");
  EXPECT_EQ(ErrorFor(WithArgs("NodeResourcesBalancedAllocation",
                              "{resources: [{name: cpu}, {name: cpu}]}")),
            std::string(kArgs) + "resources[1].name: Duplicate value: \"cpu\"");
}

TEST(PluginArgsValidationTest, NodeAffinity) {
  const std::string valid = R"({addedAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
        {matchExpressions: [{key: label-1, operator: In, values: [label-1-val]}]}]},
      preferredDuringSchedulingIgnoredDuringExecution: [
        {weight: 1, preference: {matchFields: [
          {key: metadata.name, operator: In, values: [node-1]}]}}]}})";
  EXPECT_EQ(ErrorFor(WithArgs("NodeAffinity", valid)), "<accepted>");

  const std::string invalid = R"({addedAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
        {matchExpressions: [{key: invalid/label/key, operator: In, values: [label-1-val]}]}]},
      preferredDuringSchedulingIgnoredDuringExecution: [
        {weight: 1, preference: {matchFields: [
          {key: metadata.name, operator: In, values: [node-1, node-2]}]}}]}})";
  std::string err = ErrorFor(WithArgs("NodeAffinity", invalid));
  EXPECT_THAT(err, HasSubstr(std::string("[") + kArgs +
                             "addedAffinity.requiredDuringSchedulingIgnoredDu"
                             "ringExecution.nodeSelectorTerms[0]."
                             "matchExpressions[0].key: Invalid value: "
                             "\"invalid/label/key\": a qualified name must "
                             "consist of"));
  EXPECT_THAT(err, HasSubstr(std::string(kArgs) +
                             "addedAffinity.preferredDuringSchedulingIgnoredD"
                             "uringExecution[0].matchFields[0].values: Invalid "
                             "value: []string{\"node-1\", \"node-2\"}: must "
                             "have one element]"));

  EXPECT_EQ(ErrorFor(WithArgs("NodeAffinity", R"({addedAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
        {matchExpressions: [{key: zone, operator: Near, values: [a]}]}]}}})")),
            std::string(kArgs) +
                "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                "nodeSelectorTerms[0].matchExpressions[0].operator: "
                "Unsupported value: \"Near\": supported values: \"In\", "
                "\"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"");
  EXPECT_EQ(ErrorFor(WithArgs("NodeAffinity", R"({addedAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
        {matchExpressions: [{key: zone, operator: Exists, values: [a]},
                            {key: rank, operator: Gt, values: [x]}]}]}}})")),
            "[" + std::string(kArgs) +
                "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                "nodeSelectorTerms[0].matchExpressions[0].values: Invalid "
                "value: []string{\"a\"}: values set must be empty for exists "
                "and does not exist, " +
                kArgs +
                "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                "nodeSelectorTerms[0].matchExpressions[1].values[0]: Invalid "
                "value: \"x\": for 'Gt', 'Lt' operators, the value must be an "
                "integer]");
  // A zero-weight preferred term is not parsed at all.
  EXPECT_EQ(ErrorFor(WithArgs("NodeAffinity", R"({addedAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {weight: 0, preference: {matchFields: [{key: a, operator: Gt}]}}]}})")),
            "<accepted>");
}

TEST(PluginArgsValidationTest, VolumeBinding) {
  EXPECT_EQ(ErrorFor(WithArgs("VolumeBinding", "{bindTimeoutSeconds: 0}")),
            "<accepted>");
  EXPECT_EQ(ErrorFor(WithArgs("VolumeBinding", "{bindTimeoutSeconds: -10}")),
            std::string(kArgs) +
                "bindTimeoutSeconds: Invalid value: -10: invalid "
                "BindTimeoutSeconds, should not be a negative value");
  // StorageCapacityScoring is not implemented: any shape is refused.
  EXPECT_EQ(ErrorFor(WithArgs("VolumeBinding",
                              "{shape: [{utilization: 1, score: 1}, "
                              "{utilization: 3, score: 3}]}")),
            std::string(kArgs) +
                "shape: Invalid value: []config.UtilizationShapePoint{config."
                "UtilizationShapePoint{Utilization:1, Score:1}, config."
                "UtilizationShapePoint{Utilization:3, Score:3}}: unexpected "
                "field `shape`, remove it or turn on the feature gate "
                "StorageCapacityScoring");
}

// ValidateDynamicResourcesArgs, as v1.35's table has it.
TEST(PluginArgsValidationTest, DynamicResources) {
  EXPECT_EQ(ErrorFor(WithArgs("DynamicResources", "{filterTimeout: 0s}")),
            "<accepted>");
  EXPECT_EQ(ErrorFor(WithArgs("DynamicResources", "{filterTimeout: -1s}")),
            std::string(kArgs) +
                "filterTimeout: Invalid value: \"-1s\": must be zero or "
                "positive");
  // Binding conditions are on at v1.36: a binding timeout is taken; with
  // them off (as before 1.36) it is forbidden.
  EXPECT_EQ(ErrorFor(WithArgs("DynamicResources", "{bindingTimeout: 5m}")),
            "<accepted>");
  LoadOptions without_binding;
  without_binding.gates.Set(Feature::kDRADeviceBindingConditions, false);
  EXPECT_EQ(ErrorFor(WithArgs("DynamicResources", "{bindingTimeout: 5m}"),
                     without_binding),
            std::string(kArgs) +
                "bindingTimeout: Forbidden: DRADeviceBindingConditions or "
                "DRAResourceClaimDeviceStatus feature gate is disabled");

  FeatureGates no_timeout;
  no_timeout.Set(Feature::kDRASchedulerFilterTimeout, false);
  v1::DynamicResourcesArgs args;
  args.filter_timeout = v1::Duration{std::chrono::seconds(1)};
  FieldErrors errs =
      v1::ValidateDynamicResourcesArgs(FieldPath("args"), args, no_timeout);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(AggregateMessage(errs),
            "args.filterTimeout: Forbidden: DRASchedulingFilterTimeout "
            "feature gate is disabled");

  FeatureGates binding;
  binding.Set(Feature::kDRADeviceBindingConditions, true);
  args = {};
  args.binding_timeout = v1::Duration{std::chrono::milliseconds(500)};
  errs = v1::ValidateDynamicResourcesArgs(FieldPath("args"), args, binding);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(AggregateMessage(errs),
            "args.bindingTimeout: Invalid value: \"500ms\": must be at least "
            "1 second");
}

std::string Fit(const std::string& args) {
  return WithArgs("NodeResourcesFit", args);
}

TEST(PluginArgsValidationTest, NodeResourcesFitScoringStrategy) {
  EXPECT_EQ(ErrorFor(Fit("{scoringStrategy: {type: Invalid}}")),
            std::string(kArgs) +
                "scoringStrategy.type: Unsupported value: \"Invalid\": "
                "supported values: \"LeastAllocated\", \"MostAllocated\", "
                "\"RequestedToCapacityRatio\"");
  EXPECT_EQ(
      ErrorFor(Fit("{scoringStrategy: {type: RequestedToCapacityRatio}}")),
      std::string(kArgs) +
          "scoringStrategy.requestedToCapacityRatio: Required value: "
          "must be specified when type is RequestedToCapacityRatio");
  EXPECT_EQ(ErrorFor(Fit("{scoringStrategy: {type: LeastAllocated, "
                         "requestedToCapacityRatio: {shape: [{utilization: 1, "
                         "score: 1}]}}}")),
            std::string(kArgs) +
                "scoringStrategy.requestedToCapacityRatio: Forbidden: must be "
                "nil when type is not RequestedToCapacityRatio");
  EXPECT_EQ(ErrorFor(Fit("{scoringStrategy: {type: MostAllocated, resources: "
                         "[{name: cpu, weight: 101}, {name: memory, weight: "
                         "-1}]}}")),
            "[" + std::string(kArgs) +
                "scoringStrategy.resources[0].weight: Invalid value: 101: "
                "resource weight of cpu not in valid range (0, 100], " +
                kArgs +
                "scoringStrategy.resources[1].weight: Invalid value: -1: "
                "resource weight of memory not in valid range (0, 100]]");
}

TEST(PluginArgsValidationTest, NodeResourcesFitShape) {
  const std::string prefix =
      "{scoringStrategy: {type: RequestedToCapacityRatio, "
      "requestedToCapacityRatio: {shape: [";
  EXPECT_EQ(ErrorFor(Fit(prefix + "]}}}")),
            std::string(kArgs) +
                "scoringStrategy.requestedToCapacityRatio.shape: Required "
                "value: at least one point must be specified");
  EXPECT_EQ(
      ErrorFor(Fit(prefix + "{utilization: 10, score: 1}, {utilization: 10, "
                            "score: 2}]}}}")),
      std::string(kArgs) +
          "scoringStrategy.requestedToCapacityRatio.shape[1]."
          "utilization: Invalid value: 10: values must be sorted in "
          "increasing order");
  EXPECT_EQ(ErrorFor(Fit(prefix + "{utilization: 110, score: 11}]}}}")),
            "[" + std::string(kArgs) +
                "scoringStrategy.requestedToCapacityRatio.shape[0]."
                "utilization: Invalid value: 110: not in valid range [0, "
                "100], " +
                kArgs +
                "scoringStrategy.requestedToCapacityRatio.shape[0].score: "
                "Invalid value: 11: not in valid range [0, 10]]");
}

TEST(PluginArgsValidationTest, NodeResourcesFitIgnoredResources) {
  EXPECT_EQ(ErrorFor(Fit("{ignoredResourceGroups: [example.com/aaa]}")),
            std::string(kArgs) +
                "ignoredResourceGroups[0]: Invalid value: \"example.com/aaa\": "
                "resource group name can't contain '/'");
  EXPECT_THAT(ErrorFor(Fit("{ignoredResources: [\"-bad\"]}")),
              HasSubstr(std::string(kArgs) +
                        "ignoredResources[0]: Invalid value: \"-bad\": name "
                        "part must consist of"));
  EXPECT_EQ(ErrorFor(Fit("{ignoredResources: [example.com/foo], "
                         "ignoredResourceGroups: [example.com]}")),
            "<accepted>");
}

TEST(PluginArgsValidationTest, DirectCallsUseTheGivenPath) {
  v1::DefaultPreemptionArgs args;
  args.min_candidate_nodes_percentage = 0;
  args.min_candidate_nodes_absolute = 0;
  FieldErrors errs = v1::ValidateDefaultPreemptionArgs(FieldPath(), args);
  ASSERT_EQ(errs.size(), 2u);
  EXPECT_EQ(errs[0].field, "minCandidateNodesPercentage");
  EXPECT_EQ(errs[1].field, "minCandidateNodesAbsolute");

  v1::InterPodAffinityArgs ipa;
  ipa.hard_pod_affinity_weight = 10;
  EXPECT_TRUE(v1::ValidateInterPodAffinityArgs(FieldPath(), ipa).empty());
}

}  // namespace
}  // namespace ksched::config
