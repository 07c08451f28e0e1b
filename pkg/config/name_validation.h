// apimachinery's util/validation name rules with their error messages
// (pkg/api/validation.h answers only yes or no): the messages are part of
// the field errors kube-scheduler reports for plugin args and extenders,
// and of those kube-apiserver reports for objects (pkg/validation).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ksched::config {

// Whose words a label key or value error uses. The configuration follows
// kube-scheduler v1.32; objects follow kube-apiserver v1.35, whose
// apimachinery checks label keys and values in api/validate/content: it
// counts their length in bytes, not characters, and calls a key with more
// than one '/' "a valid label key", not "a qualified name". The rules
// themselves are the same.
enum class Wording { kV1_32, kV1_35 };

// validation.IsQualifiedName: [prefix/]name.
std::vector<std::string> QualifiedNameErrors(std::string_view value,
                                             Wording wording = Wording::kV1_32);
// validation.IsDNS1123Subdomain.
std::vector<std::string> Dns1123SubdomainErrors(std::string_view value);
// validation.IsDNS1123Label: one lower-case label, "must not contain dots"
// when it would be a valid subdomain.
std::vector<std::string> Dns1123LabelErrors(std::string_view value);
// validation.IsValidLabelValue.
std::vector<std::string> LabelValueErrors(std::string_view value,
                                          Wording wording = Wording::kV1_32);

}  // namespace ksched::config
