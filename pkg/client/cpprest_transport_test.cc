#include "pkg/client/cpprest_transport.h"

#include <cpprest/http_listener.h>
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "pkg/client/testing/loopback.h"
#include "pkg/util/clock.h"

namespace ksched::client {
namespace {

namespace http = web::http;
using web::http::experimental::listener::http_listener;

using testing::FreePort;

struct Seen {
  std::string method, path, accept, user_agent, authorization, content_type,
      body;
};

// A plain-HTTP server on loopback that records the last request and
// answers 201 with a fixed body and a Retry-After header.
class RecordingServer {
 public:
  explicit RecordingServer(std::chrono::milliseconds delay = {})
      : url_("http://127.0.0.1:" + std::to_string(FreePort())),
        listener_(url_) {
    listener_.support([this, delay](http::http_request req) {
      {
        std::lock_guard lock(mu_);
        seen_.method = req.method();
        seen_.path = req.relative_uri().to_string();
        auto get = [&](const char* name) {
          auto it = req.headers().find(name);
          return it == req.headers().end() ? std::string() : it->second;
        };
        seen_.accept = get("Accept");
        seen_.user_agent = get("User-Agent");
        seen_.authorization = get("Authorization");
        seen_.content_type = get("Content-Type");
        std::vector<unsigned char> body = req.extract_vector().get();
        seen_.body.assign(body.begin(), body.end());
      }
      if (delay.count() > 0) std::this_thread::sleep_for(delay);
      http::http_response response(201);
      response.headers().add("Retry-After", "3");
      const std::string body = R"({"kind":"Status"})";
      // As bytes, for the reason given in cpprest_transport.cc.
      response.set_body(std::vector<unsigned char>(body.begin(), body.end()));
      response.headers().set_content_type("application/json");
      req.reply(response).wait();
    });
    listener_.open().wait();
  }
  ~RecordingServer() { listener_.close().wait(); }

  const std::string& url() const { return url_; }
  Seen seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }

 private:
  std::string url_;
  http_listener listener_;
  std::mutex mu_;
  Seen seen_;
};

std::unique_ptr<CpprestTransport> Connect(const RestConfig& config,
                                          TransportOptions options = {}) {
  auto transport =
      CpprestTransport::Create(config, testing::RealTestClock(), options);
  EXPECT_TRUE(transport.ok()) << transport.error().message();
  return transport.ok() ? std::move(*transport) : nullptr;
}

TEST(CpprestTransportTest, SendsTheRequestAndReadsTheAnswer) {
  RecordingServer server;
  RestConfig config;
  config.server = server.url();
  config.bearer_token = "secret-token";
  auto transport = Connect(config);
  ASSERT_NE(transport, nullptr);
  auto response =
      transport->RoundTrip({.method = "POST",
                            .path = "/api/v1/namespaces/default/pods/p/binding",
                            .body = R"({"kind":"Binding"})"});
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->code, 201);
  EXPECT_EQ(response->body, R"({"kind":"Status"})");
  EXPECT_EQ(response->content_type, "application/json");
  EXPECT_EQ(response->retry_after, "3");

  Seen seen = server.seen();
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.path, "/api/v1/namespaces/default/pods/p/binding");
  EXPECT_EQ(seen.accept, "application/json");
  EXPECT_EQ(seen.user_agent, std::string("ksched/") + KSCHED_VERSION);
  EXPECT_EQ(seen.authorization, "Bearer secret-token");
  EXPECT_EQ(seen.content_type, "application/json");
  EXPECT_EQ(seen.body, R"({"kind":"Binding"})");
}

TEST(CpprestTransportTest, QueryAndMergePatchContentType) {
  RecordingServer server;
  RestConfig config;
  config.server = server.url();
  config.username = "admin";
  config.password = "pw";
  auto transport = Connect(config);
  ASSERT_NE(transport, nullptr);
  auto response = transport->RoundTrip(
      {.method = "PATCH",
       .path = "/api/v1/namespaces/default/pods/p/status?fieldManager=x",
       .body = "{}",
       .content_type = "application/merge-patch+json"});
  ASSERT_TRUE(response.ok()) << response.error().message();
  Seen seen = server.seen();
  EXPECT_EQ(seen.path,
            "/api/v1/namespaces/default/pods/p/status?fieldManager=x");
  EXPECT_EQ(seen.content_type, "application/merge-patch+json");
  // Basic auth when there is no token: "admin:pw".
  EXPECT_EQ(seen.authorization, "Basic YWRtaW46cHc=");
}

TEST(CpprestTransportTest, NoAnswerIsAnError) {
  RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(FreePort());
  auto transport = Connect(config);
  ASSERT_NE(transport, nullptr);
  auto response = transport->RoundTrip({.path = "/api/v1/nodes"});
  ASSERT_FALSE(response.ok());
  EXPECT_NE(response.error().message().find("GET /api/v1/nodes"),
            std::string::npos)
      << response.error().message();
}

// A server that does not answer in time costs the timeout, not a hang.
TEST(CpprestTransportTest, SlowAnswerTimesOut) {
  RecordingServer server(std::chrono::milliseconds(2500));
  RestConfig config;
  config.server = server.url();
  auto transport = Connect(config, {.timeout = std::chrono::seconds(1)});
  ASSERT_NE(transport, nullptr);
  // The server would answer 201 after 2.5 s: an error means the client
  // gave up first.
  auto response = transport->RoundTrip({.path = "/api/v1/nodes"});
  ASSERT_FALSE(response.ok());
}

TEST(CpprestTransportTest, ConfigurationsThatCannotWork) {
  auto expect_error = [](const RestConfig& config, const std::string& part) {
    auto t = CpprestTransport::Create(config, testing::RealTestClock(), {});
    ASSERT_FALSE(t.ok()) << part;
    EXPECT_NE(t.error().message().find(part), std::string::npos)
        << t.error().message();
  };
  RestConfig bad_ca;
  bad_ca.server = "https://127.0.0.1:6443";
  bad_ca.ca_pem = "not a certificate";
  expect_error(bad_ca, "TLS credentials");
  RestConfig bad_scheme;
  bad_scheme.server = "ftp://127.0.0.1";
  expect_error(bad_scheme, "scheme must be https or http");
  RestConfig sni;
  sni.server = "https://127.0.0.1:6443";
  sni.tls_server_name = "kubernetes";
  expect_error(sni, "tls-server-name is not supported");
}

}  // namespace
}  // namespace ksched::client
