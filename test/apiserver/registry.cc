#include "test/apiserver/registry.h"

#include <algorithm>

#include "test/apiserver/discovery.h"
#include "test/apiserver/encoding.h"
#include "test/apiserver/json_util.h"
#include "test/apiserver/rbac.h"
#include "test/apiserver/resources.h"

namespace ksched::testing::apiserver {

namespace {

// readyz?verbose lists every check, as a healthy kube-apiserver does.
constexpr char kReadyzVerbose[] =
    "[+]ping ok\n"
    "[+]log ok\n"
    "[+]etcd ok\n"
    "[+]etcd-readiness ok\n"
    "[+]informer-sync ok\n"
    "[+]poststarthook/start-apiserver-admission-initializer ok\n"
    "[+]poststarthook/generic-apiserver-start-informers ok\n"
    "[+]poststarthook/priority-and-fairness-config-consumer ok\n"
    "[+]poststarthook/priority-and-fairness-filter ok\n"
    "[+]poststarthook/storage-object-count-tracker-hook ok\n"
    "[+]poststarthook/start-apiextensions-informers ok\n"
    "[+]poststarthook/start-apiextensions-controllers ok\n"
    "[+]poststarthook/crd-informer-synced ok\n"
    "[+]poststarthook/start-system-namespaces-controller ok\n"
    "[+]poststarthook/start-cluster-authentication-info-controller ok\n"
    "[+]poststarthook/start-kube-apiserver-identity-lease-controller ok\n"
    "[+]poststarthook/start-kube-apiserver-identity-lease-garbage-collector "
    "ok\n"
    "[+]poststarthook/start-legacy-token-tracking-controller ok\n"
    "[+]poststarthook/start-service-ip-repair-controllers ok\n"
    "[+]poststarthook/rbac/bootstrap-roles ok\n"
    "[+]poststarthook/scheduling/bootstrap-system-priority-classes ok\n"
    "[+]poststarthook/priority-and-fairness-config-producer ok\n"
    "[+]poststarthook/bootstrap-controller ok\n"
    "[+]poststarthook/aggregator-reload-proxy-client-cert ok\n"
    "[+]poststarthook/start-kube-aggregator-informers ok\n"
    "[+]poststarthook/apiservice-status-local-available-controller ok\n"
    "[+]poststarthook/apiservice-status-remote-available-controller ok\n"
    "[+]poststarthook/apiservice-registration-controller ok\n"
    "[+]poststarthook/apiservice-discovery-controller ok\n"
    "[+]poststarthook/kube-apiserver-autoregistration ok\n"
    "[+]autoregister-completion ok\n"
    "[+]poststarthook/apiservice-openapi-controller ok\n"
    "[+]poststarthook/apiservice-openapiv3-controller ok\n"
    "[+]shutdown ok\n";

Response HealthResponse(const ApiPath& path, const Request& request) {
  Response r;
  r.content_type = "text/plain; charset=utf-8";
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  if (request.query.Has("verbose")) {
    r.body = path.health_check == "readyz"
                 ? std::string(kReadyzVerbose)
                 : std::string("[+]ping ok\n[+]log ok\n[+]etcd ok\n");
    r.body += path.health_check + " check passed\n";
  } else {
    r.body = "ok";
  }
  return r;
}

}  // namespace

Registry::Registry(ObjectStore& store, WatchHub& hub, IdSource& ids,
                   RegistryOptions options)
    : store_(store), hub_(hub), ids_(ids), options_(options) {}

Response Registry::Handle(const Request& request) {
  return Handle(request, ParseApiPath(request.path));
}

Response Registry::Handle(const Request& request, const ApiPath& path) {
  const std::string& m = request.method;
  switch (path.endpoint) {
    case Endpoint::kVersion:
      if (m != "GET") return ErrorResponse(MethodNotAllowed(), request.pretty);
      return VersionResponse(options_.served.minor);
    case Endpoint::kHealth:
      return HealthResponse(path, request);
    case Endpoint::kApiVersions:
    case Endpoint::kGroupList:
    case Endpoint::kGroup:
    case Endpoint::kGroupVersion:
      if (m != "GET") return ErrorResponse(MethodNotAllowed(), request.pretty);
      return DiscoveryResponse(path, options_.served, ServerAddress(),
                               request.pretty);
    case Endpoint::kNotFound:
      return ErrorResponse(RouteNotFound(), request.pretty);
    case Endpoint::kResource:
      break;
  }
  if (!options_.served.Serves(*path.resource)) {
    // A group-version the server does not serve ends in Go's plain 404; a
    // resource missing from one it serves is the API's own 404.
    for (const ResourceInfo& r : AllResources()) {
      if (r.group == path.resource->group &&
          r.version == path.resource->version && options_.served.Serves(r)) {
        return ErrorResponse(RouteNotFound(), request.pretty);
      }
    }
    return PageNotFound();
  }
  if (path.subresource == "binding") {
    if (m == "POST") return Bind(request, path);
    return ErrorResponse(MethodNotAllowed(), request.pretty);
  }
  if (path.name.empty()) {
    if (m == "GET") {
      // Decided as authorization decides list or watch.
      if (WantsWatch(request.query)) return Watch(request, path);
      return List(request, path);
    }
    // Creating needs the namespace a namespaced resource lives in.
    if (m == "POST" && (path.ns.empty() == !path.resource->namespaced)) {
      return Create(request, path);
    }
    if (m == "DELETE" && (path.ns.empty() == !path.resource->namespaced)) {
      return DeleteCollection(request, path);
    }
    return ErrorResponse(MethodNotAllowed(), request.pretty);
  }
  if (m == "GET") return Get(request, path);
  if (m == "PUT") return Update(request, path);
  if (m == "PATCH") return Patch(request, path);
  if (m == "DELETE" && path.subresource.empty()) return Delete(request, path);
  return ErrorResponse(MethodNotAllowed(), request.pretty);
}

Response Registry::Get(const Request& request, const ApiPath& path) {
  const ResourceInfo& r = *path.resource;
  ObjectPtr object = store_.Get(r, StoreKey(r, path.ns, path.name));
  if (object == nullptr) {
    return ErrorResponse(NotFound(r, path.name), request.pretty);
  }
  return ObjectResponse(200, r, *object, request.pretty);
}

Response Registry::ObjectResponse(int code, const ResourceInfo& resource,
                                  const StoredObject& object,
                                  bool pretty) const {
  return Response{.code = code,
                  .body = ResponseBody(ObjectJson(resource, object), pretty)};
}

Response Registry::DryRunResponse(int code, const ResourceInfo& resource,
                                  const JsonValue& object, bool pretty) const {
  StoredObject shown;
  shown.json = ToJson(object);
  return Response{.code = code,
                  .body = ResponseBody(ObjectJson(resource, shown), pretty)};
}

bool Registry::IsDryRun(const Request& request,
                        std::optional<ApiError>* error) {
  if (!request.query.Has("dryRun")) return false;
  const std::string value = request.query.Get("dryRun");
  if (value == "All") return true;
  *error = BadRequest("Invalid dry run value: \"" + value + "\"");
  return false;
}

Response Registry::ErrorResponse(const ApiError& error, bool pretty) {
  Response r{.code = error.code, .body = StatusJson(error, pretty)};
  if (error.retry_after_seconds > 0) {
    r.headers.emplace_back("Retry-After",
                           std::to_string(error.retry_after_seconds));
  }
  return r;
}

std::vector<BindingRecord> Registry::Bindings() const {
  std::lock_guard<std::mutex> lock(bindings_mu_);
  return bindings_;
}

int Registry::CountBindings(int code) const {
  std::lock_guard<std::mutex> lock(bindings_mu_);
  return static_cast<int>(
      std::count_if(bindings_.begin(), bindings_.end(),
                    [code](const BindingRecord& r) { return r.code == code; }));
}

void Registry::RecordBinding(BindingRecord record) {
  std::lock_guard<std::mutex> lock(bindings_mu_);
  bindings_.push_back(std::move(record));
}

void Registry::SetServerAddress(std::string address) {
  std::lock_guard<std::mutex> lock(server_address_mu_);
  server_address_ = std::move(address);
}

std::string Registry::ServerAddress() const {
  std::lock_guard<std::mutex> lock(server_address_mu_);
  return server_address_;
}

void Registry::Bootstrap() {
  for (const char* ns :
       {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    Handle(MakeRequest("POST", "/api/v1/namespaces",
                       std::string(R"({"metadata":{"name":")") + ns + "\"}}",
                       "application/json", "kube-apiserver"));
  }
  for (const auto& [name, value] :
       {std::pair<const char*, int>{"system-node-critical", 2000001000},
        std::pair<const char*, int>{"system-cluster-critical", 2000000000}}) {
    Handle(MakeRequest(
        "POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
        std::string(R"({"metadata":{"name":")") + name + R"("},"value":)" +
            std::to_string(value) +
            R"(,"description":"Used for system critical pods that must )"
            R"(not be moved from their current node."})",
        "application/json", "kube-apiserver"));
  }
}

}  // namespace ksched::testing::apiserver
