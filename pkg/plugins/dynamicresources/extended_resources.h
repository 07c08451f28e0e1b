// Extended resources backed by DRA (DRAExtendedResource): a pod asks for
// `example.com/gpu: 2` as it always did, and where a node's allocatable
// lacks the resource a DeviceClass naming it serves the request with
// devices. DynamicResources then allocates one claim of the pod's own, made
// from the containers' requests, and writes it in PreBind. These build that
// claim as kube-scheduler v1.36 does (extendeddynamicresources.go).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/pod.h"
#include "pkg/api/resource.h"

namespace ksched::plugins::dynamic_resources {

// The name of the claim while it exists only in memory (not a valid
// object name, so it never meets a real claim's).
inline constexpr std::string_view kInMemoryClaimName = "<extended-resources>";

// kube's IsDRAExtendedResourceName: an extended resource, or a class's
// implicit "deviceclass.resource.kubernetes.io/<class>".
bool IsDraExtendedResourceName(std::string_view name);

// Looks up the class that serves a resource; null when none does.
using ClassForResource = std::function<std::shared_ptr<const api::DeviceClass>(
    std::string_view resource)>;

// The pod's requests of extended resources some class serves, by name, in
// whole units (kube's podScalarResources, only those kube's
// hasDeviceClassMappedExtendedResource looks at); empty when it asks for
// none.
std::map<std::string, int64_t, std::less<>> DraBackedRequests(
    const api::Pod& pod, const ClassForResource& classes);

// The claim a scheduling cycle made for the pod earlier (annotated as the
// scheduler's, the pod its controller), or null.
std::shared_ptr<const api::ResourceClaim> FindExtendedResourceClaim(
    const api::Pod& pod,
    const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims);

// The in-memory claim: the pod as its controlling owner, the annotation,
// generateName "<pod>-extended-resources-", no requests yet, and `uid` (a
// stand-in until the API server gives it one).
api::ResourceClaim NewExtendedResourceClaim(const api::Pod& pod,
                                            std::string uid);

// What one node needs of the claim: one request per container and
// resource ("container-<i>-request-<j>", <i> counting init containers
// first, <j> the resource's place among the container's sorted requests),
// init containers reusing later long-lived containers' requests and
// sharing the largest of their own, and which request serves which
// container (createRequestsAndMappings).
struct RequestsAndMappings {
  std::vector<api::DeviceRequest> requests;
  std::vector<api::ContainerExtendedResourceRequest> mappings;
};
RequestsAndMappings CreateRequestsAndMappings(
    const api::Pod& pod,
    const std::map<std::string, int64_t, std::less<>>& resources_from_dra,
    const ClassForResource& classes);

}  // namespace ksched::plugins::dynamic_resources
