#include "pkg/cel/compare.h"

#include <cmath>
#include <cstdint>
#include <string_view>

namespace ksched::cel {
// Named so that unity builds keep these helpers apart from other files'.
namespace compare_detail {
namespace {

constexpr char kCompareNaN[] = "NaN values cannot be ordered";
constexpr char kCompareNoSuchOverload[] = "no such overload";

int Sign3(bool less, bool greater) { return less ? -1 : (greater ? 1 : 0); }

int CompareDoubles(double a, double b) { return Sign3(a<b, a> b); }

// cel-go's compareDoubleInt: bounds first, then compare as doubles.
int CompareDoubleInt(double d, int64_t i) {
  if (d < -9223372036854775808.0) return -1;
  if (d > 9223372036854775807.0) return 1;  // i.e. d > 2^63
  return CompareDoubles(d, static_cast<double>(i));
}

int CompareDoubleUint(double d, uint64_t u) {
  if (d < 0) return -1;
  if (d > 18446744073709551615.0) return 1;  // i.e. d > 2^64
  return CompareDoubles(d, static_cast<double>(u));
}

int CompareIntUint(int64_t i, uint64_t u) {
  if (i < 0 || u > static_cast<uint64_t>(INT64_MAX)) return -1;
  const int64_t diff = i - static_cast<int64_t>(u);
  return Sign3(diff<0, diff> 0);
}

}  // namespace
}  // namespace compare_detail

bool IsComparableKind(Kind kind) {
  switch (kind) {
    case Kind::kBool:
    case Kind::kInt:
    case Kind::kUint:
    case Kind::kDouble:
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kTimestamp:
    case Kind::kDuration:
      return true;
    default:
      return false;
  }
}

Value Compare(const Value& a, const Value& b) {
  if (a.is_error()) return a;
  switch (a.kind()) {
    case Kind::kDouble: {
      const double d = a.double_value();
      if (std::isnan(d)) return Value::Error(compare_detail::kCompareNaN);
      switch (b.kind()) {
        case Kind::kDouble:
          if (std::isnan(b.double_value()))
            return Value::Error(compare_detail::kCompareNaN);
          return Value::Int(
              compare_detail::CompareDoubles(d, b.double_value()));
        case Kind::kInt:
          return Value::Int(compare_detail::CompareDoubleInt(d, b.int_value()));
        case Kind::kUint:
          return Value::Int(
              compare_detail::CompareDoubleUint(d, b.uint_value()));
        default:
          break;
      }
      break;
    }
    case Kind::kInt: {
      const int64_t i = a.int_value();
      switch (b.kind()) {
        case Kind::kDouble:
          if (std::isnan(b.double_value()))
            return Value::Error(compare_detail::kCompareNaN);
          return Value::Int(
              -compare_detail::CompareDoubleInt(b.double_value(), i));
        case Kind::kInt:
          return Value::Int(
              compare_detail::Sign3(i<b.int_value(), i> b.int_value()));
        case Kind::kUint:
          return Value::Int(compare_detail::CompareIntUint(i, b.uint_value()));
        default:
          break;
      }
      break;
    }
    case Kind::kUint: {
      const uint64_t u = a.uint_value();
      switch (b.kind()) {
        case Kind::kDouble:
          if (std::isnan(b.double_value()))
            return Value::Error(compare_detail::kCompareNaN);
          return Value::Int(
              -compare_detail::CompareDoubleUint(b.double_value(), u));
        case Kind::kInt:
          return Value::Int(-compare_detail::CompareIntUint(b.int_value(), u));
        case Kind::kUint:
          return Value::Int(
              compare_detail::Sign3(u<b.uint_value(), u> b.uint_value()));
        default:
          break;
      }
      break;
    }
    case Kind::kString:
      if (b.kind() == Kind::kString) {
        const int c = a.string_value().compare(b.string_value());
        return Value::Int(compare_detail::Sign3(c<0, c> 0));
      }
      break;
    case Kind::kBytes:
      if (b.kind() == Kind::kBytes) {
        const int c = a.bytes_value().compare(b.bytes_value());
        return Value::Int(compare_detail::Sign3(c<0, c> 0));
      }
      break;
    case Kind::kTimestamp:
      if (b.kind() == Kind::kTimestamp) {
        const TimestampValue& x = a.timestamp();
        const TimestampValue& y = b.timestamp();
        return Value::Int(compare_detail::Sign3(
            x.seconds < y.seconds ||
                (x.seconds == y.seconds && x.nanos < y.nanos),
            x.seconds > y.seconds ||
                (x.seconds == y.seconds && x.nanos > y.nanos)));
      }
      break;
    case Kind::kDuration:
      if (b.kind() == Kind::kDuration) {
        const int64_t x = a.duration_nanos();
        const int64_t y = b.duration_nanos();
        return Value::Int(compare_detail::Sign3(x<y, x> y));
      }
      break;
    case Kind::kBool:
      if (b.kind() == Kind::kBool) {
        const bool x = a.bool_value();
        const bool y = b.bool_value();
        return Value::Int(compare_detail::Sign3(!x && y, x && !y));
      }
      break;
    default:
      break;
  }
  // cel-go's MaybeNoSuchOverloadErr: an error operand is the result.
  if (b.is_error()) return b;
  return Value::Error(compare_detail::kCompareNoSuchOverload);
}

}  // namespace ksched::cel
