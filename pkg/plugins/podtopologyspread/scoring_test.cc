// PreScore, Score and NormalizeScore, ported from kube-scheduler's
// scoring_test.go (TestPreScoreSkip, TestPreScoreStateEmptyNodes,
// TestPodTopologySpreadScore). Cases that switch off the NodeInclusionPolicy
// or MatchLabelKeys feature gates are left out (both on in v1.32).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/plugins/podtopologyspread/testing_util.h"

namespace ksched::plugins::podtopologyspread {
namespace {

using framework::Code;
using namespace testutil;  // NOLINT: test vocabulary

api::Node HostNode(const std::string& name,
                   std::vector<std::pair<std::string, std::string>> more = {}) {
  more.emplace_back(kHostname, name);
  return MakeNode(name, std::move(more));
}

api::Node ZoneHostNode(const std::string& name, const std::string& zone) {
  return HostNode(name, {{"zone", zone}});
}

config::PodTopologySpreadArgs SystemArgs() {
  config::PodTopologySpreadArgs args;
  args.defaulting_type = config::PodTopologySpreadDefaulting::kSystem;
  return args;
}

// ---- TestPreScoreStateEmptyNodes

struct WantScoring {
  int32_t max_skew = 1;
  std::string key;
  std::optional<api::LabelSelector> selector;
  std::map<std::string, int64_t> pod_counts;  // empty for hostname
  size_t weight_size = 0;  // topologyNormalizingWeight(weight_size)
  api::NodeInclusionPolicy affinity = kHonor;
  api::NodeInclusionPolicy taints = kIgnore;
};

std::string Weight(double w) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9f", w);
  return buf;
}

std::string Describe(const std::vector<WantScoring>& want,
                     const std::vector<std::string>& ignored) {
  std::string out = "ignored={";
  for (const std::string& n : ignored) out += n + " ";
  out += "}\n";
  for (const WantScoring& w : want) {
    out += DescribeConstraint(w.max_skew, w.key, DescribeSelector(w.selector),
                              1, w.affinity, w.taints) +
           " podCounts=" + DescribeCounts(w.pod_counts) + " weight=" +
           Weight(std::log(static_cast<double>(w.weight_size + 2))) + "\n";
  }
  return out;
}

std::string Describe(const PreScoreState& s) {
  const PreScoreState::Data& d = s.data();
  std::string out = "ignored={";
  for (const std::string& n : d.ignored_nodes) out += n + " ";
  out += "}\n";
  for (size_t i = 0; i < d.constraints.size(); ++i) {
    std::map<std::string, int64_t> counts;
    for (int32_t id = 0; id < d.domains[i].size(); ++id) {
      counts[std::string(d.domains[i].value(id))] = d.pod_counts[i][id];
    }
    out += DescribeConstraint(d.constraints[i]) +
           " podCounts=" + DescribeCounts(counts) +
           " weight=" + Weight(d.weights[i]) + "\n";
  }
  return out;
}

struct PreScoreCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  config::PodTopologySpreadArgs args = ListArgs();
  FakeWorkloads workloads;
  std::vector<WantScoring> want;
  std::vector<std::string> want_ignored;
};

// ctest lists each case by its name, not by its bytes.
void PrintTo(const PreScoreCase& c, std::ostream* os) { *os << c.name; }

class PreScoreStateTest : public ::testing::TestWithParam<PreScoreCase> {};

TEST_P(PreScoreStateTest, Computes) {
  const PreScoreCase& tc = GetParam();
  testing::FakeHandle handle(MakeCluster(tc.nodes, {}));
  auto plugin = MakePlugin(handle, tc.args, tc.workloads.Fn());
  ASSERT_NE(plugin, nullptr);
  framework::CycleState state;
  auto pod =
      framework::PodInfo::Create(std::make_shared<const api::Pod>(tc.pod));
  framework::Status s =
      plugin->PreScore(state, *pod, handle.snapshot().nodes());
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  const PreScoreState* got = GetPreScoreState(state);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(Describe(*got), Describe(tc.want, tc.want_ignored));
}

std::vector<api::Node> ThreeZoneHostNodes() {
  return {ZoneHostNode("node-a", "zone1"), ZoneHostNode("node-b", "zone1"),
          ZoneHostNode("node-x", "zone2")};
}

// Nodes of the NodeAffinityPolicy / NodeTaintsPolicy PreScore cases.
std::vector<api::Node> PolicyNodes(bool taint_x) {
  api::Node x = ZoneHostNode("node-x", "zone2");
  return {HostNode("node-a", {{"zone", "zone1"}, {"foo", ""}}),
          HostNode("node-b", {{"zone", "zone1"}, {"foo", ""}}),
          taint_x ? Tainted(x) : x};
}

std::vector<PreScoreCase> PreScoreCases() {
  const std::map<std::string, int64_t> two_zones = {{"zone1", 0}, {"zone2", 0}};
  return {
      {.name = "normal case",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kScheduleAnyway, kFoo)
                  .Spread(1, kHostname, kScheduleAnyway, kFoo)
                  .Obj(),
       .nodes = ThreeZoneHostNodes(),
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .pod_counts = two_zones,
                 .weight_size = 2},
                {.key = kHostname, .selector = kFoo, .weight_size = 3}}},
      {.name = "null selector",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kScheduleAnyway, std::nullopt)
                  .Obj(),
       .nodes = ThreeZoneHostNodes(),
       .want = {{.key = "zone",
                 .selector = std::nullopt,
                 .pod_counts = two_zones,
                 .weight_size = 2}}},
      {.name = "node-x doesn't have label zone",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kScheduleAnyway, kFoo)
                  .Spread(1, kHostname, kScheduleAnyway, kBar)
                  .Obj(),
       .nodes = {ZoneHostNode("node-a", "zone1"),
                 ZoneHostNode("node-b", "zone1"), HostNode("node-x")},
       .want = {{.key = "zone",
                 .selector = kFoo,
                 .pod_counts = {{"zone1", 0}},
                 .weight_size = 1},
                {.key = kHostname, .selector = kBar, .weight_size = 2}},
       .want_ignored = {"node-x"}},
      {.name = "system default constraints and a replicaset",
       .pod = OwnedByReplicaSet(
           TestPod("p").Label("foo", "tar").Label("baz", "sup").Obj(), "rs1"),
       .nodes = {HostNode("node-a", {{kZone, "mars"}}),
                 HostNode("node-b", {{kZone, "mars"}}),
                 // Nodes with no zone are not excluded: a zone of their own.
                 HostNode("node-c"), HostNode("node-d")},
       .args = SystemArgs(),
       .workloads = {.replica_sets = {{"rs1", kFoo}}},
       .want = {{.max_skew = 3,
                 .key = kHostname,
                 .selector = kFoo,
                 .weight_size = 4},
                {.max_skew = 5,
                 .key = kZone,
                 .selector = kFoo,
                 .pod_counts = {{"mars", 0}, {"", 0}},
                 .weight_size = 2}}},
      {.name = "default constraints and a replicaset",
       .pod = OwnedByReplicaSet(
           TestPod("p").Label("foo", "tar").Label("baz", "sup").Obj(), "rs1"),
       .nodes = {HostNode("node-a", {{"rack", "rack1"}, {"planet", "mars"}})},
       .args = ListArgs({DefaultConstraint(1, kHostname, kScheduleAnyway),
                         DefaultConstraint(2, "rack", kDoNotSchedule),
                         DefaultConstraint(2, "planet", kScheduleAnyway)}),
       .workloads = {.replica_sets = {{"rs1", kFoo}}},
       .want = {{.key = kHostname, .selector = kFoo, .weight_size = 1},
                {.max_skew = 2,
                 .key = "planet",
                 .selector = kFoo,
                 .pod_counts = {{"mars", 0}},
                 .weight_size = 1}}},
      {.name = "default constraints and a replicaset, but pod has constraints",
       .pod = OwnedByReplicaSet(TestPod("p")
                                    .Label("foo", "bar")
                                    .Label("baz", "sup")
                                    .Spread(1, "zone", kDoNotSchedule, kBar)
                                    .Spread(2, "planet", kScheduleAnyway,
                                            MatchLabels({{"baz", "sup"}}))
                                    .Obj(),
                                "rs1"),
       .nodes = {MakeNode("node-a",
                          {{"planet", "mars"}, {"galaxy", "andromeda"}})},
       .args = ListArgs({DefaultConstraint(2, "galaxy", kScheduleAnyway)}),
       .workloads = {.replica_sets = {{"rs1", kFoo}}},
       .want = {{.max_skew = 2,
                 .key = "planet",
                 .selector = MatchLabels({{"baz", "sup"}}),
                 .pod_counts = {{"mars", 0}},
                 .weight_size = 1}}},
      {.name = "NodeAffinityPolicy honored with labelSelectors",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeSelector("foo", "")
                  .Spread(1, "zone", kScheduleAnyway, kBar)
                  .Obj(),
       .nodes = PolicyNodes(false),
       .want = {{.key = "zone",
                 .selector = kBar,
                 .pod_counts = two_zones,
                 .weight_size = 2}}},
      {.name = "NodeAffinityPolicy ignored with labelSelectors",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeSelector("foo", "")
                  .Spread(1, "zone", kScheduleAnyway, kBar,
                          {.node_affinity_policy = kIgnore})
                  .Obj(),
       .nodes = PolicyNodes(false),
       .want = {{.key = "zone",
                 .selector = kBar,
                 .pod_counts = two_zones,
                 .weight_size = 2,
                 .affinity = kIgnore}}},
      {.name = "NodeAffinityPolicy honored with nodeAffinity",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeAffinityIn("foo", {""})
                  .Spread(1, "zone", kScheduleAnyway, kBar)
                  .Obj(),
       .nodes = PolicyNodes(false),
       .want = {{.key = "zone",
                 .selector = kBar,
                 .pod_counts = two_zones,
                 .weight_size = 2}}},
      {.name = "NodeAffinityPolicy ignored with nodeAffinity",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeAffinityIn("foo", {""})
                  .Spread(1, "zone", kScheduleAnyway, kBar,
                          {.node_affinity_policy = kIgnore})
                  .Obj(),
       .nodes = PolicyNodes(false),
       .want = {{.key = "zone",
                 .selector = kBar,
                 .pod_counts = two_zones,
                 .weight_size = 2,
                 .affinity = kIgnore}}},
      {.name = "NodeTaintsPolicy honored",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kScheduleAnyway, kBar,
                          {.node_taints_policy = kHonor})
                  .Obj(),
       .nodes = PolicyNodes(true),
       .want = {{.key = "zone",
                 .selector = kBar,
                 .pod_counts = two_zones,
                 .weight_size = 2,
                 .taints = kHonor}}},
      {.name = "NodeTaintsPolicy ignored",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kScheduleAnyway, kBar)
                  .Obj(),
       .nodes = PolicyNodes(true),
       .want = {{.key = "zone",
                 .selector = kBar,
                 .pod_counts = two_zones,
                 .weight_size = 2}}},
  };
}

INSTANTIATE_TEST_SUITE_P(
    TestPreScoreStateEmptyNodes, PreScoreStateTest,
    ::testing::ValuesIn(PreScoreCases()),
    [](const ::testing::TestParamInfo<PreScoreCase>& info) {
      return CaseName(info.index, info.param.name);
    });

// ---- TestPreScoreSkip

TEST(PodTopologySpreadPreScore, SkipsWithoutSoftConstraints) {
  testing::FakeHandle handle(
      MakeCluster({HostNode("node-a"), HostNode("node-b")}, {}));
  auto plugin = MakePlugin(handle);
  framework::CycleState state;
  auto pod = TestPod("p").Info();
  EXPECT_TRUE(
      plugin->PreScore(state, *pod, handle.snapshot().nodes()).IsSkip());
}

TEST(PodTopologySpreadPreScore, SkipsWhenNoReplicaSetMatches) {
  testing::FakeHandle handle(
      MakeCluster({MakeNode("node-a", {{"planet", "mars"}})}, {}));
  FakeWorkloads workloads{.replica_sets = {{"rs1", Exists("tar")}}};
  auto plugin = MakePlugin(
      handle, ListArgs({DefaultConstraint(2, "planet", kScheduleAnyway)}),
      workloads.Fn());
  framework::CycleState state;
  auto pod = framework::PodInfo::Create(
      std::make_shared<const api::Pod>(OwnedByReplicaSet(
          TestPod("p").Label("foo", "bar").Label("baz", "sup").Obj(), "rs2")));
  EXPECT_TRUE(
      plugin->PreScore(state, *pod, handle.snapshot().nodes()).IsSkip());
}

// ksched has no workload listers: the factory's plugin never applies the
// system defaults, as kube does when no workload selects the pod.
TEST(PodTopologySpreadPreScore, SystemDefaultsNeedAWorkload) {
  testing::FakeHandle handle(MakeCluster({ZoneHostNode("node-a", "z")}, {}));
  config::PodTopologySpreadArgs args = SystemArgs();
  auto plugin = NewPodTopologySpread(&args, handle);
  ASSERT_TRUE(plugin.ok());
  auto* pts = dynamic_cast<PodTopologySpread*>(plugin->get());
  framework::CycleState state;
  auto pod = TestPod("p").Label("app", "web").Info();
  EXPECT_TRUE(pts->PreScore(state, *pod, handle.snapshot().nodes()).IsSkip());
  EXPECT_TRUE(
      pts->PreFilter(state, *pod, handle.snapshot().nodes(), nullptr).IsSkip());
}

TEST(PodTopologySpreadPreScore, SkipsOnEmptyCluster) {
  testing::FakeHandle handle;
  auto plugin = MakePlugin(handle);
  framework::CycleState state;
  auto pod = TestPod("p")
                 .Label("foo", "")
                 .Spread(1, "zone", kScheduleAnyway, kFoo)
                 .Info();
  EXPECT_TRUE(plugin->PreScore(state, *pod, {}).IsSkip());
}

// ---- TestPodTopologySpreadScore

struct ScoreCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> existing;
  std::vector<api::Node> nodes;
  std::vector<api::Node> failed;  // nodes + failed = all nodes
  FakeWorkloads workloads;
  std::vector<std::pair<std::string, int64_t>> want;
};

// ctest lists each case by its name, not by its bytes.
void PrintTo(const ScoreCase& c, std::ostream* os) { *os << c.name; }

class PodTopologySpreadScoreTest : public ::testing::TestWithParam<ScoreCase> {
};

TEST_P(PodTopologySpreadScoreTest, Scores) {
  const ScoreCase& tc = GetParam();
  std::vector<api::Node> all = tc.nodes;
  all.insert(all.end(), tc.failed.begin(), tc.failed.end());
  testing::FakeHandle handle(MakeCluster(all, tc.existing));
  // kube's test runs with System defaulting.
  auto plugin = MakePlugin(handle, SystemArgs(), tc.workloads.Fn());
  ASSERT_NE(plugin, nullptr);
  const framework::Snapshot& snapshot = handle.snapshot();
  std::vector<framework::NodeInfoPtr> filtered;
  for (const api::Node& n : tc.nodes) {
    filtered.push_back(snapshot.GetPtr(n.metadata.name));
  }
  framework::CycleState state;
  auto pod =
      framework::PodInfo::Create(std::make_shared<const api::Pod>(tc.pod));
  framework::Status s = plugin->PreScore(state, *pod, filtered);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  framework::NodeScoreList scores;
  for (const framework::NodeInfoPtr& info : filtered) {
    int64_t score = -100;
    s = plugin->Score(state, *pod, *info, &score);
    ASSERT_TRUE(s.IsSuccess()) << s.Message();
    scores.push_back({info->name(), score});
  }
  ASSERT_TRUE(plugin->NormalizeScore(state, *pod, scores).IsSuccess());
  std::vector<std::pair<std::string, int64_t>> got;
  for (const framework::NodeScore& ns : scores) {
    got.emplace_back(std::string(ns.name), ns.score);
  }
  EXPECT_EQ(got, tc.want);
}

api::Pod HostnameSpread(int32_t max_skew,
                        std::optional<api::LabelSelector> sel = kFoo) {
  return TestPod("p")
      .Label("foo", "")
      .Spread(max_skew, kHostname, kScheduleAnyway, std::move(sel))
      .Obj();
}

std::vector<api::Node> HostNodes(std::vector<std::string> names) {
  std::vector<api::Node> out;
  for (const std::string& n : names) out.push_back(HostNode(n));
  return out;
}

// Matching pods spread as 2/1/0/3 over node-a..node-d.
std::vector<api::Pod> Pods2103() {
  return {On("p-a1", "node-a"), On("p-a2", "node-a"), On("p-b1", "node-b"),
          On("p-d1", "node-d"), On("p-d2", "node-d"), On("p-d3", "node-d")};
}

// Matching pods spread as 4/3/2/1 over node-a..node-d.
std::vector<api::Pod> Pods4321() {
  return {On("p-a1", "node-a"), On("p-a2", "node-a"), On("p-a3", "node-a"),
          On("p-a4", "node-a"), On("p-b1", "node-b"), On("p-b2", "node-b"),
          On("p-b3", "node-b"), On("p-c1", "node-c"), On("p-c2", "node-c"),
          On("p-d1", "node-d")};
}

// Matching pods spread as 4/2/1/3 over node-a, node-b, node-x, node-y.
std::vector<api::Pod> Pods4213() {
  return {On("p-a1", "node-a"), On("p-a2", "node-a"), On("p-a3", "node-a"),
          On("p-a4", "node-a"), On("p-b1", "node-b"), On("p-b2", "node-b"),
          On("p-x1", "node-x"), On("p-y1", "node-y"), On("p-y2", "node-y"),
          On("p-y3", "node-y")};
}

// Nodes labelled "node" (not the hostname key), node-c tainted on demand.
std::vector<api::Node> PolicyScoreNodes(bool foo, bool taint_c) {
  std::vector<std::pair<std::string, std::string>> extra;
  if (foo) extra.emplace_back("foo", "");
  auto labels = [&](const std::string& n) {
    auto l = extra;
    l.emplace_back("node", n);
    return l;
  };
  api::Node c = MakeNode("node-c", {{"node", "node-c"}});
  return {MakeNode("node-a", labels("node-a")),
          MakeNode("node-b", labels("node-b")), taint_c ? Tainted(c) : c};
}

std::vector<api::Pod> Pods211() {
  return {On("p-a1", "node-a"), On("p-a2", "node-a"), On("p-b1", "node-b"),
          On("p-c1", "node-c")};
}

std::vector<ScoreCase> ScoreCases() {
  const std::vector<api::Node> abcd =
      HostNodes({"node-a", "node-b", "node-c", "node-d"});
  return {
      {.name = "one constraint on node, no existing pods",
       .pod = HostnameSpread(1),
       .nodes = HostNodes({"node-a", "node-b"}),
       .want = {{"node-a", 100}, {"node-b", 100}}},
      {.name = "one constraint on node, only one node is candidate",
       .pod = HostnameSpread(1),
       .existing = {On("p-a1", "node-a"), On("p-a2", "node-a"),
                    On("p-b1", "node-b")},
       .nodes = HostNodes({"node-a"}),
       .failed = HostNodes({"node-b"}),
       .want = {{"node-a", 100}}},
      {.name = "one constraint on node, all nodes have the same number of "
               "matching pods",
       .pod = HostnameSpread(1),
       .existing = {On("p-a1", "node-a"), On("p-b1", "node-b")},
       .nodes = HostNodes({"node-a", "node-b"}),
       .want = {{"node-a", 100}, {"node-b", 100}}},
      {.name = "one constraint on node, all 4 nodes are candidates",
       .pod = HostnameSpread(1),
       .existing = Pods2103(),
       .nodes = abcd,
       .want =
           {{"node-a", 20}, {"node-b", 60}, {"node-c", 100}, {"node-d", 0}}},
      {.name = "one constraint on node, null selector",
       .pod = HostnameSpread(1, std::nullopt),
       .existing = Pods2103(),
       .nodes = abcd,
       .want = {{"node-a", 100},
                {"node-b", 100},
                {"node-c", 100},
                {"node-d", 100}}},
      {.name = "one constraint on node, all 4 nodes are candidates, maxSkew=2",
       .pod = HostnameSpread(2),
       .existing = Pods2103(),
       .nodes = abcd,
       .want =
           {{"node-a", 33}, {"node-b", 66}, {"node-c", 100}, {"node-d", 16}}},
      {.name = "one constraint on node, all 4 nodes are candidates, maxSkew=3",
       .pod = HostnameSpread(3),
       .existing = Pods4321(),
       .nodes = abcd,
       .want =
           {{"node-a", 44}, {"node-b", 66}, {"node-c", 77}, {"node-d", 100}}},
      {.name = "system defaulting, nodes don't have zone, pods match service",
       .pod = TestPod("p").Label("foo", "").Obj(),
       .existing = Pods4321(),
       .nodes = abcd,
       .workloads = {.services = {{{"foo", ""}}}},
       // Same scores as if we were using one spreading constraint.
       .want =
           {{"node-a", 44}, {"node-b", 66}, {"node-c", 77}, {"node-d", 100}}},
      {.name = "one constraint on node, 3 out of 4 nodes are candidates",
       .pod = HostnameSpread(1),
       .existing = Pods4213(),
       .nodes = HostNodes({"node-a", "node-b", "node-x"}),
       .failed = HostNodes({"node-y"}),
       .want = {{"node-a", 33}, {"node-b", 83}, {"node-x", 100}}},
      {.name = "one constraint on node, 3 out of 4 nodes are candidates, one "
               "node doesn't match topology key",
       .pod = HostnameSpread(1),
       .existing = Pods4213(),
       .nodes = {HostNode("node-a"), MakeNode("node-b", {{"n", "node-b"}}),
                 HostNode("node-x")},
       .failed = HostNodes({"node-y"}),
       .want = {{"node-a", 16}, {"node-b", 0}, {"node-x", 100}}},
      {.name = "one constraint on zone, 3 out of 4 nodes are candidates",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kScheduleAnyway, kFoo)
                  .Obj(),
       .existing = Pods4213(),
       .nodes = {ZoneHostNode("node-a", "zone1"),
                 ZoneHostNode("node-b", "zone1"),
                 ZoneHostNode("node-x", "zone2")},
       .failed = {ZoneHostNode("node-y", "zone2")},
       .want = {{"node-a", 75}, {"node-b", 75}, {"node-x", 100}}},
      {.name = "two Constraints on zone and node, 2 out of 4 nodes are "
               "candidates",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "zone", kScheduleAnyway, kFoo)
                  .Spread(1, kHostname, kScheduleAnyway, kFoo)
                  .Obj(),
       .existing = {On("p-a1", "node-a"), On("p-a2", "node-a"),
                    On("p-b1", "node-b"), On("p-x1", "node-x"),
                    On("p-x2", "node-x"), On("p-y1", "node-y"),
                    On("p-y2", "node-y"), On("p-y3", "node-y"),
                    On("p-y4", "node-y")},
       .nodes = {ZoneHostNode("node-a", "zone1"),
                 ZoneHostNode("node-x", "zone2")},
       .failed = {ZoneHostNode("node-b", "zone1"),
                  ZoneHostNode("node-y", "zone2")},
       .want = {{"node-a", 100}, {"node-x", 63}}},
      {.name = "two Constraints on zone, 2 out of 4 nodes are candidates",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .Spread(1, "zone", kScheduleAnyway, kFoo)
                  .Spread(1, "zone", kScheduleAnyway, kBar)
                  .Obj(),
       .existing = {On("p-a1", "node-a", {{"foo", ""}, {"bar", ""}}),
                    On("p-a2", "node-a"),
                    On("p-b1", "node-b", {{"foo", ""}, {"bar", ""}}),
                    On("p-y1", "node-y"),
                    On("p-y2", "node-y", {{"foo", ""}, {"bar", ""}}),
                    On("p-y3", "node-y")},
       .nodes = {MakeNode("node-a", {{"zone", "zone1"}}),
                 MakeNode("node-x", {{"zone", "zone2"}})},
       .failed = {MakeNode("node-b", {{"zone", "zone1"}}),
                  MakeNode("node-y", {{"zone", "zone2"}})},
       .want = {{"node-a", 85}, {"node-x", 100}}},
      {.name = "two Constraints on zone and node, with different "
               "labelSelectors",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .Spread(1, "zone", kScheduleAnyway, kFoo)
                  .Spread(1, kHostname, kScheduleAnyway, kBar)
                  .Obj(),
       .existing = {On("p-a1", "node-a"),
                    On("p-b1", "node-b", {{"foo", ""}, {"bar", ""}}),
                    On("p-y1", "node-y"), On("p-y2", "node-y", {{"bar", ""}})},
       .nodes = {ZoneHostNode("node-a", "zone1"),
                 ZoneHostNode("node-b", "zone1"),
                 ZoneHostNode("node-x", "zone2"),
                 ZoneHostNode("node-y", "zone2")},
       .want =
           {{"node-a", 60}, {"node-b", 20}, {"node-x", 100}, {"node-y", 60}}},
      {.name = "two Constraints on zone and node, with different "
               "labelSelectors, some nodes have 0 pods",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .Spread(1, "zone", kScheduleAnyway, kFoo)
                  .Spread(1, kHostname, kScheduleAnyway, kBar)
                  .Obj(),
       .existing = {On("p-b1", "node-b", {{"bar", ""}}), On("p-x1", "node-x"),
                    On("p-y1", "node-y", {{"foo", ""}, {"bar", ""}})},
       .nodes = {ZoneHostNode("node-a", "zone1"),
                 ZoneHostNode("node-b", "zone1"),
                 ZoneHostNode("node-x", "zone2"),
                 ZoneHostNode("node-y", "zone2")},
       .want =
           {{"node-a", 100}, {"node-b", 60}, {"node-x", 40}, {"node-y", 0}}},
      {.name = "two Constraints on zone and node, with different "
               "labelSelectors, 3 out of 4 nodes are candidates",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .Spread(1, "zone", kScheduleAnyway, kFoo)
                  .Spread(1, kHostname, kScheduleAnyway, kBar)
                  .Obj(),
       .existing = {On("p-a1", "node-a"),
                    On("p-b1", "node-b", {{"foo", ""}, {"bar", ""}}),
                    On("p-y1", "node-y"), On("p-y2", "node-y", {{"bar", ""}})},
       .nodes = {ZoneHostNode("node-a", "zone1"),
                 ZoneHostNode("node-b", "zone1"),
                 ZoneHostNode("node-x", "zone2")},
       .failed = {ZoneHostNode("node-y", "zone2")},
       .want = {{"node-a", 50}, {"node-b", 25}, {"node-x", 100}}},
      {.name = "existing pods in a different namespace do not count",
       .pod = HostnameSpread(1),
       .existing = {TestPod("p-a1")
                        .Namespace("ns1")
                        .Node("node-a")
                        .Label("foo", "")
                        .Obj(),
                    On("p-a2", "node-a"), On("p-b1", "node-b"),
                    On("p-b2", "node-b")},
       .nodes = HostNodes({"node-a", "node-b"}),
       .want = {{"node-a", 100}, {"node-b", 33}}},
      {.name = "terminating Pods should be excluded",
       .pod = HostnameSpread(1),
       .existing =
           {TestPod("p-a").Node("node-a").Label("foo", "").Terminating().Obj(),
            On("p-b", "node-b")},
       .nodes = HostNodes({"node-a", "node-b"}),
       .want = {{"node-a", 100}, {"node-b", 0}}},
      // Artificial: the API server rejects minDomains with ScheduleAnyway.
      {.name = "minDomains has no effect when ScheduleAnyway",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(2, "node", kScheduleAnyway, kFoo, {.min_domains = 10})
                  .Obj(),
       .existing = {On("p-a1", "node-a"), On("p-a2", "node-a"),
                    On("p-b1", "node-b"), On("p-b2", "node-b"),
                    On("p-c1", "node-c")},
       .nodes = {MakeNode("node-a", {{"node", "node-a"}}),
                 MakeNode("node-b", {{"node", "node-b"}}),
                 MakeNode("node-c", {{"node", "node-c"}})},
       .want = {{"node-a", 75}, {"node-b", 75}, {"node-c", 100}}},
      {.name = "NodeAffinityPolicy honoed with labelSelectors",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeSelector("foo", "")
                  .Spread(1, "node", kScheduleAnyway, kFoo)
                  .Obj(),
       .existing = Pods211(),
       .nodes = PolicyScoreNodes(/*foo=*/true, /*taint_c=*/false),
       .want = {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {.name = "NodeAffinityPolicy ignored with labelSelectors",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeSelector("foo", "")
                  .Spread(1, "node", kScheduleAnyway, kFoo,
                          {.node_affinity_policy = kIgnore})
                  .Obj(),
       .existing = Pods211(),
       .nodes = PolicyScoreNodes(/*foo=*/true, /*taint_c=*/false),
       .want = {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {.name = "NodeAffinityPolicy honoed with nodeAffinity",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeAffinityIn("foo", {""})
                  .Spread(1, "node", kScheduleAnyway, kFoo)
                  .Obj(),
       .existing = Pods211(),
       .nodes = PolicyScoreNodes(/*foo=*/true, /*taint_c=*/false),
       .want = {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {.name = "NodeAffinityPolicy ignored with nodeAffinity",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .NodeAffinityIn("foo", {""})
                  .Spread(1, "node", kScheduleAnyway, kFoo,
                          {.node_affinity_policy = kIgnore})
                  .Obj(),
       .existing = Pods211(),
       .nodes = PolicyScoreNodes(/*foo=*/true, /*taint_c=*/false),
       .want = {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {.name = "NodeTaintsPolicy honored",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "node", kScheduleAnyway, kFoo,
                          {.node_taints_policy = kHonor})
                  .Obj(),
       .existing = Pods211(),
       .nodes = PolicyScoreNodes(/*foo=*/false, /*taint_c=*/true),
       .want = {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {.name = "NodeTaintsPolicy ignored",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Spread(1, "node", kScheduleAnyway, kFoo)
                  .Obj(),
       .existing = Pods211(),
       .nodes = PolicyScoreNodes(/*foo=*/false, /*taint_c=*/true),
       .want = {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {.name = "matchLabelKeys ANDed with LabelSelector when LabelSelector is "
               "empty",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .Spread(1, "zone", kScheduleAnyway, api::LabelSelector{},
                          {.match_label_keys = {"foo"}})
                  .Spread(1, kHostname, kScheduleAnyway, api::LabelSelector{},
                          {.match_label_keys = {"bar"}})
                  .Obj(),
       .existing = {On("p-a1", "node-a"),
                    On("p-b1", "node-b", {{"foo", ""}, {"bar", ""}}),
                    On("p-y1", "node-c"), On("p-y2", "node-c", {{"bar", ""}})},
       .nodes = {ZoneHostNode("node-a", "zone1"),
                 ZoneHostNode("node-b", "zone1"),
                 ZoneHostNode("node-c", "zone2"),
                 ZoneHostNode("node-d", "zone2")},
       .want =
           {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}}},
      {.name = "matchLabelKeys ANDed with LabelSelector when LabelSelector "
               "isn't empty",
       .pod = TestPod("p")
                  .Label("foo", "")
                  .Label("bar", "")
                  .Label("baz", "")
                  .Spread(1, "zone", kScheduleAnyway, kFoo)
                  .Spread(1, kHostname, kScheduleAnyway, kBar,
                          {.match_label_keys = {"baz"}})
                  .Obj(),
       .existing = {On("p-a1", "node-a"),
                    On("p-b1", "node-b",
                       {{"foo", ""}, {"bar", ""}, {"baz", ""}}),
                    On("p-c1", "node-c"), On("p-c2", "node-c", {{"bar", ""}}),
                    On("p-d3", "node-c", {{"bar", ""}, {"baz", ""}})},
       .nodes = {ZoneHostNode("node-a", "zone1"),
                 ZoneHostNode("node-b", "zone1"),
                 ZoneHostNode("node-c", "zone2"),
                 ZoneHostNode("node-d", "zone2")},
       .want =
           {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}}},
  };
}

INSTANTIATE_TEST_SUITE_P(TestPodTopologySpreadScore, PodTopologySpreadScoreTest,
                         ::testing::ValuesIn(ScoreCases()),
                         [](const ::testing::TestParamInfo<ScoreCase>& info) {
                           return CaseName(info.index, info.param.name);
                         });

TEST(PodTopologySpreadScore, ScoreWithoutPreScoreIsAnError) {
  testing::FakeHandle handle;
  auto plugin = MakePlugin(handle);
  framework::CycleState state;
  auto pod = TestPod("p").Info();
  auto node = testing::MakeNodeInfo(HostNode("node-a"));
  int64_t score = 0;
  framework::Status s = plugin->Score(state, *pod, *node, &score);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "reading \"PreScorePodTopologySpread\" from cycleState: not found");
}

}  // namespace
}  // namespace ksched::plugins::podtopologyspread
