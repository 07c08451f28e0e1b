// dynamic-resource-allocation/cel/compile.go's sizeEstimator, over the
// declared type of `device` with each part's MaxElements.
#include "pkg/cel/dra_cost.h"

#include <map>
#include <string>

#include "pkg/cel/cost_kubernetes.h"

namespace ksched::cel::dra {
namespace dra_cost {
namespace {

// A part of the device's declared type: the most elements its values
// have, and what leads on from it (object fields, map keys and values).
struct Limit {
  uint64_t max_elements = 0;
  std::map<std::string, const Limit*, std::less<>> fields = {};
  const Limit* key = nullptr;
  const Limit* elem = nullptr;
};

// Kubernetes declares the newest device type for estimation, whatever the
// feature gates, so allowMultipleAllocations is always there. Attribute
// values are any type bounded by DeviceAttributeMaxValueLength; with
// DRAListTypeAttributes (off by default in v1.36) the bound is the larger
// of that and ResourceSliceMaxAttributeValuesPerDevice (48): 64 either way.
struct DeviceLimits {
  Limit driver{.max_elements = kDriverNameMaxLength};
  Limit allow_multiple_allocations{.max_elements = 1};
  Limit domain{.max_elements = kDeviceMaxDomainLength};
  Limit id{.max_elements = kDeviceMaxIdLength};
  Limit attribute{.max_elements = kDeviceAttributeMaxValueLength};
  Limit attributes_by_id{.max_elements = kMaxAttributesAndCapacitiesPerDevice,
                         .key = &id,
                         .elem = &attribute};
  Limit attributes{.max_elements = kMaxAttributesAndCapacitiesPerDevice,
                   .key = &domain,
                   .elem = &attributes_by_id};
  Limit quantity{.max_elements = 0};
  Limit capacity_by_id{.max_elements = kMaxAttributesAndCapacitiesPerDevice,
                       .key = &id,
                       .elem = &quantity};
  Limit capacity{.max_elements = kMaxAttributesAndCapacitiesPerDevice,
                 .key = &domain,
                 .elem = &capacity_by_id};
  Limit device{
      .max_elements = 0,
      .fields = {{"driver", &driver},
                 {"allowMultipleAllocations", &allow_multiple_allocations},
                 {"attributes", &attributes},
                 {"capacity", &capacity}}};
};

const DeviceLimits& Limits() {
  static const DeviceLimits* const limits = new DeviceLimits();
  return *limits;
}

}  // namespace
}  // namespace dra_cost

std::optional<SizeEstimate> DeviceSizeEstimator::EstimateSize(
    const AstNode& node) const {
  const std::vector<std::string>& path = node.path;
  if (path.empty() || path[0] != "device") return std::nullopt;
  const dra_cost::DeviceLimits& limits = dra_cost::Limits();
  const dra_cost::Limit* current = &limits.device;
  for (size_t i = 1; i < path.size(); ++i) {
    const std::string& step = path[i];
    if (step == "@items" || step == "@values") {
      current = current->elem;
    } else if (step == "@keys") {
      current = current->key;
    } else if (auto field = current->fields.find(step);
               field != current->fields.end()) {
      current = field->second;
    } else if (current->elem == &limits.attribute) {
      // device.attributes[domain].<id>: every id has the same bound.
      current = &limits.attribute;
    } else {
      return std::nullopt;
    }
    if (!current) return std::nullopt;
  }
  return SizeEstimate{0, current->max_elements};
}

const CostEstimator& SelectorCostEstimator() {
  static const DeviceSizeEstimator* const sizes = new DeviceSizeEstimator();
  static const KubernetesCostEstimator* const estimator =
      new KubernetesCostEstimator(sizes);
  return *estimator;
}

}  // namespace ksched::cel::dra
