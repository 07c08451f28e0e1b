// Delete and deletecollection: preconditions, graceful deletion of pods
// (deletionTimestamp first, then removal once the grace period is over or
// a kubelet confirms), finalizers, and namespaces taking their content.
#include <charconv>

#include "test/apiserver/encoding.h"
#include "test/apiserver/object_defaults.h"
#include "test/apiserver/registry.h"
#include "test/apiserver/resources.h"
#include "test/apiserver/selectors.h"

namespace ksched::testing::apiserver {

namespace {

struct DeleteOptions {
  std::optional<int64_t> grace_period;
  std::string uid;               // preconditions.uid
  std::string resource_version;  // preconditions.resourceVersion
  bool dry_run = false;          // dryRun: ["All"]
};

std::optional<ApiError> ParseDeleteOptions(const Request& request,
                                           DeleteOptions* out) {
  if (!request.body.empty()) {
    JsonDocument doc;
    std::string error;
    if (!ParseJson(request.body, &doc, &error)) {
      return BadRequest("couldn't get version/kind; json parse error: " +
                        error);
    }
    if (!doc.IsObject()) {
      return BadRequest("json: cannot unmarshal " + JsonTypeName(doc) +
                        " into Go value of type v1.DeleteOptions");
    }
    if (const JsonValue* g = Member(doc, "gracePeriodSeconds")) {
      if (!g->IsInt64() && !g->IsNull()) {
        return BadRequest(
            "json: cannot unmarshal " + JsonTypeName(*g) +
            " into Go struct field DeleteOptions.gracePeriodSeconds of type "
            "int64");
      }
      if (g->IsInt64()) out->grace_period = g->GetInt64();
    }
    if (const JsonValue* dry = Member(doc, "dryRun");
        dry != nullptr && dry->IsArray()) {
      for (const auto& v : dry->GetArray()) {
        if (v.IsString() && std::string_view(v.GetString()) == "All") {
          out->dry_run = true;
        }
      }
    }
    out->uid = StringAt(doc, {"preconditions", "uid"});
    out->resource_version = StringAt(doc, {"preconditions", "resourceVersion"});
  }
  if (request.query.Has("gracePeriodSeconds")) {
    const std::string text = request.query.Get("gracePeriodSeconds");
    int64_t value = 0;
    auto [end, error] =
        std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) {
      return BadRequest("strconv.ParseInt: parsing \"" + text +
                        "\": invalid syntax");
    }
    out->grace_period = value;
  }
  return std::nullopt;
}

// Failed preconditions name the kind, as rest.BeforeDelete words it.
ApiError DeletePreconditionFailed(const ResourceInfo& r,
                                  const std::string& name,
                                  const std::string& cause) {
  return Conflict(r.group, r.kind, name, cause);
}

int64_t PodGracePeriod(const JsonValue& pod, std::optional<int64_t> given) {
  int64_t period = given.value_or(
      IntAt(pod, {"spec", "terminationGracePeriodSeconds"}).value_or(30));
  // Unscheduled and finished pods have nothing to stop.
  if (StringAt(pod, {"spec", "nodeName"}).empty()) period = 0;
  const std::string phase = StringAt(pod, {"status", "phase"});
  if (phase == "Failed" || phase == "Succeeded") period = 0;
  if (period < 0) period = 1;
  return period;
}

}  // namespace

ObjectPtr Registry::RemoveNow(const ResourceInfo& resource, ObjectPtr current) {
  const std::string key = StoreKey(resource, current->ns, current->name);
  while (current != nullptr) {
    std::optional<ObjectPtr> gone =
        store_.Commit(resource, key, current, nullptr);
    if (gone.has_value()) return *gone;
    current = store_.Get(resource, key);
  }
  return nullptr;
}

void Registry::DeleteNamespaceContent(const std::string& ns) {
  for (const ResourceInfo& r : AllResources()) {
    if (!r.namespaced) continue;
    for (const ObjectPtr& object : store_.Snapshot(r)) {
      if (object->ns == ns) RemoveNow(r, object);
    }
  }
}

Registry::DeleteOutcome Registry::DeleteObject(
    const ResourceInfo& resource, const ObjectPtr& current,
    std::optional<int64_t> grace_period) {
  // Parsed once: the checks read it, and it becomes the marked object.
  JsonDocument next = current->Parse();
  auto& a = next.GetAllocator();
  const bool being_deleted =
      Find(next, {"metadata", "deletionTimestamp"}) != nullptr;
  const JsonValue* finalizers = Find(next, {"metadata", "finalizers"});
  const bool has_finalizers =
      finalizers != nullptr && finalizers->IsArray() && !finalizers->Empty();
  const bool graceful = resource.is_pod() || resource.is_namespace();
  int64_t period = resource.is_pod() ? PodGracePeriod(next, grace_period) : 0;

  if (being_deleted) {
    // Already being deleted: only a shorter grace period changes anything.
    const int64_t pending =
        IntAt(next, {"metadata", "deletionGracePeriodSeconds"}).value_or(0);
    if (has_finalizers ||
        (pending > 0 && (!grace_period.has_value() || period >= pending))) {
      return DeleteOutcome{.object = current};
    }
    if (pending == 0) {
      return DeleteOutcome{.object = RemoveNow(resource, current)};
    }
  } else if (!graceful && !has_finalizers) {
    return DeleteOutcome{.object = RemoveNow(resource, current)};
  }

  // Mark it: deletionTimestamp (+ grace period), Terminating namespaces.
  JsonValue& metadata = EnsureObject(next, "metadata", a);
  SetString(
      metadata, "deletionTimestamp",
      Rfc3339(std::chrono::system_clock::now() + std::chrono::seconds(period)),
      a);
  SetMember(metadata, "deletionGracePeriodSeconds",
            JsonValue(static_cast<int64_t>(period)), a);
  if (resource.is_namespace()) {
    SetString(EnsureObject(next, "status", a), "phase", "Terminating", a);
  }
  CanonicalizeOrder(next);
  const std::string key = StoreKey(resource, current->ns, current->name);
  std::optional<ObjectPtr> marked =
      store_.Commit(resource, key, current, &next);
  if (!marked.has_value()) return DeleteOutcome{.stale = true};
  if (has_finalizers) return DeleteOutcome{.object = *marked};
  if (resource.is_namespace()) {
    // The namespace controller's work: the content goes, then the
    // namespace.
    DeleteNamespaceContent(current->name);
    RemoveNow(resource, *marked);
    return DeleteOutcome{.object = *marked};
  }
  // A pod leaves once its grace period is over; with no kubelet around,
  // the server confirms in its place when asked to.
  if (period == 0 || options_.finalize_deleted_pods) {
    RemoveNow(resource, *marked);
  }
  return DeleteOutcome{.object = *marked};
}

Response Registry::Delete(const Request& request, const ApiPath& path) {
  const ResourceInfo& r = *path.resource;
  DeleteOptions options;
  if (auto e = ParseDeleteOptions(request, &options)) {
    return ErrorResponse(*e, request.pretty);
  }
  const std::string key = StoreKey(r, path.ns, path.name);
  for (int attempt = 0; attempt < 32; ++attempt) {
    ObjectPtr current = store_.Get(r, key);
    if (current == nullptr) {
      return ErrorResponse(NotFound(r, path.name), request.pretty);
    }
    if (!options.uid.empty() && options.uid != current->uid) {
      return ErrorResponse(
          DeletePreconditionFailed(
              r, path.name,
              "the UID in the precondition (" + options.uid +
                  ") does not match the UID in record (" + current->uid +
                  "). The object might have been deleted and then "
                  "recreated"),
          request.pretty);
    }
    const std::string rv = std::to_string(current->rv);
    if (!options.resource_version.empty() && options.resource_version != rv) {
      return ErrorResponse(
          DeletePreconditionFailed(
              r, path.name,
              "the ResourceVersion in the precondition (" +
                  options.resource_version +
                  ") does not match the ResourceVersion in record (" + rv +
                  "). The object might have been modified"),
          request.pretty);
    }
    std::optional<ApiError> dry_run_error;
    if (IsDryRun(request, &dry_run_error) || options.dry_run) {
      // What would be deleted, left in place.
      if (r.return_deleted_object) {
        return ObjectResponse(200, r, *current, request.pretty);
      }
      return Response{.body = SuccessJson(0, request.pretty)};
    }
    if (dry_run_error) return ErrorResponse(*dry_run_error, request.pretty);
    DeleteOutcome outcome = DeleteObject(r, current, options.grace_period);
    if (outcome.stale) continue;
    if (outcome.error.has_value()) {
      return ErrorResponse(*outcome.error, request.pretty);
    }
    // An object left for its finalizers answers as itself, whatever the
    // resource answers for one deleted outright.
    bool finalizing = false;
    if (outcome.object != nullptr) {
      const JsonDocument object = outcome.object->Parse();
      const JsonValue* finalizers = Find(object, {"metadata", "finalizers"});
      finalizing = finalizers != nullptr && finalizers->IsArray() &&
                   !finalizers->Empty();
    }
    if ((r.return_deleted_object || finalizing) && outcome.object != nullptr) {
      return ObjectResponse(200, r, *outcome.object, request.pretty);
    }
    ApiError success{.code = 0, .status = "Success", .has_details = true};
    success.detail_name = path.name;
    success.detail_group = r.group;
    success.detail_kind = r.resource;
    success.detail_uid = current->uid;
    return Response{.body = StatusJson(success, request.pretty)};
  }
  return ErrorResponse(ConflictModified(r, path.name), request.pretty);
}

Response Registry::DeleteCollection(const Request& request,
                                    const ApiPath& path) {
  const ResourceInfo& r = *path.resource;
  DeleteOptions options;
  if (auto e = ParseDeleteOptions(request, &options)) {
    return ErrorResponse(*e, request.pretty);
  }
  FieldSelector fields;
  LabelSelector labels;
  std::string error;
  if (!fields.Parse(request.query.Get("fieldSelector"), r, &error) ||
      !labels.Parse(request.query.Get("labelSelector"), &error)) {
    return ErrorResponse(BadRequest(error), request.pretty);
  }
  std::vector<ObjectPtr> deleted;
  for (const ObjectPtr& object : store_.Snapshot(r)) {
    if (!path.ns.empty() && object->ns != path.ns) continue;
    const JsonDocument selectable = object->ParseSelectable();
    if (!fields.Matches(selectable) || !labels.Matches(selectable)) continue;
    ObjectPtr current = object;
    for (int attempt = 0; attempt < 32 && current != nullptr; ++attempt) {
      DeleteOutcome outcome = DeleteObject(r, current, options.grace_period);
      if (!outcome.stale) {
        if (outcome.object != nullptr) deleted.push_back(outcome.object);
        break;
      }
      current = store_.Get(r, StoreKey(r, object->ns, object->name));
    }
  }
  return Response{.body = ResponseBody(
                      ListJson(r, ListMeta{.rv = store_.CurrentRv()}, deleted),
                      request.pretty)};
}

}  // namespace ksched::testing::apiserver
