#include "pkg/plugins/defaultpreemption/default_preemption.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/plugins/defaultpreemption/testing_util.h"

namespace ksched::plugins::defaultpreemption::testing {
namespace {

using framework::Code;
using framework::NodeToStatus;
using framework::PostFilterResult;
using framework::Status;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

NodeToStatus Statuses(const std::map<std::string, Code>& codes) {
  NodeToStatus m;  // absent nodes: UnschedulableAndUnresolvable
  for (const auto& [node, code] : codes) m.Set(node, Status(code));
  return m;
}

ResourcePairs OnePodRes() { return {{"pods", "1"}}; }
ResourcePairs NodeRes() { return {{"cpu", "200m"}, {"memory", "400"}}; }

api::Node Node(const std::string& name, const ResourcePairs& capacity) {
  return NodeBuilder(name).Capacity(NodeCapacity(capacity)).Obj();
}

// ---- TestPostFilter ----

struct PostFilterCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> pods;
  std::vector<api::PodDisruptionBudget> pdbs;
  std::vector<api::Node> nodes;
  NodeToStatus filtered;
  std::vector<std::string> plugins = {"NodeResourcesFit", "test-plugin"};
  // nullopt: the result must stay untouched (kube's nil result).
  std::optional<PostFilterResult> want_result;
  Code want_code = Code::kSuccess;
  std::string want_message;
};

PostFilterResult Nominate(std::string node) {
  return PostFilterResult{std::move(node), false};
}
PostFilterResult ClearNomination() { return PostFilterResult{"", true}; }

void PrintTo(const PostFilterCase& c, std::ostream* os) { *os << c.name; }

class PostFilterTest : public ::testing::TestWithParam<PostFilterCase> {};

TEST_P(PostFilterTest, Run) {
  const PostFilterCase& c = GetParam();
  Env env({.plugins = c.plugins});
  ASSERT_EQ(env.create_error(), "");
  env.SetCluster(c.nodes, c.pods);
  for (const auto& pdb : c.pdbs) env.AddPdb(pdb);
  auto pod = framework::PodInfo::Create(std::make_shared<api::Pod>(c.pod));
  framework::CycleState state;
  ASSERT_TRUE(env.PreFilter(state, *pod).IsSuccess());

  PostFilterResult result{"untouched", false};
  Status s = env.plugin().PostFilter(state, *pod, c.filtered, &result);
  EXPECT_EQ(s.code(), c.want_code) << s.Message();
  EXPECT_EQ(s.Message(), c.want_message);
  PostFilterResult want = c.want_result.value_or(PostFilterResult{"untouched"});
  EXPECT_EQ(result.nominated_node_name, want.nominated_node_name);
  EXPECT_EQ(result.clear_nomination, want.clear_nomination);
}

// Cases of kube-scheduler's TestPostFilter (default_preemption_test.go).
std::vector<PostFilterCase> PostFilterCases() {
  const std::string kLabel = "test.kubernetes.io/is-violating-pdb";
  std::vector<PostFilterCase> cases;
  cases.push_back({
      .name = "PodWithHigherPriorityCanBeMadeSchedulable",
      .pod = MakePod("p").Priority(kHighPriority).Obj(),
      .pods = {MakePod("p1").Node("node1").Obj()},
      .nodes = {Node("node1", OnePodRes())},
      .filtered = Statuses({{"node1", Code::kUnschedulable}}),
      .want_result = Nominate("node1"),
  });
  cases.push_back({
      .name = "PodWithTiedPriorityIsStillUnschedulable",
      .pod = MakePod("p").Obj(),
      .pods = {MakePod("p1").Node("node1").Obj()},
      .nodes = {Node("node1", OnePodRes())},
      .filtered = Statuses({{"node1", Code::kUnschedulable}}),
      .want_result = ClearNomination(),
      .want_code = Code::kUnschedulable,
      .want_message = "preemption: 0/1 nodes are available: 1 No preemption "
                      "victims found for incoming pod.",
  });
  cases.push_back({
      .name = "PreemptionShouldRespectFilteredNodesStatuses",
      .pod = MakePod("p").Priority(kHighPriority).Obj(),
      .pods = {MakePod("p1").Node("node1").Obj()},
      .nodes = {Node("node1", OnePodRes())},
      .filtered = Statuses({{"node1", Code::kUnschedulableAndUnresolvable}}),
      .want_result = ClearNomination(),
      .want_code = Code::kUnschedulable,
      .want_message = "preemption: 0/1 nodes are available: 1 Preemption is "
                      "not helpful for scheduling.",
  });
  cases.push_back({
      .name = "AbsentEntryMeansUnschedulableAndUnresolvable",
      .pod = MakePod("p").Priority(kHighPriority).Obj(),
      .pods = {MakePod("p1").Node("node1").Obj()},
      .nodes = {Node("node1", OnePodRes())},
      .filtered = NodeToStatus(),
      .want_result = ClearNomination(),
      .want_code = Code::kUnschedulable,
      .want_message = "preemption: 0/1 nodes are available: 1 Preemption is "
                      "not helpful for scheduling.",
  });
  cases.push_back({
      .name = "PodCanBeMadeSchedulableOnOneNode",
      .pod = MakePod("p").Priority(kMidPriority).Obj(),
      .pods = {MakePod("p1").Priority(kHighPriority).Node("node1").Obj(),
               MakePod("p2").Priority(kLowPriority).Node("node2").Obj()},
      .nodes = {Node("node1", OnePodRes()), Node("node2", OnePodRes())},
      .filtered = Statuses(
          {{"node1", Code::kUnschedulable}, {"node2", Code::kUnschedulable}}),
      .want_result = Nominate("node2"),
  });
  cases.push_back({
      .name = "PodCanBeMadeSchedulableOnMinHighestPriorityNode",
      .pod = MakePod("p").Priority(kVeryHighPriority).Obj(),
      .pods = {MakePod("p1")
                   .Label(kLabel, "non-violating")
                   .Priority(kHighPriority)
                   .Node("node1")
                   .Obj(),
               MakePod("p2")
                   .Label(kLabel, "violating")
                   .Priority(kLowPriority)
                   .Node("node1")
                   .Obj(),
               MakePod("p3")
                   .Label(kLabel, "violating")
                   .Priority(kMidPriority)
                   .Node("node2")
                   .Obj()},
      .pdbs = {MakePdb("violating-pdb", {{kLabel, "violating"}}, 0),
               MakePdb("non-violating-pdb", {{kLabel, "non-violating"}},
                       2147483647)},
      .nodes = {Node("node1", OnePodRes()), Node("node2", OnePodRes())},
      .filtered = Statuses(
          {{"node1", Code::kUnschedulable}, {"node2", Code::kUnschedulable}}),
      .want_result = Nominate("node2"),
  });
  cases.push_back({
      .name = "NoCandidateNodesNotEnoughResourceAfterRemovingLowPriorityPods",
      .pod = MakePod("p").Priority(kHighPriority).Req(LargeRes()).Obj(),
      .pods = {MakePod("p1").Node("node1").Obj(),
               MakePod("p2").Node("node2").Obj()},
      .nodes = {Node("node1", NodeRes()), Node("node2", NodeRes())},
      .filtered = Statuses(
          {{"node1", Code::kUnschedulable}, {"node2", Code::kUnschedulable}}),
      .want_result = ClearNomination(),
      .want_code = Code::kUnschedulable,
      .want_message =
          "preemption: 0/2 nodes are available: 2 Insufficient cpu.",
  });
  cases.push_back({
      .name = "NoCandidateNodesMixedReasons",
      .pod = MakePod("p").Priority(kHighPriority).Req(LargeRes()).Obj(),
      .pods = {MakePod("p1").Node("node1").Priority(kHighPriority).Obj(),
               MakePod("p2").Node("node2").Obj(),
               MakePod("p3").Node("node3").Priority(kHighPriority).Obj()},
      .nodes = {Node("node1", OnePodRes()), Node("node2", NodeRes()),
                Node("node3", OnePodRes())},
      .filtered = Statuses({{"node1", Code::kUnschedulable},
                            {"node2", Code::kUnschedulable},
                            {"node3", Code::kUnschedulable}}),
      .want_result = ClearNomination(),
      .want_code = Code::kUnschedulable,
      .want_message = "preemption: 0/3 nodes are available: 1 Insufficient "
                      "cpu, 2 No preemption victims found for incoming pod.",
  });
  cases.push_back({
      .name = "NoCandidateNodesTwoUnresolvableTwoWithoutEnoughCpu",
      .pod = MakePod("p").Priority(kHighPriority).Req(LargeRes()).Obj(),
      .pods = {MakePod("p1").Node("node1").Obj(),
               MakePod("p2").Node("node2").Obj()},
      .nodes = {Node("node1", NodeRes()), Node("node2", NodeRes()),
                Node("node3", NodeRes()), Node("node4", NodeRes())},
      .filtered = Statuses({{"node1", Code::kUnschedulable},
                            {"node2", Code::kUnschedulable},
                            {"node4", Code::kUnschedulableAndUnresolvable}}),
      .want_result = ClearNomination(),
      .want_code = Code::kUnschedulable,
      .want_message = "preemption: 0/4 nodes are available: 2 Insufficient "
                      "cpu, 2 Preemption is not helpful for scheduling.",
  });
  cases.push_back({
      .name = "OnlyOneNodeButFailedWithTestPlugin",
      .pod = MakePod("p").Priority(kHighPriority).Req(LargeRes()).Obj(),
      .pods = {MakePod("p1").Node("node1").Obj()},
      .nodes = {NodeBuilder("node1")
                    .Capacity(NodeCapacity(LargeRes()))
                    .Label("error", "true")
                    .Obj()},
      .filtered = Statuses({{"node1", Code::kUnschedulable}}),
      .want_code = Code::kError,
      .want_message = "preemption: running RemovePod on PreFilter plugin "
                      "\"test-plugin\": failed to remove pod: p",
  });
  cases.push_back({
      .name = "OneFailedWithTestPluginAndTheOtherPasses",
      .pod = MakePod("p").Priority(kHighPriority).Req(LargeRes()).Obj(),
      .pods = {MakePod("p1").Node("node1").Obj(),
               MakePod("p2").Node("node2").Req(MediumRes()).Obj()},
      .nodes = {NodeBuilder("node1")
                    .Capacity(NodeCapacity(LargeRes()))
                    .Label("error", "true")
                    .Obj(),
                Node("node2", LargeRes())},
      .filtered = Statuses(
          {{"node1", Code::kUnschedulable}, {"node2", Code::kUnschedulable}}),
      .want_result = Nominate("node2"),
  });
  // TestPostFilter's "pod with preemptionPolicy=Never" (kube v1.32).
  cases.push_back({
      .name = "PodWithPreemptionPolicyNever",
      .pod = MakePod("p")
                 .Priority(kHighPriority)
                 .PreemptionPolicy(api::PreemptionPolicy::kNever)
                 .Obj(),
      .pods = {MakePod("p1").Node("node1").Obj()},
      .nodes = {Node("node1", OnePodRes())},
      .filtered = Statuses({{"node1", Code::kUnschedulable}}),
      .want_code = Code::kUnschedulable,
      .want_message = "preemption: not eligible due to preemptionPolicy=Never.",
  });
  cases.push_back({
      .name = "NoNodes",
      .pod = MakePod("p").Priority(kHighPriority).Obj(),
      .filtered = NodeToStatus(),
      .want_code = Code::kError,
      .want_message = "preemption: no nodes available",
  });
  return cases;
}

INSTANTIATE_TEST_SUITE_P(TestPostFilter, PostFilterTest,
                         ::testing::ValuesIn(PostFilterCases()),
                         [](const ::testing::TestParamInfo<PostFilterCase>& i) {
                           return i.param.name;
                         });

// Through the Framework: its PostFilter extension point runs the plugin
// registered under "DefaultPreemption".
TEST(DefaultPreemptionFrameworkTest, RunPostFilterPluginsNominates) {
  Env env({});
  ASSERT_EQ(env.create_error(), "");
  env.SetCluster({Node("node1", OnePodRes())},
                 {MakePod("p1").Node("node1").Obj()});
  auto pod = MakePod("p").Priority(kHighPriority).Info();
  framework::CycleState state;
  ASSERT_TRUE(env.PreFilter(state, *pod).IsSuccess());
  PostFilterResult result;
  Status s = env.fwk().RunPostFilterPlugins(
      state, *pod, Statuses({{"node1", Code::kUnschedulable}}), &result);
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(result.nominated_node_name, "node1");
  EXPECT_THAT(env.writer().deleted, ElementsAre("default/p1"));
}

TEST(DefaultPreemptionFactoryTest, DefaultsAndValidation) {
  ::ksched::testing::FakeHandle handle;
  auto plugin = NewDefaultPreemption(nullptr, handle);
  ASSERT_TRUE(plugin.ok()) << plugin.error().message();
  auto* dp = dynamic_cast<DefaultPreemption*>(plugin->get());
  ASSERT_NE(dp, nullptr);
  EXPECT_EQ(dp->Name(), "DefaultPreemption");
  // v1.35: asynchronous preemption registers Pod/Delete, whose hint always
  // says QueueSkip.
  std::vector<framework::ClusterEventWithHint> events = dp->EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[0].event.action, framework::kDelete);
  EXPECT_EQ(events[0].hint(MakePod("p").Obj(), framework::EventObjects{}),
            framework::QueueingHint::kQueueSkip);
  EXPECT_TRUE(dp->PreEnqueue(MakePod("p").Obj()).IsSuccess());
  {
    ::ksched::testing::FakeHandle v132;
    v132.features_ = config::FeatureGates(config::KubeVersion{1, 32});
    auto sync = NewDefaultPreemption(nullptr, v132);
    ASSERT_TRUE(sync.ok());
    EXPECT_TRUE(dynamic_cast<DefaultPreemption*>(sync->get())
                    ->EventsToRegister()
                    .empty());
  }
  // Defaults: 10% of the nodes, at least 100, at most all of them.
  EXPECT_EQ(dp->CalculateNumCandidates(50), 50);
  EXPECT_EQ(dp->CalculateNumCandidates(5000), 500);

  config::DefaultPreemptionArgs bad;
  bad.min_candidate_nodes_percentage = 0;
  bad.min_candidate_nodes_absolute = 0;
  auto rejected = NewDefaultPreemption(&bad, handle);
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(rejected.error().message(),
            "[minCandidateNodesPercentage: Invalid value: 0: cannot be zero at "
            "the same time as minCandidateNodesAbsolute, "
            "minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at "
            "the same time as minCandidateNodesPercentage]");

  config::InterPodAffinityArgs wrong;
  EXPECT_FALSE(NewDefaultPreemption(&wrong, handle).ok());
}

// ---- TestPodEligibleToPreemptOthers ----

struct EligibleCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> pods;
  std::vector<std::string> nodes;
  Status nominated_node_status;
  bool expected;
  std::string reason;
};

api::Pod PreemptedVictim(api::Pod pod) {
  api::PodCondition c;
  c.type = "DisruptionTarget";
  c.status = "True";
  c.reason = "PreemptionByScheduler";
  pod.status.conditions.push_back(c);
  return pod;
}

void PrintTo(const EligibleCase& c, std::ostream* os) { *os << c.name; }

class PodEligibleTest : public ::testing::TestWithParam<EligibleCase> {};

TEST_P(PodEligibleTest, Run) {
  const EligibleCase& c = GetParam();
  Env env({});
  std::vector<api::Node> nodes;
  for (const std::string& n : c.nodes) nodes.push_back(NodeBuilder(n).Obj());
  env.SetCluster(nodes, c.pods);
  Eligibility got =
      env.plugin().PodEligibleToPreemptOthers(c.pod, c.nominated_node_status);
  EXPECT_EQ(got.eligible, c.expected);
  EXPECT_EQ(got.reason, c.reason);
}

INSTANTIATE_TEST_SUITE_P(
    TestPodEligibleToPreemptOthers, PodEligibleTest,
    ::testing::Values(
        EligibleCase{
            "PodWithNominatedNodeUnresolvable",
            MakePod("p").Priority(kHighPriority).NominatedNode("node1").Obj(),
            {MakePod("p1")
                 .Priority(kLowPriority)
                 .Node("node1")
                 .Terminating()
                 .Obj()},
            {"node1"},
            Status::Unresolvable("node(s) had untolerated taint {foo: bar}"),
            true},
        EligibleCase{"PodWithoutNominatedNode",
                     MakePod("p").Priority(kHighPriority).Obj(),
                     {},
                     {},
                     Status(),
                     true},
        EligibleCase{"PodWithPreemptNeverPolicy",
                     MakePod("p")
                         .Priority(kHighPriority)
                         .PreemptionPolicy(api::PreemptionPolicy::kNever)
                         .Obj(),
                     {},
                     {},
                     Status(),
                     false,
                     "not eligible due to preemptionPolicy=Never."},
        EligibleCase{
            "PreemptionVictimTerminating",
            MakePod("p").Priority(kHighPriority).NominatedNode("node1").Obj(),
            {PreemptedVictim(MakePod("p1")
                                 .Priority(kLowPriority)
                                 .Node("node1")
                                 .Terminating()
                                 .Obj())},
            {"node1"},
            Status(),
            false,
            "not eligible due to a terminating pod on the nominated node."},
        EligibleCase{
            "NonVictimPodsTerminating",
            MakePod("p").Priority(kHighPriority).NominatedNode("node1").Obj(),
            {MakePod("p1")
                 .Priority(kLowPriority)
                 .Node("node1")
                 .Terminating()
                 .Obj()},
            {"node1"},
            Status(),
            true},
        // A terminating victim of equal priority is not one this pod made.
        EligibleCase{
            "EqualPriorityVictimTerminating",
            MakePod("p").Priority(kHighPriority).NominatedNode("node1").Obj(),
            {PreemptedVictim(MakePod("p1")
                                 .Priority(kHighPriority)
                                 .Node("node1")
                                 .Terminating()
                                 .Obj())},
            {"node1"},
            Status(),
            true}),
    [](const ::testing::TestParamInfo<EligibleCase>& i) {
      return i.param.name;
    });

// ---- TestPreempt ----

struct PreemptCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> pods;
  std::vector<std::string> node_names;
  std::vector<std::string> plugins = {"NodeResourcesFit"};
  std::string want_node;  // "" : no nomination
  std::vector<std::string> expected_pods;
};

void PrintTo(const PreemptCase& c, std::ostream* os) { *os << c.name; }

class PreemptTest : public ::testing::TestWithParam<PreemptCase> {};

TEST_P(PreemptTest, DeletesVictimsThroughTheWriter) {
  const PreemptCase& c = GetParam();
  Env env({.plugins = c.plugins});
  std::vector<api::Node> nodes;
  for (const std::string& n : c.node_names) {
    nodes.push_back(
        NodeBuilder(n).Capacity(NodeCapacity(VeryLargeRes())).Obj());
  }
  env.SetCluster(nodes, c.pods);
  auto pod = framework::PodInfo::Create(std::make_shared<api::Pod>(c.pod));
  framework::CycleState state;
  ASSERT_TRUE(env.PreFilter(state, *pod).IsSuccess());
  NodeToStatus filtered;
  for (const std::string& n : c.node_names) {
    filtered.Set(n, Status(Code::kUnschedulable));
  }

  PostFilterResult result;
  Status s = env.plugin().PostFilter(state, *pod, filtered, &result);
  EXPECT_TRUE(s.IsSuccess() || s.IsRejected()) << s.Message();
  EXPECT_EQ(result.nominated_node_name, c.want_node);

  std::vector<std::string> want_keys;
  for (const std::string& p : c.expected_pods)
    want_keys.push_back("default/" + p);
  EXPECT_EQ(env.writer().deleted, want_keys);
  // Every victim gets the DisruptionTarget condition before its deletion,
  // and a Preempted event.
  std::vector<std::string> patched;
  for (const auto& w : env.writer().status_writes) {
    patched.push_back(w.pod);
    ASSERT_TRUE(w.update.condition.has_value());
    EXPECT_EQ(w.update.condition->type, "DisruptionTarget");
    EXPECT_EQ(w.update.condition->status, "True");
    EXPECT_EQ(w.update.condition->reason, "PreemptionByScheduler");
    EXPECT_EQ(w.update.condition->message,
              "default-scheduler: preempting to accommodate a higher "
              "priority pod");
    EXPECT_FALSE(w.update.nominated_node_name.has_value());
  }
  EXPECT_EQ(patched, want_keys);
  ASSERT_EQ(env.writer().events.size(), c.expected_pods.size());
  for (size_t i = 0; i < c.expected_pods.size(); ++i) {
    const auto& e = env.writer().events[i];
    EXPECT_EQ(e.pod, want_keys[i]);
    EXPECT_EQ(e.type, "Normal");
    EXPECT_EQ(e.reason, "Preempted");
    EXPECT_EQ(e.action, "Preempting");
    EXPECT_EQ(e.note, "Preempted by pod p on node " + c.want_node);
  }
}

INSTANTIATE_TEST_SUITE_P(
    TestPreempt, PreemptTest,
    ::testing::Values(
        PreemptCase{
            "BasicPreemptionLogic",
            MakePod("p")
                .Priority(kHighPriority)
                .Req(VeryLargeRes())
                .PreemptionPolicy(api::PreemptionPolicy::kPreemptLowerPriority)
                .Obj(),
            {MakePod("p1.1")
                 .Node("node1")
                 .Priority(kLowPriority)
                 .Req(SmallRes())
                 .Obj(),
             MakePod("p1.2")
                 .Node("node1")
                 .Priority(kLowPriority)
                 .Req(SmallRes())
                 .Obj(),
             MakePod("p2.1")
                 .Node("node2")
                 .Priority(kHighPriority)
                 .Req(LargeRes())
                 .Obj(),
             MakePod("p3.1")
                 .Node("node3")
                 .Priority(kMidPriority)
                 .Req(MediumRes())
                 .Obj()},
            {"node1", "node2", "node3"},
            {"NodeResourcesFit"},
            "node1",
            {"p1.1", "p1.2"}},
        PreemptCase{"NoPreemptingInPod",
                    MakePod("p")
                        .Priority(kHighPriority)
                        .Req(VeryLargeRes())
                        .PreemptionPolicy(api::PreemptionPolicy::kNever)
                        .Obj(),
                    {MakePod("p1.1")
                         .Node("node1")
                         .Priority(kLowPriority)
                         .Req(SmallRes())
                         .Obj(),
                     MakePod("p1.2")
                         .Node("node1")
                         .Priority(kLowPriority)
                         .Req(SmallRes())
                         .Obj(),
                     MakePod("p2.1")
                         .Node("node2")
                         .Priority(kHighPriority)
                         .Req(LargeRes())
                         .Obj(),
                     MakePod("p3.1")
                         .Node("node3")
                         .Priority(kMidPriority)
                         .Req(MediumRes())
                         .Obj()},
                    {"node1", "node2", "node3"},
                    {"NodeResourcesFit"},
                    "",
                    {}},
        PreemptCase{
            "PreemptionPolicyIsNil",
            MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Obj(),
            {MakePod("p1.1")
                 .Node("node1")
                 .Priority(kLowPriority)
                 .Req(SmallRes())
                 .Obj(),
             MakePod("p1.2")
                 .Node("node1")
                 .Priority(kLowPriority)
                 .Req(SmallRes())
                 .Obj(),
             MakePod("p2.1")
                 .Node("node2")
                 .Priority(kHighPriority)
                 .Req(LargeRes())
                 .Obj(),
             MakePod("p3.1")
                 .Node("node3")
                 .Priority(kMidPriority)
                 .Req(MediumRes())
                 .Obj()},
            {"node1", "node2", "node3"},
            {"NodeResourcesFit"},
            "node1",
            {"p1.1", "p1.2"}},
        // kube's "preemption for topology spread constraints" needs a filter
        // with PreFilter state kept by AddPod/RemovePod; BlockerFilter is
        // one, since PodTopologySpread is not built here yet.
        PreemptCase{
            "PreemptionForStatefulFilter",
            MakePod("p").Priority(kHighPriority).Obj(),
            {MakePod("p-a1")
                 .Node("node-a")
                 .Label("blocker", "")
                 .Priority(kHighPriority)
                 .Obj(),
             MakePod("p-a2").Node("node-a").Priority(kLowPriority).Obj(),
             MakePod("p-b1")
                 .Node("node-b")
                 .Label("blocker", "")
                 .Priority(kLowPriority)
                 .Obj(),
             MakePod("p-b2").Node("node-b").Priority(kLowPriority).Obj()},
            {"node-a", "node-b"},
            {"NodeResourcesFit", "BlockerFilter"},
            "node-b",
            {"p-b1"}},
        // A host port taken by a lower-priority pod (NodePorts).
        PreemptCase{
            "PreemptionForHostPort",
            MakePod("p").Priority(kHighPriority).ContainerPort(8080).Obj(),
            {MakePod("p1.1")
                 .Node("node1")
                 .Priority(kLowPriority)
                 .ContainerPort(8080)
                 .Obj(),
             MakePod("p1.2")
                 .Node("node1")
                 .Priority(kLowPriority)
                 .ContainerPort(9090)
                 .Obj(),
             MakePod("p2.1")
                 .Node("node2")
                 .Priority(kHighPriority)
                 .ContainerPort(8080)
                 .Obj()},
            {"node1", "node2"},
            {"NodeResourcesFit", "NodePorts"},
            "node1",
            {"p1.1"}}),
    [](const ::testing::TestParamInfo<PreemptCase>& i) {
      return i.param.name;
    });

// After a preemption, the preemptor is nominated to the node and its
// victims terminate: a new attempt must not preempt more pods there
// (TestPreempt's second Preempt call).
TEST(PreemptFlowTest, DoesNotPreemptAgainWhileVictimsTerminate) {
  Env env({});
  std::vector<api::Node> nodes = {
      NodeBuilder("node1").Capacity(NodeCapacity(VeryLargeRes())).Obj(),
      NodeBuilder("node2").Capacity(NodeCapacity(VeryLargeRes())).Obj()};
  std::vector<api::Pod> pods = {MakePod("p1.1")
                                    .Node("node1")
                                    .Priority(kLowPriority)
                                    .Req(SmallRes())
                                    .Obj(),
                                MakePod("p1.2")
                                    .Node("node1")
                                    .Priority(kLowPriority)
                                    .Req(SmallRes())
                                    .Obj(),
                                MakePod("p2.1")
                                    .Node("node2")
                                    .Priority(kLowPriority)
                                    .Req(LargeRes())
                                    .Obj()};
  env.SetCluster(nodes, pods);
  api::Pod preemptor =
      MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Obj();
  auto pod = framework::PodInfo::Create(std::make_shared<api::Pod>(preemptor));
  NodeToStatus filtered = Statuses(
      {{"node1", Code::kUnschedulable}, {"node2", Code::kUnschedulable}});
  framework::CycleState state;
  ASSERT_TRUE(env.PreFilter(state, *pod).IsSuccess());
  PostFilterResult result;
  ASSERT_TRUE(
      env.plugin().PostFilter(state, *pod, filtered, &result).IsSuccess());
  ASSERT_EQ(result.nominated_node_name, "node2");
  EXPECT_THAT(env.writer().deleted, ElementsAre("default/p2.1"));

  // The victim is now terminating with the condition the writer set.
  pods[2].metadata.deletion_timestamp =
      api::Time{api::Timestamp(std::chrono::seconds(5))};
  pods[2].status.conditions.push_back(
      *env.writer().status_writes[0].update.condition);
  env.SetCluster(nodes, pods);
  preemptor.status.nominated_node_name = "node2";
  pod = framework::PodInfo::Create(std::make_shared<api::Pod>(preemptor));
  framework::CycleState state2;
  ASSERT_TRUE(env.PreFilter(state2, *pod).IsSuccess());
  PostFilterResult again;
  Status s = env.plugin().PostFilter(state2, *pod, filtered, &again);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(),
            "preemption: not eligible due to a terminating pod on the "
            "nominated node.");
  EXPECT_EQ(again.nominated_node_name, "");
  EXPECT_FALSE(again.clear_nomination);
  EXPECT_EQ(env.writer().deleted.size(), 1u);
}

// Victims not bound yet are stopped in memory, as kube v1.36's executor
// does (executor.go): one waiting at Permit is preempted there (an error,
// so it goes back through backoff) and one in PreBind has its binding
// cancelled; neither gets an API call, and their events say so. One whose
// wait or PreBind is already over is deleted as a running pod is.
class UnboundVictimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pods_ = {MakePod("p1")
                 .Node("node1")
                 .Priority(kLowPriority)
                 .Req(LargeRes())
                 .Obj(),
             MakePod("p2")
                 .Node("node1")
                 .Priority(kLowPriority)
                 .Req(MediumRes())
                 .Obj()};
    env_.SetCluster(
        {NodeBuilder("node1").Capacity(NodeCapacity(VeryLargeRes())).Obj()},
        pods_);
  }
  std::shared_ptr<framework::WaitingPod> Waiting(const api::Pod& pod) {
    auto waiting = std::make_shared<framework::WaitingPod>(
        framework::PodInfo::Create(std::make_shared<api::Pod>(pod)),
        std::vector<std::pair<std::string, std::chrono::milliseconds>>{
            {"Coscheduling", std::chrono::milliseconds(60000)}},
        env_.clock().Now());
    env_.fwk().waiting_pods().Add(waiting);
    return waiting;
  }
  // Preempts both pods for a pod that needs the whole node.
  void Preempt() {
    auto pod = MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Info();
    framework::CycleState state;
    ASSERT_TRUE(env_.PreFilter(state, *pod).IsSuccess());
    PostFilterResult result;
    Status s = env_.plugin().PostFilter(
        state, *pod, Statuses({{"node1", Code::kUnschedulable}}), &result);
    ASSERT_TRUE(s.IsSuccess()) << s.Message();
    EXPECT_EQ(result.nominated_node_name, "node1");
  }
  // The Preempted event's note per victim.
  std::map<std::string, std::string> Notes() {
    std::map<std::string, std::string> notes;
    for (const auto& e : env_.writer().events) {
      EXPECT_EQ(e.reason, "Preempted");
      notes[e.pod] = e.note;
    }
    return notes;
  }
  Env env_{{}};
  std::vector<api::Pod> pods_;
};

TEST_F(UnboundVictimTest, WaitingVictimIsPreemptedInMemory) {
  auto waiting = Waiting(pods_[0]);
  Preempt();
  ASSERT_TRUE(waiting->Done());
  Status outcome = waiting->Wait();
  EXPECT_EQ(outcome.code(), Code::kError);
  EXPECT_EQ(outcome.Message(), "preempted");
  EXPECT_EQ(outcome.plugin(), "DefaultPreemption");
  EXPECT_THAT(env_.writer().deleted, ElementsAre("default/p2"));
  const auto notes = Notes();
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_THAT(
      notes.at("default/p1"),
      ::testing::EndsWith(" on node node1 (in kube-scheduler memory)."));
  EXPECT_THAT(notes.at("default/p2"), ::testing::EndsWith(" on node node1"));
}

TEST_F(UnboundVictimTest, VictimInPreBindHasItsBindingCancelled) {
  auto binding = env_.fwk().pods_in_prebind().Add(pods_[1].metadata.uid);
  Preempt();
  EXPECT_TRUE(binding->canceled());
  EXPECT_EQ(binding->cause(), "preempted by DefaultPreemption");
  // Its binding cycle cannot go on to bind it.
  EXPECT_FALSE(binding->MarkPrebound());
  EXPECT_THAT(env_.writer().deleted, ElementsAre("default/p1"));
  EXPECT_THAT(Notes().at("default/p2"),
              ::testing::EndsWith("(in kube-scheduler memory)."));
}

TEST_F(UnboundVictimTest, VictimsPastTheirWaitOrPreBindAreDeleted) {
  auto waiting = Waiting(pods_[0]);
  waiting->Allow("Coscheduling");
  auto binding = env_.fwk().pods_in_prebind().Add(pods_[1].metadata.uid);
  ASSERT_TRUE(binding->MarkPrebound());
  Preempt();
  EXPECT_TRUE(waiting->Wait().IsSuccess());
  EXPECT_FALSE(binding->canceled());
  EXPECT_THAT(env_.writer().deleted,
              UnorderedElementsAre("default/p1", "default/p2"));
  for (const auto& [pod, note] : Notes()) {
    EXPECT_EQ(note.find("memory"), std::string::npos) << pod << ": " << note;
  }
}

// Lower-priority pods nominated to the chosen node lose their nomination
// (through the writer and the nominator); others keep theirs.
TEST(PreemptFlowTest, ClearsLowerPriorityNominations) {
  Env env({});
  env.SetCluster(
      {NodeBuilder("node1").Capacity(NodeCapacity(VeryLargeRes())).Obj(),
       NodeBuilder("node2").Capacity(NodeCapacity(VeryLargeRes())).Obj()},
      {MakePod("v")
           .Node("node1")
           .Priority(kLowPriority)
           .Req(VeryLargeRes())
           .Obj(),
       MakePod("w")
           .Node("node2")
           .Priority(kHighPriority)
           .Req(VeryLargeRes())
           .Obj()});
  auto low =
      MakePod("low").Priority(kLowPriority).NominatedNode("node1").Info();
  auto low_in_memory = MakePod("low-in-memory").Priority(kLowPriority).Info();
  auto high =
      MakePod("high").Priority(kVeryHighPriority).NominatedNode("node1").Info();
  auto elsewhere =
      MakePod("elsewhere").Priority(kLowPriority).NominatedNode("node2").Info();
  env.nominator().AddNominatedPod(low, "");
  env.nominator().AddNominatedPod(low_in_memory, "node1");
  env.nominator().AddNominatedPod(high, "");
  env.nominator().AddNominatedPod(elsewhere, "");

  auto pod = MakePod("p").Priority(kHighPriority).Req(SmallRes()).Info();
  framework::CycleState state;
  ASSERT_TRUE(env.PreFilter(state, *pod).IsSuccess());
  PostFilterResult result;
  Status s =
      env.plugin().PostFilter(state, *pod,
                              Statuses({{"node1", Code::kUnschedulable},
                                        {"node2", Code::kUnschedulable}}),
                              &result);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(result.nominated_node_name, "node1");
  EXPECT_THAT(env.writer().deleted, ElementsAre("default/v"));

  std::vector<std::string> cleared;
  for (const auto& w : env.writer().status_writes) {
    if (w.update.nominated_node_name.has_value()) {
      EXPECT_EQ(*w.update.nominated_node_name, "");
      EXPECT_FALSE(w.update.condition.has_value());
      cleared.push_back(w.pod);
    }
  }
  EXPECT_THAT(cleared, ElementsAre("default/low"));
  EXPECT_THAT(Names(env.nominator().NominatedPodsForNode("node1"), true),
              ElementsAre("high", "low-in-memory"));
  EXPECT_THAT(Names(env.nominator().NominatedPodsForNode("node2")),
              ElementsAre("elsewhere"));
}

// ---- asynchronous preemption (SchedulerAsyncPreemption, v1.33+) ----

// Two victims that must both go for "p" to fit on node1.
void TwoVictims(Env& env, bool first_terminating = false) {
  PodBuilder first =
      MakePod("v1").Node("node1").Priority(kLowPriority).Req(MediumRes());
  if (first_terminating) first.Terminating();
  env.SetCluster(
      {NodeBuilder("node1").Capacity(NodeCapacity(VeryLargeRes())).Obj()},
      {first.Obj(), MakePod("v2")
                        .Node("node1")
                        .Priority(kLowPriority)
                        .Req(MediumRes())
                        .Obj()});
}

Status RunPostFilter(Env& env, const framework::PodInfoPtr& pod,
                     PostFilterResult* result) {
  framework::CycleState state;
  Status pre = env.PreFilter(state, *pod);
  if (!pre.IsSuccess()) return pre;
  return env.plugin().PostFilter(
      state, *pod, Statuses({{"node1", Code::kUnschedulable}}), result);
}

// The preemptor is nominated at once; the victims go in the background,
// and until then PreEnqueue holds the preemptor with v1.35's message.
TEST(AsyncPreemptionTest, VictimsAreEvictedInTheBackground) {
  Env env({.features = config::FeatureGates()});
  TwoVictims(env);
  auto pod = MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Info();
  PostFilterResult result;
  Status s = RunPostFilter(env, pod, &result);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(result.nominated_node_name, "node1");
  EXPECT_TRUE(env.writer().deleted.empty());
  EXPECT_EQ(env.background_tasks(), 1u);
  Status held = env.plugin().PreEnqueue(pod->pod());
  EXPECT_EQ(held.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(held.Message(),
            "waiting for the preemption for this pod to be finished");
  // Another pod is not held.
  EXPECT_TRUE(env.plugin().PreEnqueue(MakePod("other").Obj()).IsSuccess());

  EXPECT_EQ(env.RunBackground(), 1u);
  EXPECT_THAT(env.writer().deleted,
              UnorderedElementsAre("default/v1", "default/v2"));
  EXPECT_TRUE(env.plugin().PreEnqueue(pod->pod()).IsSuccess());
  EXPECT_TRUE(env.activated().empty());
}

// The last victim is evicted on its own, after the others; the preemptor
// counts as done as soon as the cluster no longer has that victim, so the
// deletion event finds it released (v1.35's lastVictimsPendingPreemption).
TEST(AsyncPreemptionTest, PreemptorIsReleasedOnceTheLastVictimIsGone) {
  Env env({.features = config::FeatureGates()});
  TwoVictims(env);
  auto pod = MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Info();
  std::vector<std::string> seen;
  env.writer().on_write = [&](std::string_view op, const std::string& key) {
    if (op == "status") return;
    seen.push_back(std::string(op) + " " + key + ": " +
                   (env.plugin().evaluator().IsPodRunningPreemption("p")
                        ? "held"
                        : "released"));
  };
  PostFilterResult result;
  ASSERT_TRUE(RunPostFilter(env, pod, &result).IsSuccess());
  env.RunBackground();
  ASSERT_EQ(seen.size(), 4u);
  // The first victim's deletion and event: still held.
  EXPECT_EQ(seen[0].substr(seen[0].size() - 4), "held");
  EXPECT_EQ(seen[1].substr(seen[1].size() - 4), "held");
  // The last victim is deleted: released from then on.
  EXPECT_EQ(seen[2].substr(0, 6), "delete");
  EXPECT_EQ(seen[2].substr(seen[2].size() - 8), "released");
  EXPECT_EQ(seen[3].substr(seen[3].size() - 8), "released");
}

// A failed API call: the preemptor is released and activated, since no
// event may come for it otherwise; it stays nominated until its next cycle.
TEST(AsyncPreemptionTest, FailedPreemptionActivatesThePreemptor) {
  Env env({.features = config::FeatureGates()});
  TwoVictims(env);
  env.writer().result = Status::Error("pods \"v1\" is forbidden");
  auto pod = MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Info();
  PostFilterResult result;
  Status s = RunPostFilter(env, pod, &result);
  // The cycle cannot know yet: it nominates as on success.
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(result.nominated_node_name, "node1");
  env.RunBackground();
  EXPECT_THAT(env.activated(), ElementsAre("p"));
  EXPECT_TRUE(env.plugin().PreEnqueue(pod->pod()).IsSuccess());
}

// v1.36: when a victim before the last cannot be preempted, the last one
// is spared (no call for it at all), so the preemptor comes back sooner.
TEST(AsyncPreemptionTest, AfterAFailureTheLastVictimIsSpared) {
  Env env({.features = config::FeatureGates()});
  TwoVictims(env);
  std::vector<std::string> calls;
  env.writer().on_write = [&](std::string_view op, const std::string& key) {
    calls.push_back(std::string(op) + " " + key);
    // The first victim's condition patch fails.
    if (key == "default/v1") {
      env.writer().result = Status::Error("pods \"v1\" is forbidden");
    }
  };
  auto pod = MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Info();
  PostFilterResult result;
  ASSERT_TRUE(RunPostFilter(env, pod, &result).IsSuccess());
  env.RunBackground();
  for (const std::string& call : calls) {
    EXPECT_EQ(call.find("default/v2"), std::string::npos) << call;
  }
  EXPECT_FALSE(calls.empty());
  EXPECT_THAT(env.activated(), ElementsAre("p"));
  EXPECT_TRUE(env.plugin().PreEnqueue(pod->pod()).IsSuccess());
}

// A victim whose graceful deletion has started needs no API call (v1.35),
// synchronously or not; when every victim is terminating nothing runs in
// the background and the preemptor is not held.
TEST(AsyncPreemptionTest, TerminatingVictimsAreNotDeletedAgain) {
  for (bool async : {false, true}) {
    SCOPED_TRACE(async ? "async" : "sync");
    Env env(
        {.features = async ? config::FeatureGates()
                           : config::FeatureGates(config::KubeVersion{1, 32})});
    TwoVictims(env, /*first_terminating=*/true);
    auto pod = MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Info();
    PostFilterResult result;
    ASSERT_TRUE(RunPostFilter(env, pod, &result).IsSuccess());
    env.RunBackground();
    EXPECT_THAT(env.writer().deleted, ElementsAre("default/v2"));
  }
  Env env({.features = config::FeatureGates()});
  env.SetCluster(
      {NodeBuilder("node1").Capacity(NodeCapacity(VeryLargeRes())).Obj()},
      {MakePod("v1")
           .Node("node1")
           .Priority(kLowPriority)
           .Req(VeryLargeRes())
           .Terminating()
           .Obj()});
  auto pod = MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Info();
  PostFilterResult result;
  ASSERT_TRUE(RunPostFilter(env, pod, &result).IsSuccess());
  EXPECT_EQ(result.nominated_node_name, "node1");
  EXPECT_EQ(env.background_tasks(), 0u);
  EXPECT_TRUE(env.plugin().PreEnqueue(pod->pod()).IsSuccess());
}

// A victim gone before its DisruptionTarget patch: the patch's failure is
// no error (v1.35), and nothing more is sent for it.
TEST(PreemptFlowTest, VictimAlreadyGoneIsNotAnError) {
  Env env({});
  TwoVictims(env);
  env.writer().result = Status::Error("pods \"v1\" not found");
  // The cluster no longer has either victim.
  env.writer().deleted = {"default/v1", "default/v2"};
  auto pod = MakePod("p").Priority(kHighPriority).Req(VeryLargeRes()).Info();
  PostFilterResult result;
  Status s = RunPostFilter(env, pod, &result);
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(result.nominated_node_name, "node1");
  EXPECT_TRUE(env.writer().events.empty());
}

// A failed deletion fails the preemption; the pod is not nominated.
TEST(PreemptFlowTest, WriterFailureIsAnError) {
  Env env({});
  env.SetCluster(
      {NodeBuilder("node1").Capacity(NodeCapacity(OnePodRes())).Obj()},
      {MakePod("p1").Node("node1").Obj()});
  env.writer().result = Status::Error("pods \"p1\" is forbidden");
  auto pod = MakePod("p").Priority(kHighPriority).Info();
  framework::CycleState state;
  ASSERT_TRUE(env.PreFilter(state, *pod).IsSuccess());
  PostFilterResult result{"untouched", false};
  Status s = env.plugin().PostFilter(
      state, *pod, Statuses({{"node1", Code::kUnschedulable}}), &result);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "preemption: pods \"p1\" is forbidden");
  EXPECT_EQ(result.nominated_node_name, "untouched");
  EXPECT_TRUE(env.writer().events.empty());
}

// A victim already carrying the same DisruptionTarget condition is not
// patched again (UpdatePodCondition reports no change), only deleted.
TEST(PreemptFlowTest, UnchangedConditionIsNotPatched) {
  Env env({});
  api::PodCondition c;
  c.type = "DisruptionTarget";
  c.status = "True";
  c.reason = "PreemptionByScheduler";
  c.message =
      "default-scheduler: preempting to accommodate a higher priority pod";
  api::Pod victim = MakePod("p1").Node("node1").Obj();
  victim.status.conditions.push_back(c);
  env.SetCluster(
      {NodeBuilder("node1").Capacity(NodeCapacity(OnePodRes())).Obj()},
      {victim});
  auto pod = MakePod("p").Priority(kHighPriority).Info();
  framework::CycleState state;
  ASSERT_TRUE(env.PreFilter(state, *pod).IsSuccess());
  PostFilterResult result;
  ASSERT_TRUE(env.plugin()
                  .PostFilter(state, *pod,
                              Statuses({{"node1", Code::kUnschedulable}}),
                              &result)
                  .IsSuccess());
  EXPECT_TRUE(env.writer().status_writes.empty());
  EXPECT_THAT(env.writer().deleted, ElementsAre("default/p1"));
}

}  // namespace
}  // namespace ksched::plugins::defaultpreemption::testing
