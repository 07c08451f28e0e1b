// The standard library's google.protobuf.Timestamp and
// google.protobuf.Duration functions (cel-go v0.26.0 common/stdlib and
// common/types): conversions, arithmetic with cel-go's overflow checks,
// comparisons and the time accessors, with and without a time zone.
#include <cstdint>
#include <limits>
#include <string>

#include "pkg/cel/compare.h"
#include "pkg/cel/stdlib.h"
#include "pkg/cel/time.h"

namespace ksched::cel {
// Named so that unity builds keep these helpers apart from other files'.
namespace stdlib_time {
namespace {

using Args = std::span<const Value>;
using gotime::kNanosPerSecond;

Value IntOverflow() { return Value::Error("integer overflow"); }
Value TimestampOverflow() { return Value::Error("timestamp overflow"); }

bool InRange(int64_t unix_seconds) {
  return unix_seconds >= gotime::kMinUnixSeconds &&
         unix_seconds <= gotime::kMaxUnixSeconds;
}

Value ConversionError(std::string_view from, std::string_view to) {
  return Value::Error("type conversion error from '" + std::string(from) +
                      "' to '" + std::string(to) + "'");
}

// cel-go's addTimeDurationChecked: seconds and nanoseconds added apart so
// that nothing overflows silently, then the range check. The result keeps
// the timestamp's zone.
Value AddTimeDuration(const TimestampValue& t, int64_t d) {
  int64_t sec;
  if (__builtin_add_overflow(t.seconds, d / kNanosPerSecond, &sec))
    return IntOverflow();
  int64_t nsec = t.nanos + d % kNanosPerSecond;
  if (nsec < 0 || nsec >= kNanosPerSecond) {
    if (__builtin_add_overflow(sec, nsec / kNanosPerSecond, &sec))
      return IntOverflow();
    nsec -= (nsec / kNanosPerSecond) * kNanosPerSecond;
    if (nsec < 0) {
      if (__builtin_add_overflow(sec, int64_t{-1}, &sec)) return IntOverflow();
      nsec += kNanosPerSecond;
    }
  }
  if (!InRange(sec)) return TimestampOverflow();
  return Value::TimestampOf(
      TimestampValue{sec, static_cast<int32_t>(nsec), t.utc_offset});
}

// cel-go's subtractTimeChecked.
Value SubtractTimes(const TimestampValue& x, const TimestampValue& y) {
  int64_t sec, tsec, val;
  if (__builtin_sub_overflow(x.seconds, y.seconds, &sec)) return IntOverflow();
  const int64_t nsec = int64_t{x.nanos} - y.nanos;
  if (__builtin_mul_overflow(sec, kNanosPerSecond, &tsec)) return IntOverflow();
  if (__builtin_add_overflow(tsec, nsec, &val)) return IntOverflow();
  return Value::Duration(val);
}

// The civil fields of a timestamp in the zone a CEL argument names.
template <typename F>
Value InZone(const Value& ts, std::string_view zone, F field) {
  const TimestampValue& t = ts.timestamp();
  util::Result<int64_t> offset = gotime::ZoneOffsetAt(zone, t.seconds);
  if (!offset.ok()) return Value::Error(offset.error().message());
  // Go adds the offset in wrapping int64 arithmetic.
  const int64_t local = static_cast<int64_t>(static_cast<uint64_t>(t.seconds) +
                                             static_cast<uint64_t>(*offset));
  return Value::Int(field(gotime::CivilFromSeconds(local, t.nanos)));
}

void AddConversions(FunctionRegistry& r) {
  const Type ts = Type::Timestamp();
  const Type dur = Type::Duration();
  r.Add("timestamp", Global("timestamp_to_timestamp", {ts}, ts,
                            [](Args x) { return x[0]; }));
  r.Add("timestamp",
        Global("int64_to_timestamp", {Type::Int()}, ts, [](Args x) {
          const int64_t s = x[0].int_value();
          if (!InRange(s)) return TimestampOverflow();
          return Value::TimestampOf(TimestampValue{s, 0, 0});
        }));
  r.Add("timestamp",
        Global("string_to_timestamp", {Type::String()}, ts, [](Args x) {
          std::optional<TimestampValue> t =
              gotime::ParseRfc3339(x[0].string_value());
          if (!t) return ConversionError("string", "google.protobuf.Timestamp");
          if (!InRange(t->seconds)) return TimestampOverflow();
          return Value::TimestampOf(*t);
        }));
  r.Add("duration", Global("duration_to_duration", {dur}, dur,
                           [](Args x) { return x[0]; }));
  // Declared, but cel-go's int has no conversion to a duration.
  r.Add("duration", Global("int64_to_duration", {Type::Int()}, dur, [](Args) {
          return ConversionError("int", "google.protobuf.Duration");
        }));
  r.Add("duration",
        Global("string_to_duration", {Type::String()}, dur, [](Args x) {
          std::optional<int64_t> d = gotime::ParseDuration(x[0].string_value());
          if (!d) return ConversionError("string", "google.protobuf.Duration");
          return Value::Duration(*d);
        }));
  r.Add("int", Global("duration_to_int64", {dur}, Type::Int(), [](Args x) {
          return Value::Int(x[0].duration_nanos());
        }));
  r.Add("int", Global("timestamp_to_int64", {ts}, Type::Int(), [](Args x) {
          return Value::Int(x[0].timestamp().seconds);
        }));
  r.Add("string",
        Global("duration_to_string", {dur}, Type::String(), [](Args x) {
          return Value::String(
              gotime::FormatDurationSeconds(x[0].duration_nanos()));
        }));
  r.Add("string",
        Global("timestamp_to_string", {ts}, Type::String(), [](Args x) {
          return Value::String(gotime::FormatRfc3339Nano(x[0].timestamp()));
        }));
}

void AddArithmetic(FunctionRegistry& r) {
  const Type ts = Type::Timestamp();
  const Type dur = Type::Duration();
  r.Add("_+_", Global("add_duration_duration", {dur, dur}, dur, [](Args x) {
          int64_t out;
          if (__builtin_add_overflow(x[0].duration_nanos(),
                                     x[1].duration_nanos(), &out))
            return IntOverflow();
          return Value::Duration(out);
        }));
  r.Add("_+_", Global("add_duration_timestamp", {dur, ts}, ts, [](Args x) {
          return AddTimeDuration(x[1].timestamp(), x[0].duration_nanos());
        }));
  r.Add("_+_", Global("add_timestamp_duration", {ts, dur}, ts, [](Args x) {
          return AddTimeDuration(x[0].timestamp(), x[1].duration_nanos());
        }));
  r.Add("_-_",
        Global("subtract_duration_duration", {dur, dur}, dur, [](Args x) {
          int64_t out;
          if (__builtin_sub_overflow(x[0].duration_nanos(),
                                     x[1].duration_nanos(), &out))
            return IntOverflow();
          return Value::Duration(out);
        }));
  r.Add("_-_", Global("subtract_timestamp_duration", {ts, dur}, ts, [](Args x) {
          // x - d is x + (-d), with the negation checked first.
          const int64_t d = x[1].duration_nanos();
          if (d == std::numeric_limits<int64_t>::min()) return IntOverflow();
          return AddTimeDuration(x[0].timestamp(), -d);
        }));
  r.Add("_-_",
        Global("subtract_timestamp_timestamp", {ts, ts}, dur, [](Args x) {
          return SubtractTimes(x[0].timestamp(), x[1].timestamp());
        }));
}

void AddComparisons(FunctionRegistry& r) {
  struct Op {
    const char* fn;
    const char* prefix;
    bool (*pred)(int64_t);
  };
  static const Op ops[] = {
      {"_<_", "less", [](int64_t c) { return c < 0; }},
      {"_<=_", "less_equals", [](int64_t c) { return c <= 0; }},
      {"_>_", "greater", [](int64_t c) { return c > 0; }},
      {"_>=_", "greater_equals", [](int64_t c) { return c >= 0; }},
  };
  for (const Op& op : ops) {
    for (const auto& [suffix, type] :
         {std::pair<const char*, Type>{"timestamp", Type::Timestamp()},
          std::pair<const char*, Type>{"duration", Type::Duration()}}) {
      auto pred = op.pred;
      r.Add(op.fn, Global(std::string(op.prefix) + "_" + suffix, {type, type},
                          Type::Bool(), [pred](Args a) {
                            const Value c = Compare(a[0], a[1]);
                            if (c.is_error()) return c;
                            return Value::Bool(pred(c.int_value()));
                          }));
    }
  }
}

// The timestamp accessors: `<name>()` in UTC and `<name>(tz)`.
void AddAccessors(FunctionRegistry& r) {
  using Field = int64_t (*)(const gotime::Civil&);
  struct Accessor {
    const char* fn;
    const char* id;     // overload id without a zone
    const char* id_tz;  // with one
    Field field;
  };
  static const Accessor accessors[] = {
      {"getFullYear", "timestamp_to_year", "timestamp_to_year_with_tz",
       [](const gotime::Civil& c) { return c.year; }},
      {"getMonth", "timestamp_to_month", "timestamp_to_month_with_tz",
       [](const gotime::Civil& c) { return int64_t{c.month - 1}; }},
      {"getDayOfYear", "timestamp_to_day_of_year",
       "timestamp_to_day_of_year_with_tz",
       [](const gotime::Civil& c) { return int64_t{c.yearday - 1}; }},
      {"getDayOfMonth", "timestamp_to_day_of_month",
       "timestamp_to_day_of_month_with_tz",
       [](const gotime::Civil& c) { return int64_t{c.day - 1}; }},
      {"getDate", "timestamp_to_day_of_month_1_based",
       "timestamp_to_day_of_month_1_based_with_tz",
       [](const gotime::Civil& c) { return int64_t{c.day}; }},
      {"getDayOfWeek", "timestamp_to_day_of_week",
       "timestamp_to_day_of_week_with_tz",
       [](const gotime::Civil& c) { return int64_t{c.weekday}; }},
      {"getHours", "timestamp_to_hours", "timestamp_to_hours_with_tz",
       [](const gotime::Civil& c) { return int64_t{c.hour}; }},
      {"getMinutes", "timestamp_to_minutes", "timestamp_to_minutes_with_tz",
       [](const gotime::Civil& c) { return int64_t{c.minute}; }},
      {"getSeconds", "timestamp_to_seconds", "timestamp_to_seconds_tz",
       [](const gotime::Civil& c) { return int64_t{c.second}; }},
      {"getMilliseconds", "timestamp_to_milliseconds",
       "timestamp_to_milliseconds_with_tz",
       [](const gotime::Civil& c) { return int64_t{c.nanos / 1000000}; }},
  };
  const Type ts = Type::Timestamp();
  for (const Accessor& a : accessors) {
    const Field field = a.field;
    r.Add(a.fn, Member(a.id, {ts}, Type::Int(),
                       [field](Args x) { return InZone(x[0], "UTC", field); }));
    r.Add(a.fn,
          Member(a.id_tz, {ts, Type::String()}, Type::Int(), [field](Args x) {
            return InZone(x[0], x[1].string_value(), field);
          }));
  }
  const Type dur = Type::Duration();
  r.Add("getHours", Member("duration_to_hours", {dur}, Type::Int(), [](Args x) {
          return Value::Int(gotime::DurationHours(x[0].duration_nanos()));
        }));
  r.Add("getMinutes",
        Member("duration_to_minutes", {dur}, Type::Int(), [](Args x) {
          return Value::Int(gotime::DurationMinutes(x[0].duration_nanos()));
        }));
  r.Add("getSeconds",
        Member("duration_to_seconds", {dur}, Type::Int(), [](Args x) {
          return Value::Int(gotime::DurationSeconds(x[0].duration_nanos()));
        }));
  r.Add("getMilliseconds",
        Member("duration_to_milliseconds", {dur}, Type::Int(), [](Args x) {
          return Value::Int(x[0].duration_nanos() / 1000000);
        }));
}

}  // namespace
}  // namespace stdlib_time

void RegisterTimeFunctions(FunctionRegistry& registry) {
  stdlib_time::AddConversions(registry);
  stdlib_time::AddArithmetic(registry);
  stdlib_time::AddComparisons(registry);
  stdlib_time::AddAccessors(registry);
}

}  // namespace ksched::cel
