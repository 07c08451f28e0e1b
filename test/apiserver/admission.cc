#include "test/apiserver/admission.h"

#include "test/apiserver/resources.h"

namespace ksched::testing::apiserver {

namespace {

const ResourceInfo& Namespaces() {
  return *FindResource("", "v1", "namespaces");
}
const ResourceInfo& PriorityClasses() {
  return *FindResource("scheduling.k8s.io", "v1", "priorityclasses");
}

// Whether `object` may have a member named `key` (one with no character
// JSON escapes) at any depth. The stored text spells such a key verbatim,
// so one that is not in the text is not in the object: every create checks
// the namespace and scans the priority classes, and this spares parsing
// them when they plainly lack the field.
bool MayHaveKey(const StoredObject& object, std::string_view key) {
  const std::string quoted = "\"" + std::string(key) + "\":";
  return object.json.find(quoted) != std::string::npos;
}

std::optional<ApiError> AdmitNamespace(const ResourceInfo& resource,
                                       const JsonValue& object,
                                       const ObjectStore& store) {
  const std::string ns = StringAt(object, {"metadata", "namespace"});
  ObjectPtr namespace_object = store.Get(Namespaces(), ns);
  if (namespace_object == nullptr) return NotFound(Namespaces(), ns);
  if (MayHaveKey(*namespace_object, "deletionTimestamp") &&
      Find(namespace_object->Parse(), {"metadata", "deletionTimestamp"}) !=
          nullptr) {
    return Forbidden(resource, StringAt(object, {"metadata", "name"}),
                     "unable to create new content in namespace " + ns +
                         " because it is being terminated");
  }
  return std::nullopt;
}

std::optional<ApiError> AdmitPriority(const ResourceInfo& pods,
                                      JsonDocument& pod,
                                      const ObjectStore& store) {
  auto& a = pod.GetAllocator();
  JsonValue& spec = EnsureObject(pod, "spec", a);
  const std::string name = StringAt(pod, {"metadata", "name"});
  std::string class_name = StringAt(spec, {"priorityClassName"});
  ObjectPtr priority_class;
  if (class_name.empty()) {
    for (const ObjectPtr& pc : store.Snapshot(PriorityClasses())) {
      if (!MayHaveKey(*pc, "globalDefault")) continue;
      const JsonDocument pc_doc = pc->Parse();
      const JsonValue* global = Member(pc_doc, "globalDefault");
      if (global != nullptr && global->IsBool() && global->GetBool()) {
        priority_class = pc;
        class_name = pc->name;
      }
    }
  } else {
    priority_class = store.Get(PriorityClasses(), class_name);
    if (priority_class == nullptr) {
      return Forbidden(
          pods, name,
          "no PriorityClass with name " + class_name + " was found");
    }
  }
  int64_t priority = 0;
  std::string policy = "PreemptLowerPriority";
  if (priority_class != nullptr) {
    const JsonDocument pc_doc = priority_class->Parse();
    priority = IntAt(pc_doc, {"value"}).value_or(0);
    policy = StringAt(pc_doc, {"preemptionPolicy"}, policy);
    SetString(spec, "priorityClassName", class_name, a);
  }
  if (std::optional<int64_t> given = IntAt(spec, {"priority"});
      given.has_value() && *given != priority) {
    return Forbidden(
        pods, name,
        "the integer value of priority (" + std::to_string(*given) +
            ") must not be provided in pod spec; priority "
            "admission controller computed " +
            std::to_string(priority) + " from the given PriorityClass name");
  }
  SetMember(spec, "priority", JsonValue(static_cast<int64_t>(priority)), a);
  if (Member(spec, "preemptionPolicy") == nullptr) {
    SetString(spec, "preemptionPolicy", policy, a);
  }
  return std::nullopt;
}

// Pods tolerate not-ready and unreachable nodes for 300s unless they say
// otherwise.
void AddDefaultTolerations(JsonDocument& pod) {
  auto& a = pod.GetAllocator();
  JsonValue& spec = EnsureObject(pod, "spec", a);
  JsonValue* tolerations = MutableMember(spec, "tolerations");
  if (tolerations == nullptr || !tolerations->IsArray()) {
    SetMember(spec, "tolerations", JsonValue(rapidjson::kArrayType), a);
    tolerations = MutableMember(spec, "tolerations");
  }
  for (const char* taint :
       {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    bool tolerated = false;
    for (const auto& t : tolerations->GetArray()) {
      const std::string key = StringAt(t, {"key"});
      const std::string effect = StringAt(t, {"effect"});
      const std::string op = StringAt(t, {"operator"});
      if ((key == taint || (key.empty() && op == "Exists")) &&
          (effect.empty() || effect == "NoExecute")) {
        tolerated = true;
      }
    }
    if (tolerated) continue;
    JsonValue t(rapidjson::kObjectType);
    SetString(t, "key", taint, a);
    SetString(t, "operator", "Exists", a);
    SetString(t, "effect", "NoExecute", a);
    SetMember(t, "tolerationSeconds", JsonValue(300), a);
    tolerations->PushBack(t, a);
  }
}

}  // namespace

std::optional<ApiError> AdmitCreate(const ResourceInfo& resource,
                                    JsonDocument& object,
                                    const ObjectStore& store) {
  if (resource.namespaced) {
    if (auto denied = AdmitNamespace(resource, object, store)) return denied;
  }
  if (!resource.is_pod()) return std::nullopt;
  if (auto denied = AdmitPriority(resource, object, store)) return denied;
  AddDefaultTolerations(object);
  auto& a = object.GetAllocator();
  JsonValue& spec = EnsureObject(object, "spec", a);
  std::string account = StringAt(spec, {"serviceAccountName"});
  if (account.empty()) account = StringAt(spec, {"serviceAccount"}, "default");
  SetString(spec, "serviceAccountName", account, a);
  SetString(spec, "serviceAccount", account, a);
  return std::nullopt;
}

}  // namespace ksched::testing::apiserver
