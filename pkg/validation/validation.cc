#include "pkg/validation/validation.h"

#include "pkg/util/long_values.h"
#include "pkg/validation/internal.h"

namespace ksched::validation {
namespace {

// The API group of each kind covered: NewInvalid names the kind with it
// (schema.GroupKind.String(): "Deployment.apps", "Pod").
std::string_view GroupOf(std::string_view kind) {
  if (kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet" ||
      kind == "DaemonSet") {
    return "apps";
  }
  if (kind == "Job" || kind == "CronJob") return "batch";
  if (kind == "PriorityClass") return "scheduling.k8s.io";
  if (kind == "PodDisruptionBudget") return "policy";
  if (kind == "PodGroup") return "scheduling.x-k8s.io";
  if (kind == "DeviceClass" || kind == "ResourceSlice" ||
      kind == "ResourceClaim" || kind == "ResourceClaimTemplate") {
    return "resource.k8s.io";
  }
  return "";
}

}  // namespace

FieldErrors ValidateObject(std::string_view kind, const rapidjson::Value& obj) {
  if (kind == "Pod") return ValidatePod(obj);
  if (kind == "Node") return ValidateNode(obj);
  if (kind == "PriorityClass") return ValidatePriorityClass(obj);
  if (kind == "PodDisruptionBudget") return ValidatePodDisruptionBudget(obj);
  if (kind == "PodGroup") return ValidatePodGroup(obj);
  if (kind == "DeviceClass") return ValidateDeviceClass(obj);
  if (kind == "ResourceSlice") return ValidateResourceSlice(obj);
  if (kind == "ResourceClaim") return ValidateResourceClaim(obj);
  if (kind == "ResourceClaimTemplate") {
    return ValidateResourceClaimTemplate(obj);
  }
  return ValidateWorkload(kind, obj);
}

std::string InvalidMessage(std::string_view kind, std::string_view name,
                           const FieldErrors& errors) {
  std::string out(kind);
  if (std::string_view group = GroupOf(kind); !group.empty()) {
    out += '.';
    out += group;
  }
  out += ' ';
  out += config::GoQuote(util::ElideLongValue(name));
  out += " is invalid";
  if (!errors.empty()) out += ": " + config::AggregateMessage(errors);
  return out;
}

}  // namespace ksched::validation
