// Quantity parsing and printing, following the behaviour of
// k8s.io/apimachinery/pkg/api/resource (ParseQuantity, CanonicalizeBytes,
// Value, MilliValue, Add, Sub) on an exact 128-bit nano-unit count.
//
// Kubernetes splits parsing into an int64 fast path and an arbitrary-precision
// slow path. Both produce the same exact value wherever they overlap, so this
// file computes that value once, exactly, and only models the paths where they
// differ in what they accept or how they finish the number:
//   * the slow path rejects a number part with no digit at all ("Pi", "e-10"),
//     while the fast path reads it as zero ("Gi", "k", "-", ".") -- a quirk
//     (kubernetes/apimachinery#165) ksched does not copy: a quantity without
//     a digit is a typo, and reading it as zero would hide it, so every such
//     input is rejected;
//   * values below one nano-unit only occur on the slow path, which rounds
//     their magnitude up to the next nano-unit;
//   * only BinarySI values are capped, at 2^63-1 units, and a BinarySI value
//     strictly between 0 and 1 becomes DecimalSI.
#include "pkg/api/quantity.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ksched::api {
namespace {

using Int128 = __int128;
using Uint128 = unsigned __int128;

// Largest magnitude we store. Keeping the range symmetric means negation and
// absolute value never overflow.
constexpr Uint128 kMaxMagnitude = ~Uint128{0} >> 1;  // 2^127 - 1
constexpr Int128 kMaxNano = static_cast<Int128>(kMaxMagnitude);

constexpr Uint128 kNanoPerUnit = 1'000'000'000;
constexpr Uint128 kNanoPerMilli = 1'000'000;

// Kubernetes caps parsed BinarySI quantities at the largest int64 (in units).
constexpr Uint128 kBinaryCapNano =
    Uint128{static_cast<uint64_t>(std::numeric_limits<int64_t>::max())} *
    kNanoPerUnit;

// Kubernetes stores an "e" exponent in an int32 scale that it later negates,
// so only +-(2^31-1) round-trips; newer releases reject anything beyond that
// instead of silently truncating it to an unrelated exponent.
constexpr int64_t kMaxExponent = std::numeric_limits<int32_t>::max();

// The decimal suffixes from 10^-9 to 10^18, one per power of 1000.
constexpr std::array<std::string_view, 10> kDecimalSuffixes = {
    "n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
// The binary suffixes for 1024^0 .. 1024^6.
constexpr std::array<std::string_view, 7> kBinarySuffixes = {
    "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

// The three failure kinds Kubernetes distinguishes; the texts match its
// exported errors so that messages read the same as the API server's.
constexpr std::string_view kErrFormat =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrNumeric =
    "unable to parse numeric part of quantity";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";

// Quotes the input for an error message. Quantities come from untrusted
// objects, so control bytes are escaped and very long inputs are shortened to
// keep one bad object from flooding the log.
std::string QuoteInput(std::string_view text) {
  constexpr size_t kMaxShown = 64;
  constexpr std::string_view kHex = "0123456789abcdef";
  std::string out = "\"";
  const size_t shown = text.size() < kMaxShown ? text.size() : kMaxShown;
  for (size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  if (text.size() > shown) {
    out += " (first " + std::to_string(shown) + " of " +
           std::to_string(text.size()) + " bytes)";
  }
  return out;
}

util::Error ParseError(std::string_view text, std::string_view reason) {
  std::string message = "invalid quantity ";
  message += QuoteInput(text);
  message += ": ";
  message += reason;
  return util::Error(std::move(message));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsSuffixLetter(char c) {
  return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos;
}

// The pieces of "<sign><number><suffix>" as Kubernetes' scanner cuts them.
struct Scanned {
  bool negative = false;
  // Whether the number part holds any digit at all, leading zeros included.
  bool has_digit = false;
  // Integer digits with leading zeros removed (possibly empty).
  std::string_view int_digits;
  // Digits after the '.', as written (possibly empty).
  std::string_view frac_digits;
  std::string_view suffix;
};

// Splits the text like Kubernetes' fast scanner: the number is permissive
// ("5.", ".5", "." are all numbers) and the suffix is any run of suffix
// letters, then an optional sign, then digits. Whether that suffix means
// anything is decided later. Returns false where Kubernetes reports a format
// error.
bool Scan(std::string_view s, Scanned& out) {
  size_t pos = 0;
  if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) {
    out.negative = s[pos] == '-';
    ++pos;
  }
  const size_t number_start = pos;
  while (pos < s.size() && s[pos] == '0') ++pos;
  const size_t int_start = pos;
  while (pos < s.size() && IsDigit(s[pos])) ++pos;
  out.int_digits = s.substr(int_start, pos - int_start);
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    const size_t frac_start = pos;
    while (pos < s.size() && IsDigit(s[pos])) ++pos;
    out.frac_digits = s.substr(frac_start, pos - frac_start);
  }
  out.has_digit = int_start > number_start || !out.int_digits.empty() ||
                  !out.frac_digits.empty();

  const size_t suffix_start = pos;
  while (pos < s.size() && IsSuffixLetter(s[pos])) ++pos;
  if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) ++pos;
  while (pos < s.size() && IsDigit(s[pos])) ++pos;
  if (pos != s.size()) return false;
  out.suffix = s.substr(suffix_start);
  return true;
}

struct Suffix {
  Quantity::Format format;
  // A power of 10 for the decimal formats, a power of 2 for BinarySI.
  int64_t exponent;
};

// Parses the signed exponent after "e"/"E": an optional sign and at least one
// digit, nothing else, within +-kMaxExponent. Leading zeros are fine, as with
// Go's strconv.ParseInt.
std::optional<int64_t> ParseExponent(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  int64_t value = 0;
  for (char c : s) {
    if (!IsDigit(c)) return std::nullopt;
    value = value * 10 + (c - '0');
    if (value > kMaxExponent) return std::nullopt;  // also bounds the loop
  }
  return negative ? -value : value;
}

std::optional<Suffix> InterpretSuffix(std::string_view s) {
  using F = Quantity::Format;
  for (size_t i = 0; i < kDecimalSuffixes.size(); ++i) {
    if (s == kDecimalSuffixes[i]) {
      return Suffix{F::kDecimalSI, static_cast<int64_t>(i) * 3 - 9};
    }
  }
  for (size_t i = 1; i < kBinarySuffixes.size(); ++i) {
    if (s == kBinarySuffixes[i]) {
      return Suffix{F::kBinarySI, static_cast<int64_t>(i) * 10};
    }
  }
  // A lone "E" is exa and was matched above; a lone "e" means nothing.
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    if (auto exponent = ParseExponent(s.substr(1))) {
      return Suffix{F::kDecimalExponent, *exponent};
    }
  }
  return std::nullopt;
}

// Multiplies v by `factor` and adds `addend`, saturating at kMaxMagnitude.
Uint128 SaturatingMulAdd(Uint128 v, Uint128 factor, Uint128 addend) {
  if (v > (kMaxMagnitude - addend) / factor) return kMaxMagnitude;
  return v * factor + addend;
}

// The magnitude, in nano-units, of <int_digits>.<frac_digits> * 10^exp10 *
// 2^exp2, rounded up to a whole nano-unit and saturated at kMaxMagnitude.
// Works on a decimal digit vector so that any input length and any exponent is
// exact, without floating point and without bignum libraries.
Uint128 MagnitudeInNano(std::string_view int_digits,
                        std::string_view frac_digits, int64_t exp10,
                        int64_t exp2) {
  // Least significant digit first, so carries can append at the back.
  std::vector<uint8_t> digits;
  digits.reserve(int_digits.size() + frac_digits.size() + 20);
  for (size_t i = frac_digits.size(); i-- > 0;) {
    digits.push_back(static_cast<uint8_t>(frac_digits[i] - '0'));
  }
  for (size_t i = int_digits.size(); i-- > 0;) {
    digits.push_back(static_cast<uint8_t>(int_digits[i] - '0'));
  }
  while (!digits.empty() && digits.back() == 0) digits.pop_back();
  if (digits.empty()) return 0;

  // The value is digits * 10^scale nano-units. Both terms are bounded by the
  // exponent range and the input length, so int64 cannot overflow.
  int64_t scale = exp10 + 9 - static_cast<int64_t>(frac_digits.size());

  // Binary suffixes: multiply by 2^exp2 (at most 2^60) in steps small enough
  // that digit * 2^step + carry fits in 64 bits.
  for (int64_t remaining = exp2; remaining > 0;) {
    const int step = remaining < 30 ? static_cast<int>(remaining) : 30;
    uint64_t carry = 0;
    for (uint8_t& d : digits) {
      const uint64_t v = (uint64_t{d} << step) + carry;
      d = static_cast<uint8_t>(v % 10);
      carry = v / 10;
    }
    for (; carry != 0; carry /= 10) {
      digits.push_back(static_cast<uint8_t>(carry % 10));
    }
    remaining -= step;
  }

  // Move trailing zeros into the scale so the lowest kept digit is non-zero;
  // then any dropped digit below one nano-unit means the value is inexact.
  size_t first = 0;
  while (digits[first] == 0) ++first;  // terminates: the value is non-zero
  scale += static_cast<int64_t>(first);
  int64_t length = static_cast<int64_t>(digits.size() - first);

  bool round_up = false;
  if (scale < 0) {
    const int64_t dropped = -scale;
    if (dropped >= length) return 1;  // 0 < value < 1n rounds up to 1n
    first += static_cast<size_t>(dropped);
    length -= dropped;
    scale = 0;
    round_up = true;
  }
  // kMaxMagnitude has 39 digits; anything longer saturates without looping
  // over a possibly enormous exponent.
  if (length + scale > 39) return kMaxMagnitude;

  Uint128 value = 0;
  for (size_t i = digits.size(); i-- > first;) {
    value = SaturatingMulAdd(value, 10, digits[i]);
  }
  for (int64_t i = 0; i < scale; ++i) value = SaturatingMulAdd(value, 10, 0);
  if (round_up) value = SaturatingMulAdd(value, 1, 1);
  return value;
}

Uint128 Magnitude(Int128 v) {
  return v < 0 ? Uint128{0} - static_cast<Uint128>(v) : static_cast<Uint128>(v);
}

// Keeps every stored value inside +-kMaxNano (only -2^127 is outside).
Int128 ClampNano(Int128 v) { return v < -kMaxNano ? -kMaxNano : v; }

Int128 SaturatingAdd(Int128 a, Int128 b) {
  Int128 sum;
  if (__builtin_add_overflow(a, b, &sum)) return a < 0 ? -kMaxNano : kMaxNano;
  return ClampNano(sum);
}

std::string FormatUnsigned(Uint128 v) {
  char buf[40];  // 2^128 has 39 digits
  size_t pos = sizeof(buf);
  do {
    buf[--pos] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  return std::string(buf + pos, sizeof(buf) - pos);
}

// nano / divisor rounded away from zero and saturated to int64, the way
// Kubernetes' ScaledValue rounds and saturates.
int64_t ScaledAwayFromZero(Int128 nano, Uint128 divisor) {
  const Uint128 magnitude = Magnitude(nano);
  Uint128 scaled = magnitude / divisor;
  if (magnitude % divisor != 0) ++scaled;
  constexpr auto kMax =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (nano >= 0) {
    return scaled > kMax ? std::numeric_limits<int64_t>::max()
                         : static_cast<int64_t>(scaled);
  }
  if (scaled > Uint128{kMax} + 1) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(-static_cast<Int128>(scaled));
}

}  // namespace

util::Result<Quantity> Quantity::Parse(std::string_view text) {
  if (text.empty()) return ParseError(text, kErrFormat);
  Scanned scanned;
  if (!Scan(text, scanned)) return ParseError(text, kErrFormat);
  const std::optional<Suffix> suffix = InterpretSuffix(scanned.suffix);
  if (!suffix) return ParseError(text, kErrSuffix);
  if (!scanned.has_digit) return ParseError(text, kErrNumeric);

  const bool binary = suffix->format == Format::kBinarySI;
  Uint128 magnitude = MagnitudeInNano(scanned.int_digits, scanned.frac_digits,
                                      binary ? 0 : suffix->exponent,
                                      binary ? suffix->exponent : 0);

  Quantity q;
  q.format_ = suffix->format;
  if (binary) {
    // Kubernetes' fast path cannot exceed the cap and its slow path clamps to
    // it, so clamping every BinarySI value is the same rule.
    if (magnitude > kBinaryCapNano) magnitude = kBinaryCapNano;
    // A fraction of one unit cannot be shown with a binary suffix.
    if (magnitude > 0 && magnitude < kNanoPerUnit) {
      q.format_ = Format::kDecimalSI;
    }
  }
  const auto value = static_cast<Int128>(magnitude);
  q.nano_ = scanned.negative ? -value : value;
  return q;
}

Quantity Quantity::FromMilli(int64_t milli, Format format) {
  return FromNano(Int128{milli} * static_cast<Int128>(kNanoPerMilli), format);
}

Quantity Quantity::FromValue(int64_t value, Format format) {
  return FromNano(Int128{value} * static_cast<Int128>(kNanoPerUnit), format);
}

Quantity Quantity::FromNano(__int128 nano, Format format) {
  Quantity q;
  q.nano_ = ClampNano(nano);
  q.format_ = format;
  return q;
}

int64_t Quantity::Value() const {
  return ScaledAwayFromZero(nano_, kNanoPerUnit);
}

int64_t Quantity::MilliValue() const {
  return ScaledAwayFromZero(nano_, kNanoPerMilli);
}

std::string Quantity::ToString() const {
  if (nano_ == 0) return "0";
  Uint128 magnitude = Magnitude(nano_);
  std::string out = nano_ < 0 ? "-" : "";
  Format format = format_;

  if (format == Format::kBinarySI) {
    // Below 1Ki a binary suffix never applies, and a fractional value would
    // have to be rounded; Kubernetes prints both in DecimalSI instead.
    if (magnitude < 1024 * kNanoPerUnit || magnitude % kNanoPerUnit != 0) {
      format = Format::kDecimalSI;
    } else {
      Uint128 units = magnitude / kNanoPerUnit;
      size_t power = 0;
      while (units % 1024 == 0) {
        units /= 1024;
        ++power;
      }
      if (power < kBinarySuffixes.size()) {
        return out + FormatUnsigned(units) +
               std::string(kBinarySuffixes[power]);
      }
      // Past Ei there is no binary suffix; printing the mantissa alone would
      // silently drop a factor of 1024^n, so fall back to decimal.
      format = Format::kDecimalSI;
    }
  }

  // Largest exponent that is a multiple of 3 and loses no digit.
  int exponent = -9;
  while (magnitude % 1000 == 0) {
    magnitude /= 1000;
    exponent += 3;
  }
  out += FormatUnsigned(magnitude);
  if (format == Format::kDecimalSI && exponent <= 18) {
    out += kDecimalSuffixes[static_cast<size_t>((exponent + 9) / 3)];
  } else if (exponent != 0) {
    // DecimalExponent, or DecimalSI past "E", which has no suffix left and
    // must not lose its magnitude either.
    out += 'e';
    out += std::to_string(exponent);
  }
  return out;
}

Quantity& Quantity::operator+=(const Quantity& other) {
  // A zero takes the other operand's format, so that 0 + 1Gi prints as 1Gi.
  if (nano_ == 0) format_ = other.format_;
  nano_ = SaturatingAdd(nano_, other.nano_);
  return *this;
}

Quantity& Quantity::operator-=(const Quantity& other) {
  if (nano_ == 0) format_ = other.format_;
  // Negation is safe: stored values stay within +-kMaxNano.
  nano_ = SaturatingAdd(nano_, -other.nano_);
  return *this;
}

}  // namespace ksched::api
