// PrometheusServer: Debian's real Prometheus server scraping a ksched
// secure port as kube-prometheus scrapes kube-scheduler (HTTPS, the
// self-signed certificate not verified, a bearer token read from a file
// as in a pod), and its HTTP API for the tests to ask what it saw.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pkg/client/transport.h"
#include "test/integration/ksched_process.h"

namespace ksched::testing {

class PrometheusServer {
 public:
  // Scrapes https://127.0.0.1:`target_port`/metrics with `token` as job
  // `job` every `scrape_interval`; its configuration, token file, TSDB and
  // prometheus.log go in `dir`.
  PrometheusServer(
      const std::filesystem::path& dir, int target_port,
      const std::string& token, const std::string& job = "ksched",
      std::chrono::seconds scrape_interval = std::chrono::seconds(1));

  int port() const { return port_; }
  // The target's instance label, as Prometheus gives it.
  std::string instance() const;

  struct Series {
    std::map<std::string, std::string> labels;
    std::string value;  // as Prometheus writes it: "1", "0.25", "NaN"
  };
  struct QueryResult {
    // The API's status ("success" or "error"); "" when nothing, or no
    // JSON, answered.
    std::string status;
    std::string error;  // errorType: error, when not a success
    std::vector<Series> series;
  };
  // An instant query (/api/v1/query), evaluated now.
  QueryResult Query(const std::string& promql) const;
  // The first series' value; "" while there is none.
  std::string Value(const std::string& promql) const;
  // The values of `label` on the series `match` selects
  // (/api/v1/label/<label>/values?match[]=...), as Grafana's
  // label_values(match, label) asks for them.
  std::vector<std::string> LabelValues(const std::string& label,
                                       const std::string& match) const;

  // SIGTERM; the exit code.
  int Terminate() { return process_->Terminate(); }
  std::string Tail() const { return process_->Tail(); }

 private:
  client::HttpResponse Get(const std::string& path) const;

  int port_;
  int target_port_;
  std::unique_ptr<KschedProcess> process_;
};

}  // namespace ksched::testing
