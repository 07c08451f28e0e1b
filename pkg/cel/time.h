// Go's time semantics, as cel-go's google.protobuf.Timestamp and
// google.protobuf.Duration values inherit them from time.Time and
// time.Duration: time.ParseDuration, time.Parse(time.RFC3339, ...),
// RFC3339Nano formatting, strconv.FormatFloat of Duration.Seconds(), civil
// fields in a time zone, and time.LoadLocation over the system's TZif files
// (with the POSIX TZ rule of their footer for times past the last
// transition).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/result.h"

namespace ksched::cel {

// A CEL timestamp: an instant plus the UTC offset of the zone it was written
// in. Only string() shows the offset (Go keeps a time's location and
// RFC3339 formatting prints it); equality and ordering look at the instant.
struct TimestampValue {
  int64_t seconds = 0;     // since the Unix epoch
  int32_t nanos = 0;       // [0, 1e9)
  int32_t utc_offset = 0;  // seconds east of UTC
};

namespace gotime {

constexpr int64_t kNanosPerSecond = 1000000000;
// cel-go's range: 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999999Z.
constexpr int64_t kMinUnixSeconds = -62135596800;
constexpr int64_t kMaxUnixSeconds = 253402300799;

// time.ParseDuration: nanoseconds, or nullopt when Go rejects the text
// (syntax, unknown unit or overflow).
std::optional<int64_t> ParseDuration(std::string_view s);

// strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s", cel-go's
// string(duration).
std::string FormatDurationSeconds(int64_t nanos);

// time.Duration's Hours(), Minutes() and Seconds() truncated to int64 as Go
// converts the float64 (cel-go's getHours/getMinutes/getSeconds).
int64_t DurationHours(int64_t nanos);
int64_t DurationMinutes(int64_t nanos);
int64_t DurationSeconds(int64_t nanos);

// time.Parse(time.RFC3339, s) with Go's lenient fallback parser (one-digit
// hours, ',' before fractional seconds, offsets up to 24:60). The range is
// not checked here.
std::optional<TimestampValue> ParseRfc3339(std::string_view s);

// t.Format(time.RFC3339Nano) in the timestamp's own offset.
std::string FormatRfc3339Nano(const TimestampValue& t);

// A time's civil fields in some zone, as time.Time's accessors report them.
struct Civil {
  int64_t year = 0;
  int month = 0;  // 1..12
  int day = 0;    // 1..31
  int hour = 0;
  int minute = 0;
  int second = 0;
  int nanos = 0;
  int weekday = 0;  // 0 = Sunday
  int yearday = 0;  // 1..366
};
// The civil fields of the instant `local_seconds` counted in local time.
Civil CivilFromSeconds(int64_t local_seconds, int32_t nanos);

// A time zone read from TZif data (Go's Location).
class TimeZone {
 public:
  // Go's UTC.
  static TimeZone Utc();
  // Go's LoadLocationFromTZData; nullopt for malformed data.
  static std::optional<TimeZone> FromTzif(std::string_view data);

  // Seconds east of UTC in effect at the instant (Go's Location.lookup).
  int32_t OffsetAt(int64_t unix_seconds) const;

 private:
  struct Zone {
    int32_t offset = 0;
    bool is_dst = false;
  };
  struct Transition {
    int64_t when = 0;
    uint8_t index = 0;
  };
  size_t FirstZone() const;

  std::vector<Zone> zones_;
  std::vector<Transition> transitions_;
  std::string extend_;  // the POSIX TZ string of a version 2+ footer
};

// time.LoadLocation(name) over /usr/share/zoneinfo ("", "UTC" and "Local"
// as Go treats them); the error is Go's message.
util::Result<std::shared_ptr<const TimeZone>> LoadLocation(
    std::string_view name);

// The offset (seconds east of UTC) at the instant in the zone a CEL
// time-zone argument names: an IANA name, or "[+-]hh:mm" read as cel-go
// reads it (strconv.Atoi of either side of the first ':'). The error is
// the message cel-go reports.
util::Result<int64_t> ZoneOffsetAt(std::string_view zone, int64_t unix_seconds);

}  // namespace gotime
}  // namespace ksched::cel
