#include "pkg/metrics/metrics_server.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <atomic>

#include "pkg/auth/delegating_authorizer.h"
#include "pkg/auth/testing/table_reviewer.h"
#include "pkg/client/cpprest_transport.h"
#include "pkg/client/testing/loopback.h"
#include "pkg/http/self_signed.h"
#include "pkg/metrics/scheduler_metrics.h"

namespace ksched::metrics {
namespace {

TEST(MetricsServerTest, ServesMetricsAndHealth) {
  prometheus::Registry registry;
  SchedulerMetrics metrics(registry);
  HealthChecks health;
  health.Add("ping", {"healthz", "livez", "readyz"},
             [] { return std::nullopt; });
  int scrapes = 0;
  MetricsServerOptions options;
  options.bind_address =
      "127.0.0.1:" + std::to_string(client::testing::FreePort());
  options.before_scrape = [&] { metrics.SetPendingPods(++scrapes, 0, 0, 0); };
  auto server = MetricsServer::Start(options, registry, health);
  ASSERT_TRUE(server.ok()) << server.error().message();

  client::RestConfig config;
  config.server = (*server)->url();
  auto transport = client::CpprestTransport::Create(
      config, client::testing::RealTestClock(), {});
  ASSERT_TRUE(transport.ok());
  auto get = [&](const std::string& path, const std::string& method = "GET") {
    auto r = (*transport)->RoundTrip({.method = method, .path = path});
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : client::HttpResponse{};
  };
  auto r = get("/metrics");
  EXPECT_EQ(r.code, 200);
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(r.body.find(R"(scheduler_pending_pods{queue="active"} 1)"),
            std::string::npos)
      << r.body;
  r = get("/metrics");
  EXPECT_NE(r.body.find(R"(scheduler_pending_pods{queue="active"} 2)"),
            std::string::npos);
  EXPECT_EQ(get("/readyz").body, "ok");
  EXPECT_EQ(get("/livez?verbose").body, "[+]ping ok\nlivez check passed\n");
  EXPECT_EQ(get("/nothing").code, 404);
  EXPECT_EQ(get("/metrics", "POST").code, 405);

  auto taken = MetricsServer::Start(options, registry, health);
  EXPECT_FALSE(taken.ok()) << "the port is in use";
  MetricsServerOptions bad;
  bad.bind_address = "nowhere";
  EXPECT_EQ(MetricsServer::Start(bad, registry, health).error().message(),
            "metrics bind address \"nowhere\": expected HOST:PORT");
}

// The secure port: HTTPS with a self-signed certificate, health open,
// /metrics only for a token the API server says may get it.
TEST(MetricsServerTest, SecurePortAuthenticatesAndAuthorizesAllButHealth) {
  prometheus::Registry registry;
  SchedulerMetrics metrics(registry);
  HealthChecks health;
  health.Add("ping", {"healthz", "livez", "readyz"},
             [] { return std::nullopt; });
  auth::testing::TableReviewer reviewer;
  reviewer.AddUser("scraper-token", {.name = "scraper"});
  reviewer.AddUser("other-token", {.name = "other"});
  reviewer.Allow("scraper", "get /metrics");
  util::RealClock clock;
  auth::DelegatingAuthorizer authorizer(reviewer, clock);
  auto cert = http::SelfSignedServingCert("localhost");
  ASSERT_TRUE(cert.ok());
  MetricsServerOptions options;
  options.bind_address =
      "127.0.0.1:" + std::to_string(client::testing::FreePort());
  options.tls_cert_pem = cert->cert_pem;
  options.tls_key_pem = cert->key_pem;
  options.authorizer = &authorizer;
  options.name = "secure port";
  options.before_scrape = [&] { metrics.SetPendingPods(1, 0, 0, 0); };
  auto server = MetricsServer::Start(options, registry, health);
  ASSERT_TRUE(server.ok()) << server.error().message();
  EXPECT_TRUE((*server)->url().starts_with("https://"));

  auto get = [&](const std::string& path, const std::string& token) {
    client::RestConfig config;
    config.server = (*server)->url();
    config.insecure_skip_tls_verify = true;  // self-signed
    config.bearer_token = token;
    auto transport = client::CpprestTransport::Create(
        config, client::testing::RealTestClock(), {});
    EXPECT_TRUE(transport.ok());
    if (!transport.ok()) return client::HttpResponse{};
    auto r = (*transport)->RoundTrip({.path = path});
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
    return r.ok() ? *r : client::HttpResponse{};
  };
  // Health: no token needed, as kube-scheduler's always-allowed paths.
  EXPECT_EQ(get("/healthz", "").body, "ok");
  EXPECT_EQ(get("/readyz?verbose", "").code, 200);
  EXPECT_EQ(get("/livez", "").code, 200);
  EXPECT_EQ(reviewer.access_reviews.load(), 0);

  auto none = get("/metrics", "");
  EXPECT_EQ(none.code, 401);
  EXPECT_EQ(
      none.body,
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})");
  EXPECT_EQ(get("/metrics", "made-up-token").code, 401);
  auto other = get("/metrics", "other-token");
  EXPECT_EQ(other.code, 403);
  EXPECT_NE(other.body.find(
                R"(forbidden: User \"other\" cannot get path \"/metrics\")"),
            std::string::npos)
      << other.body;
  auto scraped = get("/metrics", "scraper-token");
  EXPECT_EQ(scraped.code, 200);
  EXPECT_NE(scraped.body.find("scheduler_pending_pods"), std::string::npos);
  // Paths that are neither health nor allowed are refused before they are
  // looked up, as kube's filters do.
  EXPECT_EQ(get("/debug/pprof", "scraper-token").code, 403);
  EXPECT_EQ(get("/debug/pprof", "").code, 401);
}

}  // namespace
}  // namespace ksched::metrics
