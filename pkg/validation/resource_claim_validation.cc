// ResourceClaim and ResourceClaimTemplate (ValidateResourceClaim,
// ValidateResourceClaimTemplate): the device requests, constraints and
// configuration of a claim's spec, after the API's defaults
// (allocationMode ExactCount, count 1, toleration operator Equal).
//
// Left out: the namespace label `resource.kubernetes.io/admin-access` that
// an adminAccess request needs (AuthorizedForAdmin). It is a property of
// another object, which the API server reads from its store; a file's
// namespaces may not be in the file at all.
#include <map>
#include <set>

#include "pkg/validation/dra_internal.h"
#include "pkg/validation/validation.h"

namespace ksched::validation {
namespace internal::dra {
namespace {

using config::GoQuote;
using config::GoValue;

constexpr std::string_view kRequestRefMessage =
    "must be the name of a request in the claim or the name of a request and "
    "a subrequest separated by '/'";

// The names constraints and config may refer to (gatherRequestNames):
// each request's, and "<request>/<subrequest>" for its firstAvailable
// subrequests. A later request of a repeated name replaces the earlier.
class RequestNames {
 public:
  explicit RequestNames(const Json* requests) {
    if (requests == nullptr) return;
    for (const Json& request : requests->GetArray()) {
      std::set<std::string>& subrequests = names_[StringField(request, "name")];
      subrequests.clear();
      if (const Json* subs = ArrayField(request, "firstAvailable")) {
        for (const Json& sub : subs->GetArray()) {
          subrequests.insert(StringField(sub, "name"));
        }
      }
    }
  }

  bool Has(std::string_view ref) const {
    size_t slash = ref.find('/');
    auto it = names_.find(std::string(ref.substr(0, slash)));
    if (it == names_.end()) return false;
    if (slash == std::string_view::npos) return true;
    std::string_view sub = ref.substr(slash + 1);
    return sub.find('/') == std::string_view::npos &&
           it->second.count(std::string(sub)) > 0;
  }

 private:
  std::map<std::string, std::set<std::string>> names_;
};

// validateDeviceAllocationMode, on the request as the API defaulted it.
void ValidateAllocationMode(const Json& request, const FieldPath& path,
                            FieldErrors* errs) {
  std::string mode = StringField(request, "allocationMode");
  int64_t count = IntField(request, "count").value_or(0);
  if (mode.empty()) mode = "ExactCount";
  if (mode == "ExactCount" && count == 0) count = 1;
  if (mode == "All") {
    if (count != 0) {
      errs->push_back(config::Invalid(
          path.Child("count"), GoValue(count),
          "must not be specified when allocationMode is 'All'"));
    }
  } else if (mode == "ExactCount") {
    if (count <= 0) {
      errs->push_back(config::Invalid(path.Child("count"), GoValue(count),
                                      "must be greater than zero"));
    }
  } else {
    errs->push_back(config::NotSupported(
        path.Child("allocationMode"), JsonQuote(mode), {"All", "ExactCount"}));
  }
}

// What an exact request and a subrequest share: class, selectors, mode
// and count, tolerations.
void ValidateRequestBody(const Json& request, const FieldPath& path,
                         FieldErrors* errs) {
  FieldPath class_path = path.Child("deviceClassName");
  if (std::string name = StringField(request, "deviceClassName");
      name.empty()) {
    errs->push_back(config::Required(class_path, ""));
  } else {
    ValidateDns1123Subdomain(name, class_path, errs);
  }
  ValidateDeviceSelectors(ArrayField(request, "selectors"),
                          path.Child("selectors"), errs);
  ValidateAllocationMode(request, path, errs);
  if (const Json* tolerations = ArrayField(request, "tolerations")) {
    for (size_t i = 0; i < tolerations->Size(); ++i) {
      ValidateDeviceToleration(
          (*tolerations)[static_cast<rapidjson::SizeType>(i)],
          path.Child("tolerations").Index(i), errs);
    }
  }
}

std::vector<std::string> Names(const Json& list) {
  std::vector<std::string> names;
  for (const Json& item : list.GetArray()) {
    names.push_back(StringField(item, "name"));
  }
  return names;
}

// validateDeviceRequest: exactly one of `exactly` and `firstAvailable`.
void ValidateDeviceRequest(const Json& request, const FieldPath& path,
                           FieldErrors* errs) {
  ValidateDns1123Label(StringField(request, "name"), path.Child("name"), errs);
  const Json* exactly = ObjectField(request, "exactly");
  const Json* first_available = ArrayField(request, "firstAvailable");
  bool has_first_available =
      first_available != nullptr && !first_available->Empty();
  if (exactly == nullptr && !has_first_available) {
    errs->push_back(config::Required(
        path, "exactly one of `exactly` or `firstAvailable` is required"));
  } else if (exactly != nullptr && has_first_available) {
    errs->push_back(config::Invalid(
        path, "null",
        "exactly one of `exactly` or `firstAvailable` is required, but "
        "multiple fields are set"));
  } else if (has_first_available) {
    FieldPath subs_path = path.Child("firstAvailable");
    if (TooManyItems(first_available, kFirstAvailableDeviceRequestMaxSize,
                     subs_path, errs)) {
      return;
    }
    for (size_t i = 0; i < first_available->Size(); ++i) {
      const Json& sub = (*first_available)[static_cast<rapidjson::SizeType>(i)];
      FieldPath sub_path = subs_path.Index(i);
      ValidateDns1123Label(StringField(sub, "name"), sub_path.Child("name"),
                           errs);
      ValidateRequestBody(sub, sub_path, errs);
    }
    ReportDuplicates(Names(*first_available), subs_path, errs);
  } else {
    ValidateRequestBody(*exactly, path.Child("exactly"), errs);
  }
}

// validateRequestNameRef.
void ValidateRequestRef(std::string_view ref, const RequestNames& names,
                        const FieldPath& path, FieldErrors* errs) {
  size_t slash = ref.find('/');
  if (slash != std::string_view::npos &&
      ref.find('/', slash + 1) != std::string_view::npos) {
    errs->push_back(config::Invalid(path, GoQuote(ref), kRequestRefMessage));
    return;
  }
  ValidateDns1123Label(ref.substr(0, slash), path, errs);
  if (slash != std::string_view::npos) {
    ValidateDns1123Label(ref.substr(slash + 1), path, errs);
  }
  if (!names.Has(ref)) {
    errs->push_back(config::Invalid(path, GoQuote(ref), kRequestRefMessage));
  }
}

// The `requests` of a constraint or config entry: a set of at most 32
// references.
void ValidateRequestRefs(const Json& entry, const RequestNames& names,
                         const FieldPath& path, FieldErrors* errs) {
  const Json* refs = ArrayField(entry, "requests");
  if (refs == nullptr ||
      TooManyItems(refs, kDeviceRequestsMaxSize, path, errs)) {
    return;
  }
  std::vector<std::string> texts = ItemTexts(refs);
  for (size_t i = 0; i < texts.size(); ++i) {
    ValidateRequestRef(texts[i], names, path.Index(i), errs);
  }
  ReportDuplicates(texts, path, errs);
}

// validateDeviceConstraint, with DRAConsumableCapacity on (distinct
// attributes allowed). Only the first of the two attributes set is looked
// at, as kube does.
void ValidateConstraint(const Json& constraint, const RequestNames& names,
                        const FieldPath& path, FieldErrors* errs) {
  ValidateRequestRefs(constraint, names, path.Child("requests"), errs);
  if (const Json* match = Field(constraint, "matchAttribute")) {
    ValidateFullyQualifiedName(ScalarText(*match).value_or(""),
                               path.Child("matchAttribute"), errs);
  } else if (const Json* distinct = Field(constraint, "distinctAttribute")) {
    ValidateFullyQualifiedName(ScalarText(*distinct).value_or(""),
                               path.Child("distinctAttribute"), errs);
  } else {
    // Kube's words, odd as they are for a constraint with neither.
    errs->push_back(config::Required(
        path,
        "exactly one of \"matchAttribute\" or \"distinctAttribute\" is "
        "required, but multiple fields are set"));
  }
}

// validateSlice over a list member of `obj`: at most `max_size` items,
// each checked by `check`.
template <typename Check>
void ValidateEach(const Json& obj, std::string_view member, size_t max_size,
                  const FieldPath& path, FieldErrors* errs, Check check) {
  const Json* list = ArrayField(obj, member);
  if (list == nullptr || TooManyItems(list, max_size, path, errs)) return;
  for (size_t i = 0; i < list->Size(); ++i) {
    check((*list)[static_cast<rapidjson::SizeType>(i)], path.Index(i));
  }
}

}  // namespace

void ValidateResourceClaimSpec(const Json& spec, const FieldPath& path,
                               FieldErrors* errs) {
  static const Json kEmpty(rapidjson::kObjectType);
  const Json* devices = ObjectField(spec, "devices");
  if (devices == nullptr) devices = &kEmpty;
  FieldPath devices_path = path.Child("devices");
  const Json* requests = ArrayField(*devices, "requests");
  RequestNames names(requests);

  FieldPath requests_path = devices_path.Child("requests");
  if (requests != nullptr &&
      !TooManyItems(requests, kDeviceRequestsMaxSize, requests_path, errs)) {
    for (size_t i = 0; i < requests->Size(); ++i) {
      ValidateDeviceRequest((*requests)[static_cast<rapidjson::SizeType>(i)],
                            requests_path.Index(i), errs);
    }
    ReportDuplicates(Names(*requests), requests_path, errs);
  }
  ValidateEach(*devices, "constraints", kDeviceConstraintsMaxSize,
               devices_path.Child("constraints"), errs,
               [&](const Json& constraint, const FieldPath& p) {
                 ValidateConstraint(constraint, names, p, errs);
               });
  ValidateEach(*devices, "config", kDeviceConfigMaxSize,
               devices_path.Child("config"), errs,
               [&](const Json& config, const FieldPath& p) {
                 ValidateRequestRefs(config, names, p.Child("requests"), errs);
                 ValidateDeviceConfiguration(config, p, errs);
               });
}

namespace {

// ValidateTemplateObjectMeta: a template's metadata may carry labels and
// annotations only. Any other member of ObjectMeta that is set, an empty
// list included, "cannot be set" (named as validateFieldAllowList names
// Go's fields, hence "uID").
void ValidateTemplateMetadata(const Json* meta, const FieldPath& path,
                              FieldErrors* errs) {
  if (meta == nullptr) return;
  ValidateAnnotations(ObjectField(*meta, "annotations"),
                      path.Child("annotations"), errs);
  ValidateLabels(ObjectField(*meta, "labels"), path.Child("labels"), errs);
  struct Member {
    std::string_view json;
    std::string_view go;
  };
  static constexpr Member kForbidden[] = {
      {"name", "name"},
      {"generateName", "generateName"},
      {"namespace", "namespace"},
      {"selfLink", "selfLink"},
      {"uid", "uID"},
      {"resourceVersion", "resourceVersion"},
      {"generation", "generation"},
      {"creationTimestamp", "creationTimestamp"},
      {"deletionTimestamp", "deletionTimestamp"},
      {"deletionGracePeriodSeconds", "deletionGracePeriodSeconds"},
      {"ownerReferences", "ownerReferences"},
      {"finalizers", "finalizers"},
      {"managedFields", "managedFields"},
  };
  for (const Member& m : kForbidden) {
    const Json* value = Field(*meta, m.json);
    if (value == nullptr) continue;
    // Go's zero values are not "set": an empty string, a zero generation.
    if ((value->IsString() && value->GetStringLength() == 0) ||
        (m.json == "generation" && IntValue(*value) == 0)) {
      continue;
    }
    errs->push_back(config::Forbidden(path.Child(m.go), "cannot be set"));
  }
}

}  // namespace
}  // namespace internal::dra

FieldErrors ValidateResourceClaim(const rapidjson::Value& claim) {
  using namespace internal;
  FieldErrors errs;
  if (!claim.IsObject()) return errs;
  ValidateObjectMeta(claim, NameRule::kDnsSubdomain, true, &errs);
  static const Json kEmpty(rapidjson::kObjectType);
  const Json* spec = ObjectField(claim, "spec");
  dra::ValidateResourceClaimSpec(spec != nullptr ? *spec : kEmpty,
                                 FieldPath("spec"), &errs);
  return errs;
}

FieldErrors ValidateResourceClaimTemplate(const rapidjson::Value& tmpl) {
  using namespace internal;
  FieldErrors errs;
  if (!tmpl.IsObject()) return errs;
  ValidateObjectMeta(tmpl, NameRule::kDnsSubdomain, true, &errs);
  static const Json kEmpty(rapidjson::kObjectType);
  const Json* spec = ObjectField(tmpl, "spec");
  if (spec == nullptr) spec = &kEmpty;
  FieldPath spec_path("spec");
  dra::ValidateTemplateMetadata(ObjectField(*spec, "metadata"),
                                spec_path.Child("metadata"), &errs);
  const Json* claim_spec = ObjectField(*spec, "spec");
  dra::ValidateResourceClaimSpec(claim_spec != nullptr ? *claim_spec : kEmpty,
                                 spec_path.Child("spec"), &errs);
  return errs;
}

}  // namespace ksched::validation
