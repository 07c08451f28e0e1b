// MetricsServer: /metrics (the Prometheus text exposition of a registry)
// and /healthz, /livez, /readyz (HealthChecks) on one address, as
// kube-scheduler serves them on its secure port. Plain HTTP unless a
// certificate and key are given.
//
// With an authorizer (the secure port), every path but the always-allowed
// ones (the health checks) needs a bearer token that the API server
// authenticates (TokenReview) and allows the request (SubjectAccessReview
// for the path, verb "get"): 401 without, 403 when not allowed, as
// kube-scheduler answers. Those reviews may wait on the API server, so
// they run on the server's own thread, never on cpprestsdk's small pool;
// everything else is answered in the request's handler.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
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

namespace ksched::auth {
class DelegatingAuthorizer;
}  // namespace ksched::auth

namespace ksched::metrics {

// The answer of a path handler beyond /metrics and the health checks.
struct PathAnswer {
  int code = 200;
  std::string body;
  std::string content_type = "text/plain; charset=utf-8";
};
// Gets the request's raw (still percent-encoded) query.
using PathHandler = std::function<PathAnswer(const std::string& query)>;

struct MetricsServerOptions {
  std::string bind_address = "0.0.0.0:10251";  // HOST:PORT
  std::string tls_cert_file;                   // PEM; HTTPS with the key
  std::string tls_key_file;
  // Or the certificate and key themselves (self-signed at start-up).
  std::string tls_cert_pem;
  std::string tls_key_pem;
  // Who may read what; every path is open when null.
  auth::DelegatingAuthorizer* authorizer = nullptr;
  // Paths served without a token (kube's --authorization-always-allow-
  // paths): exact, or a prefix ending in "*".
  std::vector<std::string> always_allow_paths = {"/healthz", "/readyz",
                                                 "/livez"};
  // How errors and logs name the server ("metrics", "secure port").
  std::string name = "metrics";
  // Runs before each scrape, to bring gauges up to date.
  std::function<void()> before_scrape;
  // More GET paths, by exact path (the secure port's /debug/explain),
  // authorized as every other path.
  std::map<std::string, PathHandler> handlers;
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
  // The answer once the request may be served.
  void Serve(web::http::http_request& request, std::function<void()> done);
  bool AlwaysAllowed(const std::string& path) const;
  // The authorizer's thread: reviews, then the answer.
  void AuthLoop();

  const MetricsServerOptions options_;
  prometheus::Registry& registry_;
  const HealthChecks& health_;
  std::unique_ptr<http::Listener> listener_;

  struct Pending;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::unique_ptr<Pending>> pending_;
  bool stopping_ = false;
  std::thread auth_thread_;
};

}  // namespace ksched::metrics
