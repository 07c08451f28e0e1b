// Registration of CEL's standard library and cel-go's built-in extensions.
#pragma once

#include "pkg/cel/function.h"

namespace ksched::cel {

// Operators, size, contains/startsWith/endsWith/matches, conversions, dyn,
// type.
void RegisterStandardLibrary(FunctionRegistry& registry);
// optional.of/ofNonZeroValue/none, value, hasValue, or, orValue.
void RegisterOptionalLibrary(FunctionRegistry& registry);
// cel.@mapInsert, used by the two-variable transformMap macros.
void RegisterMapInsert(FunctionRegistry& registry);
// matches (global and member), with RE2.
void RegisterMatches(FunctionRegistry& registry);
// The google.protobuf.Timestamp and Duration conversions, operators and
// accessors (stdlib_time.cc); part of the standard library.
void RegisterTimeFunctions(FunctionRegistry& registry);

}  // namespace ksched::cel
