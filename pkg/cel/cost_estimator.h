// Static cost estimation of checked CEL expressions: cel-go's
// checker.Cost, which Kubernetes runs to refuse expressions whose
// worst-case cost is over a limit before they are ever evaluated.
//
// The estimate is a range of cost units, the same units the runtime cost
// tracker counts (see interpreter.cc), such that no evaluation can cost
// more than its max. Sizes of variable-length inputs come from a
// CostEstimator, as do the costs of functions a library knows better than
// the defaults; everything else follows cel-go's rules.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/cel/ast.h"
#include "pkg/cel/checker.h"
#include "pkg/cel/cost_estimate.h"
#include "pkg/cel/env.h"
#include "pkg/cel/type.h"

namespace ksched::cel {

// An expression as an estimator sees it (cel-go's checker.AstNode).
struct AstNode {
  // Where the value comes from: a variable, then field names and the
  // steps '@items' (list elements), '@indices' (list indexes), '@keys' and
  // '@values' (map keys and values). Empty when it does not come from a
  // variable of the environment.
  std::vector<std::string> path;
  Type type;
  // Null for nodes that stand for the elements of a list rather than for
  // an expression.
  const Expr* expr = nullptr;
  // The size the estimation pass already knows (a literal's, a computed
  // result's), if any.
  std::optional<SizeEstimate> computed_size;
};

// Sizes of inputs and costs of calls (cel-go's checker.CostEstimator).
class CostEstimator {
 public:
  virtual ~CostEstimator() = default;

  // The size of node's value, or nullopt when unknown. Asked only where the
  // expression itself does not tell.
  virtual std::optional<SizeEstimate> EstimateSize(
      const AstNode& node) const = 0;

  // The cost of calling overload_id of function (target is null for
  // global calls), excluding the cost of evaluating target and arguments,
  // or nullopt to fall back to cel-go's rules.
  virtual std::optional<CallEstimate> EstimateCallCost(
      std::string_view function, std::string_view overload_id,
      const AstNode* target, std::span<const AstNode> args) const = 0;
};

// A CostEstimator that knows nothing: every size comes from the expression
// and every call gets cel-go's default.
class NoCostEstimator final : public CostEstimator {
 public:
  std::optional<SizeEstimate> EstimateSize(const AstNode&) const override {
    return std::nullopt;
  }
  std::optional<CallEstimate> EstimateCallCost(
      std::string_view, std::string_view, const AstNode*,
      std::span<const AstNode>) const override {
    return std::nullopt;
  }
};

// The size of node as library estimators take it: its computed size, else
// what estimator says, else unknown (0 to UINT64_MAX).
SizeEstimate SizeOf(const CostEstimator& estimator, const AstNode& node);

// Estimates the cost of expr, which Check(env, expr) returned checked for
// without issues, before the program is planned. Function costs are asked
// of the overload estimators of the extension libraries (lists, sets)
// first, then of estimator, then follow cel-go's rules; env's
// presence_test_has_cost decides what has() costs. Never fails: costs that
// cannot be bounded are UINT64_MAX.
CostEstimate EstimateCost(const Env& env, const Expr& expr,
                          const CheckResult& checked,
                          const CostEstimator& estimator);

}  // namespace ksched::cel
