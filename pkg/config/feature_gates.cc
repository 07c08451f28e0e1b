#include "pkg/config/feature_gates.h"

#include <string>

namespace ksched::config {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// strconv.ParseBool's spellings.
bool ParseBool(std::string_view s, bool* out) {
  for (std::string_view t : {"1", "t", "T", "true", "TRUE", "True"}) {
    if (s == t) return *out = true, true;
  }
  for (std::string_view f : {"0", "f", "F", "false", "FALSE", "False"}) {
    if (s == f) return *out = false, true;
  }
  return false;
}

}  // namespace

util::Result<FeatureGates> ParseFeatureGates(std::string_view value) {
  FeatureGates gates;
  while (!value.empty()) {
    const size_t comma = value.find(',');
    const std::string_view item = Trim(value.substr(0, comma));
    value = comma == std::string_view::npos ? std::string_view()
                                            : value.substr(comma + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return util::Error("missing bool value for " + std::string(item));
    }
    const std::string_view name = Trim(item.substr(0, eq));
    const std::string_view raw = Trim(item.substr(eq + 1));
    bool enabled = false;
    if (!ParseBool(raw, &enabled)) {
      return util::Error("invalid value of " + std::string(name) + "=" +
                         std::string(raw) +
                         ", err: strconv.ParseBool: parsing \"" +
                         std::string(raw) + "\": invalid syntax");
    }
    if (name == "OpportunisticBatching") {
      gates.opportunistic_batching = enabled;
    } else {
      return util::Error("unrecognized feature gate: " + std::string(name));
    }
  }
  return gates;
}

}  // namespace ksched::config
