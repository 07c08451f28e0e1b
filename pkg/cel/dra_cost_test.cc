// The worst-case costs Kubernetes v1.36 estimates for DRA selectors
// (dynamic-resource-allocation/cel/compile_test.go), and where the API
// server's limit falls.
#include "pkg/cel/dra_cost.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/cel/dra.h"

namespace ksched::cel::dra {
namespace dra_cost_test {
namespace {

DeviceAttribute StringAttr(std::string s) {
  DeviceAttribute a;
  a.string_value = std::move(s);
  return a;
}
DeviceAttribute IntAttr(int64_t i) {
  DeviceAttribute a;
  a.kind = DeviceAttribute::Kind::kInt;
  a.int_value = i;
  return a;
}
DeviceAttribute BoolAttr(bool b) {
  DeviceAttribute a;
  a.kind = DeviceAttribute::Kind::kBool;
  a.bool_value = b;
  return a;
}
DeviceAttribute VersionAttr(std::string v) {
  DeviceAttribute a;
  a.kind = DeviceAttribute::Kind::kVersion;
  a.string_value = std::move(v);
  return a;
}

struct Case {
  const char* name;
  std::string expression;
  uint64_t cost;
  Device device;
  // Matches: whether it should succeed (and its result), or fail.
  bool match_error = false;
  bool match = true;
  bool consumable_capacity = false;
};

Device WithDriver(Device d) {
  if (d.driver.empty()) d.driver = "dra.example.com";
  return d;
}

// Kubernetes' "expensive" case: the most attributes, each with the longest
// id, so that evaluation reaches the runtime limit.
Device ManyAttributes() {
  Device d;
  d.driver = "dra.example.com";
  for (uint64_t i = 0; i < kMaxAttributesAndCapacitiesPerDevice; ++i) {
    std::string suffix = "-" + std::to_string(i);
    d.attributes.push_back(
        {"dra.example.com/" +
             std::string(kDeviceMaxIdLength - suffix.size(), 'x') + suffix,
         StringAttr("abc")});
  }
  return d;
}

std::vector<Case> KubernetesCases() {
  api::Quantity mebi = *api::Quantity::Parse("1Mi");
  std::vector<Case> cases = {
      {"true", "true", 0, {}},
      {"false", "false", 0, {}, false, false},
      {"runtime-error-lookup-identifier",
       R"(device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0")))",
       6,
       {},
       true},
      {"runtime-error-lookup-map",
       R"(device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0")))",
       6,
       {},
       true},
      {"domain-check-negative",
       R"("no-such-domain" in device.attributes)",
       3,
       {},
       false,
       false},
      {"domain-check-positive",
       R"("dra.example.com" in device.attributes)",
       3,
       {.attributes = {{"dra.example.com/something", BoolAttr(true)}}}},
      {"empty-driver-name", R"(device.driver == "")", 2, {}},
      {"real-driver-name",
       R"(device.driver == "dra.example.com")",
       4,
       {.driver = "dra.example.com"}},
      {"driver-name-qualifier", R"(device.attributes["dra.example.com"].name)",
       4, WithDriver({.attributes = {{"name", BoolAttr(true)}}})},
      {"driver-name-qualifier-map-lookup",
       R"(device.attributes["dra.example.com"]["name"])", 4,
       WithDriver({.attributes = {{"name", BoolAttr(true)}}})},
      {"bind",
       R"(cel.bind(dra, device.attributes["dra.example.com"], dra.name))", 15,
       WithDriver({.attributes = {{"name", BoolAttr(true)}}})},
      {"qualified-attribute-name",
       R"(device.attributes["other.example.com"].name)", 4,
       WithDriver(
           {.attributes = {{"other.example.com/name", BoolAttr(true)}}})},
      {"bool", R"(device.attributes["dra.example.com"].name)", 4,
       WithDriver({.attributes = {{"name", BoolAttr(true)}}})},
      {"int", R"(device.attributes["dra.example.com"].name > 0)", 5,
       WithDriver({.attributes = {{"name", IntAttr(1)}}})},
      {"string", R"(device.attributes["dra.example.com"].name == "fish")", 5,
       WithDriver({.attributes = {{"name", StringAttr("fish")}}})},
      {"version",
       R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1")))",
       6, WithDriver({.attributes = {{"name", VersionAttr("1.0.0")}}})},
      {"version_v",
       R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true))",
       7, WithDriver({.attributes = {{"name", VersionAttr("1.0.0")}}})},
      {"quantity",
       R"(device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
       6, WithDriver({.capacity = {{"name", mebi}}})},
      {"check-positive",
       R"("name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
       10, WithDriver({.capacity = {{"name", mebi}}})},
      {"check-negative",
       R"(!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
       11,
       {}},
      {"all",
       R"(
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
)",
       52,
       WithDriver({.attributes = {{"bool", BoolAttr(true)},
                                  {"int", IntAttr(1)},
                                  {"string", StringAttr("fish")},
                                  {"version", VersionAttr("1.0.0")}},
                   .capacity = {{"quantity", mebi}}})},
      {"many",
       R"(device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c)",
       12,
       WithDriver({.attributes = {{"a", BoolAttr(true)},
                                  {"b", BoolAttr(true)},
                                  {"c", BoolAttr(true)}}})},
      {"check_attribute_domains",
       R"(device.attributes.exists_one(x, x == "dra.example.com"))", 164,
       WithDriver(
           {.attributes = {{"services", StringAttr("some_example_value")}}})},
      {"check_attribute_ids",
       R"(device.attributes["dra.example.com"].exists_one(x, x == "services"))",
       133,
       WithDriver(
           {.attributes = {{"services", StringAttr("some_example_value")}}})},
      {"split_attribute",
       R"(device.attributes["dra.example.com"].services.split("example").size() >= 2)",
       19,
       WithDriver(
           {.attributes = {{"services", StringAttr("some_example_value")}}})},
      {"regexp_attribute",
       R"(device.attributes["dra.example.com"].services.matches("[^a]?sym"))",
       18, WithDriver({.attributes = {{"services", StringAttr("asymetric")}}})},
      {"check_capacity_domains",
       R"(device.capacity.exists_one(x, x == "dra.example.com"))", 164,
       WithDriver({.capacity = {{"memory", mebi}}})},
      {"check_capacity_ids",
       R"(device.capacity["dra.example.com"].exists_one(x, x == "memory"))",
       133, WithDriver({.capacity = {{"memory", mebi}}})},
      {"expensive",
       "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, "
       "10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, "
       "7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, "
       "3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, "
       "10].all(z5, int('1'.find('[0-9]*')) < 100)))))))",
       85555551, ManyAttributes(), true},
  };
  // allowMultipleAllocations, with DRAConsumableCapacity (on by default in
  // v1.36).
  for (auto [name, expr, allow] :
       {std::tuple{"allow_multiple_allocations",
                   "device.allowMultipleAllocations == true",
                   std::optional<bool>(true)},
        std::tuple{"allow_multiple_allocations_default",
                   "device.allowMultipleAllocations == false",
                   std::optional<bool>()},
        std::tuple{"allow_multiple_allocations_false",
                   "device.allowMultipleAllocations == false",
                   std::optional<bool>(false)}}) {
    Case c{name, expr, 3, WithDriver({.allow_multiple_allocations = allow})};
    c.consumable_capacity = true;
    cases.push_back(std::move(c));
  }
  return cases;
}

TEST(DraCostTest, KubernetesEstimates) {
  for (const Case& c : KubernetesCases()) {
    SCOPED_TRACE(c.name);
    auto selector = Selector::Compile(
        c.expression, Features{.consumable_capacity = c.consumable_capacity});
    ASSERT_TRUE(selector.ok()) << selector.error().message();
    EXPECT_EQ((*selector)->estimated_max_cost(), c.cost);
    // Kubernetes checks the same: evaluation never costs more than the
    // estimate.
    auto device = DeviceActivation::Make(c.device);
    ASSERT_TRUE(device.ok()) << device.error().message();
    uint64_t cost = 0;
    util::Result<bool> matched = (*selector)->Matches(**device, &cost);
    EXPECT_LE(cost, (*selector)->estimated_max_cost());
    if (c.match_error) {
      EXPECT_FALSE(matched.ok());
    } else {
      ASSERT_TRUE(matched.ok()) << matched.error().message();
      EXPECT_EQ(*matched, c.match);
    }
  }
}

// Kubernetes' cases for list-typed attributes (DRAListTypeAttributes, off by
// default in v1.36) whose expressions ksched's environment compiles too,
// its attribute values being dyn: the estimates are the same, the bound of
// an attribute being 64 (code points or items) either way.
TEST(DraCostTest, KubernetesListAttributeEstimates) {
  const uint64_t kAttribute = kDeviceAttributeMaxValueLength;
  const std::pair<std::string, uint64_t> cases[] = {
      {R"(device.attributes["dra.example.com"].name.exists(x, x > 0))",
       5 + (3 + 3) * kAttribute},
      {R"(device.attributes["dra.example.com"].name.exists(x, x == true))",
       5 + (3 + 3) * kAttribute},
      {R"(device.attributes["dra.example.com"].name.exists(x, x == "fish"))",
       5 + (3 + 3) * kAttribute},
      {R"(device.attributes["dra.example.com"].names)", 4},
      {R"(device.attributes["dra.example.com"].names.size() == 2)", 6},
      {R"(device.attributes["dra.example.com"].names.all(x, x != ""))",
       5 + (2 + 2) * kAttribute},
      {R"(device.attributes["dra.example.com"].names.all(x, x.isGreaterThan(semver("0.0.1"))))",
       5 + (2 + 4) * kAttribute},
      {R"(device.attributes["dra.example.com"].name.exists(x, x.isGreaterThan(semver("0.0.1"))))",
       5 + (3 + 4) * kAttribute},
      {R"(1 in device.attributes["dra.example.com"].names)", 4 + kAttribute},
  };
  for (const auto& [expr, cost] : cases) {
    auto selector = Selector::Compile(expr);
    ASSERT_TRUE(selector.ok()) << expr << ": " << selector.error().message();
    EXPECT_EQ((*selector)->estimated_max_cost(), cost) << expr;
  }
}

uint64_t EstimateOf(const std::string& expr) {
  auto selector = Selector::Compile(expr);
  EXPECT_TRUE(selector.ok()) << expr << ": " << selector.error().message();
  return selector.ok() ? (*selector)->estimated_max_cost() : 0;
}

TEST(DraCostTest, NestedLoopsOverAttributesCrossTheLimit) {
  // Each level multiplies by 32 attributes (or domains): three levels stay
  // under 1,000,000, four do not.
  const std::string three =
      "device.attributes.all(d, device.attributes[d].all(i, "
      "device.attributes[d].all(j, "
      "device.attributes[d][i] == device.attributes[d][j])))";
  EXPECT_EQ(EstimateOf(three), 729347u);
  const std::string four =
      "device.attributes.all(d, device.attributes[d].all(i, "
      "device.attributes.all(d2, device.attributes[d2].all(i2, "
      "device.attributes[d][i] == device.attributes[d2][i2]))))";
  EXPECT_EQ(EstimateOf(four), 23337219u);
  EXPECT_GT(EstimateOf(four), kSelectorMaxCost);
  EXPECT_LE(EstimateOf(three), kSelectorMaxCost);
}

TEST(DraCostTest, StringOperationsOnAttributeNames) {
  // matches() costs the string (driver names have up to 63 code points)
  // times the pattern (domains up to 63 each).
  EXPECT_EQ(EstimateOf("device.attributes.all(d, device.attributes[d].all(i, "
                       "device.driver.matches(d + i)))"),
            189699u);
  EXPECT_EQ(EstimateOf("device.attributes.all(d, device.attributes[d].all(i, "
                       "device.attributes.all(d2, "
                       "device.driver.matches(d + d2))))"),
            8001795u);
}

TEST(DraCostTest, EstimatesAroundTheLimit) {
  // Kubernetes refuses estimates above kSelectorMaxCost, not at it.
  // 3331 + 1024 * 973 for the loops, plus 317 or 318 for the last
  // matches(): the pattern's length / 4, the string being empty.
  auto expr = [](size_t tail) {
    return "device.attributes.all(d, device.attributes[d].all(i, "
           "\"\".matches(\"" +
           std::string(4 * 973, 'a') + "\"))) && \"\".matches(\"" +
           std::string(4 * tail, 'a') + "\")";
  };
  EXPECT_EQ(EstimateOf(expr(317)), kSelectorMaxCost);
  EXPECT_EQ(EstimateOf(expr(318)), kSelectorMaxCost + 1);
}

TEST(DraCostTest, PathologicalSelectorsSaturate) {
  // Fifteen nested loops over attribute domains: 32^15 > 2^64.
  std::string nested = "true";
  for (int i = 0; i < 15; ++i) {
    nested =
        "device.attributes.all(x" + std::to_string(i) + ", " + nested + ")";
  }
  EXPECT_EQ(EstimateOf(nested), kMaxEstimate);
  // Strings of unknown length (string(int) has no bound) matched against
  // each other.
  EXPECT_EQ(EstimateOf("device.attributes.all(d, "
                       "(d + string(1)).matches(d + string(2)))"),
            kMaxEstimate);
  // The longest selector the API allows, a string literal, is cheap.
  std::string longest = "device.driver == \"\"";
  longest.insert(longest.size() - 1,
                 std::string(kSelectorMaxLength - longest.size(), 'x'));
  ASSERT_EQ(longest.size(), kSelectorMaxLength);
  EXPECT_EQ(EstimateOf(longest), 2u + 7u);
}

TEST(DraCostTest, SizesOfWhatDeviceHolds) {
  DeviceSizeEstimator sizes;
  auto max = [&](std::vector<std::string> path) -> std::optional<uint64_t> {
    AstNode node;
    node.path = std::move(path);
    auto size = sizes.EstimateSize(node);
    if (!size) return std::nullopt;
    EXPECT_EQ(size->min, 0u);
    return size->max;
  };
  EXPECT_EQ(max({"device"}), 0u);
  EXPECT_EQ(max({"device", "driver"}), 63u);
  EXPECT_EQ(max({"device", "allowMultipleAllocations"}), 1u);
  EXPECT_EQ(max({"device", "attributes"}), 32u);
  EXPECT_EQ(max({"device", "attributes", "@keys"}), 63u);
  EXPECT_EQ(max({"device", "attributes", "@values"}), 32u);
  EXPECT_EQ(max({"device", "attributes", "@values", "@keys"}), 32u);
  EXPECT_EQ(max({"device", "attributes", "@values", "@values"}), 64u);
  EXPECT_EQ(max({"device", "attributes", "@values", "model"}), 64u);
  EXPECT_EQ(max({"device", "capacity", "@values", "@values"}), 0u);
  // Names select fields, not map entries, except an attribute's id.
  EXPECT_EQ(max({"device", "attributes", "gpu"}), std::nullopt);
  EXPECT_EQ(max({"device", "capacity", "@values", "memory"}), std::nullopt);
  EXPECT_EQ(max({"device", "attributes", "@values", "model", "@items"}),
            std::nullopt);
  EXPECT_EQ(max({"other"}), std::nullopt);
  EXPECT_EQ(max({}), std::nullopt);
}

}  // namespace
}  // namespace dra_cost_test
}  // namespace ksched::cel::dra
