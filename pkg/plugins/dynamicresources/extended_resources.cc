#include "pkg/plugins/dynamicresources/extended_resources.h"

#include <algorithm>
#include <optional>
#include <set>

#include "pkg/api/pod_resources.h"
#include "pkg/api/resource_names.h"

namespace ksched::plugins::dynamic_resources {
namespace extended_resources_detail {
namespace {

// A container's request of `resource` in whole units; 0 when absent, zero
// or not a whole number (kube's AsInt64 failing).
int64_t WholeRequest(const api::Container& container,
                     std::string_view resource) {
  const api::Quantity* q = container.resources.requests.Find(resource);
  if (q == nullptr) return 0;
  constexpr __int128 kNano = 1000000000;
  if (q->NanoValue() % kNano != 0) return 0;
  return q->Value();
}

// createResourceRequestAndMappings: the request (if the container needs
// one of its own beyond `reusable`) and the container's mappings.
std::optional<api::DeviceRequest> RequestAndMappings(
    size_t index, const api::Container& container, const std::string& resource,
    const std::string& class_name,
    const std::vector<std::optional<api::DeviceRequest>>& reusable,
    std::vector<api::ContainerExtendedResourceRequest>& mappings) {
  const int64_t wanted = WholeRequest(container, resource);
  if (wanted == 0) return std::nullopt;
  int64_t sum = 0;
  for (const auto& r : reusable) {
    if (!r) continue;
    sum += r->exactly->count;
    mappings.push_back({container.name, resource, r->name});
    if (sum >= wanted) return std::nullopt;
  }
  // The resource's place among the container's requests, sorted by name
  // (the ResourceList is kept sorted).
  size_t position = 0;
  for (const auto& [name, quantity] : container.resources.requests) {
    if (name == resource) break;
    ++position;
  }
  api::DeviceRequest request;
  request.name = "container-" + std::to_string(index) + "-request-" +
                 std::to_string(position);
  request.exactly.emplace();
  request.exactly->device_class_name = class_name;
  request.exactly->allocation_mode = api::DeviceAllocationMode::kExactCount;
  request.exactly->count = wanted - sum;
  mappings.push_back({container.name, resource, request.name});
  return request;
}

}  // namespace
}  // namespace extended_resources_detail
using namespace extended_resources_detail;

bool IsDraExtendedResourceName(std::string_view name) {
  return api::IsExtendedResourceName(name) ||
         name.starts_with(api::kDeviceClassResourcePrefix);
}

std::map<std::string, int64_t, std::less<>> DraBackedRequests(
    const api::Pod& pod, const ClassForResource& classes) {
  std::map<std::string, int64_t, std::less<>> out;
  bool any_backed = false;
  const api::ResourceList requests = api::PodRequests(pod, {});
  for (const auto& [name, quantity] : requests) {
    if (quantity.IsZero() || !IsDraExtendedResourceName(name)) continue;
    if (classes(name) != nullptr) any_backed = true;
  }
  if (!any_backed) return out;
  // Every scalar request, as kube keeps them all (a resource no class
  // serves must then come from the node's allocatable).
  for (const auto& [name, quantity] : requests) {
    if (!IsDraExtendedResourceName(name)) continue;
    out.emplace(name, quantity.Value());
  }
  return out;
}

std::shared_ptr<const api::ResourceClaim> FindExtendedResourceClaim(
    const api::Pod& pod,
    const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims) {
  for (const auto& claim : claims) {
    const std::string* annotated =
        claim->metadata.annotations.Find(api::kExtendedResourceClaimAnnotation);
    if (annotated == nullptr || *annotated != "true") continue;
    for (const api::OwnerReference& owner : claim->metadata.owner_references) {
      if (owner.name == pod.metadata.name && owner.controller.value_or(false) &&
          owner.uid == pod.metadata.uid) {
        return claim;
      }
    }
  }
  return nullptr;
}

api::ResourceClaim NewExtendedResourceClaim(const api::Pod& pod,
                                            std::string uid) {
  api::ResourceClaim claim;
  claim.metadata.ns = pod.metadata.ns;
  claim.metadata.name = std::string(kInMemoryClaimName);
  claim.metadata.uid = std::move(uid);
  claim.metadata.generate_name = pod.metadata.name + "-extended-resources-";
  claim.metadata.owner_references.push_back(
      api::OwnerReference{.api_version = "v1",
                          .kind = "Pod",
                          .name = pod.metadata.name,
                          .uid = pod.metadata.uid,
                          .controller = true});
  claim.metadata.annotations.Set(api::kExtendedResourceClaimAnnotation, "true");
  return claim;
}

RequestsAndMappings CreateRequestsAndMappings(
    const api::Pod& pod,
    const std::map<std::string, int64_t, std::less<>>& resources_from_dra,
    const ClassForResource& classes) {
  std::vector<const api::Container*> containers;
  for (const api::Container& c : pod.spec.init_containers) {
    containers.push_back(&c);
  }
  for (const api::Container& c : pod.spec.containers) containers.push_back(&c);
  const size_t num_init = pod.spec.init_containers.size();
  // Long-lived: regular containers and sidecars; short-lived: the other
  // init containers, which run one at a time before them.
  std::vector<size_t> long_lived, short_lived;
  for (size_t i = 0; i < containers.size(); ++i) {
    const bool sidecar =
        containers[i]->restart_policy == api::kContainerRestartPolicyAlways;
    if (i < num_init && !sidecar) {
      short_lived.push_back(i);
    } else {
      long_lived.push_back(i);
    }
  }

  RequestsAndMappings out;
  for (const auto& [resource, quantity] : resources_from_dra) {
    std::shared_ptr<const api::DeviceClass> cls = classes(resource);
    if (cls == nullptr) continue;
    const std::string& class_name = cls->metadata.name;
    std::vector<api::ContainerExtendedResourceRequest> long_mappings,
        short_mappings;
    std::vector<std::optional<api::DeviceRequest>> long_requests(
        containers.size());
    for (size_t i : long_lived) {
      long_requests[i] = RequestAndMappings(i, *containers[i], resource,
                                            class_name, {}, long_mappings);
    }
    std::optional<api::DeviceRequest> largest_short;
    std::set<std::string> short_names;
    for (size_t i : short_lived) {
      const std::vector<std::optional<api::DeviceRequest>> later(
          long_requests.begin() + static_cast<std::ptrdiff_t>(i),
          long_requests.end());
      std::optional<api::DeviceRequest> r = RequestAndMappings(
          i, *containers[i], resource, class_name, later, short_mappings);
      if (!r) continue;
      short_names.insert(r->name);
      if (!largest_short || largest_short->exactly->count < r->exactly->count) {
        largest_short = std::move(r);
      }
    }
    // Init containers run one after another: the largest request serves
    // them all.
    if (largest_short && short_names.size() > 1) {
      short_names.erase(largest_short->name);
      for (auto& m : short_mappings) {
        if (short_names.contains(m.request_name)) {
          m.request_name = largest_short->name;
        }
      }
    }
    if (largest_short) out.requests.push_back(*largest_short);
    for (auto& r : long_requests) {
      if (r) out.requests.push_back(std::move(*r));
    }
    out.mappings.insert(out.mappings.end(), long_mappings.begin(),
                        long_mappings.end());
    out.mappings.insert(out.mappings.end(), short_mappings.begin(),
                        short_mappings.end());
  }
  std::stable_sort(out.requests.begin(), out.requests.end(),
                   [](const api::DeviceRequest& a,
                      const api::DeviceRequest& b) { return a.name < b.name; });
  return out;
}

}  // namespace ksched::plugins::dynamic_resources
