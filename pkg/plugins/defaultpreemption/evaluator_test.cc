#include "pkg/plugins/defaultpreemption/evaluator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pkg/plugins/defaultpreemption/testing_util.h"

namespace ksched::plugins::defaultpreemption::testing {
namespace {

using framework::Code;
using ::testing::ElementsAre;

// ---- TestDryRunPreemption ----

struct WantCandidate {
  std::string name;
  std::vector<std::string> victims;  // sorted by name, as kube compares
  int64_t num_pdb_violations = 0;
  friend bool operator==(const WantCandidate&, const WantCandidate&) = default;
  friend std::ostream& operator<<(std::ostream& os, const WantCandidate& c) {
    os << c.name << "{";
    for (const auto& v : c.victims) os << v << " ";
    return os << "pdb=" << c.num_pdb_violations << "}";
  }
};

struct DryRunCase {
  std::string name;
  std::vector<std::string> plugins;
  std::shared_ptr<const config::DefaultPreemptionArgs> args;
  // "name" or "name/zone": the node and its hostname/zone labels.
  std::vector<std::string> node_names;
  std::vector<api::Pod> test_pods;  // one scheduling cycle each
  std::vector<api::Pod> init_pods;
  std::vector<api::PodDisruptionBudget> pdbs;
  Code fake_filter_code = Code::kSuccess;
  std::vector<uint64_t> random = {4, 1, 3};  // kube seeds rand with 4
  std::vector<std::vector<WantCandidate>> expected;
  std::vector<int> expected_num_filter_called;
};

std::shared_ptr<const config::DefaultPreemptionArgs> Args(int32_t percentage,
                                                          int32_t absolute) {
  auto a = std::make_shared<config::DefaultPreemptionArgs>();
  a->min_candidate_nodes_percentage = percentage;
  a->min_candidate_nodes_absolute = absolute;
  return a;
}

void PrintTo(const DryRunCase& c, std::ostream* os) { *os << c.name; }

class DryRunTest : public ::testing::TestWithParam<DryRunCase> {};

TEST_P(DryRunTest, Run) {
  const DryRunCase& c = GetParam();
  Env env({.plugins = c.plugins, .args = c.args, .random = c.random});
  ASSERT_EQ(env.create_error(), "");
  std::vector<api::Node> nodes;
  const char* label_keys[] = {"hostname", "zone", "region"};
  for (const std::string& spec : c.node_names) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
      size_t slash = spec.find('/', start);
      parts.push_back(spec.substr(start, slash - start));
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    NodeBuilder b(parts[0]);
    b.Capacity(NodeCapacity(VeryLargeRes()));
    for (size_t i = 0; i < parts.size(); ++i) b.Label(label_keys[i], parts[i]);
    nodes.push_back(b.Obj());
    env.counting_filter().codes[parts[0]] = c.fake_filter_code;
  }
  env.SetCluster(nodes, c.init_pods);
  std::vector<api::PodDisruptionBudget> pdb_objects = c.pdbs;
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> pdb_ptrs;
  for (const auto& p : pdb_objects) {
    pdb_ptrs.push_back(std::make_shared<api::PodDisruptionBudget>(p));
  }
  std::vector<CompiledPdb> pdbs = CompilePdbs(pdb_ptrs);
  std::vector<framework::NodeInfoPtr> node_infos = env.SortedNodes();

  int prev_calls = 0;
  for (size_t cycle = 0; cycle < c.test_pods.size(); ++cycle) {
    auto pod = framework::PodInfo::Create(
        std::make_shared<api::Pod>(c.test_pods[cycle]));
    framework::CycleState state;
    ASSERT_TRUE(env.PreFilter(state, *pod).IsSuccess());
    prev_calls = env.counting_filter().calls.load();
    auto [offset, num] = env.plugin().GetOffsetAndNumCandidates(
        static_cast<int32_t>(node_infos.size()));
    Evaluator::DryRunResult got = env.plugin().evaluator().DryRunPreemption(
        state, *pod, node_infos, pdbs, offset, num);
    std::vector<WantCandidate> candidates;
    for (const Candidate& cand : got.candidates) {
      candidates.push_back({cand.name, Names(cand.victims.pods, true),
                            cand.victims.num_pdb_violations});
    }
    std::sort(candidates.begin(), candidates.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    EXPECT_EQ(candidates, c.expected[cycle]) << "cycle " << cycle;
    EXPECT_EQ(env.counting_filter().calls.load() - prev_calls,
              c.expected_num_filter_called[cycle])
        << "cycle " << cycle;
  }
}

std::vector<DryRunCase> DryRunCases() {
  std::vector<DryRunCase> cases;
  const std::vector<std::string> kFit = {"NodeResourcesFit"};
  cases.push_back({
      .name = "PodThatDoesNotFitOnAnyNode",
      .plugins = {"FalseFilter"},
      .node_names = {"node1", "node2"},
      .test_pods = {MakePod("p").Priority(kHighPriority).Obj()},
      .init_pods = {MakePod("p1").Node("node1").Priority(kMidPriority).Obj(),
                    MakePod("p2").Node("node2").Priority(kMidPriority).Obj()},
      .expected = {{}},
      .expected_num_filter_called = {2},
  });
  cases.push_back({
      .name = "PodThatFitsWithNoPreemption",
      .plugins = {},
      .node_names = {"node1", "node2"},
      .test_pods = {MakePod("p").Priority(kHighPriority).Obj()},
      .init_pods = {MakePod("p1").Node("node1").Priority(kMidPriority).Obj(),
                    MakePod("p2").Node("node2").Priority(kMidPriority).Obj()},
      .fake_filter_code = Code::kUnschedulable,
      .expected = {{}},
      .expected_num_filter_called = {2},
  });
  cases.push_back({
      .name = "FitsOnBothNodesWhenLowerPriorityPodsArePreempted",
      .plugins = kFit,
      .node_names = {"node1", "node2"},
      .test_pods = {MakePod("p").Priority(kHighPriority).Req(LargeRes()).Obj()},
      .init_pods = {MakePod("p1")
                        .Node("node1")
                        .Priority(kMidPriority)
                        .Req(LargeRes())
                        .Obj(),
                    MakePod("p2")
                        .Node("node2")
                        .Priority(kMidPriority)
                        .Req(LargeRes())
                        .Obj()},
      .expected = {{{"node1", {"p1"}}, {"node2", {"p2"}}}},
      .expected_num_filter_called = {4},
  });
  cases.push_back({
      .name = "OtherPodsRunningAreHigherPriority",
      .plugins = kFit,
      .node_names = {"node1", "node2"},
      .test_pods = {MakePod("p").Priority(kLowPriority).Req(LargeRes()).Obj()},
      .init_pods = {MakePod("p1")
                        .Node("node1")
                        .Priority(kMidPriority)
                        .Req(LargeRes())
                        .Obj(),
                    MakePod("p2")
                        .Node("node2")
                        .Priority(kMidPriority)
                        .Req(LargeRes())
                        .Obj()},
      .expected = {{}},
      .expected_num_filter_called = {0},
  });
  cases.push_back({
      .name = "MediumPriorityPodIsPreemptedLowerStaysAsItIsSmall",
      .plugins = kFit,
      .node_names = {"node1", "node2"},
      .test_pods = {MakePod("p").Priority(kHighPriority).Req(LargeRes()).Obj()},
      .init_pods = {MakePod("p1.1")
                        .Node("node1")
                        .Priority(kLowPriority)
                        .Req(SmallRes())
                        .Obj(),
                    MakePod("p1.2")
                        .Node("node1")
                        .Priority(kMidPriority)
                        .Req(LargeRes())
                        .Obj(),
                    MakePod("p2")
                        .Node("node2")
                        .Priority(kMidPriority)
                        .Req(LargeRes())
                        .Obj()},
      .expected = {{{"node1", {"p1.2"}}, {"node2", {"p2"}}}},
      .expected_num_filter_called = {5},
  });
  cases.push_back({
      .name = "MixedPriorityPodsArePreempted",
      .plugins = kFit,
      .node_names = {"node1", "node2"},
      .test_pods = {MakePod("p").Priority(kHighPriority).Req(LargeRes()).Obj()},
      .init_pods = {MakePod("p1.1")
                        .Node("node1")
                        .Priority(kMidPriority)
                        .Req(SmallRes())
                        .Obj(),
                    MakePod("p1.2")
                        .Node("node1")
                        .Priority(kLowPriority)
                        .Req(SmallRes())
                        .Obj(),
                    MakePod("p1.3")
                        .Node("node1")
                        .Priority(kMidPriority)
                        .Req(MediumRes())
                        .Obj(),
                    MakePod("p1.4")
                        .Node("node1")
                        .Priority(kHighPriority)
                        .Req(SmallRes())
                        .Obj(),
                    MakePod("p2")
                        .Node("node2")
                        .Priority(kHighPriority)
                        .Req(LargeRes())
                        .Obj()},
      .expected = {{{"node1", {"p1.2", "p1.3"}}}},
      .expected_num_filter_called = {4},
  });
  cases.push_back({
      .name = "MixedPriorityPodsPickLaterStartTimeWhenPrioritiesAreEqual",
      .plugins = kFit,
      .node_names = {"node1", "node2"},
      .test_pods = {MakePod("p").Priority(kHighPriority).Req(LargeRes()).Obj()},
      .init_pods = {WithStart(MakePod("p1.1")
                                  .Node("node1")
                                  .Priority(kLowPriority)
                                  .Req(SmallRes())
                                  .Obj(),
                              5),
                    WithStart(MakePod("p1.2")
                                  .Node("node1")
                                  .Priority(kLowPriority)
                                  .Req(SmallRes())
                                  .Obj(),
                              4),
                    WithStart(MakePod("p1.3")
                                  .Node("node1")
                                  .Priority(kMidPriority)
                                  .Req(MediumRes())
                                  .Obj(),
                              3),
                    WithStart(MakePod("p1.4")
                                  .Node("node1")
                                  .Priority(kHighPriority)
                                  .Req(SmallRes())
                                  .Obj(),
                              2),
                    WithStart(MakePod("p2")
                                  .Node("node2")
                                  .Priority(kHighPriority)
                                  .Req(LargeRes())
                                  .Obj(),
                              1)},
      .expected = {{{"node1", {"p1.1", "p1.3"}}}},
      .expected_num_filter_called = {4},
  });
  // kube's "pod with anti-affinity is preempted", with a stateful filter
  // standing in for InterPodAffinity.
  cases.push_back({
      .name = "PodBlockingByPreFilterStateIsPreempted",
      .plugins = {"NodeResourcesFit", "BlockerFilter"},
      .node_names = {"node1", "node2"},
      .test_pods = {MakePod("p").Priority(kHighPriority).Req(SmallRes()).Obj()},
      .init_pods = {MakePod("p1.1")
                        .Node("node1")
                        .Label("blocker", "")
                        .Priority(kLowPriority)
                        .Req(SmallRes())
                        .Obj(),
                    MakePod("p1.2")
                        .Node("node1")
                        .Priority(kMidPriority)
                        .Req(SmallRes())
                        .Obj(),
                    MakePod("p1.3")
                        .Node("node1")
                        .Priority(kHighPriority)
                        .Req(SmallRes())
                        .Obj(),
                    MakePod("p2")
                        .Node("node2")
                        .Priority(kHighPriority)
                        .Req(SmallRes())
                        .Obj()},
      .expected = {{{"node1", {"p1.1"}}}},
      .expected_num_filter_called = {3},
  });
  cases.push_back({
      .name = "UnschedulableInThePreemptionPhase",
      .plugins = kFit,
      .node_names = {"node1", "node2"},
      .test_pods = {MakePod("p").Priority(kHighPriority).Req(LargeRes()).Obj()},
      .init_pods = {MakePod("p1")
                        .Node("node1")
                        .Priority(kMidPriority)
                        .Req(LargeRes())
                        .Obj(),
                    MakePod("p2")
                        .Node("node2")
                        .Priority(kMidPriority)
                        .Req(LargeRes())
                        .Obj()},
      .fake_filter_code = Code::kUnschedulable,
      .expected = {{}},
      .expected_num_filter_called = {2},
  });
  cases.push_back({
      .name = "PreemptionWithViolationOfSamePdb",
      .plugins = kFit,
      .node_names = {"node1"},
      .test_pods =
          {MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Obj()},
      .init_pods = {MakePod("p1.1")
                        .Node("node1")
                        .Label("app", "foo")
                        .Priority(kMidPriority)
                        .Req(MediumRes())
                        .Obj(),
                    MakePod("p1.2")
                        .Node("node1")
                        .Label("app", "foo")
                        .Priority(kMidPriority)
                        .Req(MediumRes())
                        .Obj()},
      .pdbs = {MakePdb("pdb", {{"app", "foo"}}, 1)},
      .expected = {{{"node1", {"p1.1", "p1.2"}, 1}}},
      .expected_num_filter_called = {3},
  });
  cases.push_back({
      .name = "PdbWithProcessedEvictionVictimNotInDisruptedPods",
      .plugins = kFit,
      .node_names = {"node1"},
      .test_pods =
          {MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Obj()},
      .init_pods = {MakePod("p1.1")
                        .Node("node1")
                        .Label("app", "foo")
                        .Priority(kMidPriority)
                        .Req(MediumRes())
                        .Obj(),
                    MakePod("p1.2")
                        .Node("node1")
                        .Label("app", "foo")
                        .Priority(kMidPriority)
                        .Req(MediumRes())
                        .Obj()},
      .pdbs = {MakePdb("pdb", {{"app", "foo"}}, 1, {"p2"})},
      .expected = {{{"node1", {"p1.1", "p1.2"}, 1}}},
      .expected_num_filter_called = {3},
  });
  cases.push_back({
      .name = "PdbWithProcessedEvictionVictimInDisruptedPods",
      .plugins = kFit,
      .node_names = {"node1"},
      .test_pods =
          {MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Obj()},
      .init_pods = {MakePod("p1.1")
                        .Node("node1")
                        .Label("app", "foo")
                        .Priority(kMidPriority)
                        .Req(MediumRes())
                        .Obj(),
                    MakePod("p1.2")
                        .Node("node1")
                        .Label("app", "foo")
                        .Priority(kMidPriority)
                        .Req(MediumRes())
                        .Obj()},
      .pdbs = {MakePdb("pdb", {{"app", "foo"}}, 1, {"p1.2"})},
      .expected = {{{"node1", {"p1.1", "p1.2"}, 0}}},
      .expected_num_filter_called = {3},
  });
  cases.push_back({
      .name = "PdbVictimInDisruptedPodsIsTreatedAsNonViolating",
      .plugins = kFit,
      .node_names = {"node1"},
      .test_pods =
          {MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Obj()},
      .init_pods = {MakePod("p1.1")
                        .Node("node1")
                        .Label("app", "foo")
                        .Priority(kMidPriority)
                        .Req(MediumRes())
                        .Obj(),
                    MakePod("p1.2")
                        .Node("node1")
                        .Label("app", "foo")
                        .Priority(kMidPriority)
                        .Req(MediumRes())
                        .Obj(),
                    MakePod("p1.3")
                        .Node("node1")
                        .Label("app", "foo")
                        .Priority(kMidPriority)
                        .Req(MediumRes())
                        .Obj()},
      .pdbs = {MakePdb("pdb", {{"app", "foo"}}, 1, {"p1.3"})},
      .expected = {{{"node1", {"p1.1", "p1.2", "p1.3"}, 1}}},
      .expected_num_filter_called = {4},
  });
  std::vector<api::Pod> five_mid;
  for (int i = 1; i <= 5; ++i) {
    std::string n = std::to_string(i);
    five_mid.push_back(MakePod("p" + n)
                           .Node("node" + n)
                           .Priority(kMidPriority)
                           .Req(LargeRes())
                           .Obj());
  }
  const std::vector<std::string> kFiveNodes = {"node1", "node2", "node3",
                                               "node4", "node5"};
  cases.push_back({
      .name = "AllNodesArePossibleCandidatesButArgsLimitToTwo",
      .plugins = kFit,
      .args = Args(40, 1),
      .node_names = kFiveNodes,
      .test_pods = {MakePod("p").Priority(kHighPriority).Req(LargeRes()).Obj()},
      .init_pods = five_mid,
      // offset 4: node5 (yes), node1 (yes)
      .expected = {{{"node1", {"p1"}}, {"node5", {"p5"}}}},
      .expected_num_filter_called = {4},
  });
  std::vector<api::Pod> some_high = five_mid;
  some_high[1].spec.priority = kVeryHighPriority;
  some_high[4].spec.priority = kVeryHighPriority;
  cases.push_back({
      .name = "SomeNodesAreNotPossibleCandidatesArgsLimitToTwo",
      .plugins = kFit,
      .args = Args(40, 1),
      .node_names = kFiveNodes,
      .test_pods = {MakePod("p").Priority(kHighPriority).Req(LargeRes()).Obj()},
      .init_pods = some_high,
      // offset 4: node5 (no), node1 (yes), node2 (no), node3 (yes)
      .expected = {{{"node1", {"p1"}}, {"node3", {"p3"}}}},
      .expected_num_filter_called = {4},
  });
  cases.push_back({
      .name = "OffsetAcrossMultipleSchedulingCyclesAndWrapAround",
      .plugins = kFit,
      .args = Args(40, 1),
      .node_names = kFiveNodes,
      .test_pods =
          {MakePod("tp1").Priority(kHighPriority).Req(LargeRes()).Obj(),
           MakePod("tp2").Priority(kHighPriority).Req(LargeRes()).Obj(),
           MakePod("tp3").Priority(kHighPriority).Req(LargeRes()).Obj()},
      .init_pods = five_mid,
      .expected = {{{"node1", {"p1"}}, {"node5", {"p5"}}},   // offset 4
                   {{"node2", {"p2"}}, {"node3", {"p3"}}},   // offset 1
                   {{"node4", {"p4"}}, {"node5", {"p5"}}}},  // offset 3
      .expected_num_filter_called = {4, 4, 4},
  });
  std::vector<api::Pod> labelled = five_mid;
  for (int i : {0, 1, 4}) labelled[i].metadata.labels.Set("app", "foo");
  cases.push_back({
      .name = "LooksPastNumCandidatesUntilANonPdbViolatingNodeIsFound",
      .plugins = kFit,
      .args = Args(40, 2),
      .node_names = kFiveNodes,
      .test_pods = {MakePod("p").Priority(kHighPriority).Req(LargeRes()).Obj()},
      .init_pods = labelled,
      .pdbs = {MakePdb("pdb", {{"app", "foo"}}, 0)},
      // offset 4: node5 (pdb), node1 (pdb), node2 (pdb, over the limit),
      // node3 (no pdb): stop.
      .expected = {{{"node1", {"p1"}, 1},
                    {"node3", {"p3"}},
                    {"node5", {"p5"}, 1}}},
      .expected_num_filter_called = {8},
  });
  return cases;
}

INSTANTIATE_TEST_SUITE_P(TestDryRunPreemption, DryRunTest,
                         ::testing::ValuesIn(DryRunCases()),
                         [](const ::testing::TestParamInfo<DryRunCase>& i) {
                           return i.param.name;
                         });

// The dry run's statuses for nodes that are not candidates, and the stop
// once enough candidates are found, on a pool of real workers.
TEST(DryRunPreemptionTest, ParallelOverManyNodes) {
  Env env({.parallelism = 4});
  std::vector<api::Node> nodes;
  std::vector<api::Pod> pods;
  for (int i = 0; i < 64; ++i) {
    std::string n = "node" + std::to_string(100 + i);
    nodes.push_back(NodeBuilder(n).Capacity(NodeCapacity(LargeRes())).Obj());
    // Even nodes run a lower-priority pod, odd ones a higher-priority one.
    pods.push_back(MakePod("p" + std::to_string(100 + i))
                       .Node(n)
                       .Priority(i % 2 == 0 ? kLowPriority : kVeryHighPriority)
                       .Req(LargeRes())
                       .Obj());
  }
  env.SetCluster(nodes, pods);
  auto pod = MakePod("p").Priority(kHighPriority).Req(LargeRes()).Info();
  framework::CycleState state;
  ASSERT_TRUE(env.PreFilter(state, *pod).IsSuccess());
  std::vector<framework::NodeInfoPtr> infos = env.SortedNodes();

  Evaluator::DryRunResult all =
      env.plugin().evaluator().DryRunPreemption(state, *pod, infos, {}, 0, 64);
  ASSERT_EQ(all.candidates.size(), 32u);
  EXPECT_EQ(all.statuses.size(), 32u);
  EXPECT_TRUE(all.error.IsSuccess());
  for (const Candidate& c : all.candidates) {
    ASSERT_EQ(c.victims.pods.size(), 1u);
    EXPECT_EQ("node" + c.victims.pods[0]->name().substr(1), c.name);
  }
  const framework::Status* odd = all.statuses.Find("node101");
  ASSERT_NE(odd, nullptr);
  EXPECT_EQ(odd->code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(odd->Message(), "No preemption victims found for incoming pod");

  Evaluator::DryRunResult few =
      env.plugin().evaluator().DryRunPreemption(state, *pod, infos, {}, 0, 3);
  EXPECT_EQ(few.candidates.size(), 3u);
  // The dry run worked on copies: the cycle's state and nodes are intact.
  EXPECT_EQ(infos[0]->pods().size(), 1u);
}

// ---- TestSelectBestCandidate ----

struct SelectCase {
  std::string name;
  std::vector<std::string> node_names;
  api::Pod pod;
  std::vector<api::Pod> pods;
  std::vector<std::string> expected;  // any of them
};

void PrintTo(const SelectCase& c, std::ostream* os) { *os << c.name; }

class SelectBestCandidateTest : public ::testing::TestWithParam<SelectCase> {};

TEST_P(SelectBestCandidateTest, Run) {
  const SelectCase& c = GetParam();
  Env env({.random = {4}});
  std::vector<api::Node> nodes;
  for (const std::string& n : c.node_names) {
    nodes.push_back(
        NodeBuilder(n).Capacity(NodeCapacity(VeryLargeRes())).Obj());
  }
  env.SetCluster(nodes, c.pods);
  auto pod = framework::PodInfo::Create(std::make_shared<api::Pod>(c.pod));
  framework::CycleState state;
  ASSERT_TRUE(env.PreFilter(state, *pod).IsSuccess());
  std::vector<framework::NodeInfoPtr> infos = env.SortedNodes();
  auto [offset, num] = env.plugin().GetOffsetAndNumCandidates(
      static_cast<int32_t>(infos.size()));
  Evaluator::DryRunResult dry = env.plugin().evaluator().DryRunPreemption(
      state, *pod, infos, {}, offset, num);
  const Candidate* best =
      env.plugin().evaluator().SelectCandidate(dry.candidates);
  ASSERT_NE(best, nullptr);
  EXPECT_THAT(c.expected, ::testing::Contains(best->name));
}

api::Pod Victim(const std::string& name, const std::string& node,
                int32_t priority, const ResourcePairs& req, int64_t start = 0) {
  return WithStart(MakePod(name).Node(node).Priority(priority).Req(req).Obj(),
                   start);
}

INSTANTIATE_TEST_SUITE_P(
    TestSelectBestCandidate, SelectBestCandidateTest,
    ::testing::Values(
        SelectCase{"FitsOnBothNodes",
                   {"node1", "node2"},
                   MakePod("p").Priority(kHighPriority).Req(LargeRes()).Obj(),
                   {Victim("p1", "node1", kMidPriority, LargeRes()),
                    Victim("p2", "node2", kMidPriority, LargeRes())},
                   {"node1", "node2"}},
        SelectCase{
            "NodeWithMinHighestPriorityPodIsPicked",
            {"node1", "node2", "node3"},
            MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Obj(),
            {Victim("p1.1", "node1", kMidPriority, MediumRes()),
             Victim("p1.2", "node1", kMidPriority, LargeRes()),
             Victim("p2.1", "node2", kMidPriority, MediumRes()),
             Victim("p2.2", "node2", kLowPriority, MediumRes()),
             Victim("p3.1", "node3", kLowPriority, MediumRes()),
             Victim("p3.2", "node3", kLowPriority, MediumRes())},
            {"node3"}},
        SelectCase{
            "MinimumSumOfPrioritiesIsPicked",
            {"node1", "node2", "node3"},
            MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Obj(),
            {Victim("p1.1", "node1", kMidPriority, MediumRes()),
             Victim("p1.2", "node1", kMidPriority, LargeRes()),
             Victim("p2.1", "node2", kMidPriority, LargeRes()),
             Victim("p2.2", "node2", kLowPriority, MediumRes()),
             Victim("p3.1", "node3", kMidPriority, MediumRes()),
             Victim("p3.2", "node3", kMidPriority, MediumRes())},
            {"node2"}},
        SelectCase{
            "MinimumNumberOfPodsIsPicked",
            {"node1", "node2", "node3"},
            MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Obj(),
            {Victim("p1.1", "node1", kMidPriority, SmallRes()),
             Victim("p1.2", "node1", kNegPriority, SmallRes()),
             Victim("p1.3", "node1", kMidPriority, SmallRes()),
             Victim("p1.4", "node1", kNegPriority, SmallRes()),
             Victim("p2.1", "node2", kMidPriority, LargeRes()),
             Victim("p2.2", "node2", kNegPriority, MediumRes()),
             Victim("p3.1", "node3", kMidPriority, MediumRes()),
             Victim("p3.2", "node3", kNegPriority, SmallRes()),
             Victim("p3.3", "node3", kLowPriority, SmallRes())},
            {"node2"}},
        SelectCase{
            "SumOfAdjustedPrioritiesIsConsidered",
            {"node1", "node2", "node3"},
            MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Obj(),
            {Victim("p1.1", "node1", kMidPriority, SmallRes()),
             Victim("p1.2", "node1", kNegPriority, SmallRes()),
             Victim("p1.3", "node1", kNegPriority, SmallRes()),
             Victim("p2.1", "node2", kMidPriority, LargeRes()),
             Victim("p2.2", "node2", kNegPriority, MediumRes()),
             Victim("p3.1", "node3", kMidPriority, MediumRes()),
             Victim("p3.2", "node3", kNegPriority, SmallRes()),
             Victim("p3.3", "node3", kLowPriority, SmallRes())},
            {"node2"}},
        SelectCase{
            "NonOverlappingLowestHighPrioritySumAndNumberOfPods",
            {"node1", "node2", "node3", "node4"},
            MakePod("p").Priority(kVeryHighPriority).Req(VeryLargeRes()).Obj(),
            {Victim("p1.1", "node1", kMidPriority, SmallRes()),
             Victim("p1.2", "node1", kLowPriority, SmallRes()),
             Victim("p1.3", "node1", kLowPriority, SmallRes()),
             Victim("p2.1", "node2", kHighPriority, LargeRes()),
             Victim("p3.1", "node3", kMidPriority, MediumRes()),
             Victim("p3.2", "node3", kLowPriority, SmallRes()),
             Victim("p3.3", "node3", kLowPriority, SmallRes()),
             Victim("p3.4", "node3", kLowPriority, MediumRes()),
             Victim("p4.1", "node4", kMidPriority, MediumRes()),
             Victim("p4.2", "node4", kMidPriority, SmallRes()),
             Victim("p4.3", "node4", kMidPriority, SmallRes()),
             Victim("p4.4", "node4", kNegPriority, SmallRes())},
            {"node1"}},
        SelectCase{
            "SamePrioritySameNumberDifferentStartTimePerNode",
            {"node1", "node2", "node3"},
            MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Obj(),
            {Victim("p1.1", "node1", kMidPriority, MediumRes(), 2),
             Victim("p1.2", "node1", kMidPriority, MediumRes(), 2),
             Victim("p2.1", "node2", kMidPriority, MediumRes(), 3),
             Victim("p2.2", "node2", kMidPriority, MediumRes(), 3),
             Victim("p3.1", "node3", kMidPriority, MediumRes(), 1),
             Victim("p3.2", "node3", kMidPriority, MediumRes(), 1)},
            {"node2"}},
        SelectCase{
            "SamePrioritySameNumberDifferentStartTimeForAllPods",
            {"node1", "node2", "node3"},
            MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Obj(),
            {Victim("p1.1", "node1", kMidPriority, MediumRes(), 4),
             Victim("p1.2", "node1", kMidPriority, MediumRes(), 2),
             Victim("p2.1", "node2", kMidPriority, MediumRes(), 5),
             Victim("p2.2", "node2", kMidPriority, MediumRes(), 1),
             Victim("p3.1", "node3", kMidPriority, MediumRes(), 3),
             Victim("p3.2", "node3", kMidPriority, MediumRes(), 6)},
            {"node3"}},
        SelectCase{
            "DifferentPrioritySameNumberDifferentStartTime",
            {"node1", "node2", "node3"},
            MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Obj(),
            {Victim("p1.1", "node1", kLowPriority, MediumRes(), 4),
             Victim("p1.2", "node1", kMidPriority, MediumRes(), 2),
             Victim("p2.1", "node2", kMidPriority, MediumRes(), 6),
             Victim("p2.2", "node2", kLowPriority, MediumRes(), 1),
             Victim("p3.1", "node3", kLowPriority, MediumRes(), 3),
             Victim("p3.2", "node3", kMidPriority, MediumRes(), 5)},
            {"node2"}}),
    [](const ::testing::TestParamInfo<SelectCase>& i) { return i.param.name; });

}  // namespace
}  // namespace ksched::plugins::defaultpreemption::testing
