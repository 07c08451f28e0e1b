// CpprestTransport: HTTP/1.1 (keep-alive) to the API server through
// cpprestsdk's http_client, with OpenSSL for HTTPS: the server certificate
// is verified against the cluster CA (host name and IP SANs included)
// unless the kubeconfig asks for insecure-skip-tls-verify; client
// certificates for mutual TLS; the bearer token (re-read from its file as
// it rotates) or basic auth on every request.
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "pkg/client/rest_config.h"
#include "pkg/client/token_source.h"
#include "pkg/client/transport.h"
#include "pkg/util/clock.h"

namespace web::http {
class http_request;
namespace client {
class http_client;
}  // namespace client
}  // namespace web::http

namespace ksched::client {

struct TransportOptions {
  // How long the server may stay silent: connecting, sending, waiting for
  // the answer, and between two pieces of a body.
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
  // The timeout applies to each wait for more of the body, so a watch
  // needs a transport whose timeout exceeds the server's quiet periods.
  util::Result<StreamedResponse> Stream(const HttpRequest& request,
                                        util::Cancellation& cancel) override;
  // cpprestsdk keeps a connection it no longer uses for 30 to 60 seconds
  // and offers no way to close it sooner: the client that pools it is
  // replaced by a fresh one, and the old one, with its pool, goes when the
  // last request on it ends.
  void CloseIdleConnections() override;

 private:
  CpprestTransport(const RestConfig& config, const util::Clock& clock,
                   const TransportOptions& options);

  web::http::http_request MakeRequest(const HttpRequest& request,
                                      const std::string& token);
  // After a 401 to `token`: reads the token file again at once (as
  // client-go resets its cached token on an Unauthorized answer); true,
  // with `token` replaced, when it now holds another token.
  bool RotatedSince(std::string& token);
  // "GET https://HOST:PORT/path: <cause>", the cause as kube's clients
  // word it (connection refused, TLS handshake, timeout).
  std::string Describe(const HttpRequest& request,
                       const std::exception& e) const;

  // The client for the next request; requests hold their own reference.
  std::shared_ptr<web::http::client::http_client> Client() const;

  std::function<std::shared_ptr<web::http::client::http_client>()> new_client_;
  mutable std::mutex client_mu_;
  std::shared_ptr<web::http::client::http_client> client_;
  TokenSource tokens_;
  std::string basic_auth_;  // "Basic ..." or empty
  std::string user_agent_;
  std::string server_;  // the URL without a trailing slash
  std::string host_;
  std::string port_;
};

}  // namespace ksched::client
