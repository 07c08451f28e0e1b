#include "pkg/cel/program.h"

#include <gtest/gtest.h>

namespace ksched::cel {
namespace {

// map, filter and transformList keep their accumulator as a vector; the
// plain evaluation copies it every step. Both must give the same value and
// the same cost, errors included.
TEST(CelProgramTest, AppendingComprehensionsMatchThePlainEvaluation) {
  const char* expressions[] = {
      "[1, 2, 3].map(x, x * 2)",
      "[1, 2, 3].map(x, x > 1, x * 2)",
      "[1, 2, 3].filter(x, x % 2 == 1)",
      "[1, 2, 3].map(x, x / (x - 2))",
      "[1, 2, 3].filter(x, x / (x - 2) > 0)",
      "[1, 2, 3].map(x, x == 2, x / 0)",
      "[[1, 2], [3]].map(l, l.map(y, y + 1))",
      "{'a': 1, 'b': 2}.map(k, k + 'x')",
      "[1, 2, 3].transformList(i, v, i * v)",
      "[1, 2, 3].transformList(i, v, v > 1, i * v)",
      "lists.range(50).map(x, x * x).filter(y, y % 7 == 0).size()",
      "dyn([1, 'a']).map(x, x + 1)",
      "[1, 2].map(x, [x].map(y, y * 10))",
  };
  for (bool kubernetes : {false, true}) {
    Env fast = kubernetes ? KubernetesEnv() : StandardEnv();
    Env plain = fast;
    plain.append_comprehensions = false;
    auto fast_env = std::make_shared<const Env>(std::move(fast));
    auto plain_env = std::make_shared<const Env>(std::move(plain));
    for (const char* expr : expressions) {
      Compiled a = Compile(fast_env, expr, {.check = false});
      Compiled b = Compile(plain_env, expr, {.check = false});
      ASSERT_TRUE(a.program && b.program) << expr << a.error << b.error;
      MapActivation none;
      Evaluation x = a.program->Eval(none);
      Evaluation y = b.program->Eval(none);
      EXPECT_EQ(x.value.DebugString(), y.value.DebugString()) << expr;
      EXPECT_EQ(x.cost, y.cost) << expr << (kubernetes ? " (kubernetes)" : "");
    }
  }
}

}  // namespace
}  // namespace ksched::cel
