// ValidateKubeSchedulerConfiguration of kube-scheduler v1.32
// (pkg/scheduler/apis/config/validation/validation.go, with component-base's
// client-connection and leader-election checks), on a defaulted v1
// configuration.
#pragma once

#include "pkg/config/field_errors.h"
#include "pkg/config/v1_types.h"

namespace ksched::config::v1 {

// Every error, in kube-scheduler's order; AggregateMessage() renders them
// as kube-scheduler prints them.
FieldErrors Validate(const KubeSchedulerConfiguration& config);

}  // namespace ksched::config::v1
