#include "pkg/metrics/metrics_server.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include "pkg/client/cpprest_transport.h"
#include "pkg/client/testing/loopback.h"
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

}  // namespace
}  // namespace ksched::metrics
