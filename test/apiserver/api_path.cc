#include "test/apiserver/api_path.h"

#include <vector>

#include "test/apiserver/resources.h"

namespace ksched::testing::apiserver {

namespace {

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool SubresourceAllowed(const ResourceInfo& r, std::string_view sub) {
  if (sub == "status") return r.has_status;
  if (sub == "binding") return r.is_pod();
  return false;
}

// Reads "<resource>[/<name>[/<subresource>]]" from `rest`, within `ns`.
ApiPath ResourcePath(std::string_view group, std::string_view version,
                     std::string ns,
                     const std::vector<std::string_view>& rest) {
  ApiPath out;
  if (rest.empty() || rest.size() > 3) return out;
  const ResourceInfo* r = FindResource(group, version, rest[0]);
  if (r == nullptr) return out;
  // A namespaced path must name a namespaced resource.
  if (!ns.empty() && !r->namespaced) return out;
  // A cluster-wide path names a namespaced resource only as a collection.
  if (ns.empty() && r->namespaced && rest.size() > 1) return out;
  if (rest.size() == 3 && !SubresourceAllowed(*r, rest[2])) return out;
  out.endpoint = Endpoint::kResource;
  out.resource = r;
  out.ns = std::move(ns);
  if (rest.size() >= 2) out.name = std::string(rest[1]);
  if (rest.size() == 3) out.subresource = std::string(rest[2]);
  return out;
}

}  // namespace

ApiPath ParseApiPath(std::string_view path) {
  ApiPath out;
  if (path == "/version" || path == "/version/") {
    out.endpoint = Endpoint::kVersion;
    return out;
  }
  const std::vector<std::string_view> seg = Segments(path);
  if (!seg.empty() &&
      (seg[0] == "healthz" || seg[0] == "livez" || seg[0] == "readyz") &&
      seg.size() == 1) {
    out.endpoint = Endpoint::kHealth;
    out.health_check = std::string(seg[0]);
    return out;
  }
  // Discovery: /api, /apis, /apis/<group>, /api/<version> and
  // /apis/<group>/<version>.
  if (seg.size() == 1 && (seg[0] == "api" || seg[0] == "apis")) {
    out.endpoint =
        seg[0] == "api" ? Endpoint::kApiVersions : Endpoint::kGroupList;
    return out;
  }
  if (seg.size() == 2 && seg[0] == "apis") {
    out.endpoint = Endpoint::kGroup;
    out.group = std::string(seg[1]);
    return out;
  }
  if ((seg.size() == 2 && seg[0] == "api") ||
      (seg.size() == 3 && seg[0] == "apis")) {
    out.endpoint = Endpoint::kGroupVersion;
    out.group = seg[0] == "api" ? "" : std::string(seg[1]);
    out.version = std::string(seg.back());
    return out;
  }
  std::string_view group;
  std::string_view version;
  size_t next = 0;
  if (seg.size() >= 3 && seg[0] == "api") {
    version = seg[1];
    next = 2;
  } else if (seg.size() >= 4 && seg[0] == "apis") {
    group = seg[1];
    version = seg[2];
    next = 3;
  } else {
    return out;
  }
  std::vector<std::string_view> rest(seg.begin() + next, seg.end());
  if (group.empty() && rest.size() >= 3 && rest[0] == "namespaces") {
    // /api/v1/namespaces/{ns}/{resource}... unless it is the namespace's
    // own status subresource.
    if (rest.size() == 3 && rest[2] == "status") {
      return ResourcePath(group, version, "", rest);
    }
    std::string ns(rest[1]);
    return ResourcePath(
        group, version, ns,
        std::vector<std::string_view>(rest.begin() + 2, rest.end()));
  }
  if (!group.empty() && rest.size() >= 3 && rest[0] == "namespaces") {
    std::string ns(rest[1]);
    return ResourcePath(
        group, version, ns,
        std::vector<std::string_view>(rest.begin() + 2, rest.end()));
  }
  return ResourcePath(group, version, "", rest);
}

std::string ObjectPath(const ResourceInfo& resource, std::string_view ns,
                       std::string_view name) {
  std::string path = resource.group.empty()
                         ? "/api/" + resource.version
                         : "/apis/" + resource.group + "/" + resource.version;
  if (resource.namespaced) path += "/namespaces/" + std::string(ns);
  path += "/" + resource.resource;
  if (!name.empty()) path += "/" + std::string(name);
  return path;
}

}  // namespace ksched::testing::apiserver
