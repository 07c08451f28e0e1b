// PreScore/Score/NormalizeScore cases ported from kube-scheduler's
// interpodaffinity/scoring_test.go (TestPreferredAffinity,
// TestPreferredAffinityWithHardPodAffinitySymmetricWeight).
#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/interpodaffinity/plugin.h"
#include "pkg/plugins/interpodaffinity/test_util.h"

namespace ksched::plugins {
namespace {

using framework::Code;
using framework::Status;
using interpodaffinity::test::AddNamespaces;
using interpodaffinity::test::CaseName;
using interpodaffinity::test::Exprs;
using interpodaffinity::test::In;
using interpodaffinity::test::Labels;
using interpodaffinity::test::MakeSnapshot;
using interpodaffinity::test::N;
using interpodaffinity::test::Namespaces;
using interpodaffinity::test::NamespaceSelector;
using interpodaffinity::test::Op;
using interpodaffinity::test::P;
using interpodaffinity::test::Req;
using interpodaffinity::test::Term;

constexpr int64_t kMax = framework::kMaxNodeScore;

api::Affinity AffinityOf(const P& p) { return *p.Obj().spec.affinity; }

std::unique_ptr<framework::Plugin> MakePlugin(
    testing::FakeHandle& handle, const config::InterPodAffinityArgs& args) {
  auto plugin = NewInterPodAffinity(&args, handle);
  EXPECT_TRUE(plugin.ok()) << plugin.error().message();
  return std::move(plugin).value();
}

struct ScoreCase {
  std::string name{};
  api::Pod pod{};
  std::vector<api::Pod> pods{};
  std::vector<api::Node> nodes{};
  // Normalised scores in node order, when PreScore succeeds.
  std::vector<int64_t> want{};
  Code pre_score_code = Code::kSuccess;
  // A substring of the PreScore message (the Go test's strings.Contains).
  std::string pre_score_message{};
  bool ignore_preferred_terms_of_existing_pods = false;
  int32_t hard_pod_affinity_weight = 1;
  friend void PrintTo(const ScoreCase& c, std::ostream* os) { *os << c.name; }
};

// Runs PreScore, then Score on every node and NormalizeScore, as the Go
// tests do.
void RunScoreCase(const ScoreCase& c) {
  testing::FakeHandle handle(MakeSnapshot(c.pods, c.nodes));
  AddNamespaces(handle);
  config::InterPodAffinityArgs args;
  args.hard_pod_affinity_weight = c.hard_pod_affinity_weight;
  args.ignore_preferred_terms_of_existing_pods =
      c.ignore_preferred_terms_of_existing_pods;
  auto plugin = MakePlugin(handle, args);
  auto* pl = dynamic_cast<InterPodAffinity*>(plugin.get());
  ASSERT_NE(pl, nullptr);
  framework::PodInfoPtr pod =
      framework::PodInfo::Create(std::make_shared<const api::Pod>(c.pod));
  framework::CycleState state;
  Status s = pl->PreScore(state, *pod, handle.snapshot().nodes());
  ASSERT_EQ(s.code(), c.pre_score_code) << s.Message();
  if (!s.IsSuccess()) {
    EXPECT_NE(s.Message().find(c.pre_score_message), std::string::npos)
        << s.Message();
    return;
  }
  framework::NodeScoreList scores;
  for (const api::Node& n : c.nodes) {
    const framework::NodeInfo* info = handle.snapshot().Get(n.metadata.name);
    ASSERT_NE(info, nullptr);
    int64_t score = -1;
    ASSERT_TRUE(pl->Score(state, *pod, *info, &score).IsSuccess());
    scores.push_back({info->name(), score});
  }
  ASSERT_TRUE(pl->NormalizeScore(state, *pod, scores).IsSuccess());
  std::vector<int64_t> got;
  for (const framework::NodeScore& ns : scores) got.push_back(ns.score);
  EXPECT_EQ(got, c.want);
}

// ---- TestPreferredAffinity ----

std::vector<ScoreCase> PreferredCases() {
  const Labels rg_china = {{"region", "China"}};
  const Labels rg_india = {{"region", "India"}};
  const Labels az1 = {{"az", "az1"}};
  const Labels az2 = {{"az", "az2"}};
  const Labels rg_china_az1 = {{"region", "China"}, {"az", "az1"}};
  const Labels s1 = {{"security", "S1"}};
  const Labels s2 = {{"security", "S2"}};
  const auto team1 = Exprs{Req("team", Op::kIn, {"team1"})};

  const api::Affinity stay_with_s1_in_region =
      AffinityOf(P().Preferred(5, In("security", "region", {"S1"})));
  const api::Affinity stay_with_s2_in_region =
      AffinityOf(P().Preferred(6, In("security", "region", {"S2"})));
  const api::Affinity affinity3 = AffinityOf(
      P().Preferred(8, Term("region", {Req("security", Op::kNotIn, {"S1"}),
                                       Req("security", Op::kIn, {"S2"})}))
          .Preferred(2, Term("region", {Req("security", Op::kExists),
                                        Req("wrongkey", Op::kDoesNotExist)})));
  const api::Affinity hard_affinity = AffinityOf(
      P().Affinity(In("security", "region", {"S1", "value2"}))
          .Affinity(Term("region", {Req("security", Op::kExists),
                                    Req("wrongkey", Op::kDoesNotExist)})));
  const api::Affinity away_from_s1_in_az =
      AffinityOf(P().PreferredAnti(5, In("security", "az", {"S1"})));
  const api::Affinity away_from_s2_in_az =
      AffinityOf(P().PreferredAnti(5, In("security", "az", {"S2"})));
  const api::Affinity stay_s1_away_s2 =
      AffinityOf(P().Preferred(8, In("security", "region", {"S1"}))
                     .PreferredAnti(5, In("security", "az", {"S2"})));
  const api::PodAffinityTerm ns_term = NamespaceSelector(
      Namespaces(In("security", "region", {"S1"}), {"subteam2.team2"}), team1);
  const api::Affinity affinity_ns_selector =
      AffinityOf(P().Preferred(5, ns_term));
  const api::Affinity anti_affinity_ns_selector =
      AffinityOf(P().PreferredAnti(5, ns_term));
  const api::Affinity invalid_affinity = AffinityOf(
      P().Preferred(8, In("security", "region", {"{{.bad-value.}}"})));
  const api::Affinity invalid_anti_affinity = AffinityOf(
      P().PreferredAnti(5, In("security", "az", {"{{.bad-value.}}"})));

  const auto on = [](std::string node, const Labels& labels) {
    return P().Node(std::move(node)).Labels(labels);
  };
  const std::vector<api::Node> china_india_az1 = {
      N("node1", rg_china), N("node2", rg_india), N("node3", az1)};
  const std::vector<api::Pod> ns_pods = {
      on("node1", s1).Ns("subteam1.team1").Obj(),
      on("node1", s1).Ns("subteam1.team1").Obj(),
      on("node1", s1).Ns("subteam1.team2").Obj(),
      on("node2", s1).Ns("subteam2.team1").Obj()};
  const std::vector<api::Pod> ns_pods_both = {
      on("node1", s1).Ns("subteam1.team1").Obj(),
      on("node1", s1).Ns("subteam1.team1").Obj(),
      on("node1", s1).Ns("subteam2.team2").Obj(),
      on("node2", s1).Ns("subteam2.team1").Obj()};

  return {
      {.name = "all nodes are same priority as Affinity is nil",
       .pod = P().Labels(s1).Obj(),
       .nodes = china_india_az1,
       .pre_score_code = Code::kSkip},
      {.name = "Affinity: pod that matches topology key & pods in nodes will "
               "get high score comparing to others which doesn't match either "
               "pods in nodes or in topology key",
       .pod = P().Labels(s1).WithAffinity(stay_with_s1_in_region).Obj(),
       .pods = {on("node1", s1).Obj(), on("node2", s2).Obj(),
                on("node3", s1).Obj()},
       .nodes = china_india_az1,
       .want = {kMax, 0, 0}},
      {.name = "All the nodes that have the same topology key & label value "
               "with one of them has an existing pod that match the affinity "
               "rules, have the same score",
       .pod = P().WithAffinity(stay_with_s1_in_region).Obj(),
       .pods = {on("node1", s1).Obj()},
       .nodes = {N("node1", rg_china), N("node2", rg_china_az1),
                 N("node3", rg_india)},
       .want = {kMax, kMax, 0}},
      {.name = "Affinity: nodes in one region has more matching pods comparing "
               "to other region, so the region which has more matches will get "
               "high score",
       .pod = P().Labels(s1).WithAffinity(stay_with_s2_in_region).Obj(),
       .pods = {on("node1", s2).Obj(), on("node1", s2).Obj(),
                on("node2", s2).Obj(), on("node3", s2).Obj(),
                on("node4", s2).Obj(), on("node5", s2).Obj()},
       .nodes = {N("node1", rg_china), N("node2", rg_india),
                 N("node3", rg_china), N("node4", rg_china),
                 N("node5", rg_india)},
       .want = {kMax, 0, kMax, kMax, 0}},
      {.name = "Affinity: different Label operators and values for pod "
               "affinity scheduling preference, including some match failures",
       .pod = P().Labels(s1).WithAffinity(affinity3).Obj(),
       .pods = {on("node1", s1).Obj(), on("node2", s2).Obj(),
                on("node3", s1).Obj()},
       .nodes = china_india_az1,
       .want = {20, kMax, 0}},
      {.name = "Affinity symmetry: considered only the preferredDuring"
               "SchedulingIgnoredDuringExecution in pod affinity symmetry",
       .pod = P().Labels(s2).Obj(),
       .pods = {on("node1", s1).WithAffinity(stay_with_s1_in_region).Obj(),
                on("node2", s2).WithAffinity(stay_with_s2_in_region).Obj()},
       .nodes = china_india_az1,
       .want = {0, kMax, 0}},
      {.name = "Affinity symmetry with namespace selector",
       .pod = P().Ns("subteam1.team1").Labels(s1).Obj(),
       .pods = {on("node1", s1).WithAffinity(affinity_ns_selector).Obj(),
                on("node2", s2).WithAffinity(stay_with_s2_in_region).Obj()},
       .nodes = china_india_az1,
       .want = {kMax, 0, 0}},
      {.name = "AntiAffinity symmetry with namespace selector",
       .pod = P().Ns("subteam1.team1").Labels(s1).Obj(),
       .pods = {on("node1", s1).WithAffinity(anti_affinity_ns_selector).Obj(),
                on("node2", s2).WithAffinity(stay_with_s2_in_region).Obj()},
       .nodes = china_india_az1,
       .want = {0, kMax, kMax}},
      {.name = "Affinity symmetry: considered RequiredDuringScheduling"
               "IgnoredDuringExecution in pod affinity symmetry",
       .pod = P().Labels(s1).Obj(),
       .pods = {on("node1", s1).WithAffinity(hard_affinity).Obj(),
                on("node2", s2).WithAffinity(hard_affinity).Obj()},
       .nodes = china_india_az1,
       .want = {kMax, kMax, 0}},
      {.name = "Anti Affinity: pod that does not match existing pods in node "
               "will get high score",
       .pod = P().Labels(s1).WithAffinity(away_from_s1_in_az).Obj(),
       .pods = {on("node1", s1).Obj(), on("node2", s2).Obj()},
       .nodes = {N("node1", az1), N("node2", rg_china)},
       .want = {0, kMax}},
      {.name = "Anti Affinity: pod that does not match topology key & match "
               "the pods in nodes will get higher score comparing to others",
       .pod = P().Labels(s1).WithAffinity(away_from_s1_in_az).Obj(),
       .pods = {on("node1", s1).Obj(), on("node2", s1).Obj()},
       .nodes = {N("node1", az1), N("node2", rg_china)},
       .want = {0, kMax}},
      {.name = "Anti Affinity: one node has more matching pods comparing to "
               "other node, so the node which has more unmatches will get high "
               "score",
       .pod = P().Labels(s1).WithAffinity(away_from_s1_in_az).Obj(),
       .pods = {on("node1", s1).Obj(), on("node1", s1).Obj(),
                on("node2", s2).Obj()},
       .nodes = {N("node1", az1), N("node2", rg_india)},
       .want = {0, kMax}},
      {.name = "Anti Affinity symmetry: the existing pods in node which has "
               "anti affinity match will get high score",
       .pod = P().Labels(s2).Obj(),
       .pods = {on("node1", s1).WithAffinity(away_from_s2_in_az).Obj(),
                on("node2", s2).WithAffinity(away_from_s1_in_az).Obj()},
       .nodes = {N("node1", az1), N("node2", az2)},
       .want = {0, kMax}},
      {.name = "Affinity and Anti Affinity: considered only preferredDuring"
               "SchedulingIgnoredDuringExecution in both pod affinity & anti "
               "affinity",
       .pod = P().Labels(s1).WithAffinity(stay_s1_away_s2).Obj(),
       .pods = {on("node1", s1).Obj(), on("node2", s1).Obj()},
       .nodes = {N("node1", rg_china), N("node2", az1)},
       .want = {kMax, 0}},
      {.name = "Affinity and Anti Affinity: considering both affinity and "
               "anti-affinity, the pod to schedule and existing pods have the "
               "same labels",
       .pod = P().Labels(s1).WithAffinity(stay_s1_away_s2).Obj(),
       .pods = {on("node1", s1).Obj(), on("node1", s1).Obj(),
                on("node2", s1).Obj(), on("node3", s1).Obj(),
                on("node3", s1).Obj(), on("node4", s1).Obj(),
                on("node5", s1).Obj()},
       .nodes = {N("node1", rg_china_az1), N("node2", rg_india),
                 N("node3", rg_china), N("node4", rg_china),
                 N("node5", rg_india)},
       .want = {kMax, 0, kMax, kMax, 0}},
      {.name = "Affinity and Anti Affinity and symmetry: considered only "
               "preferredDuringSchedulingIgnoredDuringExecution in both pod "
               "affinity & anti affinity & symmetry",
       .pod = P().Labels(s1).WithAffinity(stay_s1_away_s2).Obj(),
       .pods = {on("node1", s1).Obj(), on("node2", s2).Obj(),
                P().Node("node3").WithAffinity(stay_s1_away_s2).Obj(),
                P().Node("node4").WithAffinity(away_from_s1_in_az).Obj()},
       .nodes = {N("node1", rg_china), N("node2", az1), N("node3", rg_india),
                 N("node4", az2)},
       .want = {kMax, 0, kMax, 0}},
      {.name = "Avoid panic when partial nodes in a topology don't have pods "
               "with affinity",
       .pod = P().Labels(s1).Obj(),
       .pods = {on("node1", s1).Obj(),
                P().Node("node2").WithAffinity(stay_s1_away_s2).Obj()},
       .nodes = {N("node1", rg_china), N("node2", rg_china)},
       .want = {0, 0}},
      {.name = "invalid Affinity fails PreScore",
       .pod = P().WithAffinity(invalid_affinity).Obj(),
       .nodes = {N("node1", rg_china), N("node2", rg_china)},
       .pre_score_code = Code::kError,
       .pre_score_message = "Invalid value: \"{{.bad-value.}}\""},
      {.name = "invalid AntiAffinity fails PreScore",
       .pod = P().WithAffinity(invalid_anti_affinity).Obj(),
       .nodes = {N("node1", rg_china), N("node2", rg_china)},
       .pre_score_code = Code::kError,
       .pre_score_message = "Invalid value: \"{{.bad-value.}}\""},
      {.name = "Affinity with pods matching NamespaceSelector",
       .pod = P().Ns("subteam1.team1")
                  .Labels(s1)
                  .WithAffinity(affinity_ns_selector)
                  .Obj(),
       .pods = ns_pods,
       .nodes = {N("node1", rg_china), N("node2", rg_india)},
       .want = {kMax, 0}},
      {.name = "Affinity with pods matching both NamespaceSelector and "
               "Namespaces fields",
       .pod = P().Ns("subteam1.team1")
                  .Labels(s1)
                  .WithAffinity(affinity_ns_selector)
                  .Obj(),
       .pods = ns_pods_both,
       .nodes = {N("node1", rg_china), N("node2", rg_india)},
       .want = {kMax, 0}},
      {.name = "AntiAffinity with pods matching NamespaceSelector",
       .pod = P().Ns("subteam1.team1")
                  .Labels(s1)
                  .WithAffinity(anti_affinity_ns_selector)
                  .Obj(),
       .pods = ns_pods,
       .nodes = {N("node1", rg_china), N("node2", rg_india)},
       .want = {0, kMax}},
      {.name = "AntiAffinity with pods matching both NamespaceSelector and "
               "Namespaces fields",
       .pod = P().Ns("subteam1.team1")
                  .Labels(s1)
                  .WithAffinity(anti_affinity_ns_selector)
                  .Obj(),
       .pods = ns_pods_both,
       .nodes = {N("node1", rg_china), N("node2", rg_india)},
       .want = {0, kMax}},
      {.name = "Ignore preferred terms of existing pods",
       .pod = P().Labels(s2).Obj(),
       .pods = {on("node1", s1).WithAffinity(stay_s1_away_s2).Obj(),
                on("node2", s2).WithAffinity(stay_with_s2_in_region).Obj()},
       .nodes = {N("node1", rg_china), N("node2", rg_india)},
       .pre_score_code = Code::kSkip,
       .ignore_preferred_terms_of_existing_pods = true},
      {.name = "Do not ignore preferred terms of existing pods",
       .pod = P().Labels(s2).Obj(),
       .pods = {on("node1", s1).WithAffinity(stay_s1_away_s2).Obj(),
                on("node2", s2).WithAffinity(stay_with_s2_in_region).Obj()},
       .nodes = {N("node1", rg_china), N("node2", rg_india)},
       .want = {0, kMax}},
      {.name = "No nodes to score",
       .pod = P().Labels(s2).Obj(),
       .pre_score_code = Code::kSkip},
      // Ours: the incoming pod's preferences still count when existing
      // pods' are ignored, and all-negative raw scores normalise by min-max.
      {.name = "ignorePreferredTermsOfExistingPods does not apply to a pod "
               "with preferred terms of its own",
       .pod = P().Labels(s2).WithAffinity(stay_with_s2_in_region).Obj(),
       .pods = {on("node1", s1)
                    .Preferred(8, In("security", "region", {"S2"}))
                    .Obj(),
                on("node2", s2).Obj()},
       .nodes = {N("node1", rg_china), N("node2", rg_india)},
       // Raw 8 (node1's pod prefers the pod) and 6 (the pod prefers node2's).
       .want = {kMax, 0},
       .ignore_preferred_terms_of_existing_pods = true},
      {.name = "Only anti-affinity: negative raw scores normalise min-max",
       .pod = P().Labels(s1).WithAffinity(away_from_s1_in_az).Obj(),
       .pods = {on("node1", s1).Obj(), on("node1", s1).Obj(),
                on("node2", s1).Obj(), on("node3", s2).Obj()},
       .nodes = {N("node1", az1), N("node2", az2), N("node3", {{"az", "az3"}})},
       // Raw -10, -5, 0.
       .want = {0, 50, kMax}},
  };
}

class PreferredAffinity : public ::testing::TestWithParam<ScoreCase> {};
TEST_P(PreferredAffinity, Score) { RunScoreCase(GetParam()); }
INSTANTIATE_TEST_SUITE_P(InterPodAffinity, PreferredAffinity,
                         ::testing::ValuesIn(PreferredCases()),
                         CaseName<ScoreCase>);

// ---- TestPreferredAffinityWithHardPodAffinitySymmetricWeight ----

std::vector<ScoreCase> HardWeightCases() {
  const Labels service_s1 = {{"service", "S1"}};
  const std::vector<api::Node> nodes = {N("node1", {{"region", "China"}}),
                                        N("node2", {{"region", "India"}}),
                                        N("node3", {{"az", "az1"}})};
  const api::Affinity hard = AffinityOf(P().Affinity(NamespaceSelector(
      Namespaces(In("service", "region", {"S1"}),
                 {interpodaffinity::test::kDefaultNs, "subteam2.team2"}),
      {Req("team", Op::kIn, {"team1"})})));
  const std::vector<api::Pod> pods = {
      P().Node("node1").WithAffinity(hard).Obj(),
      P().Node("node2").WithAffinity(hard).Obj()};
  return {
      {.name = "with default weight",
       .pod = P().Labels(service_s1).Obj(),
       .pods = pods,
       .nodes = nodes,
       .want = {kMax, kMax, 0}},
      {.name = "with zero weight",
       .pod = P().Labels(service_s1).Obj(),
       .pods = pods,
       .nodes = nodes,
       .pre_score_code = Code::kSkip,
       .hard_pod_affinity_weight = 0},
      {.name = "with no matching namespace",
       .pod = P().Ns("subteam1.team2").Labels(service_s1).Obj(),
       .pods = pods,
       .nodes = nodes,
       .pre_score_code = Code::kSkip},
      {.name = "with matching NamespaceSelector",
       .pod = P().Ns("subteam1.team1").Labels(service_s1).Obj(),
       .pods = pods,
       .nodes = nodes,
       .want = {kMax, kMax, 0}},
      {.name = "with matching Namespaces",
       .pod = P().Ns("subteam2.team2").Labels(service_s1).Obj(),
       .pods = pods,
       .nodes = nodes,
       .want = {kMax, kMax, 0}},
  };
}

class PreferredAffinityWithHardPodAffinitySymmetricWeight
    : public ::testing::TestWithParam<ScoreCase> {};
TEST_P(PreferredAffinityWithHardPodAffinitySymmetricWeight, Score) {
  RunScoreCase(GetParam());
}
INSTANTIATE_TEST_SUITE_P(InterPodAffinity,
                         PreferredAffinityWithHardPodAffinitySymmetricWeight,
                         ::testing::ValuesIn(HardWeightCases()),
                         CaseName<ScoreCase>);

TEST(InterPodAffinityTest, ScoreWithoutPreScoreState) {
  testing::FakeHandle handle;
  auto plugin = MakePlugin(handle, {});
  auto* pl = dynamic_cast<InterPodAffinity*>(plugin.get());
  framework::CycleState state;
  auto node = testing::MakeNodeInfo(N("node1"));
  int64_t score = 0;
  Status s = pl->Score(state, *P().Info(), *node, &score);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "failed to read \"PreScoreInterPodAffinity\" from cycleState: not "
            "found");
  framework::NodeScoreList scores = {{"node1", 3}};
  EXPECT_EQ(pl->NormalizeScore(state, *P().Info(), scores).Message(),
            s.Message());
}

// The PreScore state is immutable: a clone of the cycle shares and scores
// the same.
TEST(InterPodAffinityTest, PreScoreStateCloneScoresAlike) {
  std::vector<api::Node> nodes = {N("node1", {{"region", "China"}}),
                                  N("node2", {{"region", "India"}})};
  testing::FakeHandle handle(
      MakeSnapshot({P().Node("node1").Label("security", "S1").Obj()}, nodes));
  auto plugin = MakePlugin(handle, {});
  auto* pl = dynamic_cast<InterPodAffinity*>(plugin.get());
  framework::PodInfoPtr pod =
      P().Preferred(5, In("security", "region", {"S1"})).Info();
  framework::CycleState state;
  ASSERT_TRUE(pl->PreScore(state, *pod, handle.snapshot().nodes()).IsSuccess());
  std::unique_ptr<framework::CycleState> clone = state.Clone();
  for (const auto& info : handle.snapshot().nodes()) {
    int64_t a = -1;
    int64_t b = -1;
    ASSERT_TRUE(pl->Score(state, *pod, *info, &a).IsSuccess());
    ASSERT_TRUE(pl->Score(*clone, *pod, *info, &b).IsSuccess());
    EXPECT_EQ(a, b);
    EXPECT_EQ(a, info->name() == "node1" ? 5 : 0);
  }
}

}  // namespace
}  // namespace ksched::plugins
