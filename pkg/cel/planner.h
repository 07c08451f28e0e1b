// Turning a checked (or parsed) expression into an evaluable one, and the
// AST validators cel-go runs after a successful check.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pkg/cel/ast.h"
#include "pkg/cel/checker.h"
#include "pkg/cel/env.h"
#include "pkg/cel/parser.h"

namespace ksched::cel {

// Binds every call to its function and, with Env::optimize, does what
// cel-go's optimizer does (constant literals, conversions and regular
// expressions made once). Returns the error that fails the program, as
// cel-go's program creation fails on a constant that does not convert.
std::optional<std::string> PlanProgram(const Env& env, Expr& expr);

// cel.ValidateRegexLiterals: matches() with a constant pattern that does
// not compile ("invalid matches argument").
void ValidateRegexLiterals(const Expr& expr, std::vector<Issue>& issues);

// The strings extension's format validator: "<literal>".format([...]) has
// each clause checked against its argument's checked type.
void ValidateFormatCalls(const Expr& expr, const CheckResult& checked,
                         std::vector<Issue>& issues);

}  // namespace ksched::cel
