// Where each kind of object lives in the API: group/version path, plural
// name, and whether it is namespaced.
#pragma once

#include <string>
#include <string_view>

#include "pkg/api/node.h"
#include "pkg/api/objects.h"
#include "pkg/api/pod.h"
#include "pkg/api/podgroup.h"
#include "pkg/api/policy.h"
#include "pkg/api/resource.h"
#include "pkg/api/storage.h"

namespace ksched::client {

struct Resource {
  std::string_view group_version_path;  // "/api/v1", "/apis/policy/v1"
  std::string_view plural;              // "pods"
  bool namespaced = false;
};

template <typename T>
struct ResourceOf;

#define KSCHED_CLIENT_RESOURCE(T, path, plural_name, is_namespaced)        \
  template <>                                                              \
  struct ResourceOf<T> {                                                   \
    static constexpr Resource kResource{path, plural_name, is_namespaced}; \
  };
KSCHED_CLIENT_RESOURCE(api::Pod, "/api/v1", "pods", true)
KSCHED_CLIENT_RESOURCE(api::Node, "/api/v1", "nodes", false)
KSCHED_CLIENT_RESOURCE(api::Namespace, "/api/v1", "namespaces", false)
KSCHED_CLIENT_RESOURCE(api::PersistentVolumeClaim, "/api/v1",
                       "persistentvolumeclaims", true)
KSCHED_CLIENT_RESOURCE(api::PersistentVolume, "/api/v1", "persistentvolumes",
                       false)
KSCHED_CLIENT_RESOURCE(api::StorageClass, "/apis/storage.k8s.io/v1",
                       "storageclasses", false)
KSCHED_CLIENT_RESOURCE(api::CsiNode, "/apis/storage.k8s.io/v1", "csinodes",
                       false)
KSCHED_CLIENT_RESOURCE(api::CsiDriver, "/apis/storage.k8s.io/v1", "csidrivers",
                       false)
KSCHED_CLIENT_RESOURCE(api::VolumeAttachment, "/apis/storage.k8s.io/v1",
                       "volumeattachments", false)
KSCHED_CLIENT_RESOURCE(api::PodDisruptionBudget, "/apis/policy/v1",
                       "poddisruptionbudgets", true)
KSCHED_CLIENT_RESOURCE(api::PriorityClass, "/apis/scheduling.k8s.io/v1",
                       "priorityclasses", false)
KSCHED_CLIENT_RESOURCE(api::Event, "/apis/events.k8s.io/v1", "events", true)
KSCHED_CLIENT_RESOURCE(api::Lease, "/apis/coordination.k8s.io/v1", "leases",
                       true)
KSCHED_CLIENT_RESOURCE(api::PodGroup, "/apis/scheduling.x-k8s.io/v1alpha1",
                       "podgroups", true)
KSCHED_CLIENT_RESOURCE(api::DeviceClass, "/apis/resource.k8s.io/v1",
                       "deviceclasses", false)
KSCHED_CLIENT_RESOURCE(api::ResourceSlice, "/apis/resource.k8s.io/v1",
                       "resourceslices", false)
KSCHED_CLIENT_RESOURCE(api::ResourceClaim, "/apis/resource.k8s.io/v1",
                       "resourceclaims", true)
#undef KSCHED_CLIENT_RESOURCE

// The collection: in namespace `ns`, or across all namespaces when empty.
std::string CollectionPath(const Resource& resource, std::string_view ns);
// One object (and a subresource such as "binding" or "status").
std::string ObjectPath(const Resource& resource, std::string_view ns,
                       std::string_view name,
                       std::string_view subresource = "");

}  // namespace ksched::client
