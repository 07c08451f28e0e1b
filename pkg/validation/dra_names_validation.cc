// The name rules of resource.k8s.io: drivers, pools, nodes, qualified
// attribute and capacity names (pkg/apis/resource/validation).
#include <algorithm>

#include "pkg/config/name_validation.h"
#include "pkg/validation/dra_internal.h"

namespace ksched::validation::internal::dra {
namespace {

using config::GoQuote;

constexpr size_t kDriverNameMaxLength = 63;
constexpr size_t kPoolNameMaxLength = 253;
// DeviceMaxIDLength: the name part of a qualified name.
constexpr size_t kDeviceMaxIdLength = 32;

constexpr std::string_view kCIdentifierMessage =
    "a valid C identifier must start with alphabetic character or '_', "
    "followed by a string of alphanumeric characters or '_' (e.g. "
    "'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is "
    "'[A-Za-z_][A-Za-z0-9_]*')";

bool IsCIdentifier(std::string_view id) {
  auto letter = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (id.empty() || !letter(id.front())) return false;
  return std::all_of(id.begin(), id.end(), [&](char c) {
    return letter(c) || (c >= '0' && c <= '9');
  });
}

// validateCIdentifier.
void ValidateCIdentifier(std::string_view id, const FieldPath& path,
                         FieldErrors* errs) {
  if (id.size() > kDeviceMaxIdLength) {
    errs->push_back(config::TooLong(path, kDeviceMaxIdLength));
  }
  if (!IsCIdentifier(id)) {
    errs->push_back(config::Invalid(path, GoQuote(id), kCIdentifierMessage));
  }
}

std::vector<std::string_view> SplitSlash(std::string_view s) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t slash = s.find('/');
    parts.push_back(s.substr(0, slash));
    if (slash == std::string_view::npos) return parts;
    s.remove_prefix(slash + 1);
  }
}

}  // namespace

void ValidateDns1123Label(std::string_view value, const FieldPath& path,
                          FieldErrors* errs) {
  for (const std::string& msg : config::Dns1123LabelErrors(value)) {
    errs->push_back(config::Invalid(path, GoQuote(value), msg));
  }
}

void ValidateDns1123Subdomain(std::string_view value, const FieldPath& path,
                              FieldErrors* errs) {
  for (const std::string& msg : config::Dns1123SubdomainErrors(value)) {
    errs->push_back(config::Invalid(path, GoQuote(value), msg));
  }
}

void ValidateNodeName(std::string_view name, const FieldPath& path,
                      FieldErrors* errs) {
  ValidateDns1123Subdomain(name, path, errs);
}

void ValidateDriverName(std::string_view name, const FieldPath& path,
                        FieldErrors* errs) {
  if (name.empty()) {
    errs->push_back(config::Required(path, ""));
    return;
  }
  if (name.size() > kDriverNameMaxLength) {
    errs->push_back(config::TooLong(path, kDriverNameMaxLength));
  }
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  });
  for (const std::string& msg : config::Dns1123SubdomainErrors(lower)) {
    errs->push_back(config::Invalid(path, GoQuote(name), msg));
  }
}

void ValidatePoolName(std::string_view name, const FieldPath& path,
                      FieldErrors* errs) {
  if (name.empty()) {
    errs->push_back(config::Required(path, ""));
    return;
  }
  if (name.size() > kPoolNameMaxLength) {
    errs->push_back(config::TooLong(path, kPoolNameMaxLength));
  }
  for (std::string_view part : SplitSlash(name)) {
    ValidateDns1123Subdomain(part, path, errs);
  }
}

void ValidateQualifiedName(std::string_view name, const FieldPath& path,
                           FieldErrors* errs) {
  std::vector<std::string_view> parts = SplitSlash(name);
  if (parts.size() == 1) {
    ValidateCIdentifier(parts[0], path, errs);
  } else if (parts.size() == 2) {
    if (parts[0].empty()) {
      errs->push_back(
          config::Invalid(path, GoQuote(""), "the domain must not be empty"));
    } else {
      ValidateDriverName(parts[0], path, errs);
    }
    if (parts[1].empty()) {
      errs->push_back(
          config::Invalid(path, GoQuote(""), "the name must not be empty"));
    } else {
      ValidateCIdentifier(parts[1], path, errs);
    }
  }
  // More than one '/' passes: kube leaves that case open (a TODO in
  // validateQualifiedName), and so does the API server.
}

void ValidateFullyQualifiedName(std::string_view name, const FieldPath& path,
                                FieldErrors* errs) {
  ValidateQualifiedName(name, path, errs);
  if (name.find('/') == std::string_view::npos) {
    // The value is a FullyQualifiedName, a named string type: encoding/json
    // renders it.
    errs->push_back(config::Invalid(
        path, JsonQuote(name),
        "a fully qualified name must be a domain and a name separated by a "
        "slash"));
  }
}

void ValidateLabelValue(std::string_view value, const FieldPath& path,
                        FieldErrors* errs) {
  for (const std::string& msg :
       config::LabelValueErrors(value, config::Wording::kV1_35)) {
    errs->push_back(config::Invalid(path, GoQuote(value), msg));
  }
}

std::string TruncateKey(std::string_view key, size_t max_length) {
  max_length = std::max<size_t>(max_length, 16);
  if (key.size() <= max_length) return std::string(key);
  constexpr std::string_view kEllipsis = "...";
  size_t remaining = max_length - kEllipsis.size();
  return std::string(key.substr(0, (remaining + 1) / 2)) +
         std::string(kEllipsis) +
         std::string(key.substr(key.size() - remaining / 2));
}

}  // namespace ksched::validation::internal::dra
