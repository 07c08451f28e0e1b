// Object metadata, labels, annotations and label selectors, as
// apimachinery's api/validation and apis/meta/v1/validation check them.
#include <algorithm>

#include "pkg/config/name_validation.h"
#include "pkg/validation/internal.h"

namespace ksched::validation::internal {
namespace {

using config::GoQuote;
using config::Wording;

constexpr int64_t kTotalAnnotationSizeLimit = 256 * (1 << 10);

// apimachinery maskTrailingDash: a generateName may end in '-', which the
// generated suffix follows. (Go replaces the last two characters.)
std::string MaskTrailingDash(std::string_view name) {
  if (name.size() > 1 && name.back() == '-') {
    return std::string(name.substr(0, name.size() - 2)) + "a";
  }
  return std::string(name);
}

std::vector<std::string> PathSegmentNameErrors(std::string_view name,
                                               bool prefix) {
  if (!prefix && (name == "." || name == "..")) {
    return {"may not be '" + std::string(name) + "'"};
  }
  std::vector<std::string> errs;
  for (std::string_view bad : {"/", "%"}) {
    if (name.find(bad) != std::string_view::npos) {
      errs.push_back("may not contain '" + std::string(bad) + "'");
    }
  }
  return errs;
}

SelectorRequirement ReadRequirement(const Json& expr) {
  SelectorRequirement r;
  r.key = StringField(expr, "key");
  r.op = StringField(expr, "operator");
  r.values = ScalarList(expr, "values");
  return r;
}

}  // namespace

std::optional<LabelSelector> ReadLabelSelector(const Json* selector) {
  if (selector == nullptr || !selector->IsObject()) return std::nullopt;
  LabelSelector out;
  if (const Json* labels = ObjectField(*selector, "matchLabels")) {
    for (auto it = labels->MemberBegin(); it != labels->MemberEnd(); ++it) {
      if (std::optional<std::string> value = ScalarText(it->value)) {
        out.match_labels.emplace_back(
            std::string(it->name.GetString(), it->name.GetStringLength()),
            std::move(*value));
      }
    }
  }
  if (const Json* exprs = ArrayField(*selector, "matchExpressions")) {
    for (const Json& expr : exprs->GetArray()) {
      if (expr.IsObject())
        out.match_expressions.push_back(ReadRequirement(expr));
    }
  }
  return out;
}

std::string LabelSelectorJson(const LabelSelector& selector) {
  // encoding/json: map keys sorted, empty fields omitted.
  std::string out = "{";
  if (!selector.match_labels.empty()) {
    std::vector<std::pair<std::string, std::string>> labels =
        selector.match_labels;
    std::stable_sort(
        labels.begin(), labels.end(),
        [](const auto& a, const auto& b) { return a.first < b.first; });
    out += "\"matchLabels\":{";
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) out += ',';
      out += JsonQuote(labels[i].first) + ":" + JsonQuote(labels[i].second);
    }
    out += '}';
  }
  if (!selector.match_expressions.empty()) {
    if (out.size() > 1) out += ',';
    out += "\"matchExpressions\":[";
    for (size_t i = 0; i < selector.match_expressions.size(); ++i) {
      const SelectorRequirement& r = selector.match_expressions[i];
      if (i > 0) out += ',';
      out +=
          "{\"key\":" + JsonQuote(r.key) + ",\"operator\":" + JsonQuote(r.op);
      if (!r.values.empty()) {
        out += ",\"values\":[";
        for (size_t j = 0; j < r.values.size(); ++j) {
          if (j > 0) out += ',';
          out += JsonQuote(r.values[j]);
        }
        out += ']';
      }
      out += '}';
    }
    out += ']';
  }
  return out + "}";
}

void ValidateLabelName(std::string_view key, const FieldPath& path,
                       FieldErrors* errs) {
  for (const std::string& msg :
       config::QualifiedNameErrors(key, Wording::kV1_35)) {
    errs->push_back(config::Invalid(path, GoQuote(key), msg));
  }
}

void ValidateJoinedLabelValue(const std::string& value, const FieldPath& path,
                              FieldErrors* errs) {
  std::string joined;
  for (const std::string& msg :
       config::LabelValueErrors(value, Wording::kV1_35)) {
    if (!joined.empty()) joined += ';';
    joined += msg;
  }
  if (!joined.empty()) {
    errs->push_back(config::Invalid(path, GoQuote(value), joined));
  }
}

void ValidateLabels(const Json* labels, const FieldPath& path,
                    FieldErrors* errs) {
  if (labels == nullptr || !labels->IsObject()) return;
  for (auto it = labels->MemberBegin(); it != labels->MemberEnd(); ++it) {
    ValidateLabelName(
        std::string_view(it->name.GetString(), it->name.GetStringLength()),
        path, errs);
    std::optional<std::string> value = ScalarText(it->value);
    if (!value) continue;
    for (const std::string& msg :
         config::LabelValueErrors(*value, Wording::kV1_35)) {
      errs->push_back(config::Invalid(path, GoQuote(*value), msg));
    }
  }
}

void ValidateAnnotations(const Json* annotations, const FieldPath& path,
                         FieldErrors* errs) {
  if (annotations == nullptr || !annotations->IsObject()) return;
  int64_t total = 0;
  for (auto it = annotations->MemberBegin(); it != annotations->MemberEnd();
       ++it) {
    std::string_view key(it->name.GetString(), it->name.GetStringLength());
    // A qualified name in any case.
    std::string lower(key);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) {
      return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    });
    for (const std::string& msg :
         config::QualifiedNameErrors(lower, Wording::kV1_35)) {
      errs->push_back(config::Invalid(path, GoQuote(key), msg));
    }
    total += static_cast<int64_t>(key.size());
    if (it->value.IsString()) {
      total += it->value.GetStringLength();
    } else if (std::optional<std::string> value = ScalarText(it->value)) {
      total += static_cast<int64_t>(value->size());
    }
  }
  if (total > kTotalAnnotationSizeLimit) {
    errs->push_back(config::TooLong(path, kTotalAnnotationSizeLimit));
  }
}

void ValidateLabelSelector(const LabelSelector& selector, const FieldPath& path,
                           bool allow_invalid_values, FieldErrors* errs) {
  FieldPath labels_path = path.Child("matchLabels");
  for (const auto& [key, value] : selector.match_labels) {
    ValidateLabelName(key, labels_path, errs);
    for (const std::string& msg :
         config::LabelValueErrors(value, Wording::kV1_35)) {
      errs->push_back(config::Invalid(labels_path, GoQuote(value), msg));
    }
  }
  for (size_t i = 0; i < selector.match_expressions.size(); ++i) {
    const SelectorRequirement& r = selector.match_expressions[i];
    FieldPath p = path.Child("matchExpressions").Index(i);
    if (r.op == "In" || r.op == "NotIn") {
      if (r.values.empty()) {
        errs->push_back(config::Required(
            p.Child("values"),
            "must be specified when `operator` is 'In' or 'NotIn'"));
      }
    } else if (r.op == "Exists" || r.op == "DoesNotExist") {
      if (!r.values.empty()) {
        errs->push_back(config::Forbidden(
            p.Child("values"),
            "may not be specified when `operator` is 'Exists' or "
            "'DoesNotExist'"));
      }
    } else {
      errs->push_back(config::Invalid(p.Child("operator"), JsonQuote(r.op),
                                      "not a valid selector operator"));
    }
    ValidateLabelName(r.key, p.Child("key"), errs);
    if (allow_invalid_values) continue;
    for (size_t j = 0; j < r.values.size(); ++j) {
      for (const std::string& msg :
           config::LabelValueErrors(r.values[j], Wording::kV1_35)) {
        errs->push_back(config::Invalid(p.Child("values").Index(j),
                                        GoQuote(r.values[j]), msg));
      }
    }
  }
}

std::vector<std::string> NameErrors(NameRule rule, std::string_view name,
                                    bool prefix) {
  switch (rule) {
    case NameRule::kDnsSubdomain:
      return config::Dns1123SubdomainErrors(prefix ? MaskTrailingDash(name)
                                                   : std::string(name));
    case NameRule::kDnsLabel:
      return config::Dns1123LabelErrors(prefix ? MaskTrailingDash(name)
                                               : std::string(name));
    case NameRule::kPathSegment:
      return PathSegmentNameErrors(name, prefix);
  }
  return {};
}

void ValidateObjectMeta(const Json& obj, NameRule rule, bool namespaced,
                        FieldErrors* errs) {
  static const Json kEmpty(rapidjson::kObjectType);
  const Json* meta = ObjectField(obj, "metadata");
  if (meta == nullptr) meta = &kEmpty;
  FieldPath path("metadata");
  std::string generate_name = StringField(*meta, "generateName");
  std::string name = StringField(*meta, "name");
  if (!generate_name.empty()) {
    for (const std::string& msg : NameErrors(rule, generate_name, true)) {
      errs->push_back(config::Invalid(path.Child("generateName"),
                                      GoQuote(generate_name), msg));
    }
  }
  if (name.empty()) {
    // With generateName the API server makes up the name before it
    // validates; a bad generateName was reported above.
    if (generate_name.empty()) {
      errs->push_back(config::Required(path.Child("name"),
                                       "name or generateName is required"));
    }
  } else {
    for (const std::string& msg : NameErrors(rule, name, false)) {
      errs->push_back(config::Invalid(path.Child("name"), GoQuote(name), msg));
    }
  }
  // A namespaced object without a namespace takes the request's; a
  // cluster-scoped one has its namespace cleared.
  std::string ns = StringField(*meta, "namespace");
  if (namespaced && !ns.empty()) {
    for (const std::string& msg : config::Dns1123LabelErrors(ns)) {
      errs->push_back(
          config::Invalid(path.Child("namespace"), GoQuote(ns), msg));
    }
  }
  ValidateLabels(ObjectField(*meta, "labels"), path.Child("labels"), errs);
  ValidateAnnotations(ObjectField(*meta, "annotations"),
                      path.Child("annotations"), errs);
}

}  // namespace ksched::validation::internal
