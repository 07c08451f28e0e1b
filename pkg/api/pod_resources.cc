#include "pkg/api/pod_resources.h"

#include "pkg/api/resource_names.h"

namespace ksched::api {
namespace {

void AddTo(ResourceList& total, const ResourceList& add) {
  for (const auto& [name, quantity] : add) {
    if (Quantity* existing = total.Find(name)) {
      *existing += quantity;
    } else {
      total.Set(name, quantity);
    }
  }
}

// Raises each resource of `total` to at least its value in `other`.
void MaxInto(ResourceList& total, const ResourceList& other) {
  for (const auto& [name, quantity] : other) {
    Quantity* existing = total.Find(name);
    if (existing == nullptr) {
      total.Set(name, quantity);
    } else if (quantity > *existing) {
      *existing = quantity;
    }
  }
}

// The status kube's name map would hand out for `name`: init container
// statuses are entered after the app containers' ones, and a later entry
// replaces an earlier one of the same name.
const ContainerStatus* FindStatus(const PodStatus& status,
                                  std::string_view name) {
  for (auto it = status.init_container_statuses.rbegin();
       it != status.init_container_statuses.rend(); ++it) {
    if (it->name == name) return &*it;
  }
  for (auto it = status.container_statuses.rbegin();
       it != status.container_statuses.rend(); ++it) {
    if (it->name == name) return &*it;
  }
  return nullptr;
}

// determineEffectiveRequests: what a resized container (or pod) holds. The
// kubelet may already run with more than the spec asks (a resize down not
// applied yet) or have admitted more (a resize up in progress); the node is
// full by the larger. An infeasible resize will never be admitted, so its
// spec does not count.
ResourceList EffectiveRequests(const ResourceList& spec,
                               const ResourceList& actuated,
                               const ResourceList& allocated,
                               bool resize_infeasible) {
  ResourceList out = resize_infeasible ? actuated : spec;
  if (!resize_infeasible) MaxInto(out, actuated);
  MaxInto(out, allocated);
  return out;
}

// One container's requests as the options count them.
ResourceList ContainerRequests(const Pod& pod, const Container& c,
                               bool status_applies,
                               const PodResourcesOptions& o,
                               bool resize_infeasible) {
  ResourceList requests;
  const ContainerStatus* status =
      status_applies ? FindStatus(pod.status, c.name) : nullptr;
  if (status != nullptr && status->resources) {
    requests =
        EffectiveRequests(c.resources.requests, status->resources->requests,
                          status->allocated_resources, resize_infeasible);
  } else {
    requests = c.resources.requests;
  }
  // applyNonMissing: only names the container's (effective) requests lack.
  if (!o.non_missing_container_requests.empty()) {
    ResourceList filled = requests;
    for (const auto& [name, quantity] : o.non_missing_container_requests) {
      if (!requests.Contains(name)) filled.Set(name, quantity);
    }
    return filled;
  }
  return requests;
}

bool IsSidecar(const Container& c) {
  return c.restart_policy == kContainerRestartPolicyAlways;
}

// AggregateContainerRequests.
ResourceList AggregateContainerRequests(const Pod& pod,
                                        const PodResourcesOptions& o) {
  const bool infeasible = o.use_status_resources && IsPodResizeInfeasible(pod);
  ResourceList total;
  for (const Container& c : pod.spec.containers) {
    AddTo(total,
          ContainerRequests(pod, c, o.use_status_resources, o, infeasible));
  }

  // While init container i runs, the sidecars declared before it are
  // already running next to it; a sidecar itself also keeps running beside
  // the app containers. Only a sidecar can have been resized: a plain init
  // container has finished before the pod runs.
  ResourceList sidecars;
  ResourceList init_peak;
  for (const Container& c : pod.spec.init_containers) {
    const bool sidecar = IsSidecar(c);
    ResourceList requests = ContainerRequests(
        pod, c, sidecar && o.use_status_resources, o, infeasible);
    if (sidecar) {
      AddTo(total, requests);
      AddTo(sidecars, requests);
      MaxInto(init_peak, sidecars);
    } else {
      AddTo(requests, sidecars);
      MaxInto(init_peak, requests);
    }
  }
  MaxInto(total, init_peak);
  return total;
}

}  // namespace

bool IsSupportedPodLevelResource(std::string_view name) {
  return name == kResourceCpu || name == kResourceMemory ||
         IsHugePageResourceName(name);
}

bool IsPodLevelRequestsSet(const Pod& pod) {
  if (!pod.spec.resources) return false;
  for (const auto& [name, quantity] : pod.spec.resources->requests) {
    if (IsSupportedPodLevelResource(name)) return true;
  }
  return false;
}

bool IsPodResizeInfeasible(const Pod& pod) {
  for (const PodCondition& c : pod.status.conditions) {
    // Only the first such condition counts, as kube reads the list.
    if (c.type == kPodResizePending) return c.reason == kPodReasonInfeasible;
  }
  return false;
}

ResourceList NonZeroDefaultRequests() {
  return ResourceList{
      {std::string(kResourceCpu), Quantity::FromMilli(kDefaultMilliCpuRequest)},
      {std::string(kResourceMemory),
       Quantity::FromValue(kDefaultMemoryRequest)}};
}

PodResourcesOptions PodResourcesOptionsFor(const ResourceFeatures& features) {
  PodResourcesOptions o;
  o.use_status_resources = features.in_place_pod_vertical_scaling;
  o.in_place_pod_level_resources_vertical_scaling =
      features.in_place_pod_level_resources_vertical_scaling;
  o.skip_pod_level_resources = !features.pod_level_resources;
  return o;
}

ResourceList PodRequests(const Pod& pod, const PodResourcesOptions& options) {
  ResourceList total = AggregateContainerRequests(pod, options);

  if (!options.skip_pod_level_resources && IsPodLevelRequestsSet(pod)) {
    const ResourceRequirements& pod_level = *pod.spec.resources;
    // The pod-level counterpart of a resized container's rule; only read
    // once the kubelet reports pod-level resources.
    const bool use_status =
        options.use_status_resources &&
        options.in_place_pod_level_resources_vertical_scaling &&
        pod.status.resources.has_value();
    ResourceList effective;
    if (use_status) {
      effective = EffectiveRequests(
          pod_level.requests, pod.status.resources->requests,
          pod.status.allocated_resources, IsPodResizeInfeasible(pod));
    }
    for (const auto& [name, quantity] : pod_level.requests) {
      if (!IsSupportedPodLevelResource(name)) continue;
      if (!use_status) {
        total.Set(name, quantity);
        continue;
      }
      // A resource the effective requests lack reads as zero, as a missing
      // key of a Go map does.
      const Quantity* q = effective.Find(name);
      total.Set(name, q != nullptr ? *q : Quantity());
    }
  }

  if (!options.exclude_overhead) AddTo(total, pod.spec.overhead);
  return total;
}

}  // namespace ksched::api
