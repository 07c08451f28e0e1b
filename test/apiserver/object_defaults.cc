#include "test/apiserver/object_defaults.h"

#include <array>
#include <initializer_list>
#include <string_view>

#include "test/apiserver/resources.h"

namespace ksched::testing::apiserver {

namespace {

void Default(JsonValue& object, std::string_view key, JsonValue value,
             JsonAllocator& a) {
  if (Member(object, key) == nullptr) {
    SetMember(object, key, std::move(value), a);
  }
}

void DefaultString(JsonValue& object, std::string_view key,
                   std::string_view value, JsonAllocator& a) {
  Default(object, key, MakeString(value, a), a);
}

// An image without a tag, or tagged latest, is pulled every time.
std::string DefaultPullPolicy(const JsonValue& container) {
  std::string image = StringAt(container, {"image"});
  const size_t digest = image.find('@');
  if (digest != std::string::npos) return "IfNotPresent";
  const size_t slash = image.rfind('/');
  const size_t colon = image.rfind(':');
  if (colon == std::string::npos ||
      (slash != std::string::npos && colon < slash)) {
    return "Always";
  }
  return image.substr(colon + 1) == "latest" ? "Always" : "IfNotPresent";
}

void DefaultContainer(JsonValue& c, bool with_resize_policy, JsonAllocator& a) {
  if (!c.IsObject()) return;
  DefaultString(c, "terminationMessagePath", "/dev/termination-log", a);
  DefaultString(c, "terminationMessagePolicy", "File", a);
  DefaultString(c, "imagePullPolicy", DefaultPullPolicy(c), a);
  JsonValue& resources = EnsureObject(c, "resources", a);
  // Requests default to limits, resource by resource.
  if (const JsonValue* limits = Member(resources, "limits");
      limits != nullptr && limits->IsObject()) {
    JsonValue limits_copy(*limits, a);
    JsonValue& requests = EnsureObject(resources, "requests", a);
    for (auto& m : limits_copy.GetObject()) {
      if (Member(requests, std::string_view(m.name.GetString(),
                                            m.name.GetStringLength())) ==
          nullptr) {
        requests.AddMember(JsonValue(m.name, a), JsonValue(m.value, a), a);
      }
    }
  }
  if (with_resize_policy && Member(c, "resizePolicy") == nullptr) {
    JsonValue policy(rapidjson::kArrayType);
    for (const char* name : {"cpu", "memory"}) {
      JsonValue entry(rapidjson::kObjectType);
      SetString(entry, "resourceName", name, a);
      SetString(entry, "restartPolicy", "NotRequired", a);
      policy.PushBack(entry, a);
    }
    SetMember(c, "resizePolicy", std::move(policy), a);
  }
}

// Condition timestamps are metav1.Time values, which the API always
// writes, as null when unset.
void DefaultConditionTimes(JsonValue& status,
                           std::initializer_list<const char*> fields,
                           JsonAllocator& a) {
  JsonValue* conditions = MutableMember(status, "conditions");
  if (conditions == nullptr || !conditions->IsArray()) return;
  for (auto& c : conditions->GetArray()) {
    if (!c.IsObject()) continue;
    for (const char* field : fields) {
      Default(c, field, JsonValue(rapidjson::kNullType), a);
    }
  }
}

void DefaultPod(JsonDocument& pod) {
  auto& a = pod.GetAllocator();
  JsonValue& spec = EnsureObject(pod, "spec", a);
  for (const char* list : {"containers", "initContainers"}) {
    JsonValue* containers = MutableMember(spec, list);
    if (containers == nullptr || !containers->IsArray()) continue;
    for (auto& c : containers->GetArray()) {
      DefaultContainer(c, std::string_view(list) == "containers", a);
    }
  }
  DefaultString(spec, "restartPolicy", "Always", a);
  Default(spec, "terminationGracePeriodSeconds", JsonValue(30), a);
  DefaultString(spec, "dnsPolicy", "ClusterFirst", a);
  Default(spec, "securityContext", JsonValue(rapidjson::kObjectType), a);
  DefaultString(spec, "schedulerName", "default-scheduler", a);
  Default(spec, "enableServiceLinks", JsonValue(true), a);
  DefaultConditionTimes(EnsureObject(pod, "status", a),
                        {"lastProbeTime", "lastTransitionTime"}, a);
}

void DefaultNode(JsonDocument& node) {
  auto& a = node.GetAllocator();
  EnsureObject(node, "spec", a);
  JsonValue& status = EnsureObject(node, "status", a);
  DefaultConditionTimes(status, {"lastHeartbeatTime", "lastTransitionTime"}, a);
  // Allocatable defaults to capacity.
  if (const JsonValue* capacity = Member(status, "capacity");
      capacity != nullptr && capacity->IsObject() &&
      Member(status, "allocatable") == nullptr) {
    JsonValue copy(*capacity, a);
    SetMember(status, "allocatable", std::move(copy), a);
  }
  JsonValue& endpoints = EnsureObject(status, "daemonEndpoints", a);
  JsonValue& kubelet = EnsureObject(endpoints, "kubeletEndpoint", a);
  Default(kubelet, "Port", JsonValue(0), a);
  JsonValue& info = EnsureObject(status, "nodeInfo", a);
  for (const char* field :
       {"machineID", "systemUUID", "bootID", "kernelVersion", "osImage",
        "containerRuntimeVersion", "kubeletVersion", "kubeProxyVersion",
        "operatingSystem", "architecture"}) {
    DefaultString(info, field, "", a);
  }
}

void DefaultEvent(JsonDocument& event) {
  auto& a = event.GetAllocator();
  Default(event, "eventTime", JsonValue(rapidjson::kNullType), a);
  Default(event, "regarding", JsonValue(rapidjson::kObjectType), a);
  Default(event, "deprecatedSource", JsonValue(rapidjson::kObjectType), a);
  Default(event, "deprecatedFirstTimestamp", JsonValue(rapidjson::kNullType),
          a);
  Default(event, "deprecatedLastTimestamp", JsonValue(rapidjson::kNullType), a);
}

}  // namespace

void ApplyDefaults(const ResourceInfo& resource, JsonDocument& object) {
  auto& a = object.GetAllocator();
  if (!object.IsObject()) return;
  EnsureObject(object, "metadata", a);
  if (resource.is_pod()) {
    DefaultPod(object);
  } else if (resource.is_node()) {
    DefaultNode(object);
  } else if (resource.is_namespace()) {
    JsonValue& spec = EnsureObject(object, "spec", a);
    if (Member(spec, "finalizers") == nullptr) {
      JsonValue finalizers(rapidjson::kArrayType);
      finalizers.PushBack(MakeString("kubernetes", a), a);
      SetMember(spec, "finalizers", std::move(finalizers), a);
    }
    EnsureObject(object, "status", a);
  } else if (resource.resource == "events") {
    DefaultEvent(object);
  } else if (resource.resource == "leases") {
    EnsureObject(object, "spec", a);
  } else if (resource.resource == "persistentvolumeclaims") {
    JsonValue& spec = EnsureObject(object, "spec", a);
    DefaultString(spec, "volumeMode", "Filesystem", a);
    EnsureObject(object, "status", a);
  } else if (resource.resource == "persistentvolumes") {
    JsonValue& spec = EnsureObject(object, "spec", a);
    DefaultString(spec, "persistentVolumeReclaimPolicy", "Retain", a);
    DefaultString(spec, "volumeMode", "Filesystem", a);
    EnsureObject(object, "status", a);
  } else if (resource.resource == "storageclasses") {
    DefaultString(object, "reclaimPolicy", "Delete", a);
    DefaultString(object, "volumeBindingMode", "Immediate", a);
  } else if (resource.resource == "csidrivers") {
    // storage/v1 SetDefaults_CSIDriver.
    JsonValue& spec = EnsureObject(object, "spec", a);
    Default(spec, "attachRequired", JsonValue(true), a);
    Default(spec, "podInfoOnMount", JsonValue(false), a);
    Default(spec, "storageCapacity", JsonValue(false), a);
    DefaultString(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType", a);
    if (Member(spec, "volumeLifecycleModes") == nullptr) {
      JsonValue modes(rapidjson::kArrayType);
      modes.PushBack(MakeString("Persistent", a), a);
      SetMember(spec, "volumeLifecycleModes", std::move(modes), a);
    }
    Default(spec, "requiresRepublish", JsonValue(false), a);
    Default(spec, "seLinuxMount", JsonValue(false), a);
  } else if (resource.resource == "volumeattachments") {
    JsonValue& status = EnsureObject(object, "status", a);
    Default(status, "attached", JsonValue(false), a);
  } else if (resource.resource == "priorityclasses") {
    DefaultString(object, "preemptionPolicy", "PreemptLowerPriority", a);
  } else if (resource.resource == "poddisruptionbudgets") {
    EnsureObject(object, "spec", a);
    JsonValue& status = EnsureObject(object, "status", a);
    for (const char* field : {"disruptionsAllowed", "currentHealthy",
                              "desiredHealthy", "expectedPods"}) {
      Default(status, field, JsonValue(0), a);
    }
  }
}

void PrepareForCreate(const ResourceInfo& resource, JsonDocument& object) {
  auto& a = object.GetAllocator();
  if (resource.is_pod()) {
    JsonValue status(rapidjson::kObjectType);
    SetString(status, "phase", "Pending", a);
    SetString(status, "qosClass", PodQosClass(object), a);
    SetMember(object, "status", std::move(status), a);
  } else if (resource.is_namespace()) {
    JsonValue& status = EnsureObject(object, "status", a);
    SetString(status, "phase", "Active", a);
    JsonValue& metadata = EnsureObject(object, "metadata", a);
    JsonValue& labels = EnsureObject(metadata, "labels", a);
    SetString(labels, "kubernetes.io/metadata.name",
              StringAt(object, {"metadata", "name"}), a);
  } else if (resource.resource == "persistentvolumeclaims" ||
             resource.resource == "persistentvolumes") {
    JsonValue status(rapidjson::kObjectType);
    SetString(status, "phase", "Pending", a);
    SetMember(object, "status", std::move(status), a);
  }
}

std::string PodQosClass(const JsonValue& pod) {
  bool any_setting = false;
  bool guaranteed = true;
  const JsonValue* spec = Member(pod, "spec");
  for (const char* list : {"containers", "initContainers"}) {
    const JsonValue* containers = spec ? Member(*spec, list) : nullptr;
    if (containers == nullptr || !containers->IsArray()) continue;
    for (const auto& c : containers->GetArray()) {
      const JsonValue* requests = Find(c, {"resources", "requests"});
      const JsonValue* limits = Find(c, {"resources", "limits"});
      for (const char* name : {"cpu", "memory"}) {
        const JsonValue* req = requests ? Member(*requests, name) : nullptr;
        const JsonValue* lim = limits ? Member(*limits, name) : nullptr;
        if (req != nullptr || lim != nullptr) any_setting = true;
        if (lim == nullptr || req == nullptr || !(*req == *lim)) {
          guaranteed = false;
        }
      }
    }
  }
  if (!any_setting) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

void CanonicalizeOrder(JsonDocument& object) {
  if (!object.IsObject()) return;
  auto& a = object.GetAllocator();
  static constexpr std::array<std::string_view, 15> kMetadataOrder = {
      "name",
      "generateName",
      "namespace",
      "selfLink",
      "uid",
      "resourceVersion",
      "generation",
      "creationTimestamp",
      "deletionTimestamp",
      "deletionGracePeriodSeconds",
      "labels",
      "annotations",
      "ownerReferences",
      "finalizers",
      "managedFields"};
  JsonValue* metadata = MutableMember(object, "metadata");
  if (metadata != nullptr && metadata->IsObject()) {
    JsonValue ordered(rapidjson::kObjectType);
    for (std::string_view key : kMetadataOrder) {
      if (JsonValue* v = MutableMember(*metadata, key)) {
        ordered.AddMember(MakeString(key, a), std::move(*v), a);
      }
    }
    for (auto& m : metadata->GetObject()) {
      std::string_view key(m.name.GetString(), m.name.GetStringLength());
      bool known = false;
      for (std::string_view k : kMetadataOrder) known = known || k == key;
      if (!known) ordered.AddMember(std::move(m.name), std::move(m.value), a);
    }
    *metadata = std::move(ordered);
  }
  // metadata first; the rest keeps its order.
  JsonValue top(rapidjson::kObjectType);
  if (JsonValue* m = MutableMember(object, "metadata")) {
    top.AddMember("metadata", std::move(*m), a);
  }
  for (auto& m : object.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (key == "metadata") continue;
    top.AddMember(std::move(m.name), std::move(m.value), a);
  }
  static_cast<JsonValue&>(object) = std::move(top);
}

}  // namespace ksched::testing::apiserver
