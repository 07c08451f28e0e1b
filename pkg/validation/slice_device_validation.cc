// One device of a ResourceSlice (validateDevice): its name, attributes
// and capacities, taints, counter consumption, own node selection and
// binding conditions, as v1.36 checks them with its default gates
// (DRAListTypeAttributes and DRANodeAllocatableResources off: the slice
// strategy drops list attributes and resource mappings before validating).
#include <algorithm>
#include <set>

#include "pkg/validation/dra_internal.h"

namespace ksched::validation::internal::dra {
namespace {

using config::GoQuote;
using config::GoValue;

constexpr size_t kMaxAttributesAndCapacitiesPerDevice = 32;
constexpr size_t kMaxAttributeValuesPerDevice = 48;
constexpr size_t kAttributeMaxValueLength = 64;
// DeviceMaxDomainLength + 1 + DeviceMaxIDLength: where keys of attributes
// and capacities are cut in field paths.
constexpr size_t kAttributeKeyMaxLength = 63 + 1 + 32;
constexpr size_t kDeviceTaintsMaxLength = 16;
constexpr size_t kMaxCounterConsumptionsPerDevice = 2;
constexpr size_t kBindingConditionsMaxSize = 4;

// An identifier of a semantic version's pre-release part: a number
// without leading zeros, or alphanumerics and '-' with one non-digit.
bool IsPreReleaseIdentifier(std::string_view id) {
  if (id.empty()) return false;
  bool all_digits = true;
  for (char c : id) {
    bool digit = c >= '0' && c <= '9';
    bool alnum = digit || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alnum && c != '-') return false;
    all_digits = all_digits && digit;
  }
  return !all_digits || id == "0" || id.front() != '0';
}

bool IsBuildIdentifier(std::string_view id) {
  if (id.empty()) return false;
  for (char c : id) {
    if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'z') &&
        !(c >= 'A' && c <= 'Z') && c != '-') {
      return false;
    }
  }
  return true;
}

// Each '.'-separated identifier of `s` passes `valid`.
template <typename Valid>
bool AllIdentifiers(std::string_view s, Valid valid) {
  while (true) {
    size_t dot = s.find('.');
    if (!valid(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

// kube's semverRe: MAJOR.MINOR.PATCH, numbers without leading zeros, an
// optional pre-release after '-' and build after '+'.
bool IsSemver(std::string_view v) {
  size_t plus = v.find('+');
  if (plus != std::string_view::npos) {
    if (!AllIdentifiers(v.substr(plus + 1), IsBuildIdentifier)) return false;
    v = v.substr(0, plus);
  }
  size_t dash = v.find('-');
  if (dash != std::string_view::npos) {
    if (!AllIdentifiers(v.substr(dash + 1), IsPreReleaseIdentifier)) {
      return false;
    }
    v = v.substr(0, dash);
  }
  int parts = 0;
  bool numbers = AllIdentifiers(v, [&](std::string_view n) {
    ++parts;
    if (n.empty() || (n.size() > 1 && n.front() == '0')) return false;
    for (char c : n) {
      if (c < '0' || c > '9') return false;
    }
    return true;
  });
  return numbers && parts == 3;
}

// encoding/json's rendering of the internal DeviceAttribute (no JSON tags:
// Go's field names; the list fields, dropped, are null).
std::string AttributeJson(const Json& attr) {
  auto scalar = [&](std::string_view member, bool quoted) -> std::string {
    const Json* v = Field(attr, member);
    if (v == nullptr) return "null";
    std::string text = ScalarText(*v).value_or("");
    return quoted ? JsonQuote(text) : text;
  };
  return "{\"IntValue\":" + scalar("int", false) +
         ",\"BoolValue\":" + scalar("bool", false) +
         ",\"StringValue\":" + scalar("string", true) +
         ",\"VersionValue\":" + scalar("version", true) +
         ",\"IntValues\":null,\"BoolValues\":null,\"StringValues\":null,"
         "\"VersionValues\":null}";
}

// validateDeviceAttribute: exactly one value.
void ValidateAttribute(const Json& attr, const FieldPath& path,
                       FieldErrors* errs) {
  int values = 0;
  values += Field(attr, "bool") != nullptr;
  values += Field(attr, "int") != nullptr;
  if (Field(attr, "string") != nullptr) {
    ++values;
    if (StringField(attr, "string").size() > kAttributeMaxValueLength) {
      errs->push_back(
          config::TooLong(path.Child("string"), kAttributeMaxValueLength));
    }
  }
  if (Field(attr, "version") != nullptr) {
    ++values;
    std::string version = StringField(attr, "version");
    if (!IsSemver(version)) {
      errs->push_back(
          config::Invalid(path.Child("version"), GoQuote(version),
                          "must be a string compatible with semver.org spec "
                          "2.0.0"));
    }
    if (version.size() > kAttributeMaxValueLength) {
      errs->push_back(
          config::TooLong(path.Child("version"), kAttributeMaxValueLength));
    }
  }
  if (values == 0) {
    errs->push_back(config::Invalid(path, GoQuote(""),
                                    "exactly one value must be specified"));
  } else if (values > 1) {
    errs->push_back(config::Invalid(path, AttributeJson(attr),
                                    "exactly one value must be specified"));
  }
}

// validateMap over attributes or capacities: each key a qualified name
// (reported at the map's own path), each value checked under its key.
template <typename CheckValue>
void ValidateQualifiedMap(const Json* map, const FieldPath& path,
                          FieldErrors* errs, CheckValue check_value) {
  if (map == nullptr) return;
  for (auto it = map->MemberBegin(); it != map->MemberEnd(); ++it) {
    std::string_view key(it->name.GetString(), it->name.GetStringLength());
    ValidateQualifiedName(key, path, errs);
    check_value(it->value, path.Key(TruncateKey(key, kAttributeKeyMaxLength)));
  }
}

// validateDevice's node selection: a device may name its own node(s)
// only in a slice with perDeviceNodeSelection, and then must.
void ValidateDeviceNodeSelection(const Json& device,
                                 bool per_device_node_selection,
                                 const FieldPath& path, FieldErrors* errs) {
  const Json* node_name = Field(device, "nodeName");
  const Json* node_selector = ObjectField(device, "nodeSelector");
  const Json* all_nodes = Field(device, "allNodes");
  if (!per_device_node_selection) {
    if (node_name != nullptr || node_selector != nullptr ||
        all_nodes != nullptr) {
      errs->push_back(config::Invalid(
          path, "null",
          "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
          "`perDeviceNodeSelection` is set to true in the ResourceSlice "
          "spec"));
    }
    return;
  }
  std::vector<std::string> set_fields;
  if (node_name != nullptr) {
    if (std::string name = ScalarText(*node_name).value_or(""); !name.empty()) {
      set_fields.push_back("`nodeName`");
      ValidateNodeName(name, path.Child("nodeName"), errs);
    } else {
      errs->push_back(config::Invalid(path.Child("nodeName"), GoQuote(""),
                                      "must not be empty"));
    }
  }
  if (node_selector != nullptr) {
    set_fields.push_back("`nodeSelector`");
    ValidateNodeSelector(*node_selector, path.Child("nodeSelector"), errs);
  }
  if (all_nodes != nullptr) {
    if (BoolField(device, "allNodes")) {
      set_fields.push_back("`allNodes`");
    } else {
      errs->push_back(config::Invalid(path.Child("allNodes"), "false",
                                      "must be either unset or set to true"));
    }
  }
  constexpr std::string_view kExactlyOne =
      "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required "
      "when `perDeviceNodeSelection` is set to true in the ResourceSlice "
      "spec";
  if (set_fields.empty()) {
    errs->push_back(config::Required(path, kExactlyOne));
  } else if (set_fields.size() > 1) {
    errs->push_back(
        config::Invalid(path, GoQuote(SetFieldsText(set_fields)), kExactlyOne));
  }
}

// validateDeviceBindingParameters.
void ValidateBindingConditions(const Json& device, const FieldPath& path,
                               FieldErrors* errs) {
  const Json* conditions = ArrayField(device, "bindingConditions");
  const Json* failures = ArrayField(device, "bindingFailureConditions");
  FieldPath conditions_path = path.Child("bindingConditions");
  FieldPath failures_path = path.Child("bindingFailureConditions");
  std::vector<std::string> condition_texts = ItemTexts(conditions);
  std::vector<std::string> failure_texts = ItemTexts(failures);
  // Each list: at most 4 condition types, each a qualified name.
  auto validate_list = [&](const Json* list,
                           const std::vector<std::string>& texts,
                           const FieldPath& list_path) {
    if (TooManyItems(list, kBindingConditionsMaxSize, list_path, errs)) return;
    for (size_t i = 0; i < texts.size(); ++i) {
      ValidateLabelName(texts[i], list_path.Index(i), errs);
    }
  };
  validate_list(conditions, condition_texts, conditions_path);
  validate_list(failures, failure_texts, failures_path);
  ReportDuplicates(condition_texts, conditions_path, errs);
  std::set<std::string_view> seen;
  for (size_t i = 0; i < failure_texts.size(); ++i) {
    const std::string& failure = failure_texts[i];
    if (!seen.insert(failure).second) {
      errs->push_back(
          config::Duplicate(failures_path.Index(i), GoQuote(failure)));
    }
    if (std::find(condition_texts.begin(), condition_texts.end(), failure) !=
        condition_texts.end()) {
      errs->push_back(config::Invalid(
          failures_path.Index(i), GoQuote(failure),
          "bindingFailureConditions must not overlap with bindingConditions"));
    }
  }
  if (condition_texts.empty() && !failure_texts.empty()) {
    errs->push_back(config::Invalid(
        conditions_path, StringListJson(conditions),
        "bindingConditions are required to use bindingFailureConditions"));
  }
  if (failure_texts.empty() && !condition_texts.empty()) {
    errs->push_back(config::Invalid(
        failures_path, StringListJson(failures),
        "bindingFailureConditions are required to use bindingConditions"));
  }
}

}  // namespace

void ValidateCounters(const Json* counters, const FieldPath& path,
                      FieldErrors* errs) {
  constexpr size_t kMaxCounters = 32;
  if (counters == nullptr || counters->MemberCount() == 0) {
    errs->push_back(config::Required(path, ""));
    return;
  }
  if (counters->MemberCount() > kMaxCounters) {
    errs->push_back(config::TooMany(path, counters->MemberCount(),
                                    static_cast<int64_t>(kMaxCounters)));
    return;
  }
  for (auto it = counters->MemberBegin(); it != counters->MemberEnd(); ++it) {
    ValidateDns1123Label(
        std::string_view(it->name.GetString(), it->name.GetStringLength()),
        path, errs);
  }
}

void ValidateDevice(const Json& device, bool per_device_node_selection,
                    const FieldPath& path, FieldErrors* errs) {
  ValidateDns1123Label(StringField(device, "name"), path.Child("name"), errs);
  const Json* attributes = ObjectField(device, "attributes");
  const Json* capacity = ObjectField(device, "capacity");
  size_t attribute_count = attributes ? attributes->MemberCount() : 0;
  size_t capacity_count = capacity ? capacity->MemberCount() : 0;
  if (attribute_count + capacity_count > kMaxAttributesAndCapacitiesPerDevice) {
    errs->push_back(config::Invalid(
        path, GoValue(static_cast<int64_t>(attribute_count + capacity_count)),
        "the total number of attributes and capacities must not exceed " +
            std::to_string(kMaxAttributesAndCapacitiesPerDevice)));
  }
  // Without list attributes each attribute holds one value.
  if (attribute_count > kMaxAttributeValuesPerDevice) {
    errs->push_back(config::Invalid(
        path, GoValue(static_cast<int64_t>(attribute_count)),
        "the total number of attribute values must not exceed " +
            std::to_string(kMaxAttributeValuesPerDevice)));
  }
  ValidateQualifiedMap(attributes, path.Child("attributes"), errs,
                       [&](const Json& attr, const FieldPath& p) {
                         ValidateAttribute(attr, p, errs);
                       });
  const bool multiple_allocations =
      BoolField(device, "allowMultipleAllocations");
  ValidateQualifiedMap(capacity, path.Child("capacity"), errs,
                       [&](const Json& cap, const FieldPath& p) {
                         const Json* policy = ObjectField(cap, "requestPolicy");
                         if (policy == nullptr) return;
                         if (multiple_allocations) {
                           ValidateRequestPolicy(CapacityValue(cap), *policy,
                                                 p.Child("requestPolicy"),
                                                 errs);
                         } else {
                           errs->push_back(config::Forbidden(
                               p.Child("requestPolicy"),
                               "allowMultipleAllocations must be true"));
                         }
                       });

  FieldPath taints_path = path.Child("taints");
  const Json* taints = ArrayField(device, "taints");
  if (taints != nullptr &&
      !TooManyItems(taints, kDeviceTaintsMaxLength, taints_path, errs)) {
    for (size_t i = 0; i < taints->Size(); ++i) {
      ValidateDeviceTaint((*taints)[static_cast<rapidjson::SizeType>(i)],
                          taints_path.Index(i), errs);
    }
  }

  FieldPath consumes_path = path.Child("consumesCounters");
  const Json* consumes = ArrayField(device, "consumesCounters");
  if (consumes != nullptr &&
      !TooManyItems(consumes, kMaxCounterConsumptionsPerDevice, consumes_path,
                    errs)) {
    std::vector<std::string> counter_sets;
    for (size_t i = 0; i < consumes->Size(); ++i) {
      const Json& consumption =
          (*consumes)[static_cast<rapidjson::SizeType>(i)];
      FieldPath p = consumes_path.Index(i);
      std::string counter_set = StringField(consumption, "counterSet");
      if (counter_set.empty()) {
        errs->push_back(config::Required(p.Child("counterSet"), ""));
      } else {
        ValidateDns1123Label(counter_set, p.Child("counterSet"), errs);
      }
      ValidateCounters(ObjectField(consumption, "counters"),
                       p.Child("counters"), errs);
      counter_sets.push_back(std::move(counter_set));
    }
    ReportDuplicates(counter_sets, consumes_path, errs);
  }

  ValidateDeviceNodeSelection(device, per_device_node_selection, path, errs);
  ValidateBindingConditions(device, path, errs);
}

}  // namespace ksched::validation::internal::dra
