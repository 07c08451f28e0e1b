#include "pkg/api/resource_names.h"

#include <string>

#include "pkg/api/validation.h"

namespace ksched::api {
namespace {

bool IsPrefixedNativeResource(std::string_view name) {
  return name.find(kResourceDefaultNamespacePrefix) != std::string_view::npos;
}

bool IsNativeResource(std::string_view name) {
  return name.find('/') == std::string_view::npos ||
         IsPrefixedNativeResource(name);
}

}  // namespace

bool IsExtendedResourceName(std::string_view name) {
  if (IsNativeResource(name) || name.starts_with(kResourceRequestsPrefix)) {
    return false;
  }
  std::string quota_name(kResourceRequestsPrefix);
  quota_name += name;
  return IsQualifiedName(quota_name);
}

bool IsScalarResourceName(std::string_view name) {
  return IsExtendedResourceName(name) || IsHugePageResourceName(name) ||
         IsPrefixedNativeResource(name) ||
         name.starts_with(kResourceAttachableVolumesPrefix);
}

}  // namespace ksched::api
