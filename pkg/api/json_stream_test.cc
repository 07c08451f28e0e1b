#include "pkg/api/json_stream.h"

#include <gtest/gtest.h>

#include <string>

namespace ksched::api {
namespace {

TEST(JsonStreamTest, ReadsValuesOneAfterAnother) {
  size_t read = 7;
  bool syntax = true;
  auto docs = ParseJsonStream(" {\"a\": 1}\n{\"b\": [2]} \n", &read, &syntax);
  ASSERT_TRUE(docs.ok()) << docs.error().message();
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[1]["b"][0].GetInt(), 2);
  EXPECT_FALSE(syntax);
}

TEST(JsonStreamTest, SyntaxErrorsArePlacedAndCounted) {
  size_t read = 0;
  bool syntax = false;
  auto docs = ParseJsonStream("{\"a\": 1}\n{\"b\": 2,}\n", &read, &syntax);
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.error().message(),
            "malformed JSON: line 2, column 9: Missing a name for object "
            "member.");
  EXPECT_EQ(read, 1u);
  EXPECT_TRUE(syntax);
}

TEST(JsonStreamTest, AValueIsPlacedInTheTextItCameFrom) {
  const std::string whole = "{\n  \"items\": [\n    {\"x\": tru}\n  ]\n}";
  const size_t at = whole.find("{\"x\"");
  bool syntax = false;
  auto doc = ParseJsonValue(std::string_view(whole).substr(at, 11), whole, at,
                            &syntax);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().message(),
            "malformed JSON: line 3, column 14: Invalid value.");
  EXPECT_TRUE(syntax);
}

TEST(JsonStreamTest, DeepNestingAndRepeatedKeysAreRefused) {
  const std::string deep =
      std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  bool syntax = true;
  auto doc = ParseJsonValue(deep, deep, 0, &syntax);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().message(), "JSON nested deeper than 256 levels");
  EXPECT_FALSE(syntax);
  const std::string limit =
      std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(ParseJsonValue(limit, limit, 0).ok());
  // Far deeper than any stack would take recursively: no crash.
  const std::string abyss =
      std::string(1 << 20, '[') + std::string(1 << 20, ']');
  EXPECT_FALSE(ParseJsonValue(abyss, abyss, 0).ok());

  auto repeated = ParseJsonStream("{\"a\": {\"k\": 1, \"k\": 2}}");
  ASSERT_FALSE(repeated.ok());
  EXPECT_EQ(repeated.error().message(),
            "malformed JSON: duplicate field \"k\"");
}

}  // namespace
}  // namespace ksched::api
