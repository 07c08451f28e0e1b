#include "pkg/client/cpprest_transport.h"

#include <cpprest/http_client.h>

#include <cerrno>
#include <exception>
#include <utility>
#include <vector>

#include "pkg/client/connect_probe.h"
#include "pkg/client/tls_trust.h"

namespace ksched::client {
namespace {

namespace http = web::http;
namespace ssl = boost::asio::ssl;

// Gives `ctx` the trust built once (tls_trust.h) in place of the default
// cpprestsdk loaded, and the client certificate. Throws
// boost::system::system_error on bad PEM.
void ConfigureTls(ssl::context& ctx, const RestConfig& config,
                  const TrustStore& trust) {
  // set1: the context takes a reference; the store outlives every context.
  SSL_CTX_set1_cert_store(ctx.native_handle(), trust.get());
  if (!config.client_cert_pem.empty()) {
    ctx.use_certificate_chain(boost::asio::buffer(config.client_cert_pem));
    ctx.use_private_key(boost::asio::buffer(config.client_key_pem),
                        ssl::context::pem);
  }
}

std::string BasicAuth(const RestConfig& config) {
  if (config.username.empty() && config.password.empty()) return "";
  const std::string pair = config.username + ":" + config.password;
  return "Basic " + utility::conversions::to_base64(
                        std::vector<unsigned char>(pair.begin(), pair.end()));
}

}  // namespace

CpprestTransport::CpprestTransport(const RestConfig& config,
                                   const util::Clock& clock,
                                   const TransportOptions& options)
    : tokens_(clock, config),
      basic_auth_(BasicAuth(config)),
      user_agent_(options.user_agent) {}

CpprestTransport::~CpprestTransport() = default;

util::Result<std::unique_ptr<CpprestTransport>> CpprestTransport::Create(
    const RestConfig& config, const util::Clock& clock,
    const TransportOptions& options) {
  if (!config.tls_server_name.empty()) {
    return util::Error(
        "tls-server-name is not supported: the server certificate is checked "
        "against the host of the server URL");
  }
  web::uri uri;
  try {
    uri = web::uri(config.server);
  } catch (const std::exception& e) {
    return util::Error("server URL \"" + config.server + "\": " + e.what());
  }
  if (uri.scheme() != "https" && uri.scheme() != "http") {
    return util::Error("server URL \"" + config.server +
                       "\": the scheme must be https or http");
  }
  // Bad PEM is reported now, not on the first request.
  auto trust = BuildTrustStore(config.ca_pem);
  if (!trust.ok()) {
    return util::Error("TLS credentials: " + trust.error().message());
  }
  try {
    ssl::context probe(ssl::context::tls_client);
    ConfigureTls(probe, config, *trust);
  } catch (const std::exception& e) {
    return util::Error(std::string("TLS credentials: ") + e.what());
  }

  http::client::http_client_config cfg;
  cfg.set_timeout(options.timeout);
  cfg.set_validate_certificates(!config.insecure_skip_tls_verify);
  cfg.set_ssl_context_callback([config, trust = *trust](ssl::context& ctx) {
    ConfigureTls(ctx, config, trust);
  });
  std::unique_ptr<CpprestTransport> transport(
      new CpprestTransport(config, clock, options));
  transport->server_ = config.server;
  while (!transport->server_.empty() && transport->server_.back() == '/') {
    transport->server_.pop_back();
  }
  transport->host_ = uri.host();
  transport->port_ = std::to_string(
      uri.port() > 0 ? uri.port() : (uri.scheme() == "https" ? 443 : 80));
  transport->new_client_ = [uri, cfg] {
    return std::make_shared<http::client::http_client>(uri, cfg);
  };
  try {
    transport->client_ = transport->new_client_();
  } catch (const std::exception& e) {
    return util::Error("server URL \"" + config.server + "\": " + e.what());
  }
  return transport;
}

std::shared_ptr<http::client::http_client> CpprestTransport::Client() const {
  std::lock_guard lock(client_mu_);
  return client_;
}

void CpprestTransport::CloseIdleConnections() {
  // Made outside the lock: a request starting now takes the old client,
  // and its connection closes with that client after the request.
  std::shared_ptr<http::client::http_client> fresh;
  try {
    fresh = new_client_();
  } catch (const std::exception&) {
    return;  // the URI was accepted once; keep the client that works
  }
  std::shared_ptr<http::client::http_client> old;
  {
    std::lock_guard lock(client_mu_);
    old = std::exchange(client_, std::move(fresh));
  }
  // `old` is released here, after the lock: its destructor may close
  // connections.
}

http::http_request CpprestTransport::MakeRequest(const HttpRequest& request,
                                                 const std::string& token) {
  http::http_request msg(request.method);
  msg.set_request_uri(request.path);
  http::http_headers& headers = msg.headers();
  headers.add("Accept", "application/json");
  headers.add("User-Agent", user_agent_);
  if (!token.empty()) {
    headers.add("Authorization", "Bearer " + token);
  } else if (!basic_auth_.empty()) {
    headers.add("Authorization", basic_auth_);
  }
  if (!request.body.empty() || !request.content_type.empty()) {
    // As bytes: cpprestsdk's std::string overload reads the string through
    // a stream buffer of another character type (undefined behaviour that
    // UBSan reports).
    msg.set_body(
        std::vector<unsigned char>(request.body.begin(), request.body.end()));
    headers.set_content_type(request.content_type.empty()
                                 ? "application/json"
                                 : request.content_type);
  }
  return msg;
}

namespace {

std::string Header(const http::http_headers& headers, const char* name) {
  auto it = headers.find(name);
  return it == headers.end() ? "" : it->second;
}

// Reads a body as cpprestsdk's client receives it. The response keeps the
// connection; the registration cancels it when the caller's Cancellation
// fires.
class CpprestBodyReader final : public BodyReader {
 public:
  CpprestBodyReader(std::shared_ptr<http::client::http_client> client,
                    http::http_response response,
                    std::shared_ptr<pplx::cancellation_token_source> source,
                    util::Cancellation::Registration registration)
      : client_(std::move(client)),
        response_(std::move(response)),
        buffer_(response_.body().streambuf()),
        source_(std::move(source)),
        registration_(std::move(registration)) {}

  ~CpprestBodyReader() override {
    registration_.Reset();
    // Closes the connection of an unfinished body instead of draining it.
    if (!finished_) source_->cancel();
  }

  util::Result<bool> ReadSome(std::string& out) override {
    try {
      // One byte blocks until the next piece arrives; the rest of what has
      // arrived is then taken without waiting (a large getn would wait for
      // its whole count).
      const auto first = buffer_.bumpc().get();
      if (first == decltype(buffer_)::traits::eof()) {
        finished_ = true;
        return false;
      }
      out.push_back(static_cast<char>(first));
      const size_t available = buffer_.in_avail();
      if (available > 0) {
        chunk_.resize(std::min<size_t>(available, 1 << 20));
        const size_t n = buffer_.getn(chunk_.data(), chunk_.size()).get();
        out.append(reinterpret_cast<const char*>(chunk_.data()), n);
      }
      return true;
    } catch (const std::exception& e) {
      finished_ = true;
      return util::Error(std::string("reading the response body: ") + e.what());
    }
  }

 private:
  // The client whose connection carries the body: it stays while the body
  // is read, even when the transport has moved on to a fresh client.
  std::shared_ptr<http::client::http_client> client_;
  http::http_response response_;
  concurrency::streams::streambuf<uint8_t> buffer_;
  std::shared_ptr<pplx::cancellation_token_source> source_;
  util::Cancellation::Registration registration_;
  std::vector<uint8_t> chunk_;
  bool finished_ = false;
};

}  // namespace

bool CpprestTransport::RotatedSince(std::string& token) {
  tokens_.Invalidate();
  std::string fresh = tokens_.Token();
  if (fresh.empty() || fresh == token) return false;
  token = std::move(fresh);
  return true;
}

std::string CpprestTransport::Describe(const HttpRequest& request,
                                       const std::exception& e) const {
  std::string cause = e.what();
  const std::string where = host_ + ":" + port_;
  if (const auto* h = dynamic_cast<const http::http_exception*>(&e)) {
    const int code = h->error_code().value();
    const std::string what = h->what();
    if (what.find("Failed to connect") != std::string::npos) {
      // cpprestsdk says the same for every cause: ask the network.
      std::string why = ProbeConnect(host_, port_, std::chrono::seconds(2));
      if (why == "connected") why = what;
      cause = "connect to " + where + ": " + why;
    } else if (what.find("resolving") != std::string::npos) {
      cause = "lookup " + host_ + ": " +
              ProbeConnect(host_, port_, std::chrono::seconds(2));
    } else if (what.find("SSL handshake") != std::string::npos) {
      std::string why = OpenSslReason(static_cast<unsigned long>(code));
      if (why.empty()) {
        why = code == ETIMEDOUT ? "timeout" : h->error_code().message();
      }
      cause = "TLS handshake with " + where + ": " + why;
    } else if (code == ETIMEDOUT ||
               what.find("timed out") != std::string::npos) {
      cause = "timeout waiting for " + where + " (" + what + ")";
    }
  }
  return request.method + " " + server_ + request.path + ": " + cause;
}

util::Result<HttpResponse> CpprestTransport::RoundTrip(
    const HttpRequest& request) {
  // The response and its body as one task: the caller blocks once per
  // request, not once for the headers and again for the body (each wait is
  // a sleep and a wake-up of this thread).
  using Reply = std::pair<http::http_response, std::vector<unsigned char>>;
  const std::shared_ptr<http::client::http_client> client = Client();
  auto send = [&](const std::string& token) {
    return client->request(MakeRequest(request, token))
        .then([](http::http_response response) {
          return response.extract_vector().then(
              [response](std::vector<unsigned char> body) {
                return Reply(response, std::move(body));
              });
        });
  };
  try {
    std::string token = tokens_.Token();
    Reply reply = send(token).get();
    if (reply.first.status_code() == 401 && RotatedSince(token)) {
      // Refused at authentication, before anything took effect: the same
      // request with the token the file holds now is safe to send, POSTs
      // included, and saves the caller a failure during a rotation.
      reply = send(token).get();
      if (reply.first.status_code() == 401) tokens_.Invalidate();
    }
    const http::http_response& response = reply.first;
    HttpResponse out;
    out.code = response.status_code();
    out.body.assign(reply.second.begin(), reply.second.end());
    out.content_type = Header(response.headers(), "Content-Type");
    out.retry_after = Header(response.headers(), "Retry-After");
    return out;
  } catch (const std::exception& e) {
    return util::Error(Describe(request, e));
  }
}

util::Result<StreamedResponse> CpprestTransport::Stream(
    const HttpRequest& request, util::Cancellation& cancel) {
  auto source = std::make_shared<pplx::cancellation_token_source>();
  util::Cancellation::Registration registration =
      cancel.OnCancel([source] { source->cancel(); });
  std::shared_ptr<http::client::http_client> client = Client();
  try {
    std::string token = tokens_.Token();
    http::http_response response =
        client->request(MakeRequest(request, token), source->get_token()).get();
    if (response.status_code() == 401 && RotatedSince(token)) {
      response =
          client->request(MakeRequest(request, token), source->get_token())
              .get();
      if (response.status_code() == 401) tokens_.Invalidate();
    }
    StreamedResponse out;
    out.code = response.status_code();
    out.content_type = Header(response.headers(), "Content-Type");
    out.retry_after = Header(response.headers(), "Retry-After");
    out.body = std::make_unique<CpprestBodyReader>(
        std::move(client), std::move(response), std::move(source),
        std::move(registration));
    return out;
  } catch (const std::exception& e) {
    return util::Error(Describe(request, e));
  }
}

}  // namespace ksched::client
