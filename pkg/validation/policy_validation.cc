// policy PodDisruptionBudget (policy validation, with apps' int-or-percent
// rules).
#include "pkg/config/field_errors.h"
#include "pkg/validation/internal.h"
#include "pkg/validation/validation.h"

namespace ksched::validation {
namespace {

using internal::Json;

// intstr.IntOrString as decoded: a JSON integer or a string.
struct IntOrString {
  bool is_int = false;
  int64_t int_value = 0;
  std::string str_value;

  std::string Render() const {
    return is_int ? std::to_string(int_value) : internal::JsonQuote(str_value);
  }
};

std::optional<IntOrString> ReadIntOrString(const Json& obj,
                                           std::string_view name) {
  const Json* v = internal::Field(obj, name);
  if (v == nullptr) return std::nullopt;
  if (v->IsInt64()) return IntOrString{true, v->GetInt64(), ""};
  if (v->IsString()) {
    return IntOrString{false, 0,
                       std::string(v->GetString(), v->GetStringLength())};
  }
  return std::nullopt;
}

// "[0-9]+%"; the whole number when it is one.
std::optional<int64_t> PercentValue(std::string_view s) {
  if (s.size() < 2 || s.back() != '%') return std::nullopt;
  int64_t value = 0;
  for (char c : s.substr(0, s.size() - 1)) {
    if (c < '0' || c > '9') return std::nullopt;
    // Large enough to exceed 100%, without overflow.
    if (value < 1000000) value = value * 10 + (c - '0');
  }
  return value;
}

// ValidatePositiveIntOrPercent and IsNotMoreThan100Percent.
void ValidateIntOrPercent(const IntOrString& v, const config::FieldPath& path,
                          FieldErrors* errs) {
  if (v.is_int) {
    if (v.int_value < 0) {
      errs->push_back(config::Invalid(path, config::GoValue(v.int_value),
                                      "must be greater than or equal to 0"));
    }
    return;
  }
  std::optional<int64_t> percent = PercentValue(v.str_value);
  if (!percent) {
    errs->push_back(config::Invalid(
        path, v.Render(),
        "a valid percent string must be a numeric string followed by an "
        "ending '%' (e.g. '1%',  or '93%', regex used for validation is "
        "'[0-9]+%')"));
  } else if (*percent > 100) {
    errs->push_back(
        config::Invalid(path, v.Render(), "must not be greater than 100%"));
  }
}

// The internal PodDisruptionBudgetSpec as encoding/json writes it (no JSON
// tags: Go field names).
std::string SpecJson(const Json& spec, const std::optional<IntOrString>& min,
                     const std::optional<IntOrString>& max) {
  std::optional<internal::LabelSelector> selector =
      internal::ReadLabelSelector(internal::ObjectField(spec, "selector"));
  std::string policy = "null";
  if (internal::Field(spec, "unhealthyPodEvictionPolicy") != nullptr) {
    policy = internal::JsonQuote(
        internal::StringField(spec, "unhealthyPodEvictionPolicy"));
  }
  return "{\"MinAvailable\":" + (min ? min->Render() : "null") +
         ",\"Selector\":" +
         (selector ? internal::LabelSelectorJson(*selector) : "null") +
         ",\"MaxUnavailable\":" + (max ? max->Render() : "null") +
         ",\"UnhealthyPodEvictionPolicy\":" + policy + "}";
}

}  // namespace

FieldErrors ValidatePodDisruptionBudget(const rapidjson::Value& pdb) {
  FieldErrors errs;
  if (!pdb.IsObject()) return errs;
  static const Json kEmpty(rapidjson::kObjectType);
  const Json* spec = internal::ObjectField(pdb, "spec");
  if (spec == nullptr) spec = &kEmpty;
  config::FieldPath path("spec");
  std::optional<IntOrString> min = ReadIntOrString(*spec, "minAvailable");
  std::optional<IntOrString> max = ReadIntOrString(*spec, "maxUnavailable");
  if (min && max) {
    errs.push_back(config::Invalid(path, SpecJson(*spec, min, max),
                                   "minAvailable and maxUnavailable cannot be "
                                   "both set"));
  }
  if (min) ValidateIntOrPercent(*min, path.Child("minAvailable"), &errs);
  if (max) ValidateIntOrPercent(*max, path.Child("maxUnavailable"), &errs);
  if (std::optional<internal::LabelSelector> selector =
          internal::ReadLabelSelector(
              internal::ObjectField(*spec, "selector"))) {
    internal::ValidateLabelSelector(*selector, path.Child("selector"), false,
                                    &errs);
  }
  if (internal::Field(*spec, "unhealthyPodEvictionPolicy") != nullptr) {
    std::string policy =
        internal::StringField(*spec, "unhealthyPodEvictionPolicy");
    if (policy != "AlwaysAllow" && policy != "IfHealthyBudget") {
      errs.push_back(config::NotSupported(
          path.Child("unhealthyPodEvictionPolicy"), internal::JsonQuote(policy),
          {"AlwaysAllow", "IfHealthyBudget"}));
    }
  }
  // The PDB strategy validates only the spec; the API server checks the
  // metadata afterwards, generically, and only when the spec passed.
  if (errs.empty()) {
    internal::ValidateObjectMeta(pdb, internal::NameRule::kPathSegment, true,
                                 &errs);
  }
  return errs;
}

}  // namespace ksched::validation
