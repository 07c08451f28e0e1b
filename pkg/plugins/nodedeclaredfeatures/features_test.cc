#include "pkg/plugins/nodedeclaredfeatures/features.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "pkg/plugins/nodedeclaredfeatures/fake_feature_test_util.h"

namespace ksched::plugins::nodedeclaredfeatures {
namespace {

using Names = std::vector<std::string>;

using testing::FakeFeature;
using testing::Version;

api::Container Plain(std::string name) {
  api::Container c;
  c.name = std::move(name);
  c.image = "image";
  return c;
}

// kube's containerWithRestartAllContainersAction.
api::Container RestartsAll() {
  api::Container c = Plain("container");
  c.restart_policy = "Never";
  c.restart_policy_rules.push_back(
      {"RestartAllContainers",
       api::ContainerRestartRuleOnExitCodes{"In", {1}}});
  return c;
}

// The names the default registry infers for `spec` at v1.36.0.
Names Needs(const api::PodSpec& spec) {
  const FeatureRegistry& registry = *FeatureRegistry::Default();
  util::Result<FeatureSet> set =
      registry.InferForPodScheduling(spec, Version("1.36.0"));
  EXPECT_TRUE(set.ok());
  return set.ok() ? *registry.mapper().Unmap(*set) : Names{};
}

TEST(RegisteredFeaturesTest, KubeV136RegistersFiveSortedByName) {
  EXPECT_EQ(FeatureRegistry::Default()->mapper().features(),
            (Names{"ExtendWebSocketsToKubelet",
                   "InPlacePodLevelResourcesVerticalScaling",
                   "InPlacePodVerticalScalingInitContainers",
                   "RestartAllContainersOnContainerExits",
                   "UserNamespacesHostNetworkSupport"}));
  for (const auto& f : AllFeatures()) {
    EXPECT_FALSE(f->MaxVersion().has_value()) << f->Name();
  }
}

// kube's restartallcontainers TestInferForScheduling.
TEST(RegisteredFeaturesTest, RestartAllContainersInContainersOrInitContainers) {
  api::PodSpec init_rules;
  init_rules.init_containers = {RestartsAll()};
  init_rules.containers = {Plain("name")};
  EXPECT_EQ(Needs(init_rules), Names{"RestartAllContainersOnContainerExits"});

  api::PodSpec regular_rules;
  regular_rules.init_containers = {Plain("name")};
  regular_rules.containers = {RestartsAll()};
  EXPECT_EQ(Needs(regular_rules),
            Names{"RestartAllContainersOnContainerExits"});

  api::PodSpec no_rules;
  no_rules.init_containers = {Plain("name")};
  no_rules.containers = {Plain("name2")};
  EXPECT_EQ(Needs(no_rules), Names{});

  // Only the action counts: a plain restart rule needs nothing.
  api::PodSpec restart_only;
  restart_only.containers = {Plain("c")};
  restart_only.containers[0].restart_policy = "Never";
  restart_only.containers[0].restart_policy_rules.push_back(
      {"Restart", api::ContainerRestartRuleOnExitCodes{"NotIn", {0}}});
  EXPECT_EQ(Needs(restart_only), Names{});
}

TEST(RegisteredFeaturesTest, HostNetworkInAUserNamespace) {
  api::PodSpec spec;
  spec.containers = {Plain("c")};
  spec.host_network = true;
  EXPECT_EQ(Needs(spec), Names{}) << "hostUsers unset";
  spec.host_users = true;
  EXPECT_EQ(Needs(spec), Names{}) << "hostUsers: true";
  spec.host_users = false;
  EXPECT_EQ(Needs(spec), Names{"UserNamespacesHostNetworkSupport"});
  spec.host_network = false;
  EXPECT_EQ(Needs(spec), Names{}) << "own network namespace";

  // Both at once, in name order.
  spec.host_network = true;
  spec.init_containers = {RestartsAll()};
  EXPECT_EQ(Needs(spec), (Names{"RestartAllContainersOnContainerExits",
                                "UserNamespacesHostNetworkSupport"}));
}

TEST(RegisteredFeaturesTest, UpdateOnlyFeaturesAreNeverNeededToSchedule) {
  // Pod-level resources and sidecar-less init containers matter to resizes
  // (pod updates), which the API server checks, not the scheduler.
  api::PodSpec spec;
  spec.containers = {Plain("c")};
  spec.init_containers = {Plain("init")};
  spec.resources.emplace();
  EXPECT_EQ(Needs(spec), Names{});
}

// kube's TestInferForPodScheduling.
TEST(FeatureRegistryTest, InferForPodScheduling) {
  auto has_pod_resources = [](const api::PodSpec& spec) {
    return spec.resources.has_value();
  };
  api::PodSpec with_resources;
  with_resources.resources.emplace();
  const api::PodSpec without_resources;
  struct Case {
    std::string name;
    std::optional<SemanticVersion> max;
    const api::PodSpec* pod;
    std::optional<SemanticVersion> target;
    Names want;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"pod with feature, inferred during scheduling", std::nullopt,
       &with_resources, Version("1.30.0"), Names{"PodLevelResources"}, ""},
      {"pod without feature", std::nullopt, &without_resources,
       Version("1.30.0"), Names{}, ""},
      {"feature universally available, not inferred during create",
       Version("1.30.0"), &with_resources, Version("1.31.0"), Names{}, ""},
      {"pre-release target version", Version("1.30.0"), &with_resources,
       Version("0.0.0-alpha.2.39+049eafd34dfbd2"), Names{"PodLevelResources"},
       ""},
      {"exceeds max version", Version("1.30.0"), &with_resources,
       Version("1.40.0"), Names{}, ""},
      {"at max version", Version("1.30.0"), &with_resources, Version("1.30.0"),
       Names{"PodLevelResources"}, ""},
      {"target version nil", std::nullopt, &with_resources, std::nullopt,
       Names{}, "target version cannot be nil"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const FeatureRegistry registry({std::make_shared<FakeFeature>(
        "PodLevelResources", has_pod_resources, c.max)});
    util::Result<FeatureSet> set =
        registry.InferForPodScheduling(*c.pod, c.target);
    if (!c.error.empty()) {
      ASSERT_FALSE(set.ok());
      EXPECT_EQ(set.error().message(), c.error);
      continue;
    }
    ASSERT_TRUE(set.ok()) << set.error().message();
    EXPECT_EQ(*registry.mapper().Unmap(*set), c.want);
  }
}

TEST(FeatureRegistryTest, BitsFollowTheSortedNames) {
  const FeatureRegistry registry({
      std::make_shared<FakeFeature>("Zeta",
                                    [](const api::PodSpec&) { return true; }),
      std::make_shared<FakeFeature>("Alpha",
                                    [](const api::PodSpec&) { return false; }),
  });
  EXPECT_EQ(registry.mapper().features(), (Names{"Alpha", "Zeta"}));
  util::Result<FeatureSet> set =
      registry.InferForPodScheduling(api::PodSpec{}, Version("1.36.0"));
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->String(), "01");
}

}  // namespace
}  // namespace ksched::plugins::nodedeclaredfeatures
