#include "pkg/config/duration.h"

#include <cstdint>
#include <optional>

namespace ksched::config {
namespace {

constexpr uint64_t kTwoTo63 = uint64_t{1} << 63;

// time's quote(): bytes outside printable ASCII are written as \xNN.
std::string TimeQuote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c >= 0x80 || c < ' ') {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      if (c == '"' || c == '\\') out += '\\';
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Consumes [0-9]*; nullopt when the value exceeds 2^63.
std::optional<uint64_t> LeadingInt(std::string_view& s) {
  uint64_t x = 0;
  size_t i = 0;
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    if (x > kTwoTo63 / 10) return std::nullopt;
    x = x * 10 + static_cast<uint64_t>(s[i] - '0');
    if (x > kTwoTo63) return std::nullopt;
  }
  s.remove_prefix(i);
  return x;
}

// Consumes the digits after a '.', keeping as much precision as fits.
void LeadingFraction(std::string_view& s, uint64_t* value, double* scale) {
  uint64_t x = 0;
  double sc = 1;
  bool overflow = false;
  size_t i = 0;
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    if (overflow) continue;
    if (x > (kTwoTo63 - 1) / 10) {
      overflow = true;
      continue;
    }
    uint64_t y = x * 10 + static_cast<uint64_t>(s[i] - '0');
    if (y > kTwoTo63) {
      overflow = true;
      continue;
    }
    x = y;
    sc *= 10;
  }
  s.remove_prefix(i);
  *value = x;
  *scale = sc;
}

std::optional<uint64_t> UnitNanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1000;
  if (unit == "ms") return 1'000'000;
  if (unit == "s") return 1'000'000'000;
  if (unit == "m") return 60'000'000'000;
  if (unit == "h") return 3'600'000'000'000;
  return std::nullopt;
}

// Writes v / 10^prec's fraction digits (without trailing zeros) in front of
// *out, returning v / 10^prec.
uint64_t PrependFraction(std::string* out, uint64_t v, int prec) {
  std::string digits;
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    uint64_t digit = v % 10;
    print = print || digit != 0;
    if (print) digits.insert(digits.begin(), static_cast<char>('0' + digit));
    v /= 10;
  }
  if (print) out->insert(0, "." + digits);
  return v;
}

}  // namespace

util::Result<std::chrono::nanoseconds> ParseGoDuration(std::string_view text) {
  const std::string invalid = "time: invalid duration " + TimeQuote(text);
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return util::Error(invalid);

  uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || IsDigit(s[0]))) return util::Error(invalid);
    size_t before = s.size();
    std::optional<uint64_t> whole = LeadingInt(s);
    if (!whole) return util::Error(invalid);
    bool has_whole = before != s.size();

    uint64_t fraction = 0;
    double scale = 1;
    bool has_fraction = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      size_t len = s.size();
      LeadingFraction(s, &fraction, &scale);
      has_fraction = len != s.size();
    }
    if (!has_whole && !has_fraction) return util::Error(invalid);

    size_t unit_len = 0;
    while (unit_len < s.size() && s[unit_len] != '.' && !IsDigit(s[unit_len])) {
      ++unit_len;
    }
    if (unit_len == 0) {
      return util::Error("time: missing unit in duration " + TimeQuote(text));
    }
    std::string_view unit_text = s.substr(0, unit_len);
    s.remove_prefix(unit_len);
    std::optional<uint64_t> unit = UnitNanos(unit_text);
    if (!unit) {
      return util::Error("time: unknown unit " + TimeQuote(unit_text) +
                         " in duration " + TimeQuote(text));
    }
    uint64_t v = *whole;
    if (v > kTwoTo63 / *unit) return util::Error(invalid);
    v *= *unit;
    if (fraction > 0) {
      // A double keeps fractions of an hour nanosecond-accurate, as in Go.
      v += static_cast<uint64_t>(static_cast<double>(fraction) *
                                 (static_cast<double>(*unit) / scale));
      if (v > kTwoTo63) return util::Error(invalid);
    }
    total += v;
    if (total > kTwoTo63) return util::Error(invalid);
  }
  if (negative) {
    // -2^63 is representable; wrap-around arithmetic gives it exactly.
    return std::chrono::nanoseconds(static_cast<int64_t>(uint64_t{0} - total));
  }
  if (total > kTwoTo63 - 1) return util::Error(invalid);
  return std::chrono::nanoseconds(static_cast<int64_t>(total));
}

std::string FormatGoDuration(std::chrono::nanoseconds duration) {
  int64_t d = duration.count();
  bool negative = d < 0;
  uint64_t u = static_cast<uint64_t>(d);
  if (negative) u = uint64_t{0} - u;

  std::string out;
  if (u < 1'000'000'000) {
    // Below a second Go switches to the largest unit that fits: 1.2ms.
    int prec = 0;
    if (u == 0) return "0s";
    if (u < 1000) {
      out = "ns";
    } else if (u < 1'000'000) {
      prec = 3;
      out = "\xC2\xB5s";
    } else {
      prec = 6;
      out = "ms";
    }
    u = PrependFraction(&out, u, prec);
    out.insert(0, std::to_string(u));
  } else {
    out = "s";
    u = PrependFraction(&out, u, 9);
    out.insert(0, std::to_string(u % 60));
    u /= 60;
    if (u > 0) {
      out.insert(0, "m");
      out.insert(0, std::to_string(u % 60));
      u /= 60;
      // Hours are the largest unit: days differ in length.
      if (u > 0) {
        out.insert(0, "h");
        out.insert(0, std::to_string(u));
      }
    }
  }
  if (negative) out.insert(0, "-");
  return out;
}

}  // namespace ksched::config
