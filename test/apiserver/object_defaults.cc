#include "test/apiserver/object_defaults.h"

#include <array>
#include <initializer_list>
#include <map>
#include <set>
#include <string_view>

#include "test/apiserver/dra_objects.h"
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
  if (JsonValue* ports = MutableMember(c, "ports");
      ports != nullptr && ports->IsArray()) {
    for (auto& port : ports->GetArray()) {
      if (port.IsObject()) DefaultString(port, "protocol", "TCP", a);
    }
  }
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
  // v1.32 (InPlacePodVerticalScaling on, as on the recorded server): each
  // of cpu and memory a container requests gets a resize policy, unless it
  // has one.
  const JsonValue* requests = Find(c, {"resources", "requests"});
  if (with_resize_policy && requests != nullptr && requests->IsObject()) {
    JsonValue* policy = MutableMember(c, "resizePolicy");
    if (policy == nullptr || !policy->IsArray()) {
      SetMember(c, "resizePolicy", JsonValue(rapidjson::kArrayType), a);
      policy = MutableMember(c, "resizePolicy");
    }
    for (const char* name : {"cpu", "memory"}) {
      if (Member(*requests, name) == nullptr) continue;
      bool given = false;
      for (const auto& p : policy->GetArray()) {
        given = given || StringAt(p, {"resourceName"}) == name;
      }
      if (given) continue;
      JsonValue entry(rapidjson::kObjectType);
      SetString(entry, "resourceName", name, a);
      SetString(entry, "restartPolicy", "NotRequired", a);
      policy->PushBack(entry, a);
    }
    if (policy->Empty()) RemoveMember(c, "resizePolicy");
  }
}

// The fields of a ContainerStatus Go always writes (its state structs and
// the counters without omitempty).
void DefaultContainerStatus(JsonValue& status, JsonAllocator& a) {
  if (!status.IsObject()) return;
  Default(status, "state", JsonValue(rapidjson::kObjectType), a);
  Default(status, "lastState", JsonValue(rapidjson::kObjectType), a);
  Default(status, "ready", JsonValue(false), a);
  Default(status, "restartCount", JsonValue(0), a);
  DefaultString(status, "image", "", a);
  DefaultString(status, "imageID", "", a);
}

bool IsPodLevelResource(std::string_view name) {
  return name == "cpu" || name == "memory" || name.starts_with("hugepages-");
}

// defaultPodRequests, where no arithmetic is needed: a resource with a
// pod-level limit and no request, that no container requests either, is
// requested at its limit. (Where containers request it, kube sums their
// effective requests; not done here.)
void DefaultPodLevelRequests(JsonValue& spec, JsonAllocator& a) {
  JsonValue* resources = MutableMember(spec, "resources");
  if (resources == nullptr || !resources->IsObject()) return;
  const JsonValue* limits = Member(*resources, "limits");
  if (limits == nullptr || !limits->IsObject() || limits->ObjectEmpty()) {
    return;
  }
  auto containers_request = [&spec](std::string_view name) {
    for (const char* list : {"containers", "initContainers"}) {
      const JsonValue* containers = Member(spec, list);
      if (containers == nullptr || !containers->IsArray()) continue;
      for (const auto& c : containers->GetArray()) {
        const JsonValue* requests = Find(c, {"resources", "requests"});
        if (requests != nullptr && Member(*requests, name) != nullptr) {
          return true;
        }
      }
    }
    return false;
  };
  JsonValue limits_copy(*limits, a);
  for (auto& m : limits_copy.GetObject()) {
    const std::string_view name(m.name.GetString(), m.name.GetStringLength());
    if (!IsPodLevelResource(name) || containers_request(name)) continue;
    JsonValue& requests = EnsureObject(*resources, "requests", a);
    if (Member(requests, name) == nullptr) {
      requests.AddMember(JsonValue(m.name, a), JsonValue(m.value, a), a);
    }
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

void DefaultPod(JsonDocument& pod, int kube_minor) {
  auto& a = pod.GetAllocator();
  JsonValue& spec = EnsureObject(pod, "spec", a);
  for (const char* list : {"containers", "initContainers"}) {
    JsonValue* containers = MutableMember(spec, list);
    if (containers == nullptr || !containers->IsArray()) continue;
    for (auto& c : containers->GetArray()) {
      DefaultContainer(
          c, std::string_view(list) == "containers" && kube_minor < 33, a);
    }
  }
  if (kube_minor >= 34) DefaultPodLevelRequests(spec, a);
  DefaultString(spec, "restartPolicy", "Always", a);
  Default(spec, "terminationGracePeriodSeconds", JsonValue(30), a);
  DefaultString(spec, "dnsPolicy", "ClusterFirst", a);
  Default(spec, "securityContext", JsonValue(rapidjson::kObjectType), a);
  DefaultString(spec, "schedulerName", "default-scheduler", a);
  Default(spec, "enableServiceLinks", JsonValue(true), a);
  JsonValue& status = EnsureObject(pod, "status", a);
  DefaultConditionTimes(status, {"lastProbeTime", "lastTransitionTime"}, a);
  for (const char* list : {"containerStatuses", "initContainerStatuses",
                           "ephemeralContainerStatuses"}) {
    JsonValue* statuses = MutableMember(status, list);
    if (statuses == nullptr || !statuses->IsArray()) continue;
    for (auto& c : statuses->GetArray()) DefaultContainerStatus(c, a);
  }
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

void ApplyDefaults(const ResourceInfo& resource, JsonDocument& object,
                   int kube_minor) {
  auto& a = object.GetAllocator();
  if (!object.IsObject()) return;
  EnsureObject(object, "metadata", a);
  if (resource.is_pod()) {
    DefaultPod(object, kube_minor);
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
  } else if (IsDraResource(resource)) {
    ApplyDraDefaults(resource, object, kube_minor);
  } else if (resource.resource == "poddisruptionbudgets") {
    EnsureObject(object, "spec", a);
    JsonValue& status = EnsureObject(object, "status", a);
    for (const char* field : {"disruptionsAllowed", "currentHealthy",
                              "desiredHealthy", "expectedPods"}) {
      Default(status, field, JsonValue(0), a);
    }
  }
}

void PrepareForCreate(const ResourceInfo& resource, JsonDocument& object,
                      int kube_minor) {
  auto& a = object.GetAllocator();
  if (resource.is_pod()) {
    const bool pod_level = kube_minor >= 34;
    if (!pod_level) RemoveMember(EnsureObject(object, "spec", a), "resources");
    if (pod_level) {
      SetMember(EnsureObject(object, "metadata", a), "generation", JsonValue(1),
                a);
    }
    JsonValue status(rapidjson::kObjectType);
    SetString(status, "phase", "Pending", a);
    SetString(status, "qosClass", PodQosClass(object, pod_level), a);
    SetMember(object, "status", std::move(status), a);
  } else if (resource.is_namespace()) {
    JsonValue& status = EnsureObject(object, "status", a);
    SetString(status, "phase", "Active", a);
    JsonValue& metadata = EnsureObject(object, "metadata", a);
    JsonValue& labels = EnsureObject(metadata, "labels", a);
    SetString(labels, "kubernetes.io/metadata.name",
              StringAt(object, {"metadata", "name"}), a);
  } else if (IsDraResource(resource)) {
    PrepareDraForCreate(resource, object);
  } else if (resource.resource == "persistentvolumeclaims" ||
             resource.resource == "persistentvolumes") {
    JsonValue status(rapidjson::kObjectType);
    SetString(status, "phase", "Pending", a);
    SetMember(object, "status", std::move(status), a);
  }
}

void PrepareForUpdate(const ResourceInfo& resource, const JsonValue& previous,
                      JsonDocument& next, int kube_minor) {
  if (IsDraResource(resource)) PrepareDraForUpdate(resource, previous, next);
  if (!resource.is_pod()) return;
  auto& a = next.GetAllocator();
  JsonValue& spec = EnsureObject(next, "spec", a);
  const JsonValue* old_spec = Member(previous, "spec");
  if (kube_minor < 34) {
    // dropDisabledPodLevelResources: kept only where already in use.
    if (old_spec == nullptr || Member(*old_spec, "resources") == nullptr) {
      RemoveMember(spec, "resources");
    }
    return;
  }
  // updatePodGeneration.
  if (old_spec == nullptr || !(*old_spec == spec)) {
    const int64_t generation =
        IntAt(previous, {"metadata", "generation"}).value_or(0);
    SetMember(EnsureObject(next, "metadata", a), "generation",
              JsonValue(static_cast<int64_t>(generation + 1)), a);
  }
}

std::optional<long double> QuantityValue(const JsonValue& quantity) {
  if (quantity.IsNumber()) return quantity.GetDouble();
  if (!quantity.IsString()) return std::nullopt;
  const std::string text = quantity.GetString();
  size_t end = 0;
  long double number = 0;
  try {
    number = std::stold(text, &end);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  // stold reads an exponent ("1e3") itself; what is left is the suffix.
  const std::string_view suffix = std::string_view(text).substr(end);
  static const std::pair<std::string_view, long double> kSuffixes[] = {
      {"", 1},
      {"n", 1e-9L},
      {"u", 1e-6L},
      {"m", 1e-3L},
      {"k", 1e3L},
      {"M", 1e6L},
      {"G", 1e9L},
      {"T", 1e12L},
      {"P", 1e15L},
      {"E", 1e18L},
      {"Ki", 1024.0L},
      {"Mi", 1024.0L * 1024},
      {"Gi", 1024.0L * 1024 * 1024},
      {"Ti", 1024.0L * 1024 * 1024 * 1024},
      {"Pi", 1024.0L * 1024 * 1024 * 1024 * 1024},
      {"Ei", 1024.0L * 1024 * 1024 * 1024 * 1024 * 1024}};
  for (const auto& [s, factor] : kSuffixes) {
    if (suffix == s) return number * factor;
  }
  return std::nullopt;
}

namespace {

// processResourceList: adds the positive cpu and memory quantities of
// `list` into `sums`.
void AddQosResources(const JsonValue* list,
                     std::map<std::string, long double>& sums,
                     std::set<std::string>* positive = nullptr) {
  if (list == nullptr || !list->IsObject()) return;
  for (const auto& m : list->GetObject()) {
    const std::string name = m.name.GetString();
    if (name != "cpu" && name != "memory") continue;
    const std::optional<long double> value = QuantityValue(m.value);
    if (!value || *value <= 0) continue;
    sums[name] += *value;
    if (positive != nullptr) positive->insert(name);
  }
}

bool HasCpuAndMemory(const std::set<std::string>& names) {
  return names.contains("cpu") && names.contains("memory");
}

}  // namespace

std::string PodQosClass(const JsonValue& pod, bool pod_level) {
  std::map<std::string, long double> requests;
  std::map<std::string, long double> limits;
  bool guaranteed = true;
  const JsonValue* spec = Member(pod, "spec");
  const JsonValue* pod_resources =
      spec != nullptr ? Member(*spec, "resources") : nullptr;
  if (pod_level && pod_resources != nullptr && pod_resources->IsObject()) {
    AddQosResources(Member(*pod_resources, "requests"), requests);
    const JsonValue* pod_limits = Member(*pod_resources, "limits");
    if (pod_limits != nullptr && pod_limits->IsObject() &&
        !pod_limits->ObjectEmpty()) {
      std::set<std::string> positive;
      AddQosResources(pod_limits, limits, &positive);
      guaranteed = HasCpuAndMemory(positive);
    }
  } else {
    for (const char* list : {"containers", "initContainers"}) {
      const JsonValue* containers = spec ? Member(*spec, list) : nullptr;
      if (containers == nullptr || !containers->IsArray()) continue;
      for (const auto& c : containers->GetArray()) {
        AddQosResources(Find(c, {"resources", "requests"}), requests);
        std::set<std::string> positive;
        AddQosResources(Find(c, {"resources", "limits"}), limits, &positive);
        guaranteed = guaranteed && HasCpuAndMemory(positive);
      }
    }
  }
  if (requests.empty() && limits.empty()) return "BestEffort";
  if (guaranteed) {
    for (const auto& [name, request] : requests) {
      auto it = limits.find(name);
      if (it == limits.end() || it->second != request) guaranteed = false;
    }
  }
  return guaranteed && requests.size() == limits.size() ? "Guaranteed"
                                                        : "Burstable";
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
