// Resource names the scheduler treats specially (core/v1 ResourceName).
#pragma once

#include <string_view>

namespace ksched::api {

inline constexpr std::string_view kResourceCpu = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourceEphemeralStorage =
    "ephemeral-storage";
inline constexpr std::string_view kResourcePods = "pods";
inline constexpr std::string_view kResourceHugePagesPrefix = "hugepages-";
inline constexpr std::string_view kResourceDefaultNamespacePrefix =
    "kubernetes.io/";
inline constexpr std::string_view kResourceRequestsPrefix = "requests.";
inline constexpr std::string_view kResourceAttachableVolumesPrefix =
    "attachable-volumes-";

// helper.IsHugePageResourceName.
inline bool IsHugePageResourceName(std::string_view name) {
  return name.starts_with(kResourceHugePagesPrefix);
}

// helper.IsExtendedResourceName: a fully-qualified name outside the
// kubernetes.io/ namespace, not a quota "requests." name.
bool IsExtendedResourceName(std::string_view name);

// helper.IsScalarResourceName: extended, hugepages, attachable volumes and
// prefixed native resources are tracked in a NodeInfo's scalar map.
bool IsScalarResourceName(std::string_view name);

}  // namespace ksched::api
