#include "pkg/cel/time.h"

#include <sys/stat.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>

#include "pkg/cel/lib_internal.h"

namespace ksched::cel::gotime {
// Named so that unity builds keep these helpers apart from other files'.
namespace time_detail {
namespace {

constexpr int64_t kSecondsPerDay = 86400;
constexpr uint64_t kTwoTo63 = uint64_t{1} << 63;

bool IsDigit(std::string_view s, size_t i) {
  return i < s.size() && s[i] >= '0' && s[i] <= '9';
}

bool IsLeap(int64_t year) {
  return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

int DaysIn(int month, int64_t year) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
  if (month == 2 && IsLeap(year)) return 29;
  return kDays[month - 1];
}

// Days from 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's
// days_from_civil), valid far beyond the years CEL allows.
int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// --- time.ParseDuration -----------------------------------------------------

// Go's leadingInt: digits into a uint64, failing past 1<<63.
bool LeadingInt(std::string_view& s, uint64_t* x) {
  *x = 0;
  size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (*x > kTwoTo63 / 10) return false;
    *x = *x * 10 + static_cast<uint64_t>(s[i] - '0');
    if (*x > kTwoTo63) return false;
  }
  s.remove_prefix(i);
  return true;
}

// Go's leadingFraction: digits after '.', keeping what fits and a scale.
void LeadingFraction(std::string_view& s, uint64_t* x, double* scale) {
  *x = 0;
  *scale = 1;
  bool overflow = false;
  size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (overflow) continue;
    if (*x > (kTwoTo63 - 1) / 10) {
      overflow = true;
      continue;
    }
    const uint64_t y = *x * 10 + static_cast<uint64_t>(s[i] - '0');
    if (y > kTwoTo63) {
      overflow = true;
      continue;
    }
    *x = y;
    *scale *= 10;
  }
  s.remove_prefix(i);
}

std::optional<uint64_t> DurationUnit(std::string_view u) {
  if (u == "ns") return 1;
  // Go accepts both micro signs: U+00B5 and U+03BC.
  if (u == "us" || u == "\xC2\xB5s" || u == "\xCE\xBCs") return 1000;
  if (u == "ms") return 1000000;
  if (u == "s") return 1000000000;
  if (u == "m") return uint64_t{60} * 1000000000;
  if (u == "h") return uint64_t{3600} * 1000000000;
  return std::nullopt;
}

// --- RFC 3339 parsing
// ---------------------------------------------------------

// Go's getnum: one or two digits; `fixed` demands two.
bool GetNum(std::string_view& s, bool fixed, int* out) {
  if (!IsDigit(s, 0)) return false;
  if (!IsDigit(s, 1)) {
    if (fixed) return false;
    *out = s[0] - '0';
    s.remove_prefix(1);
    return true;
  }
  *out = (s[0] - '0') * 10 + (s[1] - '0');
  s.remove_prefix(2);
  return true;
}

bool Literal(std::string_view& s, char c) {
  if (s.empty() || s[0] != c) return false;
  s.remove_prefix(1);
  return true;
}

// Go's parseNanoseconds on s[0:n] (a separator then digits): digits past
// the ninth are dropped.
int ParseNanos(std::string_view s, size_t n) {
  if (n > 10) n = 10;
  int ns = 0;
  for (size_t i = 1; i < n; ++i) ns = ns * 10 + (s[i] - '0');
  for (size_t i = n; i < 10; ++i) ns *= 10;
  return ns;
}

// --- TZif and POSIX TZ rules
// --------------------------------------------------

uint32_t BigEndian32(std::string_view p) {
  return (static_cast<uint32_t>(static_cast<uint8_t>(p[0])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(p[1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(p[2])) << 8) |
         static_cast<uint32_t>(static_cast<uint8_t>(p[3]));
}

// A cursor over TZif data that fails (returns false) past the end.
class Reader {
 public:
  explicit Reader(std::string_view data) : rest_(data) {}
  bool Read(size_t n, std::string_view* out) {
    if (rest_.size() < n) return false;
    *out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return true;
  }
  bool Skip(uint64_t n) {
    if (rest_.size() < n) return false;
    rest_.remove_prefix(n);
    return true;
  }
  std::string_view rest() const { return rest_; }

 private:
  std::string_view rest_;
};

// Go's tzsetNum: a decimal in [min, max].
bool TzNum(std::string_view& s, int min, int max, int* num) {
  if (s.empty()) return false;
  *num = 0;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') {
      if (i == 0 || *num < min) return false;
      s.remove_prefix(i);
      return true;
    }
    *num = *num * 10 + (s[i] - '0');
    if (*num > max) return false;
  }
  if (*num < min) return false;
  s = {};
  return true;
}

// Go's tzsetName: an alphabetic name of at least three characters, or a
// <quoted> one.
bool TzName(std::string_view& s, std::string_view* name) {
  if (s.empty()) return false;
  if (s[0] != '<') {
    for (size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      if ((c >= '0' && c <= '9') || c == ',' || c == '-' || c == '+') {
        if (i < 3) return false;
        *name = s.substr(0, i);
        s.remove_prefix(i);
        return true;
      }
    }
    if (s.size() < 3) return false;
    *name = s;
    s = {};
    return true;
  }
  const size_t close = s.find('>');
  if (close == std::string_view::npos) return false;
  *name = s.substr(1, close - 1);
  s.remove_prefix(close + 1);
  return true;
}

// Go's tzsetOffset: [+-]hh[:mm[:ss]].
bool TzOffset(std::string_view& s, int* offset) {
  if (s.empty()) return false;
  bool neg = false;
  if (s[0] == '+') {
    s.remove_prefix(1);
  } else if (s[0] == '-') {
    s.remove_prefix(1);
    neg = true;
  }
  int hours;
  if (!TzNum(s, 0, 24 * 7, &hours)) return false;
  int off = hours * 3600;
  if (!s.empty() && s[0] == ':') {
    s.remove_prefix(1);
    int mins;
    if (!TzNum(s, 0, 59, &mins)) return false;
    off += mins * 60;
    if (!s.empty() && s[0] == ':') {
      s.remove_prefix(1);
      int secs;
      if (!TzNum(s, 0, 59, &secs)) return false;
      off += secs;
    }
  }
  *offset = neg ? -off : off;
  return true;
}

struct TzRule {
  enum Kind { kJulian, kDayOfYear, kMonthWeekDay } kind = kJulian;
  int day = 0;
  int week = 0;
  int mon = 0;
  int time = 0;  // seconds after local midnight
};

// Go's tzsetRule: Jn, n or Mm.w.d, then an optional /time.
bool TzRuleParse(std::string_view& s, TzRule* r) {
  if (s.empty()) return false;
  if (s[0] == 'J') {
    s.remove_prefix(1);
    if (!TzNum(s, 1, 365, &r->day)) return false;
    r->kind = TzRule::kJulian;
  } else if (s[0] == 'M') {
    s.remove_prefix(1);
    if (!TzNum(s, 1, 12, &r->mon) || s.empty() || s[0] != '.') return false;
    s.remove_prefix(1);
    if (!TzNum(s, 1, 5, &r->week) || s.empty() || s[0] != '.') return false;
    s.remove_prefix(1);
    if (!TzNum(s, 0, 6, &r->day)) return false;
    r->kind = TzRule::kMonthWeekDay;
  } else {
    if (!TzNum(s, 0, 365, &r->day)) return false;
    r->kind = TzRule::kDayOfYear;
  }
  if (s.empty() || s[0] != '/') {
    r->time = 2 * 3600;  // 02:00 unless given
    return true;
  }
  s.remove_prefix(1);
  return TzOffset(s, &r->time);
}

// Go's tzruleTime: seconds from the start of the year (UTC) at which the
// rule fires, for a zone at offset `off`.
int64_t TzRuleTime(int64_t year, const TzRule& r, int off) {
  static constexpr int kDaysBefore[] = {0,   31,  59,  90,  120, 151,
                                        181, 212, 243, 273, 304, 334};
  int64_t s = 0;
  switch (r.kind) {
    case TzRule::kJulian:
      s = int64_t{r.day - 1} * kSecondsPerDay;
      if (IsLeap(year) && r.day >= 60) s += kSecondsPerDay;
      break;
    case TzRule::kDayOfYear:
      s = int64_t{r.day} * kSecondsPerDay;
      break;
    case TzRule::kMonthWeekDay: {
      // Zeller's congruence gives the weekday of the month's first day.
      const int64_t m1 = (r.mon + 9) % 12 + 1;
      int64_t yy0 = year;
      if (r.mon <= 2) --yy0;
      const int64_t yy1 = yy0 / 100;
      const int64_t yy2 = yy0 % 100;
      int64_t dow =
          ((26 * m1 - 2) / 10 + 1 + yy2 + yy2 / 4 + yy1 / 4 - 2 * yy1) % 7;
      if (dow < 0) dow += 7;
      int64_t d = r.day - dow;
      if (d < 0) d += 7;
      for (int i = 1; i < r.week; ++i) {
        if (d + 7 >= DaysIn(r.mon, year)) break;
        d += 7;
      }
      d += kDaysBefore[r.mon - 1];
      if (IsLeap(year) && r.mon > 2) ++d;
      s = d * kSecondsPerDay;
      break;
    }
  }
  return s + r.time - off;
}

// Go's tzset: the offset a POSIX TZ string gives at `sec`, or nullopt when
// the string does not parse.
std::optional<int32_t> TzsetOffset(std::string_view s, int64_t sec) {
  std::string_view std_name, dst_name;
  int std_offset = 0, dst_offset = 0;
  if (!TzName(s, &std_name) || !TzOffset(s, &std_offset)) return std::nullopt;
  // TZ strings count west of UTC; offsets here count east.
  std_offset = -std_offset;
  if (s.empty() || s[0] == ',') return std_offset;
  if (!TzName(s, &dst_name)) return std::nullopt;
  if (s.empty() || s[0] == ',') {
    dst_offset = std_offset + 3600;
  } else {
    if (!TzOffset(s, &dst_offset)) return std::nullopt;
    dst_offset = -dst_offset;
  }
  std::string_view rules = s.empty() ? ",M3.2.0,M11.1.0" : s;
  if (rules[0] != ',' && rules[0] != ';') return std::nullopt;
  rules.remove_prefix(1);
  TzRule start_rule, end_rule;
  if (!TzRuleParse(rules, &start_rule) || rules.empty() || rules[0] != ',')
    return std::nullopt;
  rules.remove_prefix(1);
  if (!TzRuleParse(rules, &end_rule) || !rules.empty()) return std::nullopt;

  // Go takes the year and day of year of `sec` in UTC, and adds its
  // truncated (not floored) remainder of a day.
  const Civil utc = CivilFromSeconds(sec, 0);
  const int64_t ysec =
      int64_t{utc.yearday - 1} * kSecondsPerDay + sec % kSecondsPerDay;
  int64_t start_sec = TzRuleTime(utc.year, start_rule, std_offset);
  int64_t end_sec = TzRuleTime(utc.year, end_rule, dst_offset);
  if (end_sec < start_sec) {
    // Southern hemisphere: the "DST" period wraps the year's end.
    std::swap(start_sec, end_sec);
    std::swap(std_offset, dst_offset);
  }
  if (ysec < start_sec || ysec >= end_sec) return std_offset;
  return dst_offset;
}

std::optional<std::string> ReadFile(const std::string& path,
                                    std::string* error) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;  // ENOENT-like
  if (S_ISDIR(st.st_mode)) {
    // Go reports the bare errno text for a directory.
    *error = "is a directory";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "open " + path + ": permission denied";
    return std::nullopt;
  }
  std::ostringstream data;
  data << in.rdbuf();
  return data.str();
}

// Go's strconv.Atoi: an optional sign and decimal digits that fit int64;
// the error is Go's NumError text.
util::Result<int64_t> GoAtoi(std::string_view s) {
  const std::string quoted = lib::GoQuote(s);
  size_t i = 0;
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    i = 1;
  }
  if (i >= s.size()) {
    return util::Error("strconv.Atoi: parsing " + quoted + ": invalid syntax");
  }
  unsigned __int128 v = 0;
  bool range = false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') {
      return util::Error("strconv.Atoi: parsing " + quoted +
                         ": invalid syntax");
    }
    v = v * 10 + static_cast<unsigned>(s[i] - '0');
    if (v > kTwoTo63) range = true;
  }
  if (range || (!neg && v == kTwoTo63)) {
    return util::Error("strconv.Atoi: parsing " + quoted +
                       ": value out of range");
  }
  return neg ? static_cast<int64_t>(-static_cast<uint64_t>(v))
             : static_cast<int64_t>(v);
}

std::mutex& CacheMutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, std::shared_ptr<const TimeZone>, std::less<>>& Cache() {
  static auto* cache =
      new std::map<std::string, std::shared_ptr<const TimeZone>, std::less<>>;
  return *cache;
}

constexpr char kZoneinfoDir[] = "/usr/share/zoneinfo/";

// Loads a named zone from the zoneinfo directory, uncached.
util::Result<std::shared_ptr<const TimeZone>> LoadFromDir(
    std::string_view name) {
  std::string error;
  const std::string path = kZoneinfoDir + std::string(name);
  std::optional<std::string> data = ReadFile(path, &error);
  if (!data) {
    if (!error.empty()) return util::Error(error);
    return util::Error("unknown time zone " + std::string(name));
  }
  std::optional<TimeZone> zone = TimeZone::FromTzif(*data);
  if (!zone) return util::Error("malformed time zone information");
  return std::make_shared<const TimeZone>(std::move(*zone));
}

// Go's time.Local: $TZ when set (empty means UTC, a leading ':' is
// dropped, an unloadable name falls back to UTC), else /etc/localtime.
std::shared_ptr<const TimeZone> LoadLocal() {
  const char* tz = std::getenv("TZ");
  if (tz == nullptr) {
    std::string error;
    if (auto data = ReadFile("/etc/localtime", &error)) {
      if (auto zone = TimeZone::FromTzif(*data))
        return std::make_shared<const TimeZone>(std::move(*zone));
    }
    return std::make_shared<const TimeZone>(TimeZone::Utc());
  }
  std::string_view name = tz;
  if (!name.empty() && name[0] == ':') name.remove_prefix(1);
  if (name.empty() || name == "UTC") {
    return std::make_shared<const TimeZone>(TimeZone::Utc());
  }
  auto loaded = LoadFromDir(name);
  if (loaded.ok()) return *loaded;
  return std::make_shared<const TimeZone>(TimeZone::Utc());
}

}  // namespace
}  // namespace time_detail

using namespace time_detail;  // NOLINT: this file's own helpers

std::optional<int64_t> ParseDuration(std::string_view s) {
  uint64_t d = 0;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return 0;
  if (s.empty()) return std::nullopt;
  while (!s.empty()) {
    if (!(s[0] == '.' || (s[0] >= '0' && s[0] <= '9'))) return std::nullopt;
    const size_t before = s.size();
    uint64_t v;
    if (!LeadingInt(s, &v)) return std::nullopt;
    const bool pre = before != s.size();
    uint64_t f = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      const size_t at = s.size();
      LeadingFraction(s, &f, &scale);
      post = at != s.size();
    }
    if (!pre && !post) return std::nullopt;
    size_t i = 0;
    while (i < s.size() && s[i] != '.' && !(s[i] >= '0' && s[i] <= '9')) ++i;
    if (i == 0) return std::nullopt;  // missing unit
    const std::optional<uint64_t> unit = DurationUnit(s.substr(0, i));
    s.remove_prefix(i);
    if (!unit) return std::nullopt;
    if (v > kTwoTo63 / *unit) return std::nullopt;
    v *= *unit;
    if (f > 0) {
      // Go scales the fraction in float64 and truncates.
      v += static_cast<uint64_t>(static_cast<double>(f) *
                                 (static_cast<double>(*unit) / scale));
      if (v > kTwoTo63) return std::nullopt;
    }
    d += v;
    if (d > kTwoTo63) return std::nullopt;
  }
  if (neg) return static_cast<int64_t>(-d);
  if (d > kTwoTo63 - 1) return std::nullopt;
  return static_cast<int64_t>(d);
}

std::string FormatDurationSeconds(int64_t nanos) {
  const double seconds = static_cast<double>(nanos / kNanosPerSecond) +
                         static_cast<double>(nanos % kNanosPerSecond) / 1e9;
  char buf[64];
  // Shortest round-trip digits in fixed notation, as Go's 'f' with -1.
  auto [end, ec] =
      std::to_chars(buf, buf + sizeof(buf), seconds, std::chars_format::fixed);
  std::string out(buf, end);
  if (out == "-0") out = "0";
  return out + "s";
}

int64_t DurationHours(int64_t nanos) {
  constexpr int64_t kHour = 3600 * kNanosPerSecond;
  return static_cast<int64_t>(static_cast<double>(nanos / kHour) +
                              static_cast<double>(nanos % kHour) / 3.6e12);
}

int64_t DurationMinutes(int64_t nanos) {
  constexpr int64_t kMinute = 60 * kNanosPerSecond;
  return static_cast<int64_t>(static_cast<double>(nanos / kMinute) +
                              static_cast<double>(nanos % kMinute) / 6e10);
}

int64_t DurationSeconds(int64_t nanos) {
  return static_cast<int64_t>(static_cast<double>(nanos / kNanosPerSecond) +
                              static_cast<double>(nanos % kNanosPerSecond) /
                                  1e9);
}

std::optional<TimestampValue> ParseRfc3339(std::string_view s) {
  // Layout 2006-01-02T15:04:05Z07:00, element by element as Go's parse.
  if (s.size() < 4 || !IsDigit(s, 0)) return std::nullopt;
  int64_t year = 0;
  for (size_t i = 0; i < 4; ++i) {
    if (!IsDigit(s, i)) return std::nullopt;
    year = year * 10 + (s[i] - '0');
  }
  s.remove_prefix(4);
  int month, day, hour, minute, second;
  if (!Literal(s, '-') || !GetNum(s, true, &month) || month < 1 || month > 12)
    return std::nullopt;
  if (!Literal(s, '-') || !GetNum(s, true, &day)) return std::nullopt;
  if (!Literal(s, 'T') || !GetNum(s, false, &hour) || hour > 23)
    return std::nullopt;
  if (!Literal(s, ':') || !GetNum(s, true, &minute) || minute > 59)
    return std::nullopt;
  if (!Literal(s, ':') || !GetNum(s, true, &second) || second > 59)
    return std::nullopt;
  int nanos = 0;
  if (s.size() >= 2 && (s[0] == '.' || s[0] == ',') && IsDigit(s, 1)) {
    size_t n = 2;
    while (IsDigit(s, n)) ++n;
    nanos = ParseNanos(s, n);
    s.remove_prefix(n);
  }
  int offset = 0;
  if (!s.empty() && s[0] == 'Z') {
    s.remove_prefix(1);
  } else {
    if (s.size() < 6 || s[3] != ':') return std::nullopt;
    const char sign = s[0];
    std::string_view hh = s.substr(1, 2), mm = s.substr(4, 2);
    s.remove_prefix(6);
    int hr, mn;
    if (!GetNum(hh, true, &hr) || !GetNum(mm, true, &mn)) return std::nullopt;
    // Go's range test uses '>': offsets of 24 hours or 60 minutes pass.
    if (hr > 24 || mn > 60) return std::nullopt;
    offset = (hr * 60 + mn) * 60;
    if (sign == '-') {
      offset = -offset;
    } else if (sign != '+') {
      return std::nullopt;
    }
  }
  if (!s.empty()) return std::nullopt;  // extra text
  if (day < 1 || day > DaysIn(month, year)) return std::nullopt;
  const int64_t local = DaysFromCivil(year, month, day) * kSecondsPerDay +
                        hour * 3600 + minute * 60 + second;
  return TimestampValue{local - offset, nanos, offset};
}

Civil CivilFromSeconds(int64_t local_seconds, int32_t nanos) {
  Civil c;
  const int64_t days = FloorDiv(local_seconds, kSecondsPerDay);
  const int64_t secs = local_seconds - days * kSecondsPerDay;
  c.hour = static_cast<int>(secs / 3600);
  c.minute = static_cast<int>(secs / 60 % 60);
  c.second = static_cast<int>(secs % 60);
  c.nanos = nanos;
  // 1970-01-01 was a Thursday.
  c.weekday = static_cast<int>(((days + 4) % 7 + 7) % 7);
  // Howard Hinnant's civil_from_days.
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  c.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  c.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  c.year = yoe + era * 400 + (c.month <= 2);
  c.yearday = static_cast<int>(days - DaysFromCivil(c.year, 1, 1)) + 1;
  return c;
}

std::string FormatRfc3339Nano(const TimestampValue& t) {
  const Civil c = CivilFromSeconds(t.seconds + t.utc_offset, t.nanos);
  std::string out;
  char buf[64];
  const int64_t year = c.year;
  if (year < 0) out += '-';
  std::snprintf(buf, sizeof(buf), "%04lld-%02d-%02dT%02d:%02d:%02d",
                static_cast<long long>(year < 0 ? -year : year), c.month, c.day,
                c.hour, c.minute, c.second);
  out += buf;
  if (t.nanos != 0) {
    std::snprintf(buf, sizeof(buf), ".%09d", t.nanos);
    std::string frac = buf;
    while (frac.back() == '0') frac.pop_back();
    out += frac;
  }
  if (t.utc_offset == 0) return out + "Z";
  int zone = t.utc_offset / 60;  // Go prints whole minutes
  if (zone < 0) {
    out += '-';
    zone = -zone;
  } else {
    out += '+';
  }
  std::snprintf(buf, sizeof(buf), "%02d:%02d", zone / 60, zone % 60);
  return out + buf;
}

TimeZone TimeZone::Utc() { return TimeZone(); }

std::optional<TimeZone> TimeZone::FromTzif(std::string_view data) {
  Reader r(data);
  std::string_view p;
  if (!r.Read(4, &p) || p != "TZif") return std::nullopt;
  if (!r.Read(16, &p)) return std::nullopt;
  int version;
  switch (p[0]) {
    case 0:
      version = 1;
      break;
    case '2':
      version = 2;
      break;
    case '3':
      version = 3;
      break;
    case '4':
      version = 4;
      break;
    default:
      return std::nullopt;
  }
  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt.
  uint32_t n[6];
  for (uint32_t& count : n) {
    if (!r.Read(4, &p)) return std::nullopt;
    count = BigEndian32(p);
  }
  bool is64 = false;
  if (version > 1) {
    // Skip the 32-bit block; the 64-bit one follows with its own header.
    const uint64_t skip = uint64_t{n[3]} * 4 + n[3] + uint64_t{n[4]} * 6 +
                          n[5] + uint64_t{n[2]} * 8 + n[1] + n[0];
    if (!r.Skip(skip)) return std::nullopt;
    if (!r.Read(4, &p) || p != "TZif" || !r.Read(16, &p)) return std::nullopt;
    for (uint32_t& count : n) {
      if (!r.Read(4, &p)) return std::nullopt;
      count = BigEndian32(p);
    }
    is64 = true;
  }
  const size_t time_size = is64 ? 8 : 4;
  std::string_view times, indexes, zone_data;
  if (!r.Read(n[3] * time_size, &times) || !r.Read(n[3], &indexes) ||
      !r.Read(n[4] * 6, &zone_data) || !r.Skip(n[5]) ||
      !r.Skip(uint64_t{n[2]} * (time_size + 4)) || !r.Skip(n[1]) ||
      !r.Skip(n[0]))
    return std::nullopt;
  TimeZone tz;
  if (is64) {
    // The footer: "\n<POSIX TZ string>\n".
    std::string_view rest = r.rest();
    if (rest.size() > 2 && rest[0] == '\n' && rest.back() == '\n') {
      tz.extend_ = std::string(rest.substr(1, rest.size() - 2));
    }
  }
  if (n[4] == 0) return std::nullopt;
  for (uint32_t i = 0; i < n[4]; ++i) {
    std::string_view z = zone_data.substr(i * 6, 6);
    Zone zone;
    zone.offset = static_cast<int32_t>(BigEndian32(z));
    zone.is_dst = z[4] != 0;
    if (static_cast<uint8_t>(z[5]) >= n[5]) return std::nullopt;
    tz.zones_.push_back(zone);
  }
  for (uint32_t i = 0; i < n[3]; ++i) {
    Transition t;
    if (is64) {
      const uint64_t hi = BigEndian32(times.substr(i * 8, 4));
      const uint64_t lo = BigEndian32(times.substr(i * 8 + 4, 4));
      t.when = static_cast<int64_t>((hi << 32) | lo);
    } else {
      t.when = static_cast<int32_t>(BigEndian32(times.substr(i * 4, 4)));
    }
    t.index = static_cast<uint8_t>(indexes[i]);
    if (t.index >= tz.zones_.size()) return std::nullopt;
    tz.transitions_.push_back(t);
  }
  if (tz.transitions_.empty()) {
    // Go adds one transition at the beginning of time so that the footer
    // rule applies to every instant.
    tz.transitions_.push_back({std::numeric_limits<int64_t>::min(), 0});
  }
  return tz;
}

size_t TimeZone::FirstZone() const {
  // Go's lookupFirstZone: zone 0 unless a transition uses it; else the
  // last standard zone before the first transition's, else the first
  // standard zone.
  bool used = false;
  for (const Transition& t : transitions_) used |= t.index == 0;
  if (!used) return 0;
  if (!transitions_.empty() && zones_[transitions_[0].index].is_dst) {
    for (int zi = static_cast<int>(transitions_[0].index) - 1; zi >= 0; --zi) {
      if (!zones_[zi].is_dst) return zi;
    }
  }
  for (size_t zi = 0; zi < zones_.size(); ++zi) {
    if (!zones_[zi].is_dst) return zi;
  }
  return 0;
}

int32_t TimeZone::OffsetAt(int64_t sec) const {
  if (zones_.empty()) return 0;  // UTC
  if (transitions_.empty() || sec < transitions_[0].when) {
    return zones_[FirstZone()].offset;
  }
  // The last transition at or before sec.
  size_t lo = 0, hi = transitions_.size();
  while (hi - lo > 1) {
    const size_t m = (lo + hi) / 2;
    if (sec < transitions_[m].when) {
      hi = m;
    } else {
      lo = m;
    }
  }
  if (lo == transitions_.size() - 1 && !extend_.empty()) {
    if (auto off = TzsetOffset(extend_, sec)) return *off;
  }
  return zones_[transitions_[lo].index].offset;
}

util::Result<std::shared_ptr<const TimeZone>> LoadLocation(
    std::string_view name) {
  if (name.empty() || name == "UTC") {
    static const auto* utc =
        new std::shared_ptr<const TimeZone>(std::make_shared<TimeZone>());
    return *utc;
  }
  if (name == "Local") {
    static const auto* local = new std::shared_ptr<const TimeZone>(LoadLocal());
    return *local;
  }
  if (name.find("..") != std::string_view::npos || name[0] == '/' ||
      name[0] == '\\') {
    return util::Error("time: invalid location name");
  }
  {
    std::lock_guard<std::mutex> lock(CacheMutex());
    auto it = Cache().find(name);
    if (it != Cache().end()) return it->second;
  }
  auto loaded = LoadFromDir(name);
  if (!loaded.ok()) return loaded.error();
  std::lock_guard<std::mutex> lock(CacheMutex());
  Cache().emplace(std::string(name), *loaded);
  return *loaded;
}

util::Result<int64_t> ZoneOffsetAt(std::string_view zone,
                                   int64_t unix_seconds) {
  const size_t colon = zone.find(':');
  if (colon == std::string_view::npos) {
    auto loc = LoadLocation(zone);
    if (!loc.ok()) return loc.error();
    return int64_t{(*loc)->OffsetAt(unix_seconds)};
  }
  auto hr = GoAtoi(zone.substr(0, colon));
  if (!hr.ok()) return hr.error();
  auto min = GoAtoi(zone.substr(colon + 1));
  if (!min.ok()) return min.error();
  // cel-go's arithmetic in Go ints (wrapping): hr*60 -/+ min minutes, then
  // time.Duration(offset) * time.Minute, then whole seconds.
  const uint64_t h60 = static_cast<uint64_t>(*hr) * 60;
  const uint64_t minutes = zone[0] == '-' ? h60 - static_cast<uint64_t>(*min)
                                          : h60 + static_cast<uint64_t>(*min);
  const int64_t nanos =
      static_cast<int64_t>(minutes * uint64_t{60} * kNanosPerSecond);
  return nanos / kNanosPerSecond;
}

}  // namespace ksched::cel::gotime
