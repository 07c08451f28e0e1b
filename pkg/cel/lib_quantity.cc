// Kubernetes' quantity library (apiserver/pkg/cel/library/quantity.go).

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "pkg/api/quantity.h"
#include "pkg/cel/function.h"
#include "pkg/cel/lib_internal.h"
#include "pkg/cel/libraries.h"

namespace ksched::cel {
// Named so that unity builds keep these helpers apart from other files'.
namespace quantity_lib {
namespace {

constexpr __int128 kNanoPerUnit = 1000000000;

// resource.ParseQuantity's error text: api::Quantity::Parse prefixes the
// reason with the input; Kubernetes returns the bare reason.
std::string ParseErrorReason(const std::string& message) {
  static constexpr std::string_view kReasons[] = {
      "quantities must match the regular expression "
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      "unable to parse quantity's suffix",
      "unable to parse numeric part of quantity",
  };
  for (std::string_view reason : kReasons) {
    if (message.size() >= reason.size() &&
        std::string_view(message).substr(message.size() - reason.size()) ==
            reason) {
      return std::string(reason);
    }
  }
  return message;
}

Value StringToQuantity(std::string_view s) {
  util::Result<api::Quantity> q = api::Quantity::Parse(s);
  if (!q.ok()) return Value::Error(ParseErrorReason(q.error().message()));
  return Value::Quantity(*q);
}

// Quantity.AsInt64: the value when it is a whole number within int64.
bool AsInt64(const api::Quantity& q, int64_t* out) {
  const __int128 nano = q.NanoValue();
  if (nano % kNanoPerUnit != 0) return false;
  const __int128 units = nano / kNanoPerUnit;
  if (units < std::numeric_limits<int64_t>::min() ||
      units > std::numeric_limits<int64_t>::max()) {
    return false;
  }
  *out = static_cast<int64_t>(units);
  return true;
}

// Go's math.Pow10.
double GoPow10(int n) {
  static const double kTab[] = {1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07,
                                1e08, 1e09, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23,
                                1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31};
  static const double kPos32[] = {1e00,  1e32,  1e64,  1e96,  1e128,
                                  1e160, 1e192, 1e224, 1e256, 1e288};
  static const double kNeg32[] = {1e-00,  1e-32,  1e-64,  1e-96,
                                  1e-128, 1e-160, 1e-192, 1e-224,
                                  1e-256, 1e-288, 1e-320};
  if (n >= 0 && n <= 308) return kPos32[n / 32] * kTab[n % 32];
  if (n < 0 && n >= -323) return kNeg32[-n / 32] / kTab[-n % 32];
  return n > 0 ? INFINITY : 0;
}

// Quantity.AsApproximateFloat64: base * 10^exponent. Kubernetes keeps the
// digits as parsed; we keep nano-units, so the value is written as the
// shortest unscaled integer with its decimal exponent.
double AsApproximateFloat(const api::Quantity& q) {
  __int128 value = q.NanoValue();
  int exponent = -9;
  if (value == 0) return 0;
  while (value % 10 == 0) {
    value /= 10;
    ++exponent;
  }
  const auto base = static_cast<double>(value);
  if (exponent == 0) return base;
  return base * GoPow10(exponent);
}

std::optional<uint64_t> ParseCost(std::span<const Value> args, const Value&) {
  return lib::CeilCost(static_cast<double>(lib::SizerSize(args[0])) * 0.1);
}

std::optional<uint64_t> UnitCost(std::span<const Value>, const Value&) {
  return 1;
}

int Cmp(const api::Quantity& a, const api::Quantity& b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

}  // namespace

void Register(FunctionRegistry& r) {
  const Type quantity = Type::Opaque("kubernetes.Quantity");
  const Type s = Type::String();
  r.Add("quantity", Global(
                        "string_to_quantity", {s}, quantity,
                        [](std::span<const Value> a) {
                          return StringToQuantity(a[0].string_value());
                        },
                        ParseCost));
  r.Add("isQuantity", Global(
                          "is_quantity_string", {s}, Type::Bool(),
                          [](std::span<const Value> a) {
                            return Value::Bool(
                                api::Quantity::Parse(a[0].string_value()).ok());
                          },
                          ParseCost));
  r.Add("sign", Global(
                    "quantity_sign", {quantity}, Type::Int(),
                    [](std::span<const Value> a) {
                      return Value::Int(a[0].quantity().Sign());
                    },
                    UnitCost));
  r.Add("isGreaterThan",
        Member(
            "quantity_is_greater_than", {quantity, quantity}, Type::Bool(),
            [](std::span<const Value> a) {
              return Value::Bool(Cmp(a[0].quantity(), a[1].quantity()) == 1);
            },
            UnitCost));
  r.Add("isLessThan",
        Member(
            "quantity_is_less_than", {quantity, quantity}, Type::Bool(),
            [](std::span<const Value> a) {
              return Value::Bool(Cmp(a[0].quantity(), a[1].quantity()) == -1);
            },
            UnitCost));
  r.Add("compareTo",
        Member(
            "quantity_compare_to", {quantity, quantity}, Type::Int(),
            [](std::span<const Value> a) {
              return Value::Int(Cmp(a[0].quantity(), a[1].quantity()));
            },
            UnitCost));
  r.Add("asApproximateFloat",
        Member(
            "quantity_get_float", {quantity}, Type::Double(),
            [](std::span<const Value> a) {
              return Value::Double(AsApproximateFloat(a[0].quantity()));
            },
            UnitCost));
  r.Add("asInteger",
        Member(
            "quantity_get_int", {quantity}, Type::Int(),
            [](std::span<const Value> a) {
              int64_t v;
              if (!AsInt64(a[0].quantity(), &v)) {
                return Value::Error("cannot convert value to integer");
              }
              return Value::Int(v);
            },
            UnitCost));
  r.Add("isInteger", Member(
                         "quantity_is_integer", {quantity}, Type::Bool(),
                         [](std::span<const Value> a) {
                           int64_t v;
                           return Value::Bool(AsInt64(a[0].quantity(), &v));
                         },
                         UnitCost));
  r.Add("add", Member(
                   "quantity_add", {quantity, quantity}, quantity,
                   [](std::span<const Value> a) {
                     api::Quantity q = a[0].quantity();
                     q += a[1].quantity();
                     return Value::Quantity(q);
                   },
                   UnitCost));
  r.Add("add", Member(
                   "quantity_add_int", {quantity, Type::Int()}, quantity,
                   [](std::span<const Value> a) {
                     api::Quantity q = a[0].quantity();
                     q += api::Quantity::FromValue(
                         a[1].int_value(),
                         api::Quantity::Format::kDecimalExponent);
                     return Value::Quantity(q);
                   },
                   UnitCost));
  r.Add("sub", Member(
                   "quantity_sub", {quantity, quantity}, quantity,
                   [](std::span<const Value> a) {
                     api::Quantity q = a[0].quantity();
                     q -= a[1].quantity();
                     return Value::Quantity(q);
                   },
                   UnitCost));
  r.Add("sub", Member(
                   "quantity_sub_int", {quantity, Type::Int()}, quantity,
                   [](std::span<const Value> a) {
                     api::Quantity q = a[0].quantity();
                     q -= api::Quantity::FromValue(
                         a[1].int_value(),
                         api::Quantity::Format::kDecimalExponent);
                     return Value::Quantity(q);
                   },
                   UnitCost));
}

}  // namespace quantity_lib

void RegisterQuantity(FunctionRegistry& r) { quantity_lib::Register(r); }

}  // namespace ksched::cel
