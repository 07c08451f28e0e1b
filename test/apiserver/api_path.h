// Routing: what a request path names, as kube-apiserver's mux reads it.
#pragma once

#include <string>
#include <string_view>

namespace ksched::testing::apiserver {

struct ResourceInfo;

enum class Endpoint {
  kResource,      // an API resource, collection or object
  kVersion,       // /version
  kHealth,        // /healthz, /livez, /readyz
  kApiVersions,   // /api: the core group's versions
  kGroupList,     // /apis: every group
  kGroup,         // /apis/<group>
  kGroupVersion,  // /api/<version>, /apis/<group>/<version>: its resources
  kNotFound,      // anything else
};

struct ApiPath {
  Endpoint endpoint = Endpoint::kNotFound;
  const ResourceInfo* resource = nullptr;
  std::string ns;            // the namespace in the path; "" when none
  std::string name;          // "" for a collection
  std::string subresource;   // "status", "binding" or ""
  std::string health_check;  // "healthz", "livez", "readyz"
  // The group-version discovery asks about (kGroup, kGroupVersion); ""
  // for the core group.
  std::string group;
  std::string version;
  bool verbose_health = false;
};

// Parses a decoded request path (without the query).
ApiPath ParseApiPath(std::string_view path);

// The path of an object, for messages and the in-process API.
std::string ObjectPath(const ResourceInfo& resource, std::string_view ns,
                       std::string_view name);

}  // namespace ksched::testing::apiserver
