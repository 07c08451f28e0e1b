#include "pkg/config/duration.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace ksched::config {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

nanoseconds Parse(std::string_view text) {
  auto d = ParseGoDuration(text);
  EXPECT_TRUE(d.ok()) << text << ": " << d.error().message();
  return d.ok() ? *d : nanoseconds(-42);
}

// Cases from Go's time package tests (parseDurationTests).
TEST(ParseGoDurationTest, AcceptsWhatTimeParseDurationAccepts) {
  EXPECT_EQ(Parse("0"), nanoseconds(0));
  EXPECT_EQ(Parse("5s"), seconds(5));
  EXPECT_EQ(Parse("1478s"), seconds(1478));
  EXPECT_EQ(Parse("-5s"), seconds(-5));
  EXPECT_EQ(Parse("+5s"), seconds(5));
  EXPECT_EQ(Parse("-0"), nanoseconds(0));
  EXPECT_EQ(Parse("5.0s"), seconds(5));
  EXPECT_EQ(Parse("5.6s"), seconds(5) + milliseconds(600));
  EXPECT_EQ(Parse("5.s"), seconds(5));
  EXPECT_EQ(Parse(".5s"), milliseconds(500));
  EXPECT_EQ(Parse("1.004s"), seconds(1) + milliseconds(4));
  EXPECT_EQ(Parse("100.00100s"), seconds(100) + milliseconds(1));
  EXPECT_EQ(Parse("10ns"), nanoseconds(10));
  EXPECT_EQ(Parse("11us"), microseconds(11));
  EXPECT_EQ(Parse("12\xC2\xB5s"), microseconds(12));  // micro sign
  EXPECT_EQ(Parse("12\xCE\xBCs"), microseconds(12));  // Greek mu
  EXPECT_EQ(Parse("13ms"), milliseconds(13));
  EXPECT_EQ(Parse("15m"), minutes(15));
  EXPECT_EQ(Parse("16h"), hours(16));
  EXPECT_EQ(Parse("1m30s"), seconds(90));
  EXPECT_EQ(Parse("300ms"), milliseconds(300));
  EXPECT_EQ(Parse("1.5h"), minutes(90));
  EXPECT_EQ(Parse("10.5s4m"), minutes(4) + milliseconds(10500));
  EXPECT_EQ(Parse("-2m3.4s"), -(minutes(2) + milliseconds(3400)));
  EXPECT_EQ(Parse("1h2m3s4ms5us6ns"), hours(1) + minutes(2) + seconds(3) +
                                          milliseconds(4) + microseconds(5) +
                                          nanoseconds(6));
  EXPECT_EQ(Parse("0.3333333333333333333h"), minutes(20));
  EXPECT_EQ(Parse("9007199254740993ns"), nanoseconds((int64_t{1} << 53) + 1));
  EXPECT_EQ(Parse("0.830103483285477580700h"),
            minutes(49) + seconds(48) + nanoseconds(372539827));
}

TEST(ParseGoDurationTest, HandlesTheInt64Limits) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Parse("9223372036854775807ns"), nanoseconds(kMax));
  EXPECT_EQ(Parse("9223372036854775.807us"), nanoseconds(kMax));
  EXPECT_EQ(Parse("9223372036s854ms775us807ns"), nanoseconds(kMax));
  EXPECT_EQ(Parse("-9223372036s854ms775us808ns"), nanoseconds(kMin));
  EXPECT_EQ(Parse("-9223372036854775808ns"), nanoseconds(kMin));
  EXPECT_EQ(Parse("-2562047h47m16.854775808s"), nanoseconds(kMin));
  EXPECT_FALSE(ParseGoDuration("9223372036854775808ns").ok());
  EXPECT_FALSE(ParseGoDuration("9223372036854775.808us").ok());
  EXPECT_FALSE(ParseGoDuration("9223372036854ms775us808ns").ok());
  EXPECT_FALSE(ParseGoDuration("-9223372036854775809ns").ok());
}

TEST(ParseGoDurationTest, RejectsWithGoMessages) {
  for (std::string_view bad : {"", "-", "s", ".", "-.", ".s", "+.s"}) {
    auto d = ParseGoDuration(bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.error().message(),
              "time: invalid duration \"" + std::string(bad) + "\"");
  }
  EXPECT_EQ(ParseGoDuration("3").error().message(),
            "time: missing unit in duration \"3\"");
  EXPECT_EQ(ParseGoDuration("1d").error().message(),
            "time: unknown unit \"d\" in duration \"1d\"");
  EXPECT_EQ(ParseGoDuration("\x85\x85").error().message(),
            "time: invalid duration \"\\x85\\x85\"");
  EXPECT_EQ(ParseGoDuration("15 s").error().message(),
            "time: unknown unit \" s\" in duration \"15 s\"");
}

// Cases from Go's time package tests (durationTests).
TEST(FormatGoDurationTest, WritesWhatDurationStringWrites) {
  EXPECT_EQ(FormatGoDuration(nanoseconds(0)), "0s");
  EXPECT_EQ(FormatGoDuration(nanoseconds(1)), "1ns");
  EXPECT_EQ(FormatGoDuration(nanoseconds(1100)), "1.1\xC2\xB5s");
  EXPECT_EQ(FormatGoDuration(microseconds(2200)), "2.2ms");
  EXPECT_EQ(FormatGoDuration(milliseconds(3300)), "3.3s");
  EXPECT_EQ(FormatGoDuration(minutes(4) + seconds(5)), "4m5s");
  EXPECT_EQ(FormatGoDuration(minutes(4) + milliseconds(5001)), "4m5.001s");
  EXPECT_EQ(FormatGoDuration(hours(5) + minutes(6) + milliseconds(7001)),
            "5h6m7.001s");
  EXPECT_EQ(FormatGoDuration(minutes(8) + nanoseconds(1)), "8m0.000000001s");
  EXPECT_EQ(FormatGoDuration(hours(2)), "2h0m0s");
  EXPECT_EQ(FormatGoDuration(seconds(-1)), "-1s");
  EXPECT_EQ(FormatGoDuration(nanoseconds(std::numeric_limits<int64_t>::max())),
            "2562047h47m16.854775807s");
  EXPECT_EQ(FormatGoDuration(nanoseconds(std::numeric_limits<int64_t>::min())),
            "-2562047h47m16.854775808s");
}

TEST(GoDurationTest, FormatThenParseIsIdentity) {
  for (int64_t ns :
       {int64_t{1}, int64_t{999}, int64_t{1'000'001}, int64_t{15'000'000'000},
        int64_t{-90'000'000'000}, int64_t{3'723'000'000'007}}) {
    EXPECT_EQ(Parse(FormatGoDuration(nanoseconds(ns))), nanoseconds(ns)) << ns;
  }
}

}  // namespace
}  // namespace ksched::config
