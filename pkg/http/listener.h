// Listener: cpprestsdk's http_listener as ksched's servers use it.
//
// Create checks the address and the TLS files; Start opens the port and
// hands every request to the handler, counted as in flight until the
// handler's answer is out (Done). Close stops quiescently: requests that
// arrive from then on see closing() (and get 503 from the servers), those
// in flight are waited for, and only then is the port closed, because
// cpprestsdk's close() tears down sockets whose handlers may still run.
//
// HTTPS when a certificate and key are given: TLS 1.2 or later, the
// certificate chain, and with a client CA, clients must present a
// certificate it signed.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "pkg/util/result.h"

namespace web::http {
class http_request;
namespace experimental::listener {
class http_listener;
}  // namespace experimental::listener
}  // namespace web::http

namespace ksched::http {

struct ListenerOptions {
  std::string bind_address;   // HOST:PORT
  std::string tls_cert_file;  // PEM; HTTPS with the key
  std::string tls_key_file;
  // Or the certificate chain and key themselves (a self-signed one made at
  // start-up); the files win when both are given.
  std::string tls_cert_pem;
  std::string tls_key_pem;
  std::string client_ca_file;  // PEM; needs HTTPS

  // How errors name the server, so that each keeps its wording:
  //   <name> bind address "...": expected HOST:PORT
  //   <half_tls_error>
  //   a client CA needs the <name> to serve HTTPS
  //   <listen_error> HOST:PORT: <why>
  std::string name;
  std::string half_tls_error;
  std::string listen_error;
};

class Listener {
 public:
  // A request, and the function to call once its answer is out (or the
  // request is abandoned); it must be called exactly once.
  using Handler = std::function<void(web::http::http_request request,
                                     std::function<void()> done)>;

  // Errors when the address or the TLS files are unusable.
  static util::Result<std::unique_ptr<Listener>> Create(
      const ListenerOptions& options);
  // Listens, handing each request to `handler`; errors when the port
  // cannot be opened (taken, unresolvable host).
  util::Status Start(Handler handler);
  // Close(5 s) unless closed already.
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // http(s)://HOST:PORT
  const std::string& url() const { return url_; }

  // Whether Close has begun: handlers should refuse new work.
  bool closing() const { return closing_.load(); }

  // Waits up to `drain` for the requests in flight, runs `drained` (a
  // server stops its workers there, which answer what is left), stops
  // listening, and waits up to 5 s more for answers still going out.
  void Close(std::chrono::milliseconds drain,
             const std::function<void()>& drained = {});

 private:
  Listener(const ListenerOptions& options, std::string url);
  bool WaitIdle(std::chrono::milliseconds limit) const;

  const ListenerOptions options_;
  const std::string url_;
  std::unique_ptr<web::http::experimental::listener::http_listener> listener_;
  Handler handler_;
  bool open_ = false;
  bool closed_ = false;
  std::atomic<bool> closing_{false};
  // Requests handed to the handler whose done() has not run yet (their
  // continuations hold this object).
  std::atomic<int> in_flight_{0};
};

}  // namespace ksched::http
