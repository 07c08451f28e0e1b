// DeviceClass (ValidateDeviceClass): its name, selectors, configuration
// and extended resource name.
#include "pkg/api/resource_names.h"
#include "pkg/config/name_validation.h"
#include "pkg/validation/dra_internal.h"
#include "pkg/validation/validation.h"

namespace ksched::validation {
namespace {

using config::GoQuote;
using internal::Json;

constexpr size_t kLongNameMaxLength = 253;

// The class's name is checked by validate.LongName, whose words are those
// of api/validate/content: a DNS subdomain of at most 253 bytes (not
// "characters"). generateName is not checked: the API server checks the
// name it generates from it.
void ValidateClassMetadata(const Json& obj, FieldErrors* errs) {
  static const Json kEmpty(rapidjson::kObjectType);
  const Json* meta = internal::ObjectField(obj, "metadata");
  if (meta == nullptr) meta = &kEmpty;
  config::FieldPath path("metadata");
  std::string name = internal::StringField(*meta, "name");
  if (name.empty()) {
    if (internal::StringField(*meta, "generateName").empty()) {
      errs->push_back(config::Required(path.Child("name"),
                                       "name or generateName is required"));
    }
  } else {
    for (std::string msg : config::Dns1123SubdomainErrors(name)) {
      if (name.size() > kLongNameMaxLength && msg.ends_with(" characters")) {
        msg = "must be no more than " + std::to_string(kLongNameMaxLength) +
              " bytes";
      }
      errs->push_back(
          config::Invalid(path.Child("name"), GoQuote(name), std::move(msg)));
    }
  }
  internal::ValidateLabels(internal::ObjectField(*meta, "labels"),
                           path.Child("labels"), errs);
  internal::ValidateAnnotations(internal::ObjectField(*meta, "annotations"),
                                path.Child("annotations"), errs);
}

}  // namespace

FieldErrors ValidateDeviceClass(const rapidjson::Value& device_class) {
  namespace dra = internal::dra;
  FieldErrors errs;
  if (!device_class.IsObject()) return errs;
  ValidateClassMetadata(device_class, &errs);
  static const Json kEmpty(rapidjson::kObjectType);
  const Json* spec = internal::ObjectField(device_class, "spec");
  if (spec == nullptr) spec = &kEmpty;
  config::FieldPath spec_path("spec");
  dra::ValidateDeviceSelectors(internal::ArrayField(*spec, "selectors"),
                               spec_path.Child("selectors"), &errs);
  config::FieldPath config_path = spec_path.Child("config");
  const Json* configs = internal::ArrayField(*spec, "config");
  if (configs != nullptr &&
      !dra::TooManyItems(configs, dra::kDeviceConfigMaxSize, config_path,
                         &errs)) {
    for (size_t i = 0; i < configs->Size(); ++i) {
      dra::ValidateDeviceConfiguration(
          (*configs)[static_cast<rapidjson::SizeType>(i)], config_path.Index(i),
          &errs);
    }
  }
  // DRAExtendedResource is on in v1.36, so the field is kept and checked.
  if (const Json* name = internal::Field(*spec, "extendedResourceName")) {
    std::string text = internal::ScalarText(*name).value_or("");
    if (!api::IsExtendedResourceName(text)) {
      errs.push_back(config::Invalid(spec_path.Child("extendedResourceName"),
                                     GoQuote(text),
                                     "must be a valid extended resource name"));
    }
  }
  return errs;
}

}  // namespace ksched::validation
