#include "pkg/api/label_selector.h"

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

StringMap Labels(std::initializer_list<std::pair<std::string, std::string>> l) {
  StringMap m;
  for (const auto& [k, v] : l) m.Set(k, v);
  return m;
}

LabelSelectorRequirement Expr(std::string key, LabelSelectorOperator op,
                              std::vector<std::string> values = {}) {
  return {std::move(key), op, std::move(values)};
}

TEST(SelectorTest, NilMatchesNothingAndEmptyMatchesEverything) {
  auto nothing = Selector::FromLabelSelector(nullptr);
  ASSERT_TRUE(nothing.ok());
  EXPECT_FALSE(nothing->Matches(Labels({})));
  EXPECT_FALSE(nothing->Matches(Labels({{"a", "b"}})));
  LabelSelector empty;
  auto everything = Selector::FromLabelSelector(&empty);
  ASSERT_TRUE(everything.ok());
  EXPECT_TRUE(everything->IsEverything());
  EXPECT_TRUE(everything->Matches(Labels({})));
  EXPECT_TRUE(everything->Matches(Labels({{"a", "b"}})));
}

// Cases after apimachinery's labels selector tests (TestRequirementMatches,
// TestLabelSelectorAsSelector).
TEST(SelectorTest, MatchesLikeLabelsRequirements) {
  struct Case {
    LabelSelector selector;
    StringMap labels;
    bool match;
  } cases[] = {
      {{Labels({{"app", "web"}}), {}}, Labels({{"app", "web"}}), true},
      {{Labels({{"app", "web"}}), {}}, Labels({{"app", "db"}}), false},
      {{Labels({{"app", "web"}}), {}}, Labels({}), false},
      {{{}, {Expr("x", LabelSelectorOperator::kIn, {"a", "b"})}},
       Labels({{"x", "b"}}),
       true},
      {{{}, {Expr("x", LabelSelectorOperator::kIn, {"a", "b"})}},
       Labels({{"x", "c"}}),
       false},
      {{{}, {Expr("x", LabelSelectorOperator::kNotIn, {"a"})}},
       Labels({}),
       true},
      {{{}, {Expr("x", LabelSelectorOperator::kNotIn, {"a"})}},
       Labels({{"x", "a"}}),
       false},
      {{{}, {Expr("x", LabelSelectorOperator::kExists)}},
       Labels({{"x", ""}}),
       true},
      {{{}, {Expr("x", LabelSelectorOperator::kExists)}},
       Labels({{"y", ""}}),
       false},
      {{{}, {Expr("x", LabelSelectorOperator::kDoesNotExist)}},
       Labels({{"y", "1"}}),
       true},
      {{Labels({{"a", "1"}}), {Expr("b", LabelSelectorOperator::kExists)}},
       Labels({{"a", "1"}}),
       false},
      {{Labels({{"a", "1"}}), {Expr("b", LabelSelectorOperator::kExists)}},
       Labels({{"a", "1"}, {"b", "2"}}),
       true},
  };
  for (size_t i = 0; i < std::size(cases); ++i) {
    auto s = Selector::FromLabelSelector(&cases[i].selector);
    ASSERT_TRUE(s.ok()) << i << ": " << s.error().message();
    EXPECT_EQ(s->Matches(cases[i].labels), cases[i].match) << "case " << i;
  }
}

TEST(SelectorTest, InvalidRequirementsAreErrors) {
  struct Case {
    LabelSelector selector;
    const char* error;
  } cases[] = {
      {{{}, {Expr("x", LabelSelectorOperator::kIn, {})}},
       "for 'in', 'notin' operators, values set can't be empty"},
      {{{}, {Expr("x", LabelSelectorOperator::kExists, {"a"})}},
       "values set must be empty for exists and does not exist"},
      {{{}, {Expr("bad key!", LabelSelectorOperator::kExists)}},
       "key: Invalid value: \"bad key!\""},
      {{{}, {Expr("x", LabelSelectorOperator::kIn, {"not valid"})}},
       "values[0]: Invalid value: \"not valid\""},
      {{{}, {Expr("x", LabelSelectorOperator::kOther, {"a"})}},
       "not a valid label selector operator"},
      {{Labels({{"-leading", "v"}}), {}}, "key: Invalid value"},
  };
  for (const Case& c : cases) {
    auto s = Selector::FromLabelSelector(&c.selector);
    ASSERT_FALSE(s.ok()) << c.error;
    EXPECT_NE(s.error().message().find(c.error), std::string::npos)
        << s.error().message();
  }
}

TEST(SelectorTest, GreaterAndLessThanCompareIntegers) {
  Selector s;
  ASSERT_TRUE(s.Add("gen", Selector::Op::kGt, {"3"}).ok());
  EXPECT_TRUE(s.Matches(Labels({{"gen", "4"}})));
  EXPECT_FALSE(s.Matches(Labels({{"gen", "3"}})));
  EXPECT_FALSE(s.Matches(Labels({{"gen", "four"}})));
  EXPECT_FALSE(s.Matches(Labels({})));
  Selector lt;
  ASSERT_TRUE(lt.Add("gen", Selector::Op::kLt, {"1"}).ok());
  EXPECT_TRUE(lt.Matches(Labels({{"gen", "0"}})));
  EXPECT_FALSE(lt.Matches(Labels({{"gen", "1"}})));
  // A negative operand is not a valid label value, so Kubernetes refuses it.
  EXPECT_FALSE(Selector().Add("gen", Selector::Op::kLt, {"-1"}).ok());
  EXPECT_FALSE(Selector().Add("gen", Selector::Op::kGt, {"1.5"}).ok());
  EXPECT_FALSE(Selector().Add("gen", Selector::Op::kGt, {"1", "2"}).ok());
}

}  // namespace
}  // namespace ksched::api
