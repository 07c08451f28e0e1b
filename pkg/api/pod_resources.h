// What a pod asks of a node, computed as Kubernetes v1.35's resource helpers
// (k8s.io/component-helpers/resource.PodRequests) compute it.
#pragma once

#include <cstdint>
#include <string_view>

#include "pkg/api/pod.h"

namespace ksched::api {

// The requests the scheduler assumes for a container that sets none, so that
// scoring spreads pods that declare nothing (DefaultMilliCPURequest and
// DefaultMemoryRequest in kube-scheduler). Never used to decide fit.
inline constexpr int64_t kDefaultMilliCpuRequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;

// The feature gates that change how a pod's requests are counted, as a
// caller derives them from its gate set; the defaults are kube v1.35's.
struct ResourceFeatures {
  // InPlacePodVerticalScaling: a running container counts what the kubelet
  // allocated or applied when that exceeds its spec.
  bool in_place_pod_vertical_scaling = true;
  // PodLevelResources: spec.resources requests replace the containers' sum.
  bool pod_level_resources = true;
  // InPlacePodLevelResourcesVerticalScaling (alpha): the same status rule
  // for the pod-level requests.
  bool in_place_pod_level_resources_vertical_scaling = false;
  friend bool operator==(const ResourceFeatures&,
                         const ResourceFeatures&) = default;
};

// Mirrors PodResourcesOptions. The zero value is Go's zero value: spec
// requests only, pod-level requests honoured, overhead added.
struct PodResourcesOptions {
  // Per container (and restartable sidecar) with a status that reports
  // `resources`: the larger of spec, applied and allocated requests; with an
  // Infeasible resize pending, the spec is left out (it will never run so).
  bool use_status_resources = false;
  // With use_status_resources, the same for the pod-level requests
  // (status.resources and status.allocatedResources).
  bool in_place_pod_level_resources_vertical_scaling = false;
  // Leave spec.overhead out.
  bool exclude_overhead = false;
  // Ignore spec.resources (PodLevelResources off).
  bool skip_pod_level_resources = false;
  // Substituted for a container's request of a resource it does not name (an
  // explicit zero stays zero); empty: none.
  ResourceList non_missing_container_requests;
};

// max(sum of app containers + restartable sidecars, each init container
// while it runs together with the sidecars started before it), its cpu,
// memory and hugepages replaced by the pod-level requests where those are
// set, + overhead.
ResourceList PodRequests(const Pod& pod, const PodResourcesOptions& options);

// Options for the requests a pod holds on its node (PodInfo's
// CalculateResource and the scorers): status and pod-level resources as
// the gates say.
PodResourcesOptions PodResourcesOptionsFor(const ResourceFeatures& features);

// {cpu: 100m, memory: 200Mi}: the non-zero defaults.
ResourceList NonZeroDefaultRequests();

// resourcehelper.IsSupportedPodLevelResource: cpu, memory and hugepages-*.
bool IsSupportedPodLevelResource(std::string_view name);
// resourcehelper.IsPodLevelRequestsSet: spec.resources requests name at
// least one supported resource.
bool IsPodLevelRequestsSet(const Pod& pod);
// resourcehelper.IsPodResizeInfeasible: the first PodResizePending condition
// has reason Infeasible.
bool IsPodResizeInfeasible(const Pod& pod);

}  // namespace ksched::api
