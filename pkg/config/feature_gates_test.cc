#include "pkg/config/feature_gates.h"

#include <gtest/gtest.h>

namespace ksched::config {
namespace {

TEST(FeatureGatesTest, OffByDefaultAndTurnedOnByName) {
  auto none = ParseFeatureGates("");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->opportunistic_batching);

  auto on = ParseFeatureGates("OpportunisticBatching=true");
  ASSERT_TRUE(on.ok()) << on.error().message();
  EXPECT_TRUE(on->opportunistic_batching);

  auto off = ParseFeatureGates(" OpportunisticBatching = false ,");
  ASSERT_TRUE(off.ok()) << off.error().message();
  EXPECT_FALSE(off->opportunistic_batching);
}

TEST(FeatureGatesTest, UnknownNamesAndBadValuesAreErrorsAsKubeWordsThem) {
  auto unknown = ParseFeatureGates("OpportunisticBatching=true,Foo=true");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message(), "unrecognized feature gate: Foo");

  auto bad = ParseFeatureGates("OpportunisticBatching=yes");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            "invalid value of OpportunisticBatching=yes, err: "
            "strconv.ParseBool: parsing \"yes\": invalid syntax");

  auto bare = ParseFeatureGates("OpportunisticBatching");
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.error().message(),
            "missing bool value for OpportunisticBatching");
}

}  // namespace
}  // namespace ksched::config
