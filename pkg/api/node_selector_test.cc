#include "pkg/api/node_selector.h"

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

Node MakeNode(std::string name,
              std::initializer_list<std::pair<std::string, std::string>> l) {
  Node n;
  n.metadata.name = std::move(name);
  for (const auto& [k, v] : l) n.metadata.labels.Set(k, v);
  return n;
}

NodeSelectorTerm Term(std::vector<NodeSelectorRequirement> exprs,
                      std::vector<NodeSelectorRequirement> fields = {}) {
  return {std::move(exprs), std::move(fields)};
}

// Cases after component-helpers' nodeaffinity tests (TestNodeSelectorMatch).
TEST(NodeSelectorTest, TermsAreOredRequirementsAnded) {
  Node node = MakeNode("n1", {{"zone", "a"}, {"gen", "5"}});
  struct Case {
    const char* name;
    NodeSelector selector;
    bool match;
  } cases[] = {
      {"no terms", {}, false},
      {"empty term selects nothing", {{Term({})}}, false},
      {"In matches",
       {{Term({{"zone", NodeSelectorOperator::kIn, {"a", "b"}}})}},
       true},
      {"NotIn excludes",
       {{Term({{"zone", NodeSelectorOperator::kNotIn, {"a"}}})}},
       false},
      {"AND within a term",
       {{Term({{"zone", NodeSelectorOperator::kIn, {"a"}},
               {"gen", NodeSelectorOperator::kGt, {"6"}}})}},
       false},
      {"OR across terms",
       {{Term({{"zone", NodeSelectorOperator::kIn, {"b"}}}),
         Term({{"gen", NodeSelectorOperator::kLt, {"6"}}})}},
       true},
      {"matchFields metadata.name",
       {{Term({}, {{"metadata.name", NodeSelectorOperator::kIn, {"n1"}}})}},
       true},
      {"matchFields other name",
       {{Term({}, {{"metadata.name", NodeSelectorOperator::kIn, {"n2"}}})}},
       false},
      {"matchFields NotIn",
       {{Term({}, {{"metadata.name", NodeSelectorOperator::kNotIn, {"n2"}}})}},
       true},
      {"matchFields with two values is invalid",
       {{Term({},
              {{"metadata.name", NodeSelectorOperator::kIn, {"n1", "n2"}}})}},
       false},
      {"invalid term does not poison a valid one",
       {{Term({{"zone", NodeSelectorOperator::kIn, {}}}),
         Term({{"zone", NodeSelectorOperator::kExists, {}}})}},
       true},
      {"Gt with a non-integer value is invalid",
       {{Term({{"gen", NodeSelectorOperator::kGt, {"x"}}})}},
       false},
      {"DoesNotExist",
       {{Term({{"gpu", NodeSelectorOperator::kDoesNotExist, {}}})}},
       true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(CompiledNodeSelector(c.selector).Matches(node), c.match)
        << c.name;
  }
}

TEST(NodeSelectorTest, RequiredNodeAffinityCombinesNodeSelector) {
  Pod pod;
  pod.spec.node_selector.Set("zone", "a");
  Node a = MakeNode("a", {{"zone", "a"}, {"disk", "ssd"}});
  Node b = MakeNode("b", {{"zone", "b"}, {"disk", "ssd"}});
  EXPECT_TRUE(RequiredNodeAffinity(pod).Matches(a));
  EXPECT_FALSE(RequiredNodeAffinity(pod).Matches(b));

  pod.spec.affinity.emplace().node_affinity.emplace().required.emplace();
  pod.spec.affinity->node_affinity->required->node_selector_terms.push_back(
      Term({{"disk", NodeSelectorOperator::kIn, {"hdd"}}}));
  EXPECT_FALSE(RequiredNodeAffinity(pod).Matches(a));
  pod.spec.affinity->node_affinity->required->node_selector_terms[0]
      .match_expressions[0]
      .values = {"ssd"};
  EXPECT_TRUE(RequiredNodeAffinity(pod).Matches(a));
  EXPECT_FALSE(RequiredNodeAffinity(pod).Matches(b));
}

TEST(NodeSelectorTest, PreferredTermsSumMatchingWeights) {
  std::vector<PreferredSchedulingTerm> terms = {
      {10, Term({{"zone", NodeSelectorOperator::kIn, {"a"}}})},
      {5, Term({{"disk", NodeSelectorOperator::kExists, {}}})},
      {0, Term({{"zone", NodeSelectorOperator::kExists, {}}})},
      {7, Term({})},
  };
  CompiledPreferredTerms compiled(terms);
  EXPECT_EQ(compiled.Score(MakeNode("x", {{"zone", "a"}, {"disk", "ssd"}})),
            15);
  EXPECT_EQ(compiled.Score(MakeNode("y", {{"zone", "b"}, {"disk", "ssd"}})), 5);
  EXPECT_EQ(compiled.Score(MakeNode("z", {})), 0);
}

}  // namespace
}  // namespace ksched::api
