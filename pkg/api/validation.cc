#include "pkg/api/validation.h"

namespace ksched::api {
namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63 characters.
bool IsQualifiedNamePart(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  if (!IsAlnum(name.front()) || !IsAlnum(name.back())) return false;
  for (char c : name) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace

bool IsDns1123Subdomain(std::string_view value) {
  if (value.empty() || value.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = value.find('.', start);
    std::string_view label = value.substr(start, dot == std::string_view::npos
                                                     ? std::string_view::npos
                                                     : dot - start);
    if (label.empty()) return false;
    for (char c : label) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
      if (!ok) return false;
    }
    if (label.front() == '-' || label.back() == '-') return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool IsQualifiedName(std::string_view value) {
  auto slash = value.find('/');
  if (slash == std::string_view::npos) return IsQualifiedNamePart(value);
  return IsDns1123Subdomain(value.substr(0, slash)) &&
         IsQualifiedNamePart(value.substr(slash + 1));
}

bool IsValidLabelValue(std::string_view value) {
  return value.empty() || IsQualifiedNamePart(value);
}

}  // namespace ksched::api
