// ValidateKubeSchedulerConfiguration, through ParseConfig so that every
// message carries the path a user sees.
#include "pkg/config/validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pkg/config/config_test_util.h"

namespace ksched::config {
namespace {

using test_util::ErrorFor;
using test_util::MustParse;
using ::testing::HasSubstr;

TEST(ValidationTest, DuplicateSchedulerNames) {
  EXPECT_EQ(ErrorFor("profiles:\n- schedulerName: x\n- schedulerName: y\n"
                     "- schedulerName: x\n"),
            "profiles[2].schedulerName: Duplicate value: \"x\"");
}

TEST(ValidationTest, UnnamedProfilesAmongSeveral) {
  EXPECT_EQ(ErrorFor("profiles:\n- {}\n- {}\n"),
            "[profiles[0].schedulerName: Required value, "
            "profiles[1].schedulerName: Required value, "
            "profiles[1].schedulerName: Duplicate value: \"\"]");
}

TEST(ValidationTest, Parallelism) {
  EXPECT_EQ(ErrorFor("parallelism: 0\n"),
            "parallelism: Invalid value: 0: should be an integer value "
            "greater than zero");
  EXPECT_EQ(ErrorFor("parallelism: -4\n"),
            "parallelism: Invalid value: -4: should be an integer value "
            "greater than zero");
}

TEST(ValidationTest, PercentageOfNodesToScore) {
  EXPECT_EQ(ErrorFor("percentageOfNodesToScore: 101\n"),
            "percentageOfNodesToScore: Invalid value: 101: not in valid range "
            "[0-100]");
  EXPECT_EQ(ErrorFor("profiles:\n- percentageOfNodesToScore: -1\n"),
            "profiles[0].percentageOfNodesToScore: Invalid value: -1: not in "
            "valid range [0-100]");
  EXPECT_EQ(ErrorFor("percentageOfNodesToScore: 100\n"), "<accepted>");
}

TEST(ValidationTest, Backoffs) {
  EXPECT_EQ(ErrorFor("podInitialBackoffSeconds: 0\n"),
            "podInitialBackoffSeconds: Invalid value: 0: must be greater "
            "than 0");
  EXPECT_EQ(ErrorFor("podInitialBackoffSeconds: 20\n"),
            "podMaxBackoffSeconds: Invalid value: 10: must be greater than or "
            "equal to PodInitialBackoffSeconds");
  EXPECT_EQ(ErrorFor("podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 5\n"),
            "<accepted>");
}

TEST(ValidationTest, LeaderElection) {
  EXPECT_EQ(ErrorFor("leaderElection:\n  leaseDuration: 5s\n"),
            "leaderElection.leaseDuration: Invalid value: 10s: must be greater "
            "than `RenewDeadline`");
  EXPECT_EQ(ErrorFor("leaderElection:\n  leaseDuration: -1s\n"),
            "[leaderElection.leaseDuration: Invalid value: -1s: must be "
            "greater than zero, leaderElection.leaseDuration: Invalid value: "
            "10s: must be greater than `RenewDeadline`]");
  EXPECT_EQ(ErrorFor("leaderElection:\n  retryPeriod: -500ms\n"),
            "leaderElection.retryPeriod: Invalid value: -500ms: must be "
            "greater than zero");
  EXPECT_EQ(ErrorFor("leaderElection:\n  resourceLock: endpoints\n"),
            "leaderElection.resourceLock: Invalid value: \"endpoints\": "
            "resourceLock value must be \"leases\"");
  // Without leader election none of this is checked.
  EXPECT_EQ(ErrorFor("leaderElection:\n  leaderElect: false\n"
                     "  leaseDuration: -1s\n  resourceLock: endpoints\n"),
            "<accepted>");
}

TEST(ValidationTest, ClientConnectionBurst) {
  EXPECT_EQ(ErrorFor("clientConnection:\n  burst: -1\n"),
            "clientConnection.burst: Invalid value: -1: must be non-negative");
}

TEST(ValidationTest, QueueSortMustMatchAcrossProfiles) {
  EXPECT_EQ(
      ErrorFor(R"(
profiles:
- schedulerName: a
- schedulerName: b
  plugins:
    queueSort:
      enabled:
      - name: CustomSort
      disabled:
      - name: "*"
)"),
      "profiles[1].plugins.queueSort: Invalid value: "
      "config.PluginSet{Enabled:[]config.Plugin{config.Plugin{Name:"
      "\"CustomSort\", Weight:0}}, Disabled:[]config.Plugin{config.Plugin{"
      "Name:\"*\", Weight:0}}}: must be the same for all profiles");
  EXPECT_EQ(ErrorFor(R"(
profiles:
- schedulerName: a
  plugins:
    queueSort:
      enabled:
      - name: SortA
      - name: SortB
)"),
            "profiles[0].plugins.queueSort.Enabled: Invalid value: 2: only "
            "one queue sort plugin can be enabled");
}

TEST(ValidationTest, QueueSortArgsMustMatchAcrossProfiles) {
  const std::string profiles = R"(
profiles:
- schedulerName: a
  plugins:
    queueSort: {enabled: [{name: CustomSort}]}
  pluginConfig:
  - name: CustomSort
    args: {order: asc}
- schedulerName: b
  plugins:
    queueSort: {enabled: [{name: CustomSort}]}
  pluginConfig:
  - name: CustomSort
    args: {order: )";
  EXPECT_EQ(ErrorFor(profiles + "asc}\n"), "<accepted>");
  EXPECT_EQ(ErrorFor(profiles + "desc}\n"),
            "profiles[1].pluginConfig.args: Invalid value: "
            "{\"order\":\"desc\"}: queueSort must be the same for all "
            "profiles");
}

TEST(ValidationTest, DuplicatePluginConfig) {
  EXPECT_EQ(ErrorFor(R"(
profiles:
- pluginConfig:
  - name: Foo
  - name: Foo
)"),
            "profiles[0].pluginConfig[1]: Duplicate value: \"Foo\"");
}

TEST(ValidationTest, RemovedVolumeLimitPlugins) {
  const std::string detail =
      "was invalid in version \"kubescheduler.config.k8s.io/v1\" "
      "(KubeSchedulerConfiguration is version "
      "\"kubescheduler.config.k8s.io/v1\")";
  EXPECT_EQ(ErrorFor(R"(
profiles:
- plugins:
    filter:
      enabled:
      - name: NodePorts
      - name: EBSLimits
)"),
            "profiles[0].plugins.filter.enabled[1]: Invalid value: "
            "\"EBSLimits\": " +
                detail);
  EXPECT_EQ(
      ErrorFor("profiles:\n- pluginConfig:\n  - name: GCEPDLimits\n"),
      "profiles[0].pluginConfig[0]: Invalid value: \"GCEPDLimits\": " + detail);
}

TEST(ValidationTest, Extenders) {
  EXPECT_EQ(ErrorFor(R"(
extenders:
- urlPrefix: http://127.0.0.1:8080
  prioritizeVerb: prioritize
)"),
            "extenders[0].weight: Invalid value: 0: must have a positive "
            "weight applied to it");
  EXPECT_EQ(ErrorFor(R"(
extenders:
- urlPrefix: http://a
  bindVerb: bind
- urlPrefix: http://b
  bindVerb: bind
)"),
            "extenders: Invalid value: \"found 2 extenders implementing "
            "bind\": only one extender can implement bind");
  EXPECT_EQ(ErrorFor(R"(
extenders:
- urlPrefix: http://a
  managedResources:
  - name: foo
  - name: example.com/foo
  - name: example.com/foo
)"),
            "[extenders[0].managedResources[0].name: Invalid value: \"foo\": "
            "is an invalid extended resource name, "
            "extenders[0].managedResources[2].name: Invalid value: "
            "\"example.com/foo\": duplicate extender managed resource name]");
  EXPECT_THAT(ErrorFor("extenders:\n- managedResources:\n  - name: a/b/c\n"),
              HasSubstr("extenders[0].managedResources[0].name: Invalid "
                        "value: \"a/b/c\": a qualified name must consist of"));
}

TEST(ValidationTest, ExtenderIsDecoded) {
  KubeSchedulerConfiguration c = MustParse(R"(
extenders:
- urlPrefix: https://extender:8443/scheduler
  filterVerb: filter
  prioritizeVerb: prioritize
  weight: 5
  enableHTTPS: true
  httpTimeout: 1.5s
  nodeCacheCapable: true
  ignorable: true
  managedResources:
  - name: example.com/gpu
    ignoredByScheduler: true
  tlsConfig:
    insecure: true
    serverName: extender
    caData: aGVsbG8=
)");
  ASSERT_EQ(c.extenders.size(), 1u);
  const Extender& e = c.extenders[0];
  EXPECT_EQ(e.url_prefix, "https://extender:8443/scheduler");
  EXPECT_EQ(e.filter_verb, "filter");
  EXPECT_EQ(e.prioritize_verb, "prioritize");
  EXPECT_EQ(e.weight, 5);
  EXPECT_TRUE(e.enable_https);
  EXPECT_EQ(e.http_timeout, std::chrono::milliseconds(1500));
  EXPECT_TRUE(e.node_cache_capable);
  EXPECT_TRUE(e.ignorable);
  ASSERT_EQ(e.managed_resources.size(), 1u);
  EXPECT_EQ(e.managed_resources[0].name, "example.com/gpu");
  EXPECT_TRUE(e.managed_resources[0].ignored_by_scheduler);
  ASSERT_TRUE(e.tls_config.has_value());
  EXPECT_TRUE(e.tls_config->insecure);
  EXPECT_EQ(e.tls_config->server_name, "extender");
  EXPECT_EQ(e.tls_config->ca_data, "hello");
  EXPECT_EQ(ErrorFor("extenders:\n- tlsConfig:\n    certData: \"a$==\"\n"),
            "extenders[0].tlsConfig.certData: illegal base64 data at input "
            "byte 1");
}

TEST(ValidationTest, AggregateDropsRepeatedMessages) {
  FieldErrors errs = {Required(FieldPath("a"), ""),
                      Required(FieldPath("a"), ""),
                      Invalid(FieldPath("b").Index(2).Key("k"), "3", "bad")};
  EXPECT_EQ(AggregateMessage(errs),
            "[a: Required value, b[2][k]: Invalid value: 3: bad]");
  EXPECT_EQ(AggregateMessage({}), "");
  EXPECT_EQ(AggregateMessage({Forbidden(FieldPath("x"), "no")}),
            "x: Forbidden: no");
  EXPECT_EQ(GoQuote("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\x01\"");
}

}  // namespace
}  // namespace ksched::config
