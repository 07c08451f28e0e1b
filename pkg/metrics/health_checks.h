// HealthChecks: the named checks behind /healthz, /livez and /readyz, and
// their answers in kube-scheduler's (component-base healthz) format:
//
//   GET /readyz            200 "ok"  |  500 "[-]sched-handler-sync failed:
//                          reason withheld\n...readyz check failed\n"
//   GET /readyz?verbose    "[+]ping ok\n[+]sched-handler-sync ok\n
//                          readyz check passed\n"
//   GET /readyz/ping       one check alone
//   ?exclude=NAME          leaves a check out
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::metrics {

class HealthChecks {
 public:
  // nullopt when healthy, else why not (logged, not shown to clients).
  using Check = std::function<std::optional<std::string>()>;

  // `endpoints`: some of "healthz", "livez", "readyz".
  void Add(std::string name, std::vector<std::string> endpoints, Check check);

  struct Answer {
    int code;
    std::string body;
  };
  // The answer for a request path ("/readyz", "/livez/ping") and query
  // ("verbose", "exclude=ping"); nullopt if the path is not a health path.
  std::optional<Answer> Handle(std::string_view path,
                               std::string_view query) const;

 private:
  struct Entry {
    std::string name;
    std::vector<std::string> endpoints;
    Check check;
  };
  mutable std::mutex mu_;
  std::vector<Entry> checks_;
};

}  // namespace ksched::metrics
