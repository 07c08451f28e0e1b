// resource.Quantity as Kubernetes parses, compares and prints it.
//
// Kubernetes keeps a quantity exact (int64 with a decimal scale, or inf.Dec)
// and rounds only below one nano-unit (always up in magnitude, so -0.1n
// becomes -1n). It caps only BinarySI values, at 2^63-1 units; decimal values
// such as "100E" stay exact beyond int64. Every value that matters to a
// scheduler is therefore an integer number of nano-units, and a signed 128-bit
// count of them (up to about 1.7e29 units) covers far more than any real
// object carries; only absurd inputs such as "1e40" saturate (see Parse).
// No floating point anywhere.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/util/result.h"

namespace ksched::api {

class Quantity {
 public:
  // How the quantity prints; kept from the parsed suffix as Kubernetes does.
  enum class Format : uint8_t { kDecimalSI, kBinarySI, kDecimalExponent };

  Quantity() = default;

  // Parses "100m", "1.5Gi", "1e3", "+12", "0.5" ... exactly as
  // k8s.io/apimachinery/pkg/api/resource.ParseQuantity. Surrounding
  // whitespace is not accepted here (callers trim JSON values as Kubernetes'
  // UnmarshalJSON does). The error names the offending input.
  //
  // One deliberate difference: a number part without any digit ("Gi", "k",
  // "-", ".") is rejected. Kubernetes reads most of those as zero
  // (apimachinery#165), which turns a typo into "no resources".
  // Exponents beyond +-(2^31-1) are rejected. A magnitude beyond 2^127-1
  // nano-units, which Kubernetes would keep in an unbounded inf.Dec,
  // saturates to +-(2^127-1) nano-units.
  static util::Result<Quantity> Parse(std::string_view text);

  static Quantity FromMilli(int64_t milli, Format format = Format::kDecimalSI);
  static Quantity FromValue(int64_t value, Format format = Format::kDecimalSI);
  static Quantity FromNano(__int128 nano, Format format = Format::kDecimalSI);

  // Integer units, rounded up in magnitude (away from zero) as
  // Quantity.Value() does; saturates at the int64 range.
  int64_t Value() const;
  // Milli-units, rounded away from zero as Quantity.MilliValue() does;
  // saturates at the int64 range.
  int64_t MilliValue() const;
  // The exact value in nano-units.
  __int128 NanoValue() const { return nano_; }

  Format format() const { return format_; }
  bool IsZero() const { return nano_ == 0; }
  int Sign() const { return nano_ < 0 ? -1 : (nano_ > 0 ? 1 : 0); }

  // The canonical form Quantity.CanonicalizeBytes builds ("1536Mi", "500m",
  // "1k"), which is what Quantity.String() prints for any computed value.
  std::string ToString() const;

  Quantity& operator+=(const Quantity& other);
  Quantity& operator-=(const Quantity& other);

  // Compares values only; the format does not take part (like Quantity.Cmp).
  friend bool operator==(const Quantity& a, const Quantity& b) {
    return a.nano_ == b.nano_;
  }
  friend std::strong_ordering operator<=>(const Quantity& a,
                                          const Quantity& b) {
    return a.nano_ <=> b.nano_;
  }

 private:
  // Aligned to 8 rather than 16 (the compiler reads it as two words): 24
  // bytes a quantity instead of 32, in every resource list of every pod
  // and node.
  __int128 nano_ __attribute__((packed, aligned(8))) = 0;
  Format format_ = Format::kDecimalSI;
};

}  // namespace ksched::api
