// The lists of resource.k8s.io objects (validateSlice, validateSet), and
// what classes, claims and slices share: opaque driver configuration,
// device tolerations and device taints.
#include <set>

#include "pkg/api/json_stream.h"
#include "pkg/validation/dra_internal.h"

namespace ksched::validation::internal::dra {
namespace {

using config::GoQuote;

// DeviceTaintEffect values, sorted as sets.List gives them.
const std::vector<std::string>& TaintEffects() {
  static const auto* const kEffects =
      new std::vector<std::string>{"NoExecute", "NoSchedule", "None"};
  return *kEffects;
}

bool IsTaintEffect(std::string_view effect) {
  for (const std::string& e : TaintEffects()) {
    if (e == effect) return true;
  }
  return false;
}

// The length of `v` as the client sent it: kubectl sends what
// encoding/json writes, compact, strings escaped its way. A driver's
// parameters reach the API server as those bytes, and their limit counts
// them.
size_t EncodedLength(const Json& v) {
  if (v.IsNull()) return 4;
  if (v.IsBool()) return v.GetBool() ? 4 : 5;
  if (v.IsNumber()) return api::JsonNumberText(v).size();
  if (v.IsString()) {
    return JsonQuote(std::string_view(v.GetString(), v.GetStringLength()))
        .size();
  }
  size_t n = 2;  // the brackets
  if (v.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      n += (i > 0 ? 1 : 0) + EncodedLength(v[i]);
    }
    return n;
  }
  bool first = true;
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    n += (first ? 0 : 1) +
         JsonQuote(
             std::string_view(it->name.GetString(), it->name.GetStringLength()))
             .size() +
         1 + EncodedLength(it->value);
    first = false;
  }
  return n;
}

// validateRawExtension on create (nothing stored yet).
void ValidateParameters(const Json* raw, const FieldPath& path,
                        FieldErrors* errs) {
  // `null` and an absent value both leave RawExtension.Raw empty.
  if (raw == nullptr) {
    errs->push_back(config::Required(path, ""));
  } else if (EncodedLength(*raw) > kOpaqueParametersMaxLength) {
    errs->push_back(config::TooLong(path, kOpaqueParametersMaxLength));
  } else if (!raw->IsObject()) {
    errs->push_back(config::Invalid(path, GoQuote("<value omitted>"),
                                    "must be a valid JSON object"));
  }
}

}  // namespace

bool TooManyItems(const Json* list, size_t max_size, const FieldPath& path,
                  FieldErrors* errs) {
  if (list == nullptr || list->Size() <= max_size) return false;
  errs->push_back(
      config::TooMany(path, list->Size(), static_cast<int64_t>(max_size)));
  return true;
}

void ReportDuplicates(const std::vector<std::string>& keys,
                      const FieldPath& path, FieldErrors* errs) {
  std::set<std::string_view> seen;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!seen.insert(keys[i]).second) {
      errs->push_back(config::Duplicate(path.Index(i), GoQuote(keys[i])));
    }
  }
}

std::vector<std::string> ItemTexts(const Json* list) {
  std::vector<std::string> out;
  if (list == nullptr) return out;
  for (const Json& item : list->GetArray()) {
    out.push_back(ScalarText(item).value_or(""));
  }
  return out;
}

std::string StringListJson(const Json* list) {
  if (list == nullptr) return "null";
  std::string out = "[";
  for (const std::string& item : ItemTexts(list)) {
    if (out.size() > 1) out += ',';
    out += JsonQuote(item);
  }
  return out + "]";
}

void ValidateDeviceConfiguration(const Json& config, const FieldPath& path,
                                 FieldErrors* errs) {
  FieldPath opaque_path = path.Child("opaque");
  const Json* opaque = ObjectField(config, "opaque");
  if (opaque == nullptr) {
    errs->push_back(config::Required(opaque_path, ""));
    return;
  }
  ValidateDriverName(StringField(*opaque, "driver"),
                     opaque_path.Child("driver"), errs);
  ValidateParameters(Field(*opaque, "parameters"),
                     opaque_path.Child("parameters"), errs);
}

void ValidateDeviceToleration(const Json& toleration, const FieldPath& path,
                              FieldErrors* errs) {
  std::string key = StringField(toleration, "key");
  if (!key.empty()) ValidateLabelName(key, path.Child("key"), errs);
  std::string op = StringField(toleration, "operator");
  if (op.empty()) op = "Equal";  // the API's default
  std::string value = StringField(toleration, "value");
  if (op == "Exists") {
    if (!value.empty()) {
      errs->push_back(config::Invalid(path.Child("value"), GoQuote(value),
                                      "must be empty for operator `Exists`"));
    }
  } else if (op == "Equal") {
    ValidateLabelValue(value, path.Child("value"), errs);
  } else {
    errs->push_back(config::NotSupported(path.Child("operator"), JsonQuote(op),
                                         {"Equal", "Exists"}));
  }
  std::string effect = StringField(toleration, "effect");
  if (!effect.empty() && !IsTaintEffect(effect)) {
    errs->push_back(config::NotSupported(path.Child("effect"),
                                         JsonQuote(effect), TaintEffects()));
  }
}

void ValidateDeviceTaint(const Json& taint, const FieldPath& path,
                         FieldErrors* errs) {
  ValidateLabelName(StringField(taint, "key"), path.Child("key"), errs);
  if (std::string value = StringField(taint, "value"); !value.empty()) {
    ValidateLabelValue(value, path.Child("value"), errs);
  }
  std::string effect = StringField(taint, "effect");
  if (effect.empty()) {
    errs->push_back(config::Required(path.Child("effect"), ""));
  } else if (!IsTaintEffect(effect)) {
    errs->push_back(config::NotSupported(path.Child("effect"),
                                         JsonQuote(effect), TaintEffects()));
  }
}

}  // namespace ksched::validation::internal::dra
