// Resource: the compute resources of a node or pod in scheduler units
// (framework.Resource): milli-CPU, bytes, a pod count, and scalar resources
// (extended, hugepages, attachable volumes) by name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/pod.h"

namespace ksched::framework {

struct Resource {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t allowed_pod_number = 0;
  // Sorted by name; most pods and many nodes have none.
  std::vector<std::pair<std::string, int64_t>> scalar_resources;

  // framework.NewResource: converts a ResourceList (CPU in milli-units,
  // everything else in units, unknown non-scalar names ignored).
  static Resource FromList(const api::ResourceList& list);

  // Adds every resource of `list` (Resource.Add).
  void Add(const api::ResourceList& list);
  // Raises each resource to at least its value in `list`
  // (Resource.SetMaxResource).
  void SetMaxResource(const api::ResourceList& list);

  void AddResource(const Resource& other, int64_t sign = 1);

  int64_t Scalar(std::string_view name) const;
  void SetScalar(std::string_view name, int64_t value);
  void AddScalar(std::string_view name, int64_t value);

  // The value of any resource by its API name (cpu in milli-units).
  int64_t Get(std::string_view name) const;

  friend bool operator==(const Resource&, const Resource&) = default;
};

}  // namespace ksched::framework
