// metav1.Time and metav1.MicroTime: RFC 3339 timestamps.
//
// Both keep microseconds; they differ only in how they print (Time in whole
// seconds, MicroTime with six fractional digits), as the API server does.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "pkg/util/result.h"

namespace ksched::api {

using Timestamp = std::chrono::sys_time<std::chrono::microseconds>;

// Parses RFC 3339 ("2026-11-21T19:37:04Z", "...04.123456Z", "...04+01:00").
util::Result<Timestamp> ParseRfc3339(std::string_view text);
// "2026-11-21T19:37:04Z" (sub-second part dropped).
std::string FormatRfc3339(Timestamp t);
// "2026-11-21T19:37:04.123456Z".
std::string FormatRfc3339Micro(Timestamp t);

struct Time {
  Timestamp value{};
  bool IsZero() const { return value == Timestamp{}; }
  friend bool operator==(const Time&, const Time&) = default;
};

struct MicroTime {
  Timestamp value{};
  bool IsZero() const { return value == Timestamp{}; }
  friend bool operator==(const MicroTime&, const MicroTime&) = default;
};

}  // namespace ksched::api
