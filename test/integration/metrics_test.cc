// The real ksched binary's secure port, scraped by Debian's real Prometheus
// server as kube-prometheus scrapes kube-scheduler: over HTTPS with a
// bearer token (bearer_token_file) that the API server authenticates and
// authorizes for get /metrics, as the chart grants Prometheus' service
// account. After a scheduling run, Prometheus' query API reports
// kube-scheduler's metrics with the counts of the run, and promtool
// accepts the exposition. Without a token the scrape is 401, with a token
// lacking the grant 403; the health checks are open.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "pkg/client/testing/loopback.h"
#include "test/integration/cluster_test_base.h"
#include "test/integration/prometheus.h"

namespace ksched::testing {
namespace {

using std::chrono::seconds;

class MetricsTest : public ClusterTestBase {};

TEST_F(MetricsTest, PrometheusScrapesTheSchedulingRun) {
  CreateNode("node-0", "4");
  for (int i = 0; i < 5; ++i) CreatePod("p-" + std::to_string(i), "100m");
  CreatePod("too-big", "8");
  // Prometheus' service account, as the chart's metrics.readers binds it;
  // and someone the API server knows who may not read metrics.
  const std::string token = "prometheus-k8s-token";
  AddChartReviewUser(token, "monitoring", "prometheus-k8s");
  server_->AddReviewUser("nobody-token", {.name = "nobody"});
  const int metrics_port = client::testing::FreePort();
  const int extender_port = client::testing::FreePort();
  StartKsched(
      {"--secure-port=" + std::to_string(metrics_port),
       "--bind-address=127.0.0.1",
       "--extender-bind-address=127.0.0.1:" + std::to_string(extender_port)});
  ASSERT_TRUE(
      WaitUntil([&] { return HttpsGet(metrics_port, "/readyz").body == "ok"; },
                seconds(30)))
      << ksched_->Tail();
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 1; }, seconds(30)))
      << ksched_->Tail();
  EXPECT_EQ(HttpsGet(metrics_port, "/livez").code, 200);
  EXPECT_EQ(HttpsGet(metrics_port, "/readyz?verbose").body,
            "[+]ping ok\n[+]sched-handler-sync ok\n[+]shutdown ok\n"
            "readyz check passed\n");
  // Who may read metrics is the API server's to say.
  const client::HttpResponse anonymous = HttpsGet(metrics_port, "/metrics");
  EXPECT_EQ(anonymous.code, 401) << anonymous.body;
  EXPECT_NE(anonymous.body.find(R"("reason":"Unauthorized")"),
            std::string::npos);
  const client::HttpResponse nobody =
      HttpsGet(metrics_port, "/metrics", "nobody-token");
  EXPECT_EQ(nobody.code, 403) << nobody.body;
  EXPECT_NE(nobody.body.find(
                R"(forbidden: User \"nobody\" cannot get path \"/metrics\")"),
            std::string::npos)
      << nobody.body;

  // One extender call, to be counted.
  const client::HttpResponse filtered =
      HttpPost(extender_port, "/filter",
               R"({"Pod":{"metadata":{"name":"x"}},"NodeNames":["node-0"]})");
  ASSERT_EQ(filtered.code, 200) << filtered.body;

  // The server sees a pod bound before ksched counts the Binding's answer,
  // and the unschedulable pod's attempt may still be under way: wait for both.
  client::HttpResponse exposition;
  EXPECT_TRUE(WaitUntil(
      [&] {
        exposition = HttpsGet(metrics_port, "/metrics", token);
        return exposition.body.find(
                   R"(ksched_bindings_total{result="bound",source="scheduler"} 5)") !=
                   std::string::npos &&
               exposition.body.find(
                   R"(scheduler_unschedulable_pods{plugin="NodeResourcesFit",profile="ksched"} 1)") !=
                   std::string::npos;
      },
      seconds(10)));
  ASSERT_EQ(exposition.code, 200) << exposition.body;
  // ksched's own families.
  for (
      const char* line : {
          R"(ksched_api_requests_total{code="201",resource="pods/binding",verb="POST"} 5)",
          R"(ksched_bindings_total{result="bound",source="scheduler"} 5)",
          R"(ksched_binding_duration_seconds_count{result="bound",source="scheduler"} 5)",
          R"(ksched_api_requests_total{code="201",resource="tokenreviews",verb="POST"})",
          R"(ksched_api_requests_total{code="201",resource="subjectaccessreviews",verb="POST"})",
          R"(ksched_extender_requests_total{code="200",verb="filter"} 1)",
          R"(ksched_extender_errors_total{verb="filter"} 0)",
          R"(ksched_extender_request_duration_seconds_count{verb="filter"} 1)",
          R"(scheduler_cache_size{type="nodes"} 1)",
          R"(scheduler_queue_incoming_pods_total{event="UnscheduledPodAdd",queue="active"} 6)",
          R"(scheduler_queue_incoming_pods_total{event="ScheduleAttemptFailure",queue="unschedulable"} 1)",
          R"(scheduler_unschedulable_pods{plugin="NodeResourcesFit",profile="ksched"} 1)",
          R"(scheduler_framework_extension_point_duration_seconds_count{extension_point="Bind",profile="ksched",status="Success"} 5)",
          R"(scheduler_framework_extension_point_duration_seconds_count{extension_point="PreFilter",profile="ksched",status="Success"})",
      }) {
    EXPECT_NE(exposition.body.find(line), std::string::npos)
        << line << "\n"
        << exposition.body.substr(0, 3000);
  }
  const std::string lint_log = dir_ / "promtool.log";
  FILE* promtool =
      popen(("promtool check metrics > " + lint_log + " 2>&1").c_str(), "w");
  ASSERT_NE(promtool, nullptr);
  std::fwrite(exposition.body.data(), 1, exposition.body.size(), promtool);
  const int status = pclose(promtool);
  std::ifstream lint(lint_log);
  const std::string lint_text((std::istreambuf_iterator<char>(lint)),
                              std::istreambuf_iterator<char>());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << lint_text;

  // The real Prometheus, scraping every second over HTTPS with its token
  // from a file, as in a pod; the certificate is self-signed.
  PrometheusServer prometheus(dir_, metrics_port, token);
  const std::string scheduled =
      R"(scheduler_schedule_attempts_total{job="ksched",result="scheduled",profile="ksched"})";
  ASSERT_TRUE(WaitUntil([&] { return prometheus.Value(scheduled) == "5"; },
                        seconds(60)))
      << "Prometheus saw: " << prometheus.Value(scheduled) << "\n"
      << prometheus.Tail();
  EXPECT_NE(prometheus.Value(
                R"(scheduler_schedule_attempts_total{result="unschedulable"})"),
            "");
  EXPECT_EQ(
      prometheus.Value(R"(scheduler_pending_pods{queue="unschedulable"})"),
      "1");
  EXPECT_EQ(prometheus.Value(R"(scheduler_pod_scheduling_attempts_count)"),
            "5");
  EXPECT_EQ(prometheus.Value(
                R"(scheduler_unschedulable_pods{plugin="NodeResourcesFit"})"),
            "1");
  EXPECT_EQ(prometheus.Terminate(), 0) << prometheus.Tail();
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

}  // namespace
}  // namespace ksched::testing
