// POST pods/{name}/binding: assigns a pod to a node exactly as the pod
// registry's BindingREST does: the UID and resourceVersion in the
// Binding are preconditions; a pod being deleted, already assigned, or
// still gated is refused with a Conflict; success sets spec.nodeName and
// the PodScheduled condition and answers a Success Status.
#include "test/apiserver/object_defaults.h"
#include "test/apiserver/registry.h"
#include "test/apiserver/resources.h"

namespace ksched::testing::apiserver {

namespace {

// The binding's own validation errors are plain errors in the registry,
// which the API server answers as 500s without a reason.
ApiError BindingInvalid(std::string message) {
  return ApiError{.code = 500, .message = std::move(message)};
}

// podutil.UpdatePodCondition with {PodScheduled, True}: the condition is
// replaced; its transition time moves only if its status changes.
void SetPodScheduled(JsonDocument& pod) {
  auto& a = pod.GetAllocator();
  JsonValue& status = EnsureObject(pod, "status", a);
  JsonValue* conditions = MutableMember(status, "conditions");
  if (conditions == nullptr || !conditions->IsArray()) {
    SetMember(status, "conditions", JsonValue(rapidjson::kArrayType), a);
    conditions = MutableMember(status, "conditions");
  }
  JsonValue condition(rapidjson::kObjectType);
  SetString(condition, "type", "PodScheduled", a);
  SetString(condition, "status", "True", a);
  SetMember(condition, "lastProbeTime", JsonValue(rapidjson::kNullType), a);
  std::string transition = Rfc3339Now();
  for (auto& existing : conditions->GetArray()) {
    if (StringAt(existing, {"type"}) != "PodScheduled") continue;
    if (StringAt(existing, {"status"}) == "True") {
      transition = StringAt(existing, {"lastTransitionTime"}, transition);
    }
    SetString(condition, "lastTransitionTime", transition, a);
    existing = std::move(condition);
    return;
  }
  SetString(condition, "lastTransitionTime", transition, a);
  conditions->PushBack(condition, a);
}

}  // namespace

Response Registry::Bind(const Request& request, const ApiPath& path) {
  const ResourceInfo& pods = *path.resource;
  BindingRecord record{.ns = path.ns, .name = path.name};
  auto answer = [&](Response response) {
    record.code = response.code;
    record.at = std::chrono::steady_clock::now();
    RecordBinding(record);
    return response;
  };
  if (auto e = CheckBodyMediaType(request)) {
    return answer(ErrorResponse(*e, request.pretty));
  }
  std::optional<ApiError> dry_run_error;
  const bool dry_run = IsDryRun(request, &dry_run_error);
  if (dry_run_error) {
    return answer(ErrorResponse(*dry_run_error, request.pretty));
  }
  JsonDocument binding;
  std::string error;
  if (!ParseJson(request.body, &binding, &error)) {
    return answer(ErrorResponse(
        BadRequest("couldn't get version/kind; json parse error: " + error),
        request.pretty));
  }
  if (!binding.IsObject()) {
    return answer(ErrorResponse(
        BadRequest("couldn't get version/kind; json parse error: json: "
                   "cannot unmarshal " +
                   JsonTypeName(binding) + " into Go value of type struct"),
        request.pretty));
  }
  const std::string kind = StringAt(binding, {"kind"}, "Binding");
  if (kind != "Binding" || StringAt(binding, {"apiVersion"}, "v1") != "v1") {
    return answer(ErrorResponse(
        BadRequest(kind + " in version \"v1\" cannot be handled as a Binding"),
        request.pretty));
  }
  const JsonValue* target = Member(binding, "target");
  if (target != nullptr && !target->IsObject()) {
    return answer(ErrorResponse(
        BadRequest("Binding in version \"v1\" cannot be handled as a "
                   "Binding: json: cannot unmarshal " +
                   JsonTypeName(*target) +
                   " into Go struct field Binding.target of type "
                   "v1.ObjectReference"),
        request.pretty));
  }
  const std::string node = StringAt(binding, {"target", "name"});
  const std::string target_kind = StringAt(binding, {"target", "kind"});
  const std::string ns = StringAt(binding, {"metadata", "namespace"});
  const std::string name = StringAt(binding, {"metadata", "name"});
  const std::string wanted_uid = StringAt(binding, {"metadata", "uid"});
  const std::string wanted_rv =
      StringAt(binding, {"metadata", "resourceVersion"});
  record.node = node;
  record.uid = wanted_uid;
  if (!ns.empty() && ns != path.ns) {
    return answer(ErrorResponse(
        BadRequest("the namespace of the provided object does not match the "
                   "namespace sent on the request"),
        request.pretty));
  }
  if (name != path.name) {
    return answer(ErrorResponse(
        BadRequest("name in URL does not match name in Binding object"),
        request.pretty));
  }
  if (!target_kind.empty() && target_kind != "Node") {
    return answer(ErrorResponse(
        BindingInvalid("target.kind: Unsupported value: \"" + target_kind +
                       "\": supported values: \"Node\", \"<empty>\""),
        request.pretty));
  }
  if (node.empty()) {
    return answer(ErrorResponse(BindingInvalid("target.name: Required value"),
                                request.pretty));
  }

  const std::string key = StoreKey(pods, path.ns, path.name);
  for (int attempt = 0; attempt < 32; ++attempt) {
    ObjectPtr pod = store_.Get(pods, key);
    if (pod == nullptr) {
      return answer(ErrorResponse(NotFound(pods, path.name), request.pretty));
    }
    record.uid = pod->uid;
    if (!wanted_uid.empty() && wanted_uid != pod->uid) {
      return answer(
          ErrorResponse(PreconditionConflict(pods, path.ns, path.name, "UID",
                                             wanted_uid, pod->uid),
                        request.pretty));
    }
    const std::string rv = std::to_string(pod->rv);
    if (!wanted_rv.empty() && wanted_rv != rv) {
      return answer(
          ErrorResponse(PreconditionConflict(pods, path.ns, path.name,
                                             "ResourceVersion", wanted_rv, rv),
                        request.pretty));
    }
    std::string refusal;
    // Parsed once: the checks read it, and it becomes the bound pod.
    JsonDocument next = pod->Parse();
    auto& a = next.GetAllocator();
    const std::string assigned = StringAt(next, {"spec", "nodeName"});
    const JsonValue* gates = Find(next, {"spec", "schedulingGates"});
    if (Find(next, {"metadata", "deletionTimestamp"}) != nullptr) {
      refusal = "pod " + path.name +
                " is being deleted, cannot be assigned to a host";
    } else if (!assigned.empty()) {
      refusal = "pod " + path.name + " is already assigned to node \"" +
                assigned + "\"";
    } else if (gates != nullptr && gates->IsArray() && !gates->Empty()) {
      refusal = "pod " + path.name + " has non-empty .spec.schedulingGates";
    }
    if (!refusal.empty()) {
      return answer(ErrorResponse(
          Conflict("", "pods/binding", path.name, refusal), request.pretty));
    }
    SetString(EnsureObject(next, "spec", a), "nodeName", node, a);
    // ClearingNominatedNodeNameAfterBinding, on by default from v1.35: the
    // nomination is stale once the pod is bound.
    if (options_.served.minor >= 35) {
      RemoveMember(EnsureObject(next, "status", a), "nominatedNodeName");
    }
    if (const JsonValue* annotations =
            Find(binding, {"metadata", "annotations"});
        annotations != nullptr && annotations->IsObject() &&
        !annotations->ObjectEmpty()) {
      JsonValue& pod_annotations =
          EnsureObject(EnsureObject(next, "metadata", a), "annotations", a);
      for (const auto& m : annotations->GetObject()) {
        SetMember(
            pod_annotations,
            std::string_view(m.name.GetString(), m.name.GetStringLength()),
            JsonValue(m.value, a), a);
      }
    }
    SetPodScheduled(next);
    CanonicalizeOrder(next);
    if (dry_run) {
      return answer(
          Response{.code = 201, .body = SuccessJson(201, request.pretty)});
    }
    // The record is added under its lock before anyone can read it, and
    // the lock is taken before the pod is bound: whoever sees the pod bound
    // and then reads the records finds this one.
    std::unique_lock<std::mutex> recording(bindings_mu_);
    std::optional<ObjectPtr> bound = store_.Commit(pods, key, pod, &next);
    if (bound.has_value()) {
      record.code = 201;
      record.at = std::chrono::steady_clock::now();
      bindings_.push_back(record);
      return Response{.code = 201, .body = SuccessJson(201, request.pretty)};
    }
    recording.unlock();
  }
  return answer(
      ErrorResponse(ConflictModified(pods, path.name), request.pretty));
}

}  // namespace ksched::testing::apiserver
