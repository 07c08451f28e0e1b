#include "test/apiserver/validation.h"

#include <regex>

#include "test/apiserver/dra_objects.h"
#include "test/apiserver/object_defaults.h"
#include "test/apiserver/resources.h"

namespace ksched::testing::apiserver {

namespace {

// One typed field: where it is ("*" walks every element of an array or
// value of a map), what JSON it must be, and the Go type a message names.
enum class Expect { kObject, kArray, kString, kBool, kInteger, kQuantity };
struct FieldType {
  std::vector<std::string> path;
  Expect expect;
  const char* go_type;
};

const std::vector<FieldType>& CommonFields() {
  static const std::vector<FieldType>* const kFields =
      new std::vector<FieldType>{
          {{"metadata"}, Expect::kObject, "v1.ObjectMeta"},
          {{"metadata", "name"}, Expect::kString, "string"},
          {{"metadata", "generateName"}, Expect::kString, "string"},
          {{"metadata", "namespace"}, Expect::kString, "string"},
          {{"metadata", "uid"}, Expect::kString, "types.UID"},
          {{"metadata", "resourceVersion"}, Expect::kString, "string"},
          {{"metadata", "labels"}, Expect::kObject, "map[string]string"},
          {{"metadata", "labels", "*"}, Expect::kString, "string"},
          {{"metadata", "annotations"}, Expect::kObject, "map[string]string"},
          {{"metadata", "annotations", "*"}, Expect::kString, "string"},
          {{"metadata", "finalizers"}, Expect::kArray, "[]string"},
          {{"metadata", "finalizers", "*"}, Expect::kString, "string"},
          {{"metadata", "ownerReferences"},
           Expect::kArray,
           "[]v1.OwnerReference"},
      };
  return *kFields;
}

const std::vector<FieldType>& KindFields(const ResourceInfo& r) {
  static const std::vector<FieldType>* const kNone =
      new std::vector<FieldType>{};
  static const std::vector<FieldType>* const kPod = new std::vector<FieldType>{
      {{"spec"}, Expect::kObject, "v1.PodSpec"},
      {{"status"}, Expect::kObject, "v1.PodStatus"},
      {{"spec", "nodeName"}, Expect::kString, "string"},
      {{"spec", "schedulerName"}, Expect::kString, "string"},
      {{"spec", "priorityClassName"}, Expect::kString, "string"},
      {{"spec", "priority"}, Expect::kInteger, "int32"},
      {{"spec", "nodeSelector"}, Expect::kObject, "map[string]string"},
      {{"spec", "nodeSelector", "*"}, Expect::kString, "string"},
      {{"spec", "tolerations"}, Expect::kArray, "[]v1.Toleration"},
      {{"spec", "tolerations", "*"}, Expect::kObject, "v1.Toleration"},
      {{"spec", "affinity"}, Expect::kObject, "v1.Affinity"},
      {{"spec", "containers"}, Expect::kArray, "[]v1.Container"},
      {{"spec", "containers", "*"}, Expect::kObject, "v1.Container"},
      {{"spec", "containers", "*", "name"}, Expect::kString, "string"},
      {{"spec", "containers", "*", "image"}, Expect::kString, "string"},
      {{"spec", "containers", "*", "resources"},
       Expect::kObject,
       "v1.ResourceRequirements"},
      {{"spec", "containers", "*", "resources", "requests"},
       Expect::kObject,
       "v1.ResourceList"},
      {{"spec", "containers", "*", "resources", "requests", "*"},
       Expect::kQuantity,
       "resource.Quantity"},
      {{"spec", "containers", "*", "resources", "limits"},
       Expect::kObject,
       "v1.ResourceList"},
      {{"spec", "containers", "*", "resources", "limits", "*"},
       Expect::kQuantity,
       "resource.Quantity"},
      {{"spec", "initContainers"}, Expect::kArray, "[]v1.Container"},
      {{"spec", "initContainers", "*"}, Expect::kObject, "v1.Container"},
      {{"spec", "initContainers", "*", "resources", "requests", "*"},
       Expect::kQuantity,
       "resource.Quantity"},
      {{"spec", "initContainers", "*", "resources", "limits", "*"},
       Expect::kQuantity,
       "resource.Quantity"},
      // Pod-level resources (spec.resources) and what a kubelet reports of
      // each container's resources (allocated, and in use after a resize).
      {{"spec", "resources"}, Expect::kObject, "v1.ResourceRequirements"},
      {{"spec", "resources", "requests"}, Expect::kObject, "v1.ResourceList"},
      {{"spec", "resources", "requests", "*"},
       Expect::kQuantity,
       "resource.Quantity"},
      {{"spec", "resources", "limits"}, Expect::kObject, "v1.ResourceList"},
      {{"spec", "resources", "limits", "*"},
       Expect::kQuantity,
       "resource.Quantity"},
      {{"status", "containerStatuses"}, Expect::kArray, "[]v1.ContainerStatus"},
      {{"status", "containerStatuses", "*"},
       Expect::kObject,
       "v1.ContainerStatus"},
      {{"status", "containerStatuses", "*", "allocatedResources"},
       Expect::kObject,
       "v1.ResourceList"},
      {{"status", "containerStatuses", "*", "allocatedResources", "*"},
       Expect::kQuantity,
       "resource.Quantity"},
      {{"status", "containerStatuses", "*", "resources"},
       Expect::kObject,
       "v1.ResourceRequirements"},
      {{"status", "containerStatuses", "*", "resources", "requests", "*"},
       Expect::kQuantity,
       "resource.Quantity"},
      {{"status", "containerStatuses", "*", "resources", "limits", "*"},
       Expect::kQuantity,
       "resource.Quantity"},
      {{"status", "phase"}, Expect::kString, "v1.PodPhase"},
      {{"status", "conditions"}, Expect::kArray, "[]v1.PodCondition"},
      {{"status", "conditions", "*"}, Expect::kObject, "v1.PodCondition"},
      {{"status", "conditions", "*", "type"},
       Expect::kString,
       "v1.PodConditionType"},
      {{"status", "conditions", "*", "status"},
       Expect::kString,
       "v1.ConditionStatus"},
  };
  static const std::vector<FieldType>* const kNode = new std::vector<FieldType>{
      {{"spec"}, Expect::kObject, "v1.NodeSpec"},
      {{"status"}, Expect::kObject, "v1.NodeStatus"},
      {{"spec", "unschedulable"}, Expect::kBool, "bool"},
      {{"spec", "taints"}, Expect::kArray, "[]v1.Taint"},
      {{"spec", "taints", "*"}, Expect::kObject, "v1.Taint"},
      {{"status", "capacity"}, Expect::kObject, "v1.ResourceList"},
      {{"status", "capacity", "*"}, Expect::kQuantity, "resource.Quantity"},
      {{"status", "allocatable"}, Expect::kObject, "v1.ResourceList"},
      {{"status", "allocatable", "*"}, Expect::kQuantity, "resource.Quantity"},
      {{"status", "conditions"}, Expect::kArray, "[]v1.NodeCondition"},
  };
  static const std::vector<FieldType>* const kLease =
      new std::vector<FieldType>{
          {{"spec"}, Expect::kObject, "v1.LeaseSpec"},
          {{"spec", "holderIdentity"}, Expect::kString, "string"},
          {{"spec", "leaseDurationSeconds"}, Expect::kInteger, "int32"},
          {{"spec", "leaseTransitions"}, Expect::kInteger, "int32"},
      };
  static const std::vector<FieldType>* const kEvent =
      new std::vector<FieldType>{
          {{"regarding"}, Expect::kObject, "v1.ObjectReference"},
          {{"note"}, Expect::kString, "string"},
          {{"reason"}, Expect::kString, "string"},
          {{"type"}, Expect::kString, "string"},
          {{"action"}, Expect::kString, "string"},
          {{"reportingController"}, Expect::kString, "string"},
          {{"reportingInstance"}, Expect::kString, "string"},
      };
  if (r.is_pod()) return *kPod;
  if (r.is_node()) return *kNode;
  if (r.resource == "leases") return *kLease;
  if (r.resource == "events") return *kEvent;
  return *kNone;
}

bool IsQuantity(const JsonValue& v) {
  if (v.IsNumber()) return true;
  if (!v.IsString()) return false;
  static const std::regex* const kQuantity =
      new std::regex("^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$");
  return std::regex_match(v.GetString(), *kQuantity);
}

bool Matches(const JsonValue& v, Expect expect) {
  switch (expect) {
    case Expect::kObject:
      return v.IsObject();
    case Expect::kArray:
      return v.IsArray();
    case Expect::kString:
      return v.IsString();
    case Expect::kBool:
      return v.IsBool();
    case Expect::kInteger:
      return v.IsInt64();
    case Expect::kQuantity:
      return IsQuantity(v);
  }
  return false;
}

// The first value along `path` from `v` (null counts as absent, as Go's
// decoder leaves the zero value) that is not what `field` expects.
std::optional<std::string> CheckPath(const JsonValue& v, const FieldType& field,
                                     size_t depth, const std::string& where) {
  if (v.IsNull()) return std::nullopt;
  if (depth == field.path.size()) {
    if (Matches(v, field.expect)) return std::nullopt;
    if (field.expect == Expect::kQuantity) {
      return std::string(
          "quantities must match the regular expression "
          "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    }
    return "json: cannot unmarshal " + JsonTypeName(v) +
           " into Go struct field " + where + " of type " + field.go_type;
  }
  const std::string& key = field.path[depth];
  if (key == "*") {
    if (v.IsArray()) {
      for (const auto& e : v.GetArray()) {
        if (auto err = CheckPath(e, field, depth + 1, where)) return err;
      }
    } else if (v.IsObject()) {
      for (const auto& m : v.GetObject()) {
        if (auto err = CheckPath(m.value, field, depth + 1, where)) return err;
      }
    }
    return std::nullopt;
  }
  const JsonValue* next = Member(v, key);
  if (next == nullptr) return std::nullopt;
  return CheckPath(*next, field, depth + 1, where + "." + key);
}

bool IsDns1123Subdomain(const std::string& s) {
  static const std::regex* const kSubdomain = new std::regex(
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  return s.size() <= 253 && std::regex_match(s, *kSubdomain);
}

bool IsDns1123Label(const std::string& s) {
  static const std::regex* const kLabel =
      new std::regex("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  return s.size() <= 63 && std::regex_match(s, *kLabel);
}

std::string Quote(const std::string& s) {
  return ToJson(JsonValue(rapidjson::StringRef(s.data(), s.size())));
}

void ValidateName(const ResourceInfo& r, const JsonValue& object,
                  std::vector<StatusCause>* causes) {
  const std::string name = StringAt(object, {"metadata", "name"});
  if (name.empty()) {
    causes->push_back(
        FieldRequired("metadata.name", "name or generateName is required"));
    return;
  }
  if (r.is_namespace()) {
    if (!IsDns1123Label(name)) {
      causes->push_back(FieldInvalid(
          "metadata.name", Quote(name),
          "a lowercase RFC 1123 label must consist of lower case "
          "alphanumeric characters or '-', and must start and end with an "
          "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
          "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
    }
    return;
  }
  if (!IsDns1123Subdomain(name)) {
    causes->push_back(FieldInvalid(
        "metadata.name", Quote(name),
        "a lowercase RFC 1123 subdomain must consist of lower case "
        "alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'example.com', regex used for "
        "validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
  }
}

// Label keys are qualified names ("prefix/name"); values are short names.
void ValidateLabels(const JsonValue& object, std::vector<StatusCause>* causes) {
  const JsonValue* labels = Find(object, {"metadata", "labels"});
  if (labels == nullptr || !labels->IsObject()) return;
  static const std::regex* const kName =
      new std::regex("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  for (const auto& m : labels->GetObject()) {
    const std::string key = m.name.GetString();
    const size_t slash = key.find('/');
    const std::string name =
        slash == std::string::npos ? key : key.substr(slash + 1);
    if (name.empty() || name.size() > 63 || !std::regex_match(name, *kName) ||
        (slash != std::string::npos &&
         !IsDns1123Subdomain(key.substr(0, slash)))) {
      causes->push_back(FieldInvalid(
          "metadata.labels", Quote(key),
          "name part must consist of alphanumeric characters, '-', '_' or "
          "'.', and must start and end with an alphanumeric character (e.g. "
          "'MyName',  or 'my.name',  or '123-abc', regex used for validation "
          "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"));
      continue;
    }
    if (!m.value.IsString()) continue;
    const std::string value = m.value.GetString();
    if (value.size() > 63) {
      causes->push_back(FieldInvalid("metadata.labels", Quote(value),
                                     "must be no more than 63 characters"));
    } else if (!value.empty() && !std::regex_match(value, *kName)) {
      causes->push_back(FieldInvalid(
          "metadata.labels", Quote(value),
          "a valid label must be an empty string or consist of alphanumeric "
          "characters, '-', '_' or '.', and must start and end with an "
          "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
          "'12345', regex used for validation is "
          "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"));
    }
  }
}

// validatePodResources, for what the scheduler reads: pod-level resources
// name cpu, memory or hugepages only, and request no more than their
// limits. (Whether they cover the containers' requests is not checked.)
void ValidatePodLevelResources(const JsonValue& pod,
                               std::vector<StatusCause>* causes) {
  const JsonValue* resources = Find(pod, {"spec", "resources"});
  if (resources == nullptr || !resources->IsObject()) return;
  const JsonValue* requests = Member(*resources, "requests");
  const JsonValue* limits = Member(*resources, "limits");
  for (const char* list : {"limits", "requests"}) {
    const JsonValue* values = Member(*resources, list);
    if (values == nullptr || !values->IsObject()) continue;
    for (const auto& m : values->GetObject()) {
      const std::string name = m.name.GetString();
      if (name == "cpu" || name == "memory" || name.starts_with("hugepages-")) {
        continue;
      }
      causes->push_back(FieldNotSupported(
          std::string("spec.resources.") + list + "[" + name + "]", Quote(name),
          {"cpu", "hugepages-", "memory"}));
    }
  }
  if (requests == nullptr || limits == nullptr || !requests->IsObject() ||
      !limits->IsObject()) {
    return;
  }
  for (const auto& m : requests->GetObject()) {
    const JsonValue* limit = Member(*limits, m.name.GetString());
    if (limit == nullptr) continue;
    const std::optional<long double> want = QuantityValue(m.value);
    const std::optional<long double> cap = QuantityValue(*limit);
    if (!want || !cap || *want <= *cap) continue;
    causes->push_back(FieldInvalid(
        "spec.resources.requests", ToJson(m.value),
        std::string("must be less than or equal to ") + m.name.GetString() +
            " limit of " + (limit->IsString() ? limit->GetString() : "")));
  }
}

// A list's length, 0 when it is absent, null or not a list.
rapidjson::SizeType ListSize(const JsonValue* list) {
  return list != nullptr && list->IsArray() ? list->Size() : 0;
}

// validateContainerRestartPolicy as v1.36 runs it (ContainerRestartRules and
// RestartAllContainersOnContainerExits on): a container's own restartPolicy
// is one of the three, is required by restart rules, and each rule has a
// known action and exit codes with a known operator. `at` names the
// container ("spec.containers[0]").
void ValidateContainerRestartRules(const JsonValue& container,
                                   const std::string& at,
                                   std::vector<StatusCause>* causes) {
  const JsonValue* policy = Member(container, "restartPolicy");
  const JsonValue* rules = Member(container, "restartPolicyRules");
  const rapidjson::SizeType count = ListSize(rules);
  if (policy == nullptr || policy->IsNull()) {
    if (count == 0) return;
    causes->push_back(FieldRequired(
        at + ".restartPolicy",
        "must specify restartPolicy when restart rules are used"));
  } else {
    const std::string value = policy->IsString() ? policy->GetString() : "";
    if (value != "Always" && value != "Never" && value != "OnFailure") {
      causes->push_back(FieldNotSupported(at + ".restartPolicy", Quote(value),
                                          {"Always", "Never", "OnFailure"}));
    }
  }
  if (count > 20) {
    causes->push_back(FieldTooMany(at + ".restartPolicyRules", count, 20));
  }
  for (rapidjson::SizeType i = 0; i < count; ++i) {
    const JsonValue& rule = (*rules)[i];
    const std::string rule_at =
        at + ".restartPolicyRules[" + std::to_string(i) + "]";
    const std::string action = StringAt(rule, {"action"});
    if (action != "Restart" && action != "RestartAllContainers") {
      causes->push_back(FieldNotSupported(rule_at + ".action", Quote(action),
                                          {"Restart", "RestartAllContainers"}));
    }
    const JsonValue* exit_codes = Member(rule, "exitCodes");
    if (exit_codes == nullptr || exit_codes->IsNull()) {
      causes->push_back(
          FieldRequired(rule_at + ".exitCodes", "must be specified"));
      continue;
    }
    const std::string op = StringAt(*exit_codes, {"operator"});
    if (op != "In" && op != "NotIn") {
      causes->push_back(FieldNotSupported(rule_at + ".exitCodes.operator",
                                          Quote(op), {"In", "NotIn"}));
    }
    const rapidjson::SizeType values = ListSize(Member(*exit_codes, "values"));
    if (values > 255) {
      causes->push_back(
          FieldTooMany(rule_at + ".exitCodes.values", values, 255));
    }
  }
}

void ValidatePod(const JsonValue& pod, int kube_minor,
                 std::vector<StatusCause>* causes) {
  const JsonValue* containers = Find(pod, {"spec", "containers"});
  if (containers == nullptr || !containers->IsArray() || containers->Empty()) {
    causes->push_back(FieldRequired("spec.containers"));
    return;
  }
  for (rapidjson::SizeType i = 0; i < containers->Size(); ++i) {
    const std::string at = "spec.containers[" + std::to_string(i) + "]";
    const JsonValue& c = (*containers)[i];
    if (StringAt(c, {"name"}).empty()) {
      causes->push_back(FieldRequired(at + ".name"));
    }
    if (StringAt(c, {"image"}).empty()) {
      causes->push_back(FieldRequired(at + ".image"));
    }
    if (kube_minor >= 36 && c.IsObject()) {
      ValidateContainerRestartRules(c, at, causes);
    }
  }
  // Init containers after the containers, as validatePodSpec orders them;
  // at v1.36 an init container's restart rules are checked as a regular
  // container's (whatever its restartPolicy), and one without a
  // restartPolicy may have none.
  const JsonValue* init = Find(pod, {"spec", "initContainers"});
  if (kube_minor >= 36 && init != nullptr && init->IsArray()) {
    for (rapidjson::SizeType i = 0; i < init->Size(); ++i) {
      if (!(*init)[i].IsObject()) continue;
      ValidateContainerRestartRules(
          (*init)[i], "spec.initContainers[" + std::to_string(i) + "]", causes);
    }
  }
  ValidatePodLevelResources(pod, causes);
}

// validateNodeDeclaredFeatures (v1.36, NodeDeclaredFeatures on): each name
// is an UpperCamelCase segment and '/'-separated alphanumeric segments, at
// most 253 characters, and the list is sorted without repeats (each entry
// compared with the next).
void ValidateDeclaredFeatures(const JsonValue& node,
                              std::vector<StatusCause>* causes) {
  const JsonValue* features = Find(node, {"status", "declaredFeatures"});
  if (features == nullptr || !features->IsArray()) return;
  static const std::regex* const kFeature =
      new std::regex("[A-Z][a-zA-Z0-9]*(/[a-zA-Z][a-zA-Z0-9]*)*");
  const std::string at = "status.declaredFeatures";
  const rapidjson::SizeType n = features->Size();
  auto text = [features](rapidjson::SizeType i) {
    const JsonValue& v = (*features)[i];
    return v.IsString() ? std::string(v.GetString(), v.GetStringLength())
                        : std::string();
  };
  for (rapidjson::SizeType i = 0; i < n; ++i) {
    const std::string feature = text(i);
    const std::string item = at + "[" + std::to_string(i) + "]";
    if (feature.size() > 253) {
      causes->push_back(FieldInvalid(item, Quote(feature),
                                     "invalid feature name " + Quote(feature) +
                                         ": must be no more than 253 "
                                         "characters"));
    } else if (!std::regex_match(feature, *kFeature)) {
      causes->push_back(FieldInvalid(
          item, Quote(feature),
          "invalid feature name " + Quote(feature) +
              ": must start with an UpperCamelCase segment, with subsequent "
              "segments separated by '/' (e.g., MyFeature or "
              "MyFeature/mySubFeature), and contain only alphanumeric "
              "characters and slashes"));
    }
    if (i + 1 >= n) continue;
    const std::string next = text(i + 1);
    const std::string next_at = at + "[" + std::to_string(i + 1) + "]";
    if (feature == next) {
      causes->push_back(FieldDuplicate(next_at, Quote(next)));
    } else if (feature > next) {
      causes->push_back(FieldInvalid(next_at, Quote(next),
                                     "list must be sorted alphabetically"));
    }
  }
}

void ValidateEvent(const JsonValue& event, std::vector<StatusCause>* causes) {
  const JsonValue* time = Member(event, "eventTime");
  if (time == nullptr || !time->IsString() || time->GetStringLength() == 0) {
    causes->push_back(FieldRequired("eventTime"));
  }
  const std::string type = StringAt(event, {"type"});
  if (type != "Normal" && type != "Warning") {
    causes->push_back(
        FieldInvalid("type", "\"\"", "has invalid value: " + type));
  }
  for (const char* field :
       {"reportingController", "reportingInstance", "action", "reason"}) {
    const std::string value = StringAt(event, {field});
    if (value.empty()) {
      causes->push_back(FieldRequired(field));
    } else if (std::string_view(field) != "reportingController" &&
               value.size() > 128) {
      causes->push_back(
          FieldInvalid(field, "\"\"", "can have at most 128 characters"));
    }
  }
  if (StringAt(event, {"note"}).size() > 1024) {
    causes->push_back(
        FieldInvalid("note", "\"\"", "can have at most 1024 characters"));
  }
}

}  // namespace

std::optional<ApiError> CheckDecodable(const ResourceInfo& resource,
                                       const JsonValue& object) {
  if (!object.IsObject()) {
    return BadRequest(
        "couldn't get version/kind; json parse error: json: cannot unmarshal " +
        JsonTypeName(object) +
        " into Go value of type struct { APIVersion string "
        "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
        "\"json:\\\"kind,omitempty\\\"\" }");
  }
  const std::string kind = StringAt(object, {"kind"}, resource.kind);
  const std::string api_version =
      StringAt(object, {"apiVersion"}, resource.ApiVersion());
  const std::string version = api_version.substr(
      api_version.find('/') == std::string::npos ? 0
                                                 : api_version.find('/') + 1);
  if (api_version != resource.ApiVersion()) {
    return BadRequest("the API version in the data (" + api_version +
                      ") does not match the expected API version (" +
                      resource.ApiVersion() + ")");
  }
  if (kind != resource.kind) {
    return BadRequest(kind + " in version \"" + version +
                      "\" cannot be handled as a " + resource.kind +
                      ": converting (" + version + "." + kind + ") to (core." +
                      resource.kind + "): unknown conversion");
  }
  for (const auto* fields : {&CommonFields(), &KindFields(resource)}) {
    for (const FieldType& field : *fields) {
      if (auto err = CheckPath(object, field, 0, resource.kind)) {
        return BadRequest(resource.kind + " in version \"" + version +
                          "\" cannot be handled as a " + resource.kind + ": " +
                          *err);
      }
    }
  }
  return std::nullopt;
}

std::vector<StatusCause> Validate(const ResourceInfo& resource,
                                  const JsonValue& object, int kube_minor) {
  std::vector<StatusCause> causes;
  ValidateName(resource, object, &causes);
  ValidateLabels(object, &causes);
  if (resource.is_pod()) ValidatePod(object, kube_minor, &causes);
  // (An update of a node's spec validates its status twice, ValidateNode
  // and ValidateNodeUpdate both, but keeps the stored status, which was
  // valid: said once is all it can say.)
  if (resource.is_node() && kube_minor >= 36) {
    ValidateDeclaredFeatures(object, &causes);
  }
  if (resource.resource == "events") ValidateEvent(object, &causes);
  if (IsDraResource(resource)) {
    for (StatusCause& c : ValidateDraObject(resource, object, kube_minor)) {
      causes.push_back(std::move(c));
    }
  }
  return causes;
}

std::vector<StatusCause> ValidateUpdate(const ResourceInfo& resource,
                                        const JsonValue& previous,
                                        const JsonValue& next, int kube_minor) {
  std::vector<StatusCause> causes = Validate(resource, next, kube_minor);
  if (IsDraResource(resource)) {
    for (StatusCause& c : ValidateDraUpdate(resource, previous, next)) {
      causes.push_back(std::move(c));
    }
  }
  if (!resource.is_pod()) return causes;
  // Compare the specs without the fields an update may change.
  JsonDocument before;
  JsonDocument after;
  const JsonValue* old_spec = Member(previous, "spec");
  const JsonValue* new_spec = Member(next, "spec");
  if (old_spec != nullptr) before.CopyFrom(*old_spec, before.GetAllocator());
  if (new_spec != nullptr) after.CopyFrom(*new_spec, after.GetAllocator());
  for (JsonDocument* spec : {&before, &after}) {
    if (!spec->IsObject()) continue;
    for (const char* list : {"containers", "initContainers"}) {
      JsonValue* containers = MutableMember(*spec, list);
      if (containers == nullptr || !containers->IsArray()) continue;
      for (auto& c : containers->GetArray()) RemoveMember(c, "image");
    }
    for (const char* field :
         {"activeDeadlineSeconds", "tolerations",
          "terminationGracePeriodSeconds", "schedulingGates"}) {
      RemoveMember(*spec, field);
    }
  }
  if (!(before == after)) {
    causes.push_back(FieldForbidden(
        "spec",
        "pod updates may not change fields other than "
        "`spec.containers[*].image`,`spec.initContainers[*].image`,"
        "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
        "existing tolerations),`spec.terminationGracePeriodSeconds` (allow "
        "it to be set to 1 if it was previously negative)"));
  }
  return causes;
}

}  // namespace ksched::testing::apiserver
