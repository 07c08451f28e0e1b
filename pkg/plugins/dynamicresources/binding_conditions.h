// Binding conditions (DRADeviceBindingConditions with
// DRAResourceClaimDeviceStatus): a device that must be attached before the
// pod may bind lists conditions its driver sets in the claim's
// status.devices. These read a claim's allocation against them, as
// kube-scheduler v1.36's DynamicResources does.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "pkg/api/resource.h"
#include "pkg/api/time.h"
#include "pkg/util/result.h"

namespace ksched::plugins::dynamic_resources {

// kube's ErrDeviceBindingFailed and ErrDeviceBindingTimeout texts.
inline constexpr std::string_view kDeviceBindingFailed =
    "device binding failed";
inline constexpr std::string_view kDeviceBindingTimeout =
    "device binding timeout";

// Whether every device of the allocation that has binding conditions has
// them all true; an error ("device binding failed: claim=<name>,
// reason=<r>, message=\"<m>\"") when one of its failure conditions is true.
// A claim without an allocation is not ready.
util::Result<bool> ClaimReadyForBinding(const api::ResourceClaim& claim);

// Whether a device with binding conditions has waited longer than
// `timeout` since the allocation's timestamp.
bool ClaimBindingTimedOut(const api::ResourceClaim& claim,
                          std::chrono::nanoseconds timeout, api::Timestamp now);

// Whether some allocated claim has a device with binding conditions.
bool AnyBindingConditions(
    const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims);

// The drivers of the devices with binding conditions in the claim's
// allocation, one entry per such device (the allocations metric counts
// them per driver).
std::vector<std::string> BindingConditionDrivers(
    const api::ResourceClaim& claim);

}  // namespace ksched::plugins::dynamic_resources
