// Which verb and profile a request path asks for: "{prefix}/{verb}", the
// prefix and verbs matching a kube-scheduler `extenders[]` entry's
// urlPrefix path and filterVerb / prioritizeVerb / bindVerb / preemptVerb.
//
//   /filter               the default profile
//   /ksched/gpu/filter    the profile configured for "/ksched/gpu", else
//                         the profile named "ksched/gpu"
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ksched::extender {

enum class Verb { kFilter, kPrioritize, kBind, kPreempt };

struct RouteTable {
  std::string filter_verb = "filter";
  std::string prioritize_verb = "prioritize";
  std::string bind_verb = "bind";
  std::string preempt_verb = "preempt";
  // Path prefix ("/ksched/gpu") -> schedulerName of the profile answering.
  std::map<std::string, std::string> prefixes;
  // Answers at the root ("/filter"). A prefix that is neither configured
  // nor a profile's name is a 404.
  std::string default_profile;
};

struct Route {
  Verb verb;
  std::string profile;
};

// nullopt: no such route (404). `has_profile` tells whether a
// schedulerName is configured.
template <typename HasProfile>
std::optional<Route> ResolveRoute(std::string_view path,
                                  const RouteTable& table,
                                  HasProfile has_profile);

// Parses "PREFIX=PROFILE,PREFIX=PROFILE" (--extender-profiles); prefixes
// are normalised to one leading slash and none trailing.
std::optional<std::map<std::string, std::string>> ParsePrefixes(
    std::string_view flag, std::string* error);

// "/a/b/" -> "/a/b"; "" and "/" -> "".
std::string NormalizePrefix(std::string_view prefix);

// ---- implementation ----

template <typename HasProfile>
std::optional<Route> ResolveRoute(std::string_view path,
                                  const RouteTable& table,
                                  HasProfile has_profile) {
  // Query strings play no part.
  if (size_t q = path.find('?'); q != std::string_view::npos) {
    path = path.substr(0, q);
  }
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string_view verb_name = path.substr(slash + 1);
  const std::string prefix = NormalizePrefix(path.substr(0, slash));
  Route route;
  if (verb_name == table.filter_verb) {
    route.verb = Verb::kFilter;
  } else if (verb_name == table.prioritize_verb) {
    route.verb = Verb::kPrioritize;
  } else if (verb_name == table.bind_verb) {
    route.verb = Verb::kBind;
  } else if (verb_name == table.preempt_verb) {
    route.verb = Verb::kPreempt;
  } else {
    return std::nullopt;
  }
  if (auto it = table.prefixes.find(prefix); it != table.prefixes.end()) {
    route.profile = it->second;
  } else if (prefix.empty()) {
    route.profile = table.default_profile;
  } else if (has_profile(prefix.substr(1))) {
    route.profile = prefix.substr(1);
  } else {
    return std::nullopt;
  }
  return route;
}

}  // namespace ksched::extender
