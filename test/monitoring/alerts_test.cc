// The chart's alerting rules as Prometheus reads them. The PrometheusRule
// (helm/ksched/templates/prometheusrule.yaml) rendered with
// test/chart/values/prometheus-rule.yaml is the one source: its spec is
// written out as a rules file, which `promtool check rules` must accept and
// on which alerts_test.yaml's cases (series in, alerts out) must pass under
// `promtool test rules`. Every alert must have a case where it fires and
// one where it stays quiet, read only metrics ksched exports (kube-
// scheduler's share their names, so each selector names ksched's scrape),
// and carry a severity and the annotations an operator reads.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test/cli/run_command.h"

namespace ksched::testing {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = KSCHED_SOURCE_DIR;

// The selector the rules get by default for release ksched in kube-system:
// the labels the chart's ServiceMonitor gives ksched's scrape.
constexpr char kSelector[] = R"(job="ksched",namespace="kube-system")";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class AlertsTest : public ::testing::Test {
 protected:
  // Renders the chart as `helm template ksched helm/ksched -n kube-system
  // -f test/chart/values/prometheus-rule.yaml` and writes the
  // PrometheusRule's spec to rules.yaml in a directory of this process,
  // beside a copy of alerts_test.yaml (which names it relatively).
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() /
           ("ksched_alerts_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    const CommandResult render = RunCommand(
        "cd " + (kSource / "helm").string() + " && " + KSCHED_CHART_RENDER +
        " --name ksched --namespace kube-system -f " +
        (kSource / "test/chart/values/prometheus-rule.yaml").string() +
        " ksched");
    ASSERT_EQ(render.exit_code, 0) << render.out << render.err;
    for (const YAML::Node& doc : YAML::LoadAll(render.out)) {
      if (doc.IsMap() && doc["kind"].as<std::string>() == "PrometheusRule") {
        spec_ = doc["spec"];
      }
    }
    ASSERT_TRUE(spec_.IsMap()) << "no PrometheusRule in the rendering";
    std::ofstream(dir_ / "rules.yaml") << YAML::Dump(spec_) << "\n";
    fs::copy_file(kSource / "test/monitoring/alerts_test.yaml",
                  dir_ / "alerts_test.yaml",
                  fs::copy_options::overwrite_existing);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  // Every alerting rule of every group.
  static std::vector<YAML::Node> Alerts() {
    std::vector<YAML::Node> alerts;
    for (const YAML::Node& group : spec_["groups"]) {
      for (const YAML::Node& rule : group["rules"]) {
        if (rule["alert"]) alerts.push_back(rule);
      }
    }
    return alerts;
  }

  static fs::path dir_;
  static YAML::Node spec_;
};
fs::path AlertsTest::dir_;
YAML::Node AlertsTest::spec_;

TEST_F(AlertsTest, PromtoolAcceptsTheRules) {
  const CommandResult check =
      RunCommand(std::string(KSCHED_PROMTOOL) + " check rules " +
                 (dir_ / "rules.yaml").string());
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("SUCCESS: " + std::to_string(Alerts().size()) +
                           " rules found"),
            std::string::npos)
      << check.out << check.err;
}

TEST_F(AlertsTest, PromtoolUnitTestsPass) {
  const CommandResult test =
      RunCommand("cd " + dir_.string() + " && " + KSCHED_PROMTOOL +
                 " test rules alerts_test.yaml");
  EXPECT_EQ(test.exit_code, 0) << test.out << test.err;
  EXPECT_NE(test.out.find("SUCCESS"), std::string::npos)
      << test.out << test.err;
}

// promtool passes a case that expects no alert of a name no rule has, so
// the names are checked here: each alert has a case where it fires and one
// where it does not, and every case names an alert that exists.
TEST_F(AlertsTest, EveryAlertFiresInOneCaseAndStaysQuietInAnother) {
  std::set<std::string> names;
  for (const YAML::Node& alert : Alerts()) {
    names.insert(alert["alert"].as<std::string>());
  }
  EXPECT_EQ(names.size(), 10u);
  std::map<std::string, int> fires, quiet;
  const YAML::Node tests =
      YAML::LoadFile((kSource / "test/monitoring/alerts_test.yaml").string());
  for (const YAML::Node& test : tests["tests"]) {
    for (const YAML::Node& c : test["alert_rule_test"]) {
      const std::string name = c["alertname"].as<std::string>();
      EXPECT_EQ(names.count(name), 1u) << "no alert named " << name;
      ++(c["exp_alerts"].size() == 0 ? quiet : fires)[name];
    }
  }
  for (const std::string& name : names) {
    EXPECT_GE(fires[name], 1) << name << " never fires in alerts_test.yaml";
    EXPECT_GE(quiet[name], 1) << name << " has no case where it stays quiet";
  }
}

// Metric names are read from the code that registers them, so a rule can
// not alert on a series ksched never exports; and every selector starts
// with ksched's scrape's labels, so kube-scheduler's series (the same
// names) never count.
TEST_F(AlertsTest, AlertsReadOnlyKschedsOwnSeries) {
  std::string exported;
  for (const char* file :
       {"pkg/metrics/scheduler_metrics.cc", "pkg/metrics/ksched_metrics.cc",
        "cmd/ksched/run_command.cc"}) {
    exported += ReadFile(kSource / file);
  }
  ASSERT_NE(exported.find("\"scheduler_pending_pods\""), std::string::npos);
  const std::regex selector(R"(([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\})");
  const std::regex histogram_series("_(bucket|count|sum)$");
  for (const YAML::Node& alert : Alerts()) {
    const std::string name = alert["alert"].as<std::string>();
    const std::string expr = alert["expr"].as<std::string>();
    int selectors = 0;
    for (std::sregex_iterator it(expr.begin(), expr.end(), selector), end;
         it != end; ++it, ++selectors) {
      const std::string metric = (*it)[1];
      const std::string family =
          std::regex_replace(metric, histogram_series, "");
      // up is Prometheus' own, one per scrape.
      if (metric != "up") {
        EXPECT_NE(exported.find("\"" + family + "\""), std::string::npos)
            << name << ": ksched exports no " << family;
      }
      EXPECT_EQ((*it)[2].str().rfind(kSelector, 0), 0u)
          << name << ": " << it->str() << " does not select ksched's scrape";
    }
    EXPECT_GE(selectors, 1) << name << ": " << expr;
  }
}

TEST_F(AlertsTest, EveryAlertHasASeverityAndSaysWhatToLookAt) {
  for (const YAML::Node& alert : Alerts()) {
    const std::string name = alert["alert"].as<std::string>();
    EXPECT_TRUE(name.starts_with("Ksched")) << name;
    const std::string severity = alert["labels"]["severity"].as<std::string>();
    EXPECT_TRUE(severity == "warning" || severity == "critical")
        << name << ": " << severity;
    EXPECT_TRUE(alert["for"]) << name;
    EXPECT_FALSE(alert["annotations"]["summary"].as<std::string>().empty())
        << name;
    EXPECT_NE(alert["annotations"]["description"].as<std::string>().find(
                  "Look first"),
              std::string::npos)
        << name;
  }
}

}  // namespace
}  // namespace ksched::testing
