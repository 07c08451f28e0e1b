#include "test/integration/prometheus.h"

#include <fstream>

#include "pkg/api/codec.h"
#include "pkg/client/list_watch.h"
#include "pkg/client/testing/loopback.h"
#include "test/integration/cluster_test_base.h"

namespace ksched::testing {

PrometheusServer::PrometheusServer(const std::filesystem::path& dir,
                                   int target_port, const std::string& token,
                                   const std::string& job,
                                   std::chrono::seconds scrape_interval)
    : port_(client::testing::FreePort()), target_port_(target_port) {
  const std::filesystem::path token_file = dir / "prometheus-token";
  std::ofstream(token_file) << token;
  const std::filesystem::path config = dir / "prometheus.yml";
  std::ofstream(config) << "global:\n  scrape_interval: "
                        << scrape_interval.count()
                        << "s\n"
                           "scrape_configs:\n- job_name: "
                        << job
                        << "\n"
                           "  scheme: https\n"
                           "  bearer_token_file: "
                        << token_file.string()
                        << "\n"
                           "  tls_config:\n    insecure_skip_verify: true\n"
                           "  static_configs:\n  - targets: ['"
                        << instance() << "']\n";
  process_ = std::make_unique<KschedProcess>(
      std::vector<std::string>{
          "--config.file=" + config.string(),
          "--storage.tsdb.path=" + (dir / "tsdb").string(),
          "--web.listen-address=127.0.0.1:" + std::to_string(port_)},
      dir / "prometheus.log", "prometheus");
}

std::string PrometheusServer::instance() const {
  return "127.0.0.1:" + std::to_string(target_port_);
}

client::HttpResponse PrometheusServer::Get(const std::string& path) const {
  client::RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port_);
  return GetFrom(config, path);
}

PrometheusServer::QueryResult PrometheusServer::Query(
    const std::string& promql) const {
  QueryResult out;
  const client::HttpResponse r =
      Get("/api/v1/query?query=" + client::EscapeQueryValue(promql));
  auto doc = api::ParseJson(r.body);
  if (!doc.ok() || !doc->IsObject() || !doc->HasMember("status")) {
    out.error = "HTTP " + std::to_string(r.code) + ": " + r.body;
    return out;
  }
  out.status = (*doc)["status"].GetString();
  if (out.status != "success") {
    out.error = doc->HasMember("error") ? (*doc)["error"].GetString() : r.body;
    return out;
  }
  const auto& data = (*doc)["data"];
  const std::string type = data["resultType"].GetString();
  const auto& result = data["result"];
  if (type == "scalar" || type == "string") {
    out.series.push_back({{}, result[1].GetString()});
    return out;
  }
  for (const auto& s : result.GetArray()) {
    Series series;
    for (const auto& l : s["metric"].GetObject()) {
      series.labels[l.name.GetString()] = l.value.GetString();
    }
    // An instant query returns vectors; a range selector, matrices.
    series.value = s.HasMember("value")
                       ? s["value"][1].GetString()
                       : s["values"][s["values"].Size() - 1][1].GetString();
    out.series.push_back(std::move(series));
  }
  return out;
}

std::string PrometheusServer::Value(const std::string& promql) const {
  const QueryResult r = Query(promql);
  return r.series.empty() ? "" : r.series[0].value;
}

std::vector<std::string> PrometheusServer::LabelValues(
    const std::string& label, const std::string& match) const {
  std::vector<std::string> out;
  const client::HttpResponse r =
      Get("/api/v1/label/" + label +
          "/values?match%5B%5D=" + client::EscapeQueryValue(match));
  auto doc = api::ParseJson(r.body);
  if (r.code != 200 || !doc.ok() || !doc->HasMember("data")) return out;
  for (const auto& v : (*doc)["data"].GetArray()) out.push_back(v.GetString());
  return out;
}

}  // namespace ksched::testing
