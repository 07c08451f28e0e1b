// The gate table against kube v1.36.3's pkg/features/kube_features.go
// (openshift/microshift release-4.23, deps/github.com/openshift/kubernetes/
// pkg/features/kube_features.go): the expected values below were taken
// from that file's versioned specs, not from feature_gates.cc, each row
// naming the line of its gate's entry (CSIMigrationPortworx, gone from
// v1.36, from v1.35.6's file on release-4.22); and Parse's errors and
// warnings in kube's words.
#include "pkg/config/feature_gates.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ksched::config {
namespace {

using enum Feature;

TEST(FeatureGatesTest, DefaultsAreV136s) {
  FeatureGates gates;
  EXPECT_EQ(gates.emulated_version().String(), "1.36");
  EXPECT_TRUE(gates.Enabled(kInPlacePodLevelResourcesVerticalScaling));
  EXPECT_TRUE(gates.Enabled(kDRAPartitionableDevices));
  EXPECT_TRUE(gates.Enabled(kNodeDeclaredFeatures));
  EXPECT_TRUE(gates.Enabled(kOpportunisticBatching));
  EXPECT_TRUE(gates.Enabled(kSchedulerAsyncPreemption));
  EXPECT_TRUE(gates.Enabled(kPodLevelResources));
  EXPECT_TRUE(gates.Enabled(kDynamicResourceAllocation));
  EXPECT_FALSE(gates.Enabled(kGangScheduling));
}

TEST(FeatureGatesTest, EntriesAreInEnumOrder) {
  for (size_t i = 0; i < kFeatureCount; ++i) {
    const auto f = static_cast<Feature>(i);
    ASSERT_FALSE(FeatureHistory(f).empty()) << FeatureName(f);
  }
  EXPECT_EQ(FeatureName(kCSIMigrationPortworx), "CSIMigrationPortworx");
  EXPECT_EQ(FeatureName(kVolumeLimitScaling), "VolumeLimitScaling");
}

struct Expected {
  bool default_on;
  Stage stage;
  bool locked;
};
struct GateRow {
  Feature feature;
  const char* name;
  // At emulated 1.32, 1.33, 1.34, 1.35 and 1.36.
  Expected at[5];
};

constexpr Stage kPreAlpha = Stage::kPreAlpha;
constexpr Stage kAlpha = Stage::kAlpha;
constexpr Stage kBeta = Stage::kBeta;
constexpr Stage kGA = Stage::kGA;

// defaultVersionedKubernetesFeatureGates begins at kube_features.go:1240;
// each comment gives the line of the gate's own entry. A version older
// than a gate's first spec finds it pre-alpha and off.
const GateRow kRows[] = {
    // v1.35.6 kube_features.go (gone from v1.36):1174
    {kCSIMigrationPortworx,
     "CSIMigrationPortworx",
     {{true, kBeta, false},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:1348
    {kDRAAdminAccess,
     "DRAAdminAccess",
     {{false, kAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kGA, true}}},
    // kube_features.go:1354
    {kDRAConsumableCapacity,
     "DRAConsumableCapacity",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false}}},
    // kube_features.go:1359
    {kDRADeviceBindingConditions,
     "DRADeviceBindingConditions",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false}}},
    // kube_features.go:1364
    {kDRADeviceTaintRules,
     "DRADeviceTaintRules",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kBeta, false}}},
    // kube_features.go:1369
    {kDRADeviceTaints,
     "DRADeviceTaints",
     {{false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false}}},
    // kube_features.go:1374
    {kDRAExtendedResource,
     "DRAExtendedResource",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false}}},
    // kube_features.go:1379
    {kDRAListTypeAttributes,
     "DRAListTypeAttributes",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1383
    {kDRANodeAllocatableResources,
     "DRANodeAllocatableResources",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1387
    {kDRAPartitionableDevices,
     "DRAPartitionableDevices",
     {{false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false}}},
    // kube_features.go:1392
    {kDRAPrioritizedList,
     "DRAPrioritizedList",
     {{false, kPreAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kGA, false}}},
    // kube_features.go:1398
    {kDRAResourceClaimDeviceStatus,
     "DRAResourceClaimDeviceStatus",
     {{false, kAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1411
    {kDRASchedulerFilterTimeout,
     "DRASchedulerFilterTimeout",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1415
    {kDRAWorkloadResourceClaims,
     "DRAWorkloadResourceClaims",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1443
    {kDynamicResourceAllocation,
     "DynamicResourceAllocation",
     {{false, kBeta, false},
      {false, kBeta, false},
      {true, kGA, false},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:1474
    {kGangScheduling,
     "GangScheduling",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1478
    {kGenericWorkload,
     "GenericWorkload",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1529
    {kInPlacePodLevelResourcesVerticalScaling,
     "InPlacePodLevelResourcesVerticalScaling",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false}}},
    // kube_features.go:1534
    {kInPlacePodVerticalScaling,
     "InPlacePodVerticalScaling",
     {{false, kAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:1657
    {kMatchLabelKeysInPodAffinity,
     "MatchLabelKeysInPodAffinity",
     {{true, kBeta, false},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:1663
    {kMatchLabelKeysInPodTopologySpread,
     "MatchLabelKeysInPodTopologySpread",
     {{true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1715
    {kNodeDeclaredFeatures,
     "NodeDeclaredFeatures",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false}}},
    // kube_features.go:1720
    {kNodeInclusionPolicyInPodTopologySpread,
     "NodeInclusionPolicyInPodTopologySpread",
     {{true, kBeta, false},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:1739
    {kNominatedNodeNameForExpectation,
     "NominatedNodeNameForExpectation",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1744
    {kOpportunisticBatching,
     "OpportunisticBatching",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1780
    {kPodLevelResources,
     "PodLevelResources",
     {{false, kAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1801
    {kPodObservedGenerationTracking,
     "PodObservedGenerationTracking",
     {{false, kPreAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:1812
    {kPodSchedulingReadiness,
     "PodSchedulingReadiness",
     {{true, kGA, true},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:1935
    {kSchedulerAsyncAPICalls,
     "SchedulerAsyncAPICalls",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kBeta, false},
      {false, kBeta, false},
      {false, kBeta, false}}},
    // kube_features.go:1939
    {kSchedulerAsyncPreemption,
     "SchedulerAsyncPreemption",
     {{false, kAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1944
    {kSchedulerPopFromBackoffQ,
     "SchedulerPopFromBackoffQ",
     {{false, kPreAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1948
    {kSchedulerQueueingHints,
     "SchedulerQueueingHints",
     {{true, kBeta, false},
      {true, kBeta, false},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:1993
    {kSidecarContainers,
     "SidecarContainers",
     {{true, kBeta, false},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:2021
    {kStorageCapacityScoring,
     "StorageCapacityScoring",
     {{false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:2061
    {kTaintTolerationComparisonOperators,
     "TaintTolerationComparisonOperators",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:2065
    {kTopologyAwareWorkloadScheduling,
     "TopologyAwareWorkloadScheduling",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:2100
    {kVolumeAttributesClass,
     "VolumeAttributesClass",
     {{false, kBeta, false},
      {false, kBeta, false},
      {true, kGA, false},
      {true, kGA, false},
      {true, kGA, true}}},
    // kube_features.go:2107
    {kVolumeLimitScaling,
     "VolumeLimitScaling",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:2137
    {kWorkloadAwarePreemption,
     "WorkloadAwarePreemption",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false}}},
};

TEST(FeatureGatesTest, EveryGateAtEveryEmulatedVersionAsKubeV136Has) {
  ASSERT_EQ(std::size(kRows), kFeatureCount) << "a gate has no row";
  for (const GateRow& row : kRows) {
    EXPECT_EQ(FeatureName(row.feature), row.name);
    for (int i = 0; i < 5; ++i) {
      const KubeVersion version{1, 32 + i};
      SCOPED_TRACE(std::string(row.name) + " at " + version.String());
      const FeatureSpec spec = SpecAt(row.feature, version);
      EXPECT_EQ(spec.default_on, row.at[i].default_on);
      EXPECT_EQ(StageName(spec.stage), StageName(row.at[i].stage));
      EXPECT_EQ(spec.locked, row.at[i].locked);
      // The gate set of that version starts from that default, except
      // that a gate ksched has not built stays off and is named instead.
      const bool in_effect = row.at[i].default_on && Built(row.feature);
      const bool named = row.at[i].default_on && !Built(row.feature);
      const FeatureGates defaults(version);
      EXPECT_EQ(defaults.Enabled(row.feature), in_effect);
      auto parsed = FeatureGates::Parse(version.String(), "", nullptr);
      ASSERT_TRUE(parsed.ok()) << parsed.error().message();
      EXPECT_EQ(parsed->Enabled(row.feature), in_effect);
      for (const FeatureGates& g : {defaults, *parsed}) {
        const auto& off = g.not_in_effect();
        EXPECT_EQ(std::find(off.begin(), off.end(), row.feature) != off.end(),
                  named);
      }
    }
  }
}

struct DependencyRow {
  Feature feature;
  std::vector<Feature> depends_on;
};

// defaultKubernetesFeatureGateDependencies, kube_features.go:2386 on; the
// comment is the gate's line.
const DependencyRow kDependencies[] = {
    {kCSIMigrationPortworx, {}},                             // :2187 (v1.35.6)
    {kDRAAdminAccess, {kDynamicResourceAllocation}},         // :2433
    {kDRAConsumableCapacity, {kDynamicResourceAllocation}},  // :2435
    {kDRADeviceBindingConditions,
     {kDynamicResourceAllocation, kDRAResourceClaimDeviceStatus}},  // :2437
    {kDRADeviceTaintRules, {kDRADeviceTaints}},                     // :2439
    {kDRADeviceTaints, {kDynamicResourceAllocation}},               // :2441
    {kDRAExtendedResource, {kDynamicResourceAllocation}},           // :2443
    {kDRAListTypeAttributes, {kDynamicResourceAllocation}},         // :2445
    {kDRANodeAllocatableResources, {kDynamicResourceAllocation}},   // :2447
    {kDRAPartitionableDevices, {kDynamicResourceAllocation}},       // :2449
    {kDRAPrioritizedList, {kDynamicResourceAllocation}},            // :2451
    {kDRAResourceClaimDeviceStatus, {}},                            // :2453
    {kDRASchedulerFilterTimeout, {kDynamicResourceAllocation}},     // :2459
    {kDRAWorkloadResourceClaims,
     {kDynamicResourceAllocation, kGenericWorkload}},  // :2461
    {kDynamicResourceAllocation, {}},                  // :2471
    {kGangScheduling, {kGenericWorkload}},             // :2483
    {kGenericWorkload, {}},                            // :2485
    {kInPlacePodLevelResourcesVerticalScaling,
     {kInPlacePodVerticalScaling, kPodLevelResources,
      kNodeDeclaredFeatures}},                               // :2505
    {kInPlacePodVerticalScaling, {}},                        // :2507
    {kMatchLabelKeysInPodAffinity, {}},                      // :2553
    {kMatchLabelKeysInPodTopologySpread, {}},                // :2555
    {kNodeDeclaredFeatures, {}},                             // :2575
    {kNodeInclusionPolicyInPodTopologySpread, {}},           // :2577
    {kNominatedNodeNameForExpectation, {}},                  // :2583
    {kOpportunisticBatching, {}},                            // :2585
    {kPodLevelResources, {}},                                // :2601
    {kPodObservedGenerationTracking, {}},                    // :2609
    {kPodSchedulingReadiness, {}},                           // :2613
    {kSchedulerAsyncAPICalls, {}},                           // :2663
    {kSchedulerAsyncPreemption, {}},                         // :2665
    {kSchedulerPopFromBackoffQ, {}},                         // :2667
    {kSchedulerQueueingHints, {}},                           // :2669
    {kSidecarContainers, {}},                                // :2685
    {kStorageCapacityScoring, {}},                           // :2697
    {kTaintTolerationComparisonOperators, {}},               // :2713
    {kTopologyAwareWorkloadScheduling, {kGenericWorkload}},  // :2715
    {kVolumeAttributesClass, {}},                            // :2729
    {kVolumeLimitScaling, {}},                               // :2731
    {kWorkloadAwarePreemption, {kGangScheduling}},           // :2743
};

TEST(FeatureGatesTest, DependenciesAsKubeV136HasThem) {
  ASSERT_EQ(std::size(kDependencies), kFeatureCount);
  for (const DependencyRow& row : kDependencies) {
    EXPECT_EQ(FeatureDependencies(row.feature), row.depends_on)
        << FeatureName(row.feature);
  }
}

std::string ParseError(std::string_view emulated, std::string_view gates) {
  auto parsed = FeatureGates::Parse(emulated, gates, nullptr);
  return parsed.ok() ? "(no error)" : parsed.error().message();
}

TEST(FeatureGatesTest, TurnedOnAndOffByName) {
  std::vector<std::string> warnings;
  auto off =
      FeatureGates::Parse("", " OpportunisticBatching = false ,", &warnings);
  ASSERT_TRUE(off.ok()) << off.error().message();
  EXPECT_FALSE(off->Enabled(kOpportunisticBatching));
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(off->overrides(),
            std::vector<std::string>{"OpportunisticBatching=false"});

  auto on = FeatureGates::Parse(
      "1.34", "kube:NominatedNodeNameForExpectation=true", &warnings);
  ASSERT_TRUE(on.ok()) << on.error().message();
  EXPECT_TRUE(on->Enabled(kNominatedNodeNameForExpectation));

  // The last value given for a gate wins, as kube's map keeps it.
  auto twice = FeatureGates::Parse(
      "", "OpportunisticBatching=false,OpportunisticBatching=true", nullptr);
  ASSERT_TRUE(twice.ok());
  EXPECT_TRUE(twice->Enabled(kOpportunisticBatching));
}

TEST(FeatureGatesTest, UnknownNamesWarnAndBadValuesAreErrorsAsKubeWordsThem) {
  std::vector<std::string> warnings;
  auto unknown =
      FeatureGates::Parse("", "OpportunisticBatching=true,Foo=true", &warnings);
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(warnings,
            std::vector<std::string>{"unrecognized feature gate: Foo"});

  EXPECT_EQ(ParseError("", "OpportunisticBatching=yes"),
            "invalid value of OpportunisticBatching=yes, err: "
            "strconv.ParseBool: parsing \"yes\": invalid syntax");
  EXPECT_EQ(ParseError("", "OpportunisticBatching"),
            "missing bool value for OpportunisticBatching");
  EXPECT_EQ(ParseError("", "wardle:Foo=true"),
            "component not registered: wardle");
  EXPECT_EQ(ParseError("",
                       "kube:OpportunisticBatching=true,"
                       "SchedulerAsyncPreemption=false"),
            "set kube feature gates with default empty prefix or kube: "
            "prefix consistently, do not mix use");
}

TEST(FeatureGatesTest, EmulatedVersionAsKubeReadsIt) {
  for (const char* same : {"1.33", "kube=1.33", " kube = 1.33 ", "v1.33",
                           "1.33.0", "1.33.0-rc.1"}) {
    auto v = ParseEmulatedVersion(same);
    ASSERT_TRUE(v.ok()) << same << ": " << v.error().message();
    EXPECT_EQ(v->String(), "1.33") << same;
  }
  auto empty = ParseEmulatedVersion("");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, kBinaryVersion);

  auto error = [](std::string_view value) {
    auto v = ParseEmulatedVersion(value);
    return v.ok() ? "(no error)" : v.error().message();
  };
  EXPECT_EQ(error("1.31"),
            "emulation version 1.31 is not between [1.32, 1.36.0]");
  EXPECT_EQ(error("kube=1.37"),
            "emulation version 1.37 is not between [1.32, 1.36.0]");
  EXPECT_EQ(error("2.0"),
            "emulation version 2.0 is not between [1.32, 1.36.0]");
  EXPECT_EQ(error("1.33.1"), "patch version not allowed, got: kube=1.33.1");
  EXPECT_EQ(error("kube=1.34.2-rc.0"),
            "patch version not allowed, got: kube=1.34.2-rc.0");
  EXPECT_EQ(error("abc"), "could not parse \"abc\" as version");
  EXPECT_EQ(error("1"), "illegal version string \"1\"");
  EXPECT_EQ(error("01.33"),
            "illegal zero-prefixed version component \"01\" in \"01.33\"");
  EXPECT_EQ(error("wardle=1.2"), "component not registered: wardle");
  EXPECT_EQ(error("kube=1.33,kube=1.34"),
            "duplicate version flag, kube=1.33 and kube=1.34");

  // Parse checks the version before the gates.
  EXPECT_EQ(ParseError("1.31", "SchedulerAsyncPreemption=true"),
            "emulation version 1.31 is not between [1.32, 1.36.0]");
  auto emulated = FeatureGates::Parse("kube=1.33", "", nullptr);
  ASSERT_TRUE(emulated.ok());
  EXPECT_EQ(emulated->emulated_version().String(), "1.33");
}

TEST(FeatureGatesTest, LockedGatesOnlyTakeTheirDefault) {
  EXPECT_EQ(ParseError("", "SidecarContainers=false"),
            "cannot set feature gate SidecarContainers to false, feature is "
            "locked to true");
  // Not locked before it went GA.
  auto beta = FeatureGates::Parse("1.32", "SidecarContainers=false", nullptr);
  ASSERT_TRUE(beta.ok()) << beta.error().message();
  EXPECT_FALSE(beta->Enabled(kSidecarContainers));
  // Setting a GA gate to its value is allowed, with kube's warning.
  std::vector<std::string> warnings;
  auto ga = FeatureGates::Parse("", "SidecarContainers=true", &warnings);
  ASSERT_TRUE(ga.ok());
  EXPECT_EQ(warnings, std::vector<std::string>{
                          "Setting GA feature gate SidecarContainers=true. It "
                          "will be removed in a future release."});
  // Errors are gathered, as kube's aggregate shows them.
  EXPECT_EQ(ParseError("",
                       "SidecarContainers=false,"
                       "InPlacePodVerticalScaling=false"),
            "[cannot set feature gate SidecarContainers to false, feature is "
            "locked to true, cannot set feature gate InPlacePodVerticalScaling "
            "to false, feature is locked to true]");
}

TEST(FeatureGatesTest, GatesYoungerThanTheEmulatedVersionCannotBeSet) {
  EXPECT_EQ(ParseError("1.33", "GangScheduling=true"),
            "cannot set feature gate GangScheduling to true, feature is "
            "PreAlpha at emulated version 1.33, min compatibility version "
            "1.32");
  // The minimum compatibility version never goes below the floor.
  EXPECT_EQ(ParseError("1.32", "SchedulerPopFromBackoffQ=false"),
            "cannot set feature gate SchedulerPopFromBackoffQ to false, "
            "feature is PreAlpha at emulated version 1.32, min compatibility "
            "version 1.32");
  EXPECT_EQ(ParseError("1.34", "DRADeviceTaintRules=true"),
            "cannot set feature gate DRADeviceTaintRules to true, feature is "
            "PreAlpha at emulated version 1.34, min compatibility version "
            "1.33");
  EXPECT_EQ(MinCompatibilityVersion({1, 35}).String(), "1.34");
  EXPECT_EQ(MinCompatibilityVersion({1, 32}).String(), "1.32");
}

TEST(FeatureGatesTest, GatesNeedTheGatesTheyDependOn) {
  // Dependencies are checked as kube sees the gates: NodeDeclaredFeatures,
  // off at 1.35 and on by default at 1.36, counts as kube has it.
  EXPECT_EQ(ParseError("1.35",
                       "InPlacePodLevelResourcesVerticalScaling=true,"
                       "PodLevelResources=false"),
            "InPlacePodLevelResourcesVerticalScaling is enabled, but depends "
            "on features that are disabled: [PodLevelResources "
            "NodeDeclaredFeatures]");
  EXPECT_EQ(ParseError("",
                       "InPlacePodLevelResourcesVerticalScaling=true,"
                       "PodLevelResources=false"),
            "InPlacePodLevelResourcesVerticalScaling is enabled, but depends "
            "on features that are disabled: [PodLevelResources]");
  EXPECT_EQ(ParseError("", "InPlacePodLevelResourcesVerticalScaling=true"),
            "(no error)");
  // DynamicResourceAllocation is off by default at 1.33.
  EXPECT_EQ(ParseError("1.33", "DRAAdminAccess=true,DRAPrioritizedList=true"),
            "[DRAAdminAccess is enabled, but depends on features that are "
            "disabled: [DynamicResourceAllocation], DRAPrioritizedList is "
            "enabled, but depends on features that are disabled: "
            "[DynamicResourceAllocation]]");
  EXPECT_EQ(ParseError("1.33",
                       "DRAAdminAccess=true,"
                       "DynamicResourceAllocation=true"),
            "(no error)");
}

TEST(FeatureGatesTest, AllAlphaAndAllBetaSetTheGatesNotNamed) {
  auto alpha = FeatureGates::Parse("", "AllAlpha=true", nullptr);
  ASSERT_TRUE(alpha.ok()) << alpha.error().message();
  for (size_t i = 0; i < kFeatureCount; ++i) {
    const auto f = static_cast<Feature>(i);
    const FeatureSpec spec = SpecAt(f, kBinaryVersion);
    // On as kube has it, unless ksched has not built it.
    EXPECT_EQ(
        alpha->Enabled(f),
        (spec.stage == Stage::kAlpha ? true : spec.default_on) && Built(f))
        << FeatureName(f);
  }
  // A gate named keeps its value, whatever AllAlpha says and in whatever
  // order.
  for (const char* flags : {"AllAlpha=true,DRAPartitionableDevices=false",
                            "DRAPartitionableDevices=false,AllAlpha=true"}) {
    auto named = FeatureGates::Parse("1.35", flags, nullptr);
    ASSERT_TRUE(named.ok()) << named.error().message();
    EXPECT_FALSE(named->Enabled(kDRAPartitionableDevices)) << flags;
    EXPECT_TRUE(named->Enabled(kDRADeviceTaints)) << flags;
  }
  // At 1.33 the alpha DRA gates need DynamicResourceAllocation, a beta gate
  // off by default there.
  EXPECT_EQ(ParseError("1.33", "AllAlpha=true"),
            "[DRAAdminAccess is enabled, but depends on features that are "
            "disabled: [DynamicResourceAllocation], DRADeviceTaints is "
            "enabled, but depends on features that are disabled: "
            "[DynamicResourceAllocation], DRAPartitionableDevices is enabled, "
            "but depends on features that are disabled: "
            "[DynamicResourceAllocation], DRAPrioritizedList is enabled, but "
            "depends on features that are disabled: "
            "[DynamicResourceAllocation]]");
  EXPECT_EQ(ParseError("1.33", "AllAlpha=true,AllBeta=true"), "(no error)");

  auto no_beta = FeatureGates::Parse("", "AllBeta=false", nullptr);
  ASSERT_TRUE(no_beta.ok()) << no_beta.error().message();
  EXPECT_FALSE(no_beta->Enabled(kOpportunisticBatching));
  EXPECT_FALSE(no_beta->Enabled(kSchedulerAsyncPreemption));
  EXPECT_FALSE(no_beta->Enabled(kPodLevelResources));
  // GA gates are neither alpha nor beta.
  EXPECT_TRUE(no_beta->Enabled(kSchedulerQueueingHints));
  EXPECT_TRUE(no_beta->Enabled(kDynamicResourceAllocation));
}

TEST(FeatureGatesTest, HelpListsAlphaAndBetaGatesWithTheirDefaults) {
  const std::vector<std::string> known = KnownFeatures();
  EXPECT_TRUE(std::is_sorted(known.begin(), known.end()));
  auto has = [&known](const std::string& line) {
    return std::find(known.begin(), known.end(), line) != known.end();
  };
  EXPECT_TRUE(has("kube:AllAlpha=true|false (ALPHA - default=false)"));
  EXPECT_TRUE(has("kube:AllBeta=true|false (BETA - default=false)"));
  EXPECT_TRUE(
      has("kube:OpportunisticBatching=true|false (BETA - default=true)"));
  EXPECT_TRUE(has("kube:GangScheduling=true|false (ALPHA - default=false)"));
  EXPECT_TRUE(
      has("kube:SchedulerAsyncAPICalls=true|false (BETA - default=false)"));
  for (const std::string& line : known) {
    EXPECT_EQ(line.find("SidecarContainers"), std::string::npos) << line;
  }
  // At 1.32 SidecarContainers was beta, and GangScheduling did not exist.
  const std::vector<std::string> old = KnownFeatures({1, 32});
  EXPECT_NE(
      std::find(old.begin(), old.end(),
                "kube:SidecarContainers=true|false (BETA - default=true)"),
      old.end());
  for (const std::string& line : old) {
    EXPECT_EQ(line.find("GangScheduling"), std::string::npos) << line;
  }
}

// Gates whose behaviour ksched has not built stay off, are named, and
// cannot be turned on by flag. Every gate v1.32 to v1.36 turn on by default
// is built.
TEST(FeatureGatesTest, GatesKschedDoesNotImplementStayOffAndAreNamed) {
  for (int minor = 32; minor <= 36; ++minor) {
    EXPECT_TRUE(FeatureGates({1, minor}).not_in_effect().empty()) << minor;
  }
  EXPECT_EQ(ParseError("", "GangScheduling=true,GenericWorkload=true"),
            "[cannot set feature gate GangScheduling to true, ksched does not "
            "implement it yet, cannot set feature gate GenericWorkload to "
            "true, ksched does not implement it yet]");
  EXPECT_EQ(ParseError("1.35", "DRADeviceTaintRules=true"),
            "cannot set feature gate DRADeviceTaintRules to true, ksched does "
            "not implement it yet");
  // AllAlpha turns on alpha gates ksched lacks: named, not on.
  auto all_alpha = FeatureGates::Parse("1.35", "AllAlpha=true", nullptr);
  ASSERT_TRUE(all_alpha.ok()) << all_alpha.error().message();
  EXPECT_FALSE(all_alpha->Enabled(kGangScheduling));
  EXPECT_TRUE(all_alpha->Enabled(kDRAPartitionableDevices));
  const auto& named = all_alpha->not_in_effect();
  EXPECT_NE(std::find(named.begin(), named.end(), kGangScheduling),
            named.end());
  EXPECT_NE(std::find(named.begin(), named.end(), kVolumeLimitScaling),
            named.end());
}

}  // namespace
}  // namespace ksched::config
