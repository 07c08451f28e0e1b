// Kubernetes' lists library (apiserver/pkg/cel/library/lists.go): isSorted,
// sum, max, min, indexOf and lastIndexOf on lists.

#include <cstdint>
#include <limits>
#include <string>

#include "pkg/cel/compare.h"
#include "pkg/cel/function.h"
#include "pkg/cel/lib_internal.h"
#include "pkg/cel/libraries.h"

namespace ksched::cel {
// Named so that unity builds keep these helpers apart from other files'.
namespace k8s_lists {
namespace {

constexpr char kNoSuchOverload[] = "no such overload";

bool CompareIs(const Value& a, const Value& b, int64_t want) {
  const Value c = Compare(a, b);
  return c.kind() == Kind::kInt && c.int_value() == want;
}

Value IsSorted(const ListValue& list) {
  bool have_prev = false;
  Value prev;
  for (size_t i = 0; i < list.size(); ++i) {
    Value next = list.at(i);
    if (!IsComparableKind(next.kind())) return Value::Error(kNoSuchOverload);
    if (have_prev && CompareIs(prev, next, 1)) return Value::Bool(false);
    prev = std::move(next);
    have_prev = true;
  }
  return Value::Bool(true);
}

// cel-go's Add on the accumulator: same kind only, checked overflow.
Value AddValues(const Value& acc, const Value& next) {
  switch (acc.kind()) {
    case Kind::kInt: {
      if (next.kind() != Kind::kInt) return Value::Error(kNoSuchOverload);
      int64_t out;
      if (__builtin_add_overflow(acc.int_value(), next.int_value(), &out)) {
        return Value::Error("integer overflow");
      }
      return Value::Int(out);
    }
    case Kind::kUint: {
      if (next.kind() != Kind::kUint) return Value::Error(kNoSuchOverload);
      uint64_t out;
      if (__builtin_add_overflow(acc.uint_value(), next.uint_value(), &out)) {
        return Value::Error("unsigned integer overflow");
      }
      return Value::Uint(out);
    }
    case Kind::kDouble:
      if (next.kind() != Kind::kDouble) return Value::Error(kNoSuchOverload);
      return Value::Double(acc.double_value() + next.double_value());
    case Kind::kDuration: {
      // Duration + timestamp is an Adder too, but sum() declares
      // list(duration) only; a timestamp gets here only through dyn.
      if (next.kind() != Kind::kDuration) return Value::Error(kNoSuchOverload);
      int64_t out;
      if (__builtin_add_overflow(acc.duration_nanos(), next.duration_nanos(),
                                 &out)) {
        return Value::Error("integer overflow");
      }
      return Value::Duration(out);
    }
    default:
      return Value::Error(kNoSuchOverload);
  }
}

// Kinds cel-go's traits.Adder covers among our values.
bool IsAdder(Kind kind) {
  switch (kind) {
    case Kind::kInt:
    case Kind::kUint:
    case Kind::kDouble:
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kList:
    case Kind::kTimestamp:
    case Kind::kDuration:
      return true;
    default:
      return false;
  }
}

Value Sum(const ListValue& list, Value acc) {
  for (size_t i = 0; i < list.size(); ++i) {
    const Value next = list.at(i);
    if (!IsAdder(next.kind())) return Value::Error(kNoSuchOverload);
    acc = AddValues(acc, next);
    if (acc.is_error()) return acc;
  }
  return acc;
}

// min: keep the later element when the current one compares greater (1);
// max: when it compares less (-1). Comparison errors are ignored.
Value Extreme(const ListValue& list, const char* name, int64_t prefer) {
  bool have = false;
  Value result;
  for (size_t i = 0; i < list.size(); ++i) {
    Value next = list.at(i);
    if (!IsComparableKind(next.kind())) return Value::Error(kNoSuchOverload);
    if (!have) {
      result = std::move(next);
      have = true;
    } else if (CompareIs(result, next, prefer)) {
      result = std::move(next);
    }
  }
  if (!have) return Value::Error(std::string(name) + " called on empty list");
  return result;
}

bool IsTrue(const Value& v) {
  return v.kind() == Kind::kBool && v.bool_value();
}

Value IndexOf(const ListValue& list, const Value& item) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (IsTrue(Equal(list.at(i), item))) return Value::Int(i);
  }
  return Value::Int(-1);
}

Value LastIndexOf(const ListValue& list, const Value& item) {
  for (size_t i = list.size(); i > 0; --i) {
    if (IsTrue(Equal(list.at(i - 1), item))) return Value::Int(i - 1);
  }
  return Value::Int(-1);
}

// Kubernetes' traversalCost: strings and bytes cost a tenth of their byte
// length (truncated), lists and maps the sum over their elements, anything
// else 1.
uint64_t TraversalCostOf(const Value& v) {
  switch (v.kind()) {
    case Kind::kString:
      return static_cast<uint64_t>(
          static_cast<double>(v.string_value().size()) * 0.1);
    case Kind::kBytes:
      return static_cast<uint64_t>(static_cast<double>(v.bytes_value().size()) *
                                   0.1);
    case Kind::kList: {
      uint64_t cost = 0;
      const ListValue& list = v.list();
      for (size_t i = 0; i < list.size(); ++i) {
        cost += TraversalCostOf(list.at(i));
      }
      return cost;
    }
    case Kind::kMap: {
      uint64_t cost = 0;
      const MapValue& map = v.map();
      for (size_t i = 0; i < map.size(); ++i) {
        const Value key = map.KeyAt(i);
        cost += TraversalCostOf(key);
        if (std::optional<Value> value = map.Find(key)) {
          cost += TraversalCostOf(*value);
        }
      }
      return cost;
    }
    default:
      return 1;
  }
}

std::optional<uint64_t> TraversalCostCall(std::span<const Value> args,
                                          const Value&) {
  return TraversalCostOf(args[0]);
}

}  // namespace

void Register(FunctionRegistry& r) {
  // In Kubernetes' order (the overload ids name the types).
  const std::pair<const char*, Type> comparable[] = {
      {"int", Type::Int()},           {"uint", Type::Uint()},
      {"double", Type::Double()},     {"bool", Type::Bool()},
      {"duration", Type::Duration()}, {"timestamp", Type::Timestamp()},
      {"string", Type::String()},     {"bytes", Type::Bytes()},
  };
  const std::pair<const char*, Type> summable[] = {
      {"int", Type::Int()},
      {"uint", Type::Uint()},
      {"double", Type::Double()},
      {"duration", Type::Duration()},
  };
  for (const auto& [name, type] : comparable) {
    r.Add("isSorted",
          Member(
              std::string("list_") + name + "_is_sorted_bool",
              {Type::List(type)}, Type::Bool(),
              [](std::span<const Value> a) { return IsSorted(a[0].list()); },
              TraversalCostCall));
  }
  for (const auto& [name, type] : summable) {
    Value zero = type.kind() == Type::Kind::kInt    ? Value::Int(0)
                 : type.kind() == Type::Kind::kUint ? Value::Uint(0)
                 : type == Type::Duration()         ? Value::Duration(0)
                                                    : Value::Double(0);
    r.Add("sum", Member(
                     std::string("list_") + name + "_sum_" + name,
                     {Type::List(type)}, type,
                     [zero](std::span<const Value> a) {
                       return Sum(a[0].list(), zero);
                     },
                     TraversalCostCall));
  }
  for (const auto& [name, type] : comparable) {
    r.Add("max", Member(
                     std::string("list_") + name + "_max_" + name,
                     {Type::List(type)}, type,
                     [](std::span<const Value> a) {
                       return Extreme(a[0].list(), "max", -1);
                     },
                     TraversalCostCall));
  }
  for (const auto& [name, type] : comparable) {
    r.Add("min", Member(
                     std::string("list_") + name + "_min_" + name,
                     {Type::List(type)}, type,
                     [](std::span<const Value> a) {
                       return Extreme(a[0].list(), "min", 1);
                     },
                     TraversalCostCall));
  }
  const Type a = Type::Param("A");
  r.Add("indexOf", Member(
                       "list_a_index_of_int", {Type::List(a), a}, Type::Int(),
                       [](std::span<const Value> args) {
                         return IndexOf(args[0].list(), args[1]);
                       },
                       TraversalCostCall));
  r.Add("lastIndexOf",
        Member(
            "list_a_last_index_of_int", {Type::List(a), a}, Type::Int(),
            [](std::span<const Value> args) {
              return LastIndexOf(args[0].list(), args[1]);
            },
            TraversalCostCall));
}

}  // namespace k8s_lists

void RegisterKubernetesLists(FunctionRegistry& r) { k8s_lists::Register(r); }

}  // namespace ksched::cel
