#include "pkg/plugins/noderesources/resource_allocation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/api/pod_resources.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/noderesources/test_util.h"

namespace ksched::plugins::noderesources {
namespace {

constexpr int64_t kOneMi = 1048576;
constexpr int64_t kCpu = api::kDefaultMilliCpuRequest;
constexpr int64_t kMem = api::kDefaultMemoryRequest;

int64_t Scores(std::span<const int64_t>, std::span<const int64_t>,
               std::span<const int64_t>) {
  return 0;
}

// TestResourceAllocationScorerCalculateRequests (resource_allocation_test.go,
// v1.35), with the scorer's zero value there: the non-zero defaults of the
// Fit strategies and no pod-level resources; then the same pods with
// pod-level requests under the v1.35 gates.
TEST(ResourceAllocationScorerTest, CalculateRequests) {
  using testing::PodBuilder;
  struct Case {
    std::string name;
    api::Pod pod;
    int64_t cpu;
    int64_t memory;
    api::ResourceFeatures features = {.pod_level_resources = false};
  };
  const Case cases[] = {
      {"overhead only",
       PodBuilder().Overhead({{"cpu", "1"}, {"memory", "1Mi"}}).Obj(), 1000,
       kOneMi},
      {"1x requestless container", PodBuilder().Req({}).Obj(), kCpu, kMem},
      // Once per container without a request.
      {"2x requestless container", PodBuilder().Req({}).Req({}).Obj(), 2 * kCpu,
       2 * kMem},
      {"request container + requestless container",
       PodBuilder().Req({{"cpu", "1"}, {"memory", "1Mi"}}).Req({}).Obj(),
       1000 + kCpu, kOneMi + kMem},
      {"container + requestless container + overhead",
       PodBuilder()
           .Overhead({{"cpu", "1"}, {"memory", "1Mi"}})
           .Req({{"cpu", "1"}, {"memory", "1Mi"}})
           .Req({})
           .Obj(),
       2000 + kCpu, 2 * kOneMi + kMem},
      {"init container + container + requestless container + overhead",
       PodBuilder()
           .Overhead({{"cpu", "1"}, {"memory", "1Mi"}})
           .InitReq({{"cpu", "3"}})
           .Req({{"cpu", "1"}, {"memory", "1Mi"}})
           .Req({})
           .Obj(),
       4000, 2 * kOneMi + kMem},
      {"requestless init container + small init container + small container",
       PodBuilder()
           .InitReq({})
           .InitReq({{"cpu", "1m"}, {"memory", "1"}})
           .Req({{"cpu", "3m"}, {"memory", "3"}})
           .Obj(),
       kCpu, kMem},
      {"requestless init container + small init container + small container "
       "+ requestless container",
       PodBuilder()
           .InitReq({})
           .InitReq({{"cpu", "1m"}, {"memory", "1"}})
           .Req({{"cpu", "3m"}, {"memory", "3"}})
           .Req({})
           .Obj(),
       3 + kCpu, 3 + kMem},
      // Pod-level requests are ignored without PodLevelResources.
      {"pod-level requests with the gate off",
       PodBuilder().Req({}).PodLevelReq({{"cpu", "2"}}).Obj(), kCpu, kMem},
      // With it they replace the sum, defaults and all, for what they name.
      {"pod-level cpu, requestless containers",
       PodBuilder().Req({}).Req({}).PodLevelReq({{"cpu", "2"}}).Obj(), 2000,
       2 * kMem, api::ResourceFeatures{}},
      {"pod-level cpu and memory plus overhead",
       PodBuilder()
           .Req({{"cpu", "1"}})
           .PodLevelReq({{"cpu", "2"}, {"memory", "1Mi"}})
           .Overhead({{"cpu", "1"}, {"memory", "1Mi"}})
           .Obj(),
       3000, 2 * kOneMi, api::ResourceFeatures{}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ResourceAllocationScorer scorer(noderesources_test::DefaultResources(),
                                    /*use_requested=*/false, Scores,
                                    c.features);
    EXPECT_EQ(scorer.PodRequests(c.pod),
              (std::vector<int64_t>{c.cpu, c.memory}));
  }
}

// BalancedAllocation's view (use_requested): no defaults, so a pod that
// names nothing is best-effort, unless its pod-level requests say more.
TEST(ResourceAllocationScorerTest, BestEffort) {
  using testing::PodBuilder;
  ResourceAllocationScorer scorer(noderesources_test::DefaultResources(),
                                  /*use_requested=*/true, Scores);
  EXPECT_TRUE(ResourceAllocationScorer::IsBestEffort(
      scorer.PodRequests(PodBuilder().Req({}).Obj())));
  EXPECT_TRUE(ResourceAllocationScorer::IsBestEffort(
      scorer.PodRequests(PodBuilder().Req({{"nvidia.com/gpu", "1"}}).Obj())));
  EXPECT_FALSE(ResourceAllocationScorer::IsBestEffort(
      scorer.PodRequests(PodBuilder().Req({{"memory", "1"}}).Obj())));
  EXPECT_FALSE(ResourceAllocationScorer::IsBestEffort(scorer.PodRequests(
      PodBuilder().Req({}).PodLevelReq({{"cpu", "1"}}).Obj())));
  ResourceAllocationScorer v132(
      noderesources_test::DefaultResources(),
      /*use_requested=*/true, Scores,
      {.in_place_pod_vertical_scaling = false, .pod_level_resources = false});
  EXPECT_TRUE(ResourceAllocationScorer::IsBestEffort(v132.PodRequests(
      PodBuilder().Req({}).PodLevelReq({{"cpu", "1"}}).Obj())));
}

}  // namespace
}  // namespace ksched::plugins::noderesources
