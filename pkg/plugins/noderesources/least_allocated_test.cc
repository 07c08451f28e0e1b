#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/plugins/noderesources/fit.h"
#include "pkg/plugins/noderesources/test_util.h"

namespace ksched::plugins {
namespace {

using framework::Code;
using noderesources_test::CapacityNode;
using noderesources_test::ReqPod;

// TestLeastAllocatedScoringStrategy (least_allocated_test.go).
TEST(LeastAllocatedTest, ScoringStrategy) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Node> nodes;
    std::vector<api::Pod> existing;
    std::vector<config::ResourceSpec> resources;
    std::vector<int64_t> want;
    Code want_code = Code::kSuccess;
  };
  const auto& defaults = noderesources_test::DefaultResources();
  const std::string ext = noderesources_test::kExtendedRes;
  const api::Pod two_containers =
      ReqPod({{{"cpu", "1000"}, {"memory", "2000"}},
              {{"cpu", "2000"}, {"memory", "3000"}}});
  auto cap = [](const char* name, const char* cpu, const char* mem) {
    return CapacityNode(name, {{"cpu", cpu}, {"memory", mem}});
  };
  const Case cases[] = {
      {"nothing scheduled, nothing requested",
       api::Pod{},
       {cap("node1", "4000", "10000"), cap("node2", "4000", "10000")},
       {},
       defaults,
       {100, 100}},
      // node1: cpu (4000-3000)*100/4000 = 25, memory 50 -> 37;
      // node2: cpu 50, memory 50 -> 50.
      {"nothing scheduled, resources requested, differently sized nodes",
       two_containers,
       {cap("node1", "4000", "10000"), cap("node2", "6000", "10000")},
       {},
       defaults,
       {37, 50}},
      {"Resources not set, pods scheduled with error",
       two_containers,
       {cap("node1", "4000", "10000"), cap("node2", "6000", "10000")},
       {},
       {},
       {0, 0},
       Code::kError},
      {"no resources requested, pods scheduled",
       api::Pod{},
       {cap("node1", "4000", "10000"), cap("node2", "4000", "10000")},
       {ReqPod({}, "node1"), ReqPod({}, "node1"), ReqPod({}, "node2"),
        ReqPod({}, "node2")},
       defaults,
       {100, 100}},
      // node1: cpu 40, memory 100 -> 70; node2: cpu 40, memory 75 -> 57.
      {"no resources requested, pods scheduled with resources",
       api::Pod{},
       {cap("node1", "10000", "20000"), cap("node2", "10000", "20000")},
       {ReqPod({{{"cpu", "3000"}, {"memory", "0"}}}, "node1"),
        ReqPod({{{"cpu", "3000"}, {"memory", "0"}}}, "node1"),
        ReqPod({{{"cpu", "3000"}, {"memory", "0"}}}, "node2"),
        ReqPod({{{"cpu", "3000"}, {"memory", "5000"}}}, "node2")},
       defaults,
       {70, 57}},
      {"resources requested, pods scheduled with resources",
       two_containers,
       {cap("node1", "10000", "20000"), cap("node2", "10000", "20000")},
       {ReqPod({{{"cpu", "3000"}, {"memory", "0"}}}, "node1"),
        ReqPod({{{"cpu", "3000"}, {"memory", "5000"}}}, "node2")},
       defaults,
       {57, 45}},
      {"resources requested, pods scheduled with resources, differently sized "
       "nodes",
       two_containers,
       {cap("node1", "10000", "20000"), cap("node2", "10000", "50000")},
       {ReqPod({{{"cpu", "3000"}, {"memory", "0"}}}, "node1"),
        ReqPod({{{"cpu", "3000"}, {"memory", "5000"}}}, "node2")},
       defaults,
       {57, 60}},
      // cpu over capacity scores 0 for that resource.
      {"requested resources exceed node capacity",
       ReqPod({{{"cpu", "3000"}, {"memory", "0"}}}),
       {cap("node1", "4000", "10000"), cap("node2", "4000", "10000")},
       {ReqPod({{{"cpu", "3000"}, {"memory", "0"}}}, "node1"),
        ReqPod({{{"cpu", "3000"}, {"memory", "5000"}}}, "node2")},
       defaults,
       {50, 25}},
      {"zero node resources, pods scheduled with resources",
       api::Pod{},
       {testing::NodeBuilder("node1").Obj(),
        testing::NodeBuilder("node2").Obj()},
       {ReqPod({{{"cpu", "3000"}, {"memory", "0"}}}, "node1"),
        ReqPod({{{"cpu", "3000"}, {"memory", "5000"}}}, "node2")},
       defaults,
       {0, 0}},
      // node1: (25*1 + 50*2) / 3 = 41; node2: 50.
      {"nothing scheduled, resources requested with different weight on CPU "
       "and memory, differently sized nodes",
       two_containers,
       {cap("node1", "4000", "10000"), cap("node2", "6000", "10000")},
       {},
       {{"memory", 2}, {"cpu", 1}},
       {41, 50}},
      // The extended resource the pod does not request is left out.
      {"bypass extended resource if the pod does not request",
       two_containers,
       {cap("node1", "6000", "10000"),
        CapacityNode("node2",
                     {{"cpu", "6000"}, {"memory", "10000"}, {ext, "4"}})},
       {},
       noderesources_test::ExtendedResourceSet(),
       {50, 50}},
      // node1: (50 + 50 + 50) / 3; node2: (50 + 50 + 80) / 3.
      {"honor extended resource if the pod requests",
       ReqPod({{{"cpu", "3000"}, {"memory", "5000"}, {ext, "2"}}}),
       {CapacityNode("node1",
                     {{"cpu", "6000"}, {"memory", "10000"}, {ext, "4"}}),
        CapacityNode("node2",
                     {{"cpu", "6000"}, {"memory", "10000"}, {ext, "10"}})},
       {},
       noderesources_test::ExtendedResourceSet(),
       {50, 60}},
      {"if the node doesn't have a resource",
       ReqPod({{{"cpu", "3000"}, {"memory", "4000"}}}),
       {cap("node1", "6000", "10000"),
        CapacityNode("node2",
                     {{"cpu", "6000"}, {"memory", "10000"}, {ext, "4"}})},
       {},
       {{ext, 2}, {"cpu", 1}, {"memory", 1}},
       {55, 55}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    config::NodeResourcesFitArgs args;
    args.scoring_strategy.type = config::ScoringStrategyType::kLeastAllocated;
    args.scoring_strategy.resources = c.resources;
    testing::FakeHandle handle;
    auto plugin = NewNodeResourcesFit(&args, handle);
    ASSERT_TRUE(plugin.ok()) << plugin.error().message();
    EXPECT_EQ(noderesources_test::ScoreAll(
                  **plugin, c.pod,
                  noderesources_test::BuildNodeInfos(c.nodes, c.existing),
                  /*run_pre_score=*/true, c.want_code),
              c.want);
  }
}

// The weight cases of the same table: refused by the factory.
TEST(LeastAllocatedTest, InvalidWeights) {
  struct Case {
    std::string name;
    std::vector<config::ResourceSpec> resources;
    std::string field;
  };
  const Case cases[] = {
      {"resource with negative weight",
       {{"memory", -1}, {"cpu", 1}},
       "scoringStrategy.resources[0].weight"},
      {"resource with zero weight",
       {{"memory", 1}, {"cpu", 0}},
       "scoringStrategy.resources[1].weight"},
      {"resource weight larger than MaxNodeScore",
       {{"memory", 1}, {"cpu", 101}},
       "scoringStrategy.resources[1].weight"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    config::NodeResourcesFitArgs args;
    args.scoring_strategy.resources = c.resources;
    testing::FakeHandle handle;
    auto plugin = NewNodeResourcesFit(&args, handle);
    ASSERT_FALSE(plugin.ok());
    EXPECT_EQ(plugin.error().message().rfind(c.field + ": Invalid value: ", 0),
              0u)
        << plugin.error().message();
  }
}

}  // namespace
}  // namespace ksched::plugins
