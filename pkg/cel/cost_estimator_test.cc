#include "pkg/cel/cost_estimator.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "pkg/cel/cost_kubernetes.h"
#include "pkg/cel/program.h"

namespace ksched::cel {
namespace cost_estimator_test {
namespace {

std::shared_ptr<const Env> Standard() {
  static const auto* env = new std::shared_ptr<const Env>(
      std::make_shared<const Env>(StandardEnv()));
  return *env;
}

CostEstimate EstimateIn(std::shared_ptr<const Env> env,
                        const std::string& expr) {
  NoCostEstimator none;
  Compiled c = Compile(std::move(env), expr, {.cost_estimator = &none});
  EXPECT_TRUE(c.program) << expr << ": " << c.error;
  EXPECT_TRUE(c.cost_estimate.has_value()) << expr;
  return c.cost_estimate.value_or(CostEstimate{});
}

CostEstimate Estimate(const std::string& expr) {
  return EstimateIn(Standard(), expr);
}

TEST(CostEstimateTest, ArithmeticSaturates) {
  EXPECT_EQ(SaturatingAdd(kMaxEstimate, 1), kMaxEstimate);
  EXPECT_EQ(SaturatingAdd(kMaxEstimate - 1, 1), kMaxEstimate);
  EXPECT_EQ(SaturatingMultiply(1ull << 32, 1ull << 32), kMaxEstimate);
  EXPECT_EQ(SaturatingMultiply(0, kMaxEstimate), 0u);
  EXPECT_EQ(MultiplyByCostFactor(kMaxEstimate, 1), kMaxEstimate);
  EXPECT_EQ(MultiplyByCostFactor(kMaxEstimate, 2.5), kMaxEstimate);
  EXPECT_EQ(MultiplyByCostFactor(0, 1e300), 0u);
  // Doubles as Go computes them: ceil(0.1 * 2^64) rounded to a double.
  EXPECT_EQ(MultiplyByCostFactor(kMaxEstimate, 0.1), 1844674407370955264u);
  EXPECT_EQ(MultiplyByCostFactor(21, 0.1), 3u);
  EXPECT_EQ(MultiplyByCostFactor(10, 0.1), 1u);
  EXPECT_EQ((SizeEstimate{0, kMaxEstimate}.MultiplyByCost({2, 2})),
            (CostEstimate{0, kMaxEstimate}));
}

TEST(CostEstimatorTest, LiteralsIdentifiersAndSelections) {
  EXPECT_EQ(Estimate("true"), CostEstimate::Fixed(0));
  EXPECT_EQ(Estimate("'abc'"), CostEstimate::Fixed(0));
  EXPECT_EQ(Estimate("[1, 2, 3]"), CostEstimate::Fixed(10));
  EXPECT_EQ(Estimate("{'a': 1}"), CostEstimate::Fixed(30));
  EXPECT_EQ(Estimate("{'a': [1]}.a"), CostEstimate::Fixed(41));
  EXPECT_EQ(Estimate("{'a': [1]}['a'][0]"), CostEstimate::Fixed(42));
  // A select on dyn costs nothing extra; an index always costs 1.
  EXPECT_EQ(Estimate("dyn({'a': 1}).a"), CostEstimate::Fixed(31));
}

TEST(CostEstimatorTest, SizedOperatorsUseLiteralSizes) {
  // Equality and ordering of strings traverse the shorter one.
  EXPECT_EQ(Estimate("'abc' == 'abcdefghijklmnopqrstu'"),
            CostEstimate::Fixed(1));
  EXPECT_EQ(Estimate("'abcdefghijklmnopqrstu' < 'abcdefghijklmnopqrstuv'"),
            (CostEstimate{1, 3}));
  EXPECT_EQ(Estimate("'' == ''"), CostEstimate::Fixed(0));
  EXPECT_EQ(Estimate("1 == 1"), CostEstimate::Fixed(1));
  EXPECT_EQ(Estimate("'abc' + 'defghijkl' == 'x'"), CostEstimate::Fixed(3));
  EXPECT_EQ(Estimate("'abcdefghijkl'.startsWith('abcdefghijk')"),
            CostEstimate::Fixed(2));
  EXPECT_EQ(Estimate("'abcdefghijkl'.contains('abcdefghijk')"),
            CostEstimate::Fixed(4));
  // (12 + 1) * 0.1 -> 2, times 8 * 0.25 -> 2.
  EXPECT_EQ(Estimate("'abcdefghijkl'.matches('[a-z]+.*')"),
            CostEstimate::Fixed(4));
  EXPECT_EQ(Estimate("2 in [1, 2, 3]"), CostEstimate::Fixed(13));
  EXPECT_EQ(Estimate("'a' in {'a': 1}"), CostEstimate::Fixed(31));
  // bytes(s) may need four bytes per code point.
  EXPECT_EQ(Estimate("bytes('abcdefghijkl') == bytes('abcdefghijkl')"),
            (CostEstimate{5, 9}));
}

TEST(CostEstimatorTest, ShortCircuitsAndConditionals) {
  EXPECT_EQ(Estimate("1 < 2 && 'abc'.contains('b')"), (CostEstimate{1, 2}));
  EXPECT_EQ(Estimate("1 < 2 || [1].size() == 1"), (CostEstimate{1, 13}));
  // The condition plus either branch; the operator itself is free.
  EXPECT_EQ(Estimate("1 < 2 ? [1, 2] : [3]"), (CostEstimate{11, 11}));
  EXPECT_EQ(Estimate("1 < 2 ? 1 : [1, 2].size()"), (CostEstimate{1, 12}));
}

TEST(CostEstimatorTest, ComprehensionsMultiplyByTheirRange) {
  // 10 for the list, then per element the loop condition (2) and the step
  // (at least 1, at most 3), then the result (1).
  EXPECT_EQ(Estimate("[1, 2, 3].all(x, x > 0)"), (CostEstimate{20, 26}));
  EXPECT_EQ(Estimate("[1, 2, 3].exists(x, x > 0)"), (CostEstimate{23, 29}));
  EXPECT_EQ(Estimate("[1, 2, 3].exists_one(x, x > 0)"), (CostEstimate{21, 24}));
  // map builds its result list: 10 for the accumulator, 13 per step.
  EXPECT_EQ(Estimate("[1, 2].map(x, x * 2)"), (CostEstimate{49, 49}));
  // Nested: the inner comprehension is the outer one's step.
  EXPECT_EQ(Estimate("[1, 2].all(x, [1, 2, 3].all(y, x < y))"),
            (CostEstimate{17, 75}));
  // The size of a comprehension's result bounds the next one's range.
  EXPECT_EQ(Estimate("[1, 2].map(x, x * 2).all(y, y > 0)"),
            (CostEstimate{56, 60}));
}

TEST(CostEstimatorTest, BindCostsItsInitOnceAndKeepsItsSize) {
  // The empty list (10), the init, the body; x has the init's size.
  EXPECT_EQ(Estimate("cel.bind(x, 'abc', x + x == 'abcabc')"),
            (CostEstimate{14, 14}));
  EXPECT_EQ(Estimate("cel.bind(l, [1, 2, 3], l.all(v, v > 0))"),
            (CostEstimate{31, 37}));
}

TEST(CostEstimatorTest, PresenceTestsAndOptionalSelection) {
  auto with_cost = Standard();
  Env free_env = StandardEnv();
  free_env.presence_test_has_cost = false;
  auto free_tests = std::make_shared<const Env>(std::move(free_env));
  EXPECT_EQ(EstimateIn(with_cost, "has({'a': 1}.a)"), CostEstimate::Fixed(31));
  EXPECT_EQ(EstimateIn(free_tests, "has({'a': 1}.a)"), CostEstimate::Fixed(30));
  // `a.?b` is a call (select_optional_field) of cost 1.
  EXPECT_EQ(Estimate("{'a': 1}.?a"), CostEstimate::Fixed(31));
}

TEST(CostEstimatorTest, UnknownSizesMakeUnboundedEstimates) {
  // dyn() keeps its argument's size; a conversion's result has none.
  EXPECT_EQ(Estimate("dyn('abc').contains('b')"), CostEstimate::Fixed(2));
  CostEstimate c = Estimate("string(1).contains('b')");
  EXPECT_EQ(c.min, 1u);
  EXPECT_EQ(c.max, 1844674407370955264u + 1);
  EXPECT_EQ(Estimate("string(1).matches(string(2))").max, kMaxEstimate);
}

TEST(CostEstimatorTest, RuntimeCostsStayWithinTheEstimate) {
  // cel-go's promise, which Kubernetes relies on: no evaluation costs more
  // than the estimate's max. In Kubernetes' environment, whose runtime
  // costs are its library's.
  Env env = KubernetesEnv();
  env.variables.emplace("m", Type::Map(Type::String(), Type::Int()));
  auto shared = std::make_shared<const Env>(std::move(env));
  KubernetesCostEstimator estimator;
  const char* expressions[] = {
      "[1, 2, 3].all(x, x > 0)",
      "[1, 2, 3].exists(x, x == 2)",
      "[1, 2, 3].exists_one(x, x == 2)",
      "[1, 2, 3].map(x, x * 2).filter(y, y > 2).size() == 2",
      "{'a': 1, 'b': 2}.all(k, v, v > 0)",
      "{'a': 1, 'b': 2}.transformMap(k, v, v + 1) == {'a': 2, 'b': 3}",
      "[1, 2].transformList(i, v, v < 5, v + 1) == [2, 3]",
      "cel.bind(x, 'abc', x + x == 'abcabc')",
      "'abcdefghijkl'.matches('[a-z]+.*')",
      "'hello world'.split(' ').join('-') == 'hello-world'",
      "'hello'.replace('l', 'LL').upperAscii() < 'z'",
      "[3, 1, 2].sort() == [1, 2, 3]",
      "lists.range(20).slice(2, 5).reverse().distinct().size() == 3",
      "sets.contains([1, 2, 3], [2, 3]) && sets.intersects([1], [1, 2])",
      "[[1, 2], [3]].flatten().size() == 3",
      "'%s-%d'.format(['a', 1]) == 'a-1'",
      "strings.quote('a\"b') == '\"a\\\\\"b\"'",
      "(1 < 2 ? 'abc'.size() : 5) == 3",
      "has(m.a) && !has(m.b) && m.a == 1 && m['a'] == 1",
      "optional.of(1).hasValue() && m.?a.orValue(0) == 1",
      "m.all(k, m[k] > 0 && k.startsWith('a'))",
      "quantity('1Gi').isGreaterThan(quantity('1Mi'))",
      "cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))",
      "url('https://example.com/a?b=c').getHost() == 'example.com'",
      "semver('1.2.3').isLessThan(semver('1.10.0'))",
      "'abc 123 def 123'.findAll('[0-9]+').size() == 2",
      "[1, 5, 3].max() == 5 && ['b', 'a'].isSorted() == false",
  };
  for (const char* expr : expressions) {
    Compiled c = Compile(shared, expr, {.cost_estimator = &estimator});
    ASSERT_TRUE(c.program) << expr << ": " << c.error;
    MapActivation vars({{"m", MakeMap({{Value::String("a"), Value::Int(1)}})}});
    Evaluation r = c.program->Eval(vars);
    EXPECT_EQ(r.value.DebugString(), "true") << expr;
    EXPECT_LE(r.cost, c.cost_estimate->max) << expr;
  }
}

TEST(CostEstimatorTest, NoEstimateWithoutAnEstimatorOrACheck) {
  EXPECT_FALSE(Compile(Standard(), "1 + 1").cost_estimate.has_value());
  NoCostEstimator none;
  EXPECT_FALSE(
      Compile(Standard(), "1 + 1", {.check = false, .cost_estimator = &none})
          .cost_estimate.has_value());
}

TEST(CostEstimatorTest, PathologicalExpressionsSaturate) {
  // Ranges wrapping around, unknown depths and huge literal ranges:
  // UINT64_MAX, never overflow.
  EXPECT_EQ(Estimate("[1, 2, 3].slice(2, 1)").max, kMaxEstimate);
  EXPECT_EQ(Estimate("[[1]].flatten(int('5')).size()").max, kMaxEstimate);
  // 2^63 - 1 is 2^63 as a double, as in Go.
  EXPECT_EQ(Estimate("lists.range(9223372036854775807).size()").max,
            9223372036854775808ull + 11 + 1);
  // Twelve nested comprehensions over ranges of unknown size.
  std::string nested = "true";
  for (int i = 0; i < 12; ++i) {
    nested =
        "lists.range(int('9')).all(x" + std::to_string(i) + ", " + nested + ")";
  }
  EXPECT_EQ(Estimate(nested).max, kMaxEstimate);
  // Thirty nested comprehensions over known ranges: 8^30 > 2^64.
  std::string known = "true";
  for (int i = 0; i < 30; ++i) {
    known = "[1, 2, 3, 4, 5, 6, 7, 8].exists(y" + std::to_string(i) + ", " +
            known + ")";
  }
  EXPECT_EQ(Estimate(known).max, kMaxEstimate);
  // Nesting as deep as the parser allows (each level is two of its 250).
  std::string dyns = "1";
  std::string lists = "1";
  for (int i = 0; i < 124; ++i) {
    dyns = "dyn(" + dyns + ")";
    lists = "[" + lists + "]";
  }
  EXPECT_EQ(Estimate(dyns), CostEstimate::Fixed(124));
  EXPECT_EQ(Estimate(lists), CostEstimate::Fixed(1240));
  // A long list literal and a long concatenation.
  std::string list = "[";
  for (int i = 0; i < 3000; ++i) list += (i ? ", " : "") + std::to_string(i);
  list += "]";
  EXPECT_EQ(Estimate(list + ".all(x, x >= 0)").max, 10 + 3000 * 5 + 1);
  std::string sum = "'a'";
  for (int i = 0; i < 100; ++i) sum = "(" + sum + " + string(1))";
  EXPECT_EQ(Estimate("size(" + sum + ") > 0").max, kMaxEstimate);
}

}  // namespace
}  // namespace cost_estimator_test
}  // namespace ksched::cel
