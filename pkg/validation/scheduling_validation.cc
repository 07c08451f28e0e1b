// scheduling.k8s.io PriorityClass (scheduling validation) and
// scheduler-plugins' PodGroup custom resource.
#include "pkg/validation/internal.h"
#include "pkg/validation/validation.h"

namespace ksched::validation {
namespace {

constexpr int64_t kHighestUserDefinablePriority = 1000000000;
constexpr int64_t kSystemCriticalPriority = 2 * kHighestUserDefinablePriority;

// IsKnownSystemPriorityClass: the classes the API server creates itself,
// which only they may be, value and globalDefault included. Empty when the
// class is one of them.
std::string SystemClassError(std::string_view name, int64_t value,
                             bool global_default) {
  struct SystemClass {
    std::string_view name;
    int64_t value;
  };
  static constexpr SystemClass kSystemClasses[] = {
      {"system-node-critical", kSystemCriticalPriority + 1000},
      {"system-cluster-critical", kSystemCriticalPriority},
  };
  for (const SystemClass& c : kSystemClasses) {
    if (c.name != name) continue;
    if (c.value != value) {
      return "value of " + std::string(c.name) + " PriorityClass must be " +
             std::to_string(c.value);
    }
    if (global_default) {
      return "globalDefault of " + std::string(c.name) +
             " PriorityClass must be false";
    }
    return "";
  }
  return std::string(name) + " is not a known system priority class";
}

}  // namespace

FieldErrors ValidatePriorityClass(const rapidjson::Value& pc) {
  using internal::Json;
  FieldErrors errs;
  if (!pc.IsObject()) return errs;
  internal::ValidateObjectMeta(pc, internal::NameRule::kDnsSubdomain, false,
                               &errs);
  std::string name;
  if (const Json* meta = internal::ObjectField(pc, "metadata")) {
    name = internal::StringField(*meta, "name");
  }
  int64_t value = internal::IntField(pc, "value").value_or(0);
  if (name.starts_with("system-")) {
    std::string error =
        SystemClassError(name, value, internal::BoolField(pc, "globalDefault"));
    if (!error.empty()) {
      errs.push_back(config::Forbidden(
          config::FieldPath("metadata").Child("name"),
          "priority class names with 'system-' prefix are reserved for system "
          "use only. error: " +
              error));
    }
  } else if (value > kHighestUserDefinablePriority) {
    errs.push_back(config::Forbidden(
        config::FieldPath("value"),
        "maximum allowed value of a user defined priority is " +
            std::to_string(kHighestUserDefinablePriority)));
  }
  // preemptionPolicy defaults to PreemptLowerPriority when absent.
  if (internal::Field(pc, "preemptionPolicy") != nullptr) {
    std::string policy = internal::StringField(pc, "preemptionPolicy");
    config::FieldPath path("preemptionPolicy");
    if (policy.empty()) {
      errs.push_back(config::Required(path, ""));
    } else if (policy != "PreemptLowerPriority" && policy != "Never") {
      errs.push_back(config::NotSupported(path, internal::JsonQuote(policy),
                                          {"PreemptLowerPriority", "Never"}));
    }
  }
  return errs;
}

FieldErrors ValidatePodGroup(const rapidjson::Value& pg) {
  // The PodGroup CRD (manifests/coscheduling/crd.yaml) types its fields
  // and sets no minimum on minMember or scheduleTimeoutSeconds, and its
  // quantity pattern admits negative minResources: the API server checks
  // no more than the metadata of a custom resource.
  FieldErrors errs;
  if (!pg.IsObject()) return errs;
  internal::ValidateObjectMeta(pg, internal::NameRule::kDnsSubdomain, true,
                               &errs);
  return errs;
}

}  // namespace ksched::validation
