// Workloads that stamp out pods (apps and batch validation): their counts,
// selector and pod template. The template is checked as kube checks a
// template, without the defaulting and create-time changes a Pod gets.
#include "pkg/validation/internal.h"
#include "pkg/validation/validation.h"

namespace ksched::validation {
namespace internal {
namespace {

using config::GoValue;

const Json& ObjectOrEmpty(const Json* v) {
  static const Json kEmpty(rapidjson::kObjectType);
  return v != nullptr ? *v : kEmpty;
}

void ValidateNonNegative(const Json& obj, std::string_view name,
                         const FieldPath& path, FieldErrors* errs) {
  std::optional<int64_t> value = IntField(obj, name);
  if (value && *value < 0) {
    errs->push_back(config::Invalid(path.Child(name), GoValue(*value),
                                    "must be greater than or equal to 0"));
  }
}

enum class SelectorUse { kRequired, kOptional };

// The selector checks of Deployment, ReplicaSet, StatefulSet and DaemonSet.
// Returns whether metav1.LabelSelectorAsSelector would accept it, which
// fails exactly when ValidateLabelSelector finds an error.
bool ValidateWorkloadSelector(const Json& spec, const FieldPath& spec_path,
                              SelectorUse use, std::string_view empty_message,
                              FieldErrors* errs) {
  FieldPath path = spec_path.Child("selector");
  std::optional<LabelSelector> selector =
      ReadLabelSelector(ObjectField(spec, "selector"));
  if (!selector) {
    if (use == SelectorUse::kRequired) {
      errs->push_back(config::Required(path, ""));
    }
    return true;
  }
  FieldErrors selector_errs;
  ValidateLabelSelector(*selector, path, false, &selector_errs);
  bool valid = selector_errs.empty();
  errs->insert(errs->end(), selector_errs.begin(), selector_errs.end());
  if (selector->match_labels.empty() && selector->match_expressions.empty()) {
    errs->push_back(
        config::Invalid(path, LabelSelectorJson(*selector), empty_message));
  }
  return valid;
}

// The checks a pod template gets in every controller that keeps pods
// running.
void ValidateAlwaysRestartTemplate(const Json& tmpl, const FieldPath& path,
                                   std::string_view kind, FieldErrors* errs) {
  const Json& spec = ObjectOrEmpty(ObjectField(tmpl, "spec"));
  FieldPath spec_path = path.Child("spec");
  if (std::string policy = StringField(spec, "restartPolicy");
      !policy.empty() && policy != "Always") {
    errs->push_back(config::NotSupported(spec_path.Child("restartPolicy"),
                                         JsonQuote(policy), {"Always"}));
  }
  if (Field(spec, "activeDeadlineSeconds") != nullptr) {
    errs->push_back(config::Forbidden(
        spec_path.Child("activeDeadlineSeconds"),
        "activeDeadlineSeconds in " + std::string(kind) + " is not Supported"));
  }
}

// Deployment and ReplicaSet (ValidateDeploymentSpec, ValidateReplicaSetSpec
// and ValidatePodTemplateSpecForReplicaSet).
void ValidateReplicated(const Json& obj, FieldErrors* errs) {
  ValidateObjectMeta(obj, NameRule::kDnsSubdomain, true, errs);
  const Json& spec = ObjectOrEmpty(ObjectField(obj, "spec"));
  FieldPath path("spec");
  ValidateNonNegative(spec, "replicas", path, errs);
  // Both kinds say "deployment".
  if (!ValidateWorkloadSelector(spec, path, SelectorUse::kRequired,
                                "empty selector is invalid for deployment",
                                errs)) {
    errs->push_back(config::Invalid(
        path.Child("selector"),
        LabelSelectorJson(*ReadLabelSelector(ObjectField(spec, "selector"))),
        "invalid label selector"));
    return;
  }
  const Json& tmpl = ObjectOrEmpty(ObjectField(spec, "template"));
  ValidatePodTemplateSpec(tmpl, path.Child("template"), {}, errs);
  ValidateAlwaysRestartTemplate(tmpl, path.Child("template"), "ReplicaSet",
                                errs);
}

void ValidateStatefulSet(const Json& obj, FieldErrors* errs) {
  ValidateObjectMeta(obj, NameRule::kDnsLabel, true, errs);
  const Json& spec = ObjectOrEmpty(ObjectField(obj, "spec"));
  FieldPath path("spec");
  ValidateNonNegative(spec, "replicas", path, errs);
  const Json& tmpl = ObjectOrEmpty(ObjectField(spec, "template"));
  FieldPath tmpl_path = path.Child("template");
  if (!ValidateWorkloadSelector(spec, path, SelectorUse::kRequired,
                                "empty selector is invalid for statefulset",
                                errs)) {
    errs->push_back(config::Invalid(
        path.Child("selector"),
        LabelSelectorJson(*ReadLabelSelector(ObjectField(spec, "selector"))),
        ""));
  } else {
    // The claim templates' volumes replace the template's of the same
    // name. (Kube puts them first, in no fixed order, which renumbers the
    // volumes; here they keep their indexes.)
    PodSpecContext ctx;
    if (const Json* claims = ArrayField(spec, "volumeClaimTemplates")) {
      for (const Json& claim : claims->GetArray()) {
        if (const Json* meta = ObjectField(claim, "metadata")) {
          ctx.replaced_volumes.push_back(StringField(*meta, "name"));
        }
      }
    }
    ValidatePodTemplateSpec(tmpl, tmpl_path, ctx, errs);
    // ValidatePodTemplateSpecForStatefulSet checks these twice.
    const Json& meta = ObjectOrEmpty(ObjectField(tmpl, "metadata"));
    ValidateLabels(ObjectField(meta, "labels"), tmpl_path.Child("labels"),
                   errs);
    ValidateAnnotations(ObjectField(meta, "annotations"),
                        tmpl_path.Child("annotations"), errs);
  }
  ValidateAlwaysRestartTemplate(tmpl, tmpl_path, "StatefulSet", errs);
}

void ValidateDaemonSet(const Json& obj, FieldErrors* errs) {
  ValidateObjectMeta(obj, NameRule::kDnsSubdomain, true, errs);
  const Json& spec = ObjectOrEmpty(ObjectField(obj, "spec"));
  FieldPath path("spec");
  ValidateWorkloadSelector(spec, path, SelectorUse::kOptional,
                           "empty selector is invalid for daemonset", errs);
  const Json& tmpl = ObjectOrEmpty(ObjectField(spec, "template"));
  ValidatePodTemplateSpec(tmpl, path.Child("template"), {}, errs);
  ValidateAlwaysRestartTemplate(tmpl, path.Child("template"), "DaemonSet",
                                errs);
}

// validateJobSpec, for a Job's spec and a CronJob's job template. The
// selector and the template labels it needs are generated on create.
void ValidateJobSpec(const Json& spec, const FieldPath& path,
                     FieldErrors* errs) {
  ValidateNonNegative(spec, "parallelism", path, errs);
  ValidateNonNegative(spec, "completions", path, errs);
  const Json& tmpl = ObjectOrEmpty(ObjectField(spec, "template"));
  FieldPath tmpl_path = path.Child("template");
  ValidatePodTemplateSpec(tmpl, tmpl_path, {}, errs);
  // The pod spec's restartPolicy defaults to Always, which a Job refuses.
  FieldPath policy_path = tmpl_path.Child("spec").Child("restartPolicy");
  std::string policy =
      StringField(ObjectOrEmpty(ObjectField(tmpl, "spec")), "restartPolicy");
  if (policy.empty() || policy == "Always") {
    errs->push_back(config::Required(policy_path,
                                     "valid values: \"OnFailure\", \"Never\""));
  } else if (policy != "OnFailure" && policy != "Never") {
    errs->push_back(config::NotSupported(policy_path, JsonQuote(policy),
                                         {"OnFailure", "Never"}));
  }
}

void ValidateJob(const Json& obj, FieldErrors* errs) {
  ValidateObjectMeta(obj, NameRule::kDnsSubdomain, true, errs);
  ValidateJobSpec(ObjectOrEmpty(ObjectField(obj, "spec")), FieldPath("spec"),
                  errs);
}

void ValidateCronJob(const Json& obj, FieldErrors* errs) {
  ValidateObjectMeta(obj, NameRule::kDnsSubdomain, true, errs);
  const Json& spec = ObjectOrEmpty(ObjectField(obj, "spec"));
  FieldPath path("spec");
  if (StringField(spec, "schedule").empty()) {
    errs->push_back(config::Required(path.Child("schedule"), ""));
  }
  const Json& job_template = ObjectOrEmpty(ObjectField(spec, "jobTemplate"));
  ValidateJobSpec(ObjectOrEmpty(ObjectField(job_template, "spec")),
                  path.Child("jobTemplate").Child("spec"), errs);
  // Its jobs are named <name>-<11 characters>, within 63.
  const Json& meta = ObjectOrEmpty(ObjectField(obj, "metadata"));
  if (std::string name = StringField(meta, "name"); name.size() > 52) {
    errs->push_back(config::Invalid(FieldPath("metadata").Child("name"),
                                    config::GoQuote(name),
                                    "must be no more than 52 characters"));
  }
}

FieldErrors ValidateWorkloadKind(std::string_view kind, const Json& obj) {
  FieldErrors errs;
  if (!obj.IsObject()) return errs;
  if (kind == "Deployment" || kind == "ReplicaSet") {
    ValidateReplicated(obj, &errs);
  } else if (kind == "StatefulSet") {
    ValidateStatefulSet(obj, &errs);
  } else if (kind == "DaemonSet") {
    ValidateDaemonSet(obj, &errs);
  } else if (kind == "Job") {
    ValidateJob(obj, &errs);
  } else if (kind == "CronJob") {
    ValidateCronJob(obj, &errs);
  }
  return errs;
}

}  // namespace
}  // namespace internal

FieldErrors ValidateWorkload(std::string_view kind,
                             const rapidjson::Value& obj) {
  return internal::ValidateWorkloadKind(kind, obj);
}

}  // namespace ksched::validation
