#include "pkg/api/yaml.h"

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

std::string ToText(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return buf.GetString();
}

TEST(YamlTest, ConvertsEveryDocumentAndDropsEmptyOnes) {
  auto docs = YamlToJson("a: 1\n---\n---\n# only a comment\n---\nb: [x, y]\n");
  ASSERT_TRUE(docs.ok()) << docs.error().message();
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ(ToText((*docs)[0]), R"({"a":1})");
  EXPECT_EQ(ToText((*docs)[1]), R"({"b":["x","y"]})");
}

TEST(YamlTest, TypesPlainScalarsByTheCoreSchema) {
  auto docs = YamlToJson(
      "int: 42\nneg: -7\nfloat: 0.5\nexp: 1e3\nyes_bool: true\nno: False\n"
      "nul: ~\nempty:\nquoted: \"42\"\nsingle: 'true'\nstr: 100m\n"
      "word: yes\nbig: 123456789012345678901234567890\n");
  ASSERT_TRUE(docs.ok()) << docs.error().message();
  EXPECT_EQ(
      ToText((*docs)[0]),
      R"({"int":42,"neg":-7,"float":0.5,"exp":1000.0,"yes_bool":true,)"
      R"("no":false,"nul":null,"empty":null,"quoted":"42","single":"true",)"
      R"("str":"100m","word":"yes","big":1.2345678901234568e29})");
}

TEST(YamlTest, JsonToYamlRoundTripsEveryTypeAndQuotesAmbiguousStrings) {
  const std::string json =
      R"({"score":"473","n":473,"on":"true","empty":"","null":null,)"
      R"("list":[1.5,false,"x y"],"filter-result":{"node-1":{"A":"passed"}}})";
  rapidjson::Document in;
  in.Parse(json.c_str());
  ASSERT_FALSE(in.HasParseError());
  const std::string yaml = JsonToYaml(in);
  EXPECT_NE(yaml.find("score: \"473\""), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("\"n\": 473"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("\"on\": \"true\""), std::string::npos) << yaml;
  auto back = YamlToJson(yaml);
  ASSERT_TRUE(back.ok()) << back.error().message();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_TRUE((*back)[0] == in) << yaml;
}

// The streamed reader gives what YamlToJson gives, item by item.
TEST(YamlTest, StreamingGivesWhatYamlToJsonGives) {
  const std::string text = R"(apiVersion: v1
kind: List
items:
  - kind: Pod
    metadata: {name: a, labels: {n: "1", b: 'true'}}
    spec: {priority: 7, ratio: 0.5, on: true, none: ~, empty: null}
  - kind: Node
    text: |
      two
      lines
metadata: {}
---
---
kind: Pod
metadata: {name: alone}
)";
  std::vector<std::string> items, docs;
  YamlStreamCallbacks callbacks;
  callbacks.on_item = [&](rapidjson::Document item, size_t document,
                          size_t index) {
    items.push_back(std::to_string(document) + "/" + std::to_string(index) +
                    " " + ToText(item));
    return util::Status();
  };
  callbacks.on_document = [&](rapidjson::Document doc, size_t document) {
    docs.push_back(std::to_string(document) + " " + ToText(doc));
    return util::Status();
  };
  auto streamed = StreamYamlToJson(text, callbacks);
  ASSERT_TRUE(streamed.ok()) << streamed.error().message();
  ASSERT_TRUE(*streamed);
  auto whole = YamlToJson(text);
  ASSERT_TRUE(whole.ok());
  ASSERT_EQ(whole->size(), 2u);  // the empty document is dropped by both
  const rapidjson::Value& list = (*whole)[0];
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0], "1/0 " + ToText(list["items"][0]));
  EXPECT_EQ(items[1], "1/1 " + ToText(list["items"][1]));
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[0],
            R"(1 {"apiVersion":"v1","kind":"List","items":[],"metadata":{}})");
  EXPECT_EQ(docs[1], "2 " + ToText((*whole)[1]));
}

TEST(YamlTest, StreamingLeavesAnchorsTagsMergeKeysAndRepeatsToYamlToJson) {
  YamlStreamCallbacks callbacks;
  int calls = 0;
  callbacks.on_item = [&](rapidjson::Document, size_t, size_t) {
    ++calls;
    return util::Status();
  };
  callbacks.on_document = [&](rapidjson::Document, size_t) {
    ++calls;
    return util::Status();
  };
  for (const char* text : {"a: &x {b: 1}\nc: *x\n", "a: !!str 1\n",
                           "base: {x: 1}\nm: {<<: {y: 2}}\n", "a: 1\na: 2\n",
                           "a: [1, 2\n", "items:\n  - {a: &y 1}\n"}) {
    auto r = StreamYamlToJson(text, callbacks);
    ASSERT_TRUE(r.ok()) << text;
    EXPECT_FALSE(*r) << text;
  }
  // A callback's error is the answer.
  callbacks.on_document = [](rapidjson::Document, size_t) {
    return util::Status(util::Error("no thanks"));
  };
  auto r = StreamYamlToJson("a: 1\n", callbacks);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "no thanks");
}

TEST(YamlTest, MalformedYamlNamesLineAndColumn) {
  auto docs = YamlToJson("a: [1, 2\nb: c\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_TRUE(docs.error().message().starts_with("malformed YAML: line "))
      << docs.error().message();
  auto tabs = YamlToJson("a:\n\t- b\n");
  EXPECT_FALSE(tabs.ok());
}

// yaml-cpp's own LoadAll loops forever on these (found by
// test/fuzz/kubeconfig_fuzzer and config_fuzzer).
TEST(YamlTest, StrayCommaIsRefusedNotAnEndlessLoop) {
  for (const char* yaml : {",", "&a ,", "&a\xff\xff,", "!t ,", "--- &a ,",
                           "&a [1],", "a: 1\n---\n,"}) {
    auto docs = YamlToJson(yaml);
    ASSERT_FALSE(docs.ok()) << yaml;
    EXPECT_TRUE(docs.error().message().starts_with("malformed YAML: line "))
        << docs.error().message();
    EXPECT_FALSE(LoadYamlDocuments(yaml).ok()) << yaml;
  }
  // Several documents still load.
  auto docs = LoadYamlDocuments("a: 1\n---\nb: 2\n---\n");
  ASSERT_TRUE(docs.ok()) << docs.error().message();
  EXPECT_EQ(docs->size(), 3u);
}

TEST(YamlTest, AliasBombIsRefused) {
  // Each level doubles the size: 2^30 nodes if expanded.
  std::string yaml = "a0: &a0 [x, x]\n";
  for (int i = 1; i <= 30; ++i) {
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [*a" +
            std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + "]\n";
  }
  auto docs = YamlToJson(yaml);
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.error().message().find("alias expansion"), std::string::npos)
      << docs.error().message();
}

TEST(YamlTest, DeepNestingIsRefusedNotACrash) {
  std::string yaml(2000, '[');
  yaml += std::string(2000, ']');
  auto docs = YamlToJson(yaml);
  EXPECT_FALSE(docs.ok());
}

TEST(YamlTest, NonScalarKeysAreRefused) {
  auto docs = YamlToJson("? [a, b]\n: c\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.error().message().find("mapping keys must be scalars"),
            std::string::npos)
      << docs.error().message();
}

TEST(YamlTest, RepeatedKeysKeepTheLastValue) {
  auto docs = YamlToJson("a: 1\na: 2\n");
  if (!docs.ok()) {
    // yaml-cpp may itself refuse duplicates; that is a clear error too.
    SUCCEED();
    return;
  }
  EXPECT_EQ(ToText((*docs)[0]), R"({"a":2})");
}

}  // namespace
}  // namespace ksched::api

namespace ksched::api {
namespace {

TEST(YamlTest, FloatsFollowTheCoreSchemaExactly) {
  struct Case {
    const char* scalar;
    const char* json;
  } cases[] = {
      {"1.5", "1.5"},         {".5", "0.5"},    {"5.", "5.0"},
      {"-2.5e3", "-2500.0"},  {"1E-2", "0.01"}, {"+.5e+1", "5.0"},
      {".", "\".\""},         {"1e", "\"1e\""}, {"e3", "\"e3\""},
      {"1.2.3", "\"1.2.3\""}, {"+", "\"+\""},   {"1e3x", "\"1e3x\""},
  };
  for (const Case& c : cases) {
    auto docs = YamlToJson(std::string("v: ") + c.scalar + "\n");
    ASSERT_TRUE(docs.ok()) << c.scalar;
    EXPECT_EQ(ToText((*docs)[0]), std::string(R"({"v":)") + c.json + "}")
        << c.scalar;
  }
}

}  // namespace
}  // namespace ksched::api

namespace ksched::api {
namespace {

TEST(YamlTest, MergeKeysAsKubectlReadsThem) {
  auto docs = YamlToJson(R"(
base: &base {a: 1, b: 2, nested: {x: 1}}
other: &other {b: 20, c: 30}
one: {<<: *base, b: 3}
two:
  <<: [*base, *other]
  d: 4
)");
  ASSERT_TRUE(docs.ok()) << docs.error().message();
  const rapidjson::Value& d = (*docs)[0];
  EXPECT_EQ(ToText(d["one"]), R"({"b":3,"a":1,"nested":{"x":1}})");
  // Explicit keys win; among sources, the first one wins (b from base).
  EXPECT_EQ(ToText(d["two"]), R"({"d":4,"a":1,"b":2,"nested":{"x":1},"c":30})");
  auto bad = YamlToJson("a: {<<: [1, 2]}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("must refer to a mapping"),
            std::string::npos);
  // A quoted "<<" is an ordinary key.
  auto quoted = YamlToJson("a: {\"<<\": 1}\n");
  ASSERT_TRUE(quoted.ok());
  EXPECT_EQ(ToText((*quoted)[0]), R"({"a":{"<<":1}})");
}

// A JSON document takes RapidJSON's path; these pin that it reads as the YAML
// path would.
TEST(YamlTest, JsonDocumentReadsAsYamlWould) {
  const std::string json =
      R"(  {"kind":"List","items":[{"n":42,"f":0.5,"b":false,"z":null,)"
      R"("s":"100m","q":"42"}],"e":{}})";
  auto fast = YamlToJson(json);
  ASSERT_TRUE(fast.ok()) << fast.error().message();
  ASSERT_EQ(fast->size(), 1u);
  EXPECT_EQ(ToText((*fast)[0]),
            R"({"kind":"List","items":[{"n":42,"f":0.5,"b":false,"z":null,)"
            R"("s":"100m","q":"42"}],"e":{}})");
  // The same text as a YAML flow mapping, by way of a leading comment that
  // RapidJSON refuses.
  auto slow = YamlToJson("# yaml\n" + json);
  ASSERT_TRUE(slow.ok()) << slow.error().message();
  EXPECT_EQ(ToText((*slow)[0]), ToText((*fast)[0]));
}

TEST(YamlTest, JsonWithRepeatedKeysKeepsTheLastValue) {
  auto docs = YamlToJson(R"({"a":1,"b":{"c":1,"c":2},"a":3})");
  ASSERT_TRUE(docs.ok()) << docs.error().message();
  EXPECT_EQ(ToText((*docs)[0]), R"({"a":3,"b":{"c":2}})");
  std::string wide = "{";
  for (int i = 0; i < 20; ++i)
    wide += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  wide += R"("k3":"last"})";
  auto many = YamlToJson(wide);
  ASSERT_TRUE(many.ok()) << many.error().message();
  EXPECT_EQ((*many)[0]["k3"].GetString(), std::string("last"));
}

TEST(YamlTest, DeepJsonIsRefusedAsDeepYamlIs) {
  const std::string json =
      std::string(300, '[').insert(0, "{\"a\":") + std::string(300, ']') + "}";
  auto docs = YamlToJson(json);
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.error().message().find("levels"), std::string::npos)
      << docs.error().message();
}

TEST(YamlTest, SeveralJsonDocumentsTakeTheYamlPath) {
  auto docs = YamlToJson("{\"a\": 1}\n---\n{\"b\": 2}\n");
  ASSERT_TRUE(docs.ok()) << docs.error().message();
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ(ToText((*docs)[1]), R"({"b":2})");
}

}  // namespace
}  // namespace ksched::api
