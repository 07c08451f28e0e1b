// How PodInfo counts a pod's requests (kube v1.35's
// PodInfo.CalculateResource): the feature gates, status resources of pods
// resized in place, pod-level requests and the non-zero defaults.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/framework/node_info.h"
#include "pkg/framework/pod_info.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::framework {
namespace {

using testing::PodBuilder;

constexpr int64_t kCpu = api::kDefaultMilliCpuRequest;
constexpr int64_t kMem = api::kDefaultMemoryRequest;
// cpu500m, cpu700m, cpu1200m, mem500M, mem800M, mem1200M of kube's tests.
constexpr int64_t kMem500M = 500 * 1000 * 1000;
constexpr int64_t kMem800M = 800 * 1000 * 1000;
constexpr int64_t kMem1200M = 1200 * 1000 * 1000;

struct Want {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t non_zero_cpu = 0;
  int64_t non_zero_memory = 0;
};

void ExpectResource(const PodResource& got, const Want& want) {
  EXPECT_EQ(got.requests.milli_cpu, want.milli_cpu);
  EXPECT_EQ(got.requests.memory, want.memory);
  EXPECT_EQ(got.requests.ephemeral_storage, want.ephemeral_storage);
  EXPECT_EQ(got.non_zero_milli_cpu, want.non_zero_cpu);
  EXPECT_EQ(got.non_zero_memory, want.non_zero_memory);
}

// TestPodInfoCalculateResources (framework/types_test.go, v1.35).
TEST(PodResourceTest, CalculateResources) {
  const api::ResourceFeatures on;
  const api::ResourceFeatures off{.pod_level_resources = false};
  struct Case {
    std::string name;
    api::Pod pod;
    api::ResourceFeatures features;
    Want want;
  };
  const Case cases[] = {
      {"requestless container",
       PodBuilder().Req({}).Obj(),
       off,
       {0, 0, 0, kCpu, kMem}},
      {"1X container with requests",
       PodBuilder().Req({{"cpu", "500m"}, {"memory", "500M"}}).Obj(),
       off,
       {500, kMem500M, 0, 500, kMem500M}},
      {"2X container with requests",
       PodBuilder()
           .Req({{"cpu", "500m"}, {"memory", "500M"}})
           .Req({{"cpu", "700m"}, {"memory", "800M"}})
           .Obj(),
       off,
       {1200, kMem500M + kMem800M, 0, 1200, kMem500M + kMem800M}},
      {"1X container and 1X init container with pod-level requests",
       PodBuilder()
           .InitReq({{"cpu", "500m"}, {"memory", "500M"}})
           .Req({{"cpu", "500m"}, {"memory", "500M"}})
           .PodLevelReq({{"cpu", "1200m"}, {"memory", "1200M"}})
           .Obj(),
       on,
       {1200, kMem1200M, 0, 1200, kMem1200M}},
      {"1X container and 1X sidecar container with pod-level requests",
       PodBuilder()
           .SidecarReq({{"cpu", "500m"}, {"memory", "500M"}})
           .Req({{"cpu", "500m"}, {"memory", "500M"}})
           .PodLevelReq({{"cpu", "1200m"}, {"memory", "1200M"}})
           .Obj(),
       on,
       {1200, kMem1200M, 0, 1200, kMem1200M}},
      // Neither level names cpu: the default stands in for it.
      {"1X container with pod-level memory requests",
       PodBuilder()
           .InitReq({})
           .Req({})
           .PodLevelReq({{"memory", "1200M"}})
           .Obj(),
       on,
       {0, kMem1200M, 0, kCpu, kMem1200M}},
      {"1X container with pod-level cpu requests",
       PodBuilder().InitReq({}).Req({}).PodLevelReq({{"cpu", "500m"}}).Obj(),
       on,
       {500, 0, 0, 500, kMem}},
      {"1X container unsupported resources and pod-level supported resources",
       PodBuilder()
           .InitReq({{"ephemeral-storage", "500M"}})
           .Req({{"ephemeral-storage", "800M"}})
           .PodLevelReq({{"cpu", "500m"}})
           .Obj(),
       on,
       {500, 0, kMem800M, 500, kMem}},
      // Without PodLevelResources the pod-level requests are not read.
      {"pod-level requests with the gate off",
       PodBuilder()
           .Req({{"cpu", "500m"}})
           .PodLevelReq({{"cpu", "1200m"}, {"memory", "1200M"}})
           .Obj(),
       off,
       {500, 0, 0, 500, kMem}},
      // The overhead counts as a request of memory: no default for it.
      {"pod-level cpu and overhead memory",
       PodBuilder()
           .Req({})
           .PodLevelReq({{"cpu", "500m"}})
           .Overhead({{"memory", "100M"}})
           .Obj(),
       on,
       {500, 100 * 1000 * 1000, 0, 500, 100 * 1000 * 1000}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ExpectResource(ComputePodResource(c.pod, c.features), c.want);
    ExpectResource(PodInfo::CreateBound(c.pod, nullptr, c.features)->resource(),
                   c.want);
    ExpectResource(
        PodInfo::Create(std::make_shared<const api::Pod>(c.pod), c.features)
            ->resource(),
        c.want);
  }
}

// TestCalculatePodResourcesWithResize (framework/types_test.go, v1.35), with
// InPlacePodVerticalScaling and InPlacePodLevelResourcesVerticalScaling on.
TEST(PodResourceTest, CalculateResourcesWithResize) {
  const api::ResourceFeatures resize{
      .in_place_pod_level_resources_vertical_scaling = true};
  auto pod = [](testing::ResourcePairs requests,
                testing::ResourcePairs status) {
    return PodBuilder("testpod")
        .Namespace("pod_resize_test")
        .Uid("testpod")
        .Req(requests)
        .StatusResources("c0", status);
  };
  auto pod_level = [](api::Pod p, testing::ResourcePairs requests,
                      testing::ResourcePairs status) {
    p.spec.resources.emplace().requests = testing::MakeResourceList(requests);
    p.status.resources.emplace().requests = testing::MakeResourceList(status);
    return p;
  };
  auto in_progress = [](api::Pod p) {
    api::PodCondition c;
    c.type = "PodResizeInProgress";
    c.status = "True";
    p.status.conditions.push_back(c);
    return p;
  };
  const testing::ResourcePairs c500 = {{"cpu", "500m"}, {"memory", "500M"}};
  const testing::ResourcePairs c700 = {{"cpu", "700m"}, {"memory", "500M"}};
  const testing::ResourcePairs c700_800 = {{"cpu", "700m"}, {"memory", "800M"}};
  struct Case {
    std::string name;
    api::Pod pod;
    Want want;
  };
  const Case cases[] = {
      {"Pod with no pending resize",
       pod(c500, c500).Obj(),
       {500, kMem500M, 0, 500, kMem500M}},
      {"Pod with pod-level resources no pending resize",
       pod_level(pod(c500, c700).Obj(), c700, c500),
       {700, kMem500M, 0, 700, kMem500M}},
      {"Pod with resize in progress",
       in_progress(pod(c500, c500).Obj()),
       {500, kMem500M, 0, 500, kMem500M}},
      {"Pod with pod-level resources and resize in progress",
       in_progress(pod_level(pod(c500, c700).Obj(), c700, c500)),
       {700, kMem500M, 0, 700, kMem500M}},
      {"Pod with deferred resize",
       pod(c700_800, c500).ResizePending("Deferred").Obj(),
       {700, kMem800M, 0, 700, kMem800M}},
      {"Pod with pod-level resources and with deferred resize",
       pod_level(pod(c500, c500).ResizePending("Deferred").Obj(), c700_800,
                 c500),
       {700, kMem800M, 0, 700, kMem800M}},
      {"Pod with infeasible resize",
       pod(c700_800, c500).ResizePending("Infeasible").Obj(),
       {500, kMem500M, 0, 500, kMem500M}},
      {"Pod with init container and no pending resize",
       pod(c500, c500)
           .InitReq(c700_800)
           .StatusResources("init0", c700_800)
           .Obj(),
       {700, kMem800M, 0, 700, kMem800M}},
      {"Pod with sidecar container and no pending resize",
       pod(c500, c500)
           .InitReq(c700_800)
           .StatusResources("init0", c700_800)
           .SidecarReq(c700_800)
           .StatusResources("init1", c700_800)
           .Obj(),
       {1200, kMem500M + kMem800M, 0, 1200, kMem500M + kMem800M}},
      // A sidecar resized up counts its applied requests beside the app.
      {"Pod with sidecar container resized up",
       pod(c500, c500)
           .SidecarReq(c500)
           .StatusResources("init0", c700_800)
           .Obj(),
       {1200, kMem500M + kMem800M, 0, 1200, kMem500M + kMem800M}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ExpectResource(ComputePodResource(c.pod, resize), c.want);
    ExpectResource(PodInfo::CreateBound(c.pod, nullptr, resize)->resource(),
                   c.want);
  }
  // InPlacePodLevelResourcesVerticalScaling is beta and on at v1.36: a pod
  // whose pod-level resize was applied beyond its spec counts what was
  // applied; at v1.35's defaults the spec alone.
  const api::Pod resized_up = pod_level(pod(c500, c500).Obj(), c500, c700);
  ExpectResource(ComputePodResource(resized_up,
                                    ResourceFeaturesOf(config::FeatureGates())),
                 {700, kMem500M, 0, 700, kMem500M});
  ExpectResource(
      ComputePodResource(resized_up,
                         ResourceFeaturesOf(config::FeatureGates({1, 35}))),
      {500, kMem500M, 0, 500, kMem500M});
}

// The gates in their version's defaults: v1.32 counts the spec only; v1.36
// also reads a running pod's pod-level status resources.
TEST(PodResourceTest, FeaturesOfTheGates) {
  EXPECT_EQ(ResourceFeaturesOf(config::FeatureGates()),
            (api::ResourceFeatures{
                .in_place_pod_vertical_scaling = true,
                .pod_level_resources = true,
                .in_place_pod_level_resources_vertical_scaling = true}));
  EXPECT_EQ(ResourceFeaturesOf(config::FeatureGates({1, 35})),
            (api::ResourceFeatures{
                .in_place_pod_vertical_scaling = true,
                .pod_level_resources = true,
                .in_place_pod_level_resources_vertical_scaling = false}));
  EXPECT_EQ(
      ResourceFeaturesOf(config::FeatureGates(config::KubeVersion{1, 32})),
      (api::ResourceFeatures{
          .in_place_pod_vertical_scaling = false,
          .pod_level_resources = false,
          .in_place_pod_level_resources_vertical_scaling = false}));
  EXPECT_EQ(
      ResourceFeaturesOf(config::FeatureGates(config::KubeVersion{1, 33})),
      (api::ResourceFeatures{
          .in_place_pod_vertical_scaling = true,
          .pod_level_resources = false,
          .in_place_pod_level_resources_vertical_scaling = false}));
  config::FeatureGates alpha;
  alpha.Set(config::Feature::kInPlacePodLevelResourcesVerticalScaling, true);
  EXPECT_TRUE(
      ResourceFeaturesOf(alpha).in_place_pod_level_resources_vertical_scaling);
}

std::string Recorded(const std::string& name) {
  std::ifstream in(std::string(KSCHED_SHARED_DIR) + "/apiserver/" + name);
  EXPECT_TRUE(in.good()) << "cannot open " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The recorded pods, as the cache counts them on their node.
TEST(PodResourceTest, RecordedPods) {
  auto resized =
      api::DecodeJson<api::Pod>(Recorded("v1.35/get-pod-resized.json"));
  ASSERT_TRUE(resized.ok()) << resized.error().message();
  // Allocated and applied 2 / 1Gi over a spec of 500m / 256Mi.
  ExpectResource(PodInfo::CreateBound(*resized)->resource(),
                 {2000, int64_t{1} << 30, 0, 2000, int64_t{1} << 30});
  const api::ResourceFeatures v132 =
      ResourceFeaturesOf(config::FeatureGates(config::KubeVersion{1, 32}));
  ExpectResource(PodInfo::CreateBound(*resized, nullptr, v132)->resource(),
                 {500, int64_t{256} << 20, 0, 500, int64_t{256} << 20});

  auto pod_level = api::DecodeJson<api::Pod>(
      Recorded("v1.35/post-pod-podlevel-resources.json"));
  ASSERT_TRUE(pod_level.ok()) << pod_level.error().message();
  // Pod-level 2 / 2Gi in place of the containers' 250m / 128Mi.
  ExpectResource(PodInfo::CreateBound(*pod_level)->resource(),
                 {2000, int64_t{2} << 30, 0, 2000, int64_t{2} << 30});
  // Without the gate the containers count, and the non-zero defaults fill
  // in for the two containers that name nothing (the sidecar and "side").
  ExpectResource(PodInfo::CreateBound(*pod_level, nullptr, v132)->resource(),
                 {250, int64_t{128} << 20, 0, 250 + 2 * kCpu,
                  (int64_t{128} << 20) + 2 * kMem});
  // Overhead on top of the pod-level requests.
  api::Pod with_overhead = *pod_level;
  with_overhead.spec.overhead =
      testing::MakeResourceList({{"cpu", "250m"}, {"memory", "120Mi"}});
  const int64_t memory = (int64_t{2} << 30) + (int64_t{120} << 20);
  ExpectResource(PodInfo::CreateBound(with_overhead)->resource(),
                 {2250, memory, 0, 2250, memory});
}

// A bound pod's status change alone changes what its node holds.
TEST(PodResourceTest, NodeRequestedFollowsAResize) {
  const api::Pod before =
      PodBuilder("p").Uid("p").Node("n").Req({{"cpu", "1"}}).Obj();
  const api::Pod after = PodBuilder("p")
                             .Uid("p")
                             .Node("n")
                             .Req({{"cpu", "1"}})
                             .StatusResources("c0", {{"cpu", "3"}})
                             .Obj();
  NodeInfo node;
  node.AddPod(PodInfo::CreateBound(before));
  EXPECT_EQ(node.requested().milli_cpu, 1000);
  ASSERT_TRUE(node.RemovePod("p"));
  node.AddPod(PodInfo::CreateBound(after));
  EXPECT_EQ(node.requested().milli_cpu, 3000);
  EXPECT_EQ(node.non_zero_requested().milli_cpu, 3000);
}

}  // namespace
}  // namespace ksched::framework
