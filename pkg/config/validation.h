// ValidateKubeSchedulerConfiguration of kube-scheduler v1.35
// (pkg/scheduler/apis/config/validation/validation.go, with component-base's
// client-connection and leader-election checks), on a defaulted v1
// configuration.
#pragma once

#include "pkg/config/feature_gates.h"
#include "pkg/config/field_errors.h"
#include "pkg/config/v1_types.h"

namespace ksched::config::v1 {

// Every error, in kube-scheduler's order; AggregateMessage() renders them
// as kube-scheduler prints them.
// Plugin args are checked against `gates` (DynamicResources' timeouts).
FieldErrors Validate(const KubeSchedulerConfiguration& config,
                     const FeatureGates& gates = FeatureGates());

}  // namespace ksched::config::v1
