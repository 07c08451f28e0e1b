// What a pod asks of a node, computed as Kubernetes' resource helpers
// (k8s.io/component-helpers/resource.PodRequests) compute it.
#pragma once

#include <cstdint>

#include "pkg/api/pod.h"

namespace ksched::api {

// The requests the scheduler assumes for a container that sets none, so that
// scoring spreads pods that declare nothing (DefaultMilliCPURequest and
// DefaultMemoryRequest in kube-scheduler). Never used to decide fit.
inline constexpr int64_t kDefaultMilliCpuRequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;

struct PodResourcesOptions {
  // Leave spec.overhead out.
  bool exclude_overhead = false;
  // Substitute the default CPU/memory request for a container that does not
  // name that resource (an explicit zero stays zero).
  bool non_zero_defaults = false;
};

// max(sum of app containers + restartable sidecars, each init container
// while it runs together with the sidecars started before it) + overhead.
ResourceList PodRequests(const Pod& pod, const PodResourcesOptions& options);

// One container's requests with the non-zero defaults applied where absent.
ResourceList ContainerRequestsWithDefaults(const Container& container);

}  // namespace ksched::api
