#include "pkg/dra/constraint.h"

#include <algorithm>

namespace ksched::dra {

const api::DeviceAttribute* LookupAttribute(const api::Device& device,
                                            std::string_view driver,
                                            std::string_view name) {
  if (const api::DeviceAttribute* a = device.attributes.Find(name)) return a;
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) return nullptr;
  if (name.substr(0, slash) != driver) return nullptr;
  return device.attributes.Find(name.substr(slash + 1));
}

bool KnownKind(const api::DeviceAttribute& a) {
  return a.string_value || a.int_value || a.bool_value || a.version_value;
}

bool SameValue(const api::DeviceAttribute& held,
               const api::DeviceAttribute& attr) {
  // Compared by the kind of `attr`; semantic versions are minimal text, so
  // equal text is equal versions. A kind this version does not know never
  // matches.
  if (attr.string_value) {
    return held.string_value && *held.string_value == *attr.string_value;
  }
  if (attr.int_value)
    return held.int_value && *held.int_value == *attr.int_value;
  if (attr.bool_value) {
    return held.bool_value && *held.bool_value == *attr.bool_value;
  }
  if (attr.version_value) {
    return held.version_value && *held.version_value == *attr.version_value;
  }
  return false;
}

bool ClaimConstraint::Applies(std::string_view request,
                              std::string_view sub_request) const {
  if (requests_.empty()) return true;
  auto listed = [&](std::string_view name) {
    return std::find(requests_.begin(), requests_.end(), name) !=
           requests_.end();
  };
  if (listed(request)) return true;
  if (sub_request.empty()) return false;
  std::string full;
  full.reserve(request.size() + 1 + sub_request.size());
  full.append(request).append("/").append(sub_request);
  return listed(full);
}

bool MatchAttributeConstraint::Add(std::string_view request,
                                   std::string_view sub_request,
                                   const api::Device& device,
                                   std::string_view driver) {
  if (!Applies(request, sub_request)) return true;
  const api::DeviceAttribute* attr =
      LookupAttribute(device, driver, attribute_name_);
  if (attr == nullptr) return false;
  if (num_devices_ == 0) {
    value_ = attr;
    num_devices_ = 1;
    return true;
  }
  if (!SameValue(*value_, *attr)) return false;
  ++num_devices_;
  return true;
}

void MatchAttributeConstraint::Remove(std::string_view request,
                                      std::string_view sub_request) {
  if (!Applies(request, sub_request)) return;
  --num_devices_;
}

bool DistinctAttributeConstraint::Distinct(
    const api::DeviceAttribute& attribute) const {
  for (const auto& [request, held] : values_) {
    // A kind this version does not know is never distinct.
    if (!KnownKind(attribute) || SameValue(*held, attribute)) return false;
  }
  return true;
}

bool DistinctAttributeConstraint::Add(std::string_view request,
                                      std::string_view sub_request,
                                      const api::Device& device,
                                      std::string_view driver) {
  if (!Applies(request, sub_request)) return true;
  const api::DeviceAttribute* attr =
      LookupAttribute(device, driver, attribute_name_);
  if (attr == nullptr) return false;
  if (num_devices_ > 0 && !Distinct(*attr)) return false;
  values_[request] = attr;
  ++num_devices_;
  return true;
}

void DistinctAttributeConstraint::Remove(std::string_view request,
                                         std::string_view sub_request) {
  if (!Applies(request, sub_request)) return;
  values_.erase(request);
  --num_devices_;
}

}  // namespace ksched::dra
