// cel-go's sets extension (ext/sets.go): sets.contains, sets.equivalent,
// sets.intersects over lists, with their cost trackers.

#include <cstdint>

#include "pkg/cel/function.h"
#include "pkg/cel/lib_internal.h"
#include "pkg/cel/libraries.h"

namespace ksched::cel {
// Named so that unity builds keep these helpers apart from other files'.
namespace sets_ext {
namespace {

// cel-go's list Contains: true when some element is equal; errors from the
// comparison count as not equal.
bool ListContains(const ListValue& list, const Value& elem) {
  for (size_t i = 0; i < list.size(); ++i) {
    const Value eq = Equal(elem, list.at(i));
    if (eq.kind() == Kind::kBool && eq.bool_value()) return true;
  }
  return false;
}

bool SetsContains(const ListValue& list, const ListValue& sublist) {
  for (size_t i = 0; i < sublist.size(); ++i) {
    if (!ListContains(list, sublist.at(i))) return false;
  }
  return true;
}

bool SetsIntersects(const ListValue& a, const ListValue& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (ListContains(b, a.at(i))) return true;
  }
  return false;
}

CallCost SetsCost(double factor) {
  return [factor](std::span<const Value> args,
                  const Value&) -> std::optional<uint64_t> {
    const uint64_t lhs = lib::SizerSize(args[0]);
    const uint64_t rhs = lib::SizerSize(args[1]);
    return 1 + static_cast<uint64_t>(static_cast<double>(lhs * rhs) * factor);
  };
}

}  // namespace

void Register(FunctionRegistry& r) {
  const Type list_t = Type::List(Type::Param("T"));
  r.Add("sets.contains",
        Global(
            "list_sets_contains_list", {list_t, list_t}, Type::Bool(),
            [](std::span<const Value> a) {
              return Value::Bool(SetsContains(a[0].list(), a[1].list()));
            },
            SetsCost(1)));
  r.Add("sets.equivalent",
        Global(
            "list_sets_equivalent_list", {list_t, list_t}, Type::Bool(),
            [](std::span<const Value> a) {
              return Value::Bool(SetsContains(a[0].list(), a[1].list()) &&
                                 SetsContains(a[1].list(), a[0].list()));
            },
            SetsCost(2)));
  r.Add("sets.intersects",
        Global(
            "list_sets_intersects_list", {list_t, list_t}, Type::Bool(),
            [](std::span<const Value> a) {
              return Value::Bool(SetsIntersects(a[0].list(), a[1].list()));
            },
            SetsCost(1)));
}

}  // namespace sets_ext

void RegisterSetsExt(FunctionRegistry& r) { sets_ext::Register(r); }

}  // namespace ksched::cel
