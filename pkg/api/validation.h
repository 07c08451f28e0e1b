// Name and value rules from apimachinery's util/validation, used where the
// scheduler's behaviour depends on them (a selector with an invalid key or
// value is an error, and an erroring node-selector term matches nothing).
#pragma once

#include <string_view>

namespace ksched::api {

// DNS-1123 subdomain: at most 253 characters, lower-case alphanumeric labels
// with '-' inside, separated by dots.
bool IsDns1123Subdomain(std::string_view value);
// [prefix/]name: prefix a DNS-1123 subdomain, name at most 63 characters of
// [A-Za-z0-9] with '-', '_', '.' inside.
bool IsQualifiedName(std::string_view value);
// Empty, or at most 63 characters of [A-Za-z0-9] with '-', '_', '.' inside.
bool IsValidLabelValue(std::string_view value);

}  // namespace ksched::api
