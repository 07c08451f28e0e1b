// cel-go's ext/lists.go and ext/sets.go cost estimates.
#include "pkg/cel/cost_ext.h"

#include <string>

namespace ksched::cel {
namespace cost_ext {
namespace {

constexpr CostEstimate kCallCost = {1, 1};

// An int literal argument's value (0 when negative), else fallback: a
// slice's bounds or a range's length are known only when written out.
uint64_t IntLiteralOr(const AstNode& node, uint64_t fallback) {
  if (!node.expr || node.expr->kind != Expr::Kind::kLiteral ||
      node.expr->literal.kind() != Kind::kInt) {
    return fallback;
  }
  int64_t v = node.expr->literal.int_value();
  return v < 0 ? 0 : static_cast<uint64_t>(v);
}

// A call making a list of list_size elements at factor per element, plus
// the call and the list.
CallEstimate AllocatingListCall(double factor, SizeEstimate list_size) {
  CostEstimate cost = list_size.MultiplyByCostFactor(factor).Add(kCallCost).Add(
      CostEstimate::Fixed(kListCreateBaseCost));
  return {cost, list_size};
}

// Sorting compares every element with every other (strings and bytes a
// little more).
CallEstimate SortCost(const CostEstimator& estimator, const AstNode& list,
                      std::string_view element_type) {
  SizeEstimate size = SizeOf(estimator, list);
  double factor = 2.0;
  if (element_type == "string" || element_type == "bytes")
    factor += kStringTraversalCostFactor;
  return AllocatingListCall(factor, size.Multiply(size));
}

// list_<type>_sort or list_<type>_sortByAssociatedKeys: the element type,
// as cel-go names it in the overload id.
std::optional<std::string_view> SortedType(std::string_view overload_id,
                                           std::string_view suffix) {
  static constexpr std::string_view kTypes[] = {"int",
                                                "uint",
                                                "double",
                                                "bool",
                                                "google.protobuf.Duration",
                                                "google.protobuf.Timestamp",
                                                "string",
                                                "bytes"};
  if (!overload_id.starts_with("list_") || !overload_id.ends_with(suffix))
    return std::nullopt;
  std::string_view type =
      overload_id.substr(5, overload_id.size() - 5 - suffix.size());
  for (std::string_view t : kTypes)
    if (t == type) return t;
  return std::nullopt;
}

std::optional<CallEstimate> EstimateLists(std::string_view id,
                                          const CostEstimator& estimator,
                                          const AstNode* target,
                                          std::span<const AstNode> args) {
  if (id == "list_slice") {
    if (!target || args.size() != 2) return std::nullopt;
    SizeEstimate size = SizeOf(estimator, *target);
    uint64_t start = IntLiteralOr(args[0], 0);
    uint64_t end = IntLiteralOr(args[1], size.max);
    // Unsigned, as in cel-go: a literal end before the start wraps around
    // to an enormous (saturated) cost.
    return AllocatingListCall(1, SizeEstimate::Fixed(end - start));
  }
  if (id == "lists_range") {
    if (target || args.size() != 1) return std::nullopt;
    return AllocatingListCall(
        1, SizeEstimate::Fixed(IntLiteralOr(args[0], kMaxEstimate)));
  }
  if (id == "list_reverse") {
    if (!target || !args.empty()) return std::nullopt;
    return AllocatingListCall(1, SizeOf(estimator, *target));
  }
  if (id == "list_flatten" || id == "list_flatten_int") {
    if (!target || args.size() > 1) return std::nullopt;
    uint64_t depth = args.empty() ? 1 : IntLiteralOr(args[0], kMaxEstimate);
    return AllocatingListCall(static_cast<double>(depth),
                              SizeOf(estimator, *target));
  }
  if (id == "list_distinct") {
    if (!target || !args.empty()) return std::nullopt;
    SizeEstimate size = SizeOf(estimator, *target);
    return AllocatingListCall(2.0, size.Multiply(size));
  }
  if (auto type = SortedType(id, "_sort")) {
    if (!target || !args.empty()) return std::nullopt;
    return SortCost(estimator, *target, *type);
  }
  if (auto type = SortedType(id, "_sortByAssociatedKeys")) {
    if (!target || args.size() != 1) return std::nullopt;
    return SortCost(estimator, args[0], *type);
  }
  return std::nullopt;
}

// sets.contains and sets.intersects compare each element of one list with
// each of the other; sets.equivalent does that both ways.
std::optional<CallEstimate> EstimateSets(std::string_view id,
                                         const CostEstimator& estimator,
                                         std::span<const AstNode> args) {
  double factor;
  if (id == "list_sets_contains_list" || id == "list_sets_intersects_list") {
    factor = 1;
  } else if (id == "list_sets_equivalent_list") {
    factor = 2;
  } else {
    return std::nullopt;
  }
  if (args.size() != 2) return std::nullopt;
  SizeEstimate pairs =
      SizeOf(estimator, args[0]).Multiply(SizeOf(estimator, args[1]));
  return CallEstimate{pairs.MultiplyByCostFactor(factor).Add(kCallCost),
                      std::nullopt};
}

}  // namespace
}  // namespace cost_ext

std::optional<CallEstimate> EstimateExtensionCall(
    std::string_view overload_id, const CostEstimator& estimator,
    const AstNode* target, std::span<const AstNode> args) {
  if (auto lists =
          cost_ext::EstimateLists(overload_id, estimator, target, args)) {
    return lists;
  }
  return cost_ext::EstimateSets(overload_id, estimator, args);
}

}  // namespace ksched::cel
