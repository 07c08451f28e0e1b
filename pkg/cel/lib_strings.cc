// cel-go's strings extension (ext/strings.go) at version 2, as Kubernetes'
// base environment declares it, and string.format's version-1 formatter
// (ext/formatting.go) with the default en_US locale.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/cel/function.h"
#include "pkg/cel/lib_internal.h"
#include "pkg/cel/libraries.h"

namespace ksched::cel {
// Named so that unity builds keep these helpers apart from other files'.
namespace strings_ext {
namespace {

using lib::FromRunes;
using lib::SizerSize;
using lib::ToRunes;

std::string OutOfRange(int64_t index) {
  return "index out of range: " + std::to_string(index);
}

// --- The plain string functions. ------------------------------------------

Value CharAt(std::string_view str, int64_t index) {
  const std::vector<char32_t> runes = ToRunes(str);
  if (index < 0 || index > static_cast<int64_t>(runes.size())) {
    return Value::Error(OutOfRange(index));
  }
  if (index == static_cast<int64_t>(runes.size())) return Value::String("");
  return Value::String(FromRunes(runes, index, index + 1));
}

bool RunesAt(const std::vector<char32_t>& runes, size_t at,
             const std::vector<char32_t>& sub) {
  for (size_t j = 0; j < sub.size(); ++j) {
    if (runes[at + j] != sub[j]) return false;
  }
  return true;
}

Value IndexOfOffset(std::string_view str, std::string_view substr,
                    int64_t offset) {
  if (substr.empty()) return Value::Int(offset);
  const std::vector<char32_t> runes = ToRunes(str);
  const std::vector<char32_t> sub = ToRunes(substr);
  if (offset < 0) return Value::Error(OutOfRange(offset));
  const auto len = static_cast<int64_t>(runes.size());
  if (offset >= len) return Value::Int(-1);
  const int64_t last = len - (static_cast<int64_t>(sub.size()) - 1);
  for (int64_t i = offset; i < last; ++i) {
    if (RunesAt(runes, i, sub)) return Value::Int(i);
  }
  return Value::Int(-1);
}

Value LastIndexOfOffset(std::string_view str, std::string_view substr,
                        int64_t offset) {
  if (substr.empty()) return Value::Int(offset);
  const std::vector<char32_t> runes = ToRunes(str);
  const std::vector<char32_t> sub = ToRunes(substr);
  if (offset < 0) return Value::Error(OutOfRange(offset));
  const auto len = static_cast<int64_t>(runes.size());
  if (offset >= len) return Value::Int(-1);
  const int64_t sub_len = static_cast<int64_t>(sub.size());
  if (offset > len - sub_len) offset = len - sub_len;
  for (int64_t i = offset; i >= 0; --i) {
    if (RunesAt(runes, i, sub)) return Value::Int(i);
  }
  return Value::Int(-1);
}

Value LastIndexOf(std::string_view str, std::string_view substr) {
  const size_t rune_count = lib::RuneCount(str);
  if (substr.empty()) return Value::Int(static_cast<int64_t>(rune_count));
  if (str.size() < substr.size()) return Value::Int(-1);
  return LastIndexOfOffset(str, substr, static_cast<int64_t>(rune_count) - 1);
}

std::string MapAscii(std::string_view str, bool upper) {
  std::vector<char32_t> runes = ToRunes(str);
  for (char32_t& r : runes) {
    if (upper && r >= 'a' && r <= 'z') r -= 'a' - 'A';
    if (!upper && r >= 'A' && r <= 'Z') r += 'a' - 'A';
  }
  return FromRunes(runes, 0, runes.size());
}

size_t CountOccurrences(std::string_view s, std::string_view sep) {
  if (sep.empty()) return lib::RuneCount(s) + 1;
  size_t n = 0;
  size_t pos = 0;
  while ((pos = s.find(sep, pos)) != std::string_view::npos) {
    ++n;
    pos += sep.size();
  }
  return n;
}

// Go's strings.Replace.
std::string Replace(std::string_view s, std::string_view old_s,
                    std::string_view new_s, int64_t n) {
  if (old_s == new_s || n == 0) return std::string(s);
  const auto m = static_cast<int64_t>(CountOccurrences(s, old_s));
  if (m == 0) return std::string(s);
  if (n < 0 || m < n) n = m;
  std::string out;
  size_t start = 0;
  for (int64_t i = 0; i < n; ++i) {
    size_t j = start;
    if (old_s.empty()) {
      if (i > 0) {
        size_t width;
        lib::DecodeRune(s.substr(start), &width);
        j += width;
      }
    } else {
      j = s.find(old_s, start);
    }
    out.append(s.substr(start, j - start));
    out.append(new_s);
    start = j + old_s.size();
  }
  out.append(s.substr(start));
  return out;
}

// Go's strings.SplitN (n < 0: all).
std::vector<std::string> SplitN(std::string_view s, std::string_view sep,
                                int64_t n) {
  std::vector<std::string> out;
  if (n == 0) return out;
  if (sep.empty()) {
    const auto l = static_cast<int64_t>(lib::RuneCount(s));
    if (n < 0 || n > l) n = l;
    for (int64_t i = 0; i < n - 1; ++i) {
      size_t width;
      lib::DecodeRune(s, &width);
      out.emplace_back(s.substr(0, width));
      s.remove_prefix(width);
    }
    if (n > 0) out.emplace_back(s);
    return out;
  }
  if (n < 0) n = static_cast<int64_t>(CountOccurrences(s, sep)) + 1;
  if (n > static_cast<int64_t>(s.size()) + 1) {
    n = static_cast<int64_t>(s.size()) + 1;
  }
  for (int64_t i = 0; i < n - 1; ++i) {
    const size_t m = s.find(sep);
    if (m == std::string_view::npos) break;
    out.emplace_back(s.substr(0, m));
    s.remove_prefix(m + sep.size());
  }
  out.emplace_back(s);
  return out;
}

Value Substring(std::string_view str, int64_t start) {
  const std::vector<char32_t> runes = ToRunes(str);
  if (start < 0 || start > static_cast<int64_t>(runes.size())) {
    return Value::Error(OutOfRange(start));
  }
  return Value::String(FromRunes(runes, start, runes.size()));
}

Value SubstringRange(std::string_view str, int64_t start, int64_t end) {
  const std::vector<char32_t> runes = ToRunes(str);
  const auto len = static_cast<int64_t>(runes.size());
  if (start > end) {
    return Value::Error(
        "invalid substring range. start: " + std::to_string(start) +
        ", end: " + std::to_string(end));
  }
  if (start < 0 || start > len) return Value::Error(OutOfRange(start));
  if (end < 0 || end > len) return Value::Error(OutOfRange(end));
  return Value::String(FromRunes(runes, start, end));
}

// Go's unicode.IsSpace.
bool IsGoSpace(char32_t r) {
  switch (r) {
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
    case ' ':
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return r >= 0x2000 && r <= 0x200A;
  }
}

// Go's strings.TrimSpace: invalid UTF-8 is not space.
std::string TrimSpace(std::string_view s) {
  while (!s.empty()) {
    size_t width;
    const char32_t r = lib::DecodeRune(s, &width);
    if ((r == 0xFFFD && width == 1) || !IsGoSpace(r)) break;
    s.remove_prefix(width);
  }
  while (!s.empty()) {
    // Find the start of the last rune.
    size_t start = s.size() - 1;
    while (start > 0 && s.size() - start < 4 &&
           (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) {
      --start;
    }
    size_t width;
    const char32_t r = lib::DecodeRune(s.substr(start), &width);
    if (start + width != s.size()) break;  // invalid tail
    if ((r == 0xFFFD && width == 1) || !IsGoSpace(r)) break;
    s.remove_suffix(width);
  }
  return std::string(s);
}

Value Join(const ListValue& list, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < list.size(); ++i) {
    if (i != 0) out.append(separator);
    const Value elem = list.at(i);
    if (elem.kind() != Kind::kString) {
      return Value::Error("join: invalid input: " + elem.DebugString());
    }
    out.append(elem.string_value());
  }
  return Value::String(std::move(out));
}

// ext's quote(): CEL escapes, invalid UTF-8 replaced with U+FFFD.
std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (const char32_t c : ToRunes(s)) {
    switch (c) {
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      default:
        lib::AppendRune(out, c);
    }
  }
  out += '"';
  return out;
}

// --- string.format (version 1 formatter, en_US). ---------------------------

struct FormatError {
  std::string message;
};

// Go's strconv.FormatFloat(d, 'g', -1, 64), which is what string(double)
// and %s print.
std::string GoFormatShortest(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  char buf[64];
  const auto res =
      std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);
  bool neg = false;
  if (!sci.empty() && sci[0] == '-') {
    neg = true;
    sci.remove_prefix(1);
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  int exp10 = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0),
                  sci.data() + sci.size(), exp10);
  // Go keeps "0" as one digit with dp 0 for zero; to_chars gives "0e+00".
  std::string out = neg ? "-" : "";
  const int nd = static_cast<int>(digits.size());
  if (digits == "0") {
    out += "0";
    return out;
  }
  const int dp = exp10 + 1;
  const int x = dp - 1;
  if (x < -4 || x >= 6) {
    out += digits[0];
    if (nd > 1) {
      out += '.';
      out += digits.substr(1);
    }
    out += 'e';
    out += x < 0 ? '-' : '+';
    const int ax = x < 0 ? -x : x;
    if (ax < 10) out += '0';
    out += std::to_string(ax);
    return out;
  }
  // %f with max(nd - dp, 0) fraction digits.
  if (dp > 0) {
    for (int i = 0; i < dp; ++i) out += i < nd ? digits[i] : '0';
  } else {
    out += '0';
  }
  if (nd > dp) {
    out += '.';
    for (int i = dp; i < nd; ++i) out += i < 0 ? '0' : digits[i];
  }
  return out;
}

std::string FixedDouble(double d, int precision) {
  // Go's fmt %.Nf.
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  std::vector<char> buf(precision + 400);
  std::snprintf(buf.data(), buf.size(), "%.*f", precision, d);
  return std::string(buf.data());
}

std::string TypeNameOf(const Value& v) { return std::string(v.TypeName()); }

Value ToStringLikeCel(const Value& arg, std::string* out) {
  switch (arg.kind()) {
    case Kind::kInt:
      *out = std::to_string(arg.int_value());
      return Value::Bool(true);
    case Kind::kUint:
      *out = std::to_string(arg.uint_value());
      return Value::Bool(true);
    case Kind::kDouble:
      *out = GoFormatShortest(arg.double_value());
      return Value::Bool(true);
    case Kind::kBool:
      *out = arg.bool_value() ? "true" : "false";
      return Value::Bool(true);
    case Kind::kString:
      *out = std::string(arg.string_value());
      return Value::Bool(true);
    case Kind::kBytes: {
      const std::string_view b = arg.bytes_value();
      std::string_view rest = b;
      while (!rest.empty()) {
        size_t width;
        const char32_t r = lib::DecodeRune(rest, &width);
        if (r == 0xFFFD && width == 1) {
          return Value::Error(
              "could not convert argument \"invalid UTF-8 in bytes, cannot "
              "convert to string\" to string");
        }
        rest.remove_prefix(width);
      }
      *out = std::string(b);
      return Value::Bool(true);
    }
    case Kind::kType:
      *out = std::string(arg.type_name());
      return Value::Bool(true);
    case Kind::kTimestamp:
      *out = gotime::FormatRfc3339Nano(arg.timestamp());
      return Value::Bool(true);
    case Kind::kDuration:
      *out = gotime::FormatDurationSeconds(arg.duration_nanos());
      return Value::Bool(true);
    default:
      return Value::Bool(false);
  }
}

std::string StringClauseError(const Value& arg) {
  return "string clause can only be used on strings, bools, bytes, ints, "
         "doubles, maps, lists, types, durations, and timestamps, was given " +
         TypeNameOf(arg);
}

bool FormatString(const Value& arg, std::string* out, FormatError* err);

bool FormatDecimal(const Value& arg, std::string* out, FormatError* err) {
  if (arg.kind() == Kind::kInt) {
    *out = std::to_string(arg.int_value());
    return true;
  }
  if (arg.kind() == Kind::kUint) {
    *out = std::to_string(arg.uint_value());
    return true;
  }
  err->message = "decimal clause can only be used on integers, was given " +
                 TypeNameOf(arg);
  return false;
}

// clauseForType + the clause, for list elements and map values.
bool FormatMember(const Value& v, std::string* out, FormatError* err) {
  switch (v.kind()) {
    case Kind::kInt:
    case Kind::kUint:
      return FormatDecimal(v, out, err);
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kBool:
    case Kind::kNull:
    case Kind::kType:
    case Kind::kList:
    case Kind::kMap:
      return FormatString(v, out, err);
    case Kind::kDouble:
      *out = FixedDouble(v.double_value(), 6);
      return true;
    case Kind::kTimestamp:
    case Kind::kDuration: {
      // Written as the CEL call that makes the value.
      std::string text;
      ToStringLikeCel(v, &text);
      *out = std::string(v.kind() == Kind::kTimestamp ? "timestamp("
                                                      : "duration(") +
             lib::GoQuote(text) + ")";
      return true;
    }
    default:
      err->message = "no formatting function for " + TypeNameOf(v);
      return false;
  }
}

std::string QuoteForCel(const Value& v, const std::string& unquoted) {
  switch (v.kind()) {
    case Kind::kString:
      return lib::GoQuote(unquoted);
    case Kind::kBytes:
      return "b" + lib::GoQuote(unquoted);
    case Kind::kDouble:
      if (std::isnan(v.double_value()) || std::isinf(v.double_value())) {
        return lib::GoQuote(unquoted);
      }
      return unquoted;
    default:
      return unquoted;
  }
}

bool FormatList(const ListValue& list, std::string* out, FormatError* err) {
  std::string s = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    const Value member = list.at(i);
    std::string unquoted;
    if (!FormatMember(member, &unquoted, err)) return false;
    s += QuoteForCel(member, unquoted);
    if (i + 1 < list.size()) s += ", ";
  }
  s += ']';
  *out = std::move(s);
  return true;
}

bool FormatMap(const MapValue& map, std::string* out, FormatError* err) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (size_t i = 0; i < map.size(); ++i) {
    const Value key = map.KeyAt(i);
    std::string unquoted_key;
    switch (key.kind()) {
      case Kind::kString:
      case Kind::kBool:
        if (!FormatString(key, &unquoted_key, err)) return false;
        break;
      case Kind::kInt:
      case Kind::kUint:
        if (!FormatDecimal(key, &unquoted_key, err)) return false;
        break;
      default:
        err->message =
            "no formatting function for map key of type " + TypeNameOf(key);
        return false;
    }
    const std::optional<Value> value = map.Find(key);
    if (!value) {
      err->message = "could not find key: " + lib::GoQuote(unquoted_key);
      return false;
    }
    std::string unquoted_value;
    if (!FormatMember(*value, &unquoted_value, err)) return false;
    pairs.emplace_back(QuoteForCel(key, unquoted_key),
                       QuoteForCel(*value, unquoted_value));
  }
  std::stable_sort(
      pairs.begin(), pairs.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string s = "{";
  for (size_t i = 0; i < pairs.size(); ++i) {
    s += pairs[i].first + ":" + pairs[i].second;
    if (i + 1 < pairs.size()) s += ", ";
  }
  s += '}';
  *out = std::move(s);
  return true;
}

bool FormatString(const Value& arg, std::string* out, FormatError* err) {
  switch (arg.kind()) {
    case Kind::kList:
      return FormatList(arg.list(), out, err);
    case Kind::kMap:
      return FormatMap(arg.map(), out, err);
    case Kind::kNull:
      *out = "null";
      return true;
    default: {
      const Value ok = ToStringLikeCel(arg, out);
      if (ok.is_error()) {
        err->message = std::string(ok.error_message());
        return false;
      }
      if (!ok.bool_value()) {
        err->message = StringClauseError(arg);
        return false;
      }
      return true;
    }
  }
}

// The double a %f or %e clause formats: a double, or one of the strings
// "NaN", "Infinity", "-Infinity".
bool FloatArg(const Value& arg, double* d) {
  if (arg.kind() == Kind::kDouble) {
    *d = arg.double_value();
    return true;
  }
  if (arg.kind() == Kind::kString) {
    const std::string_view s = arg.string_value();
    if (s == "NaN") {
      *d = std::nan("");
      return true;
    }
    if (s == "Infinity") {
      *d = INFINITY;
      return true;
    }
    if (s == "-Infinity") {
      *d = -INFINITY;
      return true;
    }
  }
  return false;
}

// golang.org/x/text/message's en formatting of non-finite numbers.
bool NonFinite(double d, std::string* out) {
  if (std::isnan(d)) {
    *out = "NaN";
    return true;
  }
  if (std::isinf(d)) {
    *out = d > 0 ? "\u221e" : "-\u221e";
    return true;
  }
  return false;
}

// x/text/message's %.Nf for en: grouped thousands, '.' decimal point.
std::string LocaleFixed(double d, int precision) {
  std::string out;
  if (NonFinite(d, &out)) return out;
  std::string s = FixedDouble(d, precision);
  bool neg = false;
  if (!s.empty() && s[0] == '-') {
    neg = true;
    s.erase(0, 1);
  }
  const size_t dot = s.find('.');
  const std::string int_part = s.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : s.substr(dot);
  std::string grouped;
  for (size_t i = 0; i < int_part.size(); ++i) {
    if (i != 0 && (int_part.size() - i) % 3 == 0) grouped += ',';
    grouped += int_part[i];
  }
  return (neg ? "-" : "") + grouped + frac;
}

// x/text/message's %e for en, before padding: "d.dddddd × 10ⁿⁿ" with
// superscript exponent digits (at least two).
std::string UnpaddedLocaleScientific(double d) {
  std::string out;
  if (NonFinite(d, &out)) return out;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6e", d);
  std::string_view s(buf);
  const size_t e = s.find('e');
  out = std::string(s.substr(0, e));
  out += "\u202f\u00d7\u202f10";
  std::string_view exp = s.substr(e + 1);
  if (!exp.empty() && exp[0] == '-') out += "\u207b";
  if (!exp.empty() && (exp[0] == '-' || exp[0] == '+')) exp.remove_prefix(1);
  static const char* const kSuper[] = {"\u2070", "\u00b9", "\u00b2", "\u00b3",
                                       "\u2074", "\u2075", "\u2076", "\u2077",
                                       "\u2078", "\u2079"};
  for (char c : exp) out += kSuper[c - '0'];
  return out;
}

// x/text/message's %e for en: "d.dddddd × 10ⁿⁿ" with superscript exponent
// digits (at least two). cel-go builds the Go format "%<precision>e", so
// the precision (6 when the clause gives none) is really a field width: the
// mantissa always has six fraction digits, and the result is left-padded
// with spaces to that many runes (so NaN prints as "   NaN").
std::string LocaleScientific(double d, int64_t width) {
  // x/text's format parser stops reading a width once the digits so far
  // exceed 1e6, and then finds no verb.
  if (width / 10 > 1000000) return "%!(NOVERB)";
  std::string out = UnpaddedLocaleScientific(d);
  // "%0e" reads the 0 as the zero-padding flag, not as a width; x/text keeps
  // the width in a uint16.
  const auto target = static_cast<uint16_t>(width);
  size_t runes = 0;
  for (unsigned char c : out) runes += (c & 0xC0) != 0x80;
  if (runes < target) out.insert(0, target - runes, ' ');
  return out;
}

std::string ToBase(uint64_t u, int base, bool upper) {
  if (u == 0) return "0";
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string s;
  while (u > 0) {
    s += digits[u % base];
    u /= base;
  }
  std::reverse(s.begin(), s.end());
  return s;
}

std::string SignedBase(int64_t i, int base, bool upper) {
  if (i < 0) {
    return "-" + ToBase(static_cast<uint64_t>(0) - static_cast<uint64_t>(i),
                        base, upper);
  }
  return ToBase(static_cast<uint64_t>(i), base, upper);
}

bool FormatClause(char verb, int64_t precision, bool has_precision,
                  const Value& arg, std::string* out, FormatError* err) {
  switch (verb) {
    case 's':
      return FormatString(arg, out, err);
    case 'd':
      return FormatDecimal(arg, out, err);
    case 'f': {
      double d;
      if (!FloatArg(arg, &d)) {
        err->message =
            "fixed-point clause can only be used on doubles, was given " +
            TypeNameOf(arg);
        return false;
      }
      *out = LocaleFixed(d, has_precision ? static_cast<int>(precision) : 6);
      return true;
    }
    case 'e': {
      double d;
      if (!FloatArg(arg, &d)) {
        err->message =
            "scientific clause can only be used on doubles, was given " +
            TypeNameOf(arg);
        return false;
      }
      *out = LocaleScientific(d, has_precision ? precision : 6);
      return true;
    }
    case 'b':
      if (arg.kind() == Kind::kInt) {
        *out = SignedBase(arg.int_value(), 2, false);
        return true;
      }
      if (arg.kind() == Kind::kUint) {
        *out = ToBase(arg.uint_value(), 2, false);
        return true;
      }
      if (arg.kind() == Kind::kBool) {
        *out = arg.bool_value() ? "1" : "0";
        return true;
      }
      err->message =
          "only integers and bools can be formatted as binary, was given " +
          TypeNameOf(arg);
      return false;
    case 'x':
    case 'X': {
      const bool upper = verb == 'X';
      switch (arg.kind()) {
        case Kind::kString:
        case Kind::kBytes: {
          const std::string_view b = arg.kind() == Kind::kString
                                         ? arg.string_value()
                                         : arg.bytes_value();
          const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
          std::string s;
          for (unsigned char c : b) {
            s += digits[c >> 4];
            s += digits[c & 0xF];
          }
          *out = std::move(s);
          return true;
        }
        case Kind::kInt:
          *out = SignedBase(arg.int_value(), 16, upper);
          return true;
        case Kind::kUint:
          *out = ToBase(arg.uint_value(), 16, upper);
          return true;
        default:
          err->message =
              "only integers, byte buffers, and strings can be formatted as "
              "hex, was given " +
              TypeNameOf(arg);
          return false;
      }
    }
    case 'o':
      if (arg.kind() == Kind::kInt) {
        *out = SignedBase(arg.int_value(), 8, false);
        return true;
      }
      if (arg.kind() == Kind::kUint) {
        *out = ToBase(arg.uint_value(), 8, false);
        return true;
      }
      err->message = "octal clause can only be used on integers, was given " +
                     TypeNameOf(arg);
      return false;
    default:
      return false;
  }
}

// Go's %c of a byte widened to a rune (Latin-1).
std::string ByteAsRune(unsigned char c) {
  std::string s;
  lib::AppendRune(s, c);
  return s;
}

// One clause of a format string after its '%': [.precision]verb.
struct ClauseSpec {
  char verb = 0;
  bool has_precision = false;
  int64_t precision = 0;
};

// cel-go's parseFormatString, shared by the formatter and the compile-time
// validator so that the two never read a format string differently. For
// each clause, `clause(arg_index, spec, out)` formats or checks it and
// returns an error message (which gets the "error during formatting: "
// prefix). Text outside clauses goes to *out when out is not null. Returns
// the first error.
//
// The formatter fetches a clause's argument before looking past the '%',
// so a missing argument is reported before a '%' that ends the string; the
// validator's argument fetch never fails, which flips that order
// (args_first says which).
template <typename ClauseFn>
std::optional<std::string> WalkFormat(std::string_view format, int64_t num_args,
                                      bool args_first, std::string* out,
                                      ClauseFn&& clause) {
  size_t i = 0;
  int64_t arg_index = 0;
  while (i < format.size()) {
    if (format[i] != '%') {
      if (out) *out += format[i];
      ++i;
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      if (out) *out += '%';
      i += 2;
      continue;
    }
    const std::string out_of_range =
        "index " + std::to_string(arg_index) + " out of range";
    if (args_first && arg_index >= num_args) return out_of_range;
    if (i + 1 >= format.size()) return "unexpected end of string";
    if (arg_index >= num_args) return out_of_range;
    size_t j = i + 1;
    ClauseSpec spec;
    if (format[j] == '.') {
      ++j;
      std::string digits;
      while (true) {
        if (j >= format.size()) {
          return "could not parse formatting clause: error while parsing "
                 "precision: could not find end of precision specifier";
        }
        if (format[j] < '0' || format[j] > '9') break;
        digits += format[j++];
      }
      long long p = 0;
      const auto res =
          std::from_chars(digits.data(), digits.data() + digits.size(), p);
      if (digits.empty() || res.ec != std::errc()) {
        const std::string reason =
            digits.empty() ? "invalid syntax" : "value out of range";
        return "could not parse formatting clause: error while parsing "
               "precision: error while converting precision to integer: "
               "strconv.Atoi: parsing " +
               lib::GoQuote(digits) + ": " + reason;
      }
      spec.precision = p;
      spec.has_precision = true;
    }
    spec.verb = format[j];
    if (std::string_view("sdfebxXo").find(spec.verb) ==
        std::string_view::npos) {
      return "could not parse formatting clause: unrecognized formatting "
             "clause \"" +
             ByteAsRune(static_cast<unsigned char>(spec.verb)) + "\"";
    }
    if (std::optional<std::string> err = clause(arg_index, spec, out)) {
      return "error during formatting: " + *err;
    }
    i = j + 1;
    ++arg_index;
  }
  return std::nullopt;
}

Value Format(std::string_view format, const ListValue& args) {
  std::string out;
  const std::optional<std::string> err = WalkFormat(
      format, static_cast<int64_t>(args.size()), /*args_first=*/true, &out,
      [&](int64_t index, const ClauseSpec& spec,
          std::string* text) -> std::optional<std::string> {
        std::string clause;
        FormatError error;
        if (!FormatClause(spec.verb, spec.precision, spec.has_precision,
                          args.at(index), &clause, &error)) {
          return error.message;
        }
        *text += clause;
        return std::nullopt;
      });
  if (err) return Value::Error(*err);
  return Value::String(std::move(out));
}

// --- string.format's compile-time validator (stringFormatValidator). ------

// Whether a checked type may take a clause accepting `kinds`. Like cel-go,
// only the outer kind counts, and dyn passes (it is checked at runtime).
bool TypeKindIn(const Type& t, std::initializer_list<Type::Kind> kinds) {
  if (t.kind() == Type::Kind::kDyn) return true;
  return std::find(kinds.begin(), kinds.end(), t.kind()) != kinds.end();
}

// %s takes any of these; list and map literals are looked into, as their
// elements are printed with %s too. Returns the first offender.
const FormatArg* UnprintableArg(const FormatArg& arg) {
  using K = Type::Kind;
  if (!TypeKindIn(arg.type,
                  {K::kList, K::kMap, K::kInt, K::kUint, K::kDouble, K::kBool,
                   K::kString, K::kBytes, K::kType, K::kNull}) &&
      arg.type != Type::Timestamp() && arg.type != Type::Duration()) {
    return &arg;
  }
  for (const FormatArg& e : arg.elements) {
    if (const FormatArg* bad = UnprintableArg(e)) return bad;
  }
  return nullptr;
}

std::optional<FormatCheckIssue> CheckFormat(std::string_view format,
                                            std::span<const FormatArg> args,
                                            int64_t call_id) {
  using K = Type::Kind;
  // Clause type errors point at the offending element; anything wrong with
  // the format string itself points at the call.
  int64_t issue_id = call_id;
  int64_t clauses = 0;
  const std::optional<std::string> err = WalkFormat(
      format, static_cast<int64_t>(args.size()), /*args_first=*/false, nullptr,
      [&](int64_t index, const ClauseSpec& spec,
          std::string*) -> std::optional<std::string> {
        ++clauses;
        const FormatArg& arg = args[index];
        const FormatArg* bad = nullptr;
        std::string what;
        switch (spec.verb) {
          case 's':
            bad = UnprintableArg(arg);
            what =
                "string clause can only be used on strings, bools, bytes, "
                "ints, doubles, maps, lists, types, durations, and "
                "timestamps";
            break;
          case 'd':
            if (!TypeKindIn(arg.type, {K::kInt, K::kUint})) bad = &arg;
            what = "decimal clause can only be used on integers";
            break;
          case 'f':
            // Strings pass: "NaN", "Infinity" and "-Infinity" are accepted.
            if (!TypeKindIn(arg.type, {K::kDouble, K::kString})) bad = &arg;
            what = "fixed-point clause can only be used on doubles";
            break;
          case 'e':
            if (!TypeKindIn(arg.type, {K::kDouble, K::kString})) bad = &arg;
            what = "scientific clause can only be used on doubles";
            break;
          case 'b':
            if (!TypeKindIn(arg.type, {K::kInt, K::kUint, K::kBool})) {
              bad = &arg;
            }
            what = "only integers and bools can be formatted as binary";
            break;
          case 'x':
          case 'X':
            if (!TypeKindIn(arg.type,
                            {K::kInt, K::kUint, K::kString, K::kBytes})) {
              bad = &arg;
            }
            what =
                "only integers, byte buffers, and strings can be formatted "
                "as hex";
            break;
          case 'o':
            if (!TypeKindIn(arg.type, {K::kInt, K::kUint})) bad = &arg;
            what = "octal clause can only be used on integers";
            break;
        }
        if (!bad) return std::nullopt;
        issue_id = bad->id;
        return what + ", was given " + std::string(bad->type.RuntimeName());
      });
  if (err) return FormatCheckIssue{issue_id, *err};
  if (static_cast<int64_t>(args.size()) > clauses) {
    return FormatCheckIssue{
        call_id, "too many arguments supplied to string.format (expected " +
                     std::to_string(clauses) + ", got " +
                     std::to_string(args.size()) + ")"};
  }
  return std::nullopt;
}

// --- Costs (Kubernetes' CostEstimator.CallCost). --------------------------

std::optional<uint64_t> StringTraversal(std::span<const Value> args,
                                        const Value&) {
  return lib::CeilCost(static_cast<double>(SizerSize(args[0])) * 0.1);
}

std::optional<uint64_t> StringTraversalTwice(std::span<const Value> args,
                                             const Value&) {
  return lib::CeilCost(static_cast<double>(SizerSize(args[0])) * 2 * 0.1);
}

// Kubernetes' traversalCost for indexOf/lastIndexOf: bytes, truncated.
std::optional<uint64_t> StringBytesTraversal(std::span<const Value> args,
                                             const Value&) {
  return static_cast<uint64_t>(
      static_cast<double>(args[0].string_value().size()) * 0.1);
}

std::optional<uint64_t> JoinCost(std::span<const Value>, const Value& result) {
  return lib::CeilCost(static_cast<double>(SizerSize(result)) * 2 * 0.1);
}

}  // namespace

void Register(FunctionRegistry& r) {
  const Type s = Type::String();
  const Type i = Type::Int();
  r.Add("charAt",
        Member("string_char_at_int", {s, i}, s, [](std::span<const Value> a) {
          return CharAt(a[0].string_value(), a[1].int_value());
        }));
  r.Add("indexOf", Member(
                       "string_index_of_string", {s, s}, i,
                       [](std::span<const Value> a) {
                         return IndexOfOffset(a[0].string_value(),
                                              a[1].string_value(), 0);
                       },
                       StringBytesTraversal));
  r.Add("indexOf", Member(
                       "string_index_of_string_int", {s, s, i}, i,
                       [](std::span<const Value> a) {
                         return IndexOfOffset(a[0].string_value(),
                                              a[1].string_value(),
                                              a[2].int_value());
                       },
                       StringBytesTraversal));
  r.Add("lastIndexOf", Member(
                           "string_last_index_of_string", {s, s}, i,
                           [](std::span<const Value> a) {
                             return LastIndexOf(a[0].string_value(),
                                                a[1].string_value());
                           },
                           StringBytesTraversal));
  r.Add("lastIndexOf", Member(
                           "string_last_index_of_string_int", {s, s, i}, i,
                           [](std::span<const Value> a) {
                             return LastIndexOfOffset(a[0].string_value(),
                                                      a[1].string_value(),
                                                      a[2].int_value());
                           },
                           StringBytesTraversal));
  r.Add("lowerAscii",
        Member(
            "string_lower_ascii", {s}, s,
            [](std::span<const Value> a) {
              return Value::String(MapAscii(a[0].string_value(), false));
            },
            StringTraversal));
  r.Add("replace", Member(
                       "string_replace_string_string", {s, s, s}, s,
                       [](std::span<const Value> a) {
                         return Value::String(Replace(a[0].string_value(),
                                                      a[1].string_value(),
                                                      a[2].string_value(), -1));
                       },
                       StringTraversalTwice));
  r.Add("replace", Member(
                       "string_replace_string_string_int", {s, s, s, i}, s,
                       [](std::span<const Value> a) {
                         return Value::String(
                             Replace(a[0].string_value(), a[1].string_value(),
                                     a[2].string_value(), a[3].int_value()));
                       },
                       StringTraversalTwice));
  r.Add("split", Member(
                     "string_split_string", {s, s}, Type::List(s),
                     [](std::span<const Value> a) {
                       return lib::MakeStringList(SplitN(
                           a[0].string_value(), a[1].string_value(), -1));
                     },
                     StringTraversalTwice));
  r.Add("split",
        Member(
            "string_split_string_int", {s, s, i}, Type::List(s),
            [](std::span<const Value> a) {
              return lib::MakeStringList(SplitN(
                  a[0].string_value(), a[1].string_value(), a[2].int_value()));
            },
            StringTraversalTwice));
  r.Add("substring", Member(
                         "string_substring_int", {s, i}, s,
                         [](std::span<const Value> a) {
                           return Substring(a[0].string_value(),
                                            a[1].int_value());
                         },
                         StringTraversal));
  r.Add("substring", Member(
                         "string_substring_int_int", {s, i, i}, s,
                         [](std::span<const Value> a) {
                           return SubstringRange(a[0].string_value(),
                                                 a[1].int_value(),
                                                 a[2].int_value());
                         },
                         StringTraversal));
  r.Add("trim", Member(
                    "string_trim", {s}, s,
                    [](std::span<const Value> a) {
                      return Value::String(TrimSpace(a[0].string_value()));
                    },
                    StringTraversal));
  r.Add("upperAscii",
        Member(
            "string_upper_ascii", {s}, s,
            [](std::span<const Value> a) {
              return Value::String(MapAscii(a[0].string_value(), true));
            },
            StringTraversal));
  // Version 1. Neither is costed by Kubernetes; cel-go's default charges a
  // traversal of the receiver, spelled out here.
  r.Add("format", Member(
                      "string_format", {s, Type::List(Type::Dyn())}, s,
                      [](std::span<const Value> a) {
                        return Format(a[0].string_value(), a[1].list());
                      },
                      StringTraversal));
  r.Add("strings.quote", Global(
                             "strings_quote", {s}, s,
                             [](std::span<const Value> a) {
                               return Value::String(Quote(a[0].string_value()));
                             },
                             StringTraversal));
  // Version 2.
  r.Add("join",
        Member(
            "list_join", {Type::List(s)}, s,
            [](std::span<const Value> a) { return Join(a[0].list(), ""); },
            JoinCost));
  r.Add("join", Member(
                    "list_join_string", {Type::List(s), s}, s,
                    [](std::span<const Value> a) {
                      return Join(a[0].list(), a[1].string_value());
                    },
                    JoinCost));
}

}  // namespace strings_ext

void RegisterStringsExt(FunctionRegistry& r) { strings_ext::Register(r); }

std::optional<FormatCheckIssue> CheckFormatCall(std::string_view format,
                                                std::span<const FormatArg> args,
                                                int64_t call_id) {
  return strings_ext::CheckFormat(format, args, call_id);
}

}  // namespace ksched::cel
