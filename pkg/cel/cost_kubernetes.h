// Kubernetes' cost estimates for its CEL libraries (apiserver's
// library.CostEstimator): lists, regex, URLs, IP and CIDR, quantity,
// semver, named formats, and the strings extension functions whose cost
// grows with their input.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "pkg/cel/cost_estimator.h"

namespace ksched::cel {

class KubernetesCostEstimator final : public CostEstimator {
 public:
  // Sizes of inputs come from size_estimator (Kubernetes' SizeEstimator,
  // e.g. the limits of a DRA device), when given; it must outlive this.
  explicit KubernetesCostEstimator(
      const CostEstimator* size_estimator = nullptr)
      : size_estimator_(size_estimator) {}

  std::optional<SizeEstimate> EstimateSize(const AstNode& node) const override;

  // Functions Kubernetes has no estimate for (string(), isURL, charAt,
  // the time functions...) return nullopt: cel-go's rules apply, which
  // make most of them cost 1 plus their arguments.
  std::optional<CallEstimate> EstimateCallCost(
      std::string_view function, std::string_view overload_id,
      const AstNode* target, std::span<const AstNode> args) const override;

 private:
  const CostEstimator* size_estimator_;
};

}  // namespace ksched::cel
