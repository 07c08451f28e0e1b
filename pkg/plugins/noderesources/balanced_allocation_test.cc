#include "pkg/plugins/noderesources/balanced_allocation.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/plugins/noderesources/test_util.h"

namespace ksched::plugins {
namespace {

using noderesources_test::MakeNode;
using noderesources_test::ReqPod;

std::unique_ptr<framework::Plugin> MakeBalanced(
    std::vector<config::ResourceSpec> resources,
    const config::FeatureGates& gates = {}) {
  config::NodeResourcesBalancedAllocationArgs args;
  args.resources = std::move(resources);
  testing::FakeHandle handle;
  handle.features_ = gates;
  auto p = NewNodeResourcesBalancedAllocation(&args, handle);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
  return p.ok() ? std::move(*p) : nullptr;
}

// TestNodeResourcesBalancedAllocation (balanced_allocation_test.go, v1.36):
// a node scores 50 + (50 + s(with pod) - s(without pod)) / 2, where s is
// (1 - std) * 100 of its fractions. A pod requesting none of the scored
// resources is skipped in PreScore, and scores 0 everywhere when Score runs
// without PreScore. kube's two DRA-backed extended resource cases are left
// to the DRAExtendedResource work.
TEST(BalancedAllocationTest, Score) {
  // The pod specs of the Go test, by their names there.
  const testing::ResourcePairs c1 = {{"cpu", "1000m"}, {"memory", "2000"}};
  const testing::ResourcePairs c2 = {{"cpu", "2000m"}, {"memory", "3000"}};
  const testing::ResourcePairs c2_gpu = {
      {"cpu", "2000m"}, {"memory", "3000"}, {"nvidia.com/gpu", "3"}};
  const testing::ResourcePairs cpu1 = {{"cpu", "1000m"}, {"memory", "0"}};
  const testing::ResourcePairs cpu2 = {{"cpu", "2000m"}, {"memory", "0"}};
  auto cpu_only = [&](const std::string& node) {
    return ReqPod({cpu1, cpu2}, node);
  };
  auto cpu_and_memory = [&](const std::string& node) {
    return ReqPod({c1, c2}, node);
  };
  const api::Pod cpu_and_memory_and_gpu = ReqPod({c1, c2_gpu}, "node1");
  const std::map<std::string, int64_t> gpu8 = {{"nvidia.com/gpu", 8}};
  const auto& defaults = noderesources_test::DefaultResources();
  const std::vector<config::ResourceSpec> with_gpu = {
      {"cpu", 1}, {"memory", 1}, {"nvidia.com/gpu", 1}};
  // The cpu_and_memory pod's requests, said once for the whole pod.
  const api::Pod pod_level =
      testing::PodBuilder("pod")
          .Req({})
          .PodLevelReq({{"cpu", "3000m"}, {"memory", "5000"}})
          .Obj();
  const config::FeatureGates v132(config::KubeVersion{1, 32});

  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Node> nodes;
    std::vector<api::Pod> existing;
    std::vector<config::ResourceSpec> resources;
    // Empty: PreScore skips the pod.
    std::vector<int64_t> want;
    bool run_pre_score = true;
    config::FeatureGates gates;
  };
  const Case cases[] = {
      {"nothing scheduled, nothing requested, skip in PreScore",
       api::Pod{},
       {MakeNode("node1", 4000, 10000), MakeNode("node2", 4000, 10000)},
       {},
       defaults,
       {}},
      // node1: cpu 0 -> 3000/4000, memory 0 -> 5000/10000: s 100 -> 87,
      // 50 + (50 + 87 - 100) / 2 = 68; node2: 0.5 and 0.5: 100 -> 100, 75.
      {"nothing scheduled, resources requested, differently sized nodes",
       cpu_and_memory(""),
       {MakeNode("node1", 4000, 10000), MakeNode("node2", 6000, 10000)},
       {},
       defaults,
       {68, 75}},
      {"no resources requested, pods with container scheduled, skip in "
       "PreScore",
       api::Pod{},
       {MakeNode("node1", 250, 1000LL * 1024 * 1024),
        MakeNode("node2", 250, 1000LL * 1024 * 1024)},
       {ReqPod({}, "node1"), ReqPod({}, "node1")},
       defaults,
       {}},
      {"no resources requested, pods scheduled with resources, skip in "
       "PreScore",
       api::Pod{},
       {MakeNode("node1", 10000, 20000), MakeNode("node2", 10000, 20000)},
       {cpu_only("node1"), cpu_only("node1"), cpu_only("node2"),
        cpu_and_memory("node2")},
       defaults,
       {}},
      // Requests of zero are no requests.
      {"explicit zero requests, skip in PreScore",
       ReqPod({{{"cpu", "0"}, {"memory", "0"}}}),
       {MakeNode("node1", 10000, 20000), MakeNode("node2", 10000, 20000)},
       {cpu_only("node1")},
       defaults,
       {}},
      // node1: cpu 30% -> 60%, memory 0% -> 25%: s 85 -> 82, 73;
      // node2: cpu 30% -> 60%, memory 25% -> 50%: s 97 -> 95, 74.
      {"resources requested, pods scheduled with resources",
       cpu_and_memory(""),
       {MakeNode("node1", 10000, 20000), MakeNode("node2", 10000, 20000)},
       {cpu_only("node1"), cpu_and_memory("node2")},
       defaults,
       {73, 74}},
      // node2: memory 10% -> 20%: s 90 -> 80, 70.
      {"resources requested, pods scheduled with resources, differently "
       "sized nodes",
       cpu_and_memory(""),
       {MakeNode("node1", 10000, 20000), MakeNode("node2", 10000, 50000)},
       {cpu_only("node1"), cpu_and_memory("node2")},
       defaults,
       {73, 70}},
      // node1: cpu 100%, memory 0% -> 100%: s 50 -> 100, the maximum 100;
      // node2: cpu 0%, memory 0% -> 100%: s 100 -> 50, the minimum 50.
      {"resources requested, pods scheduled with resources, nodes to reach "
       "min/max score",
       ReqPod({{{"memory", "2000"}}, {{"memory", "3000"}}}),
       {MakeNode("node1", 3000, 5000), MakeNode("node2", 3000, 5000)},
       {cpu_only("node1")},
       defaults,
       {100, 50}},
      // node1: cpu 50% -> 100%, memory 0%: s 75 -> 50, 62;
      // node2: cpu 50% -> 100%, memory 50%: s 100 -> 75, 62.
      {"requested resources at node capacity",
       cpu_only(""),
       {MakeNode("node1", 6000, 10000), MakeNode("node2", 6000, 10000)},
       {cpu_only("node1"), cpu_and_memory("node2")},
       defaults,
       {62, 62}},
      // Three fractions: node1 cpu 3000/3500, memory 5000/40000, gpu 3/8 ->
      // 4/8: s 69 -> 70, 75; node2 gpu 0 -> 1/8: s 62 -> 65, 76. The pod
      // requests a GPU only, which is enough not to be best-effort.
      {"scalar resource is included in the score computation if pod "
       "requests the scalar resource",
       ReqPod({{{"cpu", "0"}, {"memory", "0"}, {"nvidia.com/gpu", "1"}}}),
       {MakeNode("node1", 3500, 40000, gpu8),
        MakeNode("node2", 3500, 40000, gpu8)},
       {cpu_and_memory("node2"), cpu_and_memory_and_gpu},
       with_gpu,
       {75, 76}},
      // The pod does not request the GPU: cpu 0 -> 3000/3500 and memory
      // 0 -> 5000/40000 on both: s 100 -> 63, 56.
      {"scalar resource is not included in the score computation if pod "
       "doesn't request the scalar resource",
       cpu_and_memory(""),
       {MakeNode("node1", 3500, 40000, gpu8), MakeNode("node2", 3500, 40000)},
       {},
       with_gpu,
       {56, 56}},
      {"resources requested, pods scheduled with resources if PreScore not "
       "called",
       cpu_and_memory(""),
       {MakeNode("node1", 10000, 20000), MakeNode("node2", 10000, 20000)},
       {cpu_only("node1"), cpu_and_memory("node2")},
       defaults,
       {73, 74},
       /*run_pre_score=*/false},
      // Pod-level requests stand for the containers' (v1.34+): the same
      // scores as the containers' cases above.
      {"pod-level requests, nothing scheduled, differently sized nodes",
       pod_level,
       {MakeNode("node1", 4000, 10000), MakeNode("node2", 6000, 10000)},
       {},
       defaults,
       {68, 75}},
      {"pod-level requests, pods scheduled with resources",
       pod_level,
       {MakeNode("node1", 10000, 20000), MakeNode("node2", 10000, 20000)},
       {cpu_only("node1"), cpu_and_memory("node2")},
       defaults,
       {73, 74}},
      {"pod-level requests if PreScore not called",
       pod_level,
       {MakeNode("node1", 10000, 20000), MakeNode("node2", 10000, 20000)},
       {cpu_only("node1"), cpu_and_memory("node2")},
       defaults,
       {73, 74},
       /*run_pre_score=*/false},
      // The formula is not gated: an emulated v1.32 scores as v1.36 does.
      {"the v1.36 formula at v1.32",
       cpu_and_memory(""),
       {MakeNode("node1", 4000, 10000), MakeNode("node2", 6000, 10000)},
       {},
       defaults,
       {68, 75},
       true,
       v132},
      // Without PodLevelResources (v1.32) the pod asks for nothing.
      {"pod-level requests ignored at v1.32, skip in PreScore",
       pod_level,
       {MakeNode("node1", 4000, 10000), MakeNode("node2", 6000, 10000)},
       {},
       defaults,
       {},
       true,
       v132},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto plugin = MakeBalanced(c.resources, c.gates);
    ASSERT_NE(plugin, nullptr);
    const std::vector<framework::NodeInfoPtr> nodes =
        noderesources_test::BuildNodeInfos(c.nodes, c.existing);
    if (!c.want.empty()) {
      EXPECT_EQ(
          noderesources_test::ScoreAll(*plugin, c.pod, nodes, c.run_pre_score),
          c.want);
      continue;
    }
    auto* pre_score = dynamic_cast<framework::PreScorePlugin*>(plugin.get());
    ASSERT_NE(pre_score, nullptr);
    auto info =
        framework::PodInfo::Create(std::make_shared<const api::Pod>(c.pod));
    framework::CycleState state;
    EXPECT_TRUE(pre_score->PreScore(state, *info, nodes).IsSkip());
    // Score without PreScore's state: 0 on every node.
    EXPECT_EQ(noderesources_test::ScoreAll(*plugin, c.pod, nodes, false),
              std::vector<int64_t>(c.nodes.size(), 0));
  }
}

// The scorer alone, on the edges of its formula.
TEST(BalancedAllocationTest, BalancedResourceScore) {
  using noderesources::BalancedResourceScore;
  struct Case {
    std::string name;
    std::vector<int64_t> requested;
    std::vector<int64_t> allocatable;
    int64_t want;
  };
  const Case cases[] = {
      {"one resource has no deviation", {3}, {4}, 100},
      {"overcommit counts as full", {8, 2}, {4, 4}, 75},
      {"resources the node lacks are left out", {8, 2, 1}, {4, 4, 0}, 75},
      // (1 - 0.125) * 100 = 87.5 truncates to 87.
      {"truncates toward zero", {3000, 5000}, {4000, 10000}, 87},
      {"nothing at all", {}, {}, 100},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(BalancedResourceScore(c.requested, c.allocatable), c.want);
  }
}

// The v1.36 scorer: the change in balance, folded back into [50, 100] with
// Go's truncating integer division.
TEST(BalancedAllocationTest, BalancedResourceScorer) {
  using noderesources::BalancedResourceScorer;
  struct Case {
    std::string name;
    std::vector<int64_t> requested;
    std::vector<int64_t> allocated;
    std::vector<int64_t> allocatable;
    int64_t want;
  };
  const Case cases[] = {
      {"balance unchanged", {4, 4}, {2, 2}, {8, 8}, 75},
      {"from the worst balance to the best", {8, 8}, {8, 0}, {8, 8}, 100},
      {"from the best balance to the worst", {8, 0}, {0, 0}, {8, 8}, 50},
      // s 69 -> 70: 50 + 51 / 2 = 75.
      {"odd difference truncates",
       {3000, 5000, 4},
       {3000, 5000, 3},
       {3500, 40000, 8},
       75},
      // s 100 -> 87: 50 + 37 / 2 = 68.
      {"odd negative difference truncates",
       {3000, 5000},
       {0, 0},
       {4000, 10000},
       68},
      {"resources the node lacks are left out",
       {8, 2, 1},
       {0, 0, 0},
       {4, 4, 0},
       62},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(BalancedResourceScorer(c.requested, c.allocated, c.allocatable),
              c.want);
  }
}

TEST(BalancedAllocationTest, NameAndNoArgs) {
  testing::FakeHandle handle;
  auto p = NewNodeResourcesBalancedAllocation(nullptr, handle);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), "NodeResourcesBalancedAllocation");
  // Without args cpu and memory are balanced, as with kube's defaults.
  EXPECT_EQ(
      noderesources_test::ScoreAll(
          **p,
          ReqPod({{{"cpu", "1000m"}, {"memory", "2000"}},
                  {{"cpu", "2000m"}, {"memory", "3000"}}}),
          noderesources_test::BuildNodeInfos(
              {MakeNode("node1", 4000, 10000), MakeNode("node2", 6000, 10000)},
              {}),
          true),
      (std::vector<int64_t>{68, 75}));
}

// ValidateNodeResourcesBalancedAllocationArgs, surfaced by the factory.
TEST(BalancedAllocationTest, InvalidArgs) {
  struct Case {
    std::string name;
    std::vector<config::ResourceSpec> resources;
    std::string want;
  };
  const Case cases[] = {
      {"weight must be 1",
       {{"cpu", 2}},
       "resources[0].weight: Invalid value: 2: must be 1"},
      {"duplicate resources",
       {{"cpu", 1}, {"cpu", 1}},
       "resources[1].name: Duplicate value: \"cpu\""},
      {"both",
       {{"memory", 1}, {"memory", 0}},
       "[resources[1].name: Duplicate value: \"memory\", resources[1].weight: "
       "Invalid value: 0: must be 1]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    config::NodeResourcesBalancedAllocationArgs args;
    args.resources = c.resources;
    testing::FakeHandle handle;
    auto p = NewNodeResourcesBalancedAllocation(&args, handle);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().message(), c.want);
  }
}

}  // namespace
}  // namespace ksched::plugins
