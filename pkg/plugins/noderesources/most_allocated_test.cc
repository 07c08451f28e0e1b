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

// st.MakePod().Container("container"): one container without requests, so
// scoring counts it with the non-zero defaults (100m, 200Mi).
api::Pod EmptyContainerPod(const std::string& node = "") {
  testing::PodBuilder b("pod");
  b.Image("container");
  if (!node.empty()) b.Node(node);
  return b.Obj();
}

// TestMostAllocatedScoringStrategy (most_allocated_test.go).
TEST(MostAllocatedTest, ScoringStrategy) {
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
       {0, 0}},
      // node1: cpu 3000*100/4000 = 75, memory 50 -> 62; node2: 50, 50 -> 50.
      {"nothing scheduled, resources requested, differently sized nodes",
       two_containers,
       {cap("node1", "4000", "10000"), cap("node2", "6000", "10000")},
       {},
       defaults,
       {62, 50}},
      {"Resources not set, pods scheduled with error",
       two_containers,
       {cap("node1", "4000", "10000"), cap("node2", "6000", "10000")},
       {},
       {},
       {0, 0},
       Code::kError},
      // node1: cpu 60, memory 0 -> 30; node2: cpu 60, memory 25 -> 42.
      {"no resources requested, pods scheduled with resources",
       api::Pod{},
       {cap("node1", "10000", "20000"), cap("node2", "10000", "20000")},
       {ReqPod({{{"cpu", "3000"}, {"memory", "0"}}}, "node1"),
        ReqPod({{{"cpu", "3000"}, {"memory", "0"}}}, "node1"),
        ReqPod({{{"cpu", "3000"}, {"memory", "0"}}}, "node2"),
        ReqPod({{{"cpu", "3000"}, {"memory", "5000"}}}, "node2")},
       defaults,
       {30, 42}},
      {"resources requested, pods scheduled with resources",
       two_containers,
       {cap("node1", "10000", "20000"), cap("node2", "10000", "20000")},
       {ReqPod({{{"cpu", "3000"}, {"memory", "0"}}}, "node1"),
        ReqPod({{{"cpu", "3000"}, {"memory", "5000"}}}, "node2")},
       defaults,
       {42, 55}},
      // node1: cpu 100, memory 90 -> 95; node2: cpu 50, memory 100 -> 75.
      {"resources requested equal node capacity",
       ReqPod({{{"cpu", "2000"}, {"memory", "4000"}},
               {{"cpu", "3000"}, {"memory", "5000"}}}),
       {cap("node1", "5000", "10000"), cap("node2", "10000", "9000")},
       {},
       defaults,
       {95, 75}},
      // node1: (75*1 + 50*2) / 3 = 58; node2: 50.
      {"nothing scheduled, resources requested, differently sized nodes "
       "(weighted)",
       two_containers,
       {cap("node1", "4000", "10000"), cap("node2", "6000", "10000")},
       {},
       {{"memory", 2}, {"cpu", 1}},
       {58, 50}},
      // node1: cpu 300m of 250m counts as full (100), memory 600Mi/1000Mi
      // -> 80; node2: 100m/250m = 40, 200Mi/1000Mi = 20 -> 30.
      {"no resources requested, pods scheduled, nonzero request for resource",
       EmptyContainerPod(),
       {cap("node1", "250m", "1000Mi"), cap("node2", "250m", "1000Mi")},
       {EmptyContainerPod("node1"), EmptyContainerPod("node1")},
       defaults,
       {80, 30}},
      {"bypass extended resource if the pod does not request",
       two_containers,
       {cap("node1", "6000", "10000"),
        CapacityNode("node2",
                     {{"cpu", "6000"}, {"memory", "10000"}, {ext, "4"}})},
       {},
       noderesources_test::ExtendedResourceSet(),
       {50, 50}},
      // node1: (50 + 50 + 50) / 3; node2: (50 + 50 + 20) / 3.
      {"honor extended resource if the pod request",
       ReqPod({{{"cpu", "3000"}, {"memory", "5000"}, {ext, "2"}}}, "node1"),
       {CapacityNode("node1",
                     {{"cpu", "6000"}, {"memory", "10000"}, {ext, "4"}}),
        CapacityNode("node2",
                     {{"cpu", "6000"}, {"memory", "10000"}, {ext, "10"}})},
       {},
       noderesources_test::ExtendedResourceSet(),
       {50, 40}},
      {"if the node doesn't have a resource",
       ReqPod({{{"cpu", "3000"}, {"memory", "4000"}}}, "node1"),
       {cap("node1", "6000", "10000"),
        CapacityNode("node2",
                     {{"cpu", "6000"}, {"memory", "10000"}, {ext, "4"}})},
       {},
       {{ext, 2}, {"cpu", 1}, {"memory", 1}},
       {45, 45}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    config::NodeResourcesFitArgs args;
    args.scoring_strategy.type = config::ScoringStrategyType::kMostAllocated;
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
TEST(MostAllocatedTest, InvalidWeights) {
  struct Case {
    std::string name;
    std::vector<config::ResourceSpec> resources;
    std::string want;
  };
  const Case cases[] = {
      {"resource with negative weight",
       {{"memory", -1}, {"cpu", 1}},
       "scoringStrategy.resources[0].weight: Invalid value: -1: resource "
       "weight of memory not in valid range (0, 100]"},
      {"resource with zero weight",
       {{"memory", 1}, {"cpu", 0}},
       "scoringStrategy.resources[1].weight: Invalid value: 0: resource "
       "weight of cpu not in valid range (0, 100]"},
      {"resource weight larger than MaxNodeScore",
       {{"memory", 101}},
       "scoringStrategy.resources[0].weight: Invalid value: 101: resource "
       "weight of memory not in valid range (0, 100]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    config::NodeResourcesFitArgs args;
    args.scoring_strategy.type = config::ScoringStrategyType::kMostAllocated;
    args.scoring_strategy.resources = c.resources;
    testing::FakeHandle handle;
    auto plugin = NewNodeResourcesFit(&args, handle);
    ASSERT_FALSE(plugin.ok());
    EXPECT_EQ(plugin.error().message(), c.want);
  }
}

}  // namespace
}  // namespace ksched::plugins
