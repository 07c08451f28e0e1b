// Registry: the API semantics of every served resource, verb by verb, as
// kube-apiserver's generic registry and the resources' strategies define
// them: get, list (pagination, selectors, resourceVersion semantics),
// watch, create, update (optimistic concurrency), patch, delete (graceful
// for pods), the pod binding subresource, and the status subresources.
//
// Transport-free: the HTTPS front end and the in-process API both call
// Handle(); authentication and injected faults are the front end's.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "test/apiserver/admission.h"
#include "test/apiserver/api_path.h"
#include "test/apiserver/ids.h"
#include "test/apiserver/object_store.h"
#include "test/apiserver/rbac.h"
#include "test/apiserver/request.h"
#include "test/apiserver/resources.h"
#include "test/apiserver/status.h"
#include "test/apiserver/watch_hub.h"

namespace ksched::testing::apiserver {

// 415 unless the body is JSON.
std::optional<ApiError> CheckBodyMediaType(const Request& request);

struct RegistryOptions {
  std::chrono::seconds default_watch_timeout{1800};
  bool finalize_deleted_pods = true;
  // The kube-apiserver played: what it serves (and discovery lists), its
  // /version, and how it defaults and keeps pods (see object_defaults.h).
  ServedApis served;
  AdmissionOptions admission;
  // Answers the checks a strategy makes of the authorizer itself (from
  // v1.36, a ResourceClaim status write's resourceclaims/binding and
  // resourceclaims/driver), for requests made as a user (Request::user):
  // true when allowed. Unset: everything is.
  std::function<bool(const RequestAttributes&)> authorize;
};

struct BindingRecord {
  std::string ns;
  std::string name;
  std::string uid;
  std::string node;
  int code = 0;
  std::chrono::steady_clock::time_point at;
};

class Registry {
 public:
  Registry(ObjectStore& store, WatchHub& hub, IdSource& ids,
           RegistryOptions options);

  // Answers `request`, whose path `path` names.
  Response Handle(const Request& request, const ApiPath& path);
  Response Handle(const Request& request);

  std::vector<BindingRecord> Bindings() const;
  // Binding requests answered with `code`, without copying the records.
  int CountBindings(int code) const;
  // 410 Gone answers (and watch ERROR 410 events) served for reads and
  // watches from compacted history.
  int ExpiredServed() const { return expired_served_; }

  // The default namespaces and system priority classes of a new cluster.
  void Bootstrap();
  // What /api advertises as the server's address ("127.0.0.1:PORT").
  void SetServerAddress(std::string address);

 private:
  std::string ServerAddress() const;
  // Reads (registry_read.cc).
  Response Get(const Request& request, const ApiPath& path);
  Response List(const Request& request, const ApiPath& path);
  Response Watch(const Request& request, const ApiPath& path);

  // Writes (registry_write.cc).
  Response Create(const Request& request, const ApiPath& path);
  Response Update(const Request& request, const ApiPath& path);
  Response Patch(const Request& request, const ApiPath& path);
  // dryRun=All: validate and answer, write nothing. Other values are
  // refused (`*error`).
  static bool IsDryRun(const Request& request, std::optional<ApiError>* error);
  // Decodes a written object for `path`'s resource: JSON, kind and types.
  std::optional<ApiError> Decode(const Request& request,
                                 const ResourceInfo& resource,
                                 JsonDocument* out);
  // Creates `object` (decoded, namespace set) and answers 201.
  Response CreateObject(const Request& request, const ResourceInfo& resource,
                        JsonDocument object);
  // Turns `next` (the requested new state of `current`) into what is
  // stored: system metadata, the half of the object this subresource may
  // not change, defaults, validation, managed fields. Sets `*unchanged`
  // when nothing would change.
  std::optional<ApiError> PrepareUpdate(const Request& request,
                                        const ApiPath& path,
                                        const StoredObject& current,
                                        const JsonValue& written,
                                        JsonDocument& next, bool* unchanged);
  // Commits a prepared update; completes a pending deletion whose last
  // finalizer the update removed.
  std::optional<ObjectPtr> CommitUpdate(const ResourceInfo& resource,
                                        const ObjectPtr& current,
                                        JsonDocument next);
  // What an update or patch ends in once `next` holds the object asked
  // for: prepared, answered as unchanged or dry-run, or committed.
  // nullopt when another write committed first (the caller retries).
  std::optional<Response> WriteUpdate(const Request& request,
                                      const ApiPath& path,
                                      const ObjectPtr& current,
                                      const JsonValue& written,
                                      JsonDocument next);

  // Deletes (registry_delete.cc).
  Response Delete(const Request& request, const ApiPath& path);
  Response DeleteCollection(const Request& request, const ApiPath& path);
  // Deletes `current` (graceful pods, finalizers, namespaces' content);
  // returns the answer's object state and HTTP code, or an error.
  struct DeleteOutcome {
    std::optional<ApiError> error;
    ObjectPtr object;
    bool stale = false;  // `current` changed meanwhile: retry
  };
  DeleteOutcome DeleteObject(const ResourceInfo& resource,
                             const ObjectPtr& current,
                             std::optional<int64_t> grace_period);
  // Removes the object (retrying over concurrent changes); its tombstone.
  ObjectPtr RemoveNow(const ResourceInfo& resource, ObjectPtr current);
  void DeleteNamespaceContent(const std::string& ns);

  // pods/binding (registry_binding.cc).
  Response Bind(const Request& request, const ApiPath& path);
  void RecordBinding(BindingRecord record);

  // Answers.
  Response ObjectResponse(int code, const ResourceInfo& resource,
                          const StoredObject& object, bool pretty) const;
  // What a write would have stored, for dryRun=All (nothing is written).
  Response DryRunResponse(int code, const ResourceInfo& resource,
                          const JsonValue& object, bool pretty) const;
  static Response ErrorResponse(const ApiError& error, bool pretty);

  ObjectStore& store_;
  WatchHub& hub_;
  IdSource& ids_;
  const RegistryOptions options_;
  mutable std::mutex server_address_mu_;
  std::string server_address_ = "127.0.0.1:6443";

  mutable std::mutex bindings_mu_;
  std::vector<BindingRecord> bindings_;
  std::atomic<int> expired_served_{0};
};

}  // namespace ksched::testing::apiserver
