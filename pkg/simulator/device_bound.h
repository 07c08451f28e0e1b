// Device counts the capacity bounds (plan.h) are made of.
#pragma once

#include <cstdint>
#include <optional>

#include "pkg/api/resource.h"
#include "pkg/simulator/cluster.h"

namespace ksched::simulator {

// The fewest devices one claim made from `spec` can take from others, or
// nullopt when it may take none (admin access, All mode over what may be
// no device): then devices bound nothing.
std::optional<int64_t> FewestDevices(const api::ResourceClaimSpec& spec);

// Devices of the pools' newest generations that no allocation holds once
// the claims of pods a change took away are let go (as Simulate lets them
// go).
int64_t FreeDevices(const Cluster& cluster);

}  // namespace ksched::simulator
