// The function libraries of Kubernetes' CEL base environment (v1.35):
// cel-go's extension libraries at the versions Kubernetes pins and
// Kubernetes' own libraries. Each call adds the library's overloads, with
// cel-go's overload ids, signatures, implementations and runtime costs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/cel/function.h"
#include "pkg/util/result.h"

namespace ksched::cel {

// ext.Strings(ext.StringsVersion(2)): charAt, indexOf, lastIndexOf,
// lowerAscii, replace, split, substring, trim, upperAscii, format,
// strings.quote, join.
void RegisterStringsExt(FunctionRegistry& registry);

// One element of the list literal a `"<literal>".format([...])` call gets,
// as the strings extension's compile-time validator sees it: its checked
// type, its expression id and, when the element is itself a list or map
// literal, that literal's elements (map keys and values in entry order),
// which %s prints and so checks as well.
struct FormatArg {
  Type type;
  int64_t id = 0;
  std::vector<FormatArg> elements;
};

struct FormatCheckIssue {
  int64_t id;  // the offending element, or the call for format string errors
  std::string message;
};

// cel-go's string.format validator (strings versions 1-3): checks each
// clause of `format` against the checked type of its argument, reading the
// format string exactly as the runtime formatter does. Returns the first
// problem, worded as cel-go words it.
std::optional<FormatCheckIssue> CheckFormatCall(std::string_view format,
                                                std::span<const FormatArg> args,
                                                int64_t call_id);

// ext.Lists(ext.ListsVersion(3)): slice, flatten, sort,
// @sortByAssociatedKeys (behind the sortBy macro), lists.range, reverse,
// distinct.
void RegisterListsExt(FunctionRegistry& registry);
// ext.Sets(): sets.contains, sets.equivalent, sets.intersects.
void RegisterSetsExt(FunctionRegistry& registry);
// library.Lists: isSorted, sum, max, min, indexOf, lastIndexOf on lists.
void RegisterKubernetesLists(FunctionRegistry& registry);
// library.Regex: find, findAll.
void RegisterKubernetesRegex(FunctionRegistry& registry);
// library.Quantity.
void RegisterQuantity(FunctionRegistry& registry);
// library.SemverLib(SemverVersion(1)).
void RegisterSemver(FunctionRegistry& registry);
// library.URLs: url, isURL and the URL accessors.
void RegisterUrls(FunctionRegistry& registry);
// library.IP: ip, isIP, ip.isCanonical, string(ip), family and the
// address class tests.
void RegisterIp(FunctionRegistry& registry);
// library.CIDR: cidr, isCIDR, containsIP, containsCIDR, ip, masked,
// prefixLength, string(cidr).
void RegisterCidr(FunctionRegistry& registry);
// library.Format: format.named, format.<name>() and validate.
void RegisterFormat(FunctionRegistry& registry);

// blang/semver's strict Parse, as Kubernetes reads a device's version
// attribute.
util::Result<Semver> ParseSemver(std::string_view text);

}  // namespace ksched::cel
