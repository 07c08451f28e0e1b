#include "pkg/dra/consumed_capacity.h"

namespace ksched::dra {
namespace consumed_capacity_detail {
namespace {

using Format = api::Quantity::Format;

// roundUpRange: below min is min; with a step, the next min + n * step at
// or above the request (in whole units, as Quantity.Value() rounds).
api::Quantity RoundUpRange(const api::Quantity& requested,
                           const api::CapacityRequestPolicyRange& range) {
  if (requested < *range.min) return *range.min;
  if (!range.step) return requested;
  const int64_t min = range.min->Value();
  const int64_t step = range.step->Value();
  const int64_t added = requested.Value() - min;
  if (step == 0) return requested;  // validation refuses a zero step
  int64_t n = added / step;
  if (added % step != 0) ++n;
  return api::Quantity::FromValue(min + step * n, Format::kBinarySI);
}

api::Quantity RoundUpValidValues(const api::Quantity& requested,
                                 const std::vector<api::Quantity>& values) {
  for (const api::Quantity& v : values) {
    if (requested <= v) return v;
  }
  return requested;
}

bool ViolatesRange(const api::Quantity& value,
                   const api::CapacityRequestPolicyRange& range) {
  if (range.max && value > *range.max) return true;
  if (range.step && range.min) {
    const int64_t step = range.step->Value();
    if (step != 0 && (value.Value() - range.min->Value()) % step != 0) {
      return true;
    }
  }
  return false;
}

bool ViolatesPolicy(const api::Quantity& value,
                    const std::optional<api::CapacityRequestPolicy>& policy) {
  if (!policy) return false;
  if (policy->default_value && value == *policy->default_value) return false;
  if (policy->valid_range) return ViolatesRange(value, *policy->valid_range);
  if (!policy->valid_values.empty()) {
    for (const api::Quantity& v : policy->valid_values) {
      if (value == v) return false;
    }
    return true;
  }
  return false;
}

const api::Quantity* Requested(const api::CapacityRequirements* requested,
                               std::string_view name) {
  if (requested == nullptr) return nullptr;
  return requested->requests.Find(name);
}

}  // namespace
}  // namespace consumed_capacity_detail
using namespace consumed_capacity_detail;

void AddCapacity(ConsumedCapacity& into, const ConsumedCapacity& added) {
  for (const auto& [name, value] : added) {
    auto it = into.find(name);
    if (it == into.end()) {
      into.emplace(name, value);
    } else {
      it->second += value;
    }
  }
}

bool SubtractCapacity(ConsumedCapacity& from, const ConsumedCapacity& removed) {
  for (const auto& [name, value] : removed) {
    auto it = from.find(name);
    if (it != from.end()) it->second -= value;
  }
  for (const auto& [name, value] : from) {
    if (!value.IsZero()) return false;
  }
  return true;
}

api::Quantity ConsumedFromRequest(const api::Quantity* requested,
                                  const api::DeviceCapacity& capacity) {
  const std::optional<api::CapacityRequestPolicy>& policy =
      capacity.request_policy;
  if (requested == nullptr) {
    if (policy && policy->default_value) return *policy->default_value;
    return capacity.value;
  }
  if (!policy) return *requested;
  if (policy->valid_range && policy->valid_range->min) {
    return RoundUpRange(*requested, *policy->valid_range);
  }
  if (!policy->valid_values.empty()) {
    return RoundUpValidValues(*requested, policy->valid_values);
  }
  return *requested;
}

ConsumedCapacity ConsumedCapacityFromRequest(
    const api::CapacityRequirements* requested,
    const api::FlatMap<api::DeviceCapacity>& capacity) {
  ConsumedCapacity out;
  for (const auto& [name, cap] : capacity) {
    out.emplace(name, ConsumedFromRequest(Requested(requested, name), cap));
  }
  return out;
}

CapacityFit CmpRequestOverCapacity(
    const ConsumedCapacity& allocated,
    const api::CapacityRequirements* requested,
    const api::FlatMap<api::DeviceCapacity>& capacity,
    const ConsumedCapacity* allocating) {
  if (requested != nullptr) {
    for (const auto& [name, value] : requested->requests) {
      if (!capacity.Contains(name)) return CapacityFit::kUndefinedCapacity;
    }
  }
  for (const auto& [name, cap] : capacity) {
    api::Quantity consumed =
        ConsumedFromRequest(Requested(requested, name), cap);
    if (ViolatesPolicy(consumed, cap.request_policy)) {
      return CapacityFit::kDoesNotFit;
    }
    api::Quantity total = consumed;
    if (auto it = allocated.find(name); it != allocated.end()) {
      total += it->second;
    }
    if (allocating != nullptr) {
      if (auto it = allocating->find(name); it != allocating->end()) {
        total += it->second;
      }
    }
    if (total > cap.value) return CapacityFit::kDoesNotFit;
  }
  return CapacityFit::kFits;
}

}  // namespace ksched::dra
