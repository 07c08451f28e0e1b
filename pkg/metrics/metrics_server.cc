#include "pkg/metrics/metrics_server.h"

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <cctype>
#include <chrono>
#include <string_view>

// boost/asio, under cpprestsdk, uses std::exchange without including
// <utility>.
// clang-format off
#include <utility>
#include <cpprest/http_listener.h>
// clang-format on

#include "pkg/auth/delegating_authorizer.h"
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

// Scrapes are a few a minute; more waiting than this is a client gone
// wrong.
constexpr size_t kMaxPendingReviews = 64;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(c));
  return s;
}

}  // namespace

struct MetricsServer::Pending {
  http::http_request request;
  std::function<void()> done;
};

util::Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    const MetricsServerOptions& options, prometheus::Registry& registry,
    const HealthChecks& health) {
  auto listener = ksched::http::Listener::Create({
      .bind_address = options.bind_address,
      .tls_cert_file = options.tls_cert_file,
      .tls_key_file = options.tls_key_file,
      .tls_cert_pem = options.tls_cert_pem,
      .tls_key_pem = options.tls_key_pem,
      .name = options.name,
      .half_tls_error =
          options.name + " TLS needs both a certificate and a key file",
      .listen_error = "cannot serve " + options.name + " on",
  });
  if (!listener.ok()) return listener.error();
  std::unique_ptr<MetricsServer> server(
      new MetricsServer(options, registry, health));
  server->listener_ = std::move(*listener);
  MetricsServer* s = server.get();
  if (options.authorizer != nullptr) {
    server->auth_thread_ = std::thread([s] { s->AuthLoop(); });
  }
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
  // Answers in progress finish before the listener closes; the reviews
  // still waiting are answered 503 by the auth thread as it stops.
  auto stop_auth = [this] {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (auth_thread_.joinable()) auth_thread_.join();
  };
  if (listener_ != nullptr) {
    listener_->Close(std::chrono::seconds(5), stop_auth);
  } else {
    stop_auth();
  }
}

bool MetricsServer::AlwaysAllowed(const std::string& path) const {
  for (const std::string& allowed : options_.always_allow_paths) {
    if (allowed == path) return true;
    if (allowed.ends_with("*") &&
        path.starts_with(
            std::string_view(allowed).substr(0, allowed.size() - 1))) {
      return true;
    }
  }
  return false;
}

void MetricsServer::AuthLoop() {
  while (true) {
    std::unique_ptr<Pending> next;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      if (pending_.empty()) return;
      next = std::move(pending_.front());
      pending_.pop_front();
      if (stopping_) {
        lock.unlock();
        Send(next->request, 503, "shutting down\n", "text/plain; charset=utf-8",
             std::move(next->done));
        continue;
      }
    }
    http::http_request& request = next->request;
    auto header = request.headers().find("Authorization");
    const std::string authorization =
        header == request.headers().end() ? "" : header->second;
    const auth::Decision decision = options_.authorizer->Check(
        authorization, {.verb = Lower(request.method()),
                        .path = request.relative_uri().path()});
    if (!decision.allowed()) {
      Send(request, decision.code, auth::StatusBody(decision),
           "application/json", std::move(next->done));
      continue;
    }
    Serve(request, std::move(next->done));
  }
}

std::string MetricsServer::url() const { return listener_->url(); }

void MetricsServer::Receive(http::http_request request,
                            std::function<void()> done) {
  if (listener_->closing()) {
    Send(request, 503, "shutting down\n", "text/plain; charset=utf-8",
         std::move(done));
    return;
  }
  // As kube's filters: who and whether first, then the handler.
  if (options_.authorizer != nullptr &&
      !AlwaysAllowed(request.relative_uri().path())) {
    std::unique_lock lock(mu_);
    if (!stopping_ && pending_.size() < kMaxPendingReviews) {
      pending_.push_back(std::make_unique<Pending>(
          Pending{std::move(request), std::move(done)}));
      wake_.notify_one();
      return;
    }
    lock.unlock();
    Send(request, 503, "too many requests waiting for authorization\n",
         "text/plain; charset=utf-8", std::move(done));
    return;
  }
  Serve(request, std::move(done));
}

void MetricsServer::Serve(http::http_request& request,
                          std::function<void()> done) {
  const std::string path = request.relative_uri().path();
  const std::string query = request.relative_uri().query();
  const std::string text = "text/plain; charset=utf-8";
  if (request.method() != http::methods::GET &&
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
  } else if (auto handler = options_.handlers.find(path);
             handler != options_.handlers.end()) {
    PathAnswer a = handler->second(query);
    Send(request, a.code, a.body, a.content_type, std::move(done));
  } else {
    Send(request, 404, "404 page not found\n", text, std::move(done));
  }
}

}  // namespace ksched::metrics
