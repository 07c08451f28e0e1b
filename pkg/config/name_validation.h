// apimachinery's util/validation name rules with their error messages
// (pkg/api/validation.h answers only yes or no): the messages are part of
// the field errors kube-scheduler reports for plugin args and extenders.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ksched::config {

// validation.IsQualifiedName: [prefix/]name.
std::vector<std::string> QualifiedNameErrors(std::string_view value);
// validation.IsDNS1123Subdomain.
std::vector<std::string> Dns1123SubdomainErrors(std::string_view value);
// validation.IsValidLabelValue.
std::vector<std::string> LabelValueErrors(std::string_view value);

}  // namespace ksched::config
