// The extender manifests load as configurations (ksched's loader decodes,
// defaults and validates them as kube-scheduler does), and the entry in
// kube-scheduler's reaches a profile of ksched's.
#include <gtest/gtest.h>

#include "pkg/config/config.h"
#include "pkg/extender/routes.h"

namespace ksched::extender {
namespace {

const std::string kDir =
    std::string(KSCHED_SOURCE_DIR) + "/manifests/extender/";

TEST(ExtenderManifestsTest, KubeSchedulerEntryReachesKschedsProfile) {
  auto kube = config::LoadConfigFile(kDir + "kube-scheduler-config.yaml");
  ASSERT_TRUE(kube.ok()) << kube.error().message();
  auto ksched = config::LoadConfigFile(kDir + "ksched-config.yaml");
  ASSERT_TRUE(ksched.ok()) << ksched.error().message();

  ASSERT_EQ(kube->extenders.size(), 1u);
  const config::Extender& entry = kube->extenders[0];
  EXPECT_TRUE(entry.node_cache_capable);
  EXPECT_TRUE(entry.ignorable);
  EXPECT_EQ(entry.weight, 5);
  EXPECT_TRUE(entry.bind_verb.empty()) << "kube-scheduler keeps binding";

  RouteTable routes;  // ksched's defaults
  routes.default_profile = ksched->profiles.front().scheduler_name;
  auto has_profile = [&](const std::string& name) {
    for (const auto& p : ksched->profiles) {
      if (p.scheduler_name == name) return true;
    }
    return false;
  };
  // The path part of urlPrefix, then the verb, as kube-scheduler joins them.
  const std::string path =
      entry.url_prefix.substr(entry.url_prefix.find('/', 8));
  for (const auto& [verb, expected] : std::vector<std::pair<std::string, Verb>>{
           {entry.filter_verb, Verb::kFilter},
           {entry.prioritize_verb, Verb::kPrioritize},
           {entry.preempt_verb, Verb::kPreempt}}) {
    auto route = ResolveRoute(path + "/" + verb, routes, has_profile);
    ASSERT_TRUE(route.has_value()) << path << "/" << verb;
    EXPECT_EQ(route->verb, expected);
    EXPECT_EQ(route->profile, "ksched-packing");
  }
}

}  // namespace
}  // namespace ksched::extender
