// ResourceSlice (ValidateResourceSlice): driver, pool, which nodes the
// slice serves, its devices or its shared counters (one or the other).
#include "pkg/validation/dra_internal.h"
#include "pkg/validation/validation.h"

namespace ksched::validation {
namespace internal::dra {
namespace {

using config::GoQuote;
using config::GoValue;

constexpr size_t kMaxDevices = 128;
// With taints or counter consumption on any device, a slice holds fewer.
constexpr size_t kMaxDevicesWithAdvancedFeatures = 64;
constexpr size_t kMaxCounterSets = 8;

// validateResourcePool.
void ValidatePool(const Json& spec, const FieldPath& path, FieldErrors* errs) {
  static const Json kEmpty(rapidjson::kObjectType);
  const Json* pool = ObjectField(spec, "pool");
  if (pool == nullptr) pool = &kEmpty;
  ValidatePoolName(StringField(*pool, "name"), path.Child("name"), errs);
  int64_t count = IntField(*pool, "resourceSliceCount").value_or(0);
  if (count <= 0) {
    errs->push_back(config::Invalid(path.Child("resourceSliceCount"),
                                    GoValue(count),
                                    "must be greater than zero"));
  }
  int64_t generation = IntField(*pool, "generation").value_or(0);
  if (generation < 0) {
    errs->push_back(config::Invalid(path.Child("generation"),
                                    GoValue(generation),
                                    "must be greater than or equal to zero"));
  }
}

// encoding/json's rendering of the internal []NodeSelectorTerm (Go's field
// names, absent lists null).
std::string NodeSelectorTermsJson(const Json* terms) {
  if (terms == nullptr) return "null";
  auto requirements = [](const Json& term, std::string_view member) {
    const Json* list = ArrayField(term, member);
    if (list == nullptr) return std::string("null");
    std::string out = "[";
    for (const Json& r : list->GetArray()) {
      if (out.size() > 1) out += ',';
      out += "{\"Key\":" + JsonQuote(StringField(r, "key")) +
             ",\"Operator\":" + JsonQuote(StringField(r, "operator")) +
             ",\"Values\":" + StringListJson(ArrayField(r, "values")) + "}";
    }
    return out + "]";
  };
  std::string out = "[";
  for (const Json& term : terms->GetArray()) {
    if (out.size() > 1) out += ',';
    out += "{\"MatchExpressions\":" + requirements(term, "matchExpressions") +
           ",\"MatchFields\":" + requirements(term, "matchFields") + "}";
  }
  return out + "]";
}

// Exactly one of nodeName, nodeSelector, allNodes and
// perDeviceNodeSelection (the last two must be true when set).
void ValidateNodeSelection(const Json& spec, const FieldPath& path,
                           FieldErrors* errs) {
  std::vector<std::string> set_fields;
  if (const Json* node_name = Field(spec, "nodeName")) {
    if (std::string name = ScalarText(*node_name).value_or(""); !name.empty()) {
      set_fields.push_back("`nodeName`");
      ValidateNodeName(name, path.Child("nodeName"), errs);
    } else {
      errs->push_back(
          config::Invalid(path.Child("nodeName"), GoQuote(""),
                          "must be either unset or set to a non-empty string"));
    }
  }
  if (const Json* selector = ObjectField(spec, "nodeSelector")) {
    set_fields.push_back("`nodeSelector`");
    FieldPath selector_path = path.Child("nodeSelector");
    ValidateNodeSelector(*selector, selector_path, errs);
    const Json* terms = ArrayField(*selector, "nodeSelectorTerms");
    if (terms == nullptr || terms->Size() != 1) {
      // One term only: selectors of devices from several slices are merged
      // into one.
      errs->push_back(
          config::Invalid(selector_path.Child("nodeSelectorTerms"),
                          NodeSelectorTermsJson(terms),
                          "must have exactly one node selector term"));
    }
  }
  for (std::string_view flag : {"allNodes", "perDeviceNodeSelection"}) {
    if (Field(spec, flag) == nullptr) continue;
    if (BoolField(spec, flag)) {
      set_fields.push_back("`" + std::string(flag) + "`");
    } else {
      errs->push_back(config::Invalid(path.Child(flag), "false",
                                      "must be either unset or set to true"));
    }
  }
  constexpr std::string_view kExactlyOne =
      "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
      "`perDeviceNodeSelection` is required";
  if (set_fields.empty()) {
    errs->push_back(config::Required(path, kExactlyOne));
  } else if (set_fields.size() > 1) {
    errs->push_back(config::Invalid(
        path, GoQuote(SetFieldsText(set_fields)),
        std::string(kExactlyOne) + ", but multiple fields are set"));
  }
}

bool AnyDeviceHas(const Json* devices, std::string_view list_member) {
  if (devices == nullptr) return false;
  for (const Json& device : devices->GetArray()) {
    const Json* list = ArrayField(device, list_member);
    if (list != nullptr && !list->Empty()) return true;
  }
  return false;
}

// validateCounterSet.
void ValidateCounterSet(const Json& set, const FieldPath& path,
                        FieldErrors* errs) {
  std::string name = StringField(set, "name");
  if (name.empty()) {
    errs->push_back(config::Required(path.Child("name"), ""));
  } else {
    ValidateDns1123Label(name, path.Child("name"), errs);
  }
  ValidateCounters(ObjectField(set, "counters"), path.Child("counters"), errs);
}

}  // namespace

std::string SetFieldsText(const std::vector<std::string>& fields) {
  std::string out = "{";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ", ";
    out += fields[i];
  }
  return out + "}";
}

}  // namespace internal::dra

FieldErrors ValidateResourceSlice(const rapidjson::Value& slice) {
  using namespace internal;
  FieldErrors errs;
  if (!slice.IsObject()) return errs;
  ValidateObjectMeta(slice, NameRule::kDnsSubdomain, false, &errs);
  static const Json kEmpty(rapidjson::kObjectType);
  const Json* spec = ObjectField(slice, "spec");
  if (spec == nullptr) spec = &kEmpty;
  FieldPath path("spec");
  dra::ValidateDriverName(StringField(*spec, "driver"), path.Child("driver"),
                          &errs);
  dra::ValidatePool(*spec, path.Child("pool"), &errs);
  dra::ValidateNodeSelection(*spec, path, &errs);

  // Both lists count when present, even empty.
  const Json* devices = ArrayField(*spec, "devices");
  const Json* counter_sets = ArrayField(*spec, "sharedCounters");
  if (devices != nullptr && counter_sets != nullptr) {
    errs.push_back(config::Invalid(
        path, config::GoQuote(""),
        "only one of `sharedCounters` or `devices` is allowed"));
  }

  FieldPath devices_path = path.Child("devices");
  size_t max_devices = dra::AnyDeviceHas(devices, "taints") ||
                               dra::AnyDeviceHas(devices, "consumesCounters")
                           ? dra::kMaxDevicesWithAdvancedFeatures
                           : dra::kMaxDevices;
  if (devices != nullptr &&
      !dra::TooManyItems(devices, max_devices, devices_path, &errs)) {
    const bool per_device_node_selection =
        BoolField(*spec, "perDeviceNodeSelection");
    std::vector<std::string> names;
    for (size_t i = 0; i < devices->Size(); ++i) {
      const Json& device = (*devices)[static_cast<rapidjson::SizeType>(i)];
      dra::ValidateDevice(device, per_device_node_selection,
                          devices_path.Index(i), &errs);
      names.push_back(StringField(device, "name"));
    }
    dra::ReportDuplicates(names, devices_path, &errs);
  }

  FieldPath counters_path = path.Child("sharedCounters");
  if (counter_sets != nullptr &&
      !dra::TooManyItems(counter_sets, dra::kMaxCounterSets, counters_path,
                         &errs)) {
    std::vector<std::string> names;
    for (size_t i = 0; i < counter_sets->Size(); ++i) {
      const Json& set = (*counter_sets)[static_cast<rapidjson::SizeType>(i)];
      dra::ValidateCounterSet(set, counters_path.Index(i), &errs);
      names.push_back(StringField(set, "name"));
    }
    dra::ReportDuplicates(names, counters_path, &errs);
  }
  return errs;
}

}  // namespace ksched::validation
