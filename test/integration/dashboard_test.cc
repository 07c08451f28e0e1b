// The chart's Grafana dashboard (helm/ksched/dashboards/ksched.json, the
// file the chart's ConfigMap carries) against what ksched really exports.
// The real ksched binary runs a scheduling run, scraped by Debian's real
// Prometheus as MetricsTest has it scrape: pods scheduled (in batches),
// one unschedulable, two preempted; Bindings and Events the API server
// fails; an extender call; watches cut. Then every query of every panel,
// its template variables substituted as Grafana substitutes them, must be
// accepted by Prometheus' query API and return series: a metric or label
// the dashboard names and ksched does not export shows up as a panel with
// no data. The variables' own label_values() queries must find ksched's
// job and instance.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/client/testing/loopback.h"
#include "test/apiserver/test_objects.h"
#include "test/integration/cluster_test_base.h"
#include "test/integration/prometheus.h"

namespace ksched::testing {
namespace {

using std::chrono::seconds;

const std::filesystem::path kDashboard =
    std::filesystem::path(KSCHED_SOURCE_DIR) /
    "helm/ksched/dashboards/ksched.json";

struct PanelQuery {
  std::string panel;  // "<id> <title> <refId>", for messages
  std::string expr;
};

std::vector<PanelQuery> DashboardQueries(const rapidjson::Value& dashboard) {
  std::vector<PanelQuery> out;
  for (const auto& p : dashboard["panels"].GetArray()) {
    for (const auto& t : p["targets"].GetArray()) {
      out.push_back({std::to_string(p["id"].GetInt()) + " \"" +
                         p["title"].GetString() + "\" " +
                         t["refId"].GetString(),
                     t["expr"].GetString()});
    }
  }
  return out;
}

// A value of a multi-value (or All) variable as Grafana writes it into a
// Prometheus query (prometheusSpecialRegexEscape): regex metacharacters
// escaped for a regex inside a PromQL string, "." as \\. and so on.
std::string GrafanaRegexEscape(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\\\\\";
    } else if (std::string_view("$^*{}[]'+?.()|").find(c) !=
               std::string_view::npos) {
      out += "\\\\";
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

// Grafana's interpolation: $name and ${name} replaced by their values; a
// variable not in `values` is left as it is, for the caller to find.
std::string Interpolate(const std::string& expr,
                        const std::map<std::string, std::string>& values) {
  static const std::regex variable(R"(\$\{(\w+)\}|\$(\w+))");
  std::string out;
  auto last = expr.cbegin();
  for (std::sregex_iterator it(expr.begin(), expr.end(), variable), end;
       it != end; ++it) {
    const std::smatch& m = *it;
    const std::string name = m[1].matched ? m[1].str() : m[2].str();
    out.append(last, m[0].first);
    auto value = values.find(name);
    out += value == values.end() ? m[0].str() : value->second;
    last = m[0].second;
  }
  out.append(last, expr.cend());
  return out;
}

class DashboardTest : public ClusterTestBase {
 protected:
  void CreateNodeInPool(const std::string& name, const std::string& cpu,
                        const std::string& pool) {
    Create("/api/v1/nodes",
           NodeJson({.name = name,
                     .cpu = cpu,
                     .labels = R"("kubernetes.io/hostname":")" + name +
                               R"(","pool":")" + pool + "\""}));
  }
  void CreatePodInPool(const std::string& name, const std::string& cpu,
                       const std::string& pool,
                       const std::string& priority_class = "") {
    std::string spec = R"("nodeSelector":{"pool":")" + pool + "\"}";
    if (!priority_class.empty()) {
      spec += R"(,"priorityClassName":")" + priority_class + "\"";
    }
    Create("/api/v1/namespaces/default/pods", PodJson({.name = name,
                                                       .cpu = cpu,
                                                       .memory = "64Mi",
                                                       .scheduler = "ksched",
                                                       .extra_spec = spec}));
  }
  bool Bound(const std::string& pod) {
    return !GetPod(pod).spec.node_name.empty();
  }
};

TEST_F(DashboardTest, EveryPanelQueryHasDataAfterASchedulingRun) {
  std::ifstream in(kDashboard);
  std::stringstream text;
  text << in.rdbuf();
  auto dashboard = api::ParseJson(text.str());
  ASSERT_TRUE(dashboard.ok()) << dashboard.error().message();
  const std::vector<PanelQuery> queries = DashboardQueries(*dashboard);
  ASSERT_GE(queries.size(), 20u);

  // Three nodes for the ordinary pods (batching keeps the scores of the
  // nodes a pod did not take, so it needs several) and a small one where
  // low-priority pods are preempted.
  for (int i = 0; i < 3; ++i) {
    CreateNodeInPool("web-" + std::to_string(i), "4", "web");
  }
  CreateNodeInPool("small", "1", "small");
  Create("/apis/scheduling.k8s.io/v1/priorityclasses",
         R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass",
             "metadata":{"name":"high"},"value":1000})");

  const std::string token = "prometheus-k8s-token";
  AddChartReviewUser(token, "monitoring", "prometheus-k8s");
  const int metrics_port = client::testing::FreePort();
  const int extender_port = client::testing::FreePort();
  // Leader election is on (the configuration's default), for the leader
  // panel's lease renewals. Without default spreading constraints, for
  // OpportunisticBatching to sign pods (it signs none while they are
  // configured, the system's included, as kube-scheduler).
  const std::filesystem::path config = dir_ / "config.yaml";
  std::ofstream(config) << R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: ksched
  pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
)";
  StartKsched(
      {"--config", config.string(),
       "--secure-port=" + std::to_string(metrics_port),
       "--bind-address=127.0.0.1",
       "--extender-bind-address=127.0.0.1:" + std::to_string(extender_port)});
  ASSERT_TRUE(
      WaitUntil([&] { return HttpsGet(metrics_port, "/readyz").body == "ok"; },
                seconds(60)))
      << ksched_->Tail();
  // Prometheus scrapes from before the run, as in a cluster, so that the
  // run's increases fall inside the rates' windows.
  PrometheusServer prometheus(dir_, metrics_port, token);
  ASSERT_TRUE(WaitUntil(
      [&] {
        return prometheus.Value(
                   R"(count(scheduler_pending_pods{job="ksched"}))") == "4";
      },
      seconds(60)))
      << prometheus.Tail();

  // The first two Binding POSTs and the first two Event POSTs fail: binding
  // errors, attempts ending in an error, and event write errors.
  server_->InjectFault({.method = "POST",
                        .path_substring = "/binding",
                        .code = 500,
                        .count = 2});
  server_->InjectFault(
      {.method = "POST", .path_substring = "/events", .code = 500, .count = 2});
  // Fits nowhere: unschedulable.
  CreatePod("too-big", "16");

  // Rounds of identical pods until ksched has timed its plugins (it does in
  // a random 10 % of its cycles, as kube-scheduler) and placed a pod on the
  // node its batch hinted (hint_used). Each round is bound before the next.
  std::string exposition;
  const auto has = [&](const std::string& what) {
    return exposition.find(what) != std::string::npos;
  };
  for (int round = 0; round < 30; ++round) {
    for (int i = 0; i < 10; ++i) {
      CreatePodInPool("web-" + std::to_string(round) + "-" + std::to_string(i),
                      "10m", "web");
    }
    ASSERT_TRUE(WaitUntil([&] { return Unbound() == 1; }, seconds(60)))
        << "round " << round << ksched_->Tail();
    exposition = HttpsGet(metrics_port, "/metrics", token).body;
    if (has("scheduler_plugin_execution_duration_seconds_count{") &&
        has(R"(scheduler_batch_attempts_total{profile="ksched",result="hint_used"})")) {
      break;
    }
  }
  ASSERT_TRUE(has("scheduler_plugin_execution_duration_seconds_count{") &&
              has(R"(result="hint_used")"))
      << exposition;

  // Preemption: two low-priority pods fill the small node; a high-priority
  // one needs the room of both.
  CreatePodInPool("low-0", "450m", "small");
  CreatePodInPool("low-1", "450m", "small");
  ASSERT_TRUE(WaitUntil([&] { return Unbound() == 1; }, seconds(60)))
      << ksched_->Tail();
  CreatePodInPool("urgent", "900m", "small", "high");
  ASSERT_TRUE(WaitUntil([&] { return Bound("urgent"); }, seconds(60)))
      << ksched_->Tail();

  // An extender call, and every watch cut (the informers resume them).
  const client::HttpResponse filtered =
      HttpPost(extender_port, "/filter",
               R"({"Pod":{"metadata":{"name":"x"}},"NodeNames":["web-0"]})");
  ASSERT_EQ(filtered.code, 200) << filtered.body;
  server_->DropWatches();
  ASSERT_TRUE(WaitUntil(
      [&] {
        exposition = HttpsGet(metrics_port, "/metrics", token).body;
        return has(R"(ksched_informer_restarts_total{)");
      },
      seconds(60)))
      << exposition;

  // The variables: label_values(<selector>, <label>) as Grafana asks it.
  std::map<std::string, std::string> values = {
      {"job", "ksched"},
      {"instance", GrafanaRegexEscape(prometheus.instance())},
      // $__rate_interval is at least four scrape intervals; 1m is what it
      // comes to with Prometheus' usual 15 s, and holds enough of this
      // test's 1 s scrapes however late a loaded machine takes them.
      {"__rate_interval", "1m"}};
  const std::map<std::string, std::string> want = {
      {"job", "ksched"}, {"instance", prometheus.instance()}};
  static const std::regex label_values(R"(^label_values\((.*),\s*(\w+)\)$)");
  for (const auto& v : (*dashboard)["templating"]["list"].GetArray()) {
    if (std::string(v["type"].GetString()) != "query") continue;
    const std::string name = v["name"].GetString();
    const std::string definition = v["query"]["query"].GetString();
    std::smatch m;
    ASSERT_TRUE(std::regex_match(definition, m, label_values)) << definition;
    ASSERT_TRUE(want.contains(name)) << name;
    const std::string match = Interpolate(m[1].str(), values);
    std::vector<std::string> found;
    EXPECT_TRUE(WaitUntil(
        [&] {
          found = prometheus.LabelValues(m[2].str(), match);
          return std::find(found.begin(), found.end(), want.at(name)) !=
                 found.end();
        },
        seconds(30)))
        << name << ": " << definition << " found " << found.size() << " values";
  }

  // Both the instance the test knows and All (Grafana's default, ".*").
  std::map<std::string, std::string> all = values;
  all["instance"] = ".*";
  std::vector<std::pair<std::string, std::string>> runs;  // panel, PromQL
  for (const PanelQuery& q : queries) {
    for (const auto* vars : {&values, &all}) {
      runs.push_back({q.panel, Interpolate(q.expr, *vars)});
    }
  }
  // A query Prometheus refuses fails at once: it never gets better.
  std::set<std::string> refused;
  for (const auto& [panel, promql] : runs) {
    EXPECT_EQ(promql.find('$'), std::string::npos)
        << panel << ": a variable the dashboard does not define: " << promql;
    const PrometheusServer::QueryResult r = prometheus.Query(promql);
    EXPECT_EQ(r.status, "success") << panel << ": " << promql << "\n"
                                   << r.error;
    if (r.status != "success") refused.insert(promql);
  }
  // Every other one must find series: the run gave every panel data (none
  // is left without, so there is no list of panels expected to be empty).
  // The last scrapes may still be on their way.
  std::vector<std::string> empty;
  const bool all_have_data = WaitUntil(
      [&] {
        empty.clear();
        for (const auto& [panel, promql] : runs) {
          if (refused.contains(promql)) continue;
          if (prometheus.Query(promql).series.empty()) {
            empty.push_back(panel + ": " + promql);
          }
        }
        return empty.empty();
      },
      seconds(120));
  std::string list;
  for (const std::string& e : empty) list += "\n  " + e;
  EXPECT_TRUE(all_have_data) << "panel queries without data:" << list << "\n"
                             << HttpsGet(metrics_port, "/metrics", token).body;

  EXPECT_EQ(prometheus.Terminate(), 0) << prometheus.Tail();
  EXPECT_EQ(ksched_->Terminate(), 0) << ksched_->Tail();
}

}  // namespace
}  // namespace ksched::testing
