#include "pkg/plugins/nodedeclaredfeatures/node_declared_features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/nodedeclaredfeatures/fake_feature_test_util.h"
#include "pkg/plugins/registry.h"

namespace ksched::plugins {
namespace {

using framework::Code;
using framework::QueueingHint;
using nodedeclaredfeatures::DeclaredFeature;
using nodedeclaredfeatures::FeatureList;
using nodedeclaredfeatures::FeatureRegistry;
using nodedeclaredfeatures::SemanticVersion;
using testing::NodeBuilder;
using testing::PodBuilder;

using nodedeclaredfeatures::testing::FakeFeature;

// kube's createMockFeature: a feature every pod needs, or none.
std::shared_ptr<const DeclaredFeature> Feature(std::string name, bool infer,
                                               const char* max = "") {
  std::optional<SemanticVersion> max_version;
  if (*max != '\0') max_version = SemanticVersion::Parse(max);
  return std::make_shared<FakeFeature>(
      std::move(name), [infer](const api::PodSpec&) { return infer; },
      max_version);
}

SemanticVersion V(const char* text) {
  return nodedeclaredfeatures::testing::Version(text);
}

std::shared_ptr<const FeatureRegistry> Registry(FeatureList features) {
  return std::make_shared<const FeatureRegistry>(std::move(features));
}

// A restart rule that restarts all of the pod's containers.
api::ContainerRestartRule RestartAll() {
  return {"RestartAllContainers",
          api::ContainerRestartRuleOnExitCodes{"In", {42}}};
}

// A pod with one container, "app".
api::Pod PodWithContainer(std::string name) {
  api::Pod pod = PodBuilder(std::move(name)).Uid("1").Obj();
  pod.spec.containers.resize(1);
  pod.spec.containers[0].name = "app";
  return pod;
}

framework::Status RunPreFilter(NodeDeclaredFeatures& plugin,
                               framework::CycleState& state,
                               const api::Pod& pod) {
  framework::PreFilterResult result;
  framework::Status s = plugin.PreFilter(
      state, *framework::PodInfo::Create(std::make_shared<api::Pod>(pod)), {},
      &result);
  // PreFilter never narrows the nodes.
  EXPECT_TRUE(result.AllNodes());
  return s;
}

framework::Status RunFilter(const NodeDeclaredFeatures& plugin,
                            const framework::CycleState& state,
                            const api::Pod& pod, const api::Node& node) {
  return plugin.Filter(
      state, *framework::PodInfo::Create(std::make_shared<api::Pod>(pod)),
      *testing::MakeNodeInfo(node));
}

// kube's TestPreFilter.
TEST(NodeDeclaredFeaturesTest, PreFilter) {
  struct Case {
    std::string name;
    bool enabled;
    FeatureList features;
    const char* version;
    Code code;
    std::optional<std::vector<std::string>> state;  // nullopt: none written
  };
  const std::vector<Case> cases = {
      {"plugin disabled",
       false,
       {Feature("TestFeature1", true), Feature("TestFeature2", false)},
       "1.35.0",
       Code::kSkip,
       std::nullopt},
      {"Pod with feature requirements",
       true,
       {Feature("TestFeature1", true), Feature("TestFeature2", false)},
       "1.35.0",
       Code::kSuccess,
       std::vector<std::string>{"TestFeature1"}},
      {"Pod with multiple feature requirements",
       true,
       {Feature("TestFeature1", true, "1.38.0"),
        Feature("TestFeature2", true, "1.38.0")},
       "1.35.0",
       Code::kSuccess,
       std::vector<std::string>{"TestFeature1", "TestFeature2"}},
      {"Pod with no requirements",
       true,
       {Feature("TestFeature1", false), Feature("TestFeature2", false)},
       "1.35.0",
       Code::kSkip,
       std::nullopt},
      {"Feature not required, version > MaxVersion",
       true,
       {Feature("TestFeature1", true, "1.33.0"),
        Feature("TestFeature2", false)},
       "1.34.0",
       Code::kSkip,
       std::nullopt},
  };
  const api::Pod pod = PodBuilder("test-pod").Obj();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto registry = Registry(c.features);
    NodeDeclaredFeatures plugin =
        c.enabled ? NodeDeclaredFeatures(registry, V(c.version))
                  : NodeDeclaredFeatures();
    framework::CycleState state;
    framework::Status s = RunPreFilter(plugin, state, pod);
    EXPECT_EQ(s.code(), c.code) << s.Message();
    EXPECT_TRUE(s.reasons().empty()) << s.Message();

    // The state holds exactly the needed features: a node declaring all of
    // them passes, one missing any of them does not.
    const framework::Status none = RunFilter(plugin, state, pod, api::Node{});
    if (!c.state) {
      if (c.enabled) {
        EXPECT_EQ(none.code(), Code::kError) << "no state was written";
      }
      continue;
    }
    EXPECT_EQ(none.code(), Code::kUnschedulableAndUnresolvable);
    EXPECT_TRUE(RunFilter(plugin, state, pod,
                          NodeBuilder("n").DeclaredFeatures(*c.state).Obj())
                    .IsSuccess());
    for (size_t drop = 0; drop < c.state->size(); ++drop) {
      std::vector<std::string> fewer = *c.state;
      fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(drop));
      EXPECT_EQ(RunFilter(plugin, state, pod,
                          NodeBuilder("n").DeclaredFeatures(fewer).Obj())
                    .code(),
                Code::kUnschedulableAndUnresolvable)
          << "without " << (*c.state)[drop];
    }
  }
}

TEST(NodeDeclaredFeaturesTest, PreFilterWithoutAVersionIsAnError) {
  NodeDeclaredFeatures plugin(Registry({Feature("TestFeature", true)}),
                              std::nullopt);
  framework::CycleState state;
  framework::Status s = RunPreFilter(plugin, state, PodBuilder("p").Obj());
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "target version cannot be nil");
}

// kube's TestFilter: PreFilter's state is made here by features that the
// pod needs exactly when the case lists them.
TEST(NodeDeclaredFeaturesTest, Filter) {
  const std::string unmatched = "node(s) didn't match Pod's required features";
  struct Case {
    std::string name;
    bool enabled;
    api::Node node;
    std::optional<std::set<std::string>> needs;  // nullopt: no PreFilter
    Code code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"plugin disabled", false,
       NodeBuilder("node-1").DeclaredFeatures({"FeatureA", "FeatureB"}).Obj(),
       std::nullopt, Code::kSuccess, ""},
      {"Node matches requirements", true,
       NodeBuilder("node-1").DeclaredFeatures({"FeatureA", "FeatureB"}).Obj(),
       std::set<std::string>{"FeatureA"}, Code::kSuccess, ""},
      {"Node does not match requirements", true,
       NodeBuilder("node-1").DeclaredFeatures({"FeatureB"}).Obj(),
       std::set<std::string>{"FeatureA"}, Code::kUnschedulableAndUnresolvable,
       unmatched},
      // kube's case leaves the plugin disabled, so any node passes.
      {"Node with multiple features, pod requires subset", false,
       NodeBuilder("node-multi")
           .DeclaredFeatures({"FeatureA", "FeatureB", "FeatureC"})
           .Obj(),
       std::set<std::string>{"FeatureA", "FeatureC"}, Code::kSuccess, ""},
      {"Node has no declared features", true, NodeBuilder("node-1").Obj(),
       std::set<std::string>{"FeatureA"}, Code::kUnschedulableAndUnresolvable,
       unmatched},
      {"Node with some but not all required features", true,
       NodeBuilder("node-1").DeclaredFeatures({"FeatureA"}).Obj(),
       std::set<std::string>{"FeatureA", "FeatureB"},
       Code::kUnschedulableAndUnresolvable, unmatched},
      {"Error getting pre-filter state", true, NodeBuilder("node-1").Obj(),
       std::nullopt, Code::kError,
       "error reading \"PreFilterNodeDeclaredFeatures\" from cycle-state: not "
       "found"},
      // Beyond kube's cases: names the registry does not know are ignored.
      {"Unknown declared features are ignored", true,
       NodeBuilder("node-1")
           .DeclaredFeatures({"AFutureFeature", "FeatureA", "Zeta/sub"})
           .Obj(),
       std::set<std::string>{"FeatureA"}, Code::kSuccess, ""},
      {"Only unknown declared features", true,
       NodeBuilder("node-1").DeclaredFeatures({"FeatureZ"}).Obj(),
       std::set<std::string>{"FeatureA"}, Code::kUnschedulableAndUnresolvable,
       unmatched},
  };
  const api::Pod pod = PodBuilder("test-pod").Obj();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FeatureList features;
    for (const char* name : {"FeatureA", "FeatureB", "FeatureC"}) {
      const bool needed = c.needs && c.needs->count(name) == 1;
      features.push_back(Feature(name, needed));
    }
    NodeDeclaredFeatures plugin =
        c.enabled ? NodeDeclaredFeatures(Registry(features), V("1.35.0"))
                  : NodeDeclaredFeatures();
    framework::CycleState state;
    if (c.enabled && c.needs) {
      ASSERT_TRUE(RunPreFilter(plugin, state, pod).IsSuccess());
    }
    framework::Status s = RunFilter(plugin, state, pod, c.node);
    EXPECT_EQ(s.code(), c.code) << s.Message();
    EXPECT_EQ(s.Message(), c.message);
    if (c.code == Code::kUnschedulableAndUnresolvable) {
      EXPECT_EQ(s.plugin(), "NodeDeclaredFeatures");
    }
  }
}

// kube's TestEnqueueExtensionsNodeUpdate.
TEST(NodeDeclaredFeaturesTest, HintAfterNodeChange) {
  const api::Pod pod = PodBuilder("test-pod").Obj();
  const api::Node with_a =
      NodeBuilder("node-1").DeclaredFeatures({"FeatureA"}).Obj();
  const api::Node without = NodeBuilder("node-1").Obj();
  struct Case {
    std::string name;
    const api::Node* old_node;
    const api::Node* new_node;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"Node Add with feature", nullptr, &with_a, QueueingHint::kQueue},
      {"Node Update (Features Added)", &without, &with_a, QueueingHint::kQueue},
      {"Node Update (Features Unchanged)", &with_a, &with_a,
       QueueingHint::kQueueSkip},
      {"Node Update (Features Removed)", &with_a, &without,
       QueueingHint::kQueue},
  };
  for (const Case& c : cases) {
    framework::EventObjects objs;
    objs.old_node = c.old_node;
    objs.new_node = c.new_node;
    EXPECT_EQ(NodeDeclaredFeatures::HintAfterNodeChange(pod, objs), c.want)
        << c.name;
  }
}

// kube's TestEnqueueExtensionsPodUpdate: the feature answers in turn for the
// old pod and then the new one.
TEST(NodeDeclaredFeaturesTest, HintAfterPodUpdate) {
  const api::Pod target = PodBuilder("test-pod").Uid("123").Obj();
  const api::Pod plain = PodBuilder("test-pod").Uid("123").Obj();
  const api::Pod labelled =
      PodBuilder("test-pod").Uid("123").Label("foo", "bar").Obj();
  const api::Pod other_old =
      PodBuilder("another-test-pod").Uid("456").Label("foo", "bar").Obj();
  const api::Pod other_new = PodBuilder("another-test-pod").Uid("456").Obj();
  struct Case {
    std::string name;
    const api::Pod* old_pod;
    const api::Pod* new_pod;
    std::vector<bool> answers;  // the feature's answers, call by call
    std::optional<SemanticVersion> version;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"Pod Update adds requirement",
       &plain,
       &labelled,
       {false, true},
       V("1.35.0"),
       QueueingHint::kQueue},
      {"Pod Update removes requirement",
       &labelled,
       &plain,
       {true, false},
       V("1.35.0"),
       QueueingHint::kQueue},
      {"Pod Update with no change in requirements",
       &plain,
       &plain,
       {false, false},
       V("1.35.0"),
       QueueingHint::kQueueSkip},
      {"Updated pod not the same as target pod",
       &other_old,
       &other_new,
       {},
       V("1.35.0"),
       QueueingHint::kQueueSkip},
      // Queued again on an error.
      {"Infer returns error",
       &plain,
       &labelled,
       {},
       std::nullopt,
       QueueingHint::kQueue},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto calls = std::make_shared<size_t>(0);
    const std::vector<bool> answers = c.answers;
    const auto registry = Registry({std::make_shared<FakeFeature>(
        "TestFeature", [calls, answers](const api::PodSpec&) {
          // More calls than answers would be a bug in the hint.
          EXPECT_LT(*calls, answers.size());
          const bool answer = *calls < answers.size() && answers[*calls];
          ++*calls;
          return answer;
        })});
    framework::EventObjects objs;
    objs.old_pod = c.old_pod;
    objs.new_pod = c.new_pod;
    EXPECT_EQ(NodeDeclaredFeatures::HintAfterPodUpdate(*registry, c.version,
                                                       target, objs),
              c.want);
    EXPECT_EQ(*calls, c.answers.size());
  }
}

TEST(NodeDeclaredFeaturesTest, EventsToRegister) {
  EXPECT_TRUE(NodeDeclaredFeatures().EventsToRegister().empty())
      << "disabled: no event";
  NodeDeclaredFeatures plugin(FeatureRegistry::Default(), V("1.36.0"));
  std::vector<framework::ClusterEventWithHint> events =
      plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.Label(), "Node/Add|UpdateNodeDeclaredFeature");
  EXPECT_EQ(events[1].event.Label(), "Pod/Update");
  ASSERT_TRUE(events[0].hint);
  ASSERT_TRUE(events[1].hint);

  // The registered hints are the plugin's, working on its registry.
  api::Pod pod = PodWithContainer("p");
  api::Pod restarts = pod;
  restarts.spec.containers[0].restart_policy_rules = {RestartAll()};
  framework::EventObjects pod_update;
  pod_update.old_pod = &pod;
  pod_update.new_pod = &restarts;
  EXPECT_EQ(events[1].hint(pod, pod_update), QueueingHint::kQueue);
  pod_update.old_pod = &restarts;
  EXPECT_EQ(events[1].hint(pod, pod_update), QueueingHint::kQueueSkip);
  const api::Node node = NodeBuilder("n").Obj();
  framework::EventObjects node_add;
  node_add.new_node = &node;
  EXPECT_EQ(events[0].hint(pod, node_add), QueueingHint::kQueue);
}

// The plugin as the default profile builds it, on kube v1.36's features.
TEST(NodeDeclaredFeaturesTest, RegisteredFeaturesEndToEnd) {
  testing::FakeHandle handle;
  handle.features_.Set(config::Feature::kNodeDeclaredFeatures, true);
  auto built = NewNodeDeclaredFeatures(nullptr, handle);
  ASSERT_TRUE(built.ok()) << built.error().message();
  auto& plugin = dynamic_cast<NodeDeclaredFeatures&>(**built);

  // A pod that needs nothing is skipped.
  framework::CycleState skipped;
  EXPECT_TRUE(RunPreFilter(plugin, skipped, PodWithContainer("p")).IsSkip());

  api::Pod pod = PodWithContainer("p");
  api::Container init;
  init.name = "init";
  init.restart_policy = "Never";
  init.restart_policy_rules = {RestartAll()};
  pod.spec.init_containers.push_back(init);
  pod.spec.host_network = true;
  pod.spec.host_users = false;
  framework::CycleState state;
  ASSERT_TRUE(RunPreFilter(plugin, state, pod).IsSuccess());

  const api::Node both =
      NodeBuilder("both")
          .DeclaredFeatures({"RestartAllContainersOnContainerExits",
                             "UserNamespacesHostNetworkSupport"})
          .Obj();
  EXPECT_TRUE(RunFilter(plugin, state, pod, both).IsSuccess());
  const api::Node restart_only =
      NodeBuilder("restart-only")
          .DeclaredFeatures({"ExtendWebSocketsToKubelet",
                             "RestartAllContainersOnContainerExits"})
          .Obj();
  framework::Status s = RunFilter(plugin, state, pod, restart_only);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "node(s) didn't match Pod's required features");
}

TEST(NodeDeclaredFeaturesTest, GateOffBuildsADisabledPlugin) {
  testing::FakeHandle handle;
  handle.features_.Set(config::Feature::kNodeDeclaredFeatures, false);
  auto built = NewNodeDeclaredFeatures(nullptr, handle);
  ASSERT_TRUE(built.ok());
  auto& plugin = dynamic_cast<NodeDeclaredFeatures&>(**built);
  EXPECT_TRUE(plugin.EventsToRegister().empty());
  api::Pod pod = PodWithContainer("p");
  pod.spec.containers[0].restart_policy_rules = {RestartAll()};
  framework::CycleState state;
  EXPECT_TRUE(RunPreFilter(plugin, state, pod).IsSkip());
  EXPECT_TRUE(
      RunFilter(plugin, state, pod, NodeBuilder("n").Obj()).IsSuccess());
}

TEST(NodeDeclaredFeaturesTest, SignPodCopiesWhatTheInferenceReads) {
  NodeDeclaredFeatures plugin(FeatureRegistry::Default(), V("1.36.0"));
  api::Pod pod = PodWithContainer("p");
  api::Container init;
  init.name = "init";
  init.restart_policy_rules = {RestartAll()};
  pod.spec.init_containers.push_back(init);
  pod.spec.host_network = true;
  pod.spec.host_users = false;

  api::Pod into;
  ASSERT_TRUE(plugin.SignPod(pod, into));
  ASSERT_EQ(into.spec.init_containers.size(), 1u);
  ASSERT_EQ(into.spec.containers.size(), 1u);
  // The action only: exit codes are not read.
  EXPECT_EQ(into.spec.init_containers[0].restart_policy_rules,
            (std::vector<api::ContainerRestartRule>{
                {"RestartAllContainers", std::nullopt}}));
  EXPECT_TRUE(into.spec.containers[0].restart_policy_rules.empty());
  EXPECT_TRUE(into.spec.host_network);
  EXPECT_EQ(into.spec.host_users, false);
  EXPECT_TRUE(into.spec.init_containers[0].name.empty());

  // Pods differing only in what is not read sign alike.
  api::Pod other = pod;
  other.spec.init_containers[0].restart_policy_rules[0].exit_codes->values = {
      7};
  other.spec.containers[0].image = "elsewhere";
  api::Pod other_into;
  ASSERT_TRUE(plugin.SignPod(other, other_into));
  EXPECT_EQ(into, other_into);
  EXPECT_TRUE(plugin.NodeLocal());
}

TEST(NodeDeclaredFeaturesTest, InTheInTreeRegistry) {
  const auto& unimplemented = UnimplementedPluginNames();
  EXPECT_EQ(std::find(unimplemented.begin(), unimplemented.end(),
                      "NodeDeclaredFeatures"),
            unimplemented.end());
  framework::Registry registry = NewInTreeRegistry();
  testing::FakeHandle handle;
  handle.features_.Set(config::Feature::kNodeDeclaredFeatures, true);
  const framework::PluginFactory* factory =
      registry.Find("NodeDeclaredFeatures");
  ASSERT_NE(factory, nullptr);
  auto built = (*factory)(nullptr, handle);
  ASSERT_TRUE(built.ok()) << built.error().message();
  EXPECT_NE(dynamic_cast<NodeDeclaredFeatures*>(built->get()), nullptr);
}

}  // namespace
}  // namespace ksched::plugins
