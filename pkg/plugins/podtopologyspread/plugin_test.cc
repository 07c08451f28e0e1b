// The factory, EventsToRegister and the queueing hints (kube-scheduler's
// plugin_test.go: Test_isSchedulableAfterNodeChange,
// Test_isSchedulableAfterPodChange), and Filter from many threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "pkg/framework/registry.h"
#include "pkg/plugins/podtopologyspread/testing_util.h"

namespace ksched::plugins::podtopologyspread {
namespace {

using framework::Code;
using framework::QueueingHint;
using namespace testutil;  // NOLINT: test vocabulary

constexpr QueueingHint kQueue = QueueingHint::kQueue;
constexpr QueueingHint kSkip = QueueingHint::kQueueSkip;

TEST(PodTopologySpreadFactory, DefaultsToSystemDefaulting) {
  testing::FakeHandle handle;
  auto plugin = NewPodTopologySpread(nullptr, handle);
  ASSERT_TRUE(plugin.ok()) << plugin.error().message();
  EXPECT_EQ((*plugin)->Name(), "PodTopologySpread");
  auto* pts = dynamic_cast<PodTopologySpread*>(plugin->get());
  ASSERT_NE(pts, nullptr);
  EXPECT_TRUE(pts->HasExtensions());
  EXPECT_TRUE(pts->HasNormalizeScore());
}

TEST(PodTopologySpreadFactory, RejectsSystemDefaultingWithConstraints) {
  testing::FakeHandle handle;
  config::PodTopologySpreadArgs args;
  args.defaulting_type = config::PodTopologySpreadDefaulting::kSystem;
  args.default_constraints = {DefaultConstraint(1, "zone", kDoNotSchedule)};
  auto plugin = NewPodTopologySpread(&args, handle);
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.error().message(),
            "defaultingType: Invalid value: \"System\": when "
            ".defaultConstraints are not empty");
}

TEST(PodTopologySpreadFactory, RejectsArgsOfAnotherPlugin) {
  testing::FakeHandle handle;
  config::NodeAffinityArgs args;
  EXPECT_FALSE(NewPodTopologySpread(&args, handle).ok());
}

// With System defaulting, a pod of a known workload gets the soft hostname
// (maxSkew 3) and zone (maxSkew 5) constraints.
TEST(PodTopologySpreadFactory, SystemDefaultsWithAWorkload) {
  testing::FakeHandle handle(MakeCluster(
      {MakeNode("node-a", {{kHostname, "node-a"}, {kZone, "z1"}})}, {}));
  config::PodTopologySpreadArgs args;
  FakeWorkloads workloads{.services = {{{"app", "web"}}}};
  auto plugin = NewPodTopologySpreadWithSelector(&args, handle, workloads.Fn());
  ASSERT_TRUE(plugin.ok());
  auto* pts = dynamic_cast<PodTopologySpread*>(plugin->get());
  framework::CycleState state;
  auto pod = TestPod("p").Label("app", "web").Info();
  ASSERT_TRUE(
      pts->PreScore(state, *pod, handle.snapshot().nodes()).IsSuccess());
  const PreScoreState* s = GetPreScoreState(state);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->data().constraints.size(), 2u);
  EXPECT_EQ(
      DescribeConstraint(s->data().constraints[0]),
      DescribeConstraint(3, kHostname, "{app in (web)}", 1, kHonor, kIgnore));
  EXPECT_EQ(DescribeConstraint(s->data().constraints[1]),
            DescribeConstraint(5, kZone, "{app in (web)}", 1, kHonor, kIgnore));
  // System defaults are soft only: nothing to filter.
  EXPECT_TRUE(
      pts->PreFilter(state, *pod, handle.snapshot().nodes(), nullptr).IsSkip());
}

TEST(PodTopologySpreadEvents, RegistersKubeEvents) {
  testing::FakeHandle handle;
  auto plugin = MakePlugin(handle);
  auto events = plugin->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.Label(),
            "Pod/Add|Delete|UpdatePodLabel|UpdatePodToleration");
  EXPECT_EQ(events[1].event.Label(),
            "Node/Add|Delete|UpdateNodeLabel|UpdateNodeTaint");
  EXPECT_TRUE(events[0].hint);
  EXPECT_TRUE(events[1].hint);
}

// ---- Test_isSchedulableAfterNodeChange

struct NodeHintCase {
  std::string name;
  api::Pod pod;
  std::optional<api::Node> old_node;
  std::optional<api::Node> new_node;
  QueueingHint want;
};

// ctest lists each case by its name, not by its bytes.
void PrintTo(const NodeHintCase& c, std::ostream* os) { *os << c.name; }

class NodeHintTest : public ::testing::TestWithParam<NodeHintCase> {};

TEST_P(NodeHintTest, Hints) {
  const NodeHintCase& tc = GetParam();
  testing::FakeHandle handle;
  auto plugin = MakePlugin(handle);
  auto events = plugin->EventsToRegister();
  framework::EventObjects objs;
  if (tc.old_node) objs.old_node = &*tc.old_node;
  if (tc.new_node) objs.new_node = &*tc.new_node;
  EXPECT_EQ(events[1].hint(tc.pod, objs), tc.want);
}

api::Pod ZoneSpread() {
  return TestPod("p").Spread(1, "zone", kDoNotSchedule, kFooSelector).Obj();
}
api::Pod ZoneNodeSpread() {
  return TestPod("p")
      .Spread(1, "zone", kDoNotSchedule, kFooSelector)
      .Spread(1, "node", kDoNotSchedule, kFooSelector)
      .Obj();
}

std::vector<NodeHintCase> NodeHintCases() {
  return {
      {.name = "node updates label which matches topologyKey",
       .pod = ZoneSpread(),
       .old_node = MakeNode("node-a", {{"zone", "zone1"}}),
       .new_node = MakeNode("node-a", {{"zone", "zone2"}}),
       .want = kQueue},
      {.name = "node that doesn't match topologySpreadConstraints updates "
               "non-related label",
       .pod = ZoneSpread(),
       .old_node = MakeNode("node-a", {{"foo", "bar1"}}),
       .new_node = MakeNode("node-a", {{"foo", "bar2"}}),
       .want = kSkip},
      // v1.32's finer hint (kube #127478): neither the topology keys nor
      // the taints changed, so the node cannot help.
      {.name = "node that match topologySpreadConstraints removes non-related "
               "label",
       .pod = ZoneNodeSpread(),
       .old_node = MakeNode(
           "node-a", {{"zone", "zone1"}, {"node", "node1"}, {"foo", "bar"}}),
       .new_node = MakeNode("node-a", {{"zone", "zone1"}, {"node", "node1"}}),
       .want = kSkip},
      {.name = "node that match topologySpreadConstraints changes taints",
       .pod = ZoneNodeSpread(),
       .old_node = MakeNode("node-a", {{"zone", "zone1"}, {"node", "node1"}}),
       .new_node =
           Tainted(MakeNode("node-a", {{"zone", "zone1"}, {"node", "node1"}})),
       .want = kQueue},
      {.name = "create node with non-related labels",
       .pod = ZoneSpread(),
       .new_node = MakeNode("node-a", {{"foo", "bar"}}),
       .want = kSkip},
      {.name = "create node with related labels",
       .pod = ZoneSpread(),
       .new_node = MakeNode("node-a", {{"zone", "zone1"}}),
       .want = kQueue},
      {.name = "delete node with non-related labels",
       .pod = ZoneSpread(),
       .old_node = MakeNode("node-a", {{"foo", "bar"}}),
       .want = kSkip},
      {.name = "delete node with related labels",
       .pod = ZoneSpread(),
       .old_node = MakeNode("node-a", {{"zone", "zone1"}}),
       .want = kQueue},
      {.name = "add node with related labels that only match one of "
               "topologySpreadConstraints",
       .pod = ZoneNodeSpread(),
       .new_node = MakeNode("node-a", {{"zone", "zone1"}}),
       .want = kSkip},
      {.name = "add node with related labels that match all "
               "topologySpreadConstraints",
       .pod = ZoneNodeSpread(),
       .new_node = MakeNode("node-a", {{"zone", "zone1"}, {"node", "node1"}}),
       .want = kQueue},
      {.name = "update node with related labels that only match one of "
               "topologySpreadConstraints",
       .pod = ZoneNodeSpread(),
       .old_node = MakeNode("node-a", {{"zone", "zone1"}}),
       .new_node = MakeNode("node-a", {{"zone", "zone1"}}),
       .want = kSkip},
      {.name = "update node with related labels that match all "
               "topologySpreadConstraints",
       .pod = ZoneNodeSpread(),
       .old_node = MakeNode("node-a", {{"zone", "zone1"}, {"node", "node1"}}),
       .new_node = MakeNode("node-a", {{"zone", "zone1"}, {"node", "node2"}}),
       .want = kQueue},
      {.name = "update node to gain the last topology key",
       .pod = ZoneNodeSpread(),
       .old_node = MakeNode("node-a", {{"zone", "zone1"}}),
       .new_node = MakeNode("node-a", {{"zone", "zone1"}, {"node", "node1"}}),
       .want = kQueue},
  };
}

INSTANTIATE_TEST_SUITE_P(
    Test_isSchedulableAfterNodeChange, NodeHintTest,
    ::testing::ValuesIn(NodeHintCases()),
    [](const ::testing::TestParamInfo<NodeHintCase>& info) {
      return CaseName(info.index, info.param.name);
    });

// ---- Test_isSchedulableAfterPodChange

struct PodHintCase {
  std::string name;
  api::Pod pod;
  std::optional<api::Pod> old_pod;
  std::optional<api::Pod> new_pod;
  QueueingHint want;
};

// ctest lists each case by its name, not by its bytes.
void PrintTo(const PodHintCase& c, std::ostream* os) { *os << c.name; }

class PodHintTest : public ::testing::TestWithParam<PodHintCase> {};

TEST_P(PodHintTest, Hints) {
  const PodHintCase& tc = GetParam();
  testing::FakeHandle handle;
  auto plugin = MakePlugin(handle);
  auto events = plugin->EventsToRegister();
  framework::EventObjects objs;
  if (tc.old_pod) objs.old_pod = &*tc.old_pod;
  if (tc.new_pod) objs.new_pod = &*tc.new_pod;
  EXPECT_EQ(events[0].hint(tc.pod, objs), tc.want);
}

api::Pod FooZoneSpread() {
  return TestPod("p")
      .Label("foo", "")
      .Spread(1, "zone", kDoNotSchedule, kFooSelector)
      .Obj();
}
api::Pod FooZoneBarNodeSpread() {
  return TestPod("p")
      .Label("foo", "")
      .Spread(1, "zone", kDoNotSchedule, kFooSelector)
      .Spread(1, "node", kDoNotSchedule, kBarSelector)
      .Obj();
}
// A bound pod ("fake-node") with the given labels, as st.MakePod() writes
// one: no name, so it is not the rejected pod.
api::Pod Bound(std::vector<std::pair<std::string, std::string>> labels,
               std::string node = "fake-node") {
  TestPod p("");
  p.Uid("other-uid");
  if (!node.empty()) p.Node(node);
  for (auto& [k, v] : labels) p.Label(k, v);
  return p.Obj();
}

std::vector<PodHintCase> PodHintCases() {
  return {
      {.name = "add pod with labels match topologySpreadConstraints selector",
       .pod = FooZoneSpread(),
       .new_pod = Bound({{"foo", ""}}),
       .want = kQueue},
      {.name = "add un-scheduled pod",
       .pod = FooZoneSpread(),
       .new_pod = Bound({{"foo", ""}}, ""),
       .want = kSkip},
      {.name = "update un-scheduled pod",
       .pod = FooZoneSpread(),
       .old_pod = Bound({{"bar", ""}}, ""),
       .new_pod = Bound({{"foo", ""}}, ""),
       .want = kSkip},
      {.name = "delete un-scheduled pod",
       .pod = FooZoneSpread(),
       .old_pod = Bound({{"foo", ""}}, ""),
       .want = kSkip},
      {.name = "add pod with different namespace",
       .pod = FooZoneSpread(),
       .new_pod = TestPod("")
                      .Uid("other-uid")
                      .Node("fake-node")
                      .Namespace("fake-namespace")
                      .Label("foo", "")
                      .Obj(),
       .want = kSkip},
      {.name = "add pod with labels don't match topologySpreadConstraints "
               "selector",
       .pod = FooZoneSpread(),
       .new_pod = Bound({{"bar", ""}}),
       .want = kSkip},
      {.name = "delete pod with labels that match topologySpreadConstraints "
               "selector",
       .pod = FooZoneSpread(),
       .old_pod = Bound({{"foo", ""}}),
       .want = kQueue},
      {.name = "delete pod with labels that don't match "
               "topologySpreadConstraints selector",
       .pod = FooZoneSpread(),
       .old_pod = Bound({{"bar", ""}}),
       .want = kSkip},
      {.name = "update pod's non-related label",
       .pod = FooZoneSpread(),
       .old_pod = Bound({{"foo", ""}, {"bar", "bar1"}}),
       .new_pod = Bound({{"foo", ""}, {"bar", "bar2"}}),
       .want = kSkip},
      {.name = "add pod's label that matches topologySpreadConstraints "
               "selector",
       .pod = FooZoneSpread(),
       .old_pod = Bound({}),
       .new_pod = Bound({{"foo", ""}}),
       .want = kQueue},
      {.name = "delete pod label that matches topologySpreadConstraints "
               "selector",
       .pod = FooZoneSpread(),
       .old_pod = Bound({{"foo", ""}}),
       .new_pod = Bound({}),
       .want = kQueue},
      {.name = "change pod's label that matches topologySpreadConstraints "
               "selector",
       .pod = FooZoneSpread(),
       .old_pod = Bound({{"foo", "foo1"}}),
       .new_pod = Bound({{"foo", "foo2"}}),
       .want = kSkip},
      {.name = "change pod's label that doesn't match "
               "topologySpreadConstraints selector",
       .pod = FooZoneSpread(),
       .old_pod = Bound({{"foo", ""}, {"bar", "bar1"}}),
       .new_pod = Bound({{"foo", ""}, {"bar", "bar2"}}),
       .want = kSkip},
      {.name = "add pod's label that matches topologySpreadConstraints "
               "selector with multi topologySpreadConstraints",
       .pod = FooZoneBarNodeSpread(),
       .old_pod = Bound({{"foo", ""}}),
       .new_pod = Bound({{"foo", ""}, {"bar", "bar2"}}),
       .want = kQueue},
      {.name = "change pod's label that doesn't match "
               "topologySpreadConstraints selector with multi "
               "topologySpreadConstraints",
       .pod = FooZoneBarNodeSpread(),
       .old_pod = Bound({{"foo", ""}}),
       .new_pod = Bound({{"foo", ""}, {"baz", ""}}),
       .want = kSkip},
      {.name = "change pod's label that match topologySpreadConstraints "
               "selector with multi topologySpreadConstraints",
       .pod = FooZoneBarNodeSpread(),
       .old_pod = Bound({{"foo", ""}, {"bar", ""}}),
       .new_pod = Bound({{"foo", ""}, {"bar", "bar2"}}),
       .want = kSkip},
      {.name = "the rejected pod gets a toleration under nodeTaintsPolicy "
               "Honor",
       .pod = TestPod("p")
                  .Spread(1, "zone", kDoNotSchedule, kFooSelector,
                          {.node_taints_policy = kHonor})
                  .Obj(),
       .old_pod = TestPod("p").Obj(),
       .new_pod = TestPod("p").Toleration(kUnschedulableTaint).Obj(),
       .want = kQueue},
      {.name = "the rejected pod gets a toleration under nodeTaintsPolicy "
               "Ignore",
       .pod = FooZoneSpread(),
       .old_pod = TestPod("p").Obj(),
       .new_pod = TestPod("p").Toleration(kUnschedulableTaint).Obj(),
       .want = kSkip},
  };
}

INSTANTIATE_TEST_SUITE_P(Test_isSchedulableAfterPodChange, PodHintTest,
                         ::testing::ValuesIn(PodHintCases()),
                         [](const ::testing::TestParamInfo<PodHintCase>& info) {
                           return CaseName(info.index, info.param.name);
                         });

// ---- concurrency

// A Handle with a real worker pool, so PreFilter and PreScore count nodes
// in parallel.

// 300 nodes in 7 zones with 0..4 matching pods each.
std::vector<framework::NodeInfoPtr> BigCluster() {
  std::vector<api::Node> nodes;
  std::vector<api::Pod> pods;
  for (int i = 0; i < 300; ++i) {
    std::string name = "node-" + std::to_string(i);
    nodes.push_back(MakeNode(
        name, {{kHostname, name}, {kZone, "zone-" + std::to_string(i % 7)}}));
    for (int j = 0; j < (i * 7919) % 5; ++j) {
      pods.push_back(TestPod(name + "-p" + std::to_string(j))
                         .Node(name)
                         .Label("app", "web")
                         .Obj());
    }
  }
  return MakeCluster(nodes, pods);
}

TEST(PodTopologySpreadConcurrency, FilterFromManyThreadsOnOneCycleState) {
  testing::FakeHandle handle(BigCluster(), 4);
  auto plugin = MakePlugin(handle);
  auto pod =
      TestPod("p")
          .Label("app", "web")
          .Spread(1, kZone, kDoNotSchedule, MatchLabels({{"app", "web"}}))
          .Spread(2, kHostname, kDoNotSchedule, MatchLabels({{"app", "web"}}))
          .Info();
  const auto& nodes = handle.snapshot().nodes();
  framework::CycleState state;
  ASSERT_TRUE(plugin->PreFilter(state, *pod, nodes, nullptr).IsSuccess());

  // The sequential answer first.
  std::vector<Code> want;
  for (const auto& n : nodes) {
    want.push_back(plugin->Filter(state, *pod, *n).code());
  }
  ASSERT_NE(std::count(want.begin(), want.end(), Code::kSuccess), 0);
  ASSERT_NE(std::count(want.begin(), want.end(), Code::kUnschedulable), 0);

  constexpr int kThreads = 8;
  std::vector<std::vector<Code>> got(kThreads, std::vector<Code>(nodes.size()));
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int round = 0; round < 20; ++round) {
          // Each thread walks the nodes from a different start.
          for (size_t k = 0; k < nodes.size(); ++k) {
            size_t i = (k + static_cast<size_t>(t) * 37) % nodes.size();
            got[t][i] = plugin->Filter(state, *pod, *nodes[i]).code();
          }
        }
      });
    }
  }
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(got[t], want) << "thread " << t;
}

// The parallel counting agrees with a plain count over the same cluster.
TEST(PodTopologySpreadConcurrency, ParallelPreFilterMatchesSequential) {
  auto nodes = BigCluster();
  testing::FakeHandle pool(nodes, 4);
  testing::FakeHandle single(nodes);
  auto pod =
      TestPod("p")
          .Label("app", "web")
          .Spread(1, kZone, kDoNotSchedule, MatchLabels({{"app", "web"}}))
          .Spread(1, kHostname, kDoNotSchedule, MatchLabels({{"app", "web"}}))
          .Info();
  framework::CycleState a;
  framework::CycleState b;
  auto pa = MakePlugin(pool);
  auto pb = MakePlugin(single);
  ASSERT_TRUE(pa->PreFilter(a, *pod, nodes, nullptr).IsSuccess());
  ASSERT_TRUE(pb->PreFilter(b, *pod, nodes, nullptr).IsSuccess());
  EXPECT_EQ(Describe(*GetPreFilterState(a)), Describe(*GetPreFilterState(b)));
}

}  // namespace
}  // namespace ksched::plugins::podtopologyspread
