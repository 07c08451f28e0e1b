// Validation of the typed args the two plugins receive, as their kube
// factories run it (ValidateNodeResourcesFitArgs and
// ValidateNodeResourcesBalancedAllocationArgs on the internal types,
// kube-scheduler v1.32, with a nil root path). The configuration loader
// validates the v1 form already; this keeps a plugin built from args by
// other means (tests, the simulator) from scoring with nonsense weights.
#pragma once

#include "pkg/config/field_errors.h"
#include "pkg/config/types.h"

namespace ksched::plugins::noderesources {

config::FieldErrors ValidateFitArgs(const config::NodeResourcesFitArgs& args);

config::FieldErrors ValidateBalancedAllocationArgs(
    const config::NodeResourcesBalancedAllocationArgs& args);

}  // namespace ksched::plugins::noderesources
