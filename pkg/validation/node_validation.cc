// Nodes (ValidateNode in core validation): metadata, taints, and the
// capacity and allocatable the scheduler fits pods into.
#include <set>
#include <utility>

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
  }
  return errs;
}

}  // namespace ksched::validation
