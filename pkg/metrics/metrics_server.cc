#include "pkg/metrics/metrics_server.h"

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <chrono>
#include <fstream>
#include <thread>

// boost/asio, under cpprestsdk, uses std::exchange without including
// <utility>.
// clang-format off
#include <utility>
#include <cpprest/http_listener.h>
// clang-format on

#include "pkg/http/reply.h"

namespace ksched::metrics {
namespace {

namespace http = web::http;
namespace ssl = boost::asio::ssl;

void Send(http::http_request& request, int code, const std::string& body,
          const std::string& content_type, std::atomic<int>& in_flight) {
  std::vector<std::pair<std::string, std::string>> headers;
  if (code == 405) headers.emplace_back("Allow", "GET");
  ksched::http::ReplyAsync(request, code, body, content_type, headers,
                           [&in_flight] { --in_flight; });
}

}  // namespace

util::Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    const MetricsServerOptions& options, prometheus::Registry& registry,
    const HealthChecks& health) {
  const size_t colon = options.bind_address.rfind(':');
  if (colon == std::string::npos || colon + 1 == options.bind_address.size()) {
    return util::Error("metrics bind address \"" + options.bind_address +
                       "\": expected HOST:PORT");
  }
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return util::Error("metrics TLS needs both a certificate and a key file");
  }
  for (const std::string* f : {&options.tls_cert_file, &options.tls_key_file}) {
    if (!f->empty() && !std::ifstream(*f)) {
      return util::Error("cannot read " + *f);
    }
  }
  std::unique_ptr<MetricsServer> server(
      new MetricsServer(options, registry, health));
  try {
    server->listener_->open().wait();
  } catch (const std::exception& e) {
    return util::Error("cannot serve metrics on " + options.bind_address +
                       ": " + e.what());
  }
  return server;
}

MetricsServer::MetricsServer(const MetricsServerOptions& options,
                             prometheus::Registry& registry,
                             const HealthChecks& health)
    : options_(options), registry_(registry), health_(health) {
  const bool tls = !options.tls_cert_file.empty();
  url_ = std::string(tls ? "https" : "http") + "://" + options.bind_address;
  http::experimental::listener::http_listener_config config;
  if (tls) {
    const std::string cert = options.tls_cert_file;
    const std::string key = options.tls_key_file;
    config.set_ssl_context_callback([cert, key](ssl::context& ctx) {
      ctx.set_options(ssl::context::default_workarounds |
                      ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                      ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
      ctx.use_certificate_chain_file(cert);
      ctx.use_private_key_file(key, ssl::context::pem);
    });
  }
  listener_ = std::make_unique<http::experimental::listener::http_listener>(
      url_, config);
  listener_->support(
      [this](http::http_request request) { Receive(std::move(request)); });
}

MetricsServer::~MetricsServer() {
  // Answers in progress finish before the listener closes (cpprestsdk's
  // close() tears down sockets whose handlers may still run).
  closing_ = true;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (in_flight_.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  try {
    listener_->close().wait();
  } catch (const std::exception&) {
  }
}

void MetricsServer::Receive(http::http_request request) {
  ++in_flight_;
  const std::string path = request.relative_uri().path();
  const std::string query = request.relative_uri().query();
  const std::string text = "text/plain; charset=utf-8";
  if (closing_) {
    Send(request, 503, "shutting down\n", text, in_flight_);
  } else if (request.method() != http::methods::GET &&
             request.method() != http::methods::HEAD) {
    Send(request, 405, "method not allowed\n", text, in_flight_);
  } else if (path == "/metrics" || path == "/metrics/") {
    if (options_.before_scrape) options_.before_scrape();
    std::vector<prometheus::MetricFamily> families = registry_.Collect();
    if (options_.extra_families) {
      for (auto& f : options_.extra_families())
        families.push_back(std::move(f));
    }
    Send(request, 200, prometheus::TextSerializer().Serialize(families),
         "text/plain; version=0.0.4; charset=utf-8", in_flight_);
  } else if (auto answer = health_.Handle(path, query)) {
    Send(request, answer->code, answer->body, text, in_flight_);
  } else {
    Send(request, 404, "404 page not found\n", text, in_flight_);
  }
}

}  // namespace ksched::metrics
