#include "pkg/util/long_values.h"

#include <gtest/gtest.h>

namespace ksched::util {
namespace {

TEST(ElideLongValueTest, KeepsValuesUpToTheBound) {
  EXPECT_EQ(ElideLongValue("node-1"), "node-1");
  const std::string at_bound(kLongValueBytes, 'a');
  EXPECT_EQ(ElideLongValue(at_bound), at_bound);
}

TEST(ElideLongValueTest, CutsLongerValuesAndSaysHowLongTheyWere) {
  const std::string name(10 * 1024 * 1024, 'n');
  EXPECT_EQ(ElideLongValue(name),
            std::string(kLongValueKeptBytes, 'n') + "...(10485760 bytes)");
}

TEST(ElideLongValueTest, NeverSplitsAUtf8Sequence) {
  // "é" is two bytes: the cut would fall inside the 128th.
  std::string value = "x";
  while (value.size() <= kLongValueBytes) value += "\xC3\xA9";
  const std::string cut = ElideLongValue(value);
  EXPECT_EQ(cut.substr(0, kLongValueKeptBytes - 1),
            value.substr(0, kLongValueKeptBytes - 1));
  EXPECT_EQ(cut.substr(kLongValueKeptBytes - 1, 3), "...");
}

}  // namespace
}  // namespace ksched::util
