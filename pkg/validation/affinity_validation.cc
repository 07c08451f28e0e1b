// Node affinity and pod (anti-)affinity (validateAffinity and the term
// functions in core validation).
#include "pkg/config/name_validation.h"
#include "pkg/validation/internal.h"

namespace ksched::validation::internal {
namespace {

using config::GoQuote;
using config::GoValue;

// ValidateNodeSelectorRequirement.
void ValidateNodeSelectorRequirement(const Json& req, bool allow_invalid_values,
                                     const FieldPath& path, FieldErrors* errs) {
  std::string op = StringField(req, "operator");
  std::vector<std::string> values = ScalarList(req, "values");
  FieldPath values_path = path.Child("values");
  if (op == "In" || op == "NotIn") {
    if (values.empty()) {
      errs->push_back(config::Required(
          values_path, "must be specified when `operator` is 'In' or 'NotIn'"));
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!values.empty()) {
      errs->push_back(config::Forbidden(
          values_path,
          "may not be specified when `operator` is 'Exists' or "
          "'DoesNotExist'"));
    }
  } else if (op == "Gt" || op == "Lt") {
    // Only the count is checked; a value that is not an integer matches
    // no node.
    if (values.size() != 1) {
      errs->push_back(config::Required(
          values_path,
          "must be specified single value when `operator` is 'Lt' or 'Gt'"));
    }
  } else {
    errs->push_back(config::Invalid(path.Child("operator"), JsonQuote(op),
                                    "not a valid selector operator"));
  }
  ValidateLabelName(StringField(req, "key"), path.Child("key"), errs);
  if (allow_invalid_values) return;
  for (size_t i = 0; i < values.size(); ++i) {
    for (const std::string& msg :
         config::LabelValueErrors(values[i], config::Wording::kV1_35)) {
      errs->push_back(
          config::Invalid(values_path.Index(i), GoQuote(values[i]), msg));
    }
  }
}

// ValidateNodeFieldSelectorRequirement: only metadata.name, In or NotIn,
// one node name.
void ValidateNodeFieldSelectorRequirement(const Json& req,
                                          const FieldPath& path,
                                          FieldErrors* errs) {
  std::string op = StringField(req, "operator");
  std::vector<std::string> values = ScalarList(req, "values");
  if (op == "In" || op == "NotIn") {
    if (values.size() != 1) {
      errs->push_back(config::Required(
          path.Child("values"),
          "must be only one value when `operator` is 'In' or 'NotIn' for node "
          "field selector"));
    }
  } else {
    errs->push_back(config::Invalid(path.Child("operator"), JsonQuote(op),
                                    "not a valid selector operator"));
  }
  std::string key = StringField(req, "key");
  if (key != "metadata.name") {
    errs->push_back(config::Invalid(path.Child("key"), GoQuote(key),
                                    "not a valid field selector key"));
    return;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    for (const std::string& msg : config::Dns1123SubdomainErrors(values[i])) {
      errs->push_back(config::Invalid(path.Child("values").Index(i),
                                      GoQuote(values[i]), msg));
    }
  }
}

void ValidateNodeSelectorTerm(const Json& term, bool allow_invalid_values,
                              const FieldPath& path, FieldErrors* errs) {
  if (const Json* exprs = ArrayField(term, "matchExpressions")) {
    for (size_t i = 0; i < exprs->Size(); ++i) {
      const Json& req = (*exprs)[static_cast<rapidjson::SizeType>(i)];
      if (!req.IsObject()) continue;
      ValidateNodeSelectorRequirement(req, allow_invalid_values,
                                      path.Child("matchExpressions").Index(i),
                                      errs);
    }
  }
  if (const Json* fields = ArrayField(term, "matchFields")) {
    for (size_t i = 0; i < fields->Size(); ++i) {
      const Json& req = (*fields)[static_cast<rapidjson::SizeType>(i)];
      if (!req.IsObject()) continue;
      ValidateNodeFieldSelectorRequirement(
          req, path.Child("matchFields").Index(i), errs);
    }
  }
}

// Preferred terms' weights, node and pod alike.
void ValidateWeight(const Json& term, const FieldPath& path,
                    FieldErrors* errs) {
  bool present = false;
  std::optional<int64_t> weight = IntField(term, "weight", &present);
  if (present && !weight) return;
  int64_t w = weight.value_or(0);
  if (w <= 0 || w > 100) {
    errs->push_back(config::Invalid(path.Child("weight"), GoValue(w),
                                    "must be in the range 1-100"));
  }
}

void ValidateNodeAffinity(const Json& na, const FieldPath& path,
                          FieldErrors* errs) {
  if (const Json* required =
          ObjectField(na, "requiredDuringSchedulingIgnoredDuringExecution")) {
    ValidateNodeSelector(
        *required, path.Child("requiredDuringSchedulingIgnoredDuringExecution"),
        errs);
  }
  if (const Json* preferred =
          ArrayField(na, "preferredDuringSchedulingIgnoredDuringExecution")) {
    FieldPath p = path.Child("preferredDuringSchedulingIgnoredDuringExecution");
    for (size_t i = 0; i < preferred->Size(); ++i) {
      const Json& term = (*preferred)[static_cast<rapidjson::SizeType>(i)];
      if (!term.IsObject()) continue;
      ValidateWeight(term, p.Index(i), errs);
      // Invalid label values are allowed in preferences: a node may still
      // carry them.
      static const Json kEmpty(rapidjson::kObjectType);
      const Json* preference = ObjectField(term, "preference");
      ValidateNodeSelectorTerm(preference != nullptr ? *preference : kEmpty,
                               true, p.Index(i).Child("preference"), errs);
    }
  }
}

// validatePodAffinityTerm.
void ValidatePodAffinityTerm(const Json& term, const FieldPath& path,
                             const PodSpecContext& ctx, FieldErrors* errs) {
  std::optional<LabelSelector> selector =
      ReadLabelSelector(ObjectField(term, "labelSelector"));
  if (ctx.is_pod && selector) {
    MergeLabelKeys(term, "matchLabelKeys", "In", ctx.pod_labels, &*selector);
    MergeLabelKeys(term, "mismatchLabelKeys", "NotIn", ctx.pod_labels,
                   &*selector);
  }
  if (selector) {
    ValidateLabelSelector(*selector, path.Child("labelSelector"), false, errs);
  }
  if (std::optional<LabelSelector> ns_selector =
          ReadLabelSelector(ObjectField(term, "namespaceSelector"))) {
    ValidateLabelSelector(*ns_selector, path.Child("namespaceSelector"), false,
                          errs);
  }
  for (const std::string& ns : ScalarList(term, "namespaces")) {
    // Kube's path names no index.
    for (const std::string& msg : config::Dns1123LabelErrors(ns)) {
      errs->push_back(
          config::Invalid(path.Child("namespace"), GoQuote(ns), msg));
    }
  }
  ValidateMatchLabelKeys(path, term, true, selector, errs);
  std::string topology_key = StringField(term, "topologyKey");
  if (topology_key.empty()) {
    errs->push_back(
        config::Required(path.Child("topologyKey"), "can not be empty"));
  }
  ValidateLabelName(topology_key, path.Child("topologyKey"), errs);
}

void ValidatePodAffinity(const Json& pa, const FieldPath& path,
                         const PodSpecContext& ctx, FieldErrors* errs) {
  if (const Json* required =
          ArrayField(pa, "requiredDuringSchedulingIgnoredDuringExecution")) {
    FieldPath p = path.Child("requiredDuringSchedulingIgnoredDuringExecution");
    for (size_t i = 0; i < required->Size(); ++i) {
      const Json& term = (*required)[static_cast<rapidjson::SizeType>(i)];
      if (term.IsObject()) ValidatePodAffinityTerm(term, p.Index(i), ctx, errs);
    }
  }
  if (const Json* preferred =
          ArrayField(pa, "preferredDuringSchedulingIgnoredDuringExecution")) {
    FieldPath p = path.Child("preferredDuringSchedulingIgnoredDuringExecution");
    for (size_t i = 0; i < preferred->Size(); ++i) {
      const Json& weighted = (*preferred)[static_cast<rapidjson::SizeType>(i)];
      if (!weighted.IsObject()) continue;
      ValidateWeight(weighted, p.Index(i), errs);
      static const Json kEmpty(rapidjson::kObjectType);
      const Json* term = ObjectField(weighted, "podAffinityTerm");
      ValidatePodAffinityTerm(term != nullptr ? *term : kEmpty,
                              p.Index(i).Child("podAffinityTerm"), ctx, errs);
    }
  }
}

}  // namespace

void ValidateNodeSelector(const Json& selector, const FieldPath& path,
                          FieldErrors* errs) {
  FieldPath terms_path = path.Child("nodeSelectorTerms");
  const Json* terms = ArrayField(selector, "nodeSelectorTerms");
  if (terms == nullptr || terms->Empty()) {
    errs->push_back(config::Required(
        terms_path, "must have at least one node selector term"));
    return;
  }
  for (size_t i = 0; i < terms->Size(); ++i) {
    const Json& term = (*terms)[static_cast<rapidjson::SizeType>(i)];
    if (term.IsObject()) {
      ValidateNodeSelectorTerm(term, false, terms_path.Index(i), errs);
    }
  }
}

void ValidateAffinity(const Json& affinity, const FieldPath& path,
                      const PodSpecContext& ctx, FieldErrors* errs) {
  if (const Json* na = ObjectField(affinity, "nodeAffinity")) {
    ValidateNodeAffinity(*na, path.Child("nodeAffinity"), errs);
  }
  if (const Json* pa = ObjectField(affinity, "podAffinity")) {
    ValidatePodAffinity(*pa, path.Child("podAffinity"), ctx, errs);
  }
  if (const Json* paa = ObjectField(affinity, "podAntiAffinity")) {
    ValidatePodAffinity(*paa, path.Child("podAntiAffinity"), ctx, errs);
  }
}

}  // namespace ksched::validation::internal
