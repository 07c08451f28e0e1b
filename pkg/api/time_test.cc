#include "pkg/api/time.h"

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

TEST(TimeTest, ParsesAndFormatsRfc3339) {
  struct Case {
    const char* in;
    const char* seconds;
    const char* micros;
  } cases[] = {
      {"2026-11-21T19:37:04Z", "2026-11-21T19:37:04Z",
       "2026-11-21T19:37:04.000000Z"},
      {"2026-11-21T19:38:49.127530Z", "2026-11-21T19:38:49Z",
       "2026-11-21T19:38:49.127530Z"},
      {"2026-11-21T19:38:49.1Z", "2026-11-21T19:38:49Z",
       "2026-11-21T19:38:49.100000Z"},
      // Sub-microsecond digits are dropped, offsets are applied.
      {"2026-11-21T19:38:49.123456789Z", "2026-11-21T19:38:49Z",
       "2026-11-21T19:38:49.123456Z"},
      {"2026-11-21T20:37:04+01:00", "2026-11-21T19:37:04Z",
       "2026-11-21T19:37:04.000000Z"},
      {"2026-01-01T00:30:00-01:00", "2026-01-01T01:30:00Z",
       "2026-01-01T01:30:00.000000Z"},
      {"1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z",
       "1970-01-01T00:00:00.000000Z"},
      {"2024-02-29t23:59:59z", "2024-02-29T23:59:59Z",
       "2024-02-29T23:59:59.000000Z"},
  };
  for (const Case& c : cases) {
    auto t = ParseRfc3339(c.in);
    ASSERT_TRUE(t.ok()) << c.in << ": " << t.error().message();
    EXPECT_EQ(FormatRfc3339(*t), c.seconds) << c.in;
    EXPECT_EQ(FormatRfc3339Micro(*t), c.micros) << c.in;
  }
}

TEST(TimeTest, RejectsMalformedTimes) {
  for (const char* bad :
       {"", "2026-11-21", "2026-11-21 19:37:04Z", "2026-11-21T19:37:04",
        "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-21T25:00:00Z",
        "2026-11-21T19:37:04.Z", "2026-11-21T19:37:04+0100",
        "2026-11-21T19:37:04Zjunk", "yesterday"}) {
    auto t = ParseRfc3339(bad);
    EXPECT_FALSE(t.ok()) << bad;
    if (!t.ok()) {
      EXPECT_NE(t.error().message().find("invalid RFC 3339 time"),
                std::string::npos);
    }
  }
}

}  // namespace
}  // namespace ksched::api
