#include "pkg/cel/program.h"

#include <algorithm>
#include <vector>

#include "pkg/cel/checker.h"
#include "pkg/cel/cost_estimator.h"
#include "pkg/cel/interpreter.h"
#include "pkg/cel/parser.h"
#include "pkg/cel/planner.h"

namespace ksched::cel {

Program::Program(std::shared_ptr<const Env> env, std::string source,
                 ExprPtr expr, Type output_type, ProgramOptions options)
    : env_(std::move(env)),
      source_(std::move(source)),
      expr_(std::move(expr)),
      output_type_(std::move(output_type)),
      options_(options) {}

Evaluation Program::Eval(const Activation& activation,
                         const std::atomic<bool>* interrupt) const {
  return Interpret(*env_, *expr_, options_, activation, interrupt);
}

Compiled Compile(std::shared_ptr<const Env> env, std::string_view source,
                 const CompileOptions& options) {
  Compiled out;
  ParseResult parsed = Parse(source, env->parse);
  if (!parsed.issues.empty()) {
    out.error = FormatIssues(source, parsed.issues);
    return out;
  }
  ExprPtr expr = std::move(parsed.expr);
  Type output = Type::Dyn();
  if (options.check) {
    CheckResult checked = Check(*env, *expr);
    if (!checked.issues.empty()) {
      out.error = FormatIssues(source, checked.issues);
      return out;
    }
    // cel-go runs its AST validators after a successful check and lists
    // their issues in source order.
    std::vector<Issue> issues;
    if (env->validate_regex_literals) ValidateRegexLiterals(*expr, issues);
    if (env->validate_format_calls) ValidateFormatCalls(*expr, checked, issues);
    std::stable_sort(
        issues.begin(), issues.end(),
        [](const Issue& a, const Issue& b) { return a.offset < b.offset; });
    if (!issues.empty()) {
      out.error = FormatIssues(source, issues);
      return out;
    }
    output = checked.output;
    // On the checked AST, before planning folds and rewrites it.
    if (options.cost_estimator) {
      out.cost_estimate =
          EstimateCost(*env, *expr, checked, *options.cost_estimator);
    }
  } else {
    ResolveNames(*env, *expr);
  }
  if (auto err = PlanProgram(*env, *expr)) {
    out.error = "program instantiation failed: " + *err;
    return out;
  }
  out.output_type = output;
  out.program =
      std::make_shared<const Program>(std::move(env), std::string(source),
                                      std::move(expr), output, options.program);
  return out;
}

}  // namespace ksched::cel
