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

ResourceList Requests(const Container& c, const PodResourcesOptions& o) {
  return o.non_zero_defaults ? ContainerRequestsWithDefaults(c)
                             : c.resources.requests;
}

}  // namespace

ResourceList ContainerRequestsWithDefaults(const Container& container) {
  ResourceList requests = container.resources.requests;
  if (!requests.Contains(kResourceCpu)) {
    requests.Set(kResourceCpu, Quantity::FromMilli(kDefaultMilliCpuRequest));
  }
  if (!requests.Contains(kResourceMemory)) {
    requests.Set(kResourceMemory, Quantity::FromValue(kDefaultMemoryRequest));
  }
  return requests;
}

ResourceList PodRequests(const Pod& pod, const PodResourcesOptions& options) {
  ResourceList total;
  for (const Container& c : pod.spec.containers) {
    AddTo(total, Requests(c, options));
  }

  // While init container i runs, the sidecars declared before it are
  // already running next to it; a sidecar itself also keeps running beside
  // the app containers.
  ResourceList sidecars;
  ResourceList init_peak;
  for (const Container& c : pod.spec.init_containers) {
    ResourceList requests = Requests(c, options);
    if (c.restart_policy == "Always") {
      AddTo(total, requests);
      AddTo(sidecars, requests);
      MaxInto(init_peak, sidecars);
    } else {
      ResourceList while_running = requests;
      AddTo(while_running, sidecars);
      MaxInto(init_peak, while_running);
    }
  }
  MaxInto(total, init_peak);

  if (!options.exclude_overhead) AddTo(total, pod.spec.overhead);
  return total;
}

}  // namespace ksched::api
