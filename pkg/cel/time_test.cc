#include "pkg/cel/time.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace ksched::cel::gotime {
namespace {

constexpr int64_t kSecond = 1000000000;

TEST(GoDuration, ParsesGoSyntax) {
  EXPECT_EQ(ParseDuration("1h45m47s"), 6347 * kSecond);
  EXPECT_EQ(ParseDuration("1.5h"), 5400 * kSecond);
  EXPECT_EQ(ParseDuration("-1.5ms"), -1500000);
  EXPECT_EQ(ParseDuration("+.5s"), kSecond / 2);
  EXPECT_EQ(ParseDuration("1.s"), kSecond);
  EXPECT_EQ(ParseDuration("0"), 0);
  EXPECT_EQ(ParseDuration("-0"), 0);
  EXPECT_EQ(ParseDuration("1us"), 1000);
  EXPECT_EQ(ParseDuration("1\xC2\xB5s"), 1000);  // U+00B5
  EXPECT_EQ(ParseDuration("1\xCE\xBCs"), 1000);  // U+03BC
  EXPECT_EQ(ParseDuration("1h1h"), 7200 * kSecond);
  // Fractions beyond nanoseconds are truncated.
  EXPECT_EQ(ParseDuration("0.0000000019s"), 1);
}

TEST(GoDuration, RejectsWhatGoRejects) {
  EXPECT_EQ(ParseDuration(""), std::nullopt);
  EXPECT_EQ(ParseDuration("1"), std::nullopt);  // missing unit
  EXPECT_EQ(ParseDuration("1d"), std::nullopt);
  EXPECT_EQ(ParseDuration("."), std::nullopt);
  EXPECT_EQ(ParseDuration("-.s"), std::nullopt);
  EXPECT_EQ(ParseDuration("1s "), std::nullopt);
  EXPECT_EQ(ParseDuration(" 1s"), std::nullopt);
}

TEST(GoDuration, Limits) {
  EXPECT_EQ(ParseDuration("9223372036854775807ns"), INT64_MAX);
  EXPECT_EQ(ParseDuration("9223372036854775808ns"), std::nullopt);
  EXPECT_EQ(ParseDuration("-9223372036854775808ns"), INT64_MIN);
  EXPECT_EQ(ParseDuration("2562047h47m16.854775807s"), INT64_MAX);
  EXPECT_EQ(ParseDuration("2562048h"), std::nullopt);
}

TEST(GoDuration, FormatsSecondsAsCelGo) {
  EXPECT_EQ(FormatDurationSeconds(3600 * kSecond), "3600s");
  EXPECT_EQ(FormatDurationSeconds(0), "0s");
  EXPECT_EQ(FormatDurationSeconds(1), "0.000000001s");
  EXPECT_EQ(FormatDurationSeconds(-1500000000), "-1.5s");
  EXPECT_EQ(FormatDurationSeconds(INT64_MAX), "9223372036.854776s");
}

TEST(GoDuration, Accessors) {
  EXPECT_EQ(DurationHours(-5400 * kSecond), -1);
  EXPECT_EQ(DurationMinutes(90 * kSecond), 1);
  EXPECT_EQ(DurationSeconds(-1500000000), -1);
  EXPECT_EQ(DurationHours(INT64_MAX), 2562047);
  // Go adds the remainder in float64, which rounds up here.
  constexpr int64_t kHour = 3600 * kSecond;
  EXPECT_EQ(DurationHours(2562046 * kHour + kHour - 1), 2562047);
}

TEST(GoRfc3339, ParsesAndFormats) {
  auto t = ParseRfc3339("2011-01-01T00:00:00.000+01:00");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->seconds, 1293836400);
  EXPECT_EQ(t->utc_offset, 3600);
  EXPECT_EQ(FormatRfc3339Nano(*t), "2011-01-01T00:00:00+01:00");
  t = ParseRfc3339("2023-02-03T23:31:20+00:00");
  ASSERT_TRUE(t);
  EXPECT_EQ(FormatRfc3339Nano(*t), "2023-02-03T23:31:20Z");
  t = ParseRfc3339("0001-01-01T00:00:00.1234567891Z");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->seconds, kMinUnixSeconds);
  EXPECT_EQ(t->nanos, 123456789);
  EXPECT_EQ(FormatRfc3339Nano(*t), "0001-01-01T00:00:00.123456789Z");
}

TEST(GoRfc3339, LenientFallbackAndErrors) {
  // Go's general parser takes a one-digit hour and a comma.
  auto t = ParseRfc3339("2006-01-02T3:04:05,5-07:00");
  ASSERT_TRUE(t);
  EXPECT_EQ(FormatRfc3339Nano(*t), "2006-01-02T03:04:05.5-07:00");
  EXPECT_FALSE(ParseRfc3339("2006-02-29T00:00:00Z"));
  EXPECT_FALSE(ParseRfc3339("2006-01-02 15:04:05Z"));
  EXPECT_FALSE(ParseRfc3339("2006-01-02T15:04:05"));
  EXPECT_FALSE(ParseRfc3339("2006-01-02T15:04:05z"));
  EXPECT_FALSE(ParseRfc3339("2006-01-02T24:00:00Z"));
  EXPECT_FALSE(ParseRfc3339("2006-01-02T15:04:05+0700"));
}

TEST(GoCivil, Fields) {
  // 2023-07-14T10:30:45.123Z, a Friday.
  const Civil c = CivilFromSeconds(1689330645, 123000000);
  EXPECT_EQ(c.year, 2023);
  EXPECT_EQ(c.month, 7);
  EXPECT_EQ(c.day, 14);
  EXPECT_EQ(c.hour, 10);
  EXPECT_EQ(c.minute, 30);
  EXPECT_EQ(c.second, 45);
  EXPECT_EQ(c.weekday, 5);
  EXPECT_EQ(c.yearday, 195);
  // Before the epoch: 1969-12-31T23:59:59Z, a Wednesday.
  const Civil d = CivilFromSeconds(-1, 0);
  EXPECT_EQ(d.year, 1969);
  EXPECT_EQ(d.yearday, 365);
  EXPECT_EQ(d.weekday, 3);
  EXPECT_EQ(d.second, 59);
}

// Builds a version 2 TZif file: one transition to a zone at +1h, and the
// footer rule `rule`.
std::string TzifV2(int64_t when, const std::string& rule) {
  auto be32 = [](std::string& out, uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8)
      out += static_cast<char>((v >> shift) & 0xFF);
  };
  auto header = [&](std::string& out, uint32_t timecnt) {
    out += "TZif2";
    out += std::string(15, '\0');
    // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
    for (uint32_t v : {0u, 0u, 0u, timecnt, 2u, 8u}) be32(out, v);
  };
  auto zones = [&](std::string& out) {
    be32(out, 0);  // LMT-ish standard zone at UTC
    out += '\0';
    out += '\0';
    be32(out, 3600);  // +1h, not DST
    out += '\0';
    out += '\4';
    out += std::string("UTC\0CET\0", 8);
  };
  std::string out;
  header(out, 1);
  be32(out, static_cast<uint32_t>(when));
  out += '\1';
  zones(out);
  header(out, 1);
  be32(out, static_cast<uint32_t>(static_cast<uint64_t>(when) >> 32));
  be32(out, static_cast<uint32_t>(when));
  out += '\1';
  zones(out);
  out += "\n" + rule + "\n";
  return out;
}

TEST(TzifReader, TransitionsAndFooterRule) {
  // From 1000 on, +1h; past the last transition the footer applies:
  // CET-1CEST with EU rules.
  const std::string data = TzifV2(1000, "CET-1CEST,M3.5.0,M10.5.0/3");
  const std::optional<TimeZone> tz = TimeZone::FromTzif(data);
  ASSERT_TRUE(tz);
  EXPECT_EQ(tz->OffsetAt(999), 0);
  // 2024-01-15T12:00:00Z: standard time.
  EXPECT_EQ(tz->OffsetAt(1705320000), 3600);
  // 2024-07-15T12:00:00Z: summer time.
  EXPECT_EQ(tz->OffsetAt(1721044800), 7200);
  // The EU switch in 2024: 2024-03-31T01:00:00Z.
  EXPECT_EQ(tz->OffsetAt(1711846799), 3600);
  EXPECT_EQ(tz->OffsetAt(1711846800), 7200);
}

TEST(TzifReader, RejectsMalformedData) {
  EXPECT_FALSE(TimeZone::FromTzif(""));
  EXPECT_FALSE(TimeZone::FromTzif("TZif2"));
  std::string data = TzifV2(1000, "CET-1");
  data.resize(data.size() / 2);
  EXPECT_FALSE(TimeZone::FromTzif(data));
}

TEST(TimeZones, FixedOffsetsAsCelGoReadsThem) {
  EXPECT_EQ(*ZoneOffsetAt("+05:30", 0), 19800);
  EXPECT_EQ(*ZoneOffsetAt("-08:00", 0), -28800);
  EXPECT_EQ(*ZoneOffsetAt("-00:30", 0), -1800);
  EXPECT_EQ(ZoneOffsetAt("x:00", 0).error().message(),
            "strconv.Atoi: parsing \"x\": invalid syntax");
  EXPECT_EQ(ZoneOffsetAt("+01:00:00", 0).error().message(),
            "strconv.Atoi: parsing \"00:00\": invalid syntax");
}

TEST(TimeZones, NamedZones) {
  EXPECT_EQ(*ZoneOffsetAt("UTC", 12345), 0);
  EXPECT_EQ(ZoneOffsetAt("Mars/Olympus_Mons", 0).error().message(),
            "unknown time zone Mars/Olympus_Mons");
  EXPECT_EQ(ZoneOffsetAt("../etc/passwd", 0).error().message(),
            "time: invalid location name");
  if (!std::filesystem::exists("/usr/share/zoneinfo/America/New_York")) {
    GTEST_SKIP() << "no system time zone database";
  }
  // 2023-01-01T05:30:00Z and 2023-07-01T05:00:00Z.
  EXPECT_EQ(*ZoneOffsetAt("America/New_York", 1672551000), -5 * 3600);
  EXPECT_EQ(*ZoneOffsetAt("America/New_York", 1688187600), -4 * 3600);
  // 2100-07-01T00:00:00Z, past any table: the footer rule.
  EXPECT_EQ(*ZoneOffsetAt("America/New_York", 4118083200), -4 * 3600);
}

}  // namespace
}  // namespace ksched::cel::gotime
