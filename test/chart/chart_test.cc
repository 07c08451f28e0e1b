// The Helm chart and manifests/: rendered with several sets of values, every
// object must be valid against the real API's OpenAPI schema, the
// KubeSchedulerConfiguration it carries must load in ksched, and what an
// operator relies on (leader election with replicas, security context,
// probes, flags ksched knows) must hold. manifests/ksched.yaml must be the
// default rendering, byte for byte.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/config/config.h"
#include "test/cli/run_command.h"
#include "test/deploy/openapi_validator.h"

namespace ksched::testing {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = KSCHED_SOURCE_DIR;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `helm template ksched helm/ksched -n kube-system [-f values/<variant>]`.
CommandResult Render(const std::string& variant, bool notes = false) {
  std::string command = "cd " + (kSource / "helm").string() + " && " +
                        KSCHED_CHART_RENDER +
                        " --name ksched --namespace kube-system";
  if (!variant.empty()) {
    command +=
        " -f " + (kSource / "test/chart/values" / (variant + ".yaml")).string();
  }
  if (notes) command += " --notes";
  return RunCommand(command + " ksched");
}

std::vector<YAML::Node> Documents(const std::string& text) {
  std::vector<YAML::Node> out;
  for (const YAML::Node& doc : YAML::LoadAll(text)) {
    if (doc.IsMap()) out.push_back(doc);
  }
  return out;
}

std::optional<YAML::Node> Find(const std::vector<YAML::Node>& docs,
                               const std::string& kind,
                               const std::string& name = "") {
  for (const YAML::Node& d : docs) {
    if (d["kind"].as<std::string>() != kind) continue;
    if (!name.empty() && d["metadata"]["name"].as<std::string>() != name) {
      continue;
    }
    return d;
  }
  return std::nullopt;
}

std::vector<std::string> Args(const YAML::Node& deployment) {
  return deployment["spec"]["template"]["spec"]["containers"][0]["args"]
      .as<std::vector<std::string>>();
}

bool HasArg(const YAML::Node& deployment, const std::string& arg) {
  for (const std::string& a : Args(deployment)) {
    if (a == arg) return true;
  }
  return false;
}

const std::vector<std::string> kGoodVariants = {
    "", "ha", "minimal", "token", "prometheus-rule", "grafana-dashboard"};

class ChartTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto schema = deploy::OpenApiSchema::LoadGzip(
        (fs::path(KSCHED_SHARED_DIR) / "apiserver/openapi-v2.json.gz")
            .string());
    ASSERT_TRUE(schema.ok()) << schema.error().message();
    schema_ = std::make_unique<deploy::OpenApiSchema>(std::move(*schema));
  }
  static void TearDownTestSuite() { schema_.reset(); }

  // The rendering of a good variant; fails the test if it does not render.
  static std::vector<YAML::Node> Objects(const std::string& variant) {
    const CommandResult r = Render(variant);
    EXPECT_EQ(r.exit_code, 0) << variant << ": " << r.err;
    return Documents(r.out);
  }

  static std::unique_ptr<deploy::OpenApiSchema> schema_;
};
std::unique_ptr<deploy::OpenApiSchema> ChartTest::schema_;

TEST_F(ChartTest, ManifestsAreTheDefaultRendering) {
  const CommandResult r = Render("");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string expected =
      ReadFile(kSource / "test/chart/manifests_header.txt") + r.out;
  EXPECT_TRUE(ReadFile(kSource / "manifests/ksched.yaml") == expected)
      << "manifests/ksched.yaml differs from the chart's default rendering: "
         "run scripts/render-manifests.sh";
}

TEST_F(ChartTest, EveryObjectIsValidAgainstTheApisOpenApiSchema) {
  for (const std::string& variant : kGoodVariants) {
    const std::vector<YAML::Node> docs = Objects(variant);
    ASSERT_GE(docs.size(), 3u) << variant;
    for (const YAML::Node& doc : docs) {
      const std::string what = (variant.empty() ? "default" : variant) + ": " +
                               doc["kind"].as<std::string>() + " " +
                               doc["metadata"]["name"].as<std::string>();
      if (doc["apiVersion"].as<std::string>() == "monitoring.coreos.com/v1") {
        // A Prometheus Operator resource: not part of the API's schema.
        const std::string kind = doc["kind"].as<std::string>();
        if (kind == "PrometheusRule") {
          // Its rules are checked by promtool (test/monitoring).
          EXPECT_TRUE(doc["spec"]["groups"][0]["rules"].IsSequence()) << what;
          continue;
        }
        EXPECT_EQ(kind, "ServiceMonitor") << what;
        EXPECT_TRUE(doc["spec"]["endpoints"][0]["port"].IsScalar()) << what;
        continue;
      }
      for (const std::string& problem : schema_->Validate(doc)) {
        ADD_FAILURE() << what << ": " << problem;
      }
    }
  }
}

TEST_F(ChartTest, ExampleObjectsAreValid) {
  for (const char* file :
       {"manifests/examples/pod.yaml", "examples/plan/shop-web.yaml",
        "examples/plan/probe-pod.yaml", "examples/plan/worker-node.yaml"}) {
    for (const YAML::Node& doc : Documents(ReadFile(kSource / file))) {
      for (const std::string& problem : schema_->Validate(doc)) {
        ADD_FAILURE() << file << ": " << problem;
      }
    }
  }
  // The extender examples are scheduler configurations, which ksched (and
  // kube-scheduler) must accept.
  for (const char* file : {"manifests/extender/ksched-config.yaml",
                           "manifests/extender/kube-scheduler-config.yaml"}) {
    auto cfg = config::LoadConfigFile((kSource / file).string());
    EXPECT_TRUE(cfg.ok()) << file << ": " << cfg.error().message();
  }
}

TEST_F(ChartTest, TheValidatorCatchesABrokenObject) {
  // The check above is only worth something if it can fail: the default
  // Deployment with one misspelt field must be rejected.
  std::vector<YAML::Node> docs = Objects("");
  std::optional<YAML::Node> deployment = Find(docs, "Deployment");
  ASSERT_TRUE(deployment);
  YAML::Node broken = YAML::Clone(*deployment);
  broken["spec"]["template"]["spec"]["containers"][0]["imagePullPolice"] =
      "Always";
  const std::vector<std::string> problems = schema_->Validate(broken);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("containers[0].imagePullPolice"),
            std::string::npos)
      << problems[0];
}

TEST_F(ChartTest, TheConfigMapHoldsAConfigurationKschedLoads) {
  const std::map<std::string, std::vector<std::string>> profiles = {
      {"", {"ksched"}},
      {"ha", {"ksched", "ksched-packing"}},
      {"minimal", {"ksched"}}};
  for (const auto& [variant, expected] : profiles) {
    const std::vector<YAML::Node> docs = Objects(variant);
    std::optional<YAML::Node> cm = Find(docs, "ConfigMap");
    ASSERT_TRUE(cm) << variant;
    auto cfg =
        config::ParseConfig((*cm)["data"]["config.yaml"].as<std::string>());
    ASSERT_TRUE(cfg.ok()) << variant << ": " << cfg.error().message();
    std::vector<std::string> names;
    for (const auto& p : cfg->profiles) names.push_back(p.scheduler_name);
    EXPECT_EQ(names, expected) << variant;
    // The lease the configuration names is the one the Role grants.
    EXPECT_EQ(cfg->leader_election.resource_namespace, "kube-system");
    EXPECT_EQ(cfg->leader_election.resource_name, "ksched");
  }
}

TEST_F(ChartTest, LeaderElectionIsOnWithSeveralReplicas) {
  struct Case {
    std::string variant;
    bool leader_elect;
  };
  for (const Case& c :
       {Case{"", false}, Case{"ha", true}, Case{"minimal", true}}) {
    const std::vector<YAML::Node> docs = Objects(c.variant);
    std::optional<YAML::Node> deployment = Find(docs, "Deployment");
    std::optional<YAML::Node> cm = Find(docs, "ConfigMap");
    ASSERT_TRUE(deployment && cm) << c.variant;
    const std::string flag =
        std::string("--leader-elect=") + (c.leader_elect ? "true" : "false");
    EXPECT_TRUE(HasArg(*deployment, flag)) << c.variant;
    auto cfg =
        config::ParseConfig((*cm)["data"]["config.yaml"].as<std::string>());
    ASSERT_TRUE(cfg.ok());
    EXPECT_EQ(cfg->leader_election.leader_elect, c.leader_elect) << c.variant;
    // Without a leader, a rollout must not run two schedulers at once.
    const YAML::Node strategy = (*deployment)["spec"]["strategy"];
    EXPECT_EQ(strategy && strategy["type"].as<std::string>() == "Recreate",
              !c.leader_elect)
        << c.variant;
  }
  const std::vector<YAML::Node> ha = Objects("ha");
  std::optional<YAML::Node> cm = Find(ha, "ConfigMap");
  ASSERT_TRUE(cm);
  auto cfg =
      config::ParseConfig((*cm)["data"]["config.yaml"].as<std::string>());
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->leader_election.lease_duration, std::chrono::seconds(30));
}

TEST_F(ChartTest, RunsLockedDown) {
  for (const std::string& variant : kGoodVariants) {
    std::optional<YAML::Node> deployment = Find(Objects(variant), "Deployment");
    ASSERT_TRUE(deployment);
    const YAML::Node pod = (*deployment)["spec"]["template"]["spec"];
    const YAML::Node container = pod["containers"][0];
    EXPECT_TRUE(pod["securityContext"]["runAsNonRoot"].as<bool>());
    EXPECT_EQ(
        pod["securityContext"]["seccompProfile"]["type"].as<std::string>(),
        "RuntimeDefault");
    const YAML::Node sc = container["securityContext"];
    EXPECT_TRUE(sc["readOnlyRootFilesystem"].as<bool>());
    EXPECT_FALSE(sc["allowPrivilegeEscalation"].as<bool>());
    EXPECT_EQ(sc["capabilities"]["drop"].as<std::vector<std::string>>(),
              std::vector<std::string>{"ALL"});
    // The image's user (Dockerfile) is the one the chart runs as, so that
    // runAsNonRoot and file ownership agree.
    const std::string user =
        std::to_string(pod["securityContext"]["runAsUser"].as<int>());
    EXPECT_NE(ReadFile(kSource / "Dockerfile")
                  .find("\nUSER " + user + ":" + user + "\n"),
              std::string::npos);
  }
}

TEST_F(ChartTest, ProbesAndPortsMatchTheFlags) {
  for (const std::string& variant : kGoodVariants) {
    const std::vector<YAML::Node> docs = Objects(variant);
    std::optional<YAML::Node> deployment = Find(docs, "Deployment");
    std::optional<YAML::Node> service = Find(docs, "Service");
    ASSERT_TRUE(deployment && service) << variant;
    const YAML::Node container =
        (*deployment)["spec"]["template"]["spec"]["containers"][0];
    std::map<std::string, int> ports;
    for (const YAML::Node& p : container["ports"]) {
      ports[p["name"].as<std::string>()] = p["containerPort"].as<int>();
    }
    ASSERT_EQ(ports.count("metrics"), 1u) << variant;
    EXPECT_TRUE(HasArg(*deployment,
                       "--secure-port=" + std::to_string(ports["metrics"])));
    if (ports.count("http-metrics") != 0) {
      EXPECT_TRUE(
          HasArg(*deployment, "--metrics-bind-address=0.0.0.0:" +
                                  std::to_string(ports["http-metrics"])));
    }
    if (ports.count("extender") != 0) {
      EXPECT_TRUE(HasArg(*deployment, "--extender-bind-address=0.0.0.0:" +
                                          std::to_string(ports["extender"])));
    } else {
      EXPECT_TRUE(HasArg(*deployment, "--extender-bind-address="));
    }
    EXPECT_EQ(container["livenessProbe"]["httpGet"]["path"].as<std::string>(),
              "/livez");
    EXPECT_EQ(container["readinessProbe"]["httpGet"]["path"].as<std::string>(),
              "/readyz");
    // The secure port is HTTPS, its certificate given or self-signed.
    for (const char* probe : {"livenessProbe", "readinessProbe"}) {
      EXPECT_EQ(container[probe]["httpGet"]["port"].as<std::string>(),
                "metrics");
      EXPECT_EQ(container[probe]["httpGet"]["scheme"].as<std::string>(),
                "HTTPS");
    }
    // Every service port targets a named container port.
    for (const YAML::Node& p : (*service)["spec"]["ports"]) {
      EXPECT_EQ(ports.count(p["targetPort"].as<std::string>()), 1u) << variant;
    }
  }
}

TEST_F(ChartTest, TheContainerArgsAreFlagsKschedKnows) {
  const CommandResult help = RunCommand(std::string(KSCHED_BINARY) + " --help");
  ASSERT_EQ(help.exit_code, 0) << help.err;
  for (const std::string& variant : kGoodVariants) {
    std::optional<YAML::Node> deployment = Find(Objects(variant), "Deployment");
    ASSERT_TRUE(deployment);
    for (const std::string& arg : Args(*deployment)) {
      const std::string flag = arg.substr(0, arg.find('='));
      EXPECT_NE(help.out.find("  " + flag + " "), std::string::npos)
          << variant << ": ksched has no flag " << flag;
    }
  }
}

TEST_F(ChartTest, FeatureGatesBecomeOneFlagKschedAccepts) {
  std::optional<YAML::Node> plain = Find(Objects(""), "Deployment");
  ASSERT_TRUE(plain);
  for (const std::string& arg : Args(*plain)) {
    EXPECT_EQ(arg.find("--feature-gates"), std::string::npos) << arg;
  }
  std::optional<YAML::Node> ha = Find(Objects("ha"), "Deployment");
  ASSERT_TRUE(ha);
  EXPECT_TRUE(HasArg(*ha, "--feature-gates=OpportunisticBatching=true"));
  // ksched takes the value: an unknown or malformed gate would exit 2
  // before anything else is looked at.
  const CommandResult simulate = RunCommand(
      std::string(KSCHED_BINARY) +
      " simulate --feature-gates=OpportunisticBatching=true --cluster " +
      (kSource / "examples/cluster.yaml").string() + " --quiet");
  EXPECT_EQ(simulate.exit_code, 0) << simulate.err;
}

// emulatedVersion becomes --emulated-version, beside the feature gates of
// that version, and the real binary takes both: the scheduler says it
// decides as that version and goes on to look for its cluster (exit 1
// here, where there is none; a flag it refused would exit 2 first).
TEST_F(ChartTest, EmulatedVersionBecomesAFlagKschedAccepts) {
  for (const std::string& variant : kGoodVariants) {
    std::optional<YAML::Node> deployment = Find(Objects(variant), "Deployment");
    ASSERT_TRUE(deployment) << variant;
    for (const std::string& arg : Args(*deployment)) {
      EXPECT_EQ(arg.find("--emulated-version"), std::string::npos)
          << variant << ": " << arg;
    }
  }
  const CommandResult rendered = Render("emulated");
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;
  std::optional<YAML::Node> deployment =
      Find(Documents(rendered.out), "Deployment");
  ASSERT_TRUE(deployment);
  EXPECT_TRUE(HasArg(*deployment, "--emulated-version=kube=1.33"));
  EXPECT_TRUE(
      HasArg(*deployment, "--feature-gates=SchedulerAsyncPreemption=false"));
  std::string version_args;
  for (const std::string& arg : Args(*deployment)) {
    if (arg.starts_with("--emulated-version=") ||
        arg.starts_with("--feature-gates=")) {
      version_args += " '" + arg + "'";
    }
  }
  const CommandResult run =
      RunCommand(std::string(KSCHED_BINARY) + version_args +
                 " --secure-port=0 --kubeconfig=/nonexistent/kubeconfig");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("ksched decides as kube-scheduler v1.36 emulating "
                         "v1.33 (feature gates at their v1.33 defaults); "
                         "--feature-gates SchedulerAsyncPreemption=false"),
            std::string::npos)
      << run.err;
  const CommandResult simulate = RunCommand(
      std::string(KSCHED_BINARY) + " simulate" + version_args + " --cluster " +
      (kSource / "examples/cluster.yaml").string() + " --quiet");
  EXPECT_EQ(simulate.exit_code, 0) << simulate.err;
}

TEST_F(ChartTest, VolumesMountedAreDeclaredAndSecretsAreOptional) {
  const std::vector<YAML::Node> ha = Objects("ha");
  std::optional<YAML::Node> deployment = Find(ha, "Deployment");
  ASSERT_TRUE(deployment);
  const YAML::Node pod = (*deployment)["spec"]["template"]["spec"];
  std::set<std::string> volumes;
  for (const YAML::Node& v : pod["volumes"]) {
    volumes.insert(v["name"].as<std::string>());
  }
  EXPECT_EQ(volumes,
            (std::set<std::string>{"config", "metrics-tls", "extender-tls"}));
  for (const YAML::Node& m : pod["containers"][0]["volumeMounts"]) {
    EXPECT_EQ(volumes.count(m["name"].as<std::string>()), 1u);
  }
  EXPECT_TRUE(Find(ha, "ServiceMonitor"));
  // The default rendering has neither TLS nor a ServiceMonitor.
  const std::vector<YAML::Node> defaults = Objects("");
  EXPECT_FALSE(Find(defaults, "ServiceMonitor"));
  EXPECT_EQ(Find(defaults, "Deployment")
                .value()["spec"]["template"]["spec"]["volumes"]
                .size(),
            1u);
  // minimal: the operator's own service account, no RBAC objects.
  const std::vector<YAML::Node> minimal = Objects("minimal");
  EXPECT_FALSE(Find(minimal, "ServiceAccount"));
  EXPECT_FALSE(Find(minimal, "ClusterRole"));
  EXPECT_FALSE(Find(minimal, "PodDisruptionBudget"));
  EXPECT_EQ(Find(minimal, "Deployment")
                .value()["spec"]["template"]["spec"]["serviceAccountName"]
                .as<std::string>(),
            "scheduler");
}

TEST_F(ChartTest, BadValuesAreRefusedWithTheFieldNamed) {
  const std::map<std::string, std::string> cases = {
      {"bad-replicas", "replicaCount: Invalid type. Expected: integer"},
      {"bad-log-format", "logging.format"},
      {"bad-unknown-key", "Additional property replicas is not allowed"},
      {"bad-duration", "leaderElection.leaseDuration"},
      {"bad-no-profiles", "config.profiles"},
      {"bad-replicas-without-leader", "replicaCount > 1 needs leader election"},
      {"bad-bind-without-auth",
       "extender.bind.enabled writes Bindings for whoever calls it: set "
       "extender.auth.mode to clientCertificate or token"},
      {"bad-client-cert-without-tls",
       "extender.auth.mode clientCertificate needs extender.tlsSecretName"},
      {"bad-feature-gate", "featureGates.OpportunisticBatching"},
      {"bad-emulated-version", "emulatedVersion: Does not match pattern"},
      {"bad-prometheus-rule-duration",
       "prometheusRule.alerts.pendingUnschedulable.for: Does not match "
       "pattern"},
      {"bad-prometheus-rule-ratio",
       "prometheusRule.alerts.bindingErrors.ratio: Must be less than or "
       "equal to 1"},
      {"bad-grafana-dashboard-key",
       "grafanaDashboard: Additional property folder is not allowed"},
      {"bad-grafana-dashboard-label-value",
       "grafanaDashboard.labelValue: Invalid type. Expected: string"},
  };
  for (const auto& [variant, message] : cases) {
    const CommandResult r = Render(variant);
    EXPECT_NE(r.exit_code, 0) << variant;
    EXPECT_NE(r.err.find(message), std::string::npos)
        << variant << ": " << r.err;
  }
}

// The PrometheusRule: off by default; on, a monitoring.coreos.com/v1
// PrometheusRule with the release's labels and the ruleSelector's, in the
// namespace asked for, whose rules read ksched's scrape with the
// thresholds of the values. (Its rules as Prometheus reads them are
// test/monitoring's.)
TEST_F(ChartTest, PrometheusRuleIsOptInAndCarriesTheValues) {
  for (const char* variant : {"", "ha", "minimal", "token"}) {
    EXPECT_FALSE(Find(Objects(variant), "PrometheusRule")) << variant;
  }
  const std::vector<YAML::Node> docs = Objects("prometheus-rule");
  std::optional<YAML::Node> rule = Find(docs, "PrometheusRule");
  std::optional<YAML::Node> deployment = Find(docs, "Deployment");
  ASSERT_TRUE(rule && deployment);
  EXPECT_EQ((*rule)["apiVersion"].as<std::string>(),
            "monitoring.coreos.com/v1");
  EXPECT_EQ((*rule)["metadata"]["name"].as<std::string>(), "ksched");
  EXPECT_EQ((*rule)["metadata"]["namespace"].as<std::string>(), "monitoring");
  auto labels =
      (*rule)["metadata"]["labels"].as<std::map<std::string, std::string>>();
  EXPECT_EQ(labels["release"], "kube-prometheus-stack");
  labels.erase("release");
  using Labels = std::map<std::string, std::string>;
  EXPECT_EQ(labels, (*deployment)["metadata"]["labels"].as<Labels>());
  const YAML::Node groups = (*rule)["spec"]["groups"];
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0]["name"].as<std::string>(), "ksched");
  std::map<std::string, YAML::Node> alerts;
  for (const YAML::Node& r : groups[0]["rules"]) {
    alerts[r["alert"].as<std::string>()] = r;
  }
  std::vector<std::string> names;
  for (const auto& [name, r] : alerts) names.push_back(name);
  EXPECT_EQ(
      names,
      (std::vector<std::string>{
          "KschedBindingConflicts", "KschedBindingErrors", "KschedDown",
          "KschedExtenderErrors", "KschedInformerFailures", "KschedNoLeader",
          "KschedPodsUnschedulable", "KschedReplicaDown",
          "KschedSchedulingErrors", "KschedSchedulingLatencyHigh"}));
  EXPECT_EQ(alerts["KschedDown"]["expr"].as<std::string>(),
            R"(absent(up{job="ksched",namespace="kube-system"} == 1))");

  // Tuned: the release's namespace, the operator's selector and thresholds.
  const std::vector<YAML::Node> tuned = Objects("prometheus-rule-tuned");
  rule = Find(tuned, "PrometheusRule");
  ASSERT_TRUE(rule);
  EXPECT_EQ((*rule)["metadata"]["namespace"].as<std::string>(), "kube-system");
  alerts.clear();
  for (const YAML::Node& r : (*rule)["spec"]["groups"][0]["rules"]) {
    alerts[r["alert"].as<std::string>()] = r;
    const std::string expr = r["expr"].as<std::string>();
    EXPECT_NE(expr.find(R"({job="ksched-static")"), std::string::npos) << expr;
    EXPECT_EQ(expr.find(R"(namespace="kube-system")"), std::string::npos)
        << expr;
  }
  const YAML::Node pending = alerts["KschedPodsUnschedulable"];
  EXPECT_EQ(pending["for"].as<std::string>(), "1h");
  EXPECT_TRUE(pending["expr"].as<std::string>().ends_with(") > 5"))
      << pending["expr"];
  EXPECT_TRUE(
      alerts["KschedSchedulingLatencyHigh"]["expr"].as<std::string>().ends_with(
          "> 2.5"));
  EXPECT_TRUE(
      alerts["KschedExtenderErrors"]["expr"].as<std::string>().ends_with(
          "> 0.2"));
  EXPECT_EQ(alerts["KschedDown"]["for"].as<std::string>(), "15m");
}

// The dashboard ConfigMaps a rendering holds: those labelled for Grafana's
// dashboard sidecar with `label`.
std::vector<YAML::Node> DashboardConfigMaps(const std::vector<YAML::Node>& docs,
                                            const std::string& label) {
  std::vector<YAML::Node> out;
  for (const YAML::Node& d : docs) {
    if (d["kind"].as<std::string>() == "ConfigMap" &&
        d["metadata"]["labels"][label]) {
      out.push_back(d);
    }
  }
  return out;
}

// The Grafana dashboard: off by default; on, one ConfigMap labelled for the
// sidecar (label, value and namespace as asked), with the release's labels,
// whose one .json key holds the chart's dashboard file byte for byte.
TEST_F(ChartTest, GrafanaDashboardIsOptInAndHoldsTheChartsFile) {
  for (const char* variant :
       {"", "ha", "minimal", "token", "prometheus-rule"}) {
    EXPECT_TRUE(
        DashboardConfigMaps(Objects(variant), "grafana_dashboard").empty())
        << variant;
  }
  const std::string file =
      ReadFile(kSource / "helm/ksched/dashboards/ksched.json");
  ASSERT_FALSE(file.empty());
  struct Case {
    std::string variant, label, value, ns;
  };
  for (const Case& c :
       {Case{"grafana-dashboard", "grafana_dashboard", "1", "monitoring"},
        Case{"grafana-dashboard-custom-label", "example.com/grafana-dashboard",
             "ksched", "kube-system"}}) {
    SCOPED_TRACE(c.variant);
    const std::vector<YAML::Node> docs = Objects(c.variant);
    const std::vector<YAML::Node> maps = DashboardConfigMaps(docs, c.label);
    ASSERT_EQ(maps.size(), 1u);
    const YAML::Node cm = maps[0];
    EXPECT_EQ(cm["metadata"]["name"].as<std::string>(), "ksched-dashboard");
    EXPECT_EQ(cm["metadata"]["namespace"].as<std::string>(), c.ns);
    auto labels =
        cm["metadata"]["labels"].as<std::map<std::string, std::string>>();
    EXPECT_EQ(labels[c.label], c.value);
    labels.erase(c.label);
    std::optional<YAML::Node> deployment = Find(docs, "Deployment");
    ASSERT_TRUE(deployment);
    using Labels = std::map<std::string, std::string>;
    EXPECT_EQ(labels, (*deployment)["metadata"]["labels"].as<Labels>());
    if (c.variant == "grafana-dashboard") {
      EXPECT_EQ(
          cm["metadata"]["annotations"]["grafana_folder"].as<std::string>(),
          "Kubernetes");
    } else {
      EXPECT_FALSE(cm["metadata"]["annotations"]);
    }
    ASSERT_EQ(cm["data"].size(), 1u);
    const std::string key = cm["data"].begin()->first.as<std::string>();
    EXPECT_TRUE(key.ends_with(".json")) << key;
    const std::string json = cm["data"].begin()->second.as<std::string>();
    EXPECT_TRUE(json == file)
        << "the ConfigMap's " << key << " differs from dashboards/ksched.json";
    auto parsed = api::ParseJson(json);
    EXPECT_TRUE(parsed.ok()) << parsed.error().message();
  }
}

// dashboards/ksched.json as Grafana loads it: a dashboard whose panels have
// unique ids and each a query, on the ${datasource} variable, every series
// selector narrowed to the dashboard's job and instance variables (so that
// kube-scheduler's series, under the same names, stay out). The queries
// themselves run against a real Prometheus in test/integration
// (dashboard_test.cc).
TEST_F(ChartTest, TheDashboardIsWellFormed) {
  auto doc =
      api::ParseJson(ReadFile(kSource / "helm/ksched/dashboards/ksched.json"));
  ASSERT_TRUE(doc.ok()) << doc.error().message();
  const rapidjson::Value& d = *doc;
  ASSERT_TRUE(d.IsObject());
  EXPECT_EQ(std::string(d["uid"].GetString()), "ksched");
  EXPECT_EQ(std::string(d["title"].GetString()), "ksched");
  EXPECT_TRUE(d["schemaVersion"].IsInt());

  std::map<std::string, std::string> variables;  // name -> type
  for (const auto& v : d["templating"]["list"].GetArray()) {
    variables[v["name"].GetString()] = v["type"].GetString();
  }
  EXPECT_EQ(variables,
            (std::map<std::string, std::string>{{"datasource", "datasource"},
                                                {"instance", "query"},
                                                {"job", "query"}}));
  for (const auto& v : d["templating"]["list"].GetArray()) {
    if (std::string(v["type"].GetString()) == "datasource") {
      EXPECT_EQ(std::string(v["query"].GetString()), "prometheus");
    }
  }

  const std::regex metric(R"(\b(scheduler|ksched|leader_election)_[a-z_]+\b)");
  const std::string scope = R"({job="$job", instance=~"$instance")";
  std::set<int> ids;
  const auto& panels = d["panels"].GetArray();
  ASSERT_GE(panels.Size(), 20u);
  for (const auto& p : panels) {
    ASSERT_TRUE(p.HasMember("id") && p["id"].IsInt());
    const std::string title = p["title"].GetString();
    EXPECT_TRUE(ids.insert(p["id"].GetInt()).second)
        << "id " << p["id"].GetInt() << " twice (" << title << ")";
    EXPECT_EQ(std::string(p["datasource"]["uid"].GetString()), "${datasource}")
        << title;
    ASSERT_TRUE(p.HasMember("targets") && p["targets"].IsArray()) << title;
    ASSERT_FALSE(p["targets"].Empty()) << title;
    std::set<std::string> refs;
    for (const auto& t : p["targets"].GetArray()) {
      const std::string expr = t["expr"].GetString();
      EXPECT_FALSE(expr.empty()) << title;
      EXPECT_TRUE(refs.insert(t["refId"].GetString()).second) << title;
      const auto names =
          std::distance(std::sregex_iterator(expr.begin(), expr.end(), metric),
                        std::sregex_iterator());
      size_t scoped = 0;
      for (size_t at = expr.find(scope); at != std::string::npos;
           at = expr.find(scope, at + 1)) {
        ++scoped;
      }
      EXPECT_GE(names, 1) << title << ": " << expr;
      EXPECT_EQ(static_cast<size_t>(names), scoped)
          << title << ": every selector needs " << scope << ": " << expr;
    }
  }
}

// Secure by default: the default values serve nothing that writes to the
// cluster without authentication, and /metrics only to a token allowed to
// get it; each option that opens more is explicit.
// Dynamic resource allocation in every variant that grants RBAC: the
// informers' list and watch of its three kinds, PreBind's get and update of
// a claim and update of its status, Unreserve's patch of the status, and
// the same two status writes on resourceclaims/binding, which a v1.36 API
// server asks about when they change the allocation or reservations. And
// create and delete of claims, which ksched does not call yet: granted as
// kube-scheduler v1.36's role grants them, for the special claims of
// DRA-backed extended resources (DRAExtendedResource).
TEST_F(ChartTest, TheClusterRoleGrantsWhatDynamicResourcesCalls) {
  const std::set<std::string> want = {
      "deviceclasses:list", "deviceclasses:watch", "resourceslices:list",
      "resourceslices:watch", "resourceclaims:get", "resourceclaims:list",
      "resourceclaims:watch", "resourceclaims:update",
      "resourceclaims/status:update", "resourceclaims/status:patch",
      "resourceclaims/binding:update", "resourceclaims/binding:patch",
      // Granted ahead of use (DRAExtendedResource).
      "resourceclaims:create", "resourceclaims:delete"};
  for (const std::string& variant : kGoodVariants) {
    SCOPED_TRACE(variant);
    const std::vector<YAML::Node> objects = Objects(variant);
    std::optional<YAML::Node> role = Find(objects, "ClusterRole", "ksched");
    if (!role) continue;  // RBAC left to the user
    std::set<std::string> granted;
    for (const YAML::Node& rule : (*role)["rules"]) {
      bool dra = false;
      for (const YAML::Node& g : rule["apiGroups"]) {
        dra = dra || g.as<std::string>() == "resource.k8s.io";
      }
      if (!dra) continue;
      for (const YAML::Node& r : rule["resources"]) {
        for (const YAML::Node& v : rule["verbs"]) {
          granted.insert(r.as<std::string>() + ":" + v.as<std::string>());
        }
      }
    }
    EXPECT_EQ(granted, want);
  }
}

TEST_F(ChartTest, DefaultsAreSecureAndOptionsSayWhatTheyOpen) {
  const std::vector<YAML::Node> defaults = Objects("");
  std::optional<YAML::Node> deployment = Find(defaults, "Deployment");
  ASSERT_TRUE(deployment);
  for (const std::string& arg : Args(*deployment)) {
    EXPECT_NE(arg.substr(0, arg.find('=')), "--extender-bind-enabled");
    EXPECT_NE(arg.substr(0, arg.find('=')), "--metrics-bind-address");
    EXPECT_NE(arg.substr(0, arg.find('=')),
              "--authorization-always-allow-paths");
  }
  // ksched may ask who a token is and what it may do.
  std::optional<YAML::Node> role = Find(defaults, "ClusterRole", "ksched");
  ASSERT_TRUE(role);
  std::set<std::string> reviews;
  for (const YAML::Node& rule : (*role)["rules"]) {
    for (const YAML::Node& r : rule["resources"]) {
      const std::string resource = r.as<std::string>();
      if (resource.ends_with("reviews")) {
        reviews.insert(rule["apiGroups"][0].as<std::string>() + "/" + resource +
                       ":" + rule["verbs"][0].as<std::string>());
      }
    }
  }
  EXPECT_EQ(reviews, (std::set<std::string>{
                         "authentication.k8s.io/tokenreviews:create",
                         "authorization.k8s.io/subjectaccessreviews:create"}));
  // The scrape role, as kube-prometheus grants it, bound to its Prometheus.
  std::optional<YAML::Node> reader =
      Find(defaults, "ClusterRole", "ksched-metrics-reader");
  ASSERT_TRUE(reader);
  EXPECT_EQ((*reader)["rules"][0]["nonResourceURLs"][0].as<std::string>(),
            "/metrics");
  EXPECT_EQ((*reader)["rules"][0]["verbs"][0].as<std::string>(), "get");
  std::optional<YAML::Node> binding =
      Find(defaults, "ClusterRoleBinding", "ksched-metrics-reader");
  ASSERT_TRUE(binding);
  EXPECT_EQ((*binding)["subjects"][0]["name"].as<std::string>(),
            "prometheus-k8s");
  EXPECT_FALSE(Find(defaults, "NetworkPolicy"));
  EXPECT_FALSE(
      Find(Objects("token"), "ClusterRoleBinding", "ksched-metrics-reader"));

  // ha: bind on, for client certificates; Prometheus over HTTPS with its
  // token; a NetworkPolicy.
  const std::vector<YAML::Node> ha = Objects("ha");
  deployment = Find(ha, "Deployment");
  ASSERT_TRUE(deployment);
  EXPECT_TRUE(HasArg(*deployment, "--extender-bind-enabled"));
  EXPECT_TRUE(
      HasArg(*deployment,
             "--extender-client-ca-file=/etc/ksched/extender-tls/ca.crt"));
  EXPECT_TRUE(
      HasArg(*deployment, "--tls-cert-file=/etc/ksched/metrics-tls/tls.crt"));
  std::optional<YAML::Node> monitor = Find(ha, "ServiceMonitor");
  ASSERT_TRUE(monitor);
  const YAML::Node endpoint = (*monitor)["spec"]["endpoints"][0];
  EXPECT_EQ(endpoint["scheme"].as<std::string>(), "https");
  EXPECT_EQ(endpoint["bearerTokenFile"].as<std::string>(),
            "/var/run/secrets/kubernetes.io/serviceaccount/token");
  EXPECT_EQ(endpoint["tlsConfig"]["serverName"].as<std::string>(),
            "ksched.kube-system.svc");
  std::optional<YAML::Node> policy = Find(ha, "NetworkPolicy");
  ASSERT_TRUE(policy);
  const YAML::Node ingress = (*policy)["spec"]["ingress"];
  ASSERT_EQ(ingress.size(), 2u);
  EXPECT_EQ(ingress[0]["ports"][0]["port"].as<std::string>(), "metrics");
  EXPECT_EQ(ingress[0]["from"][0]["namespaceSelector"]["matchLabels"]
                   ["kubernetes.io/metadata.name"]
                       .as<std::string>(),
            "monitoring");
  EXPECT_EQ(ingress[1]["ports"][0]["port"].as<std::string>(), "extender");
  EXPECT_EQ(ingress[1]["from"][0]["podSelector"]["matchLabels"]["component"]
                .as<std::string>(),
            "kube-scheduler");
  std::optional<YAML::Node> readers =
      Find(ha, "ClusterRoleBinding", "ksched-metrics-reader");
  ASSERT_TRUE(readers);
  EXPECT_EQ((*readers)["subjects"][1]["kind"].as<std::string>(), "Group");
  EXPECT_EQ((*readers)["subjects"][1]["apiGroup"].as<std::string>(),
            "rbac.authorization.k8s.io");

  // token: bearer tokens reviewed by the API server.
  deployment = Find(Objects("token"), "Deployment");
  ASSERT_TRUE(deployment);
  EXPECT_TRUE(HasArg(*deployment, "--extender-auth=token"));
  EXPECT_TRUE(HasArg(*deployment, "--extender-bind-enabled"));
}

TEST_F(ChartTest, NotesTellHowToUseIt) {
  const CommandResult defaults = Render("", /*notes=*/true);
  ASSERT_EQ(defaults.exit_code, 0) << defaults.err;
  EXPECT_NE(defaults.out.find("schedulerName: ksched"), std::string::npos);
  EXPECT_NE(defaults.out.find(
                "urlPrefix: http://ksched.kube-system.svc:10262/ksched"),
            std::string::npos)
      << defaults.out;
  const CommandResult ha = Render("ha", /*notes=*/true);
  ASSERT_EQ(ha.exit_code, 0) << ha.err;
  EXPECT_NE(ha.out.find("Leader election is on"), std::string::npos);
  EXPECT_NE(ha.out.find("urlPrefix: https://"), std::string::npos);
  EXPECT_NE(ha.out.find("bindVerb: bind"), std::string::npos) << ha.out;
  EXPECT_NE(ha.out.find("certFile:"), std::string::npos) << ha.out;
  EXPECT_EQ(defaults.out.find("bindVerb"), std::string::npos);
  const CommandResult minimal = Render("minimal", /*notes=*/true);
  ASSERT_EQ(minimal.exit_code, 0) << minimal.err;
  EXPECT_EQ(minimal.out.find("urlPrefix"), std::string::npos);
}

// Without client certificates the notes say who can reach the extender
// and how to narrow it; with them (ha) they do not.
TEST_F(ChartTest, NotesSayWhoCanReachTheExtender) {
  const CommandResult defaults = Render("", /*notes=*/true);
  ASSERT_EQ(defaults.exit_code, 0) << defaults.err;
  EXPECT_NE(defaults.out.find("port 10262 of every ksched pod is open to any "
                              "pod in the cluster"),
            std::string::npos)
      << defaults.out;
  EXPECT_NE(defaults.out.find("answered without authentication"),
            std::string::npos);
  EXPECT_NE(defaults.out.find("- ipBlock: {cidr: <control-plane node IP>/32}"),
            std::string::npos);
  EXPECT_NE(defaults.out.find("mode: clientCertificate"), std::string::npos);
  const CommandResult token = Render("token", /*notes=*/true);
  ASSERT_EQ(token.exit_code, 0) << token.err;
  EXPECT_NE(token.out.find("must present a bearer token"), std::string::npos)
      << token.out;
  const CommandResult ha = Render("ha", /*notes=*/true);
  ASSERT_EQ(ha.exit_code, 0) << ha.err;
  EXPECT_EQ(ha.out.find("Who can reach the extender"), std::string::npos)
      << ha.out;
}

// The image's runtime stage installs packages by name; a library ksched
// links that none of them (or the base image's libc6, libstdc++6,
// libgcc-s1) brings would fail only when the pod starts.
TEST_F(ChartTest, TheImageInstallsEveryLibraryKschedLinks) {
  const std::string dockerfile = ReadFile(kSource / "Dockerfile");
  const size_t runtime = dockerfile.find("FROM debian:bookworm-slim");
  ASSERT_NE(runtime, std::string::npos);
  const std::string runtime_stage = dockerfile.substr(runtime);
  const CommandResult ldd = RunCommand(
      std::string("ldd ") + KSCHED_BINARY +
      " | awk '$3 ~ /^\\// {print $3}' | while read lib; do"
      " dpkg -S \"*/$(basename \"$(readlink -f \"$lib\")\")\" | head -1 |"
      " cut -d: -f1; done | sort -u");
  ASSERT_EQ(ldd.exit_code, 0) << ldd.err;
  std::istringstream packages(ldd.out);
  std::string package;
  int checked = 0;
  for (; std::getline(packages, package); ++checked) {
    // lib32* and libc6-i386 are other architectures' copies dpkg also names.
    if (package.rfind("libc6", 0) == 0 || package == "libgcc-s1" ||
        package.find("stdc++6") != std::string::npos) {
      continue;
    }
    // Dependencies of the listed packages come along.
    if (package == "libbrotli1" || package == "zlib1g") continue;
    // A sanitizer build's runtimes; the image is a release build.
    if (package.rfind("libasan", 0) == 0 || package.rfind("libubsan", 0) == 0 ||
        package.rfind("libtsan", 0) == 0) {
      continue;
    }
    EXPECT_NE(runtime_stage.find(" " + package), std::string::npos)
        << "the Dockerfile's runtime stage does not install " << package;
  }
  EXPECT_GE(checked, 5);
}

TEST_F(ChartTest, ChartVersionIsKschedsVersion) {
  const YAML::Node chart =
      YAML::LoadFile((kSource / "helm/ksched/Chart.yaml").string());
  EXPECT_EQ(chart["appVersion"].as<std::string>(), KSCHED_VERSION);
}

}  // namespace
}  // namespace ksched::testing
