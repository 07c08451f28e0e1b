#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/plugins/noderesources/fit.h"
#include "pkg/plugins/noderesources/scorers.h"
#include "pkg/plugins/noderesources/test_util.h"

namespace ksched::plugins {
namespace {

using noderesources::BuildBrokenLinearFunction;
using noderesources::FunctionShapePoint;
using noderesources_test::CapacityNode;
using noderesources_test::MakeNode;
using noderesources_test::ReqPod;

std::unique_ptr<framework::Plugin> MakeRatioPlugin(
    std::vector<config::ResourceSpec> resources,
    std::vector<config::UtilizationShapePoint> shape) {
  config::NodeResourcesFitArgs args;
  args.scoring_strategy.type =
      config::ScoringStrategyType::kRequestedToCapacityRatio;
  args.scoring_strategy.resources = std::move(resources);
  args.scoring_strategy.shape = std::move(shape);
  testing::FakeHandle handle;
  auto p = NewNodeResourcesFit(&args, handle);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
  return p.ok() ? std::move(*p) : nullptr;
}

// TestRequestedToCapacityRatioScoringStrategy: a decreasing shape favors
// the least requested nodes.
TEST(RequestedToCapacityRatioTest, ScoringStrategy) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Node> nodes;
    std::vector<api::Pod> existing;
    std::vector<int64_t> want;
  };
  auto cap = [](const char* name, const char* cpu, const char* mem) {
    return CapacityNode(name, {{"cpu", cpu}, {"memory", mem}});
  };
  const Case cases[] = {
      {"nothing scheduled, nothing requested (default - least requested "
       "nodes have priority)",
       api::Pod{},
       {cap("node1", "4000", "10000"), cap("node2", "4000", "10000")},
       {ReqPod({}, "node1"), ReqPod({}, "node1")},
       {100, 100}},
      // node1: cpu 75% -> 25, memory 50% -> 50, round(75/2) = 38;
      // node2: 50, 50 -> 50.
      {"nothing scheduled, resources requested, differently sized nodes "
       "(default - least requested nodes have priority)",
       ReqPod({{{"cpu", "1000"}, {"memory", "2000"}},
               {{"cpu", "2000"}, {"memory", "3000"}}}),
       {cap("node1", "4000", "10000"), cap("node2", "6000", "10000")},
       {ReqPod({}, "node1"), ReqPod({}, "node1")},
       {38, 50}},
      {"no resources requested, pods scheduled with resources (default - "
       "least requested nodes have priority)",
       api::Pod{},
       {cap("node1", "4000", "10000"), cap("node2", "6000", "10000")},
       {ReqPod({{{"cpu", "3000"}, {"memory", "5000"}}}, "node1"),
        ReqPod({{{"cpu", "3000"}, {"memory", "5000"}}}, "node2")},
       {38, 50}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto plugin = MakeRatioPlugin(noderesources_test::DefaultResources(),
                                  {{0, 10}, {100, 0}});
    ASSERT_NE(plugin, nullptr);
    EXPECT_EQ(noderesources_test::ScoreAll(
                  *plugin, c.pod,
                  noderesources_test::BuildNodeInfos(c.nodes, c.existing),
                  /*run_pre_score=*/true),
              c.want);
  }
}

// TestBrokenLinearFunction.
TEST(RequestedToCapacityRatioTest, BrokenLinearFunction) {
  struct Case {
    std::vector<FunctionShapePoint> points;
    std::vector<std::pair<int64_t, int64_t>> assertions;  // p -> expected
  };
  const Case cases[] = {
      {{{10, 1}, {90, 9}},
       {{-10, 1},
        {0, 1},
        {9, 1},
        {10, 1},
        {15, 1},
        {19, 1},
        {20, 2},
        {89, 8},
        {90, 9},
        {99, 9},
        {100, 9},
        {110, 9}}},
      {{{0, 2}, {40, 10}, {100, 0}},
       {{-10, 2},
        {0, 2},
        {20, 6},
        {30, 8},
        {40, 10},
        {70, 5},
        {100, 0},
        {110, 0}}},
      {{{0, 2}, {40, 2}, {100, 2}},
       {{-10, 2},
        {0, 2},
        {20, 2},
        {30, 2},
        {40, 2},
        {70, 2},
        {100, 2},
        {110, 2}}},
  };
  for (size_t i = 0; i < std::size(cases); ++i) {
    SCOPED_TRACE("case_" + std::to_string(i));
    auto f = BuildBrokenLinearFunction(cases[i].points);
    for (const auto& [p, expected] : cases[i].assertions) {
      EXPECT_EQ(f(p), expected) << "p=" << p;
    }
  }
}

// Decreasing segments truncate toward zero like Go's division (-4/3 == -1).
TEST(RequestedToCapacityRatioTest, BrokenLinearFunctionTruncatesTowardZero) {
  auto f = BuildBrokenLinearFunction({{0, 100}, {3, 0}});
  EXPECT_EQ(f(1), 67);  // 100 + (-100 * 1) / 3 = 100 - 33
  EXPECT_EQ(f(2), 34);  // 100 + (-200) / 3 = 100 - 66
}

// TestResourceBinPackingSingleExtended.
TEST(RequestedToCapacityRatioTest, ResourceBinPackingSingleExtended) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Pod> existing;
    std::vector<int64_t> want;
  };
  const std::map<std::string, int64_t> foo4 = {{"intel.com/foo", 4}};
  const std::map<std::string, int64_t> foo8 = {{"intel.com/foo", 8}};
  const testing::ResourcePairs req2 = {{"intel.com/foo", "2"}};
  const testing::ResourcePairs req4 = {{"intel.com/foo", "4"}};
  const Case cases[] = {
      // The pod does not request the extended resource: nothing is scored.
      {"nothing scheduled, nothing requested", api::Pod{}, {}, {0, 0}},
      // node1: 2/8 -> 25% -> shape 0..10 gives 2; node2: 2/4 -> 5.
      {"resources requested, pods scheduled with less resources",
       ReqPod({req2}),
       {api::Pod{}},
       {2, 5}},
      // node2 already runs 2 of 4: (2+2)/4 -> 10.
      {"resources requested, pods scheduled with resources, on node with "
       "existing pod running ",
       ReqPod({req2}),
       {ReqPod({req2}, "node2")},
       {2, 10}},
      {"resources requested, pods scheduled with more resources",
       ReqPod({req4}),
       {api::Pod{}},
       {5, 10}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto plugin = MakeRatioPlugin({{"intel.com/foo", 1}}, {{0, 0}, {100, 1}});
    ASSERT_NE(plugin, nullptr);
    std::vector<api::Node> nodes = {
        MakeNode("node1", 4000, 10000LL * 1024 * 1024, foo8),
        MakeNode("node2", 4000, 10000LL * 1024 * 1024, foo4)};
    EXPECT_EQ(noderesources_test::ScoreAll(
                  *plugin, c.pod,
                  noderesources_test::BuildNodeInfos(nodes, c.existing),
                  /*run_pre_score=*/true),
              c.want);
  }
}

// TestResourceBinPackingMultipleExtended: foo weighs 3, bar 5.
TEST(RequestedToCapacityRatioTest, ResourceBinPackingMultipleExtended) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Pod> existing;
    std::vector<int64_t> want;
  };
  const std::map<std::string, int64_t> res1 = {{"intel.com/foo", 4},
                                               {"intel.com/bar", 8}};
  const std::map<std::string, int64_t> res2 = {{"intel.com/foo", 8},
                                               {"intel.com/bar", 4}};
  const testing::ResourcePairs pod1 = {{"intel.com/foo", "2"},
                                       {"intel.com/bar", "2"}};
  const testing::ResourcePairs pod2 = {{"intel.com/foo", "4"},
                                       {"intel.com/bar", "2"}};
  const Case cases[] = {
      {"nothing scheduled, nothing requested", api::Pod{}, {}, {0, 0}},
      // The 0..1 shape scales to 0..10: node1: foo 2/8 -> 2, bar 2/4 -> 5,
      // round((2*3 + 5*5) / 8) = 4; node2: round((5*3 + 2*5) / 8) = 3.
      {"resources requested, pods scheduled with less resources",
       ReqPod({pod1}),
       {api::Pod{}},
       {4, 3}},
      {"resources requested, pods scheduled with resources, on node with "
       "existing pod running ",
       ReqPod({pod1}),
       {ReqPod({pod2}, "node2")},
       {4, 7}},
      {"resources requested, pods scheduled with more resources",
       ReqPod({pod2}),
       {api::Pod{}},
       {5, 5}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto plugin = MakeRatioPlugin({{"intel.com/foo", 3}, {"intel.com/bar", 5}},
                                  {{0, 0}, {100, 1}});
    ASSERT_NE(plugin, nullptr);
    std::vector<api::Node> nodes = {
        MakeNode("node1", 4000, 10000LL * 1024 * 1024, res2),
        MakeNode("node2", 4000, 10000LL * 1024 * 1024, res1)};
    EXPECT_EQ(noderesources_test::ScoreAll(
                  *plugin, c.pod,
                  noderesources_test::BuildNodeInfos(nodes, c.existing),
                  /*run_pre_score=*/true),
              c.want);
  }
}

}  // namespace
}  // namespace ksched::plugins
