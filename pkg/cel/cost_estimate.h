// Ranges of sizes and costs for static cost estimation, with cel-go's
// arithmetic (checker.SizeEstimate and checker.CostEstimate): sums and
// products saturate at UINT64_MAX, and scaling by a cost factor rounds up.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace ksched::cel {

inline constexpr uint64_t kMaxEstimate = std::numeric_limits<uint64_t>::max();

// cel-go's common cost constants.
inline constexpr uint64_t kSelectAndIdentCost = 1;
inline constexpr uint64_t kConstCost = 0;
inline constexpr uint64_t kListCreateBaseCost = 10;
inline constexpr uint64_t kMapCreateBaseCost = 30;
inline constexpr uint64_t kStructCreateBaseCost = 40;
inline constexpr double kStringTraversalCostFactor = 0.1;
inline constexpr double kRegexStringLengthCostFactor = 0.25;

inline uint64_t SaturatingAdd(uint64_t x, uint64_t y) {
  return x > kMaxEstimate - y ? kMaxEstimate : x + y;
}

inline uint64_t SaturatingMultiply(uint64_t x, uint64_t y) {
  return y != 0 && x > kMaxEstimate / y ? kMaxEstimate : x * y;
}

// ceil(x * factor), UINT64_MAX when that does not fit, computed in doubles
// exactly as cel-go computes it (the estimates must agree to the unit).
inline uint64_t MultiplyByCostFactor(uint64_t x, double factor) {
  // 2^64, which is what Go makes of math.MaxUint64 as a float64.
  constexpr double kTwoTo64 = 18446744073709551616.0;
  double xf = static_cast<double>(x);
  if (xf > 0 && factor > 0 && xf > kTwoTo64 / factor) return kMaxEstimate;
  double product = std::ceil(xf * factor);
  if (!(product < kTwoTo64)) return kMaxEstimate;
  return static_cast<uint64_t>(product);
}

struct CostEstimate {
  uint64_t min = 0;
  uint64_t max = 0;

  static CostEstimate Fixed(uint64_t cost) { return {cost, cost}; }
  static CostEstimate Unknown() { return {0, kMaxEstimate}; }

  CostEstimate Add(const CostEstimate& other) const {
    return {SaturatingAdd(min, other.min), SaturatingAdd(max, other.max)};
  }
  CostEstimate Multiply(const CostEstimate& other) const {
    return {SaturatingMultiply(min, other.min),
            SaturatingMultiply(max, other.max)};
  }
  CostEstimate MultiplyByCostFactor(double factor) const {
    return {cel::MultiplyByCostFactor(min, factor),
            cel::MultiplyByCostFactor(max, factor)};
  }
  // The range covering both.
  CostEstimate Union(const CostEstimate& other) const {
    return {other.min < min ? other.min : min,
            other.max > max ? other.max : max};
  }

  friend bool operator==(const CostEstimate&, const CostEstimate&) = default;
};

// The size of a string (code points), bytes, list or map.
struct SizeEstimate {
  uint64_t min = 0;
  uint64_t max = 0;

  static SizeEstimate Fixed(uint64_t size) { return {size, size}; }
  static SizeEstimate Unknown() { return {0, kMaxEstimate}; }

  SizeEstimate Add(const SizeEstimate& other) const {
    return {SaturatingAdd(min, other.min), SaturatingAdd(max, other.max)};
  }
  SizeEstimate Multiply(const SizeEstimate& other) const {
    return {SaturatingMultiply(min, other.min),
            SaturatingMultiply(max, other.max)};
  }
  CostEstimate MultiplyByCostFactor(double factor) const {
    return {cel::MultiplyByCostFactor(min, factor),
            cel::MultiplyByCostFactor(max, factor)};
  }
  CostEstimate MultiplyByCost(const CostEstimate& cost) const {
    return {SaturatingMultiply(min, cost.min),
            SaturatingMultiply(max, cost.max)};
  }
  SizeEstimate Union(const SizeEstimate& other) const {
    return {other.min < min ? other.min : min,
            other.max > max ? other.max : max};
  }
  // The same range read as a cost (Go's CostEstimate(size) conversion).
  CostEstimate AsCost() const { return {min, max}; }

  friend bool operator==(const SizeEstimate&, const SizeEstimate&) = default;
};

// What a call costs and, for calls returning a string, bytes, list or map,
// the size of its result when known.
struct CallEstimate {
  CostEstimate cost;
  std::optional<SizeEstimate> result_size = std::nullopt;
};

}  // namespace ksched::cel
