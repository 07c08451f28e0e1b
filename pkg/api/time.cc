#include "pkg/api/time.h"

#include <cstdio>

namespace ksched::api {
namespace {

// Reads exactly `width` digits at text[*pos]; advances *pos.
bool ReadDigits(std::string_view text, size_t* pos, int width, int* out) {
  if (*pos + width > text.size()) return false;
  int value = 0;
  for (int i = 0; i < width; ++i) {
    char c = text[*pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *pos += width;
  *out = value;
  return true;
}

bool Expect(std::string_view text, size_t* pos, char c) {
  if (*pos >= text.size() || text[*pos] != c) return false;
  ++*pos;
  return true;
}

util::Error BadTime(std::string_view text) {
  return util::Error("invalid RFC 3339 time \"" + std::string(text) + "\"");
}

}  // namespace

util::Result<Timestamp> ParseRfc3339(std::string_view text) {
  using namespace std::chrono;
  size_t pos = 0;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!ReadDigits(text, &pos, 4, &y) || !Expect(text, &pos, '-') ||
      !ReadDigits(text, &pos, 2, &mo) || !Expect(text, &pos, '-') ||
      !ReadDigits(text, &pos, 2, &d)) {
    return BadTime(text);
  }
  if (pos >= text.size() || (text[pos] != 'T' && text[pos] != 't')) {
    return BadTime(text);
  }
  ++pos;
  if (!ReadDigits(text, &pos, 2, &h) || !Expect(text, &pos, ':') ||
      !ReadDigits(text, &pos, 2, &mi) || !Expect(text, &pos, ':') ||
      !ReadDigits(text, &pos, 2, &s)) {
    return BadTime(text);
  }
  int64_t micros = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 6) micros = micros * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return BadTime(text);
    for (int i = digits; i < 6; ++i) micros *= 10;
  }
  int offset_minutes = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh = 0, om = 0;
    if (!ReadDigits(text, &pos, 2, &oh) || !Expect(text, &pos, ':') ||
        !ReadDigits(text, &pos, 2, &om) || oh > 23 || om > 59) {
      return BadTime(text);
    }
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return BadTime(text);
  }
  if (pos != text.size()) return BadTime(text);

  year_month_day date{year(y), month(static_cast<unsigned>(mo)),
                      day(static_cast<unsigned>(d))};
  if (!date.ok() || h > 23 || mi > 59 || s > 60) return BadTime(text);
  auto t = sys_days(date) + hours(h) + minutes(mi) + seconds(s) +
           microseconds(micros) - minutes(offset_minutes);
  return Timestamp(duration_cast<microseconds>(t.time_since_epoch()));
}

namespace {

std::string Format(Timestamp t, bool with_micros) {
  using namespace std::chrono;
  auto day_point = floor<days>(t);
  year_month_day date(day_point);
  auto in_day = t - day_point;
  auto h = duration_cast<hours>(in_day);
  auto mi = duration_cast<minutes>(in_day - h);
  auto s = duration_cast<seconds>(in_day - h - mi);
  auto us = duration_cast<microseconds>(in_day - h - mi - s);
  char buf[40];
  if (with_micros) {
    std::snprintf(buf, sizeof(buf), "%04d-%02u-%02uT%02d:%02d:%02d.%06dZ",
                  static_cast<int>(date.year()),
                  static_cast<unsigned>(date.month()),
                  static_cast<unsigned>(date.day()),
                  static_cast<int>(h.count()), static_cast<int>(mi.count()),
                  static_cast<int>(s.count()), static_cast<int>(us.count()));
  } else {
    std::snprintf(
        buf, sizeof(buf), "%04d-%02u-%02uT%02d:%02d:%02dZ",
        static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
        static_cast<unsigned>(date.day()), static_cast<int>(h.count()),
        static_cast<int>(mi.count()), static_cast<int>(s.count()));
  }
  return buf;
}

}  // namespace

std::string FormatRfc3339(Timestamp t) { return Format(t, false); }
std::string FormatRfc3339Micro(Timestamp t) { return Format(t, true); }

}  // namespace ksched::api
