// A CEL environment: declared variables, functions and options, as a
// cel.Env is in cel-go.
#pragma once

#include <map>
#include <set>
#include <string>

#include "pkg/cel/function.h"
#include "pkg/cel/parser.h"
#include "pkg/cel/type.h"

namespace ksched::cel {

struct Env {
  FunctionRegistry functions;
  std::map<std::string, Type, std::less<>> variables;
  // Extension types whose names are identifiers (cel.Types): `net.IP`
  // checks as type(net.IP) and evaluates to that type value.
  std::set<std::string, std::less<>> type_names;
  ParseOptions parse;
  // cel.HomogeneousAggregateLiterals: list and map literals must not mix
  // element types (Kubernetes turns this on).
  bool homogeneous_aggregate_literals = false;
  // cel.OptOptimize: constant list and map literals, constant type
  // conversions and constant regular expressions are built once when the
  // program is made (an error there fails the program), and `in` over a
  // constant list becomes a set lookup. This also changes the runtime cost.
  bool optimize = false;
  // cel.ValidateRegexLiterals: matches() with a constant, invalid pattern
  // is a compile error.
  bool validate_regex_literals = false;
  // The strings extension's format validator (strings versions 1-3): a
  // `"<literal>".format([...])` call whose clauses do not fit the checked
  // types of the list elements is a compile error.
  bool validate_format_calls = false;
  // Evaluates map/filter/transformList with a growing vector instead of
  // copying the accumulator every step (same values and costs). Off only
  // to compare the two.
  bool append_comprehensions = true;
  // cel.EnableErrorOnBadPresenceTest: has() on a value without fields is
  // an error rather than false (off in cel-go and in Kubernetes).
  bool error_on_bad_presence_test = false;
  // Kubernetes' cel.CostTrackerOptions(PresenceTestHasCost(false)).
  bool presence_test_has_cost = true;
};

// The standard environment cel-go's conformance tests use: the standard
// library, optionals, cel.bind, two-variable comprehensions, the strings
// (latest), lists and sets extensions.
Env StandardEnv();

// Kubernetes' base environment (apiserver/pkg/cel/environment, v1.35):
// the standard environment plus Kubernetes' lists, regex, quantity and
// semver libraries, homogeneous literals, the optimizer, regex literal
// validation and presence tests without cost.
Env KubernetesEnv();

}  // namespace ksched::cel
