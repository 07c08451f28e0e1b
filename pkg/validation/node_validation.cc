// Nodes (ValidateNode in core validation): metadata, taints, the capacity
// and allocatable the scheduler fits pods into, and the declared features
// NodeDeclaredFeatures matches pods against.
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/config/name_validation.h"
#include "pkg/validation/internal.h"
#include "pkg/validation/validation.h"

namespace ksched::validation {
namespace {

using internal::Json;
using internal::JsonQuote;
using internal::StringField;

// A core.Taint as encoding/json writes it: the internal type has no JSON
// tags, so its Go field names are the keys.
std::string TaintJson(const Json& taint) {
  std::string time_added = "null";
  if (const Json* t = internal::Field(taint, "timeAdded"); t && t->IsString()) {
    time_added =
        JsonQuote(std::string_view(t->GetString(), t->GetStringLength()));
  }
  return "{\"Key\":" + JsonQuote(StringField(taint, "key")) +
         ",\"Value\":" + JsonQuote(StringField(taint, "value")) +
         ",\"Effect\":" + JsonQuote(StringField(taint, "effect")) +
         ",\"TimeAdded\":" + time_added + "}";
}

// validateNodeTaints. ValidateNode passes it the metadata path, so kube
// reports taints as metadata.taints[i], and so does this.
void ValidateNodeTaints(const Json& taints, const config::FieldPath& path,
                        FieldErrors* errs) {
  std::set<std::pair<std::string, std::string>> seen;  // effect, key
  for (size_t i = 0; i < taints.Size(); ++i) {
    const Json& taint = taints[static_cast<rapidjson::SizeType>(i)];
    if (!taint.IsObject()) continue;
    config::FieldPath p = path.Index(i);
    std::string key = StringField(taint, "key");
    std::string value = StringField(taint, "value");
    std::string effect = StringField(taint, "effect");
    internal::ValidateLabelName(key, p.Child("key"), errs);
    internal::ValidateJoinedLabelValue(value, p.Child("value"), errs);
    if (effect.empty()) {
      errs->push_back(config::Required(p.Child("effect"), ""));
    } else {
      internal::ValidateTaintEffect(effect, p.Child("effect"), errs);
    }
    if (!seen.insert({effect, key}).second) {
      FieldError dup = config::Duplicate(p, TaintJson(taint));
      dup.detail = "taints must be unique by key and effect pair";
      errs->push_back(std::move(dup));
    }
  }
}

// A declared feature's name: an UpperCamelCase segment, then any number of
// "/segment" whose first letter may be either case, letters and digits only
// (kube's ^[A-Z][a-zA-Z0-9]*(\/[a-zA-Z][a-zA-Z0-9]*)*$).
bool IsDeclaredFeatureName(std::string_view name) {
  auto is_upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  auto is_letter = [&](char c) {
    return is_upper(c) || (c >= 'a' && c <= 'z');
  };
  auto is_alnum = [&](char c) {
    return is_letter(c) || (c >= '0' && c <= '9');
  };
  if (name.empty() || !is_upper(name.front())) return false;
  for (size_t i = 1; i < name.size(); ++i) {
    if (name[i] == '/') {
      // A segment must follow, starting with a letter.
      if (i + 1 >= name.size() || !is_letter(name[i + 1])) return false;
      ++i;
    } else if (!is_alnum(name[i])) {
      return false;
    }
  }
  return true;
}

// validateNodeDeclaredFeatures: each name well formed, and the list sorted
// and unique (compared with its successor, so the error names the later
// entry). The API server drops the field when NodeDeclaredFeatures is off;
// v1.36 has it on by default.
void ValidateDeclaredFeatures(const Json& features,
                              const config::FieldPath& path,
                              FieldErrors* errs) {
  constexpr size_t kMaxNameLength = 253;  // DNS1123SubdomainMaxLength
  std::vector<std::optional<std::string>> names;
  names.reserve(features.Size());
  for (const Json& f : features.GetArray()) {
    names.push_back(internal::ScalarText(f));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (!names[i]) continue;
    const std::string& name = *names[i];
    if (name.size() > kMaxNameLength) {
      errs->push_back(
          config::Invalid(path.Index(i), config::GoQuote(name),
                          "invalid feature name " + config::GoQuote(name) +
                              ": must be no more than " +
                              std::to_string(kMaxNameLength) + " characters"));
    } else if (!IsDeclaredFeatureName(name)) {
      errs->push_back(config::Invalid(
          path.Index(i), config::GoQuote(name),
          "invalid feature name " + config::GoQuote(name) +
              ": must start with an UpperCamelCase segment, with subsequent "
              "segments separated by '/' (e.g., MyFeature or "
              "MyFeature/mySubFeature), and contain only alphanumeric "
              "characters and slashes"));
    }
    if (i + 1 >= names.size() || !names[i + 1]) continue;
    const std::string& next = *names[i + 1];
    if (name == next) {
      errs->push_back(
          config::Duplicate(path.Index(i + 1), config::GoQuote(next)));
    } else if (name > next) {
      errs->push_back(config::Invalid(path.Index(i + 1), config::GoQuote(next),
                                      "list must be sorted alphabetically"));
    }
  }
}

}  // namespace

FieldErrors ValidateNode(const rapidjson::Value& node) {
  FieldErrors errs;
  if (!node.IsObject()) return errs;
  internal::ValidateObjectMeta(node, internal::NameRule::kDnsSubdomain, false,
                               &errs);
  if (const Json* spec = internal::ObjectField(node, "spec")) {
    if (const Json* taints = internal::ArrayField(*spec, "taints")) {
      ValidateNodeTaints(*taints, config::FieldPath("metadata").Child("taints"),
                         &errs);
    }
  }
  // ValidateNodeResources: quantities only (names are not checked), under
  // paths such as status.capacity.cpu.
  if (const Json* status = internal::ObjectField(node, "status")) {
    for (std::string_view list : {"capacity", "allocatable"}) {
      config::FieldPath path = config::FieldPath("status").Child(list);
      for (const internal::Resource& r :
           internal::ReadResourceList(internal::ObjectField(*status, list))) {
        internal::ValidateResourceQuantityValue(r.name, r.quantity,
                                                path.Child(r.name), &errs);
      }
    }
    if (const Json* features =
            internal::ArrayField(*status, "declaredFeatures")) {
      ValidateDeclaredFeatures(
          *features, config::FieldPath("status").Child("declaredFeatures"),
          &errs);
    }
  }
  return errs;
}

}  // namespace ksched::validation
