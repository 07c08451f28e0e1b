// CpprestTransport over HTTPS against a loopback server whose certificate
// a throwaway CA signed: what is verified, and what is refused.
#include <cpprest/http_listener.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "pkg/client/cpprest_transport.h"
#include "pkg/client/testing/loopback.h"
#include "pkg/client/testing/scoped_env.h"
#include "pkg/client/testing/test_pki.h"
#include "pkg/client/tls_trust.h"
#include "pkg/util/clock.h"

namespace ksched::client {
namespace {

using testing::ScopedEnv;

namespace http = web::http;
namespace ssl = boost::asio::ssl;
using web::http::experimental::listener::http_listener;
using web::http::experimental::listener::http_listener_config;

using testing::FreePort;

// An HTTPS server on 127.0.0.1 answering 200 "ok"; with `client_ca` it
// requires a client certificate that CA signed.
class TlsServer {
 public:
  TlsServer(const testing::CertAndKey& identity, const std::string& client_ca)
      : url_("https://127.0.0.1:" + std::to_string(FreePort())) {
    http_listener_config cfg;
    cfg.set_ssl_context_callback([identity, client_ca](ssl::context& ctx) {
      ctx.use_certificate_chain(boost::asio::buffer(identity.cert_pem));
      ctx.use_private_key(boost::asio::buffer(identity.key_pem),
                          ssl::context::pem);
      if (!client_ca.empty()) {
        ctx.add_certificate_authority(boost::asio::buffer(client_ca));
        ctx.set_verify_mode(ssl::verify_peer |
                            ssl::verify_fail_if_no_peer_cert);
      }
    });
    listener_ = std::make_unique<http_listener>(url_, cfg);
    listener_->support([](http::http_request req) {
      const std::string ok = "ok";
      http::http_response response(200);
      response.set_body(std::vector<unsigned char>(ok.begin(), ok.end()));
      req.reply(response).wait();
    });
    listener_->open().wait();
  }
  ~TlsServer() { listener_->close().wait(); }
  const std::string& url() const { return url_; }

 private:
  std::string url_;
  std::unique_ptr<http_listener> listener_;
};

util::Result<HttpResponse> Get(const RestConfig& config) {
  auto transport = CpprestTransport::Create(
      config, testing::RealTestClock(), {.timeout = std::chrono::seconds(5)});
  if (!transport.ok()) return transport.error();
  return (*transport)->RoundTrip({.path = "/version"});
}

class CpprestTlsTest : public ::testing::Test {
 protected:
  testing::TestPki pki_;
};

TEST_F(CpprestTlsTest, ServerSignedByTheClusterCaIsTrusted) {
  TlsServer server(pki_.Issue("apiserver", "DNS:localhost,IP:127.0.0.1"), "");
  RestConfig config;
  config.server = server.url();
  config.ca_pem = pki_.ca_pem();
  auto response = Get(config);
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->code, 200);
  EXPECT_EQ(response->body, "ok");
}

TEST_F(CpprestTlsTest, UnknownCaIsRefusedUnlessInsecureIsAskedFor) {
  TlsServer server(pki_.Issue("apiserver", "IP:127.0.0.1"), "");
  RestConfig config;
  config.server = server.url();
  // Only the system's roots, which never signed this server.
  auto refused = Get(config);
  ASSERT_FALSE(refused.ok());
  // Where and why, as a user reads it.
  EXPECT_EQ(refused.error().message(),
            "GET " + server.url() + "/version: TLS handshake with " +
                server.url().substr(std::string("https://").size()) +
                ": certificate verify failed");
  config.insecure_skip_tls_verify = true;
  auto response = Get(config);
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->code, 200);
}

TEST_F(CpprestTlsTest, AClusterCaIsTrustedAloneAndSystemRootsOnlyWithout) {
  TlsServer server(pki_.Issue("apiserver", "IP:127.0.0.1"), "");
  // The "system" roots include the server's CA...
  const std::string roots = ::testing::TempDir() +
                            "/cpprest_tls_test_system_roots_" +
                            std::to_string(getpid()) + ".pem";
  std::ofstream(roots) << pki_.ca_pem();
  ScopedEnv file("SSL_CERT_FILE", roots);
  ScopedEnv saved(kSavedCertFileVar, roots);
  ScopedEnv dir("SSL_CERT_DIR", "/nonexistent/cpprest_tls_test");
  RestConfig config;
  config.server = server.url();
  // ...but a kubeconfig that names another CA trusts that one alone, as
  // client-go does.
  testing::TestPki other;
  config.ca_pem = other.ca_pem();
  auto refused = Get(config);
  ASSERT_FALSE(refused.ok());
  // (Both throwaway CAs carry one name, so OpenSSL finds the wrong one and
  // fails on its signature rather than on a missing issuer.)
  EXPECT_NE(refused.error().message().find("TLS handshake with 127.0.0.1:"),
            std::string::npos)
      << refused.error().message();
  // Without a CA of its own, the system roots are used.
  config.ca_pem.clear();
  auto response = Get(config);
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->code, 200);
}

TEST_F(CpprestTlsTest, CertificateForAnotherNameIsRefused) {
  // Signed by the trusted CA, but not for 127.0.0.1.
  TlsServer server(pki_.Issue("elsewhere", "DNS:other.example,IP:10.9.9.9"),
                   "");
  RestConfig config;
  config.server = server.url();
  config.ca_pem = pki_.ca_pem();
  auto response = Get(config);
  ASSERT_FALSE(response.ok());
  EXPECT_NE(response.error().message().find("TLS handshake with 127.0.0.1:"),
            std::string::npos)
      << response.error().message();
}

TEST_F(CpprestTlsTest, MutualTlsPresentsTheClientCertificate) {
  TlsServer server(pki_.Issue("apiserver", "IP:127.0.0.1"), pki_.ca_pem());
  RestConfig config;
  config.server = server.url();
  config.ca_pem = pki_.ca_pem();
  EXPECT_FALSE(Get(config).ok()) << "the server requires a certificate";
  testing::CertAndKey client = pki_.Issue("system:kube-scheduler", "", true);
  config.client_cert_pem = client.cert_pem;
  config.client_key_pem = client.key_pem;
  auto response = Get(config);
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->code, 200);
}

}  // namespace
}  // namespace ksched::client
