// Create, update (PUT) and patch: the write path every one shares is
// decode, default, admit (create), validate, record managed fields, and
// commit against the version the change was computed from.
#include "test/apiserver/admission.h"
#include "test/apiserver/dra_objects.h"
#include "test/apiserver/managed_fields.h"
#include "test/apiserver/object_defaults.h"
#include "test/apiserver/patch.h"
#include "test/apiserver/registry.h"
#include "test/apiserver/resources.h"
#include "test/apiserver/validation.h"

namespace ksched::testing::apiserver {

namespace {

// Retries of a write that lost a race with another writer.
constexpr int kMaxAttempts = 32;

// Server-side apply, whose body is YAML (or JSON, which YAML includes).
constexpr std::string_view kApplyPatch = "application/apply-patch+yaml";

// An apply names its manager; nothing defaults it.
ApiError ApplyWithoutFieldManager() {
  ApiError e{.code = 422,
             .reason = "Invalid",
             .message =
                 "PatchOptions.meta.k8s.io \"\" is invalid: "
                 "fieldManager: Required value: is required for apply "
                 "patch"};
  e.has_details = true;
  e.detail_group = "meta.k8s.io";
  e.detail_kind = "PatchOptions";
  e.causes.push_back(
      FieldRequired("fieldManager", "is required for apply patch"));
  return e;
}

FieldManager ManagerFor(const Request& request, const ResourceInfo& resource,
                        const std::string& subresource) {
  FieldManager m;
  m.manager = request.query.Has("fieldManager")
                  ? request.query.Get("fieldManager")
                  : ManagerFromUserAgent(request.user_agent);
  m.api_version = resource.ApiVersion();
  m.subresource = subresource;
  if (request.content_type.starts_with(kApplyPatch)) m.operation = "Apply";
  m.time = Rfc3339Now();
  return m;
}

// Copies `key` of `from` into `to` (or removes it from `to`).
void CopyMember(const JsonValue& from, JsonValue& to, std::string_view key,
                JsonAllocator& a) {
  const JsonValue* v = Member(from, key);
  if (v == nullptr) {
    RemoveMember(to, key);
  } else {
    SetMember(to, key, JsonValue(*v, a), a);
  }
}

}  // namespace

// Objects are written as JSON (no Content-Type reads as JSON, as the real
// server takes it); YAML and protobuf are not spoken here.
std::optional<ApiError> CheckBodyMediaType(const Request& request) {
  std::string type =
      request.content_type.substr(0, request.content_type.find(';'));
  type.erase(type.find_last_not_of(' ') + 1);
  if (type.empty() || type == "application/json" || type == "*/*") {
    return std::nullopt;
  }
  return UnsupportedMediaType(
      "the body of the request was in an unknown format - accepted media "
      "types include: application/json");
}

namespace {

std::string NamespaceMismatch() {
  return "the namespace of the provided object does not match the namespace "
         "sent on the request";
}

}  // namespace

std::optional<ApiError> Registry::Decode(const Request& request,
                                         const ResourceInfo& resource,
                                         JsonDocument* out) {
  if (auto e = CheckBodyMediaType(request)) return e;
  std::string error;
  if (!ParseJson(request.body, out, &error)) {
    return BadRequest("couldn't get version/kind; json parse error: " + error);
  }
  if (auto e = CheckDecodable(resource, *out)) return e;
  RemoveMember(*out, "kind");
  RemoveMember(*out, "apiVersion");
  return std::nullopt;
}

Response Registry::Create(const Request& request, const ApiPath& path) {
  const ResourceInfo& r = *path.resource;
  JsonDocument doc;
  if (auto e = Decode(request, r, &doc)) {
    return ErrorResponse(*e, request.pretty);
  }
  auto& a = doc.GetAllocator();
  JsonValue& metadata = EnsureObject(doc, "metadata", a);
  const std::string ns = StringAt(metadata, {"namespace"});
  if (!r.namespaced) {
    RemoveMember(metadata, "namespace");
  } else if (ns.empty()) {
    SetString(metadata, "namespace", path.ns, a);
  } else if (ns != path.ns) {
    return ErrorResponse(BadRequest(NamespaceMismatch()), request.pretty);
  }
  if (!StringAt(metadata, {"resourceVersion"}).empty()) {
    return ErrorResponse(
        BadRequest("resourceVersion should not be set on objects to be "
                   "created"),
        request.pretty);
  }
  return CreateObject(request, r, std::move(doc));
}

Response Registry::CreateObject(const Request& request, const ResourceInfo& r,
                                JsonDocument object) {
  const std::string given_name = StringAt(object, {"metadata", "name"});
  const std::string generate = StringAt(object, {"metadata", "generateName"});
  const bool generated = given_name.empty() && !generate.empty();
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    JsonDocument doc;
    doc.CopyFrom(object, doc.GetAllocator());
    auto& a = doc.GetAllocator();
    JsonValue& metadata = EnsureObject(doc, "metadata", a);
    const std::string name =
        generated ? generate + ids_.NameSuffix() : given_name;
    if (!name.empty()) SetString(metadata, "name", name, a);
    for (const char* field :
         {"uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
          "deletionGracePeriodSeconds", "managedFields", "selfLink"}) {
      RemoveMember(metadata, field);
    }
    ApplyDefaults(r, doc, options_.served.minor);
    // Managed fields cover what the client wrote and what defaulting
    // filled, not what the server resets or admission adds.
    JsonDocument written;
    written.CopyFrom(doc, written.GetAllocator());
    PrepareForCreate(r, doc, options_.served.minor);
    if (auto denied = AdmitCreate(r, doc, store_, options_.admission, ids_)) {
      return ErrorResponse(*denied, request.pretty);
    }
    std::vector<StatusCause> causes = Validate(r, doc, options_.served.minor);
    if (!causes.empty()) {
      return ErrorResponse(Invalid(r, name, std::move(causes)), request.pretty);
    }
    JsonValue& meta = EnsureObject(doc, "metadata", a);
    SetString(meta, "uid", ids_.NewUid(), a);
    // Stamped at commit; set now so that it keeps its place in metadata.
    SetString(meta, "resourceVersion", "", a);
    SetString(meta, "creationTimestamp", Rfc3339Now(), a);
    RecordManagedFields(doc, nullptr, written, ManagerFor(request, r, ""));
    CanonicalizeOrder(doc);
    std::optional<ApiError> dry_run_error;
    if (IsDryRun(request, &dry_run_error)) {
      RemoveMember(EnsureObject(doc, "metadata", a), "resourceVersion");
      return DryRunResponse(201, r, doc, request.pretty);
    }
    if (dry_run_error) return ErrorResponse(*dry_run_error, request.pretty);
    const std::string key =
        StoreKey(r, StringAt(doc, {"metadata", "namespace"}), name);
    std::optional<ObjectPtr> created = store_.Commit(r, key, nullptr, &doc);
    if (created.has_value()) {
      return ObjectResponse(201, r, **created, request.pretty);
    }
    if (!generated) {
      return ErrorResponse(AlreadyExists(r, name), request.pretty);
    }
  }
  return ErrorResponse(AlreadyExists(r, generate), request.pretty);
}

Response Registry::Update(const Request& request, const ApiPath& path) {
  const ResourceInfo& r = *path.resource;
  JsonDocument doc;
  if (auto e = Decode(request, r, &doc)) {
    return ErrorResponse(*e, request.pretty);
  }
  auto& a = doc.GetAllocator();
  JsonValue& metadata = EnsureObject(doc, "metadata", a);
  const std::string name = StringAt(metadata, {"name"});
  if (name != path.name) {
    return ErrorResponse(
        BadRequest("the name of the object (" + name +
                   ") does not match the name on the URL (" + path.name + ")"),
        request.pretty);
  }
  const std::string ns = StringAt(metadata, {"namespace"});
  if (!r.namespaced) {
    RemoveMember(metadata, "namespace");
  } else if (ns.empty()) {
    SetString(metadata, "namespace", path.ns, a);
  } else if (ns != path.ns) {
    return ErrorResponse(BadRequest(NamespaceMismatch()), request.pretty);
  }
  const std::string wanted_rv = StringAt(metadata, {"resourceVersion"});
  const std::string wanted_uid = StringAt(metadata, {"uid"});
  const std::string key = StoreKey(r, path.ns, path.name);
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    ObjectPtr current = store_.Get(r, key);
    if (current == nullptr) {
      if (r.allow_create_on_update && path.subresource.empty()) {
        RemoveMember(metadata, "resourceVersion");
        return CreateObject(request, r, std::move(doc));
      }
      return ErrorResponse(NotFound(r, path.name), request.pretty);
    }
    if (!wanted_rv.empty() && wanted_rv != std::to_string(current->rv)) {
      return ErrorResponse(ConflictModified(r, path.name), request.pretty);
    }
    if (!wanted_uid.empty() && wanted_uid != current->uid) {
      return ErrorResponse(PreconditionConflict(r, path.ns, path.name, "UID",
                                                wanted_uid, current->uid),
                           request.pretty);
    }
    JsonDocument next;
    next.CopyFrom(doc, next.GetAllocator());
    if (std::optional<Response> done =
            WriteUpdate(request, path, current, doc, std::move(next))) {
      return std::move(*done);
    }
    if (!wanted_rv.empty()) {
      return ErrorResponse(ConflictModified(r, path.name), request.pretty);
    }
  }
  return ErrorResponse(ConflictModified(r, path.name), request.pretty);
}

std::optional<Response> Registry::WriteUpdate(const Request& request,
                                              const ApiPath& path,
                                              const ObjectPtr& current,
                                              const JsonValue& written,
                                              JsonDocument next) {
  const ResourceInfo& r = *path.resource;
  bool unchanged = false;
  if (auto e =
          PrepareUpdate(request, path, *current, written, next, &unchanged)) {
    return ErrorResponse(*e, request.pretty);
  }
  if (unchanged) return ObjectResponse(200, r, *current, request.pretty);
  std::optional<ApiError> dry_run_error;
  if (IsDryRun(request, &dry_run_error)) {
    return DryRunResponse(200, r, next, request.pretty);
  }
  if (dry_run_error) return ErrorResponse(*dry_run_error, request.pretty);
  std::optional<ObjectPtr> updated = CommitUpdate(r, current, std::move(next));
  if (updated.has_value()) {
    return ObjectResponse(200, r, **updated, request.pretty);
  }
  return std::nullopt;
}

Response Registry::Patch(const Request& request, const ApiPath& path) {
  const ResourceInfo& r = *path.resource;
  const std::string type =
      request.content_type.substr(0, request.content_type.find(';'));
  if (r.custom && type != "application/merge-patch+json" &&
      type != "application/json-patch+json" && type != kApplyPatch) {
    return ErrorResponse(
        UnsupportedMediaType(
            "the body of the request was in an unknown format - accepted "
            "media types include: application/json-patch+json, "
            "application/merge-patch+json, application/apply-patch+yaml"),
        request.pretty);
  }
  const bool apply = type == kApplyPatch;
  if (type != "application/merge-patch+json" &&
      type != "application/strategic-merge-patch+json" &&
      type != "application/json-patch+json" && !apply) {
    return ErrorResponse(
        UnsupportedMediaType(
            "the body of the request was in an unknown format - accepted "
            "media types include: application/json-patch+json, "
            "application/merge-patch+json, "
            "application/strategic-merge-patch+json, "
            "application/apply-patch+yaml"),
        request.pretty);
  }
  if (apply && request.query.Get("fieldManager").empty()) {
    return ErrorResponse(ApplyWithoutFieldManager(), request.pretty);
  }
  JsonDocument patch;
  std::string error;
  if (!ParseJson(request.body, &patch, &error)) {
    return ErrorResponse(BadRequest("error decoding patch: " + error),
                         request.pretty);
  }
  if (type != "application/json-patch+json" && !patch.IsObject()) {
    return ErrorResponse(
        BadRequest("error decoding patch: json: cannot unmarshal " +
                   JsonTypeName(patch) +
                   " into Go value of type map[string]interface {}"),
        request.pretty);
  }
  const std::string key = StoreKey(r, path.ns, path.name);
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    ObjectPtr current = store_.Get(r, key);
    if (current == nullptr) {
      return ErrorResponse(NotFound(r, path.name), request.pretty);
    }
    JsonDocument next = current->Parse();
    auto& a = next.GetAllocator();
    SetString(next, "kind", r.kind, a);
    SetString(next, "apiVersion", r.ApiVersion(), a);
    if (type == "application/merge-patch+json") {
      ApplyMergePatch(next, patch, a);
    } else if (type == "application/strategic-merge-patch+json" || apply) {
      // An apply merges the configuration as a strategic merge does
      // (associative lists by their keys). Fields the manager applied
      // before and leaves out now are not removed here.
      if (!ApplyStrategicMergePatch(next, patch, a, &error)) {
        return ErrorResponse(ApiError{.code = 500, .message = error},
                             request.pretty);
      }
    } else if (!ApplyJsonPatch(next, patch, a, &error)) {
      return ErrorResponse(
          ApiError{.code = 422, .reason = "Invalid", .message = error},
          request.pretty);
    }
    if (auto e = CheckDecodable(r, next)) {
      return ErrorResponse(*e, request.pretty);
    }
    RemoveMember(next, "kind");
    RemoveMember(next, "apiVersion");
    const std::string patched_rv =
        StringAt(next, {"metadata", "resourceVersion"});
    // A resourceVersion in the patch is a precondition.
    if (!patched_rv.empty() && patched_rv != std::to_string(current->rv)) {
      return ErrorResponse(ConflictModified(r, path.name), request.pretty);
    }
    // A patch sets no precondition (unlike a PUT): a uid it changes is an
    // update of an immutable field, found by the checks common to every
    // update and again by the kind's own metadata validation.
    const std::string patched_uid = StringAt(next, {"metadata", "uid"});
    if (!patched_uid.empty() && patched_uid != current->uid) {
      const StatusCause immutable = FieldInvalid(
          "metadata.uid", "\"" + patched_uid + "\"", "field is immutable");
      return ErrorResponse(Invalid(r, path.name, {immutable, immutable}),
                           request.pretty);
    }
    const JsonValue& written = type == "application/json-patch+json"
                                   ? static_cast<const JsonValue&>(next)
                                   : static_cast<const JsonValue&>(patch);
    // A copy: `next` changes while it is prepared, and may be `written`.
    JsonDocument written_copy;
    written_copy.CopyFrom(written, written_copy.GetAllocator());
    if (std::optional<Response> done = WriteUpdate(
            request, path, current, written_copy, std::move(next))) {
      return std::move(*done);
    }
  }
  return ErrorResponse(ConflictModified(r, path.name), request.pretty);
}

std::optional<ApiError> Registry::PrepareUpdate(
    const Request& request, const ApiPath& path, const StoredObject& current,
    const JsonValue& written, JsonDocument& next, bool* unchanged) {
  const ResourceInfo& r = *path.resource;
  const JsonDocument old = current.Parse();
  auto& a = next.GetAllocator();
  if (!next.IsObject()) next.SetObject();
  JsonValue& metadata = EnsureObject(next, "metadata", a);
  const JsonValue& old_metadata = *Member(old, "metadata");
  for (const char* field :
       {"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp",
        "deletionGracePeriodSeconds", "generation", "generateName",
        "resourceVersion", "managedFields"}) {
    CopyMember(old_metadata, metadata, field, a);
  }
  if (r.has_status) {
    if (path.subresource == "status") {
      // Only status (and labels, annotations) change through /status.
      std::vector<std::string> drop;
      for (const auto& m : next.GetObject()) {
        std::string_view key(m.name.GetString(), m.name.GetStringLength());
        if (key != "metadata" && key != "status") drop.emplace_back(key);
      }
      for (const std::string& key : drop) RemoveMember(next, key);
      for (const auto& m : old.GetObject()) {
        std::string_view key(m.name.GetString(), m.name.GetStringLength());
        if (key != "metadata" && key != "status") {
          CopyMember(old, next, key, a);
        }
      }
      if (r.is_pod()) CopyMember(old_metadata, metadata, "ownerReferences", a);
      KeepMetadataOnDraStatusUpdate(r, old, next);
    } else {
      CopyMember(old, next, "status", a);
    }
  }
  ApplyDefaults(r, next, options_.served.minor);
  if (path.subresource.empty()) {
    PrepareForUpdate(r, old, next, options_.served.minor);
  }
  std::vector<StatusCause> causes;
  // v1.36's claim status strategy authorizes what the write changes before
  // it validates it.
  if (options_.served.minor >= 36 && path.subresource == "status" &&
      r.group == "resource.k8s.io" && r.resource == "resourceclaims" &&
      !request.user.empty() && options_.authorize) {
    causes = AuthorizeClaimStatusUpdate(
        old, next, request.user, request.method == "PUT" ? "update" : "patch",
        path.ns, options_.authorize);
  }
  for (StatusCause& c : ValidateUpdate(r, old, next, options_.served.minor)) {
    causes.push_back(std::move(c));
  }
  if (!causes.empty()) return Invalid(r, path.name, std::move(causes));
  if (next == old) {  // member order aside
    *unchanged = true;
    return std::nullopt;
  }
  RecordManagedFields(next, &old, written,
                      ManagerFor(request, r, path.subresource));
  CanonicalizeOrder(next);
  return std::nullopt;
}

std::optional<ObjectPtr> Registry::CommitUpdate(const ResourceInfo& resource,
                                                const ObjectPtr& current,
                                                JsonDocument next) {
  const std::string key = StoreKey(resource, current->ns, current->name);
  std::optional<ObjectPtr> committed =
      store_.Commit(resource, key, current, &next);
  if (!committed.has_value()) return std::nullopt;
  // A deletion waiting only for finalizers completes when the last goes.
  // (`next` is what was committed.)
  const JsonValue& doc = next;
  const JsonValue* finalizers = Find(doc, {"metadata", "finalizers"});
  const bool has_finalizers =
      finalizers != nullptr && finalizers->IsArray() && !finalizers->Empty();
  if (Find(doc, {"metadata", "deletionTimestamp"}) != nullptr &&
      !has_finalizers &&
      (!resource.is_pod() ||
       IntAt(doc, {"metadata", "deletionGracePeriodSeconds"}).value_or(0) ==
           0)) {
    RemoveNow(resource, *committed);
  }
  return committed;
}

}  // namespace ksched::testing::apiserver
