#include "pkg/plugins/dynamicresources/dynamic_resources.h"

#include <gtest/gtest.h>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/dynamicresources/state.h"

namespace ksched::plugins {
namespace {

using framework::Code;

api::Pod WithClaim(api::Pod pod) {
  api::PodResourceClaim claim;
  claim.name = "gpu";
  claim.resource_claim_name = "gpu-claim";
  pod.spec.resource_claims.push_back(claim);
  return pod;
}

std::unique_ptr<framework::Plugin> Make(bool gate_on) {
  testing::FakeHandle handle;
  handle.features_.Set(config::Feature::kDynamicResourceAllocation, gate_on);
  auto plugin = NewDynamicResources(nullptr, handle);
  EXPECT_TRUE(plugin.ok());
  return std::move(*plugin);
}

// v1.35 with the gate on: a pod without claims is skipped at Filter, scores
// 0, and its failure reads "no new claims to deallocate" before preemption.
TEST(DynamicResourcesTest, APodWithoutClaimsPassesAndExplainsPostFilter) {
  auto plugin = Make(true);
  auto* dra = dynamic_cast<DynamicResources*>(plugin.get());
  ASSERT_NE(dra, nullptr);
  auto pod = testing::PodBuilder("p").Info();
  auto node = testing::MakeNodeInfo(testing::NodeBuilder("n").Obj());

  EXPECT_TRUE(dra->PreEnqueue(pod->pod()).IsSuccess());
  framework::CycleState state;
  framework::PreFilterResult result;
  EXPECT_EQ(dra->PreFilter(state, *pod, {node}, &result).code(), Code::kSkip);
  EXPECT_TRUE(result.AllNodes());
  EXPECT_TRUE(dra->Filter(state, *pod, *node).IsSuccess());
  int64_t score = -1;
  EXPECT_TRUE(dra->Score(state, *pod, *node, &score).IsSuccess());
  EXPECT_EQ(score, 0);
  framework::NodeScoreList scores = {{"n", 0}, {"m", 0}};
  EXPECT_TRUE(dra->NormalizeScore(state, *pod, scores).IsSuccess());
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_EQ(scores[1].score, 0);
  EXPECT_TRUE(dra->Reserve(state, *pod, "n").IsSuccess());
  EXPECT_TRUE(dra->PreBind(state, *pod, "n").IsSuccess());

  framework::NodeToStatus filtered;
  framework::PostFilterResult post;
  framework::Status s = dra->PostFilter(state, *pod, filtered, &post);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "no new claims to deallocate");
  EXPECT_TRUE(post.nominated_node_name.empty());

  api::Pod sign_into;
  EXPECT_TRUE(dra->SignPod(pod->pod(), sign_into));
}

// When another PreFilter rejected the pod first, there is no state: the
// later points report an error, as kube's getStateData does.
TEST(DynamicResourcesTest, WithoutPreFilterStateTheLaterPointsAreErrors) {
  auto plugin = Make(true);
  auto* dra = dynamic_cast<DynamicResources*>(plugin.get());
  auto pod = testing::PodBuilder("p").Info();
  auto node = testing::MakeNodeInfo(testing::NodeBuilder("n").Obj());
  framework::CycleState state;
  EXPECT_EQ(dra->Filter(state, *pod, *node).code(), Code::kError);
  framework::NodeToStatus filtered;
  framework::PostFilterResult post;
  EXPECT_EQ(dra->PostFilter(state, *pod, filtered, &post).code(), Code::kError);
}

// Without resource.k8s.io watched, a pod with claims is held before the
// queue: placing it while ignoring its claims would be wrong.
TEST(DynamicResourcesTest, APodWithClaimsIsHeldAtPreEnqueue) {
  auto plugin = Make(true);
  auto* dra = dynamic_cast<DynamicResources*>(plugin.get());
  api::Pod pod = WithClaim(testing::PodBuilder("p").Namespace("ml").Obj());
  framework::Status s = dra->PreEnqueue(pod);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(),
            "pod \"ml/p\": its ResourceClaims cannot be allocated: the API "
            "server does not serve resource.k8s.io/v1 to ksched");
  api::Pod sign_into;
  EXPECT_FALSE(dra->SignPod(pod, sign_into));
  // As an extender (no PreEnqueue), the claims are no reason to refuse.
  auto info = framework::PodInfo::Create(std::make_shared<api::Pod>(pod));
  framework::CycleState state;
  framework::PreFilterResult result;
  EXPECT_EQ(dra->PreFilter(state, *info, {}, &result).code(), Code::kSkip);
}

// Configured while DynamicResourceAllocation is off (emulating 1.32 or
// 1.33), the plugin does nothing, and says so at PostFilter.
TEST(DynamicResourcesTest, GateOffIsInert) {
  auto plugin = Make(false);
  auto* dra = dynamic_cast<DynamicResources*>(plugin.get());
  api::Pod pod = WithClaim(testing::PodBuilder("p").Obj());
  EXPECT_TRUE(dra->PreEnqueue(pod).IsSuccess());
  EXPECT_TRUE(dra->EventsToRegister().empty());
  auto info = framework::PodInfo::Create(std::make_shared<api::Pod>(pod));
  framework::CycleState state;
  framework::PreFilterResult result;
  EXPECT_EQ(dra->PreFilter(state, *info, {}, &result).code(), Code::kSkip);
  framework::NodeToStatus filtered;
  framework::PostFilterResult post;
  EXPECT_EQ(dra->PostFilter(state, *info, filtered, &post).Message(),
            "plugin disabled");
}

// Filter's per-node entries: empty ones (kept apart, as names) and ones
// with results answer lookups alike, and the latest Put for a node is what
// a lookup sees, whichever kind came first.
TEST(NodeAllocationsTest, TheLatestPutForANodeIsWhatLookupsSee) {
  using dynamic_resources::NodeAllocation;
  dynamic_resources::NodeAllocations allocations;
  auto with_results = [](size_t n) {
    NodeAllocation a;
    a.results.resize(n);
    return a;
  };
  allocations.Put("a", NodeAllocation{});
  ASSERT_NE(allocations.Find("a"), nullptr);
  EXPECT_TRUE(allocations.Find("a")->results.empty());
  EXPECT_EQ(allocations.Find("b"), nullptr);
  EXPECT_FALSE(allocations.Get("b").has_value());
  EXPECT_EQ(allocations.Find(""), nullptr);

  allocations.Put("a", with_results(1));
  EXPECT_EQ(allocations.Find("a")->results.size(), 1u);
  allocations.Put("a", NodeAllocation{});
  EXPECT_TRUE(allocations.Find("a")->results.empty());
  EXPECT_TRUE(allocations.Get("a")->results.empty());
  allocations.Put("a", with_results(3));
  EXPECT_EQ(allocations.Get("a")->results.size(), 3u);

  // Many names across the shards; a name that is a prefix of another, or
  // made of two others, is not mistaken for them.
  for (int i = 0; i < 300; ++i) {
    allocations.Put("node-" + std::to_string(i),
                    i % 7 == 0 ? with_results(2) : NodeAllocation{});
  }
  for (int i = 0; i < 300; ++i) {
    const std::string name = "node-" + std::to_string(i);
    const NodeAllocation* found = allocations.Find(name);
    ASSERT_NE(found, nullptr) << name;
    EXPECT_EQ(found->results.size(), i % 7 == 0 ? 2u : 0u) << name;
  }
  EXPECT_EQ(allocations.Find("node-"), nullptr);
  EXPECT_EQ(allocations.Find("node-300"), nullptr);
  EXPECT_EQ(allocations.Find("node-1node-2"), nullptr);
}

}  // namespace
}  // namespace ksched::plugins
