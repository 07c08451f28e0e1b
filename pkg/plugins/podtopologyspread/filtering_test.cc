// PreFilter, AddPod/RemovePod and Filter, ported from kube-scheduler's
// filtering_test.go (TestPreFilterState, TestPreFilterStateAddPod,
// TestPreFilterStateRemovePod, TestSingleConstraint, TestMultipleConstraints,
// TestPreFilterDisabled). Cases that switch off NodeInclusionPolicy or
// MatchLabelKeys feature gates are left out: ksched runs v1.32's defaults,
// where both are on.
#include <gtest/gtest.h>

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/plugins/podtopologyspread/testing_util.h"

namespace ksched::plugins::podtopologyspread {
namespace {

using framework::Code;
using namespace testutil;  // NOLINT: test vocabulary

api::Node ZoneNode(const std::string& name, const std::string& zone) {
  return MakeNode(name, {{"zone", zone}, {"node", name}});
}

// Zones zone1 (node-a, node-b) and zone2 (node-x, node-y).
std::vector<api::Node> FourNodes() {
  return {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"),
          ZoneNode("node-x", "zone2"), ZoneNode("node-y", "zone2")};
}

api::Pod Foo(const std::string& name, const std::string& node) {
  return On(name, node, {{"foo", ""}});
}
api::Pod Bar(const std::string& name, const std::string& node) {
  return On(name, node, {{"bar", ""}});
}
api::Pod FooBar(const std::string& name, const std::string& node) {
  return On(name, node, {{"foo", ""}, {"bar", ""}});
}

struct Fixture {
  explicit Fixture(const std::vector<api::Node>& nodes,
                   const std::vector<api::Pod>& pods,
                   const config::PodTopologySpreadArgs& args = ListArgs(),
                   PodTopologySpread::DefaultSelectorFn selector = nullptr)
      : handle(MakeCluster(nodes, pods)),
        plugin(MakePlugin(handle, args, std::move(selector))) {}

  framework::Status PreFilter(const api::Pod& pod) {
    info = framework::PodInfo::Create(std::make_shared<const api::Pod>(pod));
    return plugin->PreFilter(state, *info, handle.snapshot().nodes(), nullptr);
  }
  const framework::NodeInfo& Node(const std::string& name) const {
    return *handle.snapshot().Get(name);
  }

  testing::FakeHandle handle;
  std::unique_ptr<PodTopologySpread> plugin;
  framework::CycleState state;
  framework::PodInfoPtr info;
};

// ---- TestPreFilterState

struct PreFilterCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<api::Pod> existing;
  std::vector<api::TopologySpreadConstraint> defaults;
  FakeWorkloads workloads;
  Code want_code = Code::kSuccess;
  std::vector<WantDomains> want;
};

// ctest lists each case by its name, not by its bytes.
void PrintTo(const PreFilterCase& c, std::ostream* os) { *os << c.name; }

class PreFilterStateTest : public ::testing::TestWithParam<PreFilterCase> {};

TEST_P(PreFilterStateTest, Computes) {
  const PreFilterCase& tc = GetParam();
  Fixture f(tc.nodes, tc.existing, ListArgs(tc.defaults), tc.workloads.Fn());
  framework::Status s = f.PreFilter(tc.pod);
  ASSERT_EQ(s.code(), tc.want_code) << s.Message();
  if (!s.IsSuccess()) return;
  const PreFilterState* got = GetPreFilterState(f.state);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(Describe(*got), Describe(tc.want));
}

std::vector<PreFilterCase> PreFilterCases() {
  return {
      {.name = "clean cluster with one spreadConstraint",
       .pod =
           TestPod("p")
               .Label("foo", "")
               .Spread(5, "zone", kDoNotSchedule, MatchLabels({{"foo", "bar"}}))
               .Obj(),
       .nodes = FourNodes(),
       .want = {{.max_skew = 5,
                 .key = "zone",
                 .selector = MatchLabels({{"foo", "bar"}}),
                 .match_num = {{"zone1", 0}, {"zone2", 0}},
                 .path0 = {"zone1", 0},
                 .path1 = {"zone2", 0}}}},
      {.name = "normal case with one spreadConstraint",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
                    Foo("p-y2", "node-y")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 3}, {"zone2", 2}},
                 .path0 = {"zone2", 2},
                 .path1 = {"zone1", 3}}}},
      {.name = "normal case with null label selector",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, std::nullopt)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
                    Foo("p-y2", "node-y")},
       .want = {{.key = "zone",
                 .selector = std::nullopt,
                 .match_num = {{"zone1", 0}, {"zone2", 0}},
                 .path0 = {"zone2", 0},
                 .path1 = {"zone1", 0}}}},
      {.name = "normal case with one spreadConstraint, on a 3-zone cluster",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"),
                 ZoneNode("node-x", "zone2"), ZoneNode("node-y", "zone2"),
                 ZoneNode("node-o", "zone3"), ZoneNode("node-p", "zone3")},
       .existing = {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
                    Foo("p-y2", "node-y")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 3}, {"zone2", 2}, {"zone3", 0}},
                 .path0 = {"zone3", 0},
                 .path1 = {"zone2", 2}}}},
      {.name = "namespace mismatch doesn't count",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {Foo("p-a1", "node-a"),
                    TestPod("p-a2")
                        .Namespace("ns1")
                        .Node("node-a")
                        .Label("foo", "")
                        .Obj(),
                    Foo("p-b1", "node-b"),
                    TestPod("p-y1")
                        .Namespace("ns2")
                        .Node("node-y")
                        .Label("foo", "")
                        .Obj(),
                    Foo("p-y2", "node-y")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 2}, {"zone2", 1}},
                 .path0 = {"zone2", 1},
                 .path1 = {"zone1", 2}}}},
      {.name = "normal case with two spreadConstraints",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Spread(1, "node", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
                    Foo("p-y2", "node-y"), Foo("p-y3", "node-y"),
                    Foo("p-y4", "node-y")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 3}, {"zone2", 4}},
                 .path0 = {"zone1", 3},
                 .path1 = {"zone2", 4}},
                {.key = "node",
                 .selector = kFoo,
                 .match_num = {{"node-a", 2},
                               {"node-b", 1},
                               {"node-x", 0},
                               {"node-y", 4}},
                 .path0 = {"node-x", 0},
                 .path1 = {"node-b", 1}}}},
      {.name = "soft spreadConstraints should be bypassed",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kScheduleAnyway, kFoo)
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Spread(1, "node", kScheduleAnyway, kFoo)
                  .Spread(1, "node", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"),
                 ZoneNode("node-y", "zone2")},
       .existing = {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
                    Foo("p-y2", "node-y"), Foo("p-y3", "node-y"),
                    Foo("p-y4", "node-y")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 3}, {"zone2", 4}},
                 .path0 = {"zone1", 3},
                 .path1 = {"zone2", 4}},
                {.key = "node",
                 .selector = kFoo,
                 .match_num = {{"node-a", 2}, {"node-b", 1}, {"node-y", 4}},
                 .path0 = {"node-b", 1},
                 .path1 = {"node-a", 2}}}},
      {.name = "different labelSelectors - simple version",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Spread(1, "node", kDoNotSchedule, kBar)
                  .Obj(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"),
                 ZoneNode("node-y", "zone2")},
       .existing = {Foo("p-a", "node-a"), Bar("p-b", "node-b")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 1}, {"zone2", 0}},
                 .path0 = {"zone2", 0},
                 .path1 = {"zone1", 1}},
                {.key = "node",
                 .selector = kBar,
                 .match_num = {{"node-a", 0}, {"node-b", 1}, {"node-y", 0}},
                 .path0 = {"node-a", 0},
                 .path1 = {"node-y", 0}}}},
      {.name = "different labelSelectors - complex pods",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Spread(1, "node", kDoNotSchedule, kBar)
                  .Obj(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"),
                 ZoneNode("node-y", "zone2")},
       .existing = {Foo("p-a1", "node-a"), FooBar("p-a2", "node-a"),
                    Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
                    FooBar("p-y2", "node-y"), Foo("p-y3", "node-y"),
                    FooBar("p-y4", "node-y")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 3}, {"zone2", 4}},
                 .path0 = {"zone1", 3},
                 .path1 = {"zone2", 4}},
                {.key = "node",
                 .selector = kBar,
                 .match_num = {{"node-a", 1}, {"node-b", 0}, {"node-y", 2}},
                 .path0 = {"node-b", 0},
                 .path1 = {"node-a", 1}}}},
      {.name = "two spreadConstraints, and with podAffinity",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeAffinityNotIn("node", {"node-x"})
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Spread(1, "node", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
                    Foo("p-y2", "node-y"), Foo("p-y3", "node-y"),
                    Foo("p-y4", "node-y")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 3}, {"zone2", 4}},
                 .path0 = {"zone1", 3},
                 .path1 = {"zone2", 4}},
                {.key = "node",
                 .selector = kFoo,
                 .match_num = {{"node-a", 2}, {"node-b", 1}, {"node-y", 4}},
                 .path0 = {"node-b", 1},
                 .path1 = {"node-a", 2}}}},
      {.name = "default constraints and a service",
       .pod = TestPod("p").Label("foo", "bar").Label("baz", "kar").Obj(),
       .defaults = {DefaultConstraint(3, "node", kDoNotSchedule),
                    DefaultConstraint(2, "node", kScheduleAnyway),
                    DefaultConstraint(5, "rack", kDoNotSchedule)},
       .workloads = {.services = {{{"foo", "bar"}}}},
       .want = {{.max_skew = 3,
                 .key = "node",
                 .selector = MatchLabels({{"foo", "bar"}})},
                {.max_skew = 5,
                 .key = "rack",
                 .selector = MatchLabels({{"foo", "bar"}})}}},
      {.name = "default constraints and a service that doesn't match",
       .pod = TestPod("p").Label("foo", "bar").Obj(),
       .defaults = {DefaultConstraint(3, "node", kDoNotSchedule)},
       .workloads = {.services = {{{"baz", "kep"}}}},
       .want_code = Code::kSkip},
      {.name = "default constraints and a service, but pod has constraints",
       .pod =
           TestPod("p")
               .Label("foo", "bar")
               .Label("baz", "tar")
               .Spread(1, "zone", kDoNotSchedule, MatchLabels({{"baz", "tar"}}))
               .Spread(2, "planet", kScheduleAnyway,
                       MatchLabels({{"fot", "rok"}}))
               .Obj(),
       .defaults = {DefaultConstraint(2, "node", kDoNotSchedule)},
       .workloads = {.services = {{{"foo", "bar"}}}},
       .want = {{.key = "zone", .selector = MatchLabels({{"baz", "tar"}})}}},
      {.name = "default soft constraints and a service",
       .pod = TestPod("p").Label("foo", "bar").Obj(),
       .defaults = {DefaultConstraint(2, "node", kScheduleAnyway)},
       .workloads = {.services = {{{"foo", "bar"}}}},
       .want_code = Code::kSkip},
      {.name = "TpKeyToDomainsNum is calculated when MinDomains is enabled",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo, {.min_domains = 3})
                  .Spread(1, "node", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
                    Foo("p-y2", "node-y"), Foo("p-y3", "node-y"),
                    Foo("p-y4", "node-y")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 3}, {"zone2", 4}},
                 .path0 = {"zone1", 3},
                 .path1 = {"zone2", 4},
                 .min_domains = 3},
                {.key = "node",
                 .selector = kFoo,
                 .match_num = {{"node-a", 2},
                               {"node-b", 1},
                               {"node-x", 0},
                               {"node-y", 4}},
                 .path0 = {"node-x", 0},
                 .path1 = {"node-b", 1}}}},
      {.name = "NodeAffinityPolicy honored with labelSelectors",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeSelector("foo", "")
                  .Spread(1, "node", kDoNotSchedule, kBar)
                  .Obj(),
       .nodes = {MakeNode("node-a", {{"node", "node-a"}, {"foo", ""}}),
                 MakeNode("node-b", {{"node", "node-b"}, {"foo", ""}}),
                 MakeNode("node-c", {{"node", "node-c"}, {"bar", ""}})},
       .existing = {Bar("p-a", "node-a"), Bar("p-b", "node-b"),
                    Bar("p-c", "node-b"), On("p-d", "node-c", {})},
       .want = {{.key = "node",
                 .selector = kBar,
                 .match_num = {{"node-a", 1}, {"node-b", 2}},
                 .path0 = {"node-a", 1},
                 .path1 = {"node-b", 2}}}},
      {.name = "NodeAffinityPolicy ignored with labelSelectors",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeSelector("foo", "")
                  .Spread(1, "node", kDoNotSchedule, kBar,
                          {.node_affinity_policy = kIgnore})
                  .Obj(),
       .nodes = {MakeNode("node-a", {{"node", "node-a"}, {"foo", ""}}),
                 MakeNode("node-b", {{"node", "node-b"}, {"foo", ""}}),
                 MakeNode("node-c", {{"node", "node-c"}, {"bar", ""}})},
       .existing = {Bar("p-a", "node-a"), Bar("p-b", "node-b"),
                    Bar("p-c", "node-b"), On("p-d", "node-c", {})},
       .want = {{.key = "node",
                 .selector = kBar,
                 .match_num = {{"node-a", 1}, {"node-b", 2}, {"node-c", 0}},
                 .path0 = {"node-c", 0},
                 .path1 = {"node-a", 1},
                 .affinity = kIgnore}}},
      {.name = "NodeAffinityPolicy honored with nodeAffinity",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeAffinityIn("foo", {""})
                  .Spread(1, "node", kDoNotSchedule, kBar)
                  .Obj(),
       .nodes = {MakeNode("node-a", {{"node", "node-a"}, {"foo", ""}}),
                 MakeNode("node-b", {{"node", "node-b"}, {"foo", ""}}),
                 MakeNode("node-c", {{"node", "node-c"}, {"bar", ""}})},
       .existing = {Bar("p-a", "node-a"), Bar("p-c", "node-b"),
                    Bar("p-d", "node-b"), On("p-e", "node-c", {})},
       .want = {{.key = "node",
                 .selector = kBar,
                 .match_num = {{"node-a", 1}, {"node-b", 2}},
                 .path0 = {"node-a", 1},
                 .path1 = {"node-b", 2}}}},
      {.name = "NodeAffinityPolicy ignored with nodeAffinity",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeAffinityIn("foo", {""})
                  .Spread(1, "node", kDoNotSchedule, kBar,
                          {.node_affinity_policy = kIgnore})
                  .Obj(),
       .nodes = {MakeNode("node-a", {{"node", "node-a"}, {"foo", ""}}),
                 MakeNode("node-b", {{"node", "node-b"}, {"foo", ""}}),
                 MakeNode("node-c", {{"node", "node-c"}, {"bar", ""}})},
       .existing = {Bar("p-a", "node-a"), Bar("p-b", "node-b"),
                    Bar("p-c", "node-b"), On("p-d", "node-c", {})},
       .want = {{.key = "node",
                 .selector = kBar,
                 .match_num = {{"node-a", 1}, {"node-b", 2}, {"node-c", 0}},
                 .path0 = {"node-c", 0},
                 .path1 = {"node-a", 1},
                 .affinity = kIgnore}}},
      {.name = "NodeTaintsPolicy ignored",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "node", kDoNotSchedule, kBar)
                  .Obj(),
       .nodes = {MakeNode("node-a", {{"node", "node-a"}}),
                 MakeNode("node-b", {{"node", "node-b"}}),
                 Tainted(
                     MakeNode("node-c", {{"node", "node-c"}, {"bar", ""}}))},
       .existing = {Bar("p-a", "node-a"), Bar("p-b", "node-b"),
                    Bar("p-c", "node-b"), On("p-d", "node-c", {})},
       .want = {{.key = "node",
                 .selector = kBar,
                 .match_num = {{"node-a", 1}, {"node-b", 2}, {"node-c", 0}},
                 .path0 = {"node-c", 0},
                 .path1 = {"node-a", 1}}}},
      {.name = "NodeTaintsPolicy honored",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "node", kDoNotSchedule, kBar,
                          {.node_taints_policy = kHonor})
                  .Obj(),
       .nodes = {MakeNode("node-a", {{"node", "node-a"}}),
                 MakeNode("node-b", {{"node", "node-b"}}),
                 Tainted(
                     MakeNode("node-c", {{"node", "node-c"}, {"bar", ""}}))},
       .existing = {Bar("p-a", "node-a"), Bar("p-b", "node-b"),
                    Bar("p-c", "node-b"), On("p-d", "node-c", {})},
       .want = {{.key = "node",
                 .selector = kBar,
                 .match_num = {{"node-a", 1}, {"node-b", 2}},
                 .path0 = {"node-a", 1},
                 .path1 = {"node-b", 2},
                 .taints = kHonor}}},
      {.name = "NodeTaintsPolicy honored with tolerated taints",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Toleration(kUnschedulableTaint)
                  .Spread(1, "node", kDoNotSchedule, kBar,
                          {.node_taints_policy = kHonor})
                  .Obj(),
       .nodes = {MakeNode("node-a", {{"node", "node-a"}}),
                 MakeNode("node-b", {{"node", "node-b"}}),
                 Tainted(
                     MakeNode("node-c", {{"node", "node-c"}, {"bar", ""}}))},
       .existing = {Bar("p-a", "node-a"), Bar("p-b", "node-b"),
                    Bar("p-c", "node-b"), On("p-d", "node-c", {})},
       .want = {{.key = "node",
                 .selector = kBar,
                 .match_num = {{"node-a", 1}, {"node-b", 2}, {"node-c", 0}},
                 .path0 = {"node-c", 0},
                 .path1 = {"node-a", 1},
                 .taints = kHonor}}},
      {.name = "two node inclusion Constraints, zone: honor/ignore, node: "
               "ignore/ignore",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeSelector("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Spread(1, "node", kDoNotSchedule, kFoo,
                          {.node_affinity_policy = kIgnore})
                  .Obj(),
       .nodes = {MakeNode("node-a",
                          {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}),
                 MakeNode("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
                 MakeNode(
                     "node-x",
                     {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}})},
       .existing = {Foo("p-b1", "node-b"), Foo("p-b2", "node-b"),
                    Foo("p-x1", "node-x")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 0}, {"zone2", 1}},
                 .path0 = {"zone1", 0},
                 .path1 = {"zone2", 1}},
                {.key = "node",
                 .selector = kFoo,
                 .match_num = {{"node-a", 0}, {"node-b", 2}, {"node-x", 1}},
                 .path0 = {"node-a", 0},
                 .path1 = {"node-x", 1},
                 .affinity = kIgnore}}},
      {.name = "two node inclusion Constraints, zone: honor/honor, node: "
               "honor/ignore",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo,
                          {.node_taints_policy = kHonor})
                  .Spread(1, "node", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = {MakeNode("node-a",
                          {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}),
                 Tainted(MakeNode("node-b",
                                  {{"zone", "zone1"}, {"node", "node-b"}})),
                 MakeNode(
                     "node-x",
                     {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}})},
       .existing = {Foo("p-b1", "node-b"), Foo("p-b2", "node-b"),
                    Foo("p-x1", "node-x")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 0}, {"zone2", 1}},
                 .path0 = {"zone1", 0},
                 .path1 = {"zone2", 1},
                 .taints = kHonor},
                {.key = "node",
                 .selector = kFoo,
                 .match_num = {{"node-a", 0}, {"node-b", 2}, {"node-x", 1}},
                 .path0 = {"node-a", 0},
                 .path1 = {"node-x", 1}}}},
      {.name = "two node inclusion Constraints, zone: honor/ignore, node: "
               "honor/ignore",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeSelector("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Spread(1, "node", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = {MakeNode("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                 Tainted(MakeNode(
                     "node-b",
                     {{"zone", "zone1"}, {"node", "node-b"}, {"foo", ""}})),
                 MakeNode("node-x",
                          {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}),
                 MakeNode("node-y", {{"zone", "zone2"}, {"node", "node-y"}})},
       .existing = {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    Foo("p-x1", "node-x"), Foo("p-y1", "node-y")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 0}, {"zone2", 1}},
                 .path0 = {"zone1", 0},
                 .path1 = {"zone2", 1}},
                {.key = "node",
                 .selector = kFoo,
                 .match_num = {{"node-b", 0}, {"node-x", 1}},
                 .path0 = {"node-b", 0},
                 .path1 = {"node-x", 1}}}},
      {.name = "two node inclusion Constraints, zone: ignore/ignore, node: "
               "honor/honor",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeSelector("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo,
                          {.node_affinity_policy = kIgnore})
                  .Spread(1, "node", kDoNotSchedule, kFoo,
                          {.node_taints_policy = kHonor})
                  .Obj(),
       .nodes = {MakeNode("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                 Tainted(MakeNode(
                     "node-b",
                     {{"zone", "zone1"}, {"node", "node-b"}, {"foo", ""}})),
                 MakeNode("node-x",
                          {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}),
                 MakeNode(
                     "node-y",
                     {{"zone", "zone2"}, {"node", "node-y"}, {"foo", ""}})},
       .existing = {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    Foo("p-x1", "node-x"), Foo("p-x2", "node-x"),
                    Foo("p-y1", "node-y")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 2}, {"zone2", 3}},
                 .path0 = {"zone1", 2},
                 .path1 = {"zone2", 3},
                 .affinity = kIgnore},
                {.key = "node",
                 .selector = kFoo,
                 .match_num = {{"node-x", 2}, {"node-y", 1}},
                 .path0 = {"node-y", 1},
                 .path1 = {"node-x", 2},
                 .taints = kHonor}}},
      {.name = "matchLabelKeys ANDed with LabelSelector when LabelSelector "
               "isn't empty",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Label("bar", "a")
                  .Spread(1, "zone", kDoNotSchedule, kFoo,
                          {.match_label_keys = {"bar"}})
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {Foo("p-a1", "node-a"),
                    On("p-a2", "node-a", {{"foo", ""}, {"bar", "a"}}),
                    Foo("p-b1", "node-b"),
                    On("p-y1", "node-y", {{"foo", ""}, {"bar", "a"}}),
                    Bar("p-y2", "node-y")},
       .want = {{.key = "zone",
                 .selector =
                     [] {
                       api::LabelSelector s = Exists("foo");
                       s.match_labels.Set("bar", "a");
                       return s;
                     }(),
                 .match_num = {{"zone1", 1}, {"zone2", 1}},
                 .path0 = {"zone2", 1},
                 .path1 = {"zone1", 1}}}},
      {.name = "matchLabelKeys ANDed with LabelSelector when LabelSelector is "
               "empty",
       .pod = TestPod("p")
                  .Label("foo", "a")
                  .Spread(1, "zone", kDoNotSchedule, api::LabelSelector{},
                          {.match_label_keys = {"foo"}})
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {On("p-a1", "node-a", {{"foo", "a"}}),
                    On("p-a2", "node-a", {{"foo", "a"}}),
                    On("p-b1", "node-b", {{"foo", "a"}}),
                    On("p-y1", "node-y", {{"foo", "a"}}),
                    On("p-y2", "node-y", {{"foo", "a"}})},
       .want = {{.key = "zone",
                 .selector = MatchLabels({{"foo", "a"}}),
                 .match_num = {{"zone1", 3}, {"zone2", 2}},
                 .path0 = {"zone2", 2},
                 .path1 = {"zone1", 3}}}},
      {.name = "key in matchLabelKeys is ignored when LabelSelector is nil "
               "when feature gate enabled",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, std::nullopt,
                          {.match_label_keys = {"bar"}})
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {On("p-a1", "node-a", {{"foo", "a"}}),
                    On("p-a2", "node-a", {{"foo", "a"}}),
                    On("p-b1", "node-b", {{"foo", "a"}}),
                    On("p-y1", "node-y", {{"foo", "a"}}),
                    On("p-y2", "node-y", {{"foo", "a"}})},
       .want = {{.key = "zone",
                 .selector = std::nullopt,
                 .match_num = {{"zone1", 0}, {"zone2", 0}},
                 .path0 = {"zone2", 0},
                 .path1 = {"zone1", 0}}}},
      {.name = "key in matchLabelKeys is ignored when it isn't exist in "
               "pod.labels",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo,
                          {.match_label_keys = {"bar"}})
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {On("p-a1", "node-a", {{"foo", "a"}}),
                    On("p-a2", "node-a", {{"foo", "a"}}),
                    On("p-b1", "node-b", {{"foo", "a"}}),
                    On("p-y1", "node-y", {{"foo", "a"}}),
                    On("p-y2", "node-y", {{"foo", "a"}})},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 3}, {"zone2", 2}},
                 .path0 = {"zone2", 2},
                 .path1 = {"zone1", 3}}}},
      // kube v1.32's mergeLabelSetWithSelector on a nil selector: the
      // nothing selector adds no requirements, so the keys alone select.
      {.name = "matchLabelKeys with a nil LabelSelector selects by the keys",
       .pod = TestPod("p")
                  .Label("foo", "a")
                  .Spread(1, "zone", kDoNotSchedule, std::nullopt,
                          {.match_label_keys = {"foo"}})
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {On("p-a1", "node-a", {{"foo", "a"}}),
                    On("p-a2", "node-a", {{"foo", "b"}}),
                    On("p-y1", "node-y", {{"foo", "a"}})},
       .want = {{.key = "zone",
                 .selector = MatchLabels({{"foo", "a"}}),
                 .match_num = {{"zone1", 1}, {"zone2", 1}},
                 .path0 = {"zone1", 1},
                 .path1 = {"zone2", 1}}}},
      {.name = "two spreadConstraints with the same topologyKey",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Spread(1, "zone", kDoNotSchedule, kBar)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {FooBar("p-a1", "node-a"), Foo("p-b1", "node-b"),
                    Bar("p-x1", "node-x"), FooBar("p-y1", "node-y"),
                    Bar("p-y2", "node-y")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .match_num = {{"zone1", 2}, {"zone2", 1}},
                 .path0 = {"zone2", 1},
                 .path1 = {"zone1", 2}},
                {.key = "zone",
                 .selector = kBar,
                 .match_num = {{"zone1", 1}, {"zone2", 3}},
                 .path0 = {"zone1", 1},
                 .path1 = {"zone2", 3}}}},
      {.name = "skip if not specified",
       .pod = TestPod("p").Label("foo", "").Obj(),
       .nodes = {ZoneNode("node-a", "zone1")},
       .want_code = Code::kSkip},
  };
}

INSTANTIATE_TEST_SUITE_P(
    TestPreFilterState, PreFilterStateTest,
    ::testing::ValuesIn(PreFilterCases()),
    [](const ::testing::TestParamInfo<PreFilterCase>& info) {
      return CaseName(info.index, info.param.name);
    });

// ---- TestPreFilterStateAddPod / TestPreFilterStateRemovePod

struct UpdateCase {
  std::string name;
  api::Pod preemptor;
  std::vector<api::Node> nodes;
  std::vector<api::Pod> existing;
  api::Pod changed;  // the pod added or removed
  size_t node_idx = 0;
  std::vector<WantDomains> want;
};

void RunUpdate(const UpdateCase& tc, bool add) {
  Fixture f(tc.nodes, tc.existing);
  ASSERT_TRUE(f.PreFilter(tc.preemptor).IsSuccess());
  const framework::NodeInfo& node = f.Node(tc.nodes[tc.node_idx].metadata.name);
  auto changed =
      framework::PodInfo::Create(std::make_shared<const api::Pod>(tc.changed));
  framework::Status s =
      add ? f.plugin->AddPod(f.state, *f.info, changed, node)
          : f.plugin->RemovePod(f.state, *f.info, changed, node);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(Describe(*GetPreFilterState(f.state)), Describe(tc.want));
}

// ctest lists each case by its name, not by its bytes.
void PrintTo(const UpdateCase& c, std::ostream* os) { *os << c.name; }

class AddPodTest : public ::testing::TestWithParam<UpdateCase> {};
TEST_P(AddPodTest, UpdatesState) { RunUpdate(GetParam(), /*add=*/true); }

class RemovePodTest : public ::testing::TestWithParam<UpdateCase> {};
TEST_P(RemovePodTest, UpdatesState) { RunUpdate(GetParam(), /*add=*/false); }

WantDomains NodeDomains(std::map<std::string, int64_t> m, Path p0, Path p1) {
  return {.key = "node",
          .selector = kFoo,
          .match_num = std::move(m),
          .path0 = std::move(p0),
          .path1 = std::move(p1)};
}
WantDomains ZoneDomains(std::map<std::string, int64_t> m, Path p0, Path p1) {
  WantDomains w = NodeDomains(std::move(m), std::move(p0), std::move(p1));
  w.key = "zone";
  return w;
}

api::Pod OneNodeSpread() {
  return TestPod("p")
      .Label("foo", "")
      .Spread(1, "node", kDoNotSchedule, kFoo)
      .Obj();
}
api::Pod OneZoneSpread() {
  return TestPod("p")
      .Label("foo", "")
      .Spread(1, "zone", kDoNotSchedule, kFoo)
      .Obj();
}
api::Pod ZoneAndNodeSpread() {
  return TestPod("p")
      .Label("foo", "")
      .Spread(1, "zone", kDoNotSchedule, kFoo)
      .Spread(1, "node", kDoNotSchedule, kFoo)
      .Obj();
}
api::Pod ZoneFooNodeBarSpread() {
  return TestPod("p")
      .Label("foo", "")
      .Label("bar", "")
      .Spread(1, "zone", kDoNotSchedule, kFoo)
      .Spread(1, "node", kDoNotSchedule, kBar)
      .Obj();
}
std::vector<api::Node> AffinityNodes() {
  return {
      MakeNode("node-a",
               {{"zone", "zone1"}, {"node", "node-a"}, {"foo", "bar"}}),
      MakeNode("node-b", {{"zone", "zone2"}, {"node", "node-b"}, {"foo", ""}})};
}
api::Pod FooZone(const std::string& name, const std::string& node,
                 const std::string& zone) {
  return On(name, node, {{"foo", ""}, {"zone", zone}});
}

std::vector<UpdateCase> AddPodCases() {
  WantDomains bar_nodes = {.key = "node", .selector = kBar};
  return {
      {.name = "node a and b both impact current min match",
       .preemptor = OneNodeSpread(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1")},
       .changed = Foo("p-a1", "node-a"),
       .node_idx = 0,
       .want = {NodeDomains({{"node-a", 1}, {"node-b", 0}}, {"node-b", 0},
                            {"node-a", 1})}},
      {.name = "only node a impacts current min match",
       .preemptor = OneNodeSpread(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1")},
       .existing = {Foo("p-b1", "node-b")},
       .changed = Foo("p-a1", "node-a"),
       .node_idx = 0,
       .want = {NodeDomains({{"node-a", 1}, {"node-b", 1}}, {"node-a", 1},
                            {"node-b", 1})}},
      {.name = "add a pod in a different namespace doesn't change "
               "topologyKeyToMinPodsMap",
       .preemptor = OneNodeSpread(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1")},
       .existing = {Foo("p-b1", "node-b")},
       .changed = TestPod("p-a1")
                      .Namespace("ns1")
                      .Node("node-a")
                      .Label("foo", "")
                      .Obj(),
       .node_idx = 0,
       .want = {NodeDomains({{"node-a", 0}, {"node-b", 1}}, {"node-a", 0},
                            {"node-b", 1})}},
      {.name = "add pod on non-critical node won't trigger re-calculation",
       .preemptor = OneNodeSpread(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1")},
       .existing = {Foo("p-b1", "node-b")},
       .changed = Foo("p-b2", "node-b"),
       .node_idx = 1,
       .want = {NodeDomains({{"node-a", 0}, {"node-b", 2}}, {"node-a", 0},
                            {"node-b", 2})}},
      {.name = "node a and x both impact topologyKeyToMinPodsMap on zone and "
               "node",
       .preemptor = ZoneAndNodeSpread(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-x", "zone2")},
       .changed = Foo("p-a1", "node-a"),
       .node_idx = 0,
       .want = {ZoneDomains({{"zone1", 1}, {"zone2", 0}}, {"zone2", 0},
                            {"zone1", 1}),
                NodeDomains({{"node-a", 1}, {"node-x", 0}}, {"node-x", 0},
                            {"node-a", 1})}},
      {.name = "only node a impacts topologyKeyToMinPodsMap on zone and node",
       .preemptor = ZoneAndNodeSpread(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-x", "zone2")},
       .existing = {Foo("p-x1", "node-x")},
       .changed = Foo("p-a1", "node-a"),
       .node_idx = 0,
       .want = {ZoneDomains({{"zone1", 1}, {"zone2", 1}}, {"zone1", 1},
                            {"zone2", 1}),
                NodeDomains({{"node-a", 1}, {"node-x", 1}}, {"node-a", 1},
                            {"node-x", 1})}},
      {.name = "node a impacts topologyKeyToMinPodsMap on node, node x "
               "impacts topologyKeyToMinPodsMap on zone",
       .preemptor = ZoneAndNodeSpread(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"),
                 ZoneNode("node-x", "zone2")},
       .existing = {Foo("p-b1", "node-b"), Foo("p-b2", "node-b"),
                    Foo("p-x1", "node-x")},
       .changed = Foo("p-a1", "node-a"),
       .node_idx = 0,
       .want = {ZoneDomains({{"zone1", 3}, {"zone2", 1}}, {"zone2", 1},
                            {"zone1", 3}),
                NodeDomains({{"node-a", 1}, {"node-b", 2}, {"node-x", 1}},
                            {"node-a", 1}, {"node-x", 1})}},
      {.name = "Constraints hold different labelSelectors, node a impacts "
               "topologyKeyToMinPodsMap on zone",
       .preemptor = ZoneFooNodeBarSpread(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"),
                 ZoneNode("node-x", "zone2")},
       .existing = {FooBar("p-b1", "node-b"), FooBar("p-x1", "node-x"),
                    Bar("p-x2", "node-x")},
       .changed = Foo("p-a1", "node-a"),
       .node_idx = 0,
       .want = {ZoneDomains({{"zone1", 2}, {"zone2", 1}}, {"zone2", 1},
                            {"zone1", 2}),
                [&] {
                  WantDomains w = bar_nodes;
                  w.match_num = {{"node-a", 0}, {"node-b", 1}, {"node-x", 2}};
                  w.path0 = {"node-a", 0};
                  w.path1 = {"node-b", 1};
                  return w;
                }()}},
      {.name = "Constraints hold different labelSelectors, node a impacts "
               "topologyKeyToMinPodsMap on both zone and node",
       .preemptor = ZoneFooNodeBarSpread(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"),
                 ZoneNode("node-x", "zone2")},
       .existing = {Bar("p-b1", "node-b"), FooBar("p-x1", "node-x"),
                    Bar("p-x2", "node-x")},
       .changed = FooBar("p-a1", "node-a"),
       .node_idx = 0,
       .want = {ZoneDomains({{"zone1", 1}, {"zone2", 1}}, {"zone1", 1},
                            {"zone2", 1}),
                [&] {
                  WantDomains w = bar_nodes;
                  w.match_num = {{"node-a", 1}, {"node-b", 1}, {"node-x", 2}};
                  w.path0 = {"node-a", 1};
                  w.path1 = {"node-b", 1};
                  return w;
                }()}},
      {.name = "add a pod when scheduling node affinity unmatched pod with "
               "NodeInclusionPolicy enabled",
       .preemptor = TestPod("p")
                        .Label("foo", "")
                        .NodeAffinityNotIn("foo", {"bar"})
                        .Spread(1, "zone", kDoNotSchedule, kFoo)
                        .Obj(),
       .nodes = AffinityNodes(),
       .existing = {FooZone("p-a2", "node-a", "zone1"),
                    FooZone("p-b1", "node-b", "zone2")},
       .changed = FooZone("p-a1", "node-a", "zone1"),
       .node_idx = 0,
       .want = {ZoneDomains({{"zone2", 1}}, {"zone2", 1}, {"", kUnset})}},
      {.name = "add a pod when scheduling node affinity matched pod with "
               "NodeInclusionPolicy enabled",
       .preemptor = OneZoneSpread(),
       .nodes = AffinityNodes(),
       .existing = {FooZone("p-a1", "node-a", "zone1"),
                    FooZone("p-b2", "node-b", "zone2")},
       .changed = FooZone("p-b1", "node-b", "zone2"),
       .node_idx = 1,
       .want = {ZoneDomains({{"zone1", 1}, {"zone2", 2}}, {"zone1", 1},
                            {"zone2", 2})}},
      {.name = "add a label selector not matched pod when with "
               "NodeInclusionPolicy enabled",
       .preemptor = OneZoneSpread(),
       .nodes = AffinityNodes(),
       .existing = {FooZone("p-a1", "node-a", "zone1"),
                    FooZone("p-b2", "node-b", "zone2")},
       .changed = On("p-b1", "node-b", {{"zone", "zone2"}}),
       .node_idx = 1,
       .want = {ZoneDomains({{"zone1", 1}, {"zone2", 1}}, {"zone1", 1},
                            {"zone2", 1})}},
      {.name = "add a pod when scheduling taint untolerated pod",
       .preemptor = OneZoneSpread(),
       .nodes = {Tainted(ZoneNode("node-a", "zone1")),
                 ZoneNode("node-b", "zone2")},
       .existing = {FooZone("p-a1", "node-a", "zone1"),
                    FooZone("p-b2", "node-b", "zone2")},
       .changed = FooZone("p-b1", "node-b", "zone2"),
       .node_idx = 1,
       .want = {ZoneDomains({{"zone1", 1}, {"zone2", 2}}, {"zone1", 1},
                            {"zone2", 2})}},
      {.name = "add a pod when scheduling taint tolerated pod with "
               "NodeInclusionPolicy enabled",
       .preemptor = TestPod("p")
                        .Label("foo", "")
                        .Toleration(kUnschedulableTaint)
                        .Spread(1, "zone", kDoNotSchedule, kFoo)
                        .Obj(),
       .nodes = {Tainted(ZoneNode("node-a", "zone1")),
                 ZoneNode("node-b", "zone2")},
       .existing = {FooZone("p-a1", "node-a", "zone1"),
                    FooZone("p-b2", "node-b", "zone2")},
       .changed = FooZone("p-b1", "node-b", "zone2"),
       .node_idx = 1,
       .want = {ZoneDomains({{"zone1", 1}, {"zone2", 2}}, {"zone1", 1},
                            {"zone2", 2})}},
  };
}

INSTANTIATE_TEST_SUITE_P(TestPreFilterStateAddPod, AddPodTest,
                         ::testing::ValuesIn(AddPodCases()),
                         [](const ::testing::TestParamInfo<UpdateCase>& info) {
                           return CaseName(info.index, info.param.name);
                         });

std::vector<UpdateCase> RemovePodCases() {
  return {
      {.name = "one spreadConstraint on zone, topologyKeyToMinPodsMap "
               "unchanged",
       .preemptor = OneZoneSpread(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"),
                 ZoneNode("node-x", "zone2")},
       .existing = {Foo("p-a1", "node-a"), Foo("p-b1", "node-b"),
                    Foo("p-x1", "node-x")},
       .changed = Foo("p-a1", "node-a"),
       .node_idx = 0,
       .want = {ZoneDomains({{"zone1", 1}, {"zone2", 1}}, {"zone1", 1},
                            {"zone2", 1})}},
      {.name = "one spreadConstraint on node, topologyKeyToMinPodsMap changed",
       .preemptor = OneZoneSpread(),
       .nodes = FourNodes(),
       .existing = {Foo("p-a1", "node-a"), Foo("p-b1", "node-b"),
                    Foo("p-x1", "node-x"), Foo("p-y1", "node-y")},
       .changed = Foo("p-a1", "node-a"),
       .node_idx = 0,
       .want = {ZoneDomains({{"zone1", 1}, {"zone2", 2}}, {"zone1", 1},
                            {"zone2", 2})}},
      {.name = "delete an irrelevant pod won't help",
       .preemptor = OneZoneSpread(),
       .nodes = FourNodes(),
       .existing = {Bar("p-a0", "node-a"), Foo("p-a1", "node-a"),
                    Foo("p-b1", "node-b"), Foo("p-x1", "node-x"),
                    Foo("p-y1", "node-y")},
       .changed = Bar("p-a0", "node-a"),
       .node_idx = 0,
       .want = {ZoneDomains({{"zone1", 2}, {"zone2", 2}}, {"zone1", 2},
                            {"zone2", 2})}},
      {.name = "delete a non-existing pod won't help",
       .preemptor = OneZoneSpread(),
       .nodes = FourNodes(),
       .existing = {Foo("p-a1", "node-a"), Foo("p-b1", "node-b"),
                    Foo("p-x1", "node-x"), Foo("p-y1", "node-y")},
       .changed = Bar("p-a0", "node-a"),
       .node_idx = 0,
       .want = {ZoneDomains({{"zone1", 2}, {"zone2", 2}}, {"zone1", 2},
                            {"zone2", 2})}},
      {.name = "two spreadConstraints",
       .preemptor = ZoneAndNodeSpread(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"),
                 ZoneNode("node-x", "zone2")},
       .existing = {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    Foo("p-b1", "node-b"), Foo("p-x1", "node-x"),
                    Foo("p-x2", "node-x")},
       .changed = Foo("p-x1", "node-x"),
       .node_idx = 2,
       .want = {ZoneDomains({{"zone1", 3}, {"zone2", 1}}, {"zone2", 1},
                            {"zone1", 3}),
                NodeDomains({{"node-a", 2}, {"node-b", 1}, {"node-x", 1}},
                            {"node-b", 1}, {"node-x", 1})}},
      {.name = "remove a pod when scheduling node affinity unmatched pod with "
               "NodeInclusionPolicy enabled",
       .preemptor = TestPod("p")
                        .Label("foo", "")
                        .NodeAffinityNotIn("foo", {"bar"})
                        .Spread(1, "zone", kDoNotSchedule, kFoo)
                        .Obj(),
       .nodes = AffinityNodes(),
       .existing = {FooZone("p-a2", "node-a", "zone1"),
                    FooZone("p-b1", "node-b", "zone2")},
       .changed = FooZone("p-a1", "node-a", "zone1"),
       .node_idx = 0,
       .want = {ZoneDomains({{"zone2", 1}}, {"zone2", 1}, {"", kUnset})}},
      {.name = "remove a pod when scheduling node affinity matched pod with "
               "NodeInclusionPolicy enabled",
       .preemptor = OneZoneSpread(),
       .nodes = AffinityNodes(),
       .existing = {FooZone("p-a1", "node-a", "zone1"),
                    FooZone("p-b2", "node-b", "zone2")},
       .changed = FooZone("p-b1", "node-b", "zone2"),
       .node_idx = 1,
       .want = {ZoneDomains({{"zone1", 1}, {"zone2", 0}}, {"zone2", 0},
                            {"zone1", 1})}},
  };
}

INSTANTIATE_TEST_SUITE_P(TestPreFilterStateRemovePod, RemovePodTest,
                         ::testing::ValuesIn(RemovePodCases()),
                         [](const ::testing::TestParamInfo<UpdateCase>& info) {
                           return CaseName(info.index, info.param.name);
                         });

// ---- TestSingleConstraint / TestMultipleConstraints

constexpr Code kOk = Code::kSuccess;
constexpr Code kUnsched = Code::kUnschedulable;
constexpr Code kUnresolvable = Code::kUnschedulableAndUnresolvable;

struct FilterCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<api::Pod> existing;
  std::map<std::string, Code> want;
};

// The exact status kube returns for each code.
framework::Status WantStatus(Code code) {
  switch (code) {
    case Code::kUnschedulable:
      return framework::Status::Unschedulable(
          std::string(kPodTopologySpreadErrReasonConstraintsNotMatch));
    case Code::kUnschedulableAndUnresolvable:
      return framework::Status::Unresolvable(
          std::string(kPodTopologySpreadErrReasonNodeLabelNotMatch));
    default:
      return framework::Status(code);
  }
}

void RunFilter(const FilterCase& tc) {
  Fixture f(tc.nodes, tc.existing);
  framework::Status pre = f.PreFilter(tc.pod);
  ASSERT_TRUE(pre.IsSuccess()) << pre.Message();
  for (const api::Node& node : tc.nodes) {
    const std::string& name = node.metadata.name;
    framework::Status got = f.plugin->Filter(f.state, *f.info, f.Node(name));
    framework::Status want = WantStatus(tc.want.at(name));
    EXPECT_EQ(got.code(), want.code()) << name;
    EXPECT_EQ(got.reasons(), want.reasons()) << name;
  }
}

// ctest lists each case by its name, not by its bytes.
void PrintTo(const FilterCase& c, std::ostream* os) { *os << c.name; }

class SingleConstraintTest : public ::testing::TestWithParam<FilterCase> {};
TEST_P(SingleConstraintTest, Filters) { RunFilter(GetParam()); }

class MultipleConstraintsTest : public ::testing::TestWithParam<FilterCase> {};
TEST_P(MultipleConstraintsTest, Filters) { RunFilter(GetParam()); }

std::vector<api::Pod> Spread2103() {  // node-a 2, node-b 1, node-x 0, node-y 3
  return {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"),
          Foo("p-y1", "node-y"), Foo("p-y2", "node-y"), Foo("p-y3", "node-y")};
}

std::vector<api::Node> NodeLabelled(bool taint_y = false) {
  api::Node y = MakeNode("node-y", {{"node", "node-y"}});
  return {MakeNode("node-a", {{"node", "node-a"}, {"foo", ""}}),
          MakeNode("node-b", {{"node", "node-b"}, {"foo", ""}}),
          MakeNode("node-x", {{"node", "node-x"}, {"foo", ""}}),
          taint_y ? Tainted(y) : y};
}

std::vector<api::Pod> Spread1101() {
  return {Foo("p-b1", "node-a"), Foo("p-b2", "node-b"), Foo("p-y1", "node-y")};
}

std::vector<FilterCase> SingleConstraintCases() {
  const std::map<std::string, Code> all_ok = {
      {"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}};
  return {
      {.name = "no existing pods",
       .pod = OneZoneSpread(),
       .nodes = FourNodes(),
       .want = all_ok},
      {.name = "no existing pods, incoming pod doesn't match itself",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kBar)
                  .Obj(),
       .nodes = FourNodes(),
       .want = all_ok},
      {.name = "existing pods in a different namespace do not count",
       .pod = OneZoneSpread(),
       .nodes = FourNodes(),
       .existing = {TestPod("p-a1")
                        .Namespace("ns1")
                        .Node("node-a")
                        .Label("foo", "")
                        .Obj(),
                    TestPod("p-b1")
                        .Namespace("ns2")
                        .Node("node-a")
                        .Label("foo", "")
                        .Obj(),
                    Foo("p-x1", "node-x"), Foo("p-y1", "node-y")},
       .want = {{"node-a", kOk},
                {"node-b", kOk},
                {"node-x", kUnsched},
                {"node-y", kUnsched}}},
      {.name = "existing pods do not match null selector",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, std::nullopt)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {Foo("p-x1", "node-x"), Foo("p-y1", "node-y")},
       .want = all_ok},
      {.name = "pods spread across zones as 3/3, all nodes fit",
       .pod = OneZoneSpread(),
       .nodes = FourNodes(),
       .existing = Spread2103(),
       .want = all_ok},
      {.name = "pods spread across zones as 1/2 due to absence of label "
               "'zone' on node-b",
       .pod = OneZoneSpread(),
       .nodes = {ZoneNode("node-a", "zone1"),
                 MakeNode("node-b", {{"zon", "zone1"}, {"node", "node-b"}}),
                 ZoneNode("node-x", "zone2"), ZoneNode("node-y", "zone2")},
       .existing = {Foo("p-a1", "node-a"), Foo("p-b1", "node-b"),
                    Foo("p-x1", "node-x"), Foo("p-y1", "node-y")},
       .want = {{"node-a", kOk},
                {"node-b", kUnresolvable},
                {"node-x", kUnsched},
                {"node-y", kUnsched}}},
      {.name = "pod cannot be scheduled as all nodes don't have label 'rack'",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "rack", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-x", "zone2")},
       .want = {{"node-a", kUnresolvable}, {"node-x", kUnresolvable}}},
      {.name = "pods spread across nodes as 2/1/0/3, only node-x fits",
       .pod = OneNodeSpread(),
       .nodes = FourNodes(),
       .existing = Spread2103(),
       .want = {{"node-a", kUnsched},
                {"node-b", kUnsched},
                {"node-x", kOk},
                {"node-y", kUnsched}}},
      {.name = "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and "
               "node-x fit",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(2, "node", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = Spread2103(),
       .want = {{"node-a", kUnsched},
                {"node-b", kOk},
                {"node-x", kOk},
                {"node-y", kUnsched}}},
      {.name = "pods spread across nodes as 2/1/0/3, but pod doesn't match "
               "itself",
       .pod = TestPod("p")
                  .Label("bar", "")
                  .Spread(1, "node", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = Spread2103(),
       .want = {{"node-a", kUnsched},
                {"node-b", kOk},
                {"node-x", kOk},
                {"node-y", kUnsched}}},
      {.name = "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, "
               "hence node-a fits",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeAffinityIn("node", {"node-a", "node-y"})
                  .Spread(1, "node", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = Spread2103(),
       // node-b and node-x fail NodeAffinity, which this test does not run.
       .want = {{"node-a", kOk},
                {"node-b", kOk},
                {"node-x", kOk},
                {"node-y", kUnsched}}},
      {.name = "terminating Pods should be excluded",
       .pod = OneNodeSpread(),
       .nodes = {MakeNode("node-a", {{"node", "node-a"}}),
                 MakeNode("node-b", {{"node", "node-b"}})},
       .existing =
           {TestPod("p-a").Node("node-a").Label("foo", "").Terminating().Obj(),
            Foo("p-b", "node-b")},
       .want = {{"node-a", kOk}, {"node-b", kUnsched}}},
      {.name = "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, "
               "hence node-a fits",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeAffinityNotIn("node", {"node-b"})
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {Foo("p-b1", "node-b"), Foo("p-b2", "node-b"),
                    Foo("p-y1", "node-y")},
       .want = {{"node-a", kOk},
                {"node-b", kOk},
                {"node-x", kUnsched},
                {"node-y", kUnsched}}},
      {.name = "pods spread across nodes as 2/2/1, maxSkew is 2, and the "
               "number of domains < minDomains, then the third node fits",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(2, "node", kDoNotSchedule, kFoo, {.min_domains = 4})
                  .Obj(),
       .nodes = {MakeNode("node-a", {{"node", "node-a"}}),
                 MakeNode("node-b", {{"node", "node-b"}}),
                 MakeNode("node-c", {{"node", "node-c"}})},
       .existing = {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    Foo("p-b1", "node-b"), Foo("p-b2", "node-b"),
                    Foo("p-c1", "node-c")},
       .want = {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-c", kOk}}},
      {.name = "pods spread across nodes as 2/2/1, maxSkew is 2, and the "
               "number of domains > minDomains, then the all nodes fit",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(2, "node", kDoNotSchedule, kFoo, {.min_domains = 2})
                  .Obj(),
       .nodes = {MakeNode("node-a", {{"node", "node-a"}}),
                 MakeNode("node-b", {{"node", "node-b"}}),
                 MakeNode("node-c", {{"node", "node-c"}})},
       .existing = {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    Foo("p-b1", "node-b"), Foo("p-b2", "node-b"),
                    Foo("p-c1", "node-c")},
       .want = {{"node-a", kOk}, {"node-b", kOk}, {"node-c", kOk}}},
      {.name = "pods spread across zone as 2/1, maxSkew is 2 and the number "
               "of domains < minDomains, then the third and fourth nodes fit",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(2, "zone", kDoNotSchedule, kFoo, {.min_domains = 3})
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {Foo("p-b1", "node-a"), Foo("p-b2", "node-b"),
                    Foo("p-y1", "node-y")},
       .want = {{"node-a", kUnsched},
                {"node-b", kUnsched},
                {"node-x", kOk},
                {"node-y", kOk}}},
      {.name = "pods spread across zone as 2/1, maxSkew is 2 and the number "
               "of domains > minDomains, then the all nodes fit",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(2, "zone", kDoNotSchedule, kFoo, {.min_domains = 1})
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {Foo("p-b1", "node-a"), Foo("p-b2", "node-b"),
                    Foo("p-y1", "node-y")},
       .want = all_ok},
      {.name = "NodeAffinityPolicy honored with labelSelectors",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeSelector("foo", "")
                  .Spread(1, "node", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = NodeLabelled(),
       .existing = Spread1101(),
       // node-y fails NodeAffinity, which this test does not run.
       .want = {{"node-a", kUnsched},
                {"node-b", kUnsched},
                {"node-x", kOk},
                {"node-y", kOk}}},
      {.name = "NodeAffinityPolicy ignored with labelSelectors",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeSelector("foo", "")
                  .Spread(1, "node", kDoNotSchedule, kFoo,
                          {.node_affinity_policy = kIgnore})
                  .Obj(),
       .nodes = NodeLabelled(),
       .existing = Spread1101(),
       .want = {{"node-a", kUnsched},
                {"node-b", kUnsched},
                {"node-x", kOk},
                {"node-y", kUnsched}}},
      {.name = "NodeAffinityPolicy honored with nodeAffinity",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeAffinityIn("foo", {""})
                  .Spread(1, "node", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = NodeLabelled(),
       .existing = Spread1101(),
       .want = {{"node-a", kUnsched},
                {"node-b", kUnsched},
                {"node-x", kOk},
                {"node-y", kOk}}},
      {.name = "NodeAffinityPolicy ignored with nodeAffinity",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeAffinityIn("foo", {""})
                  .Spread(1, "node", kDoNotSchedule, kFoo,
                          {.node_affinity_policy = kIgnore})
                  .Obj(),
       .nodes = NodeLabelled(),
       .existing = Spread1101(),
       .want = {{"node-a", kUnsched},
                {"node-b", kUnsched},
                {"node-x", kOk},
                {"node-y", kUnsched}}},
      {.name = "NodeTaintsPolicy honored",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "node", kDoNotSchedule, kFoo,
                          {.node_taints_policy = kHonor})
                  .Obj(),
       .nodes = NodeLabelled(/*taint_y=*/true),
       .existing = Spread1101(),
       // node-y fails TaintToleration, which this test does not run.
       .want = {{"node-a", kUnsched},
                {"node-b", kUnsched},
                {"node-x", kOk},
                {"node-y", kOk}}},
      {.name = "NodeTaintsPolicy ignored",
       .pod = OneNodeSpread(),
       .nodes = NodeLabelled(/*taint_y=*/true),
       .existing = Spread1101(),
       .want = {{"node-a", kUnsched},
                {"node-b", kUnsched},
                {"node-x", kOk},
                {"node-y", kUnsched}}},
  };
}

INSTANTIATE_TEST_SUITE_P(TestSingleConstraint, SingleConstraintTest,
                         ::testing::ValuesIn(SingleConstraintCases()),
                         [](const ::testing::TestParamInfo<FilterCase>& info) {
                           return CaseName(info.index, info.param.name);
                         });

std::vector<api::Node> InclusionNodes(bool foo_on_b, bool taint_y,
                                      bool foo_on_y) {
  std::vector<std::pair<std::string, std::string>> b = {{"zone", "zone1"},
                                                        {"node", "node-b"}};
  if (foo_on_b) b.emplace_back("foo", "");
  std::vector<std::pair<std::string, std::string>> y = {{"zone", "zone2"},
                                                        {"node", "node-y"}};
  if (foo_on_y) y.emplace_back("foo", "");
  api::Node node_y = MakeNode("node-y", y);
  return {
      MakeNode("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}),
      MakeNode("node-b", b),
      MakeNode("node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}),
      taint_y ? Tainted(node_y) : node_y};
}

std::vector<FilterCase> MultipleConstraintsCases() {
  const std::map<std::string, Code> only_x = {{"node-a", kUnsched},
                                              {"node-b", kUnsched},
                                              {"node-x", kOk},
                                              {"node-y", kUnsched}};
  const std::map<std::string, Code> none = {{"node-a", kUnsched},
                                            {"node-b", kUnsched},
                                            {"node-x", kUnsched},
                                            {"node-y", kUnsched}};
  const std::vector<api::Pod> inclusion_pods = {
      Foo("p-a1", "node-a"), Foo("p-b1", "node-b"), Foo("p-y1", "node-y")};
  return {
      {.name = "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
       .pod = ZoneAndNodeSpread(),
       .nodes = FourNodes(),
       .existing = Spread2103(),
       .want = only_x},
      {.name = "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
       .pod = ZoneAndNodeSpread(),
       .nodes = FourNodes(),
       .existing = {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
                    Foo("p-y2", "node-y"), Foo("p-y3", "node-y"),
                    Foo("p-y4", "node-y")},
       .want = none},
      {.name = "Constraints hold different labelSelectors, spreads = [1/0, "
               "1/0/0/1]",
       .pod = ZoneFooNodeBarSpread(),
       .nodes = FourNodes(),
       .existing = {Foo("p-a1", "node-a"), Bar("p-y1", "node-y")},
       .want = only_x},
      {.name = "Constraints hold different labelSelectors, spreads = [1/0, "
               "0/0/1/1]",
       .pod = ZoneFooNodeBarSpread(),
       .nodes = FourNodes(),
       .existing = {Foo("p-a1", "node-a"), Bar("p-x1", "node-x"),
                    Bar("p-y1", "node-y")},
       .want = none},
      {.name = "Constraints hold different labelSelectors, spreads = [2/3, "
               "1/0/0/1]",
       .pod = ZoneFooNodeBarSpread(),
       .nodes = FourNodes(),
       .existing = {Foo("p-a1", "node-a"), FooBar("p-a2", "node-a"),
                    Foo("p-y1", "node-y"), FooBar("p-y2", "node-y"),
                    Foo("p-y3", "node-y")},
       .want = {{"node-a", kUnsched},
                {"node-b", kOk},
                {"node-x", kUnsched},
                {"node-y", kUnsched}}},
      {.name = "Constraints hold different labelSelectors but pod doesn't "
               "match itself on 'zone' constraint",
       .pod = TestPod("p")
                  .Label("bar", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Spread(1, "node", kDoNotSchedule, kBar)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {Foo("p-a1", "node-a"), Bar("p-x1", "node-x"),
                    Bar("p-y1", "node-y")},
       .want = {{"node-a", kOk},
                {"node-b", kOk},
                {"node-x", kUnsched},
                {"node-y", kUnsched}}},
      {.name = "two Constraints on zone and node, absence of label 'node' on "
               "node-x, spreads = [1/1, 1/0/0/1]",
       .pod = ZoneAndNodeSpread(),
       .nodes = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"),
                 MakeNode("node-x", {{"zone", "zone2"}}),
                 ZoneNode("node-y", "zone2")},
       .existing = {Foo("p-a1", "node-a"), Foo("p-y3", "node-y")},
       .want = {{"node-a", kUnsched},
                {"node-b", kOk},
                {"node-x", kUnresolvable},
                {"node-y", kUnsched}}},
      {.name = "two node inclusion Constraints, zone: honor/ignore, node: "
               "ignore/ignore",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeSelector("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Spread(1, "node", kDoNotSchedule, kFoo,
                          {.node_affinity_policy = kIgnore})
                  .Obj(),
       .nodes = InclusionNodes(/*foo_on_b=*/true, /*taint_y=*/false,
                               /*foo_on_y=*/false),
       .existing = inclusion_pods,
       .want = only_x},
      {.name = "two node inclusion Constraints, zone: honor/honor, node: "
               "honor/ignore",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo,
                          {.node_taints_policy = kHonor})
                  .Spread(1, "node", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = InclusionNodes(/*foo_on_b=*/true, /*taint_y=*/true,
                               /*foo_on_y=*/false),
       .existing = inclusion_pods,
       .want = only_x},
      {.name = "two node inclusion Constraints, zone: honor/ignore, node: "
               "honor/ignore",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeSelector("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Spread(1, "node", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = InclusionNodes(/*foo_on_b=*/false, /*taint_y=*/true,
                               /*foo_on_y=*/true),
       .existing = inclusion_pods,
       .want = {{"node-a", kUnsched},
                {"node-b", kOk},
                {"node-x", kOk},
                {"node-y", kUnsched}}},
      {.name = "two node inclusion Constraints, zone: honor/honor, node: "
               "ignore/ignore",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeSelector("foo", "")
                  .Spread(1, "zone", kDoNotSchedule, kFoo,
                          {.node_taints_policy = kHonor})
                  .Spread(1, "node", kDoNotSchedule, kFoo,
                          {.node_affinity_policy = kIgnore})
                  .Obj(),
       .nodes = InclusionNodes(/*foo_on_b=*/false, /*taint_y=*/true,
                               /*foo_on_y=*/true),
       .existing = inclusion_pods,
       .want = only_x},
      {.name = "two Constraints on zone, spreads = [3/3, 2/1]",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .Spread(1, "zone", kDoNotSchedule, kBar)
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {FooBar("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    FooBar("p-b1", "node-b"), Foo("p-y1", "node-y"),
                    FooBar("p-y2", "node-y"), Foo("p-y3", "node-y")},
       .want = {{"node-a", kUnsched},
                {"node-b", kUnsched},
                {"node-x", kOk},
                {"node-y", kOk}}},
      {.name = "two Constraints on zone, spreads = [3/4, 2/1]",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .Spread(1, "zone", kDoNotSchedule, kBar)
                  .Spread(1, "zone", kDoNotSchedule, kFoo)
                  .Obj(),
       .nodes = FourNodes(),
       .existing = {FooBar("p-a1", "node-a"), Foo("p-a2", "node-a"),
                    FooBar("p-b1", "node-b"), Foo("p-y1", "node-y"),
                    FooBar("p-y2", "node-y"), Foo("p-y3", "node-y"),
                    Foo("p-y4", "node-y")},
       .want = none},
  };
}

INSTANTIATE_TEST_SUITE_P(TestMultipleConstraints, MultipleConstraintsTest,
                         ::testing::ValuesIn(MultipleConstraintsCases()),
                         [](const ::testing::TestParamInfo<FilterCase>& info) {
                           return CaseName(info.index, info.param.name);
                         });

// TestPreFilterDisabled: Filter without PreFilter's state is an error.
TEST(PodTopologySpreadFilter, PreFilterDisabled) {
  testing::FakeHandle handle;
  auto plugin = MakePlugin(handle);
  framework::CycleState state;
  auto pod = TestPod("p").Info();
  auto node = testing::MakeNodeInfo(MakeNode("node-a"));
  framework::Status s = plugin->Filter(state, *pod, *node);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "reading \"PreFilterPodTopologySpread\" from cycleState: not "
            "found");
}

// A clone for preemption is deep: removing a pod from it leaves the
// original counts alone, and adding a domain copies the shared table.
TEST(PodTopologySpreadFilter, CloneIsIndependent) {
  Fixture f(FourNodes(), Spread2103());
  ASSERT_TRUE(f.PreFilter(OneNodeSpread()).IsSuccess());
  const std::string before = Describe(*GetPreFilterState(f.state));
  std::unique_ptr<framework::CycleState> copy = f.state.Clone();
  auto removed = framework::PodInfo::Create(
      std::make_shared<const api::Pod>(Foo("p-a1", "node-a")));
  ASSERT_TRUE(f.plugin->RemovePod(*copy, *f.info, removed, f.Node("node-a"))
                  .IsSuccess());
  // A node PreFilter never saw: its domain is new to the copy only.
  auto extra = testing::MakeNodeInfo(ZoneNode("node-z", "zone3"));
  ASSERT_TRUE(f.plugin->AddPod(*copy, *f.info, removed, *extra).IsSuccess());
  EXPECT_EQ(Describe(*GetPreFilterState(f.state)), before);
  EXPECT_EQ(Describe(*GetPreFilterState(*copy)),
            Describe(std::vector<WantDomains>{NodeDomains({{"node-a", 1},
                                                           {"node-b", 1},
                                                           {"node-x", 0},
                                                           {"node-y", 3},
                                                           {"node-z", 1}},
                                                          {"node-x", 0},
                                                          {"node-b", 1})}));
}

}  // namespace
}  // namespace ksched::plugins::podtopologyspread
