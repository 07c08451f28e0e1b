#include "pkg/extender/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "pkg/auth/delegating_authorizer.h"
#include "pkg/auth/testing/table_reviewer.h"
#include "pkg/client/cpprest_transport.h"
#include "pkg/client/testing/loopback.h"
#include "pkg/client/testing/test_pki.h"
#include "pkg/config/config.h"
#include "pkg/extender/testing/fixtures.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/registry.h"
#include "pkg/util/fake_clock.h"

namespace ksched::extender {
namespace {

using testing::Fixture;
using testing::RecordingBinder;

using ksched::testing::NodeBuilder;

class ExtenderServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [name, cpu] :
         std::vector<std::pair<std::string, std::string>>{{"node-1", "4"},
                                                          {"node-2", "250m"}}) {
      cache_.AddNode(
          NodeBuilder(name)
              .Capacity({{"cpu", cpu}, {"memory", "8Gi"}, {"pods", "110"}})
              .Ptr());
    }
    cache_.AddNode(
        NodeBuilder("node-3")
            .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}})
            .Taint("dedicated", "gpu", api::TaintEffect::kNoSchedule)
            .Ptr());
    ExtenderService::Options options;
    options.clock = &clock_;
    options.binder = &binder_;
    // The pod of bind_args.json, waiting for kube-scheduler.
    options.pod_lookup =
        [](const std::string& ns,
           const std::string& name) -> std::shared_ptr<const api::Pod> {
      if (ns != "default" || name != "bind-me") return nullptr;
      return ksched::testing::PodBuilder("bind-me")
          .Namespace("default")
          .Uid("fbf635fb-06f5-4b27-b748-d867f09ee829")
          .SchedulerName("default-scheduler")
          .Req({{"cpu", "500m"}})
          .Ptr();
    };
    auto service = ExtenderService::Create(config::DefaultConfig(), registry_,
                                           cache_, options);
    ASSERT_TRUE(service.ok()) << service.error().message();
    service_ = std::move(*service);
  }

  // Listens on a free loopback port.
  bool Start(ServerOptions options = {}) {
    options.routes.default_profile = "ksched";
    for (int attempt = 0; attempt < 5; ++attempt) {
      options.bind_address =
          "127.0.0.1:" + std::to_string(client::testing::FreePort());
      auto server = ExtenderServer::Start(*service_, options, log_);
      if (server.ok()) {
        server_ = std::move(*server);
        return true;
      }
    }
    return false;
  }

  client::HttpResponse Post(const std::string& path, const std::string& body,
                            client::RestConfig config = {},
                            const std::string& method = "POST") {
    config.server = server_->url();
    auto transport = client::CpprestTransport::Create(config, clock_, {});
    EXPECT_TRUE(transport.ok()) << transport.error().message();
    auto answer = (*transport)
                      ->RoundTrip({.method = method,
                                   .path = path,
                                   .body = body,
                                   .content_type = "application/json"});
    if (!answer.ok()) return {.code = -1, .body = answer.error().message()};
    return *answer;
  }

  util::FakeClock clock_;
  cache::Cache cache_{clock_, std::chrono::nanoseconds(0)};
  framework::Registry registry_ = plugins::NewInTreeRegistry();
  RecordingBinder binder_;
  util::RecordingLogger log_;
  std::unique_ptr<ExtenderService> service_;
  std::unique_ptr<ExtenderServer> server_;
};

TEST_F(ExtenderServerTest, AnswersEveryVerbOverHttp) {
  ServerOptions options;
  options.bind_enabled = true;
  ASSERT_TRUE(Start(options));
  client::HttpResponse r =
      Post("/filter", Fixture("filter_args_node_names.json"));
  EXPECT_EQ(r.code, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(
      r.body,
      // node-2 is smaller than the pod's request: unresolvable (v1.35).
      R"({"Nodes":null,"NodeNames":["node-1"],"FailedNodes":{},)"
      R"("FailedAndUnresolvableNodes":{"node-2":"Insufficient cpu",)"
      R"json("node-3":"node(s) had untolerated taint(s)"},"Error":""})json");

  // The profile by name in the path.
  r = Post("/ksched/prioritize", Fixture("filter_args_node_names.json"));
  EXPECT_EQ(r.code, 200) << r.body;
  EXPECT_EQ(r.body.front(), '[');
  EXPECT_NE(r.body.find(R"({"Host":"node-1","Score":)"), std::string::npos);

  r = Post("/bind", Fixture("bind_args.json"));
  EXPECT_EQ(r.code, 200);
  EXPECT_EQ(r.body, R"({"Error":""})");
  EXPECT_EQ(binder_.bound().size(), 1u);
  // Logged at --v 2 as the scheduling loop logs an outcome.
  bool logged = false;
  for (const auto& line : log_.lines()) {
    logged |= line.message ==
              "Successfully bound pod to node pod=\"default/bind-me\" "
              "node=\"node-1\" profile=\"ksched\" source=\"extender\"";
  }
  EXPECT_TRUE(logged);

  r = Post("/preempt", Fixture("preempt_args_meta.json"));
  EXPECT_EQ(r.code, 200) << r.body;
  EXPECT_EQ(r.body.rfind(R"({"NodeNameToMetaVictims":)", 0), 0u) << r.body;

  // One answer each, counted by verb and code, with its latency.
  const auto stats = server_->Stats();
  for (const char* verb : {"filter", "prioritize", "bind", "preempt"}) {
    ASSERT_TRUE(stats.contains(verb)) << verb;
    EXPECT_EQ(stats.at(verb).by_code.at(200), 1) << verb;
    EXPECT_EQ(stats.at(verb).latency_counts.back(), 1) << verb;
    EXPECT_GT(stats.at(verb).latency_sum_seconds, 0) << verb;
    EXPECT_EQ(stats.at(verb).errors, 0) << verb;
  }
}

// bind writes to the cluster: unless asked for, its path is unknown.
TEST_F(ExtenderServerTest, BindIsServedOnlyWhenEnabled) {
  ASSERT_TRUE(Start());
  const client::HttpResponse r = Post("/bind", Fixture("bind_args.json"));
  EXPECT_EQ(r.code, 404);
  EXPECT_EQ(r.body, R"({"Error":"no extender verb at /bind"})");
  EXPECT_EQ(Post("/ksched/bind", Fixture("bind_args.json")).code, 404);
  EXPECT_EQ(Post("/nothing", "{}").code, 404);
  EXPECT_TRUE(binder_.bound().empty());
  EXPECT_EQ(Post("/filter", Fixture("filter_args_node_names.json")).code, 200);
}

// Delegated authentication and authorization: a token the API server
// knows, for what its user may do.
TEST_F(ExtenderServerTest, TokensAreReviewedAndEachVerbAuthorized) {
  auth::testing::TableReviewer reviewer;
  reviewer.AddUser("scheduler-token", {.name = "system:kube-scheduler"});
  reviewer.AddUser("reader-token", {.name = "reader"});
  reviewer.Allow("system:kube-scheduler", "post /filter");
  reviewer.Allow("system:kube-scheduler", "create pods/binding");
  reviewer.Allow("reader", "post /filter");
  util::RealClock clock;
  auth::DelegatingAuthorizer authorizer(reviewer, clock);
  ServerOptions options;
  options.bind_enabled = true;
  options.authorizer = &authorizer;
  ASSERT_TRUE(Start(options));
  auto post = [&](const std::string& path, const std::string& body,
                  const std::string& token) {
    client::RestConfig config;
    config.bearer_token = token;
    return Post(path, body, config);
  };
  const std::string filter = Fixture("filter_args_node_names.json");
  const std::string bind = Fixture("bind_args.json");

  client::HttpResponse r = post("/filter", filter, "");
  EXPECT_EQ(r.code, 401);
  EXPECT_EQ(
      r.body,
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})");
  EXPECT_EQ(post("/filter", filter, "made-up").code, 401);
  EXPECT_EQ(post("/filter", filter, "reader-token").code, 200);
  r = post("/prioritize", filter, "reader-token");
  EXPECT_EQ(r.code, 403);
  EXPECT_NE(
      r.body.find(
          R"(forbidden: User \"reader\" cannot post path \"/prioritize\")"),
      std::string::npos)
      << r.body;
  // bind is kube-scheduler's right to bind the pod.
  r = post("/bind", bind, "reader-token");
  EXPECT_EQ(r.code, 403);
  EXPECT_NE(
      r.body.find(
          R"(pods \"bind-me\" is forbidden: User \"reader\" cannot create resource \"pods/binding\" in API group \"\" in the namespace \"default\")"),
      std::string::npos)
      << r.body;
  EXPECT_EQ(post("/bind", bind, "").code, 401);
  EXPECT_TRUE(binder_.bound().empty());
  r = post("/bind", bind, "scheduler-token");
  EXPECT_EQ(r.code, 200);
  EXPECT_EQ(r.body, R"({"Error":""})");
  EXPECT_EQ(binder_.bound().size(), 1u);
  bool logged = false;
  for (const auto& line : log_.lines()) {
    logged |= line.message.find(
                  "source=\"extender\" "
                  "user=\"system:kube-scheduler\"") != std::string::npos;
  }
  EXPECT_TRUE(logged);
  // An API server that cannot answer lets nobody in.
  reviewer.SetDown(true);
  EXPECT_EQ(post("/filter", filter, "reader-token").code, 200);  // cached
  EXPECT_EQ(post("/filter", filter, "new-token").code, 401);
}

TEST_F(ExtenderServerTest, ConfiguredVerbsAndPrefixes) {
  ServerOptions options;
  options.routes.filter_verb = "predicates";
  options.routes.prefixes["/ksched/gpu"] = "ksched";
  ASSERT_TRUE(Start(options));
  EXPECT_EQ(
      Post("/ksched/gpu/predicates", Fixture("filter_args_node_names.json"))
          .code,
      200);
  EXPECT_EQ(Post("/predicates", Fixture("filter_args_node_names.json")).code,
            200);
  EXPECT_EQ(Post("/filter", Fixture("filter_args_node_names.json")).code, 404);
  EXPECT_EQ(
      Post("/other/predicates", Fixture("filter_args_node_names.json")).code,
      404);
}

TEST_F(ExtenderServerTest, RefusesBadRequestsClearly) {
  ServerOptions options;
  options.max_body_bytes = 64 * 1024;
  ASSERT_TRUE(Start(options));
  client::HttpResponse r = Post("/filter", "{\"Pod\":");
  EXPECT_EQ(r.code, 400);
  EXPECT_NE(r.body.find("malformed JSON"), std::string::npos) << r.body;
  r = Post("/prioritize", R"({"NodeNames":["node-1"]})");
  EXPECT_EQ(r.code, 400);
  EXPECT_EQ(r.body, R"({"Error":"Pod: missing"})");
  r = Post("/filter", "", {}, "GET");
  EXPECT_EQ(r.code, 405);
  r = Post("/filter", std::string(100 * 1024, ' '));
  EXPECT_EQ(r.code, 413);
  r = Post("/nothing-here", "{}");
  EXPECT_EQ(r.code, 404);

  // Decoded, but not answerable: filter says why in Error.
  std::string args = Fixture("filter_args_node_names.json");
  args.replace(args.find("\"node-3\""), 8, "\"node-9\"");
  r = Post("/filter", args);
  EXPECT_EQ(r.code, 200);
  EXPECT_NE(r.body.find(R"("Error":"node(s) not in ksched's cache: node-9")"),
            std::string::npos)
      << r.body;
  // prioritize has no Error field: 400.
  EXPECT_EQ(Post("/prioritize", args).code, 400);
  EXPECT_EQ(server_->Answered(400), 3);
  const auto stats = server_->Stats();
  EXPECT_EQ(stats.at("").by_code.at(405), 1);
  EXPECT_EQ(stats.at("").by_code.at(404), 1);
  EXPECT_EQ(stats.at("filter").by_code.at(400), 1);
  EXPECT_EQ(stats.at("prioritize").by_code.at(400), 2);
  // The filter that answered 200 with an Error counts as one.
  EXPECT_EQ(stats.at("filter").errors, 1);
  EXPECT_EQ(stats.at("prioritize").errors, 0);
  // Still serving.
  EXPECT_EQ(Post("/filter", Fixture("filter_args_node_names.json")).code, 200);
}

TEST_F(ExtenderServerTest, ManyClientsAtOnce) {
  ASSERT_TRUE(Start());
  const std::string body = Fixture("filter_args_nodes.json");
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&] {
      for (int i = 0; i < 20; ++i) ok += Post("/filter", body).code == 200;
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(ok.load(), 160);
}

TEST_F(ExtenderServerTest, HttpsWithClientCertificates) {
  client::testing::TestPki pki;
  const auto server_cert = pki.Issue("ksched", "IP:127.0.0.1");
  const auto client_cert = pki.Issue("kube-scheduler", "DNS:kube-scheduler",
                                     /*client=*/true);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("ksched-extender-tls-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& pem) {
    std::ofstream(dir / name) << pem;
    return (dir / name).string();
  };
  ServerOptions options;
  options.tls_cert_file = write("tls.crt", server_cert.cert_pem);
  options.tls_key_file = write("tls.key", server_cert.key_pem);
  options.client_ca_file = write("ca.crt", pki.ca_pem());
  ASSERT_TRUE(Start(options));
  EXPECT_EQ(server_->url().rfind("https://", 0), 0u);

  client::RestConfig with_cert;
  with_cert.ca_pem = pki.ca_pem();
  with_cert.client_cert_pem = client_cert.cert_pem;
  with_cert.client_key_pem = client_cert.key_pem;
  EXPECT_EQ(
      Post("/filter", Fixture("filter_args_node_names.json"), with_cert).code,
      200);
  client::RestConfig without_cert;
  without_cert.ca_pem = pki.ca_pem();
  EXPECT_EQ(
      Post("/filter", Fixture("filter_args_node_names.json"), without_cert)
          .code,
      -1)
      << "the handshake fails without a client certificate";
  server_.reset();
  std::filesystem::remove_all(dir);
}

// Sends raw bytes on a fresh connection and returns what comes back until
// the server closes or `limit` passes.
std::string RawExchange(
    int port, const std::string& bytes, bool close_early,
    std::chrono::milliseconds limit = std::chrono::milliseconds(3000)) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return "connect failed";
  }
  (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  if (close_early) {
    ::close(fd);
    return "";
  }
  timeval tv{static_cast<time_t>(limit.count() / 1000),
             static_cast<suseconds_t>((limit.count() % 1000) * 1000)};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  std::string answer;
  char buf[4096];
  while (true) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    answer.append(buf, static_cast<size_t>(n));
    if (answer.find("\r\n\r\n") != std::string::npos &&
        answer.find("\"Error\"") != std::string::npos) {
      break;
    }
  }
  ::close(fd);
  return answer;
}

// Without a Content-Length the limit is enforced as the body arrives; a
// body cut short leaves the server serving others.
TEST_F(ExtenderServerTest, ChunkedAndTruncatedBodies) {
  ServerOptions options;
  options.max_body_bytes = 64 * 1024;
  ASSERT_TRUE(Start(options));
  const int port =
      std::stoi(server_->url().substr(server_->url().rfind(':') + 1));
  std::string chunked =
      "POST /filter HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
      "Content-Type: application/json\r\n\r\n";
  const std::string piece(40 * 1024, ' ');
  char size_line[32];
  std::snprintf(size_line, sizeof(size_line), "%zx\r\n", piece.size());
  for (int i = 0; i < 3; ++i) chunked += size_line + piece + "\r\n";
  chunked += "0\r\n\r\n";
  const std::string answer = RawExchange(port, chunked, false);
  EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer.substr(0, 200);

  RawExchange(port,
              "POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n"
              "{\"Pod\":",
              /*close_early=*/true);
  EXPECT_EQ(Post("/filter", Fixture("filter_args_node_names.json")).code, 200);
}

TEST(ExtenderServerStartTest, ExplainsWhatIsWrong) {
  util::FakeClock clock;
  cache::Cache cache(clock, std::chrono::nanoseconds(0));
  framework::Registry registry = plugins::NewInTreeRegistry();
  util::RecordingLogger log;
  ExtenderService::Options options;
  options.clock = &clock;
  auto service = ExtenderService::Create(config::DefaultConfig(), registry,
                                         cache, options);
  ASSERT_TRUE(service.ok());
  ServerOptions bad;
  bad.bind_address = "nowhere";
  auto server = ExtenderServer::Start(**service, bad, log);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.error().message(),
            "extender bind address \"nowhere\": expected HOST:PORT");
  bad.bind_address = "127.0.0.1:0";
  bad.tls_cert_file = "/nonexistent.crt";
  bad.tls_key_file = "/nonexistent.key";
  server = ExtenderServer::Start(**service, bad, log);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.error().message(), "cannot read /nonexistent.crt");
}

}  // namespace
}  // namespace ksched::extender
