#include "pkg/cel/dra.h"

#include <gtest/gtest.h>

#include <limits>
#include <thread>

namespace ksched::cel::dra {
namespace {

Device Gpu() {
  Device d;
  d.driver = "gpu.example.com";
  DeviceAttribute model;
  model.string_value = "h100";
  d.attributes.push_back({"model", model});
  DeviceAttribute numa;
  numa.kind = DeviceAttribute::Kind::kInt;
  numa.int_value = 1;
  d.attributes.push_back({"numa.example.com/node", numa});
  d.capacity.push_back({"memory", *api::Quantity::Parse("80Gi")});
  return d;
}

util::Result<bool> Match(std::string_view expr, const Device& device) {
  auto selector = Selector::Compile(expr);
  if (!selector) return selector.error();
  auto act = DeviceActivation::Make(device);
  if (!act) return act.error();
  return (*selector)->Matches(**act);
}

TEST(DraSelectorTest, AttributesWithoutDomainBelongToTheDriver) {
  Device d = Gpu();
  EXPECT_TRUE(
      *Match(R"(device.attributes["gpu.example.com"].model == "h100")", d));
  EXPECT_TRUE(*Match(R"(device.attributes["numa.example.com"].node == 1)", d));
  EXPECT_TRUE(*Match(
      R"(device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("64Gi")))",
      d));
}

TEST(DraSelectorTest, MissingDomainIsEmptyMapAndMissingIdAnError) {
  Device d = Gpu();
  EXPECT_FALSE(*Match(R"("other.example.com" in device.attributes)", d));
  EXPECT_EQ(*Match(R"(size(device.attributes["other.example.com"]) == 0)", d),
            true);
  auto missing = Match(R"(device.attributes["gpu.example.com"].cores > 1)", d);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), "no such key: cores");
}

TEST(DraSelectorTest, CompileErrorsUseKubernetesWording) {
  auto syntax = Selector::Compile("?!");
  ASSERT_FALSE(syntax.ok());
  EXPECT_TRUE(syntax.error().message().starts_with(
      "compilation failed: ERROR: <input>:1:1: Syntax error"))
      << syntax.error().message();
  auto type = Selector::Compile("device.driver");
  ASSERT_FALSE(type.ok());
  EXPECT_EQ(type.error().message(),
            "must evaluate to bool or the unknown type, not string");
  auto field = Selector::Compile("device.allowMultipleAllocations");
  ASSERT_FALSE(field.ok());
  EXPECT_NE(field.error().message().find("undefined field "
                                         "'allowMultipleAllocations'"),
            std::string::npos);
  EXPECT_TRUE(Selector::Compile("device.allowMultipleAllocations",
                                Features{.consumable_capacity = true})
                  .ok());
}

TEST(DraSelectorTest, DynamicNonBoolResultIsAnError) {
  Device d = Gpu();
  auto r = Match(R"(device.attributes["gpu.example.com"].model)", d);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "CEL result of type string could not be converted to bool: "
            "unsupported native conversion from string to 'bool'");
  auto i = Match(R"(device.attributes["numa.example.com"].node)", d);
  ASSERT_FALSE(i.ok());
  EXPECT_EQ(i.error().message(),
            "CEL result of type int could not be converted to bool: "
            "unsupported type conversion from 'int' to bool");
  // An optional holding a bool converts to it, as in cel-go.
  EXPECT_TRUE(*Match("dyn(optional.of(true))", d));
}

TEST(DraSelectorTest, CostLimitStopsEvaluation) {
  auto selector = Selector::Compile(
      "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, "
      "10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, x + y + z > 0)))",
      {}, 1000);
  ASSERT_TRUE(selector.ok());
  Device d = Gpu();
  auto act = DeviceActivation::Make(d);
  uint64_t cost = 0;
  auto r = (*selector)->Matches(**act, &cost);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "operation cancelled: actual cost limit exceeded");
  EXPECT_GT(cost, 1000u);
}

TEST(DraSelectorTest, InterruptEndsALongEvaluation) {
  auto selector = Selector::Compile(
      "lists.range(1000).all(x, lists.range(1000).all(y, x + y >= 0))", {},
      std::numeric_limits<uint64_t>::max());
  ASSERT_TRUE(selector.ok()) << selector.error().message();
  Device d = Gpu();
  auto act = DeviceActivation::Make(d);
  std::atomic<bool> interrupt{true};
  auto r = (*selector)->Matches(**act, nullptr, &interrupt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "operation interrupted");
  interrupt = false;
  EXPECT_TRUE(*(*selector)->Matches(**act, nullptr, &interrupt));
}

TEST(DraSelectorTest, HugeValuesFailInsteadOfExhaustingMemory) {
  Device d = Gpu();
  auto act = DeviceActivation::Make(d);
  // The cost limit does not see format()'s output size; the evaluation's
  // own bound does.
  auto format = Selector::Compile(
      R"(lists.range(1000).map(x, "%.999999f".format([1.0])).size() > 0)");
  ASSERT_TRUE(format.ok()) << format.error().message();
  auto r = (*format)->Matches(**act);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "operation cancelled: the evaluation made more than 256 MiB of "
            "values");
  // A range past the cost limit is refused before it is built.
  auto range = Selector::Compile("lists.range(9223372036854775807).size() > 0");
  ASSERT_TRUE(range.ok());
  auto rr = (*range)->Matches(**act);
  ASSERT_FALSE(rr.ok());
  EXPECT_EQ(rr.error().message(),
            "operation cancelled: actual cost limit exceeded");
}

TEST(DraSelectorTest, ExpressionLengthLimit) {
  std::string expr = "true";
  while (expr.size() <= kSelectorMaxLength) expr += " && true";
  auto r = Selector::Compile(expr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "Too long: may not be more than 10240 bytes");
}

TEST(DraSelectorTest, BadVersionAttributeIsAnError) {
  Device d = Gpu();
  DeviceAttribute v;
  v.kind = DeviceAttribute::Kind::kVersion;
  v.string_value = "1.x";
  d.attributes.push_back({"driverVersion", v});
  auto act = DeviceActivation::Make(d);
  ASSERT_FALSE(act.ok());
  EXPECT_TRUE(act.error().message().starts_with(
      "attribute driverVersion: parse semantic version: "))
      << act.error().message();
}

TEST(DraSelectorTest, CacheCompilesOnceAndDropsLeastRecentlyUsed) {
  SelectorCache cache(2);
  auto a = cache.Get("device.driver == 'a'");
  auto a2 = cache.Get("device.driver == 'a'");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->get(), a2->get());
  auto b = cache.Get("device.driver == 'b'");
  auto c = cache.Get("device.driver == 'c'");  // drops 'a'
  auto a3 = cache.Get("device.driver == 'a'");
  EXPECT_NE(a->get(), a3->get());
  // Errors are cached too.
  auto bad = cache.Get("device.");
  EXPECT_FALSE(bad.ok());
}

TEST(DraSelectorTest, OneSelectorEvaluatesOnManyThreads) {
  auto selector = Selector::Compile(
      R"(device.attributes["gpu.example.com"].exists(k, k == "model"))");
  ASSERT_TRUE(selector.ok());
  Device d = Gpu();
  auto act = DeviceActivation::Make(d);
  std::vector<std::thread> threads;
  std::atomic<int> matched{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i)
        if (*(*selector)->Matches(**act)) matched.fetch_add(1);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(matched.load(), 4000);
}

}  // namespace
}  // namespace ksched::cel::dra
