// CEL's type checker, following cel-go's: resolves identifiers (including
// dotted variable names and namespaced functions such as optional.of),
// computes every expression's type with type parameters, and reports
// cel-go's messages ("undeclared reference to 'x' (in container '')",
// "found no matching overload for '_+_' applied to '(int, string)'",
// "undefined field 'foo'").
#pragma once

#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/cel/ast.h"
#include "pkg/cel/env.h"
#include "pkg/cel/parser.h"

namespace ksched::cel {

struct CheckResult {
  std::unordered_map<int64_t, Type> types;  // by expression id
  // The ids of every overload a call's checked argument types fit, in
  // declaration order, by the call's expression id (cel-go's reference
  // map; an optional field selection `a.?b` is "select_optional_field").
  // The cost estimator covers them all.
  std::unordered_map<int64_t, std::vector<std::string_view>> overload_ids;
  Type output;
  std::vector<Issue> issues;
};

// Checks (and rewrites in place: qualified names are resolved) expr.
CheckResult Check(const Env& env, Expr& expr);

// Resolves namespaced function calls and dotted variable names without
// type checking (what cel-go's planner does for unchecked expressions).
void ResolveNames(const Env& env, Expr& expr);

}  // namespace ksched::cel
