// The gate table against kube v1.35.6's pkg/features/kube_features.go
// (openshift/microshift release-4.22, deps/github.com/openshift/kubernetes/
// pkg/features/kube_features.go): the expected values below were written
// from that file's versioned specs, not from feature_gates.cc, each row
// naming the line of its gate's entry; and Parse's errors and warnings in
// kube's words.
#include "pkg/config/feature_gates.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ksched::config {
namespace {

using enum Feature;

TEST(FeatureGatesTest, DefaultsAreV135s) {
  FeatureGates gates;
  EXPECT_EQ(gates.emulated_version().String(), "1.35");
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
  // At emulated 1.32, 1.33, 1.34 and 1.35.
  Expected at[4];
};

constexpr Stage kPreAlpha = Stage::kPreAlpha;
constexpr Stage kAlpha = Stage::kAlpha;
constexpr Stage kBeta = Stage::kBeta;
constexpr Stage kGA = Stage::kGA;

// defaultVersionedKubernetesFeatureGates begins at kube_features.go:1123;
// each comment gives the line of the gate's own entry. A version older
// than a gate's first spec finds it pre-alpha and off.
const GateRow kRows[] = {
    // kube_features.go:1174
    {kCSIMigrationPortworx,
     "CSIMigrationPortworx",
     {{true, kBeta, false},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:1227
    {kDRAAdminAccess,
     "DRAAdminAccess",
     {{false, kAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1232
    {kDRAConsumableCapacity,
     "DRAConsumableCapacity",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1236
    {kDRADeviceBindingConditions,
     "DRADeviceBindingConditions",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1240
    {kDRADeviceTaintRules,
     "DRADeviceTaintRules",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1244
    {kDRADeviceTaints,
     "DRADeviceTaints",
     {{false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1248
    {kDRAExtendedResource,
     "DRAExtendedResource",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1252
    {kDRAPartitionableDevices,
     "DRAPartitionableDevices",
     {{false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1256
    {kDRAPrioritizedList,
     "DRAPrioritizedList",
     {{false, kPreAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1261
    {kDRAResourceClaimDeviceStatus,
     "DRAResourceClaimDeviceStatus",
     {{false, kAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1266
    {kDRASchedulerFilterTimeout,
     "DRASchedulerFilterTimeout",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1292
    {kDynamicResourceAllocation,
     "DynamicResourceAllocation",
     {{false, kBeta, false},
      {false, kBeta, false},
      {true, kGA, false},
      {true, kGA, true}}},
    // kube_features.go:1317
    {kGangScheduling,
     "GangScheduling",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1321
    {kGenericWorkload,
     "GenericWorkload",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1372
    {kInPlacePodLevelResourcesVerticalScaling,
     "InPlacePodLevelResourcesVerticalScaling",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1376
    {kInPlacePodVerticalScaling,
     "InPlacePodVerticalScaling",
     {{false, kAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kGA, true}}},
    // kube_features.go:1500
    {kMatchLabelKeysInPodAffinity,
     "MatchLabelKeysInPodAffinity",
     {{true, kBeta, false},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:1506
    {kMatchLabelKeysInPodTopologySpread,
     "MatchLabelKeysInPodTopologySpread",
     {{true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1561
    {kNodeDeclaredFeatures,
     "NodeDeclaredFeatures",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1565
    {kNodeInclusionPolicyInPodTopologySpread,
     "NodeInclusionPolicyInPodTopologySpread",
     {{true, kBeta, false},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:1583
    {kNominatedNodeNameForExpectation,
     "NominatedNodeNameForExpectation",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false}}},
    // kube_features.go:1588
    {kOpportunisticBatching,
     "OpportunisticBatching",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {true, kBeta, false}}},
    // kube_features.go:1612
    {kPodLevelResources,
     "PodLevelResources",
     {{false, kAlpha, false},
      {false, kAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1644
    {kPodSchedulingReadiness,
     "PodSchedulingReadiness",
     {{true, kGA, true},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:1749
    {kSchedulerAsyncAPICalls,
     "SchedulerAsyncAPICalls",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kBeta, false},
      {false, kBeta, false}}},
    // kube_features.go:1753
    {kSchedulerAsyncPreemption,
     "SchedulerAsyncPreemption",
     {{false, kAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1758
    {kSchedulerPopFromBackoffQ,
     "SchedulerPopFromBackoffQ",
     {{false, kPreAlpha, false},
      {true, kBeta, false},
      {true, kBeta, false},
      {true, kBeta, false}}},
    // kube_features.go:1762
    {kSchedulerQueueingHints,
     "SchedulerQueueingHints",
     {{true, kBeta, false},
      {true, kBeta, false},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:1808
    {kSidecarContainers,
     "SidecarContainers",
     {{true, kBeta, false},
      {true, kGA, true},
      {true, kGA, true},
      {true, kGA, true}}},
    // kube_features.go:1820
    {kStorageCapacityScoring,
     "StorageCapacityScoring",
     {{false, kPreAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1859
    {kTaintTolerationComparisonOperators,
     "TaintTolerationComparisonOperators",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false}}},
    // kube_features.go:1900
    {kVolumeAttributesClass,
     "VolumeAttributesClass",
     {{false, kBeta, false},
      {false, kBeta, false},
      {true, kGA, false},
      {true, kGA, false}}},
    // kube_features.go:1906
    {kVolumeLimitScaling,
     "VolumeLimitScaling",
     {{false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kPreAlpha, false},
      {false, kAlpha, false}}},
};

TEST(FeatureGatesTest, EveryGateAtEveryEmulatedVersionAsKubeV135Has) {
  ASSERT_EQ(std::size(kRows), kFeatureCount) << "a gate has no row";
  for (const GateRow& row : kRows) {
    EXPECT_EQ(FeatureName(row.feature), row.name);
    for (int i = 0; i < 4; ++i) {
      const KubeVersion version{1, 32 + i};
      SCOPED_TRACE(std::string(row.name) + " at " + version.String());
      const FeatureSpec spec = SpecAt(row.feature, version);
      EXPECT_EQ(spec.default_on, row.at[i].default_on);
      EXPECT_EQ(StageName(spec.stage), StageName(row.at[i].stage));
      EXPECT_EQ(spec.locked, row.at[i].locked);
      // The gate set of that version starts from that default.
      EXPECT_EQ(FeatureGates(version).Enabled(row.feature),
                row.at[i].default_on);
      auto parsed = FeatureGates::Parse(version.String(), "", nullptr);
      ASSERT_TRUE(parsed.ok()) << parsed.error().message();
      EXPECT_EQ(parsed->Enabled(row.feature), row.at[i].default_on);
    }
  }
}

struct DependencyRow {
  Feature feature;
  std::vector<Feature> depends_on;
};

// defaultKubernetesFeatureGateDependencies, kube_features.go:2166 on; the
// comment is the gate's line.
const DependencyRow kDependencies[] = {
    {kCSIMigrationPortworx, {}},                             // :2187
    {kDRAAdminAccess, {kDynamicResourceAllocation}},         // :2211
    {kDRAConsumableCapacity, {kDynamicResourceAllocation}},  // :2213
    {kDRADeviceBindingConditions,
     {kDynamicResourceAllocation, kDRAResourceClaimDeviceStatus}},  // :2215
    {kDRADeviceTaintRules, {kDRADeviceTaints}},                     // :2217
    {kDRADeviceTaints, {kDynamicResourceAllocation}},               // :2219
    {kDRAExtendedResource, {kDynamicResourceAllocation}},           // :2221
    {kDRAPartitionableDevices, {kDynamicResourceAllocation}},       // :2223
    {kDRAPrioritizedList, {kDynamicResourceAllocation}},            // :2225
    {kDRAResourceClaimDeviceStatus, {}},                            // :2227
    {kDRASchedulerFilterTimeout, {kDynamicResourceAllocation}},     // :2229
    {kDynamicResourceAllocation, {}},                               // :2239
    {kGangScheduling, {kGenericWorkload}},                          // :2249
    {kGenericWorkload, {}},                                         // :2251
    {kInPlacePodLevelResourcesVerticalScaling,
     {kInPlacePodVerticalScaling, kPodLevelResources,
      kNodeDeclaredFeatures}},                      // :2271
    {kInPlacePodVerticalScaling, {}},               // :2273
    {kMatchLabelKeysInPodAffinity, {}},             // :2321
    {kMatchLabelKeysInPodTopologySpread, {}},       // :2323
    {kNodeDeclaredFeatures, {}},                    // :2345
    {kNodeInclusionPolicyInPodTopologySpread, {}},  // :2347
    {kNominatedNodeNameForExpectation, {}},         // :2353
    {kOpportunisticBatching, {}},                   // :2355
    {kPodLevelResources, {}},                       // :2365
    {kPodSchedulingReadiness, {}},                  // :2377
    {kSchedulerAsyncAPICalls, {}},                  // :2421
    {kSchedulerAsyncPreemption, {}},                // :2423
    {kSchedulerPopFromBackoffQ, {}},                // :2425
    {kSchedulerQueueingHints, {}},                  // :2427
    {kSidecarContainers, {}},                       // :2443
    {kStorageCapacityScoring, {}},                  // :2447
    {kTaintTolerationComparisonOperators, {}},      // :2463
    {kVolumeAttributesClass, {}},                   // :2479
    {kVolumeLimitScaling, {}},                      // :2481
};

TEST(FeatureGatesTest, DependenciesAsKubeV135HasThem) {
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
            "emulation version 1.31 is not between [1.32, 1.35.0]");
  EXPECT_EQ(error("kube=1.36"),
            "emulation version 1.36 is not between [1.32, 1.35.0]");
  EXPECT_EQ(error("2.0"),
            "emulation version 2.0 is not between [1.32, 1.35.0]");
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
            "emulation version 1.31 is not between [1.32, 1.35.0]");
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
  EXPECT_EQ(ParseError("", "GangScheduling=true"),
            "GangScheduling is enabled, but depends on features that are "
            "disabled: [GenericWorkload]");
  EXPECT_EQ(ParseError("", "GangScheduling=true,GenericWorkload=true"),
            "(no error)");
  EXPECT_EQ(ParseError("",
                       "InPlacePodLevelResourcesVerticalScaling=true,"
                       "PodLevelResources=false"),
            "InPlacePodLevelResourcesVerticalScaling is enabled, but depends "
            "on features that are disabled: [PodLevelResources "
            "NodeDeclaredFeatures]");
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
    EXPECT_EQ(alpha->Enabled(f),
              spec.stage == Stage::kAlpha ? true : spec.default_on)
        << FeatureName(f);
  }
  // A gate named keeps its value, whatever AllAlpha says and in whatever
  // order.
  for (const char* flags : {"AllAlpha=true,GangScheduling=false",
                            "GangScheduling=false,AllAlpha=true"}) {
    auto named = FeatureGates::Parse("", flags, nullptr);
    ASSERT_TRUE(named.ok()) << named.error().message();
    EXPECT_FALSE(named->Enabled(kGangScheduling)) << flags;
    EXPECT_TRUE(named->Enabled(kGenericWorkload)) << flags;
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

TEST(FeatureGatesTest, EnabledGatesKschedDoesNotImplementAreNamed) {
  EXPECT_TRUE(EnabledWithoutEffect(FeatureGates()).empty());
  for (int minor = 32; minor <= 35; ++minor) {
    EXPECT_TRUE(EnabledWithoutEffect(FeatureGates({1, minor})).empty())
        << minor;
  }
  auto gang = FeatureGates::Parse(
      "", "GangScheduling=true,GenericWorkload=true,OpportunisticBatching=true",
      nullptr);
  ASSERT_TRUE(gang.ok());
  EXPECT_EQ(EnabledWithoutEffect(*gang),
            (std::vector<Feature>{kGangScheduling, kGenericWorkload}));
}

}  // namespace
}  // namespace ksched::config
