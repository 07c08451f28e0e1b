#include "pkg/dra/count_check.h"

#include "pkg/dra/allocator.h"

namespace ksched::dra {

std::unique_ptr<const CountCheck> CountCheck::Make(
    const Allocator& allocator,
    std::span<const api::ResourceClaim* const> claims) {
  if (claims.empty()) return nullptr;
  const Features& features = allocator.features_;
  const SliceIndex& index = *allocator.slices_;
  std::unique_ptr<CountCheck> check(new CountCheck(allocator));
  // Adds the selectors' tables; false when one has none or fails to
  // compile (the search then reports it, or evaluates it uncached).
  auto add_selectors = [&](const std::vector<api::DeviceSelector>& selectors,
                           Request& into) {
    for (const api::DeviceSelector& selector : selectors) {
      if (!selector.cel) return false;
      const SliceIndex::SelectorResults* table =
          index.Selector(selector.cel->expression, *allocator.selectors_);
      if (table == nullptr || !table->compiled) return false;
      into.selectors.push_back(table);
    }
    return true;
  };
  for (const api::ResourceClaim* claim : claims) {
    int64_t devices_in_claim = 0;
    for (const api::DeviceRequest& request : claim->spec.devices.requests) {
      if (!request.exactly || !request.first_available.empty()) return nullptr;
      const api::ExactDeviceRequest& exact = *request.exactly;
      if (exact.capacity) return nullptr;
      if (exact.admin_access &&
          (!features.admin_access || *exact.admin_access)) {
        return nullptr;
      }
      Request counted;
      // As the allocator defaults a request that skipped the API server.
      if (exact.allocation_mode == api::DeviceAllocationMode::kUnset) {
        counted.count = exact.count == 0 ? 1 : exact.count;
      } else if (exact.allocation_mode ==
                 api::DeviceAllocationMode::kExactCount) {
        counted.count = exact.count;
      } else {
        return nullptr;
      }
      if (counted.count < 1) return nullptr;
      devices_in_claim += counted.count;
      if (exact.device_class_name.empty() || !allocator.classes_) {
        return nullptr;
      }
      std::shared_ptr<const api::DeviceClass> device_class =
          allocator.classes_(exact.device_class_name);
      if (!device_class ||
          !add_selectors(device_class->spec.selectors, counted) ||
          !add_selectors(exact.selectors, counted)) {
        return nullptr;
      }
      check->requests_.push_back(std::move(counted));
    }
    if (devices_in_claim > kAllocationResultsMaxSize) return nullptr;
    for (const api::DeviceConstraint& constraint :
         claim->spec.devices.constraints) {
      if (!constraint.match_attribute && !constraint.distinct_attribute) {
        return nullptr;
      }
    }
  }
  check->lone_request_ = claims.size() == 1 &&
                         claims[0]->spec.devices.requests.size() == 1 &&
                         claims[0]->spec.devices.constraints.empty();
  return check;
}

int CountCheck::Matches(const Request& request, uint32_t slice, uint32_t device,
                        uint32_t ordinal) const {
  for (const SliceIndex::SelectorResults* table : request.selectors) {
    int8_t known = table->matches[ordinal].load(std::memory_order_relaxed);
    if (known == 0) {
      SliceIndex::CelDevice cel = allocator_.slices_->Cel(slice, device);
      if (cel.activation == nullptr) return -1;
      util::Result<bool> match = (*table->compiled)->Matches(*cel.activation);
      if (!match) return -1;
      known = *match ? 2 : 1;
      table->matches[ordinal].store(known, std::memory_order_relaxed);
    }
    if (known == 1) return 0;
  }
  return 1;
}

CountCheck::Verdict CountCheck::Check(const std::vector<Pool>& pools) const {
  // The search answers "invalid resource pools were encountered" where
  // these make it fail.
  for (const Pool& pool : pools) {
    if (pool.invalid) return Verdict::kSearch;
  }
  const SliceIndex& index = *allocator_.slices_;
  const AllocatedDevices& taken = allocator_.taken_;
  const auto& shares = allocator_.shared_allocations_->capacity;
  const bool binding_conditions =
      allocator_.features_.device_binding_and_status;
  bool all_plain = true;
  // Every request's devices are counted in full, never stopping at
  // enough: a device the search looks at is then one whose selectors
  // gave an answer here, so it cannot meet an error this check missed.
  // (A lone request is the exception below: its search stops too.)
  for (const Request& request : requests_) {
    int64_t count = 0;
    for (const Pool& pool : pools) {
      if (pool.incomplete) continue;  // the search skips it too
      for (uint32_t s : pool.slices) {
        const SliceIndex::Slice& slice = index.slice(s);
        if (slice.per_device_node_selection) return Verdict::kSearch;
        const uint32_t n = slice.num_devices;
        if (taken.CountIn(slice.first_device, n) == n) continue;
        for (uint32_t d = 0; d < n; ++d) {
          const uint32_t ordinal = slice.first_device + d;
          if (taken.Test(ordinal)) continue;
          if (!binding_conditions && slice.binding_conditions &&
              !slice.slice->spec.devices[d].binding_conditions.empty()) {
            continue;
          }
          const int match = Matches(request, s, d, ordinal);
          if (match < 0) return Verdict::kSearch;
          if (match == 0) continue;
          ++count;
          // A share some claim still holds (of a device that no longer
          // allows them) sends even a plain device through the capacity
          // check.
          all_plain &= slice.plain && !shares.contains(ordinal);
          // A lone request's search takes the first free matching devices
          // and looks no further: once they are found, so is the verdict.
          if (lone_request_ && count == request.count) {
            return all_plain ? Verdict::kFits : Verdict::kSearch;
          }
        }
      }
    }
    // Fewer candidates than asked for, even before other requests take
    // theirs: no choice made for earlier requests can help.
    if (count < request.count) return Verdict::kNoFit;
  }
  // (A lone request has returned above: enough devices or too few.)
  return Verdict::kSearch;
}

}  // namespace ksched::dra
