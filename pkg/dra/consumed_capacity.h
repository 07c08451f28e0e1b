// Consumable capacity (DRAConsumableCapacity): a device that allows
// multiple allocations is shared by several claims, each taking part of
// its capacity. These are the rules Kubernetes' allocator applies to one
// share: what a request consumes under the device's request policy
// (defaulted, rounded up to the valid range's step or the next valid
// value), and whether the share still fits beside the others.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "pkg/api/resource.h"

namespace ksched::dra {

// Consumed capacity by capacity name (kube's ConsumedCapacity).
using ConsumedCapacity = std::map<std::string, api::Quantity, std::less<>>;

// Adds `added` into `into`, entry by entry.
void AddCapacity(ConsumedCapacity& into, const ConsumedCapacity& added);
// Subtracts `removed` from the entries `from` has (others are ignored), and
// reports whether every entry is zero afterwards (kube then forgets the
// device's entry).
bool SubtractCapacity(ConsumedCapacity& from, const ConsumedCapacity& removed);

// What a request for `requested` (null: the request names no capacity)
// consumes of `capacity`: the policy's default or the whole value when
// nothing is requested, else the request rounded up to the valid range
// (min, then min + n * step) or to the first valid value not below it.
api::Quantity ConsumedFromRequest(const api::Quantity* requested,
                                  const api::DeviceCapacity& capacity);

// What a request consumes of every capacity the device has
// (GetConsumedCapacityFromRequest).
ConsumedCapacity ConsumedCapacityFromRequest(
    const api::CapacityRequirements* requested,
    const api::FlatMap<api::DeviceCapacity>& capacity);

// Whether one more share for `requested` fits on a device with `capacity`
// beside what is consumed already (`allocated`, by committed and in-flight
// claims; `allocating`, by the search in progress), and obeys the request
// policy. An error (kube's "some requested capacity has not been
// defined") when the request names a capacity the device lacks.
enum class CapacityFit { kFits, kDoesNotFit, kUndefinedCapacity };
CapacityFit CmpRequestOverCapacity(
    const ConsumedCapacity& allocated,
    const api::CapacityRequirements* requested,
    const api::FlatMap<api::DeviceCapacity>& capacity,
    const ConsumedCapacity* allocating);

}  // namespace ksched::dra
