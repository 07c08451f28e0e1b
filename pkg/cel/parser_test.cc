#include "pkg/cel/parser.h"

#include <gtest/gtest.h>

#include "pkg/cel/program.h"

namespace ksched::cel {
namespace {

TEST(CelParserTest, ErrorsCarryLineAndColumn) {
  std::string src = "1 +\n  ]";
  ParseResult r = Parse(src);
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(FormatIssues(src, r.issues),
            "ERROR: <input>:2:3: Syntax error: mismatched input ']'\n |   ]\n"
            " | ..^");
}

TEST(CelParserTest, DeepNestingIsAnErrorNotAStackOverflow) {
  for (const char* open : {"(", "[", "{1:", "a.b(", "x ? y : "}) {
    std::string src;
    for (int i = 0; i < 5000; ++i) src += open;
    ParseResult r = Parse(src);
    ASSERT_FALSE(r.issues.empty()) << open;
    EXPECT_EQ(r.issues[0].message, "expression recursion limit exceeded: 250")
        << open;
  }
  // Repeated prefix operators are counted, not nested.
  EXPECT_TRUE(Parse(std::string(20000, '-') + "1").issues.empty());
  EXPECT_TRUE(Parse(std::string(20000, '!') + "true").issues.empty());
  // Long flat chains are fine.
  std::string chain = "1";
  for (int i = 0; i < 200; ++i) chain += " + 1";
  EXPECT_TRUE(Parse(chain).issues.empty());
}

TEST(CelParserTest, ExpressionSizeLimit) {
  ParseOptions options;
  options.max_code_points = 10;
  ParseResult r = Parse("1 + 2 + 3 + 4", options);
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].message,
            "expression code point size exceeds limit: size: 13, limit 10");
}

TEST(CelParserTest, MacrosExpandAsCelGoDoes) {
  auto env = std::make_shared<const Env>(StandardEnv());
  Compiled c = Compile(env, "[1, 2, 3].map(x, x * 2).filter(y, y > 2)");
  ASSERT_TRUE(c.program) << c.error;
  MapActivation none;
  EXPECT_EQ(c.program->Eval(none).value.DebugString(), "[4, 6]");
  Compiled bad = Compile(env, "[1].all(1, true)");
  EXPECT_NE(bad.error.find("argument must be a simple name"), std::string::npos)
      << bad.error;
  Compiled has = Compile(env, "has(1)");
  EXPECT_NE(has.error.find("invalid argument to has() macro"),
            std::string::npos)
      << has.error;
}

TEST(CelParserTest, ReservedWordsAreRefused) {
  ParseResult r = Parse("while");
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].message, "reserved identifier: while");
}

}  // namespace
}  // namespace ksched::cel
