// The cost estimates cel-go's extension libraries attach to their own
// overloads (checker.OverloadCostEstimate): lists (version 3) and sets.
// They take precedence over any CostEstimator. Internal to the cost
// estimator.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "pkg/cel/cost_estimator.h"

namespace ksched::cel {

// The estimate of the extension overload overload_id, or nullopt when it
// has none (or declines these arguments) and the next estimator decides.
std::optional<CallEstimate> EstimateExtensionCall(
    std::string_view overload_id, const CostEstimator& estimator,
    const AstNode* target, std::span<const AstNode> args);

}  // namespace ksched::cel
