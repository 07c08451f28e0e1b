#include "pkg/config/feature_gates.h"

#include <gtest/gtest.h>

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

TEST(FeatureGatesTest, TurnedOnAndOffByName) {
  std::vector<std::string> warnings;
  auto off =
      FeatureGates::Parse("", " OpportunisticBatching = false ,", &warnings);
  ASSERT_TRUE(off.ok()) << off.error().message();
  EXPECT_FALSE(off->Enabled(kOpportunisticBatching));
  EXPECT_TRUE(warnings.empty());

  auto on = FeatureGates::Parse(
      "1.34", "kube:NominatedNodeNameForExpectation=true", &warnings);
  ASSERT_TRUE(on.ok()) << on.error().message();
  EXPECT_TRUE(on->Enabled(kNominatedNodeNameForExpectation));
}

TEST(FeatureGatesTest, UnknownNamesWarnAndBadValuesAreErrorsAsKubeWordsThem) {
  std::vector<std::string> warnings;
  auto unknown =
      FeatureGates::Parse("", "OpportunisticBatching=true,Foo=true", &warnings);
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(warnings,
            std::vector<std::string>{"unrecognized feature gate: Foo"});

  auto bad = FeatureGates::Parse("", "OpportunisticBatching=yes", nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            "invalid value of OpportunisticBatching=yes, err: "
            "strconv.ParseBool: parsing \"yes\": invalid syntax");

  auto bare = FeatureGates::Parse("", "OpportunisticBatching", nullptr);
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.error().message(),
            "missing bool value for OpportunisticBatching");
}

}  // namespace
}  // namespace ksched::config
