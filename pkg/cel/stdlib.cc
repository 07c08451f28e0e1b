// CEL's standard functions and operators, with cel-go's overload ids, its
// checked arithmetic and its error messages.
#include "pkg/cel/stdlib.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "pkg/cel/compare.h"
#include "pkg/cel/format_double.h"
#include "pkg/cel/regex.h"

namespace ksched::cel {
namespace stdlib_detail {
namespace {

using Args = std::span<const Value>;

Value IntOverflow() { return Value::Error("integer overflow"); }
Value UintOverflow() { return Value::Error("unsigned integer overflow"); }

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr uint64_t kUMax = std::numeric_limits<uint64_t>::max();

Value ConversionError(std::string_view from, std::string_view to) {
  return Value::Error("type conversion error from '" + std::string(from) +
                      "' to '" + std::string(to) + "'");
}

// Go's strconv.ParseInt(s, 10, 64) / ParseUint: an optional sign (ParseInt
// only), then decimal digits, nothing else.
std::optional<int64_t> ParseGoInt(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool neg = false;
  size_t i = 0;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    i = 1;
  }
  if (i >= s.size()) return std::nullopt;
  unsigned __int128 v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
    if (v > static_cast<unsigned __int128>(kMax) + 1) return std::nullopt;
  }
  if (neg) {
    if (v == static_cast<unsigned __int128>(kMax) + 1) return kMin;
    return -static_cast<int64_t>(v);
  }
  if (v > static_cast<unsigned __int128>(kMax)) return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<uint64_t> ParseGoUint(std::string_view s) {
  if (s.empty()) return std::nullopt;
  unsigned __int128 v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
    if (v > kUMax) return std::nullopt;
  }
  return static_cast<uint64_t>(v);
}

// Go's strconv.ParseFloat(s, 64) for the forms it accepts: decimal and
// hexadecimal floats, "inf"/"infinity"/"nan" in any case, with a sign;
// underscores only with a base prefix (not accepted here).
std::optional<double> ParseGoFloat(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::string str(s);
  std::string lower;
  for (char c : str) lower += static_cast<char>(std::tolower(c));
  std::string body = lower;
  bool neg = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    neg = body[0] == '-';
    body = body.substr(1);
  }
  if (body == "inf" || body == "infinity") {
    return neg ? -std::numeric_limits<double>::infinity()
               : std::numeric_limits<double>::infinity();
  }
  if (body == "nan") {
    if (s[0] == '+' || s[0] == '-') return std::nullopt;
    return std::numeric_limits<double>::quiet_NaN();
  }
  // Only digits, '.', exponent, hex prefix and 'p' exponent.
  for (char c : body) {
    if (!(std::isxdigit(static_cast<unsigned char>(c)) || c == '.' ||
          c == 'e' || c == 'x' || c == 'p' || c == '+' || c == '-'))
      return std::nullopt;
  }
  errno = 0;
  char* end = nullptr;
  double d = std::strtod(str.c_str(), &end);
  if (end != str.c_str() + str.size()) return std::nullopt;
  // Go reports a range error for overflow but returns +-Inf; cel-go then
  // treats it as a failed conversion.
  if (errno == ERANGE && std::isinf(d)) return std::nullopt;
  return d;
}

bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = s[i];
    size_t n;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c >> 5) == 6) {
      n = 2;
      cp = c & 0x1F;
    } else if ((c >> 4) == 14) {
      n = 3;
      cp = c & 0x0F;
    } else if ((c >> 3) == 30) {
      n = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      unsigned char cc = s[i + k];
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
        (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp < 0xE000))
      return false;
    i += n;
  }
  return true;
}

Value CompareResult(const Value& cmp, bool (*pred)(int64_t)) {
  if (cmp.is_error()) return cmp;
  return Value::Bool(pred(cmp.int_value()));
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
  struct Sig {
    const char* suffix;
    Type a, b;
  };
  const Sig sigs[] = {
      {"bool", Type::Bool(), Type::Bool()},
      {"int64", Type::Int(), Type::Int()},
      {"uint64", Type::Uint(), Type::Uint()},
      {"double", Type::Double(), Type::Double()},
      {"string", Type::String(), Type::String()},
      {"bytes", Type::Bytes(), Type::Bytes()},
      // Cross-type numeric comparisons (Kubernetes turns them on).
      {"int64_double", Type::Int(), Type::Double()},
      {"int64_uint64", Type::Int(), Type::Uint()},
      {"uint64_double", Type::Uint(), Type::Double()},
      {"uint64_int64", Type::Uint(), Type::Int()},
      {"double_int64", Type::Double(), Type::Int()},
      {"double_uint64", Type::Double(), Type::Uint()},
  };
  for (const Op& op : ops) {
    for (const Sig& sig : sigs) {
      auto pred = op.pred;
      r.Add(op.fn, Global(std::string(op.prefix) + "_" + sig.suffix,
                          {sig.a, sig.b}, Type::Bool(), [pred](Args a) {
                            return CompareResult(Compare(a[0], a[1]), pred);
                          }));
    }
  }
}

void AddArithmetic(FunctionRegistry& r) {
  // _+_
  r.Add("_+_", Global("add_int64", {Type::Int(), Type::Int()}, Type::Int(),
                      [](Args a) {
                        int64_t x = a[0].int_value(), y = a[1].int_value();
                        if ((y > 0 && x > kMax - y) || (y < 0 && x < kMin - y))
                          return IntOverflow();
                        return Value::Int(x + y);
                      }));
  r.Add("_+_", Global("add_uint64", {Type::Uint(), Type::Uint()}, Type::Uint(),
                      [](Args a) {
                        uint64_t x = a[0].uint_value(), y = a[1].uint_value();
                        if (y > 0 && x > kUMax - y) return UintOverflow();
                        return Value::Uint(x + y);
                      }));
  r.Add("_+_", Global("add_double", {Type::Double(), Type::Double()},
                      Type::Double(), [](Args a) {
                        return Value::Double(a[0].double_value() +
                                             a[1].double_value());
                      }));
  r.Add("_+_", Global("add_string", {Type::String(), Type::String()},
                      Type::String(), [](Args a) {
                        std::string s(a[0].string_value());
                        s += a[1].string_value();
                        return Value::String(std::move(s));
                      }));
  r.Add("_+_", Global("add_bytes", {Type::Bytes(), Type::Bytes()},
                      Type::Bytes(), [](Args a) {
                        std::string s(a[0].bytes_value());
                        s += a[1].bytes_value();
                        return Value::Bytes(std::move(s));
                      }));
  Type list_a = Type::List(Type::Param("A"));
  r.Add("_+_", Global("add_list", {list_a, list_a}, list_a, [](Args a) {
          const ListValue& x = a[0].list();
          const ListValue& y = a[1].list();
          if (y.size() == 0) return a[0];
          if (x.size() == 0) return a[1];
          std::vector<Value> items;
          items.reserve(x.size() + y.size());
          for (size_t i = 0; i < x.size(); ++i) items.push_back(x.at(i));
          for (size_t i = 0; i < y.size(); ++i) items.push_back(y.at(i));
          return MakeList(std::move(items));
        }));
  // _-_
  r.Add("_-_", Global("subtract_int64", {Type::Int(), Type::Int()}, Type::Int(),
                      [](Args a) {
                        int64_t x = a[0].int_value(), y = a[1].int_value();
                        if ((y < 0 && x > kMax + y) || (y > 0 && x < kMin + y))
                          return IntOverflow();
                        return Value::Int(x - y);
                      }));
  r.Add("_-_", Global("subtract_uint64", {Type::Uint(), Type::Uint()},
                      Type::Uint(), [](Args a) {
                        uint64_t x = a[0].uint_value(), y = a[1].uint_value();
                        if (y > x) return UintOverflow();
                        return Value::Uint(x - y);
                      }));
  r.Add("_-_", Global("subtract_double", {Type::Double(), Type::Double()},
                      Type::Double(), [](Args a) {
                        return Value::Double(a[0].double_value() -
                                             a[1].double_value());
                      }));
  // _*_
  r.Add("_*_", Global("multiply_int64", {Type::Int(), Type::Int()}, Type::Int(),
                      [](Args a) {
                        int64_t x = a[0].int_value(), y = a[1].int_value();
                        int64_t out;
                        if (__builtin_mul_overflow(x, y, &out))
                          return IntOverflow();
                        return Value::Int(out);
                      }));
  r.Add("_*_", Global("multiply_uint64", {Type::Uint(), Type::Uint()},
                      Type::Uint(), [](Args a) {
                        uint64_t x = a[0].uint_value(), y = a[1].uint_value();
                        uint64_t out;
                        if (__builtin_mul_overflow(x, y, &out))
                          return UintOverflow();
                        return Value::Uint(out);
                      }));
  r.Add("_*_", Global("multiply_double", {Type::Double(), Type::Double()},
                      Type::Double(), [](Args a) {
                        return Value::Double(a[0].double_value() *
                                             a[1].double_value());
                      }));
  // _/_
  r.Add("_/_", Global("divide_int64", {Type::Int(), Type::Int()}, Type::Int(),
                      [](Args a) {
                        int64_t x = a[0].int_value(), y = a[1].int_value();
                        if (y == 0) return Value::Error("division by zero");
                        if (x == kMin && y == -1) return IntOverflow();
                        return Value::Int(x / y);
                      }));
  r.Add("_/_", Global("divide_uint64", {Type::Uint(), Type::Uint()},
                      Type::Uint(), [](Args a) {
                        uint64_t y = a[1].uint_value();
                        if (y == 0) return Value::Error("division by zero");
                        return Value::Uint(a[0].uint_value() / y);
                      }));
  r.Add("_/_", Global("divide_double", {Type::Double(), Type::Double()},
                      Type::Double(), [](Args a) {
                        return Value::Double(a[0].double_value() /
                                             a[1].double_value());
                      }));
  // _%_
  r.Add("_%_", Global("modulo_int64", {Type::Int(), Type::Int()}, Type::Int(),
                      [](Args a) {
                        int64_t x = a[0].int_value(), y = a[1].int_value();
                        if (y == 0) return Value::Error("modulus by zero");
                        if (x == kMin && y == -1) return IntOverflow();
                        return Value::Int(x % y);
                      }));
  r.Add("_%_", Global("modulo_uint64", {Type::Uint(), Type::Uint()},
                      Type::Uint(), [](Args a) {
                        uint64_t y = a[1].uint_value();
                        if (y == 0) return Value::Error("modulus by zero");
                        return Value::Uint(a[0].uint_value() % y);
                      }));
  // -_
  r.Add("-_", Global("negate_int64", {Type::Int()}, Type::Int(), [](Args a) {
          if (a[0].int_value() == kMin) return IntOverflow();
          return Value::Int(-a[0].int_value());
        }));
  r.Add("-_",
        Global("negate_double", {Type::Double()}, Type::Double(),
               [](Args a) { return Value::Double(-a[0].double_value()); }));
  // !_
  r.Add("!_", Global("logical_not", {Type::Bool()}, Type::Bool(),
                     [](Args a) { return Value::Bool(!a[0].bool_value()); }));
}

void AddEquality(FunctionRegistry& r) {
  Type a = Type::Param("A");
  r.Add("_==_", Global("equals", {a, a}, Type::Bool(),
                       [](Args x) { return Equal(x[0], x[1]); }));
  r.Add("_!=_", Global("not_equals", {a, a}, Type::Bool(), [](Args x) {
          Value e = Equal(x[0], x[1]);
          if (e.is_error()) return e;
          return Value::Bool(!e.bool_value());
        }));
  Type b = Type::Param("B");
  r.Add("@in", Global("in_list", {a, Type::List(a)}, Type::Bool(), [](Args x) {
          const ListValue& l = x[1].list();
          for (size_t i = 0; i < l.size(); ++i) {
            Value e = Equal(x[0], l.at(i));
            if (!e.is_error() && e.bool_value()) return Value::Bool(true);
          }
          return Value::Bool(false);
        }));
  r.Add("@in", Global("in_map", {a, Type::Map(a, b)}, Type::Bool(), [](Args x) {
          return Value::Bool(x[1].map().Contains(x[0]));
        }));
  // @not_strictly_false: true unless its argument is false (errors count as
  // true), so comprehensions keep going past an error.
  Overload nsf =
      Global("not_strictly_false", {Type::Bool()}, Type::Bool(), [](Args x) {
        if (x[0].kind() == Kind::kBool) return x[0];
        return Value::Bool(true);
      });
  nsf.non_strict = true;
  r.Add("@not_strictly_false", std::move(nsf));
}

void AddSizeAndStrings(FunctionRegistry& r) {
  Type a = Type::Param("A");
  Type b = Type::Param("B");
  auto size = [](Args x) { return Value::Int(ActualSize(x[0])); };
  r.Add("size", Global("size_string", {Type::String()}, Type::Int(), size));
  r.Add("size", Global("size_bytes", {Type::Bytes()}, Type::Int(), size));
  r.Add("size", Global("size_list", {Type::List(a)}, Type::Int(), size));
  r.Add("size", Global("size_map", {Type::Map(a, b)}, Type::Int(), size));
  r.Add("size", Member("string_size", {Type::String()}, Type::Int(), size));
  r.Add("size", Member("bytes_size", {Type::Bytes()}, Type::Int(), size));
  r.Add("size", Member("list_size", {Type::List(a)}, Type::Int(), size));
  r.Add("size", Member("map_size", {Type::Map(a, b)}, Type::Int(), size));

  r.Add("contains", Member("contains_string", {Type::String(), Type::String()},
                           Type::Bool(), [](Args x) {
                             return Value::Bool(x[0].string_value().find(
                                                    x[1].string_value()) !=
                                                std::string_view::npos);
                           }));
  r.Add("startsWith",
        Member("starts_with_string", {Type::String(), Type::String()},
               Type::Bool(), [](Args x) {
                 return Value::Bool(
                     x[0].string_value().starts_with(x[1].string_value()));
               }));
  r.Add("endsWith", Member("ends_with_string", {Type::String(), Type::String()},
                           Type::Bool(), [](Args x) {
                             return Value::Bool(x[0].string_value().ends_with(
                                 x[1].string_value()));
                           }));
}

void AddConversions(FunctionRegistry& r) {
  Type a = Type::Param("A");
  // int
  r.Add("int", Global("int64_to_int64", {Type::Int()}, Type::Int(),
                      [](Args x) { return x[0]; }));
  r.Add("int",
        Global("uint64_to_int64", {Type::Uint()}, Type::Int(), [](Args x) {
          if (x[0].uint_value() > static_cast<uint64_t>(kMax))
            return IntOverflow();
          return Value::Int(static_cast<int64_t>(x[0].uint_value()));
        }));
  r.Add("int",
        Global("double_to_int64", {Type::Double()}, Type::Int(), [](Args x) {
          double d = x[0].double_value();
          if (std::isinf(d) || std::isnan(d) || d <= -9223372036854775808.0 ||
              d >= 9223372036854775807.0)
            return IntOverflow();
          return Value::Int(static_cast<int64_t>(d));
        }));
  r.Add("int",
        Global("string_to_int64", {Type::String()}, Type::Int(), [](Args x) {
          auto v = ParseGoInt(x[0].string_value());
          if (!v) return ConversionError("string", "int");
          return Value::Int(*v);
        }));
  // uint
  r.Add("uint", Global("uint64_to_uint64", {Type::Uint()}, Type::Uint(),
                       [](Args x) { return x[0]; }));
  r.Add("uint",
        Global("int64_to_uint64", {Type::Int()}, Type::Uint(), [](Args x) {
          if (x[0].int_value() < 0) return UintOverflow();
          return Value::Uint(static_cast<uint64_t>(x[0].int_value()));
        }));
  r.Add("uint",
        Global("double_to_uint64", {Type::Double()}, Type::Uint(), [](Args x) {
          double d = x[0].double_value();
          if (std::isinf(d) || std::isnan(d) || d < 0 ||
              d >= 18446744073709551616.0)
            return UintOverflow();
          return Value::Uint(static_cast<uint64_t>(d));
        }));
  r.Add("uint",
        Global("string_to_uint64", {Type::String()}, Type::Uint(), [](Args x) {
          auto v = ParseGoUint(x[0].string_value());
          if (!v) return ConversionError("string", "uint");
          return Value::Uint(*v);
        }));
  // double
  r.Add("double", Global("double_to_double", {Type::Double()}, Type::Double(),
                         [](Args x) { return x[0]; }));
  r.Add("double",
        Global("int64_to_double", {Type::Int()}, Type::Double(), [](Args x) {
          return Value::Double(static_cast<double>(x[0].int_value()));
        }));
  r.Add("double",
        Global("uint64_to_double", {Type::Uint()}, Type::Double(), [](Args x) {
          return Value::Double(static_cast<double>(x[0].uint_value()));
        }));
  r.Add("double", Global("string_to_double", {Type::String()}, Type::Double(),
                         [](Args x) {
                           auto v = ParseGoFloat(x[0].string_value());
                           if (!v) return ConversionError("string", "double");
                           return Value::Double(*v);
                         }));
  // string
  r.Add("string", Global("string_to_string", {Type::String()}, Type::String(),
                         [](Args x) { return x[0]; }));
  r.Add("string",
        Global("bool_to_string", {Type::Bool()}, Type::String(), [](Args x) {
          return Value::StringView(x[0].bool_value() ? "true" : "false");
        }));
  r.Add("string",
        Global("int64_to_string", {Type::Int()}, Type::String(), [](Args x) {
          return Value::String(std::to_string(x[0].int_value()));
        }));
  r.Add("string",
        Global("uint64_to_string", {Type::Uint()}, Type::String(), [](Args x) {
          return Value::String(std::to_string(x[0].uint_value()));
        }));
  r.Add(
      "string",
      Global("double_to_string", {Type::Double()}, Type::String(), [](Args x) {
        return Value::String(FormatDoubleGoG(x[0].double_value()));
      }));
  r.Add("string",
        Global("bytes_to_string", {Type::Bytes()}, Type::String(), [](Args x) {
          if (!ValidUtf8(x[0].bytes_value()))
            return Value::Error(
                "invalid UTF-8 in bytes, cannot convert to "
                "string");
          Value v = x[0];
          return Value::String(std::string(v.bytes_value()));
        }));
  // bytes
  r.Add("bytes", Global("bytes_to_bytes", {Type::Bytes()}, Type::Bytes(),
                        [](Args x) { return x[0]; }));
  r.Add("bytes",
        Global("string_to_bytes", {Type::String()}, Type::Bytes(), [](Args x) {
          return Value::Bytes(std::string(x[0].string_value()));
        }));
  // bool
  r.Add("bool", Global("bool_to_bool", {Type::Bool()}, Type::Bool(),
                       [](Args x) { return x[0]; }));
  r.Add("bool",
        Global("string_to_bool", {Type::String()}, Type::Bool(), [](Args x) {
          std::string_view s = x[0].string_value();
          if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" ||
              s == "True")
            return Value::Bool(true);
          if (s == "0" || s == "f" || s == "F" || s == "FALSE" ||
              s == "false" || s == "False")
            return Value::Bool(false);
          return ConversionError("string", "bool");
        }));
  // dyn and type
  r.Add("dyn", Global("to_dyn", {a}, Type::Dyn(), [](Args x) { return x[0]; }));
  r.Add("type", Global("type", {a}, Type::TypeOf(a),
                       [](Args x) { return Value::TypeRef(x[0].TypeName()); }));
}

void AddOptionals(FunctionRegistry& r) {
  Type a = Type::Param("A");
  Type opt_a = Type::Optional(a);
  r.Add("optional.of", Global("optional_of", {a}, opt_a,
                              [](Args x) { return Value::OptionalOf(x[0]); }));
  r.Add("optional.ofNonZeroValue",
        Global("optional_ofNonZeroValue", {a}, opt_a, [](Args x) {
          const Value& v = x[0];
          bool zero = false;
          switch (v.kind()) {
            case Kind::kNull:
              zero = true;
              break;
            case Kind::kBool:
              zero = !v.bool_value();
              break;
            case Kind::kInt:
              zero = v.int_value() == 0;
              break;
            case Kind::kUint:
              zero = v.uint_value() == 0;
              break;
            case Kind::kDouble:
              zero = v.double_value() == 0;
              break;
            case Kind::kString:
            case Kind::kBytes:
              zero = v.string_value().empty();
              break;
            case Kind::kList:
              zero = v.list().size() == 0;
              break;
            case Kind::kMap:
              zero = v.map().size() == 0;
              break;
            case Kind::kOptional:
              zero = !v.optional_has_value();
              break;
            case Kind::kDuration:
              zero = v.duration_nanos() == 0;
              break;
            case Kind::kTimestamp:
              // Go's Time.IsZero: 0001-01-01T00:00:00Z.
              zero = v.timestamp().seconds == gotime::kMinUnixSeconds &&
                     v.timestamp().nanos == 0;
              break;
            default:
              break;
          }
          return zero ? Value::OptionalNone() : Value::OptionalOf(v);
        }));
  r.Add("optional.none", Global("optional_none", {}, opt_a,
                                [](Args) { return Value::OptionalNone(); }));
  r.Add("value", Member("optional_value", {opt_a}, a, [](Args x) {
          if (!x[0].optional_has_value())
            return Value::Error("optional.none() dereference");
          return x[0].optional_value();
        }));
  r.Add("hasValue",
        Member("optional_hasValue", {opt_a}, Type::Bool(),
               [](Args x) { return Value::Bool(x[0].optional_has_value()); }));
  // or / orValue are non-strict in their argument: cel-go evaluates the
  // alternative only when needed (the interpreter special-cases them).
  r.Add("or", Member("optional_or_optional", {opt_a, opt_a}, opt_a, [](Args x) {
          return x[0].optional_has_value() ? x[0] : x[1];
        }));
  r.Add("orValue", Member("optional_orValue_value", {opt_a, a}, a, [](Args x) {
          return x[0].optional_has_value() ? x[0].optional_value() : x[1];
        }));
}

void AddMapInsert(FunctionRegistry& r) {
  Type k = Type::Param("K");
  Type v = Type::Param("V");
  Type m = Type::Map(k, v);
  r.Add("cel.@mapInsert",
        Global("@mapInsert_map_key_value", {m, k, v}, m, [](Args x) {
          const MapValue& map = x[0].map();
          if (map.Find(x[1]))
            return Value::Error("insert failed: key " + x[1].DebugString() +
                                " already exists");
          std::vector<VectorMap::Entry> entries;
          for (size_t i = 0; i < map.size(); ++i) {
            Value key = map.KeyAt(i);
            entries.push_back({key, *map.Find(key)});
          }
          entries.push_back({x[1], x[2]});
          return MakeMap(std::move(entries));
        }));
  r.Add("cel.@mapInsert", Global("@mapInsert_map_map", {m, m}, m, [](Args x) {
          const MapValue& map = x[0].map();
          const MapValue& add = x[1].map();
          std::vector<VectorMap::Entry> entries;
          for (size_t i = 0; i < map.size(); ++i) {
            Value key = map.KeyAt(i);
            entries.push_back({key, *map.Find(key)});
          }
          for (size_t i = 0; i < add.size(); ++i) {
            Value key = add.KeyAt(i);
            if (map.Find(key))
              return Value::Error("insert failed: key " + key.DebugString() +
                                  " already exists");
            entries.push_back({key, *add.Find(key)});
          }
          return MakeMap(std::move(entries));
        }));
}

// Operators the interpreter evaluates itself (short-circuits, selection);
// declared here for the checker only.
void AddInlineOperatorDecls(FunctionRegistry& r) {
  Type a = Type::Param("A");
  Type b = Type::Param("B");
  r.Add("_&&_", Global("logical_and", {Type::Bool(), Type::Bool()},
                       Type::Bool(), nullptr));
  r.Add("_||_", Global("logical_or", {Type::Bool(), Type::Bool()}, Type::Bool(),
                       nullptr));
  r.Add("_?_:_", Global("conditional", {Type::Bool(), a, a}, a, nullptr));
  r.Add("_[_]", Global("index_list", {Type::List(a), Type::Int()}, a, nullptr));
  r.Add("_[_]", Global("index_map", {Type::Map(a, b), a}, b, nullptr));
  r.Add("_[_]", Global("optional_list_index_int",
                       {Type::Optional(Type::List(a)), Type::Int()},
                       Type::Optional(a), nullptr));
  r.Add("_[_]",
        Global("optional_map_index_value", {Type::Optional(Type::Map(a, b)), a},
               Type::Optional(b), nullptr));
  r.Add("_[?_]",
        Global("list_optindex_optional_int", {Type::List(a), Type::Int()},
               Type::Optional(a), nullptr));
  r.Add("_[?_]", Global("optional_list_optindex_optional_int",
                        {Type::Optional(Type::List(a)), Type::Int()},
                        Type::Optional(a), nullptr));
  r.Add("_[?_]", Global("map_optindex_optional_value", {Type::Map(a, b), a},
                        Type::Optional(b), nullptr));
  r.Add("_[?_]", Global("optional_map_optindex_optional_value",
                        {Type::Optional(Type::Map(a, b)), a}, Type::Optional(b),
                        nullptr));
}

}  // namespace
}  // namespace stdlib_detail

using namespace stdlib_detail;  // NOLINT: this file's own helpers

void RegisterMatches(FunctionRegistry& registry) {
  auto matches = [](Args x) {
    std::string error;
    auto re = CompileRegex(x[1].string_value(), &error);
    if (!re) return Value::Error(error);
    std::string_view s = x[0].string_value();
    return Value::Bool(
        RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *re));
  };
  registry.Add("matches", Global("matches", {Type::String(), Type::String()},
                                 Type::Bool(), matches));
  registry.Add("matches",
               Member("matches_string", {Type::String(), Type::String()},
                      Type::Bool(), matches));
}

void RegisterStandardLibrary(FunctionRegistry& registry) {
  AddInlineOperatorDecls(registry);
  AddArithmetic(registry);
  AddComparisons(registry);
  AddEquality(registry);
  AddSizeAndStrings(registry);
  AddConversions(registry);
  RegisterTimeFunctions(registry);
}

void RegisterOptionalLibrary(FunctionRegistry& registry) {
  AddOptionals(registry);
}

void RegisterMapInsert(FunctionRegistry& registry) { AddMapInsert(registry); }

}  // namespace ksched::cel
