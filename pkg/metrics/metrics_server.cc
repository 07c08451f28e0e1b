#include "pkg/metrics/metrics_server.h"

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <chrono>

// boost/asio, under cpprestsdk, uses std::exchange without including
// <utility>.
// clang-format off
#include <utility>
#include <cpprest/http_listener.h>
// clang-format on

#include "pkg/http/listener.h"
#include "pkg/http/reply.h"

namespace ksched::metrics {
namespace {

namespace http = web::http;

void Send(http::http_request& request, int code, const std::string& body,
          const std::string& content_type, std::function<void()> done) {
  std::vector<std::pair<std::string, std::string>> headers;
  if (code == 405) headers.emplace_back("Allow", "GET");
  ksched::http::ReplyAsync(request, code, body, content_type, headers,
                           std::move(done));
}

}  // namespace

util::Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    const MetricsServerOptions& options, prometheus::Registry& registry,
    const HealthChecks& health) {
  auto listener = ksched::http::Listener::Create({
      .bind_address = options.bind_address,
      .tls_cert_file = options.tls_cert_file,
      .tls_key_file = options.tls_key_file,
      .name = "metrics",
      .half_tls_error = "metrics TLS needs both a certificate and a key file",
      .listen_error = "cannot serve metrics on",
  });
  if (!listener.ok()) return listener.error();
  std::unique_ptr<MetricsServer> server(
      new MetricsServer(options, registry, health));
  server->listener_ = std::move(*listener);
  MetricsServer* s = server.get();
  auto started = server->listener_->Start(
      [s](http::http_request request, std::function<void()> done) {
        s->Receive(std::move(request), std::move(done));
      });
  if (!started.ok()) return started.error();
  return server;
}

MetricsServer::MetricsServer(const MetricsServerOptions& options,
                             prometheus::Registry& registry,
                             const HealthChecks& health)
    : options_(options), registry_(registry), health_(health) {}

MetricsServer::~MetricsServer() {
  // Answers in progress finish before the listener closes.
  if (listener_ != nullptr) listener_->Close(std::chrono::seconds(5));
}

std::string MetricsServer::url() const { return listener_->url(); }

void MetricsServer::Receive(http::http_request request,
                            std::function<void()> done) {
  const std::string path = request.relative_uri().path();
  const std::string query = request.relative_uri().query();
  const std::string text = "text/plain; charset=utf-8";
  if (listener_->closing()) {
    Send(request, 503, "shutting down\n", text, std::move(done));
  } else if (request.method() != http::methods::GET &&
             request.method() != http::methods::HEAD) {
    Send(request, 405, "method not allowed\n", text, std::move(done));
  } else if (path == "/metrics" || path == "/metrics/") {
    if (options_.before_scrape) options_.before_scrape();
    std::vector<prometheus::MetricFamily> families = registry_.Collect();
    if (options_.extra_families) {
      for (auto& f : options_.extra_families())
        families.push_back(std::move(f));
    }
    Send(request, 200, prometheus::TextSerializer().Serialize(families),
         "text/plain; version=0.0.4; charset=utf-8", std::move(done));
  } else if (auto answer = health_.Handle(path, query)) {
    Send(request, answer->code, answer->body, text, std::move(done));
  } else {
    Send(request, 404, "404 page not found\n", text, std::move(done));
  }
}

}  // namespace ksched::metrics
