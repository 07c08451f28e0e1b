// CpprestTransport: HTTP/1.1 (keep-alive) to the API server through
// cpprestsdk's http_client, with OpenSSL for HTTPS: the server certificate
// is verified against the cluster CA (host name and IP SANs included)
// unless the kubeconfig asks for insecure-skip-tls-verify; client
// certificates for mutual TLS; the bearer token (re-read from its file as
// it rotates) or basic auth on every request.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "pkg/client/rest_config.h"
#include "pkg/client/token_source.h"
#include "pkg/client/transport.h"
#include "pkg/util/clock.h"

namespace web::http::client {
class http_client;
}  // namespace web::http::client

namespace ksched::client {

struct TransportOptions {
  // Whole request, connection to last byte.
  std::chrono::seconds timeout{30};
  std::string user_agent = std::string("ksched/") + KSCHED_VERSION;
};

class CpprestTransport final : public Transport {
 public:
  // Errors when the configuration cannot work (bad URL, unreadable PEM).
  static util::Result<std::unique_ptr<CpprestTransport>> Create(
      const RestConfig& config, const util::Clock& clock,
      const TransportOptions& options);
  ~CpprestTransport() override;

  util::Result<HttpResponse> RoundTrip(const HttpRequest& request) override;

 private:
  CpprestTransport(const RestConfig& config, const util::Clock& clock,
                   const TransportOptions& options);

  std::unique_ptr<web::http::client::http_client> client_;
  TokenSource tokens_;
  std::string basic_auth_;  // "Basic ..." or empty
  std::string user_agent_;
};

}  // namespace ksched::client
