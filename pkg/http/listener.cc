#include "pkg/http/listener.h"

#include <fstream>
#include <thread>

// boost/asio, under cpprestsdk, uses std::exchange without including
// <utility>.
// clang-format off
#include <utility>
#include <cpprest/http_listener.h>
#include <pplx/threadpool.h>
// clang-format on

namespace ksched::http {
namespace {

namespace ssl = boost::asio::ssl;
using web::http::experimental::listener::http_listener;
using web::http::experimental::listener::http_listener_config;

bool Readable(const std::string& path) {
  std::ifstream in(path);
  return static_cast<bool>(in);
}

}  // namespace

util::Result<std::unique_ptr<Listener>> Listener::Create(
    const ListenerOptions& options) {
  const size_t colon = options.bind_address.rfind(':');
  if (colon == std::string::npos || colon + 1 == options.bind_address.size()) {
    return util::Error(options.name + " bind address \"" +
                       options.bind_address + "\": expected HOST:PORT");
  }
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return util::Error(options.half_tls_error);
  }
  for (const std::string* file : {&options.tls_cert_file, &options.tls_key_file,
                                  &options.client_ca_file}) {
    if (!file->empty() && !Readable(*file)) {
      return util::Error("cannot read " + *file);
    }
  }
  if (!options.client_ca_file.empty() && options.tls_cert_file.empty() &&
      options.tls_cert_pem.empty()) {
    return util::Error("a client CA needs the " + options.name +
                       " to serve HTTPS");
  }
  const bool tls =
      !options.tls_cert_file.empty() || !options.tls_cert_pem.empty();
  return std::unique_ptr<Listener>(new Listener(
      options,
      std::string(tls ? "https" : "http") + "://" + options.bind_address));
}

Listener::Listener(const ListenerOptions& options, std::string url)
    : options_(options), url_(std::move(url)) {
  http_listener_config config;
  if (!options.tls_cert_file.empty() || !options.tls_cert_pem.empty()) {
    const std::string cert = options.tls_cert_file;
    const std::string key = options.tls_key_file;
    const std::string cert_pem = options.tls_cert_pem;
    const std::string key_pem = options.tls_key_pem;
    const std::string ca = options.client_ca_file;
    config.set_ssl_context_callback([cert, key, cert_pem, key_pem,
                                     ca](ssl::context& ctx) {
      ctx.set_options(ssl::context::default_workarounds |
                      ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                      ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
      if (!cert.empty()) {
        ctx.use_certificate_chain_file(cert);
        ctx.use_private_key_file(key, ssl::context::pem);
      } else {
        ctx.use_certificate_chain(boost::asio::buffer(cert_pem));
        ctx.use_private_key(boost::asio::buffer(key_pem), ssl::context::pem);
      }
      if (!ca.empty()) {
        ctx.load_verify_file(ca);
        ctx.set_verify_mode(ssl::verify_peer |
                            ssl::verify_fail_if_no_peer_cert);
      }
    });
  }
  listener_ = std::make_unique<http_listener>(url_, config);
}

util::Status Listener::Start(Handler handler) {
  handler_ = std::move(handler);
  listener_->support([this](web::http::http_request request) {
    ++in_flight_;
    handler_(std::move(request), [this] { --in_flight_; });
  });
  try {
    listener_->open().wait();
  } catch (const std::exception& e) {
    return util::Error(options_.listen_error + " " + options_.bind_address +
                       ": " + e.what());
  }
  open_ = true;
  return util::Status::Ok();
}

Listener::~Listener() {
  if (!closed_) Close(std::chrono::seconds(5));
}

void Listener::Close(std::chrono::milliseconds drain,
                     const std::function<void()>& drained) {
  closing_ = true;
  WaitIdle(drain);
  if (drained) drained();
  closed_ = true;
  if (!open_) return;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  try {
    pplx::task<void> closing = listener_->close();
    // cpprestsdk closes on a task of its pool, and stopping the server
    // there waits for the open connections (a scraper's keep-alive) to
    // finish, which takes handlers only a pool thread runs. With ksched's
    // pool of one thread that wait could block the very thread it needs (a
    // shutdown once hung this way under load), so this thread runs the
    // pool's handlers until the close is done.
    auto& io = crossplat::threadpool::shared_instance().service();
    while (!closing.is_done()) io.run_one_for(std::chrono::milliseconds(10));
    closing.wait();
  } catch (const std::exception&) {
  }
  WaitIdle(std::chrono::seconds(5));
}

bool Listener::WaitIdle(std::chrono::milliseconds limit) const {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (in_flight_.load() > 0) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace ksched::http
