// MetricsServer: /metrics (the Prometheus text exposition of a registry)
// and /healthz, /livez, /readyz (HealthChecks) on one address, as
// kube-scheduler serves them on its secure port. Plain HTTP unless a
// certificate and key are given. Answers are computed in the request's
// handler without waiting on anything, so cpprestsdk's pool is never held.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pkg/metrics/health_checks.h"
#include "pkg/util/result.h"

namespace prometheus {
class Registry;
struct MetricFamily;
}  // namespace prometheus

namespace web::http {
class http_request;
}  // namespace web::http

namespace ksched::http {
class Listener;
}  // namespace ksched::http

namespace ksched::metrics {

struct MetricsServerOptions {
  std::string bind_address = "0.0.0.0:10251";  // HOST:PORT
  std::string tls_cert_file;                   // PEM; HTTPS with the key
  std::string tls_key_file;
  // Runs before each scrape, to bring gauges up to date.
  std::function<void()> before_scrape;
  // Families kept outside the registry, added to each scrape.
  std::function<std::vector<prometheus::MetricFamily>()> extra_families;
};

class MetricsServer {
 public:
  static util::Result<std::unique_ptr<MetricsServer>> Start(
      const MetricsServerOptions& options, prometheus::Registry& registry,
      const HealthChecks& health);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  std::string url() const;

 private:
  MetricsServer(const MetricsServerOptions& options,
                prometheus::Registry& registry, const HealthChecks& health);
  void Receive(web::http::http_request request, std::function<void()> done);

  const MetricsServerOptions options_;
  prometheus::Registry& registry_;
  const HealthChecks& health_;
  std::unique_ptr<http::Listener> listener_;
};

}  // namespace ksched::metrics
