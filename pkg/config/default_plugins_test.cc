#include "pkg/config/default_plugins.h"

#include <gtest/gtest.h>

namespace ksched::config {
namespace {

Plugin P(std::string name) { return {std::move(name), std::nullopt}; }
Plugin P(std::string name, int32_t weight) { return {std::move(name), weight}; }

PluginSet Set(std::vector<Plugin> enabled, std::vector<Plugin> disabled = {}) {
  return {std::move(enabled), std::move(disabled)};
}

// v1.36's getDefaultPlugins with its default gates: DynamicResources
// (weight 2) joins just before DefaultPreemption, NodeDeclaredFeatures
// after DefaultBinder.
TEST(DefaultPluginsTest, IsTheV136MultiPointListWithWeights) {
  Plugins defaults = DefaultPlugins();
  std::vector<Plugin> want = {
      P("SchedulingGates"),
      P("PrioritySort"),
      P("NodeUnschedulable"),
      P("NodeName"),
      P("TaintToleration", 3),
      P("NodeAffinity", 2),
      P("NodePorts"),
      P("NodeResourcesFit", 1),
      P("VolumeRestrictions"),
      P("NodeVolumeLimits"),
      P("VolumeBinding"),
      P("VolumeZone"),
      P("PodTopologySpread", 2),
      P("InterPodAffinity", 2),
      P("DynamicResources", 2),
      P("DefaultPreemption"),
      P("NodeResourcesBalancedAllocation", 1),
      P("ImageLocality", 1),
      P("DefaultBinder"),
      P("NodeDeclaredFeatures"),
  };
  EXPECT_EQ(defaults.multi_point.enabled, want);
  EXPECT_EQ(defaults.multi_point.enabled.size(), 20u);
  EXPECT_TRUE(defaults.multi_point.disabled.empty());
  // Only multiPoint is populated; the per-point lists start empty.
  Plugins only_multi_point;
  only_multi_point.multi_point = defaults.multi_point;
  EXPECT_EQ(defaults, only_multi_point);
}

// The cases of kube-scheduler's TestMergePlugins.
TEST(MergePluginsTest, AppendsCustomPluginAfterDefaults) {
  Plugins defaults, custom, want;
  defaults.filter = Set({P("DefaultPlugin1"), P("DefaultPlugin2")});
  custom.filter = Set({P("CustomPlugin")});
  want.filter =
      Set({P("DefaultPlugin1"), P("DefaultPlugin2"), P("CustomPlugin")});
  EXPECT_EQ(MergePlugins(defaults, custom), want);
}

TEST(MergePluginsTest, DisabledDefaultCanBeReenabledLater) {
  Plugins defaults, custom, want;
  defaults.filter = Set({P("DefaultPlugin1"), P("DefaultPlugin2")});
  custom.filter =
      Set({P("CustomPlugin"), P("DefaultPlugin2")}, {P("DefaultPlugin2")});
  want.filter =
      Set({P("DefaultPlugin1"), P("CustomPlugin"), P("DefaultPlugin2")},
          {P("DefaultPlugin2")});
  EXPECT_EQ(MergePlugins(defaults, custom), want);
}

TEST(MergePluginsTest, StarDisablesEveryDefault) {
  Plugins defaults, custom, want;
  defaults.filter = Set({P("DefaultPlugin1"), P("DefaultPlugin2")});
  custom.filter = Set(
      {P("CustomPlugin"), P("DefaultPlugin1"), P("DefaultPlugin2")}, {P("*")});
  want.filter = Set(
      {P("CustomPlugin"), P("DefaultPlugin1"), P("DefaultPlugin2")}, {P("*")});
  EXPECT_EQ(MergePlugins(defaults, custom), want);

  // Reordering the defaults takes "*" and re-enabling in the new order.
  custom.filter = Set({P("DefaultPlugin2"), P("DefaultPlugin1")}, {P("*")});
  want.filter = Set({P("DefaultPlugin2"), P("DefaultPlugin1")}, {P("*")});
  EXPECT_EQ(MergePlugins(defaults, custom), want);
}

TEST(MergePluginsTest, NoCustomPluginsKeepsDefaults) {
  Plugins defaults;
  defaults.filter = Set({P("DefaultPlugin1"), P("DefaultPlugin2")});
  EXPECT_EQ(MergePlugins(defaults, std::nullopt), defaults);
}

TEST(MergePluginsTest, CustomWeightOverridesDefaultInPlace) {
  Plugins defaults, custom, want;
  defaults.filter = Set({P("Plugin1"), P("Plugin2"), P("Plugin3")});
  custom.filter = Set({P("Plugin1", 2), P("Plugin3", 3)});
  want.filter = Set({P("Plugin1", 2), P("Plugin2"), P("Plugin3", 3)});
  EXPECT_EQ(MergePlugins(defaults, custom), want);

  // The default order is kept even when the custom list has another one.
  custom.filter = Set({P("Plugin2", 2), P("Plugin1", 1)});
  want.filter = Set({P("Plugin1", 1), P("Plugin2", 2), P("Plugin3")});
  EXPECT_EQ(MergePlugins(defaults, custom), want);
}

TEST(MergePluginsTest, RepeatedCustomPluginLastOneReplacesDefault) {
  Plugins defaults, custom, want;
  defaults.filter = Set({P("Plugin1"), P("Plugin2"), P("Plugin3")});
  custom.filter =
      Set({P("Plugin1"), P("Plugin2", 2), P("Plugin3"), P("Plugin2", 4)});
  want.filter =
      Set({P("Plugin1"), P("Plugin2", 4), P("Plugin3"), P("Plugin2", 2)});
  EXPECT_EQ(MergePlugins(defaults, custom), want);
}

TEST(MergePluginsTest, MultiPointDisabledAndScoreDisabled) {
  Plugins defaults, custom, want;
  defaults.multi_point = Set({P("DefaultPlugin1"), P("DefaultPlugin2")});
  custom.multi_point =
      Set({P("CustomPlugin"), P("CustomPlugin2")}, {P("DefaultPlugin2")});
  custom.score = Set({}, {P("CustomPlugin2")});
  want.multi_point =
      Set({P("DefaultPlugin1"), P("CustomPlugin"), P("CustomPlugin2")},
          {P("DefaultPlugin2")});
  want.score = Set({}, {P("CustomPlugin2")});
  EXPECT_EQ(MergePlugins(defaults, custom), want);
}

TEST(MergePluginsTest, DefaultSetDisabledEntriesAreKept) {
  Plugins defaults, custom, want;
  defaults.multi_point = Set({P("DefaultPlugin")}, {P("DefaultPlugin2")});
  custom.multi_point = Set({P("CustomPlugin")});
  want.multi_point =
      Set({P("DefaultPlugin"), P("CustomPlugin")}, {P("DefaultPlugin2")});
  EXPECT_EQ(MergePlugins(defaults, custom), want);

  // A multiPoint holding only disabled entries still merges.
  custom.multi_point = Set({}, {P("DefaultPlugin")});
  defaults.multi_point = Set({P("DefaultPlugin")});
  want.multi_point = Set({}, {P("DefaultPlugin")});
  EXPECT_EQ(MergePlugins(defaults, custom), want);
}

TEST(MergePluginsTest, DisabledWeightsAreDropped) {
  PluginSet merged =
      MergePluginSet(Set({P("A"), P("B")}), Set({}, {P("B", 7)}));
  EXPECT_EQ(merged, Set({P("A")}, {P("B")}));
}

// Emulating v1.32 or v1.33, DynamicResourceAllocation is off: the 18
// plugins of those releases. From 1.34 on it is on.
TEST(DefaultPluginsTest, FollowTheGatesOfTheEmulatedVersion) {
  for (int minor : {32, 33}) {
    Plugins defaults = DefaultPlugins(FeatureGates(KubeVersion{1, minor}));
    EXPECT_EQ(defaults.multi_point.enabled.size(), 18u) << minor;
    for (const Plugin& p : defaults.multi_point.enabled) {
      EXPECT_NE(p.name, "DynamicResources") << minor;
    }
  }
  Plugins v134 = DefaultPlugins(FeatureGates(KubeVersion{1, 34}));
  ASSERT_EQ(v134.multi_point.enabled.size(), 19u);
  EXPECT_EQ(v134.multi_point.enabled[14], P("DynamicResources", 2));
  EXPECT_EQ(v134.multi_point.enabled[15], P("DefaultPreemption"));

  // The alpha gates append their plugins at the end, in kube's order.
  FeatureGates alpha;
  alpha.Set(Feature::kNodeDeclaredFeatures, true);
  alpha.Set(Feature::kGenericWorkload, true);
  alpha.Set(Feature::kGangScheduling, true);
  Plugins with_alpha = DefaultPlugins(alpha);
  ASSERT_EQ(with_alpha.multi_point.enabled.size(), 21u);
  EXPECT_EQ(with_alpha.multi_point.enabled[19], P("NodeDeclaredFeatures"));
  EXPECT_EQ(with_alpha.multi_point.enabled[20], P("GangScheduling"));
}

}  // namespace
}  // namespace ksched::config
