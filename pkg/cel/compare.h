// CEL ordering, as cel-go's traits.Comparer implementations define it.
#pragma once

#include "pkg/cel/value.h"

namespace ksched::cel {

// Orders a against b: Value::Int(-1), Int(0) or Int(1). Numbers compare
// across int, uint and double (cel-go's compare.go); strings and bytes
// bytewise; false < true. A NaN operand gives the error "NaN values cannot be
// ordered"; kinds without an order (or two kinds that cannot be compared)
// give "no such overload". Quantity and Semver are not ordered here: CEL
// compares them with compareTo().
Value Compare(const Value& a, const Value& b);

// Whether values of this kind have an ordering (cel-go's traits.Comparer):
// bool, int, uint, double, string and bytes.
bool IsComparableKind(Kind kind);

}  // namespace ksched::cel
