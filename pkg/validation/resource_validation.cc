// Resource names and quantities in requests and limits
// (validateResourceRequirements and its helpers in core validation).
#include <algorithm>

#include "pkg/api/resource_names.h"
#include "pkg/config/name_validation.h"
#include "pkg/validation/internal.h"

namespace ksched::validation::internal {
namespace {

using config::GoQuote;

// helper.standardResources.
constexpr std::string_view kStandardResources[] = {
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
};

// helper.integerResources.
constexpr std::string_view kIntegerResources[] = {
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
};

template <size_t N>
bool OneOf(const std::string_view (&set)[N], std::string_view name) {
  return std::find(std::begin(set), std::end(set), name) != std::end(set);
}

bool IsStandardResourceName(std::string_view name) {
  return OneOf(kStandardResources, name) ||
         name.starts_with(api::kResourceHugePagesPrefix) ||
         name.starts_with("requests.hugepages-");
}

bool IsStandardContainerResourceName(std::string_view name) {
  return name == api::kResourceCpu || name == api::kResourceMemory ||
         name == api::kResourceEphemeralStorage || IsHugePageResourceName(name);
}

// Unprefixed names are implicitly in kubernetes.io/.
bool IsNativeResourceName(std::string_view name) {
  return name.find('/') == std::string_view::npos ||
         name.find(api::kResourceDefaultNamespacePrefix) !=
             std::string_view::npos;
}

// Native resources other than hugepages may have requests below limits.
bool IsOvercommitAllowed(std::string_view name) {
  return IsNativeResourceName(name) && !IsHugePageResourceName(name);
}

bool IsIntegerResourceName(std::string_view name) {
  return OneOf(kIntegerResources, name) || api::IsExtendedResourceName(name);
}

bool IsSupportedPodLevelResource(std::string_view name) {
  return name == api::kResourceCpu || name == api::kResourceMemory ||
         IsHugePageResourceName(name);
}

bool IsCpuOrMemory(std::string_view name) {
  return name == api::kResourceCpu || name == api::kResourceMemory;
}

// validateResourceName.
void ValidateResourceName(std::string_view name, const FieldPath& path,
                          FieldErrors* errs) {
  std::vector<std::string> msgs =
      config::QualifiedNameErrors(name, config::Wording::kV1_35);
  for (const std::string& msg : msgs) {
    errs->push_back(config::Invalid(path, JsonQuote(name), msg));
  }
  if (!msgs.empty()) return;
  if (name.find('/') == std::string_view::npos &&
      !IsStandardResourceName(name)) {
    errs->push_back(
        config::Invalid(path, JsonQuote(name),
                        "must be a standard resource type or fully qualified"));
  }
}

void ValidateContainerResourceName(std::string_view name, const FieldPath& path,
                                   FieldErrors* errs) {
  ValidateResourceName(name, path, errs);
  if (name.find('/') == std::string_view::npos) {
    if (!IsStandardContainerResourceName(name)) {
      errs->push_back(config::Invalid(
          path, JsonQuote(name), "must be a standard resource for containers"));
    }
  } else if (!IsNativeResourceName(name) &&
             !api::IsExtendedResourceName(name)) {
    errs->push_back(
        config::Invalid(path, JsonQuote(name),
                        "doesn't follow extended resource name standard"));
  }
}

void ValidatePodLevelResourceName(std::string_view name, const FieldPath& path,
                                  FieldErrors* errs) {
  size_t before = errs->size();
  ValidateResourceName(name, path, errs);
  if (errs->size() != before) return;
  if (!IsSupportedPodLevelResource(name)) {
    errs->push_back(config::NotSupported(path, JsonQuote(name),
                                         {"cpu", "hugepages-", "memory"}));
  }
}

// helper.IsHugePageResourceValueDivisible: a whole number of pages.
bool IsHugePageValueDivisible(std::string_view name,
                              const api::Quantity& quantity) {
  auto page =
      api::Quantity::Parse(name.substr(api::kResourceHugePagesPrefix.size()));
  if (!page.ok() || page->Sign() <= 0 || page->MilliValue() % 1000 != 0) {
    return false;
  }
  return quantity.Value() % page->Value() == 0;
}

void ValidateHugePageValue(std::string_view name, const api::Quantity& quantity,
                           const FieldPath& path, FieldErrors* errs) {
  if (!IsHugePageResourceName(name) ||
      IsHugePageValueDivisible(name, quantity)) {
    return;
  }
  std::string text = quantity.ToString();
  errs->push_back(config::Invalid(
      path, GoQuote(text),
      text + " is not positive integer multiple of " + std::string(name)));
}

}  // namespace

bool IsHugePageResourceName(std::string_view name) {
  return api::IsHugePageResourceName(name);
}

void ValidateResourceQuantityValue(std::string_view name,
                                   const api::Quantity& quantity,
                                   const FieldPath& path, FieldErrors* errs) {
  if (quantity.Sign() < 0) {
    errs->push_back(config::Invalid(path, GoQuote(quantity.ToString()),
                                    "must be greater than or equal to 0"));
  }
  if (IsIntegerResourceName(name) && quantity.MilliValue() % 1000 != 0) {
    errs->push_back(config::Invalid(path, JsonQuote(quantity.ToString()),
                                    "must be an integer"));
  }
}

void ValidateResourceRequirements(const ResourceList& limits,
                                  const ResourceList& requests,
                                  ResourceNameRule rule, const FieldPath& path,
                                  FieldErrors* errs) {
  auto validate_name = [&](std::string_view name, const FieldPath& p) {
    if (rule == ResourceNameRule::kContainer) {
      ValidateContainerResourceName(name, p, errs);
    } else {
      ValidatePodLevelResourceName(name, p, errs);
    }
  };
  FieldPath lim_path = path.Child("limits");
  FieldPath req_path = path.Child("requests");
  bool cpu_or_memory = false;
  bool hugepages = false;
  for (const Resource& r : limits) {
    FieldPath p = lim_path.Key(r.name);
    validate_name(r.name, p);
    ValidateResourceQuantityValue(r.name, r.quantity, p, errs);
    if (IsHugePageResourceName(r.name)) {
      hugepages = true;
      ValidateHugePageValue(r.name, r.quantity, p, errs);
    }
    cpu_or_memory = cpu_or_memory || IsCpuOrMemory(r.name);
  }
  for (const Resource& r : requests) {
    FieldPath p = req_path.Key(r.name);
    validate_name(r.name, p);
    ValidateResourceQuantityValue(r.name, r.quantity, p, errs);
    if (const Resource* limit = FindResource(limits, r.name)) {
      std::string limit_text = limit->quantity.ToString();
      // Requests of what cannot be overcommitted must equal the limit.
      if (r.quantity != limit->quantity && !IsOvercommitAllowed(r.name)) {
        errs->push_back(config::Invalid(
            req_path, GoQuote(r.quantity.ToString()),
            "must be equal to " + r.name + " limit of " + limit_text));
      } else if (r.quantity > limit->quantity) {
        errs->push_back(
            config::Invalid(req_path, GoQuote(r.quantity.ToString()),
                            "must be less than or equal to " + r.name +
                                " limit of " + limit_text));
      }
    } else if (!IsOvercommitAllowed(r.name)) {
      errs->push_back(config::Required(
          lim_path, "Limit must be set for non overcommitable resources"));
    }
    if (IsHugePageResourceName(r.name)) {
      hugepages = true;
      ValidateHugePageValue(r.name, r.quantity, p, errs);
    }
    cpu_or_memory = cpu_or_memory || IsCpuOrMemory(r.name);
  }
  if (hugepages && !cpu_or_memory) {
    errs->push_back(config::Forbidden(path, "HugePages require cpu or memory"));
  }
}

}  // namespace ksched::validation::internal
