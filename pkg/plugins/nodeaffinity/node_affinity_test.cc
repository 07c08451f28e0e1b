#include "pkg/plugins/nodeaffinity/node_affinity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::plugins {
namespace {

using api::NodeSelectorOperator;
using framework::Code;
using Labels = std::vector<std::pair<std::string, std::string>>;
using Names = std::set<std::string>;

constexpr NodeSelectorOperator kIn = NodeSelectorOperator::kIn;
constexpr NodeSelectorOperator kNotIn = NodeSelectorOperator::kNotIn;
constexpr NodeSelectorOperator kExists = NodeSelectorOperator::kExists;
constexpr NodeSelectorOperator kGt = NodeSelectorOperator::kGt;
constexpr NodeSelectorOperator kLt = NodeSelectorOperator::kLt;
constexpr const char* kName = "metadata.name";

const char* const kReasonPod =
    "node(s) didn't match Pod's node affinity/selector";
const char* const kReasonEnforced =
    "node(s) didn't match scheduler-enforced node affinity";

api::NodeSelectorRequirement Req(std::string key, NodeSelectorOperator op,
                                 std::vector<std::string> values = {}) {
  return {std::move(key), op, std::move(values)};
}

api::NodeSelectorTerm Term(
    std::vector<api::NodeSelectorRequirement> exprs,
    std::vector<api::NodeSelectorRequirement> fields = {}) {
  return {std::move(exprs), std::move(fields)};
}

api::NodeSelectorTerm Fields(std::vector<api::NodeSelectorRequirement> f) {
  return Term({}, std::move(f));
}

api::Pod PodWith(std::vector<api::NodeSelectorTerm> required,
                 Labels node_selector = {}) {
  api::Pod pod = testing::PodBuilder("p").Obj();
  for (auto& [k, v] : node_selector) pod.spec.node_selector.Set(k, v);
  pod.spec.affinity.emplace()
      .node_affinity.emplace()
      .required.emplace()
      .node_selector_terms = std::move(required);
  return pod;
}

api::Pod PodWithSelector(Labels node_selector) {
  api::Pod pod = testing::PodBuilder("p").Obj();
  for (auto& [k, v] : node_selector) pod.spec.node_selector.Set(k, v);
  return pod;
}

api::NodeAffinity AddedRequired(std::vector<api::NodeSelectorTerm> terms) {
  api::NodeAffinity a;
  a.required.emplace().node_selector_terms = std::move(terms);
  return a;
}

std::unique_ptr<framework::Plugin> MakePlugin(
    const std::optional<api::NodeAffinity>& added) {
  config::NodeAffinityArgs args;
  args.added_affinity = added;
  testing::FakeHandle handle;
  auto plugin = NewNodeAffinity(&args, handle);
  EXPECT_TRUE(plugin.ok()) << plugin.error().message();
  return std::move(plugin).value();
}

// "<index>_<case name>" with what gtest does not allow in names as '_'.
template <typename Case>
std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string out = std::to_string(info.index) + "_";
  for (char ch : info.param.name) {
    out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  return out;
}

struct FilterCase {
  std::string name{};
  api::Pod pod{};
  Labels labels{};
  std::string node_name{};
  Code filter_code = Code::kSuccess;
  std::string filter_reason{};
  Code pre_filter_code = Code::kSuccess;
  std::string pre_filter_reason{};
  std::optional<Names> pre_filter_result{};
  std::optional<api::NodeAffinity> added{};
  bool run_pre_filter = true;
  friend void PrintTo(const FilterCase& c, std::ostream* os) { *os << c.name; }
};

// Cases from kube-scheduler's TestNodeAffinity, plus Lt, field NotIn and an
// empty term list.
std::vector<FilterCase> FilterCases() {
  const Code kReject = Code::kUnschedulableAndUnresolvable;
  return {
      {.name = "missing labels",
       .pod = PodWithSelector({{"foo", "bar"}}),
       .filter_code = kReject,
       .filter_reason = kReasonPod},
      {.name = "same labels",
       .pod = PodWithSelector({{"foo", "bar"}}),
       .labels = {{"foo", "bar"}}},
      {.name = "node labels are superset",
       .pod = PodWithSelector({{"foo", "bar"}}),
       .labels = {{"foo", "bar"}, {"baz", "blah"}}},
      {.name = "node labels are subset",
       .pod = PodWithSelector({{"foo", "bar"}, {"baz", "blah"}}),
       .labels = {{"foo", "bar"}},
       .filter_code = kReject,
       .filter_reason = kReasonPod},
      {.name = "Pod with matchExpressions using In operator that matches the "
               "existing node",
       .pod = PodWith({Term({Req("foo", kIn, {"bar", "value2"})})}),
       .labels = {{"foo", "bar"}}},
      {.name = "Pod with matchExpressions using Gt operator that matches the "
               "existing node",
       .pod = PodWith({Term({Req("kernel-version", kGt, {"0204"})})}),
       .labels = {{"kernel-version", "0206"}}},
      {.name = "Pod with matchExpressions using Lt operator that does not "
               "match the existing node",
       .pod = PodWith({Term({Req("kernel-version", kLt, {"0204"})})}),
       .labels = {{"kernel-version", "0206"}},
       .filter_code = kReject,
       .filter_reason = kReasonPod},
      {.name = "Pod with matchExpressions using NotIn operator that matches "
               "the existing node",
       .pod = PodWith({Term({Req("mem-type", kNotIn, {"DDR", "DDR2"})})}),
       .labels = {{"mem-type", "DDR3"}}},
      {.name = "Pod with matchExpressions using Exists operator that matches "
               "the existing node",
       .pod = PodWith({Term({Req("GPU", kExists)})}),
       .labels = {{"GPU", "NVIDIA-GRID-K1"}}},
      {.name = "Pod with affinity that don't match node's labels won't "
               "schedule onto the node",
       .pod = PodWith({Term({Req("foo", kIn, {"value1", "value2"})})}),
       .labels = {{"foo", "bar"}},
       .filter_code = kReject,
       .filter_reason = kReasonPod},
      {.name = "Pod with empty MatchExpressions is not a valid value will "
               "match no objects and won't schedule onto the node",
       .pod = PodWith({Term({})}),
       .labels = {{"foo", "bar"}},
       .filter_code = kReject,
       .filter_reason = kReasonPod},
      {.name = "Pod with no Affinity will schedule onto a node",
       .pod = testing::PodBuilder("p").Obj(),
       .labels = {{"foo", "bar"}},
       .pre_filter_code = Code::kSkip},
      {.name = "Pod with Affinity but nil NodeSelector will schedule onto a "
               "node",
       .pod =
           [] {
             api::Pod pod = testing::PodBuilder("p").Obj();
             pod.spec.affinity.emplace().node_affinity.emplace();
             return pod;
           }(),
       .labels = {{"foo", "bar"}},
       .pre_filter_code = Code::kSkip},
      {.name = "Pod with multiple matchExpressions ANDed that matches the "
               "existing node",
       .pod = PodWith(
           {Term({Req("GPU", kExists), Req("GPU", kNotIn, {"AMD", "INTER"})})}),
       .labels = {{"GPU", "NVIDIA-GRID-K1"}}},
      {.name = "Pod with multiple matchExpressions ANDed that doesn't match "
               "the existing node",
       .pod = PodWith(
           {Term({Req("GPU", kExists), Req("GPU", kIn, {"AMD", "INTER"})})}),
       .labels = {{"GPU", "NVIDIA-GRID-K1"}},
       .filter_code = kReject,
       .filter_reason = kReasonPod},
      {.name = "Pod with multiple NodeSelectorTerms ORed in affinity, matches "
               "the node's labels and will schedule onto the node",
       .pod = PodWith({Term({Req("foo", kIn, {"bar", "value2"})}),
                       Term({Req("diffkey", kIn, {"wrong", "value2"})})}),
       .labels = {{"foo", "bar"}}},
      {.name = "Pod with an Affinity and a PodSpec.NodeSelector(the old thing "
               "that we are deprecating) both are satisfied, will schedule "
               "onto the node",
       .pod = PodWith({Term({Req("foo", kExists)})}, {{"foo", "bar"}}),
       .labels = {{"foo", "bar"}}},
      {.name = "Pod with an Affinity matches node's labels but the "
               "PodSpec.NodeSelector(the old thing that we are deprecating) "
               "is not satisfied, won't schedule onto the node",
       .pod = PodWith({Term({Req("foo", kExists)})}, {{"foo", "bar"}}),
       .labels = {{"foo", "barrrrrr"}},
       .filter_code = kReject,
       .filter_reason = kReasonPod},
      {.name = "Pod with an invalid value in Affinity term won't be scheduled "
               "onto the node",
       .pod =
           PodWith({Term({Req("foo", kNotIn, {"invalid value: ___@#$%^"})})}),
       .labels = {{"foo", "bar"}},
       .filter_code = kReject,
       .filter_reason = kReasonPod},
      {.name = "Pod with matchFields using In operator that matches the "
               "existing node",
       .pod = PodWith({Fields({Req(kName, kIn, {"node1"})})}),
       .node_name = "node1",
       .pre_filter_result = Names{"node1"}},
      {.name = "Pod with matchFields using In operator that does not match "
               "the existing node",
       .pod = PodWith({Fields({Req(kName, kIn, {"node1"})})}),
       .node_name = "node2",
       .filter_code = kReject,
       .filter_reason = kReasonPod,
       .pre_filter_result = Names{"node1"}},
      {.name = "Pod with matchFields using NotIn operator pins no node",
       .pod = PodWith({Fields({Req(kName, kNotIn, {"node1"})})}),
       .node_name = "node2"},
      {.name = "Pod with two terms: matchFields does not match, but "
               "matchExpressions matches",
       .pod = PodWith({Fields({Req(kName, kIn, {"node1"})}),
                       Term({Req("foo", kIn, {"bar"})})}),
       .labels = {{"foo", "bar"}},
       .node_name = "node2"},
      {.name = "Pod with one term: matchFields does not match, but "
               "matchExpressions matches",
       .pod = PodWith(
           {Term({Req("foo", kIn, {"bar"})}, {Req(kName, kIn, {"node1"})})}),
       .labels = {{"foo", "bar"}},
       .node_name = "node2",
       .filter_code = kReject,
       .filter_reason = kReasonPod,
       .pre_filter_result = Names{"node1"}},
      {.name = "Pod with one term: both matchFields and matchExpressions "
               "match",
       .pod = PodWith(
           {Term({Req("foo", kIn, {"bar"})}, {Req(kName, kIn, {"node1"})})}),
       .labels = {{"foo", "bar"}},
       .node_name = "node1",
       .pre_filter_result = Names{"node1"}},
      {.name = "Pod with two terms: both matchFields and matchExpressions do "
               "not match",
       .pod = PodWith({Fields({Req(kName, kIn, {"node1"})}),
                       Term({Req("foo", kIn, {"not-match-to-bar"})})}),
       .labels = {{"foo", "bar"}},
       .node_name = "node2",
       .filter_code = kReject,
       .filter_reason = kReasonPod},
      {.name = "Pod with two terms of node.Name affinity",
       .pod = PodWith({Fields({Req(kName, kIn, {"node1"})}),
                       Fields({Req(kName, kIn, {"node2"})})}),
       .node_name = "node2",
       .pre_filter_result = Names{"node1", "node2"}},
      {.name = "Pod with two conflicting mach field requirements",
       .pod = PodWith(
           {Fields({Req(kName, kIn, {"node1"}), Req(kName, kIn, {"node2"})})}),
       .labels = {{"foo", "bar"}},
       .node_name = "node2",
       .filter_code = kReject,
       .filter_reason = kReasonPod,
       .pre_filter_code = kReject,
       .pre_filter_reason = "pod affinity terms conflict"},
      {.name = "Pod with empty required node selector terms list matches "
               "nothing",
       .pod = PodWith({}),
       .node_name = "node1",
       .filter_code = kReject,
       .filter_reason = kReasonPod},
      {.name = "Matches added affinity and Pod's node affinity",
       .pod = PodWith({Term({Req("zone", kIn, {"foo"})})}),
       .labels = {{"zone", "foo"}},
       .node_name = "node2",
       .added = AddedRequired({Fields({Req(kName, kIn, {"node2"})})})},
      {.name = "Matches added affinity but not Pod's node affinity",
       .pod = PodWith({Term({Req("zone", kIn, {"bar"})})}),
       .labels = {{"zone", "foo"}},
       .node_name = "node2",
       .filter_code = kReject,
       .filter_reason = kReasonPod,
       .added = AddedRequired({Fields({Req(kName, kIn, {"node2"})})})},
      {.name = "Doesn't match added affinity",
       .pod = testing::PodBuilder("p").Obj(),
       .labels = {{"zone", "foo"}},
       .node_name = "node2",
       .filter_code = kReject,
       .filter_reason = kReasonEnforced,
       .added = AddedRequired({Term({Req("zone", kIn, {"bar"})})})},
      {.name = "Matches node selector correctly even if PreFilter is not "
               "called",
       .pod = PodWithSelector({{"foo", "bar"}}),
       .labels = {{"foo", "bar"}, {"baz", "blah"}},
       .run_pre_filter = false},
      {.name = "Matches node affinity correctly even if PreFilter is not "
               "called",
       .pod = PodWith(
           {Term({Req("GPU", kExists), Req("GPU", kNotIn, {"AMD", "INTER"})})}),
       .labels = {{"GPU", "NVIDIA-GRID-K1"}},
       .run_pre_filter = false},
  };
}

class NodeAffinityFilterTest : public ::testing::TestWithParam<FilterCase> {};

// Filter runs whatever PreFilter answered, as in kube's test.
TEST_P(NodeAffinityFilterTest, PreFilterAndFilter) {
  const FilterCase& c = GetParam();
  auto plugin = MakePlugin(c.added);
  auto* pre_filter = dynamic_cast<framework::PreFilterPlugin*>(plugin.get());
  auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin.get());
  ASSERT_NE(pre_filter, nullptr);
  ASSERT_NE(filter, nullptr);
  testing::NodeBuilder node(c.node_name);
  for (const auto& [k, v] : c.labels) node.Label(k, v);
  auto node_info = testing::MakeNodeInfo(node.Obj());
  auto pod =
      framework::PodInfo::Create(std::make_shared<const api::Pod>(c.pod));
  framework::CycleState state;
  if (c.run_pre_filter) {
    framework::PreFilterResult result;
    framework::Status s =
        pre_filter->PreFilter(state, *pod, {node_info}, &result);
    EXPECT_EQ(framework::CodeName(s.code()),
              framework::CodeName(c.pre_filter_code));
    EXPECT_EQ(s.Message(), c.pre_filter_reason);
    EXPECT_EQ(result.node_names, c.pre_filter_result);
  }
  framework::Status s = filter->Filter(state, *pod, *node_info);
  EXPECT_EQ(framework::CodeName(s.code()), framework::CodeName(c.filter_code));
  EXPECT_EQ(s.Message(), c.filter_reason);
}

INSTANTIATE_TEST_SUITE_P(TestNodeAffinity, NodeAffinityFilterTest,
                         ::testing::ValuesIn(FilterCases()),
                         CaseName<FilterCase>);

api::PreferredSchedulingTerm Preferred(
    int32_t weight, std::vector<api::NodeSelectorRequirement> exprs) {
  return {weight, Term(std::move(exprs))};
}

api::Pod PodPreferring(std::vector<api::PreferredSchedulingTerm> terms) {
  api::Pod pod = testing::PodBuilder("p").Obj();
  pod.spec.affinity.emplace().node_affinity.emplace().preferred =
      std::move(terms);
  return pod;
}

struct NodeSpec {
  std::string name;
  Labels labels;
};
struct Scored {
  std::string name;
  int64_t score;
  friend bool operator==(const Scored&, const Scored&) = default;
};
void PrintTo(const Scored& s, std::ostream* os) {
  *os << s.name << ":" << s.score;
}

struct ScoreCase {
  std::string name{};
  api::Pod pod{};
  std::vector<NodeSpec> nodes{};
  std::vector<Scored> expected{};
  std::optional<api::NodeAffinity> added{};
  bool run_pre_score = true;
  Code pre_score_code = Code::kSuccess;
  std::string pre_score_message_prefix{};
  friend void PrintTo(const ScoreCase& c, std::ostream* os) { *os << c.name; }
};

// Cases from kube-scheduler's TestNodeAffinityPriority, plus zero-weight and
// empty terms.
std::vector<ScoreCase> ScoreCases() {
  const Labels label1 = {{"foo", "bar"}};
  const Labels label2 = {{"key", "value"}};
  const Labels label3 = {{"az", "az1"}};
  const Labels label4 = {{"abc", "az11"}, {"def", "az22"}};
  const Labels label5 = {{"foo", "bar"}, {"key", "value"}, {"az", "az1"}};
  const std::vector<api::PreferredSchedulingTerm> affinity1 = {
      Preferred(2, {Req("foo", kIn, {"bar"})})};
  const std::vector<api::PreferredSchedulingTerm> affinity2 = {
      Preferred(2, {Req("foo", kIn, {"bar"})}),
      Preferred(4, {Req("key", kIn, {"value"})}),
      Preferred(5, {Req("foo", kIn, {"bar"}), Req("key", kIn, {"value"}),
                    Req("az", kIn, {"az1"})}),
  };
  api::NodeAffinity added1;
  added1.preferred = affinity1;
  api::NodeAffinity added_key;
  added_key.preferred = {Preferred(3, {Req("key", kIn, {"value"})})};
  return {
      {.name = "all nodes are same priority as NodeAffinity is nil",
       .pod = testing::PodBuilder("p").Obj(),
       .nodes = {{"node1", label1}, {"node2", label2}, {"node3", label3}},
       .expected = {{"node1", 0}, {"node2", 0}, {"node3", 0}},
       .run_pre_score = false},
      {.name = "Skip is returned in PreScore when NodeAffinity is nil",
       .pod = testing::PodBuilder("p").Obj(),
       .nodes = {{"node1", label1}},
       .pre_score_code = Code::kSkip},
      {.name = "PreScore returns error when an incoming Pod has a broken "
               "affinity",
       .pod = PodPreferring({Preferred(2, {Req("invalid key", kIn, {"bar"})})}),
       .nodes = {{"node1", label1}},
       .pre_score_code = Code::kError,
       // kube's message continues with the name regex, which
       // pkg/api/label_selector does not spell out.
       .pre_score_message_prefix =
           "[0].matchExpressions[0].key: Invalid value: \"invalid key\": name "
           "part must consist of alphanumeric characters, '-', '_' or '.', "
           "and must start and end with an alphanumeric character"},
      {.name = "no node matches preferred scheduling requirements in "
               "NodeAffinity of pod so all nodes' priority is zero",
       .pod = PodPreferring(affinity1),
       .nodes = {{"node1", label4}, {"node2", label2}, {"node3", label3}},
       .expected = {{"node1", 0}, {"node2", 0}, {"node3", 0}}},
      {.name = "only node1 matches the preferred scheduling requirements of "
               "pod",
       .pod = PodPreferring(affinity1),
       .nodes = {{"node1", label1}, {"node2", label2}, {"node3", label3}},
       .expected = {{"node1", 100}, {"node2", 0}, {"node3", 0}}},
      {.name = "all nodes matches the preferred scheduling requirements of pod "
               "but with different priorities ",
       .pod = PodPreferring(affinity2),
       .nodes = {{"node1", label1}, {"node5", label5}, {"node2", label2}},
       .expected = {{"node1", 18}, {"node5", 100}, {"node2", 36}}},
      {.name = "added affinity",
       .pod = testing::PodBuilder("p").Obj(),
       .nodes = {{"node1", label1}, {"node2", label2}},
       .expected = {{"node1", 100}, {"node2", 0}},
       .added = added1},
      {.name = "added affinity and pod has default affinity",
       .pod = PodPreferring(affinity1),
       .nodes = {{"node1", label1}, {"node2", label2}, {"node3", label5}},
       .expected = {{"node1", 40}, {"node2", 60}, {"node3", 100}},
       .added = added_key},
      {.name = "calculate the priorities correctly even if PreScore is not "
               "called",
       .pod = PodPreferring(affinity2),
       .nodes = {{"node1", label1}, {"node5", label5}, {"node2", label2}},
       .expected = {{"node1", 18}, {"node5", 100}, {"node2", 36}},
       .run_pre_score = false},
      {.name = "zero-weight and empty preferred terms count for nothing",
       .pod = PodPreferring({Preferred(0, {Req("foo", kIn, {"bar"})}),
                             Preferred(7, {}),
                             Preferred(1, {Req("key", kExists)})}),
       .nodes = {{"node1", label1}, {"node2", label2}},
       .expected = {{"node1", 0}, {"node2", 100}}},
  };
}

class NodeAffinityScoreTest : public ::testing::TestWithParam<ScoreCase> {};

// PreScore (unless the case leaves it out, as a profile may), Score on every
// node and NormalizeScore, as the framework runs them.
TEST_P(NodeAffinityScoreTest, Score) {
  const ScoreCase& c = GetParam();
  auto plugin = MakePlugin(c.added);
  auto* pre_score = dynamic_cast<framework::PreScorePlugin*>(plugin.get());
  auto* score = dynamic_cast<framework::ScorePlugin*>(plugin.get());
  ASSERT_NE(pre_score, nullptr);
  ASSERT_NE(score, nullptr);
  std::vector<framework::NodeInfoPtr> infos;
  for (const NodeSpec& n : c.nodes) {
    testing::NodeBuilder node(n.name);
    for (const auto& [k, v] : n.labels) node.Label(k, v);
    infos.push_back(testing::MakeNodeInfo(node.Obj()));
  }
  auto pod =
      framework::PodInfo::Create(std::make_shared<const api::Pod>(c.pod));
  framework::CycleState state;
  if (c.run_pre_score) {
    framework::Status s = pre_score->PreScore(state, *pod, infos);
    EXPECT_EQ(framework::CodeName(s.code()),
              framework::CodeName(c.pre_score_code));
    if (c.pre_score_message_prefix.empty()) {
      EXPECT_EQ(s.Message(), "");
    } else {
      EXPECT_THAT(s.Message(),
                  ::testing::StartsWith(c.pre_score_message_prefix));
    }
    if (!s.IsSuccess()) return;
  }
  framework::NodeScoreList list;
  for (const auto& info : infos) {
    int64_t value = -1;
    framework::Status s = score->Score(state, *pod, *info, &value);
    EXPECT_TRUE(s.IsSuccess()) << s.Message();
    list.push_back({info->name(), value});
  }
  EXPECT_TRUE(score->HasNormalizeScore());
  EXPECT_TRUE(score->NormalizeScore(state, *pod, list).IsSuccess());
  std::vector<Scored> got;
  for (const auto& ns : list) got.push_back({std::string(ns.name), ns.score});
  EXPECT_EQ(got, c.expected);
}

INSTANTIATE_TEST_SUITE_P(TestNodeAffinityPriority, NodeAffinityScoreTest,
                         ::testing::ValuesIn(ScoreCases()),
                         CaseName<ScoreCase>);

TEST(NodeAffinityTest, FactoryRejectsAddedAffinityThatDoesNotParse) {
  struct Case {
    std::string name;
    api::NodeAffinity added;
    std::string error_prefix;
  };
  api::NodeAffinity bad_required =
      AddedRequired({Term({Req("zone", kIn, {"a"})}),
                     Term({Req("zone", kGt, {"not-a-number"})})});
  api::NodeAffinity bad_preferred;
  bad_preferred.preferred = {Preferred(1, {Req("zone", kIn, {})})};
  const Case cases[] = {
      {"required term with a non-integer Gt operand", bad_required,
       "parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: "
       "nodeSelectorTerms[1].matchExpressions[0].values[0]: Invalid value: "
       "\"not-a-number\""},
      {"preferred term with an In operator and no values", bad_preferred,
       "parsing addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: "
       "[0].matchExpressions[0].values: Invalid value"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    config::NodeAffinityArgs args;
    args.added_affinity = c.added;
    testing::FakeHandle handle;
    auto plugin = NewNodeAffinity(&args, handle);
    ASSERT_FALSE(plugin.ok());
    EXPECT_THAT(plugin.error().message(),
                ::testing::StartsWith(c.error_prefix));
  }
}

TEST(NodeAffinityTest, FactoryRejectsArgsOfAnotherType) {
  config::NodeResourcesFitArgs wrong;
  testing::FakeHandle handle;
  auto plugin = NewNodeAffinity(&wrong, handle);
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.error().message(),
            "plugin NodeAffinity: pluginConfig args are of the wrong type");
}

TEST(NodeAffinityTest, EventsToRegister) {
  auto plugin = MakePlugin(std::nullopt);
  auto* ext = dynamic_cast<framework::EnqueueExtensions*>(plugin.get());
  ASSERT_NE(ext, nullptr);
  auto events = ext->EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.Label(), "Node/Add|UpdateNodeLabel");
}

}  // namespace
}  // namespace ksched::plugins
