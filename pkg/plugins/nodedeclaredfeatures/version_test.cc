#include "pkg/plugins/nodedeclaredfeatures/version.h"

#include <gtest/gtest.h>

namespace ksched::plugins::nodedeclaredfeatures {
namespace {

SemanticVersion ParseOrFail(const char* text) {
  std::optional<SemanticVersion> v = SemanticVersion::Parse(text);
  EXPECT_TRUE(v.has_value()) << text;
  return v.value_or(SemanticVersion{});
}

TEST(SemanticVersionTest, Parses) {
  EXPECT_EQ(ParseOrFail("1.36.0"), (SemanticVersion{1, 36, 0, ""}));
  EXPECT_EQ(ParseOrFail("v1.36.3"), (SemanticVersion{1, 36, 3, ""}));
  EXPECT_EQ(ParseOrFail("1.39.0-alpha.2.39+049eafd34dfbd2"),
            (SemanticVersion{1, 39, 0, "alpha.2.39"}));
  EXPECT_EQ(ParseOrFail("0.0.0-alpha.2.39+049eafd34dfbd2"),
            (SemanticVersion{0, 0, 0, "alpha.2.39"}));
  for (const char* bad : {"", "1.36", "1.36.0.1", "1.x.0", "01.36.0", "1.36.0-",
                          "1.36.0+", "1.36.0-al_pha", "1.36.0-a..b"}) {
    EXPECT_FALSE(SemanticVersion::Parse(bad).has_value()) << bad;
  }
}

TEST(SemanticVersionTest, OrdersAsApimachinery) {
  EXPECT_TRUE(ParseOrFail("1.31.0").GreaterThan(ParseOrFail("1.30.0")));
  EXPECT_TRUE(ParseOrFail("1.30.1").GreaterThan(ParseOrFail("1.30.0")));
  EXPECT_TRUE(ParseOrFail("2.0.0").GreaterThan(ParseOrFail("1.38.9")));
  EXPECT_FALSE(ParseOrFail("1.30.0").GreaterThan(ParseOrFail("1.30.0")));
  EXPECT_FALSE(ParseOrFail("1.34.0").GreaterThan(ParseOrFail("1.38.0")));
  // A pre-release of a later version is later; of the same version, earlier.
  EXPECT_TRUE(ParseOrFail("1.39.0-alpha.2.39+049eafd34dfbd2")
                  .GreaterThan(ParseOrFail("1.38.0")));
  EXPECT_FALSE(ParseOrFail("1.38.0-rc.1").GreaterThan(ParseOrFail("1.38.0")));
  EXPECT_TRUE(ParseOrFail("1.38.0").GreaterThan(ParseOrFail("1.38.0-rc.1")));
  EXPECT_FALSE(ParseOrFail("0.0.0-alpha.2.39+049eafd34dfbd2")
                   .GreaterThan(ParseOrFail("1.30.0")));
  // Identifiers: numbers as numbers, anything else as text, more is later.
  EXPECT_TRUE(
      ParseOrFail("1.0.0-alpha.10").GreaterThan(ParseOrFail("1.0.0-alpha.9")));
  EXPECT_TRUE(
      ParseOrFail("1.0.0-beta").GreaterThan(ParseOrFail("1.0.0-alpha.1")));
  EXPECT_TRUE(
      ParseOrFail("1.0.0-alpha.1").GreaterThan(ParseOrFail("1.0.0-alpha")));
  EXPECT_EQ(ParseOrFail("1.0.0-alpha+a").Compare(ParseOrFail("1.0.0-alpha+b")),
            0);
}

}  // namespace
}  // namespace ksched::plugins::nodedeclaredfeatures
