#include "pkg/metrics/health_checks.h"

#include <algorithm>

namespace ksched::metrics {
namespace {

// The values of `key` in a query string ("exclude=a&exclude=b").
std::vector<std::string> QueryValues(std::string_view query,
                                     std::string_view key) {
  std::vector<std::string> values;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view()
                                          : query.substr(amp + 1);
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) == key) {
      values.emplace_back(eq == std::string_view::npos ? std::string_view()
                                                       : pair.substr(eq + 1));
    }
  }
  return values;
}

}  // namespace

void HealthChecks::Add(std::string name, std::vector<std::string> endpoints,
                       Check check) {
  std::lock_guard lock(mu_);
  checks_.push_back({std::move(name), std::move(endpoints), std::move(check)});
}

std::optional<HealthChecks::Answer> HealthChecks::Handle(
    std::string_view path, std::string_view query) const {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path.empty() || path.front() != '/') return std::nullopt;
  path.remove_prefix(1);
  const size_t slash = path.find('/');
  const std::string endpoint(path.substr(0, slash));
  if (endpoint != "healthz" && endpoint != "livez" && endpoint != "readyz") {
    return std::nullopt;
  }
  const std::string single(slash == std::string_view::npos
                               ? std::string_view()
                               : path.substr(slash + 1));
  const std::vector<std::string> excluded = QueryValues(query, "exclude");
  const bool verbose = !QueryValues(query, "verbose").empty();

  std::lock_guard lock(mu_);
  std::string report;
  bool failed = false;
  bool found = false;
  for (const Entry& e : checks_) {
    if (std::find(e.endpoints.begin(), e.endpoints.end(), endpoint) ==
        e.endpoints.end()) {
      continue;
    }
    if (!single.empty() && e.name != single) continue;
    found = true;
    if (std::find(excluded.begin(), excluded.end(), e.name) != excluded.end()) {
      report += "[+]" + e.name + " excluded: ok\n";
      continue;
    }
    if (auto problem = e.check()) {
      failed = true;
      report += "[-]" + e.name + " failed: reason withheld\n";
    } else {
      report += "[+]" + e.name + " ok\n";
    }
  }
  if (!single.empty()) {
    if (!found) return Answer{404, "404 page not found\n"};
    if (failed) return Answer{500, "internal server error: " + single + "\n"};
    return Answer{200, "ok"};
  }
  if (failed) return Answer{500, report + endpoint + " check failed\n"};
  if (verbose) return Answer{200, report + endpoint + " check passed\n"};
  return Answer{200, "ok"};
}

}  // namespace ksched::metrics
