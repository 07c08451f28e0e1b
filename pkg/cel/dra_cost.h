// The cost estimation of DRA device selectors, as Kubernetes'
// dynamic-resource-allocation/cel compiler sets it up: Kubernetes' library
// estimates, with the sizes of what `device` holds bounded by the limits
// the API puts on ResourceSlices.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "pkg/cel/cost_estimator.h"

namespace ksched::cel::dra {

// resourceapi's limits on what a device may hold.
inline constexpr uint64_t kDriverNameMaxLength = 63;
inline constexpr uint64_t kDeviceMaxDomainLength = 63;
inline constexpr uint64_t kDeviceMaxIdLength = 32;
inline constexpr uint64_t kDeviceAttributeMaxValueLength = 64;
inline constexpr uint64_t kMaxAttributesAndCapacitiesPerDevice = 32;

// The most code points, entries or items a value reached from `device`
// may have (Kubernetes' DRA sizeEstimator): the driver name, the attribute
// and capacity maps by domain and by id, their keys, and attribute values
// (strings up to 64 code points). Paths from anything else are unknown.
class DeviceSizeEstimator final : public CostEstimator {
 public:
  std::optional<SizeEstimate> EstimateSize(const AstNode& node) const override;
  std::optional<CallEstimate> EstimateCallCost(
      std::string_view, std::string_view, const AstNode*,
      std::span<const AstNode>) const override {
    return std::nullopt;
  }
};

// The estimator Selector::Compile uses: KubernetesCostEstimator over a
// DeviceSizeEstimator.
const CostEstimator& SelectorCostEstimator();

}  // namespace ksched::cel::dra
