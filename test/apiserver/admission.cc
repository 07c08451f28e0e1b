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

bool IsMirrorPod(const JsonValue& pod) {
  return Find(pod, {"metadata", "annotations",
                    "kubernetes.io/config.mirror"}) != nullptr;
}

constexpr std::string_view kTokenVolumePrefix = "kube-api-access-";
constexpr std::string_view kTokenMountPath =
    "/var/run/secrets/kubernetes.io/serviceaccount";

// The projected volume ServiceAccount admission gives a pod: the bound
// token, the cluster's CA, the namespace and the service CA, as the
// recorded kube-apiserver's admission writes it (defaultMode 0644).
JsonValue TokenVolume(std::string_view name, JsonAllocator& a) {
  JsonDocument source;
  source.Parse(
      R"({"projected":{"sources":[)"
      R"({"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},)"
      R"({"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},)"
      R"({"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}},)"
      R"({"configMap":{"name":"openshift-service-ca.crt","items":[{"key":"service-ca.crt","path":"service-ca.crt"}]}}],)"
      R"("defaultMode":420}})");
  JsonValue volume(rapidjson::kObjectType);
  SetString(volume, "name", name, a);
  SetMember(volume, "projected", JsonValue(source["projected"], a), a);
  return volume;
}

JsonValue& EnsureArray(JsonValue& object, std::string_view key,
                       JsonAllocator& a) {
  JsonValue* array = MutableMember(object, key);
  if (array == nullptr || !array->IsArray()) {
    SetMember(object, key, JsonValue(rapidjson::kArrayType), a);
    array = MutableMember(object, key);
  }
  return *array;
}

// ServiceAccount admission's token mount: unless the pod opts out
// (automountServiceAccountToken: false), every
// container without a mount at the token path gets one of the pod's
// kube-api-access-* volume, added with a fresh name when it has none.
void MountServiceAccountToken(JsonDocument& pod, IdSource& ids) {
  auto& a = pod.GetAllocator();
  JsonValue& spec = EnsureObject(pod, "spec", a);
  const JsonValue* automount = Member(spec, "automountServiceAccountToken");
  if (automount != nullptr && automount->IsBool() && !automount->GetBool()) {
    return;
  }
  std::string volume_name;
  if (const JsonValue* volumes = Member(spec, "volumes");
      volumes != nullptr && volumes->IsArray()) {
    for (const JsonValue& v : volumes->GetArray()) {
      const std::string name = StringAt(v, {"name"});
      if (name.starts_with(kTokenVolumePrefix)) {
        volume_name = name;
        break;
      }
    }
  }
  const bool has_volume = !volume_name.empty();
  if (!has_volume)
    volume_name = std::string(kTokenVolumePrefix) + ids.NameSuffix();
  bool needs_volume = false;
  for (const char* list : {"initContainers", "containers"}) {
    JsonValue* containers = MutableMember(spec, list);
    if (containers == nullptr || !containers->IsArray()) continue;
    for (JsonValue& c : containers->GetArray()) {
      if (!c.IsObject()) continue;
      JsonValue& mounts = EnsureArray(c, "volumeMounts", a);
      bool mounted = false;
      for (const JsonValue& m : mounts.GetArray()) {
        if (StringAt(m, {"mountPath"}) == kTokenMountPath) mounted = true;
      }
      if (mounted) continue;
      JsonValue mount(rapidjson::kObjectType);
      SetString(mount, "name", volume_name, a);
      SetMember(mount, "readOnly", JsonValue(true), a);
      SetString(mount, "mountPath", kTokenMountPath, a);
      mounts.PushBack(mount, a);
      needs_volume = true;
    }
  }
  if (!has_volume && needs_volume) {
    EnsureArray(spec, "volumes", a).PushBack(TokenVolume(volume_name, a), a);
  }
}

}  // namespace

std::optional<ApiError> AdmitCreate(const ResourceInfo& resource,
                                    JsonDocument& object,
                                    const ObjectStore& store,
                                    const AdmissionOptions& options,
                                    IdSource& ids) {
  if (resource.namespaced) {
    if (auto denied = AdmitNamespace(resource, object, store)) return denied;
  }
  if (!resource.is_pod()) return std::nullopt;
  if (auto denied = AdmitPriority(resource, object, store)) return denied;
  AddDefaultTolerations(object);
  auto& a = object.GetAllocator();
  JsonValue& spec = EnsureObject(object, "spec", a);
  std::string account = StringAt(spec, {"serviceAccountName"});
  if (account.empty()) account = StringAt(spec, {"serviceAccount"});
  if (IsMirrorPod(object)) {
    // A kubelet's static pod: no account given, none may be named.
    if (!account.empty()) {
      return Forbidden(resource, StringAt(object, {"metadata", "name"}),
                       "a mirror pod may not reference service accounts");
    }
    return std::nullopt;
  }
  if (account.empty()) account = "default";
  SetString(spec, "serviceAccountName", account, a);
  SetString(spec, "serviceAccount", account, a);
  if (options.mount_service_account_token) {
    MountServiceAccountToken(object, ids);
  }
  return std::nullopt;
}

}  // namespace ksched::testing::apiserver
