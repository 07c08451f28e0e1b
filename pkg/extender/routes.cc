#include "pkg/extender/routes.h"

namespace ksched::extender {

std::string NormalizePrefix(std::string_view prefix) {
  while (!prefix.empty() && prefix.front() == '/') prefix.remove_prefix(1);
  while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  return prefix.empty() ? std::string() : "/" + std::string(prefix);
}

std::optional<std::map<std::string, std::string>> ParsePrefixes(
    std::string_view flag, std::string* error) {
  std::map<std::string, std::string> prefixes;
  while (!flag.empty()) {
    const size_t comma = flag.find(',');
    const std::string_view entry = flag.substr(0, comma);
    flag = comma == std::string_view::npos ? std::string_view()
                                           : flag.substr(comma + 1);
    if (entry.empty()) continue;
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq + 1 == entry.size()) {
      *error = "\"" + std::string(entry) + "\": expected PREFIX=PROFILE";
      return std::nullopt;
    }
    prefixes[NormalizePrefix(entry.substr(0, eq))] =
        std::string(entry.substr(eq + 1));
  }
  return prefixes;
}

}  // namespace ksched::extender
