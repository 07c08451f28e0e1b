// A defaulted, validated v1 configuration in the form ksched works with
// (types.h): every optional filled, plugin args as their typed structs.
#pragma once

#include "pkg/config/types.h"
#include "pkg/config/v1_types.h"

namespace ksched::config {

KubeSchedulerConfiguration Convert(const v1::KubeSchedulerConfiguration& in);

// Durations are kept in milliseconds: a sub-millisecond part is dropped,
// but a positive duration stays positive (at least 1ms).
std::chrono::milliseconds ToMilliseconds(std::chrono::nanoseconds d);

}  // namespace ksched::config
