// PreFilter/Filter cases ported from kube-scheduler's
// interpodaffinity/filtering_test.go (TestRequiredAffinitySingleNode,
// TestRequiredAffinityMultipleNodes, TestPreFilterDisabled,
// TestPreFilterStateAddRemovePod), plus namespaceSelector cases of our own.
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/interpodaffinity/plugin.h"
#include "pkg/plugins/interpodaffinity/state.h"
#include "pkg/plugins/interpodaffinity/test_util.h"

namespace ksched::plugins {
namespace {

using framework::Code;
using framework::Status;
using interpodaffinity::test::AddNamespaces;
using interpodaffinity::test::CaseName;
using interpodaffinity::test::Exists;
using interpodaffinity::test::Exprs;
using interpodaffinity::test::In;
using interpodaffinity::test::Labels;
using interpodaffinity::test::MakeSnapshot;
using interpodaffinity::test::N;
using interpodaffinity::test::Namespaces;
using interpodaffinity::test::NamespaceSelector;
using interpodaffinity::test::NotIn;
using interpodaffinity::test::Op;
using interpodaffinity::test::P;
using interpodaffinity::test::Req;
using interpodaffinity::test::Term;

const std::string kAffinity(kInterPodAffinityErrReasonAffinity);
const std::string kAnti(kInterPodAffinityErrReasonAntiAffinity);
const std::string kExisting(kInterPodAffinityErrReasonExisting);
constexpr Code kReject = Code::kUnschedulableAndUnresolvable;
constexpr Code kUnsched = Code::kUnschedulable;

std::unique_ptr<framework::Plugin> MakePlugin(testing::FakeHandle& handle) {
  config::InterPodAffinityArgs args;
  auto plugin = NewInterPodAffinity(&args, handle);
  EXPECT_TRUE(plugin.ok()) << plugin.error().message();
  return std::move(plugin).value();
}

void ExpectStatus(const Status& got, Code code, const std::string& reason) {
  EXPECT_EQ(got.code(), code) << got.Message();
  if (code == Code::kSuccess || code == Code::kSkip) {
    EXPECT_TRUE(got.reasons().empty()) << got.Message();
  } else {
    EXPECT_EQ(got.reasons(), std::vector<std::string>{reason});
  }
}

// ---- TestRequiredAffinitySingleNode ----

struct SingleNodeCase {
  std::string name{};
  api::Pod pod{};
  std::vector<api::Pod> pods{};
  Code pre_filter_code = Code::kSuccess;
  std::string pre_filter_reason{};
  Code filter_code = Code::kSuccess;
  std::string filter_reason{};
  friend void PrintTo(const SingleNodeCase& c, std::ostream* os) {
    *os << c.name;
  }
};

// The Go test's labelSelector value error, as pkg/api words it: kube adds
// the key ("values[0][service]") and an example suffix, which the shared
// selector code leaves out.
const char* const kBadValueError =
    "parsing pod: requiredAffinityTerms: values[0]: Invalid value: "
    "\"{{.bad-value.}}\": a valid label must be an empty string or consist of "
    "alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";

std::vector<SingleNodeCase> SingleNodeCases() {
  const Labels pod_label = {{"service", "securityscan"}};
  const Labels pod_label2 = {{"security", "S1"}};
  const api::Pod existing = P("existing").Labels(pod_label).Node("node1").Obj();
  const std::vector<std::string> scan = {"securityscan", "value2"};
  const std::vector<std::string> antivirus = {"antivirusscan", "value2"};
  const Exprs exists_ands = {Req("service", Op::kExists),
                             Req("wrongkey", Op::kDoesNotExist)};
  const auto team1 = std::vector<api::LabelSelectorRequirement>{
      Req("team", Op::kIn, {"team1"})};
  return {
      {.name = "A pod that has no required pod affinity scheduling rules can "
               "schedule onto a node with no existing pods",
       .pod = P().Obj(),
       .pre_filter_code = Code::kSkip},
      {.name = "satisfies with requiredDuringSchedulingIgnoredDuringExecution "
               "in PodAffinity using In operator that matches the existing pod",
       .pod =
           P().Labels(pod_label2).Affinity(In("service", "region", scan)).Obj(),
       .pods = {existing}},
      {.name =
           "satisfies the pod with requiredDuringSchedulingIgnoredDuring"
           "Execution in PodAffinity using not in operator in labelSelector "
           "that matches the existing pod",
       .pod = P().Labels(pod_label2)
                  .Affinity(
                      NotIn("service", "region", {"securityscan3", "value3"}))
                  .Obj(),
       .pods = {existing}},
      {.name = "Does not satisfy the PodAffinity with labelSelector because of "
               "diff Namespace",
       .pod =
           P().Labels(pod_label2)
               .Affinity(Namespaces(Term("", {Req("service", Op::kIn, scan)}),
                                    {"DiffNameSpace"}))
               .Obj(),
       .pods =
           {P().Ns("ns").Label("service", "securityscan").Node("node1").Obj()},
       .filter_code = kReject,
       .filter_reason = kAffinity},
      {.name = "Doesn't satisfy the PodAffinity because of unmatching "
               "labelSelector with the existing pod",
       .pod = P().Labels(pod_label)
                  .Affinity(In("service", "", {"antivirusscan", "value2"}))
                  .Obj(),
       .pods = {existing},
       .filter_code = kReject,
       .filter_reason = kAffinity},
      {.name = "satisfies the PodAffinity with different label Operators in "
               "multiple RequiredDuringSchedulingIgnoredDuringExecution",
       .pod = P().Labels(pod_label2)
                  .Affinity(Term("region", exists_ands))
                  .Affinity(Term("region",
                                 {Req("service", Op::kIn, {"securityscan"}),
                                  Req("service", Op::kNotIn, {"WrongValue"})}))
                  .Obj(),
       .pods = {existing}},
      {.name = "The labelSelector requirements(items of matchExpressions) are "
               "ANDed, the pod cannot schedule onto the node because one of "
               "the matchExpression item don't match.",
       .pod = P().Labels(pod_label2)
                  .Affinity(Term("region", exists_ands))
                  .Affinity(Term("region",
                                 {Req("service", Op::kIn, {"securityscan2"}),
                                  Req("service", Op::kNotIn, {"WrongValue"})}))
                  .Obj(),
       .pods = {existing},
       .filter_code = kReject,
       .filter_reason = kAffinity},
      {.name = "satisfies the PodAffinity and PodAntiAffinity with the "
               "existing pod",
       .pod = P().Labels(pod_label2)
                  .Affinity(In("service", "region", scan))
                  .AntiAffinity(In("service", "node", antivirus))
                  .Obj(),
       .pods = {existing}},
      {.name = "satisfies the PodAffinity and PodAntiAffinity and "
               "PodAntiAffinity symmetry with the existing pod",
       .pod = P().Labels(pod_label2)
                  .Affinity(In("service", "region", scan))
                  .AntiAffinity(In("service", "node", antivirus))
                  .Obj(),
       .pods = {P("existing")
                    .Node("node1")
                    .Labels(pod_label)
                    .AntiAffinity(In("service", "node", antivirus))
                    .Obj()}},
      {.name = "satisfies the PodAffinity but doesn't satisfy the "
               "PodAntiAffinity with the existing pod",
       .pod = P().Labels(pod_label2)
                  .Affinity(In("service", "region", scan))
                  .AntiAffinity(In("service", "zone", scan))
                  .Obj(),
       .pods = {existing},
       .filter_code = kUnsched,
       .filter_reason = kAnti},
      {.name = "satisfies the PodAffinity and PodAntiAffinity but doesn't "
               "satisfy PodAntiAffinity symmetry with the existing pod",
       .pod = P().Labels(pod_label)
                  .Affinity(In("service", "region", scan))
                  .AntiAffinity(In("service", "node", antivirus))
                  .Obj(),
       .pods = {P("existing")
                    .Labels(pod_label)
                    .Node("node1")
                    .AntiAffinity(In("service", "zone", scan))
                    .Obj()},
       .filter_code = kUnsched,
       .filter_reason = kExisting},
      {.name = "pod matches its own Label in PodAffinity and that matches the "
               "existing pod Labels",
       .pod = P().Labels(pod_label)
                  .Affinity(NotIn("service", "region", scan))
                  .Obj(),
       .pods =
           {P("existing").Label("service", "securityscan").Node("node2").Obj()},
       .filter_code = kReject,
       .filter_reason = kAffinity},
      {.name =
           "verify that PodAntiAffinity from existing pod is respected when "
           "pod has no AntiAffinity constraints. doesn't satisfy "
           "PodAntiAffinity symmetry with the existing pod",
       .pod = P().Labels(pod_label).Obj(),
       .pods = {P("existing")
                    .Node("node1")
                    .Labels(pod_label)
                    .AntiAffinity(In("service", "zone", scan))
                    .Obj()},
       .filter_code = kUnsched,
       .filter_reason = kExisting},
      {.name =
           "verify that PodAntiAffinity from existing pod is respected when "
           "pod has no AntiAffinity constraints. satisfy PodAntiAffinity "
           "symmetry with the existing pod",
       .pod = P().Labels(pod_label).Obj(),
       .pods = {P("existing")
                    .Node("node1")
                    .Labels(pod_label)
                    .AntiAffinity(NotIn("service", "zone", scan))
                    .Obj()},
       .pre_filter_code = Code::kSkip},
      {.name = "satisfies the PodAntiAffinity with existing pod but doesn't "
               "satisfy PodAntiAffinity symmetry with incoming pod",
       .pod = P().Labels(pod_label)
                  .AntiAffinity(Exists("service", "region"))
                  .AntiAffinity(Exists("security", "region"))
                  .Obj(),
       .pods = {P("existing")
                    .Node("node1")
                    .Labels(pod_label2)
                    .AntiAffinity(Exists("security", "zone"))
                    .Obj()},
       .filter_code = kUnsched,
       .filter_reason = kAnti},
      {.name = "PodAntiAffinity symmetry check a1: incoming pod and existing "
               "pod partially match each other on AffinityTerms",
       .pod = P().Labels(pod_label)
                  .AntiAffinity(Exists("service", "zone"))
                  .AntiAffinity(Exists("security", "zone"))
                  .Obj(),
       .pods = {P("existing")
                    .Node("node1")
                    .Labels(pod_label2)
                    .AntiAffinity(Exists("security", "zone"))
                    .Obj()},
       .filter_code = kUnsched,
       .filter_reason = kAnti},
      {.name = "PodAntiAffinity symmetry check a2: incoming pod and existing "
               "pod partially match each other on AffinityTerms",
       .pod = P().Labels(pod_label2)
                  .AntiAffinity(Exists("security", "zone"))
                  .Obj(),
       .pods = {P("existing")
                    .Node("node1")
                    .Labels(pod_label)
                    .AntiAffinity(Exists("service", "zone"))
                    .AntiAffinity(Exists("security", "zone"))
                    .Obj()},
       .filter_code = kUnsched,
       .filter_reason = kExisting},
      {.name = "PodAntiAffinity symmetry check b1: incoming pod and existing "
               "pod partially match each other on AffinityTerms",
       .pod = P().Labels({{"abc", ""}, {"xyz", ""}})
                  .AntiAffinity(Exists("abc", "zone"))
                  .AntiAffinity(Exists("def", "zone"))
                  .Obj(),
       .pods = {P("existing")
                    .Node("node1")
                    .Labels({{"def", ""}, {"xyz", ""}})
                    .AntiAffinity(Exists("abc", "zone"))
                    .AntiAffinity(Exists("def", "zone"))
                    .Obj()},
       .filter_code = kUnsched,
       .filter_reason = kAnti},
      {.name = "PodAntiAffinity symmetry check b2: incoming pod and existing "
               "pod partially match each other on AffinityTerms",
       .pod = P().Labels({{"def", ""}, {"xyz", ""}})
                  .AntiAffinity(Exists("abc", "zone"))
                  .AntiAffinity(Exists("def", "zone"))
                  .Obj(),
       .pods = {P("existing")
                    .Node("node1")
                    .Labels({{"abc", ""}, {"xyz", ""}})
                    .AntiAffinity(Exists("abc", "zone"))
                    .AntiAffinity(Exists("def", "zone"))
                    .Obj()},
       .filter_code = kUnsched,
       .filter_reason = kAnti},
      {.name = "PodAffinity fails PreFilter with an invalid affinity label "
               "syntax",
       .pod = P().Labels(pod_label)
                  .Affinity(In("service", "region", {"{{.bad-value.}}"}))
                  .Affinity(In("service", "node", antivirus))
                  .Obj(),
       .pre_filter_code = kReject,
       .pre_filter_reason = kBadValueError},
      {.name = "PodAntiAffinity fails PreFilter with an invalid antiaffinity "
               "label syntax",
       .pod = P().Labels(pod_label)
                  .Affinity(In("service", "region", {"foo"}))
                  .Affinity(In("service", "node", {"{{.bad-value.}}"}))
                  .Obj(),
       .pre_filter_code = kReject,
       .pre_filter_reason = kBadValueError},
      {.name = "affinity with NamespaceSelector",
       .pod = P().Labels(pod_label2)
                  .Affinity(
                      NamespaceSelector(In("service", "region", scan), team1))
                  .Obj(),
       .pods = {P("existing")
                    .Ns("subteam1.team1")
                    .Labels(pod_label)
                    .Node("node1")
                    .Obj()}},
      {.name = "affinity with non-matching NamespaceSelector",
       .pod = P().Labels(pod_label2)
                  .Affinity(
                      NamespaceSelector(In("service", "region", scan), team1))
                  .Obj(),
       .pods = {P("existing")
                    .Ns("subteam1.team2")
                    .Labels(pod_label)
                    .Node("node1")
                    .Obj()},
       .filter_code = kReject,
       .filter_reason = kAffinity},
      {.name = "anti-affinity with matching NamespaceSelector",
       .pod = P().Ns("subteam1.team1")
                  .Labels(pod_label2)
                  .AntiAffinity(
                      NamespaceSelector(In("service", "zone", scan), team1))
                  .Obj(),
       .pods = {P("existing")
                    .Ns("subteam2.team1")
                    .Labels(pod_label)
                    .Node("node1")
                    .Obj()},
       .filter_code = kUnsched,
       .filter_reason = kAnti},
      {.name = "anti-affinity with matching all NamespaceSelector",
       .pod =
           P().Ns("subteam1.team1")
               .Labels(pod_label2)
               .AntiAffinity(NamespaceSelector(In("service", "zone", scan), {}))
               .Obj(),
       .pods = {P("existing")
                    .Ns("subteam2.team1")
                    .Labels(pod_label)
                    .Node("node1")
                    .Obj()},
       .filter_code = kUnsched,
       .filter_reason = kAnti},
      {.name = "anti-affinity with non-matching NamespaceSelector",
       .pod = P().Ns("subteam1.team1")
                  .Labels(pod_label2)
                  .AntiAffinity(
                      NamespaceSelector(In("service", "zone", scan), team1))
                  .Obj(),
       .pods = {P("existing")
                    .Ns("subteam1.team2")
                    .Labels(pod_label)
                    .Node("node1")
                    .Obj()}},
      // Ours: namespaceSelector on the existing pod's side, and namespaces
      // the lister does not know.
      {.name = "existing pod's anti-affinity selects the incoming pod's "
               "namespace by its labels",
       .pod = P().Ns("subteam2.team1").Labels(pod_label).Obj(),
       .pods = {P("existing")
                    .Ns("subteam1.team2")
                    .Node("node1")
                    .AntiAffinity(
                        NamespaceSelector(In("service", "zone", scan), team1))
                    .Obj()},
       .filter_code = kUnsched,
       .filter_reason = kExisting},
      {.name = "existing pod's anti-affinity namespaceSelector does not select "
               "the incoming pod's namespace",
       .pod = P().Ns("subteam2.team2").Labels(pod_label).Obj(),
       .pods = {P("existing")
                    .Ns("subteam1.team2")
                    .Node("node1")
                    .AntiAffinity(
                        NamespaceSelector(In("service", "zone", scan), team1))
                    .Obj()},
       .pre_filter_code = Code::kSkip},
      {.name = "a namespaceSelector never selects an unknown namespace, even "
               "with NotIn",
       .pod = P().Labels(pod_label2)
                  .Affinity(
                      NamespaceSelector(In("service", "region", scan),
                                        {Req("team", Op::kNotIn, {"team2"})}))
                  .Obj(),
       .pods =
           {P("existing").Ns("ghost").Labels(pod_label).Node("node1").Obj()},
       .filter_code = kReject,
       .filter_reason = kAffinity},
      {.name = "an empty namespaceSelector selects an unknown namespace",
       .pod =
           P().Labels(pod_label2)
               .Affinity(NamespaceSelector(In("service", "region", scan), {}))
               .Obj(),
       .pods =
           {P("existing").Ns("ghost").Labels(pod_label).Node("node1").Obj()}},
  };
}

class RequiredAffinitySingleNode
    : public ::testing::TestWithParam<SingleNodeCase> {};

TEST_P(RequiredAffinitySingleNode, Filter) {
  const SingleNodeCase& c = GetParam();
  api::Node node1 = N("node1", {{"region", "r1"}, {"zone", "z11"}});
  testing::FakeHandle handle(MakeSnapshot(c.pods, {node1}));
  AddNamespaces(handle);
  auto plugin = MakePlugin(handle);
  auto* pl = dynamic_cast<InterPodAffinity*>(plugin.get());
  ASSERT_NE(pl, nullptr);
  framework::PodInfoPtr pod =
      framework::PodInfo::Create(std::make_shared<const api::Pod>(c.pod));
  framework::CycleState state;
  framework::PreFilterResult result;
  Status s = pl->PreFilter(state, *pod, handle.snapshot().nodes(), &result);
  ExpectStatus(s, c.pre_filter_code, c.pre_filter_reason);
  EXPECT_TRUE(result.AllNodes());
  if (!s.IsSuccess()) return;
  ExpectStatus(pl->Filter(state, *pod, *handle.snapshot().nodes()[0]),
               c.filter_code, c.filter_reason);
}

INSTANTIATE_TEST_SUITE_P(InterPodAffinity, RequiredAffinitySingleNode,
                         ::testing::ValuesIn(SingleNodeCases()),
                         CaseName<SingleNodeCase>);

// ---- TestRequiredAffinityMultipleNodes ----

struct Want {
  Code code = Code::kSuccess;
  std::string reason{};
};

struct MultiNodeCase {
  std::string name{};
  api::Pod pod{};
  std::vector<api::Pod> pods{};
  std::vector<api::Node> nodes{};
  std::vector<Want> want{};
  Code pre_filter_code = Code::kSuccess;
  friend void PrintTo(const MultiNodeCase& c, std::ostream* os) {
    *os << c.name;
  }
};

std::vector<MultiNodeCase> MultiNodeCases() {
  const Labels rg_china = {{"region", "China"}};
  const Labels rg_china_az1 = {{"region", "China"}, {"az", "az1"}};
  const Labels rg_india = {{"region", "India"}};
  const Labels abc = {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeA"}};
  const Labels abc_b = {
      {"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeB"}};
  const Labels abc_b2 = {
      {"region", "r1"}, {"zone", "z2"}, {"hostname", "nodeB"}};
  const Labels abc_c3 = {
      {"region", "r1"}, {"zone", "z3"}, {"hostname", "nodeC"}};
  const Want ok{};
  const Want aff{kReject, kAffinity};
  const Want anti{kUnsched, kAnti};
  const Want existing{kUnsched, kExisting};
  return {
      {.name = "A pod can be scheduled onto all the nodes that have the same "
               "topology key & label value with one of them has an existing "
               "pod that matches the affinity rules",
       .pod = P().Affinity(In("foo", "region", {"bar"})).Obj(),
       .pods = {P("p1").Node("node1").Label("foo", "bar").Obj()},
       .nodes = {N("node1", rg_china), N("node2", rg_china_az1),
                 N("node3", rg_india)},
       .want = {ok, ok, aff}},
      {.name = "The affinity rule is to schedule all of the pods of this "
               "collection to the same zone. The first pod of the collection "
               "should not be blocked from being scheduled onto any node, even "
               "there's no existing pod that matches the rule anywhere.",
       .pod = P().Labels({{"foo", "bar"}, {"service", "securityscan"}})
                  .Affinity(In("foo", "zone", {"bar"}))
                  .Affinity(In("service", "zone", {"securityscan"}))
                  .Obj(),
       .pods = {P("p1").Node("nodeA").Label("foo", "bar").Obj()},
       .nodes = {N("nodeA", {{"zone", "az1"}, {"hostname", "h1"}}),
                 N("nodeB", {{"zone", "az2"}, {"hostname", "h2"}})},
       .want = {ok, ok}},
      {.name = "The first pod of the collection can only be scheduled on nodes "
               "labelled with the requested topology keys",
       .pod = P().Labels({{"foo", "bar"}, {"service", "securityscan"}})
                  .Affinity(In("foo", "zone", {"bar"}))
                  .Affinity(In("service", "zone", {"securityscan"}))
                  .Obj(),
       .pods = {P("p1").Node("nodeA").Label("foo", "bar").Obj()},
       .nodes = {N("nodeA", {{"zoneLabel", "az1"}, {"hostname", "h1"}}),
                 N("nodeB", {{"zoneLabel", "az2"}, {"hostname", "h2"}})},
       .want = {aff, aff}},
      {.name = "NodeA and nodeB have same topologyKey and label value. NodeA "
               "has an existing pod that matches the inter pod affinity rule. "
               "The pod can not be scheduled onto nodeA and nodeB.",
       .pod = P().AntiAffinity(In("foo", "region", {"abc"})).Obj(),
       .pods = {P("p").Node("nodeA").Label("foo", "abc").Obj()},
       .nodes = {N("nodeA", {{"region", "r1"}, {"hostname", "nodeA"}}),
                 N("nodeB", {{"region", "r1"}, {"hostname", "nodeB"}})},
       .want = {anti, anti}},
      {.name = "This test ensures that anti-affinity matches a pod when any "
               "term of the anti-affinity rule matches a pod.",
       .pod = P().AntiAffinity(In("foo", "region", {"abc"}))
                  .AntiAffinity(In("service", "zone", {"securityscan"}))
                  .Obj(),
       .pods = {P("p")
                    .Node("nodeA")
                    .Labels({{"foo", "abc"}, {"service", "securityscan"}})
                    .Obj()},
       .nodes = {N("nodeA",
                   {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeA"}}),
                 N("nodeB",
                   {{"region", "r1"}, {"zone", "z2"}, {"hostname", "nodeB"}})},
       .want = {anti, anti}},
      {.name = "NodeA and nodeB have same topologyKey and label value. NodeA "
               "has an existing pod that matches the inter pod affinity rule. "
               "The pod can not be scheduled onto nodeA and nodeB but can be "
               "scheduled onto nodeC",
       .pod = P().AntiAffinity(In("foo", "region", {"abc"})).Obj(),
       .pods = {P("p").Node("nodeA").Label("foo", "abc").Obj()},
       .nodes = {N("nodeA", rg_china), N("nodeB", rg_china_az1),
                 N("nodeC", rg_india)},
       .want = {anti, anti, ok}},
      {.name = "NodeA and nodeB have same topologyKey and label value. NodeA "
               "has an existing pod that matches the inter pod affinity rule. "
               "The pod can not be scheduled onto nodeA, nodeB, but can be "
               "scheduled onto nodeC (NodeC has an existing pod that match the "
               "inter pod affinity rule but in different namespace)",
       .pod = P().Ns("NS1")
                  .Label("foo", "123")
                  .AntiAffinity(In("foo", "region", {"bar"}))
                  .Obj(),
       .pods = {P("a").Node("nodeA").Ns("NS1").Label("foo", "bar").Obj(),
                P("c")
                    .Node("nodeC")
                    .Ns("NS2")
                    .AntiAffinity(In("foo", "region", {"123"}))
                    .Obj()},
       .nodes = {N("nodeA", rg_china), N("nodeB", rg_china_az1),
                 N("nodeC", rg_india)},
       .want = {anti, anti, ok}},
      {.name = "Test existing pod's anti-affinity: if an existing pod has a "
               "term with invalid topologyKey, labelSelector of the term is "
               "firstly checked, and then topologyKey of the term is also "
               "checked",
       .pod = P().Label("foo", "").Obj(),
       .pods = {P("p")
                    .Node("nodeA")
                    .AntiAffinity(Exists("foo", "invalid-node-label"))
                    .Obj()},
       .nodes = {N("nodeA", abc), N("nodeB", abc_b)},
       .want = {ok, ok},
       .pre_filter_code = Code::kSkip},
      {.name = "Test incoming pod's anti-affinity: even if labelSelector "
               "matches, we still check if topologyKey matches",
       .pod = P().Node("nodeA")
                  .AntiAffinity(Exists("foo", "invalid-node-label"))
                  .Obj(),
       .pods = {P("p").Node("nodeA").Label("foo", "").Obj()},
       .nodes = {N("nodeA", abc), N("nodeB", abc_b)},
       .want = {ok, ok}},
      {.name = "Test existing pod's anti-affinity: incoming pod wouldn't "
               "considered as a fit as it violates each existingPod's terms on "
               "all nodes",
       .pod = P().Label("foo", "").Label("bar", "").Obj(),
       .pods =
           {P("p1").Node("nodeA").AntiAffinity(Exists("foo", "zone")).Obj(),
            P("p2").Node("nodeA").AntiAffinity(Exists("bar", "region")).Obj()},
       .nodes = {N("nodeA", abc), N("nodeB", abc_b2)},
       .want = {existing, existing}},
      {.name = "Test incoming pod's anti-affinity: incoming pod wouldn't "
               "considered as a fit as it at least violates one anti-affinity "
               "rule of existingPod",
       .pod = P().AntiAffinity(Exists("foo", "zone"))
                  .AntiAffinity(Exists("bar", "region"))
                  .Obj(),
       .pods = {P("p1").Node("nodeA").Label("foo", "").Obj(),
                P("p2").Node("nodeB").Label("bar", "").Obj()},
       .nodes = {N("nodeA", abc), N("nodeB", abc_b2)},
       .want = {anti, anti}},
      {.name = "Test existing pod's anti-affinity: only when labelSelector and "
               "topologyKey both match, it's counted as a single term match - "
               "case when one term has invalid topologyKey",
       .pod = P().Label("foo", "").Label("bar", "").Obj(),
       .pods = {P("p")
                    .Node("nodeA")
                    .AntiAffinity(Exists("foo", "invalid-node-label"))
                    .AntiAffinity(Exists("bar", "zone"))
                    .Obj()},
       .nodes = {N("nodeA", abc), N("nodeB", abc_b2)},
       .want = {existing, ok}},
      {.name = "Test incoming pod's anti-affinity: only when labelSelector and "
               "topologyKey both match, it's counted as a single term match - "
               "case when one term has invalid topologyKey",
       .pod = P().AntiAffinity(Exists("foo", "invalid-node-label"))
                  .AntiAffinity(Exists("bar", "zone"))
                  .Obj(),
       .pods =
           {P("podA").Node("nodeA").Labels({{"foo", ""}, {"bar", ""}}).Obj()},
       .nodes = {N("nodeA", abc), N("nodeB", abc_b2)},
       .want = {anti, ok}},
      {.name = "Test existing pod's anti-affinity: only when labelSelector and "
               "topologyKey both match, it's counted as a single term match - "
               "case when all terms have valid topologyKey",
       .pod = P().Label("foo", "").Label("bar", "").Obj(),
       .pods = {P("p")
                    .Node("nodeA")
                    .AntiAffinity(Exists("foo", "region"))
                    .AntiAffinity(Exists("bar", "zone"))
                    .Obj()},
       .nodes = {N("nodeA", abc), N("nodeB", abc_b2)},
       .want = {existing, existing}},
      {.name = "Test incoming pod's anti-affinity: only when labelSelector and "
               "topologyKey both match, it's counted as a single term match - "
               "case when all terms have valid topologyKey",
       .pod = P().AntiAffinity(Exists("foo", "region"))
                  .AntiAffinity(Exists("bar", "zone"))
                  .Obj(),
       .pods = {P("p").Node("nodeA").Labels({{"foo", ""}, {"bar", ""}}).Obj()},
       .nodes = {N("nodeA", abc), N("nodeB", abc_b2)},
       .want = {anti, anti}},
      {.name =
           "Test existing pod's anti-affinity: existingPod on nodeA and "
           "nodeB has at least one anti-affinity term matches incoming pod, "
           "so incoming pod can only be scheduled to nodeC",
       .pod = P().Label("foo", "").Label("bar", "").Obj(),
       .pods = {P("p1")
                    .Node("nodeA")
                    .AntiAffinity(Exists("foo", "zone"))
                    .AntiAffinity(Exists("labelA", "zone"))
                    .Obj(),
                P("p2")
                    .Node("nodeB")
                    .AntiAffinity(Exists("bar", "zone"))
                    .AntiAffinity(Exists("labelB", "zone"))
                    .Obj()},
       .nodes = {N("nodeA", abc), N("nodeB", abc_b2), N("nodeC", abc_c3)},
       .want = {existing, existing, ok}},
      {.name = "Test incoming pod's affinity: firstly check if all "
               "affinityTerms match, and then check if all topologyKeys match",
       .pod = P().Affinity(Exists("foo", "region"))
                  .Affinity(Exists("bar", "zone"))
                  .Obj(),
       .pods =
           {P("pod1").Labels({{"foo", ""}, {"bar", ""}}).Node("nodeA").Obj()},
       .nodes = {N("nodeA", abc), N("nodeB", abc_b)},
       .want = {ok, ok}},
      {.name = "Test incoming pod's affinity: firstly check if all "
               "affinityTerms match, and then check if all topologyKeys match, "
               "and the match logic should be satisfied on the same pod",
       .pod = P().Affinity(Exists("foo", "region"))
                  .Affinity(Exists("bar", "zone"))
                  .Obj(),
       .pods = {P("pod1").Node("nodeA").Label("foo", "").Obj(),
                P("pod2").Node("nodeB").Label("bar", "").Obj()},
       .nodes = {N("nodeA", abc), N("nodeB", abc_b2)},
       .want = {aff, aff}},
  };
}

class RequiredAffinityMultipleNodes
    : public ::testing::TestWithParam<MultiNodeCase> {};

TEST_P(RequiredAffinityMultipleNodes, Filter) {
  const MultiNodeCase& c = GetParam();
  testing::FakeHandle handle(MakeSnapshot(c.pods, c.nodes));
  handle.namespace_labels["NS1"];
  auto plugin = MakePlugin(handle);
  auto* pl = dynamic_cast<InterPodAffinity*>(plugin.get());
  framework::PodInfoPtr pod =
      framework::PodInfo::Create(std::make_shared<const api::Pod>(c.pod));
  framework::CycleState state;
  Status s = pl->PreFilter(state, *pod, handle.snapshot().nodes(), nullptr);
  ExpectStatus(s, c.pre_filter_code, "");
  if (s.IsSkip()) return;
  ASSERT_EQ(c.want.size(), c.nodes.size());
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    SCOPED_TRACE(c.nodes[i].metadata.name);
    const framework::NodeInfo* info =
        handle.snapshot().Get(c.nodes[i].metadata.name);
    ASSERT_NE(info, nullptr);
    ExpectStatus(pl->Filter(state, *pod, *info), c.want[i].code,
                 c.want[i].reason);
  }
}

INSTANTIATE_TEST_SUITE_P(InterPodAffinity, RequiredAffinityMultipleNodes,
                         ::testing::ValuesIn(MultiNodeCases()),
                         CaseName<MultiNodeCase>);

// ---- TestPreFilterDisabled ----

TEST(InterPodAffinityTest, PreFilterDisabled) {
  testing::FakeHandle handle;
  auto plugin = MakePlugin(handle);
  auto* pl = dynamic_cast<InterPodAffinity*>(plugin.get());
  framework::CycleState state;
  auto node = testing::MakeNodeInfo(N("node"));
  Status s = pl->Filter(state, *P().Info(), *node);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "error reading \"PreFilterInterPodAffinity\" from cycleState: not "
            "found");
  // AddPod/RemovePod read the same state.
  EXPECT_EQ(pl->AddPod(state, *P().Info(), P().Info(), *node).Message(),
            s.Message());
}

TEST(InterPodAffinityTest, FilterNodeNotFound) {
  testing::FakeHandle handle;
  auto plugin = MakePlugin(handle);
  auto* pl = dynamic_cast<InterPodAffinity*>(plugin.get());
  framework::CycleState state;
  framework::NodeInfo no_node;
  Status s = pl->Filter(state, *P().Info(), no_node);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "node not found");
}

// ---- TestPreFilterStateAddRemovePod ----

using CountMap = std::map<std::pair<std::string, std::string>, int64_t>;

struct AddRemoveCase {
  std::string name{};
  api::Pod pending{};
  api::Pod added{};
  std::vector<api::Pod> existing{};
  CountMap want_anti{};
  CountMap want_affinity{};
  friend void PrintTo(const AddRemoveCase& c, std::ostream* os) {
    *os << c.name;
  }
};

std::vector<AddRemoveCase> AddRemoveCases() {
  const auto anti_foo_bar = [](P p) {
    return p.AntiAffinity(In("foo", "region", {"bar"}));
  };
  const auto anti_complex = [](P p) {
    return p.AntiAffinity(In("foo", "region", {"bar", "buzz"}))
        .AntiAffinity(NotIn("service", "zone", {"bar", "security", "test"}));
  };
  const auto affinity_complex = [](P p) {
    return p.Affinity(In("foo", "region", {"bar", "buzz"}))
        .Affinity(NotIn("service", "zone", {"bar", "security", "test"}));
  };
  return {
      {.name = "preFilterState anti-affinity terms are updated correctly "
               "after adding and removing a pod",
       .pending = anti_foo_bar(P("pending").Label("foo", "bar")).Obj(),
       .added =
           anti_foo_bar(P("addedPod").Label("foo", "bar").Node("nodeB")).Obj(),
       .existing = {P("p1").Label("foo", "bar").Node("nodeA").Obj(),
                    anti_foo_bar(P("p2").Node("nodeC")).Obj()},
       .want_anti = {{{"region", "r1"}, 2}}},
      {.name = "preFilterState anti-affinity terms are updated correctly "
               "after adding and removing a pod (complex terms)",
       .pending = anti_complex(P("pending").Label("foo", "bar")).Obj(),
       .added =
           anti_complex(P("addedPod").Label("foo", "bar").Node("nodeA")).Obj(),
       .existing = {P("p1").Label("foo", "bar").Node("nodeA").Obj(),
                    anti_foo_bar(P("p2").Node("nodeC")).Obj()},
       .want_anti = {{{"region", "r1"}, 2},
                     {{"zone", "z11"}, 2},
                     {{"zone", "z21"}, 1}}},
      {.name = "preFilterState matching pod affinity and anti-affinity are "
               "updated correctly after adding and removing a pod",
       .pending = affinity_complex(P("pending").Label("foo", "bar")).Obj(),
       .added =
           anti_complex(P("addedPod").Label("foo", "bar").Node("nodeA")).Obj(),
       .existing =
           {P("p1").Label("foo", "bar").Node("nodeA").Obj(),
            affinity_complex(anti_foo_bar(P("p2").Node("nodeC"))).Obj()},
       .want_affinity = {{{"region", "r1"}, 2}, {{"zone", "z11"}, 2}}},
  };
}

struct Counts {
  CountMap existing, affinity, anti;
  friend bool operator==(const Counts&, const Counts&) = default;
};

Counts CountsOf(const interpodaffinity::PreFilterState& s) {
  return {s.existing_anti_affinity.ToMap(s.keys), s.affinity.ToMap(s.keys),
          s.anti_affinity.ToMap(s.keys)};
}

class PreFilterStateAddRemovePod
    : public ::testing::TestWithParam<AddRemoveCase> {};

TEST_P(PreFilterStateAddRemovePod, AddThenRemove) {
  const AddRemoveCase& c = GetParam();
  const std::vector<api::Node> nodes = {
      N("nodeA", {{"region", "r1"}, {"zone", "z11"}}),
      N("nodeB", {{"region", "r1"}, {"zone", "z12"}}),
      N("nodeC", {{"region", "r2"}, {"zone", "z21"}})};
  framework::PodInfoPtr pending =
      framework::PodInfo::Create(std::make_shared<const api::Pod>(c.pending));
  framework::PodInfoPtr added =
      framework::PodInfo::Create(std::make_shared<const api::Pod>(c.added));

  // The state PreFilter computes with the added pod already in place.
  std::vector<api::Pod> all = c.existing;
  all.push_back(c.added);
  testing::FakeHandle all_handle(MakeSnapshot(all, nodes));
  auto all_plugin = MakePlugin(all_handle);
  framework::CycleState all_state;
  ASSERT_TRUE(dynamic_cast<InterPodAffinity*>(all_plugin.get())
                  ->PreFilter(all_state, *pending,
                              all_handle.snapshot().nodes(), nullptr)
                  .IsSuccess());
  Counts want_all = CountsOf(*interpodaffinity::ReadPreFilterState(all_state));

  testing::FakeHandle handle(MakeSnapshot(c.existing, nodes));
  auto plugin = MakePlugin(handle);
  auto* pl = dynamic_cast<InterPodAffinity*>(plugin.get());
  framework::CycleState state;
  ASSERT_TRUE(pl->PreFilter(state, *pending, handle.snapshot().nodes(), nullptr)
                  .IsSuccess());
  const interpodaffinity::PreFilterState* s =
      interpodaffinity::ReadPreFilterState(state);
  ASSERT_NE(s, nullptr);
  Counts original = CountsOf(*s);
  std::unique_ptr<framework::CycleState> clone = state.Clone();

  const framework::NodeInfo* node =
      handle.snapshot().Get(c.added.spec.node_name);
  ASSERT_NE(node, nullptr);
  ASSERT_TRUE(pl->AddPod(state, *pending, added, *node).IsSuccess());
  EXPECT_EQ(s->anti_affinity.ToMap(s->keys), c.want_anti);
  EXPECT_EQ(s->affinity.ToMap(s->keys), c.want_affinity);
  EXPECT_EQ(CountsOf(*s), want_all);
  // The clone is deep: the add did not reach it.
  EXPECT_EQ(CountsOf(*interpodaffinity::ReadPreFilterState(*clone)), original);

  ASSERT_TRUE(pl->RemovePod(state, *pending, added, *node).IsSuccess());
  EXPECT_EQ(CountsOf(*s), original);
}

INSTANTIATE_TEST_SUITE_P(InterPodAffinity, PreFilterStateAddRemovePod,
                         ::testing::ValuesIn(AddRemoveCases()),
                         CaseName<AddRemoveCase>);

// AddPod makes a node infeasible and RemovePod makes it feasible again, as
// preemption's dry runs rely on.
TEST(InterPodAffinityTest, AddRemovePodChangesFilter) {
  const std::vector<api::Node> nodes = {N("nodeA", {{"zone", "z1"}}),
                                        N("nodeB", {{"zone", "z2"}})};
  testing::FakeHandle handle(MakeSnapshot(
      {P("victim").Label("app", "db").Node("nodeA").Obj()}, nodes));
  auto plugin = MakePlugin(handle);
  auto* pl = dynamic_cast<InterPodAffinity*>(plugin.get());
  framework::PodInfoPtr pod =
      P().AntiAffinity(In("app", "zone", {"db"})).Info();
  framework::CycleState state;
  ASSERT_TRUE(pl->PreFilter(state, *pod, handle.snapshot().nodes(), nullptr)
                  .IsSuccess());
  const framework::NodeInfo& a = *handle.snapshot().Get("nodeA");
  const framework::NodeInfo& b = *handle.snapshot().Get("nodeB");
  ExpectStatus(pl->Filter(state, *pod, a), kUnsched, kAnti);
  ExpectStatus(pl->Filter(state, *pod, b), Code::kSuccess, "");

  framework::PodInfoPtr victim = a.pods().front();
  ASSERT_TRUE(pl->RemovePod(state, *pod, victim, a).IsSuccess());
  ExpectStatus(pl->Filter(state, *pod, a), Code::kSuccess, "");

  // An existing pod whose anti-affinity repels the incoming pod.
  framework::PodInfoPtr repeller =
      P("repeller").Node("nodeB").AntiAffinity(Exists("app", "zone")).Info();
  framework::PodInfoPtr labelled = P().Label("app", "web").Info();
  framework::CycleState state2;
  ASSERT_TRUE(
      pl->PreFilter(state2, *labelled, handle.snapshot().nodes(), nullptr)
          .IsSkip());
  // With the pod having anti-affinity the state exists and can take it.
  framework::PodInfoPtr both =
      P().Label("app", "web").AntiAffinity(In("app", "zone", {"none"})).Info();
  framework::CycleState state3;
  ASSERT_TRUE(pl->PreFilter(state3, *both, handle.snapshot().nodes(), nullptr)
                  .IsSuccess());
  ASSERT_TRUE(pl->AddPod(state3, *both, repeller, b).IsSuccess());
  ExpectStatus(pl->Filter(state3, *both, b), kUnsched, kExisting);
  ExpectStatus(pl->Filter(state3, *both, a), Code::kSuccess, "");
  ASSERT_TRUE(pl->RemovePod(state3, *both, repeller, b).IsSuccess());
  ExpectStatus(pl->Filter(state3, *both, b), Code::kSuccess, "");
}

}  // namespace
}  // namespace ksched::plugins
