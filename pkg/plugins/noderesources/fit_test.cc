#include "pkg/plugins/noderesources/fit.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/noderesources/test_util.h"

namespace ksched::plugins {
namespace {

using framework::Code;
using noderesources_test::CapacityNode;
using noderesources_test::ResourcePod;
using noderesources_test::Usage;
using noderesources_test::WithInit;

constexpr const char* kExtA = "example.com/aaa";
constexpr const char* kExtB = "example.com/bbb";
constexpr const char* kK8sA = "kubernetes.io/something";
constexpr const char* kK8sB = "subdomain.kubernetes.io/something";
constexpr const char* kHugePageA = "hugepages-2Mi";

std::string Insufficient(const std::string& name) {
  return "Insufficient " + name;
}

// makeResources / makeAllocatableResources of fit_test.go.
api::ResourceList MakeResources(int64_t milli_cpu, int64_t memory, int64_t pods,
                                int64_t ext_a, int64_t storage,
                                int64_t huge_page_a) {
  api::ResourceList l;
  l.Set("cpu", api::Quantity::FromMilli(milli_cpu));
  l.Set("memory", api::Quantity::FromValue(memory));
  l.Set("pods", api::Quantity::FromValue(pods));
  l.Set(kExtA, api::Quantity::FromValue(ext_a));
  l.Set("ephemeral-storage", api::Quantity::FromValue(storage));
  l.Set(kHugePageA, api::Quantity::FromValue(huge_page_a));
  return l;
}

api::Node FitNode(api::ResourceList capacity, api::ResourceList allocatable) {
  api::Node n;
  n.metadata.name = "node";
  n.status.capacity = std::move(capacity);
  n.status.allocatable = std::move(allocatable);
  return n;
}

std::unique_ptr<framework::Plugin> MakeFit(
    const config::NodeResourcesFitArgs& args,
    const config::FeatureGates& gates = {}) {
  testing::FakeHandle handle;
  handle.features_ = gates;
  auto p = NewNodeResourcesFit(&args, handle);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
  return p.ok() ? std::move(*p) : nullptr;
}

NodeResourcesFit& AsFit(const std::unique_ptr<framework::Plugin>& plugin) {
  auto* fit = dynamic_cast<NodeResourcesFit*>(plugin.get());
  EXPECT_NE(fit, nullptr);
  return *fit;
}

config::NodeResourcesFitArgs DefaultFitArgs() {
  config::NodeResourcesFitArgs a;
  a.scoring_strategy.type = config::ScoringStrategyType::kLeastAllocated;
  a.scoring_strategy.resources = noderesources_test::DefaultResources();
  return a;
}

// PreFilter then Filter, as kube's fit tests drive the plugin.
framework::Status RunFilter(framework::Plugin& plugin, const api::Pod& pod,
                            const framework::NodeInfo& node) {
  auto* pre = dynamic_cast<framework::PreFilterPlugin*>(&plugin);
  auto* filter = dynamic_cast<framework::FilterPlugin*>(&plugin);
  EXPECT_NE(pre, nullptr);
  EXPECT_NE(filter, nullptr);
  auto info = framework::PodInfo::Create(std::make_shared<const api::Pod>(pod));
  framework::CycleState state;
  framework::PreFilterResult result;
  framework::Status pre_status = pre->PreFilter(state, *info, {}, &result);
  EXPECT_TRUE(pre_status.IsSuccess()) << pre_status.Message();
  EXPECT_TRUE(result.AllNodes());
  return filter->Filter(state, *info, node);
}

// TestEnoughRequests.
TEST(NodeResourcesFitTest, EnoughRequests) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<Usage> node_pods;
    config::NodeResourcesFitArgs args;
    Code code;
    std::vector<std::string> reasons;
    std::vector<InsufficientResource> insufficient;
  };
  auto pod1 = [](std::vector<Usage> u) { return ResourcePod(u); };
  const config::NodeResourcesFitArgs defaults = DefaultFitArgs();
  config::NodeResourcesFitArgs ignore_b = defaults;
  ignore_b.ignored_resources = {"example.com/bbb"};
  config::NodeResourcesFitArgs ignore_group = defaults;
  ignore_group.ignored_resource_groups = {"example.com"};
  api::Pod overhead_fits = pod1({{1, 1}});
  overhead_fits.spec.overhead =
      testing::MakeResourceList({{"cpu", "3m"}, {"memory", "13"}});
  api::Pod overhead_too_much = pod1({{1, 1}});
  overhead_too_much.spec.overhead =
      testing::MakeResourceList({{"cpu", "1m"}, {"memory", "15"}});

  const Case cases[] = {
      {"no resources requested always fits",
       api::Pod{},
       {{10, 20}},
       defaults,
       Code::kSuccess,
       {},
       {}},
      {"too many resources fails",
       pod1({{1, 1}}),
       {{10, 20}},
       defaults,
       Code::kUnschedulable,
       {"Insufficient cpu", "Insufficient memory"},
       {{"cpu", "Insufficient cpu", 1, 10, 10},
        {"memory", "Insufficient memory", 1, 20, 20}}},
      {"too many resources fails due to init container cpu",
       WithInit(pod1({{1, 1}}), {{3, 1}}),
       {{8, 19}},
       defaults,
       Code::kUnschedulable,
       {"Insufficient cpu"},
       {{"cpu", "Insufficient cpu", 3, 8, 10}}},
      {"too many resources fails due to highest init container cpu",
       WithInit(pod1({{1, 1}}), {{3, 1}, {2, 1}}),
       {{8, 19}},
       defaults,
       Code::kUnschedulable,
       {"Insufficient cpu"},
       {{"cpu", "Insufficient cpu", 3, 8, 10}}},
      {"too many resources fails due to init container memory",
       WithInit(pod1({{1, 1}}), {{1, 3}}),
       {{9, 19}},
       defaults,
       Code::kUnschedulable,
       {"Insufficient memory"},
       {{"memory", "Insufficient memory", 3, 19, 20}}},
      {"too many resources fails due to highest init container memory",
       WithInit(pod1({{1, 1}}), {{1, 3}, {1, 2}}),
       {{9, 19}},
       defaults,
       Code::kUnschedulable,
       {"Insufficient memory"},
       {{"memory", "Insufficient memory", 3, 19, 20}}},
      {"init container fits because it's the max, not sum, of containers and "
       "init containers",
       WithInit(pod1({{1, 1}}), {{1, 1}}),
       {{9, 19}},
       defaults,
       Code::kSuccess,
       {},
       {}},
      {"multiple init containers fit because it's the max, not sum, of "
       "containers and init containers",
       WithInit(pod1({{1, 1}}), {{1, 1}, {1, 1}}),
       {{9, 19}},
       defaults,
       Code::kSuccess,
       {},
       {}},
      {"both resources fit",
       pod1({{1, 1}}),
       {{5, 5}},
       defaults,
       Code::kSuccess,
       {},
       {}},
      {"one resource memory fits",
       pod1({{2, 1}}),
       {{9, 5}},
       defaults,
       Code::kUnschedulable,
       {"Insufficient cpu"},
       {{"cpu", "Insufficient cpu", 2, 9, 10}}},
      {"one resource cpu fits",
       pod1({{1, 2}}),
       {{5, 19}},
       defaults,
       Code::kUnschedulable,
       {"Insufficient memory"},
       {{"memory", "Insufficient memory", 2, 19, 20}}},
      {"equal edge case",
       pod1({{5, 1}}),
       {{5, 19}},
       defaults,
       Code::kSuccess,
       {},
       {}},
      {"equal edge case for init container",
       WithInit(pod1({{4, 1}}), {{5, 1}}),
       {{5, 19}},
       defaults,
       Code::kSuccess,
       {},
       {}},
      {"extended resource fits",
       pod1({{0, 0, 0, {{kExtA, 1}}}}),
       {{}},
       defaults,
       Code::kSuccess,
       {},
       {}},
      {"extended resource fits for init container",
       WithInit(pod1({{}}), {{0, 0, 0, {{kExtA, 1}}}}),
       {{}},
       defaults,
       Code::kSuccess,
       {},
       {}},
      // v1.35: asking for more than the node's whole allocatable makes the
      // node unresolvable (preemption cannot help).
      {"extended resource capacity enforced",
       pod1({{1, 1, 0, {{kExtA, 10}}}}),
       {{0, 0, 0, {{kExtA, 0}}}},
       defaults,
       Code::kUnschedulableAndUnresolvable,
       {Insufficient(kExtA)},
       {{kExtA, Insufficient(kExtA), 10, 0, 5, true}}},
      {"extended resource capacity enforced for init container",
       WithInit(pod1({{}}), {{1, 1, 0, {{kExtA, 10}}}}),
       {{0, 0, 0, {{kExtA, 0}}}},
       defaults,
       Code::kUnschedulableAndUnresolvable,
       {Insufficient(kExtA)},
       {{kExtA, Insufficient(kExtA), 10, 0, 5, true}}},
      {"extended resource allocatable enforced",
       pod1({{1, 1, 0, {{kExtA, 1}}}}),
       {{0, 0, 0, {{kExtA, 5}}}},
       defaults,
       Code::kUnschedulable,
       {Insufficient(kExtA)},
       {{kExtA, Insufficient(kExtA), 1, 5, 5}}},
      {"extended resource allocatable enforced for init container",
       WithInit(pod1({{}}), {{1, 1, 0, {{kExtA, 1}}}}),
       {{0, 0, 0, {{kExtA, 5}}}},
       defaults,
       Code::kUnschedulable,
       {Insufficient(kExtA)},
       {{kExtA, Insufficient(kExtA), 1, 5, 5}}},
      {"extended resource allocatable enforced for multiple containers",
       pod1({{1, 1, 0, {{kExtA, 3}}}, {1, 1, 0, {{kExtA, 3}}}}),
       {{0, 0, 0, {{kExtA, 2}}}},
       defaults,
       Code::kUnschedulableAndUnresolvable,
       {Insufficient(kExtA)},
       {{kExtA, Insufficient(kExtA), 6, 2, 5, true}}},
      {"extended resource allocatable admits multiple init containers",
       WithInit(pod1({{}}), {{1, 1, 0, {{kExtA, 3}}}, {1, 1, 0, {{kExtA, 3}}}}),
       {{0, 0, 0, {{kExtA, 2}}}},
       defaults,
       Code::kSuccess,
       {},
       {}},
      {"extended resource allocatable enforced for multiple init containers",
       WithInit(pod1({{}}), {{1, 1, 0, {{kExtA, 6}}}, {1, 1, 0, {{kExtA, 3}}}}),
       {{0, 0, 0, {{kExtA, 2}}}},
       defaults,
       Code::kUnschedulableAndUnresolvable,
       {Insufficient(kExtA)},
       {{kExtA, Insufficient(kExtA), 6, 2, 5, true}}},
      {"extended resource allocatable enforced for unknown resource",
       pod1({{1, 1, 0, {{kExtB, 1}}}}),
       {{0, 0}},
       defaults,
       Code::kUnschedulableAndUnresolvable,
       {Insufficient(kExtB)},
       {{kExtB, Insufficient(kExtB), 1, 0, 0, true}}},
      {"extended resource allocatable enforced for unknown resource for init "
       "container",
       WithInit(pod1({{}}), {{1, 1, 0, {{kExtB, 1}}}}),
       {{0, 0}},
       defaults,
       Code::kUnschedulableAndUnresolvable,
       {Insufficient(kExtB)},
       {{kExtB, Insufficient(kExtB), 1, 0, 0, true}}},
      {"kubernetes.io resource capacity enforced",
       pod1({{1, 1, 0, {{kK8sA, 10}}}}),
       {{0, 0}},
       defaults,
       Code::kUnschedulableAndUnresolvable,
       {Insufficient(kK8sA)},
       {{kK8sA, Insufficient(kK8sA), 10, 0, 0, true}}},
      {"kubernetes.io resource capacity enforced for init container",
       WithInit(pod1({{}}), {{1, 1, 0, {{kK8sB, 10}}}}),
       {{0, 0}},
       defaults,
       Code::kUnschedulableAndUnresolvable,
       {Insufficient(kK8sB)},
       {{kK8sB, Insufficient(kK8sB), 10, 0, 0, true}}},
      {"hugepages resource capacity enforced",
       pod1({{1, 1, 0, {{kHugePageA, 10}}}}),
       {{0, 0, 0, {{kHugePageA, 0}}}},
       defaults,
       Code::kUnschedulableAndUnresolvable,
       {Insufficient(kHugePageA)},
       {{kHugePageA, Insufficient(kHugePageA), 10, 0, 5, true}}},
      {"hugepages resource capacity enforced for init container",
       WithInit(pod1({{}}), {{1, 1, 0, {{kHugePageA, 10}}}}),
       {{0, 0, 0, {{kHugePageA, 0}}}},
       defaults,
       Code::kUnschedulableAndUnresolvable,
       {Insufficient(kHugePageA)},
       {{kHugePageA, Insufficient(kHugePageA), 10, 0, 5, true}}},
      {"hugepages resource allocatable enforced for multiple containers",
       pod1({{1, 1, 0, {{kHugePageA, 3}}}, {1, 1, 0, {{kHugePageA, 3}}}}),
       {{0, 0, 0, {{kHugePageA, 2}}}},
       defaults,
       Code::kUnschedulableAndUnresolvable,
       {Insufficient(kHugePageA)},
       {{kHugePageA, Insufficient(kHugePageA), 6, 2, 5, true}}},
      {"skip checking ignored extended resource",
       pod1({{1, 1, 0, {{kExtB, 1}}}}),
       {{0, 0}},
       ignore_b,
       Code::kSuccess,
       {},
       {}},
      {"resources + pod overhead fits",
       overhead_fits,
       {{5, 5}},
       defaults,
       Code::kSuccess,
       {},
       {}},
      {"requests + overhead does not fit for memory",
       overhead_too_much,
       {{5, 5}},
       defaults,
       Code::kUnschedulable,
       {"Insufficient memory"},
       {{"memory", "Insufficient memory", 16, 5, 20}}},
      {"skip checking ignored extended resource via resource groups",
       pod1({{1, 1, 0, {{kExtB, 1}, {kK8sA, 1}}}}),
       {{0, 0}},
       ignore_group,
       Code::kUnschedulableAndUnresolvable,
       {Insufficient(kK8sA)},
       {{kK8sA, Insufficient(kK8sA), 1, 0, 0, true}}},
      {"skip checking extended resource request with quantity zero via "
       "resource groups",
       pod1({{1, 1, 0, {{kExtA, 0}}}}),
       {{0, 0, 0, {{kExtA, 6}}}},
       defaults,
       Code::kSuccess,
       {},
       {}},
      {"skip checking resource request with quantity zero",
       pod1({{0, 0, 0, {{kExtA, 1}}}}),
       {{20, 30, 0, {{kExtA, 1}}}},
       defaults,
       Code::kSuccess,
       {},
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    api::Node node = FitNode(MakeResources(10, 20, 32, 5, 20, 5),
                             MakeResources(10, 20, 32, 5, 20, 5));
    std::vector<api::Pod> existing;
    for (const Usage& u : c.node_pods) existing.push_back(ResourcePod({u}));
    auto node_info = testing::MakeNodeInfo(node, existing);
    auto plugin = MakeFit(c.args);
    ASSERT_NE(plugin, nullptr);

    framework::Status s = RunFilter(*plugin, c.pod, *node_info);
    EXPECT_EQ(framework::CodeName(s.code()), framework::CodeName(c.code));
    EXPECT_EQ(s.reasons(), c.reasons);

    auto* fit = dynamic_cast<NodeResourcesFit*>(plugin.get());
    ASSERT_NE(fit, nullptr);
    auto info =
        framework::PodInfo::Create(std::make_shared<const api::Pod>(c.pod));
    EXPECT_EQ(
        FitsRequest(info->resource().requests, *node_info, fit->ignored()),
        c.insufficient);
  }
}

// kube builds Fit's scorer without the feature flags (getScorer in
// fit.go), so every strategy scores the containers' requests of a pod that
// also sets pod-level requests, while Filter checks the pod-level ones. A
// pod asking 5 CPUs and 8Gi at pod level and 100m and 1Gi in its container,
// on a 16-CPU 16Gi node:
//   LeastAllocated: cpu 15900*100/16000 = 99, memory 15*100/16 = 93 -> 96
//     (pod-level would give cpu 68, memory 50 -> 59);
//   MostAllocated: cpu 100*100/16000 = 0, memory 6 -> 3 (pod-level 40);
//   RequestedToCapacityRatio, shape 0->0, 100->10: utilization cpu 0,
//     memory 6; a resource scoring 0 leaves the mean -> 6 (pod-level
//     round(81/2) = 41).
TEST(NodeResourcesFitTest, ScoreCountsContainersNotPodLevelRequests) {
  struct Case {
    config::ScoringStrategyType type;
    int64_t want;
  };
  const Case cases[] = {
      {config::ScoringStrategyType::kLeastAllocated, 96},
      {config::ScoringStrategyType::kMostAllocated, 3},
      {config::ScoringStrategyType::kRequestedToCapacityRatio, 6},
  };
  const api::Pod pod = testing::PodBuilder("pod")
                           .Req({{"cpu", "100m"}, {"memory", "1Gi"}})
                           .PodLevelReq({{"cpu", "5"}, {"memory", "8Gi"}})
                           .Obj();
  const api::Pod containers_only =
      testing::PodBuilder("pod")
          .Req({{"cpu", "100m"}, {"memory", "1Gi"}})
          .Obj();
  const std::vector<framework::NodeInfoPtr> nodes =
      noderesources_test::BuildNodeInfos(
          {CapacityNode("node1", {{"cpu", "16"}, {"memory", "16Gi"}})}, {});
  for (const Case& c : cases) {
    SCOPED_TRACE(static_cast<int>(c.type));
    config::NodeResourcesFitArgs args;
    args.scoring_strategy.type = c.type;
    args.scoring_strategy.resources = noderesources_test::DefaultResources();
    if (c.type == config::ScoringStrategyType::kRequestedToCapacityRatio) {
      args.scoring_strategy.shape = {{0, 0}, {100, 10}};
    }
    testing::FakeHandle handle;
    auto plugin = NewNodeResourcesFit(&args, handle);
    ASSERT_TRUE(plugin.ok()) << plugin.error().message();
    for (bool pre_score : {true, false}) {
      EXPECT_EQ(noderesources_test::ScoreAll(**plugin, pod, nodes, pre_score),
                std::vector<int64_t>{c.want});
    }
    EXPECT_EQ(
        noderesources_test::ScoreAll(**plugin, containers_only, nodes, true),
        std::vector<int64_t>{c.want});
  }
}

// TestEnoughRequests' pod-level cases (v1.35, PodLevelResources on): the
// pod-level requests replace the containers' sum for cpu, memory and
// hugepages; other resources still come from the containers.
TEST(NodeResourcesFitTest, PodLevelResources) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<Usage> node_pods;
    config::FeatureGates gates;
    std::vector<std::string> reasons;
    std::vector<InsufficientResource> insufficient;
  };
  auto pod_level = [](api::Pod pod, testing::ResourcePairs requests) {
    pod.spec.resources.emplace().requests = testing::MakeResourceList(requests);
    return pod;
  };
  const config::FeatureGates v132(config::KubeVersion{1, 32});
  const Case cases[] = {
      {"both pod-level and container-level resources fit",
       pod_level(ResourcePod({{1, 1}}), {{"cpu", "1m"}, {"memory", "2"}}),
       {{5, 5}},
       {},
       {},
       {}},
      {"pod-level cpu resource not fit",
       pod_level(ResourcePod({{1, 1}}), {{"cpu", "7m"}, {"memory", "2"}}),
       {{5, 5}},
       {},
       {"Insufficient cpu"},
       {{"cpu", "Insufficient cpu", 7, 5, 10}}},
      {"pod-level cpu resource ignored without PodLevelResources",
       pod_level(ResourcePod({{1, 1}}), {{"cpu", "7m"}, {"memory", "2"}}),
       {{5, 5}},
       v132,
       {},
       {}},
      {"pod-level memory resource not fit",
       pod_level(ResourcePod({{1, 1}}), {{"cpu", "3m"}, {"memory", "2"}}),
       {{5, 19}},
       {},
       {"Insufficient memory"},
       {{"memory", "Insufficient memory", 2, 19, 20}}},
      {"pod-level hugepages resource fit",
       pod_level(ResourcePod({}),
                 {{"cpu", "3m"}, {"memory", "2"}, {kHugePageA, "5"}}),
       {},
       {},
       {},
       {}},
      {"both pod-level and container-level hugepages resource fit",
       pod_level(ResourcePod({{1, 1, 0, {{kHugePageA, 3}}}}),
                 {{"cpu", "3m"}, {"memory", "2"}, {kHugePageA, "5"}}),
       {},
       {},
       {},
       {}},
      {"pod-level hugepages resource not fit",
       pod_level(ResourcePod({}),
                 {{"cpu", "3m"}, {"memory", "2"}, {kHugePageA, "10"}}),
       {},
       {},
       {Insufficient(kHugePageA)},
       {{kHugePageA, Insufficient(kHugePageA), 10, 0, 5, true}}},
      {"one pod-level cpu resource fits and all init and non-init containers "
       "resources fit",
       WithInit(
           pod_level(ResourcePod({{1, 1}}), {{"cpu", "3m"}, {"memory", "2"}}),
           {{1, 1}}),
       {{5, 19}},
       {},
       {"Insufficient memory"},
       {{"memory", "Insufficient memory", 2, 19, 20}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    api::Node node = FitNode(MakeResources(10, 20, 32, 5, 20, 5),
                             MakeResources(10, 20, 32, 5, 20, 5));
    std::vector<api::Pod> existing;
    for (const Usage& u : c.node_pods) existing.push_back(ResourcePod({u}));
    auto node_info = testing::MakeNodeInfo(node, existing);
    auto plugin = MakeFit(DefaultFitArgs(), c.gates);
    ASSERT_NE(plugin, nullptr);
    framework::Status s = RunFilter(*plugin, c.pod, *node_info);
    // Only whether the pod is refused: the code for a request beyond the
    // node's whole allocatable is Filter's concern, not the request's.
    EXPECT_EQ(s.IsSuccess(), c.reasons.empty()) << s.Message();
    EXPECT_EQ(s.reasons(), c.reasons);
    EXPECT_EQ(FitsRequest(AsFit(plugin).PodRequest(c.pod), *node_info,
                          AsFit(plugin).ignored()),
              c.insufficient);
  }
}

// A running pod resized in place holds what its status reports: with
// InPlacePodVerticalScaling (v1.33+) the node counts it, at v1.32 only the
// spec.
TEST(NodeResourcesFitTest, ResizedPodOnTheNode) {
  const api::Pod resized =
      testing::PodBuilder("resized")
          .Uid("resized")
          .Node("node")
          .Req({{"cpu", "1m"}, {"memory", "1"}})
          .StatusResources("c0", {{"cpu", "8m"}}, {{"cpu", "8m"}})
          .Obj();
  const api::Pod pending = ResourcePod({{3, 1}});
  struct Case {
    std::string name;
    config::FeatureGates gates;
    std::vector<InsufficientResource> insufficient;
  } cases[] = {
      {"v1.35: the applied 8m count",
       config::FeatureGates(),
       {{"cpu", "Insufficient cpu", 3, 8, 10}}},
      {"v1.32: the spec's 1m count",
       config::FeatureGates(config::KubeVersion{1, 32}),
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    api::Node node = FitNode(MakeResources(10, 20, 32, 5, 20, 5),
                             MakeResources(10, 20, 32, 5, 20, 5));
    framework::NodeInfo node_info;
    node_info.SetNode(std::make_shared<const api::Node>(node));
    node_info.AddPod(framework::PodInfo::CreateBound(
        resized, nullptr, framework::ResourceFeaturesOf(c.gates)));
    auto plugin = MakeFit(DefaultFitArgs(), c.gates);
    ASSERT_NE(plugin, nullptr);
    framework::Status s = RunFilter(*plugin, pending, node_info);
    EXPECT_EQ(s.IsSuccess(), c.insufficient.empty()) << s.Message();
    EXPECT_EQ(FitsRequest(AsFit(plugin).PodRequest(pending), node_info,
                          AsFit(plugin).ignored()),
              c.insufficient);
  }
}

// A pending pod's status is not read for its own request, even if it has
// one: it has not run.
TEST(NodeResourcesFitTest, PendingPodStatusIsNotItsRequest) {
  const api::Pod pod = testing::PodBuilder("p")
                           .Req({{"cpu", "1m"}})
                           .StatusResources("c0", {{"cpu", "9m"}})
                           .Obj();
  auto plugin = MakeFit(DefaultFitArgs());
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(AsFit(plugin).PodRequest(pod).milli_cpu, 1);
}

// TestPreFilterDisabled: Filter without PreFilter's state is an error.
TEST(NodeResourcesFitTest, PreFilterDisabled) {
  auto plugin = MakeFit(DefaultFitArgs());
  ASSERT_NE(plugin, nullptr);
  auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin.get());
  ASSERT_NE(filter, nullptr);
  auto node = testing::MakeNodeInfo(api::Node{});
  framework::CycleState state;
  framework::Status s =
      filter->Filter(state, *testing::PodBuilder("p").Info(), *node);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "error reading \"PreFilterNodeResourcesFit\" from cycleState: not "
            "found");
}

// TestNotEnoughRequests: a node with room for one pod only.
TEST(NodeResourcesFitTest, NotEnoughRequests) {
  struct Case {
    std::string name;
    api::Pod pod;
    Usage node_pod;
  };
  const Case cases[] = {
      {"even without specified resources, predicate fails when there's no "
       "space for additional pod",
       api::Pod{},
       {10, 20}},
      {"even if both resources fit, predicate fails when there's no space for "
       "additional pod",
       ResourcePod({{1, 1}}),
       {5, 5}},
      {"even for equal edge case, predicate fails when there's no space for "
       "additional pod",
       ResourcePod({{5, 1}}),
       {5, 19}},
      {"even for equal edge case, predicate fails when there's no space for "
       "additional pod due to init container",
       WithInit(ResourcePod({{5, 1}}), {{5, 1}}),
       {5, 19}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    api::Node node =
        FitNode(api::ResourceList{}, MakeResources(10, 20, 1, 0, 0, 0));
    auto node_info = testing::MakeNodeInfo(node, {ResourcePod({c.node_pod})});
    auto plugin = MakeFit(DefaultFitArgs());
    ASSERT_NE(plugin, nullptr);
    framework::Status s = RunFilter(*plugin, c.pod, *node_info);
    EXPECT_EQ(s.code(), Code::kUnschedulable);
    EXPECT_EQ(s.reasons(), std::vector<std::string>{"Too many pods"});
  }
}

// TestStorageRequests.
TEST(NodeResourcesFitTest, StorageRequests) {
  struct Case {
    std::string name;
    api::Pod pod;
    Usage node_pod;
    Code code;
    std::vector<std::string> reasons;
  };
  const Case cases[] = {
      {"empty storage requested, and pod fits",
       ResourcePod({{1, 1}}),
       {2, 10},
       Code::kSuccess,
       {}},
      {"storage ephemeral local storage request exceeds allocatable",
       ResourcePod({{0, 0, 25}}),
       {2, 2},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient ephemeral-storage"}},
      {"ephemeral local storage is sufficient",
       WithInit(ResourcePod({{0, 0, 5}}), {}),
       {2, 2, 10},
       Code::kSuccess,
       {}},
      {"pod fits", ResourcePod({{0, 0, 10}}), {2, 2}, Code::kSuccess, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    api::Node node = FitNode(MakeResources(10, 20, 32, 5, 20, 5),
                             MakeResources(10, 20, 32, 5, 20, 5));
    auto node_info = testing::MakeNodeInfo(node, {ResourcePod({c.node_pod})});
    auto plugin = MakeFit(DefaultFitArgs());
    ASSERT_NE(plugin, nullptr);
    framework::Status s = RunFilter(*plugin, c.pod, *node_info);
    EXPECT_EQ(framework::CodeName(s.code()), framework::CodeName(c.code));
    EXPECT_EQ(s.reasons(), c.reasons);
  }
}

// TestRestartableInitContainers: with SidecarContainers off a pod with a
// restartable init container is refused for good (the gate is on from
// v1.29 and locked on in v1.33, so only an override turns it off).
TEST(NodeResourcesFitTest, RestartableInitContainers) {
  api::Pod plain;
  api::Container regular;
  regular.name = "regular";
  plain.spec.containers.push_back(regular);
  api::Pod with_sidecar = plain;
  api::Container sidecar;
  sidecar.name = "restartable-init";
  sidecar.restart_policy = "Always";
  with_sidecar.spec.init_containers.push_back(sidecar);
  config::FeatureGates no_sidecars(config::KubeVersion{1, 32});
  no_sidecars.Set(config::Feature::kSidecarContainers, false);
  struct Case {
    std::string name;
    const api::Pod* pod;
    config::FeatureGates gates;
    Code code;
    std::string message;
  } cases[] = {
      {"allow pod without restartable init containers if sidecar containers "
       "is disabled",
       &plain, no_sidecars, Code::kSuccess, ""},
      {"not allow pod with restartable init containers if sidecar containers "
       "is disabled",
       &with_sidecar, no_sidecars, Code::kUnschedulableAndUnresolvable,
       "Pod has a restartable init container and the SidecarContainers "
       "feature is disabled"},
      {"allow pod without restartable init containers if sidecar containers "
       "is enabled",
       &plain, config::FeatureGates(), Code::kSuccess, ""},
      {"allow pod with restartable init containers if sidecar containers is "
       "enabled",
       &with_sidecar, config::FeatureGates(), Code::kSuccess, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    api::Node node =
        FitNode(api::ResourceList{}, MakeResources(0, 0, 1, 0, 0, 0));
    auto node_info = testing::MakeNodeInfo(node);
    auto plugin = MakeFit(DefaultFitArgs(), c.gates);
    ASSERT_NE(plugin, nullptr);
    auto* pre = dynamic_cast<framework::PreFilterPlugin*>(plugin.get());
    auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin.get());
    auto info =
        framework::PodInfo::Create(std::make_shared<const api::Pod>(*c.pod));
    framework::CycleState state;
    framework::PreFilterResult result;
    framework::Status s = pre->PreFilter(state, *info, {}, &result);
    if (s.IsSuccess()) s = filter->Filter(state, *info, *node_info);
    EXPECT_EQ(framework::CodeName(s.code()), framework::CodeName(c.code));
    EXPECT_EQ(s.Message(), c.message);
  }
}

// Sidecars run next to the app containers, so their requests add up where
// plain init containers only raise the peak (what v1.32's PodRequests does).
TEST(NodeResourcesFitTest, SidecarRequestsAddUp) {
  api::Pod pod = ResourcePod({{4, 1}});
  api::Container sidecar = noderesources_test::UsageContainer({3, 1}, "side");
  sidecar.restart_policy = "Always";
  pod.spec.init_containers.push_back(sidecar);
  api::Node node = FitNode(MakeResources(10, 20, 32, 5, 20, 5),
                           MakeResources(10, 20, 32, 5, 20, 5));
  auto node_info = testing::MakeNodeInfo(node, {ResourcePod({{4, 0}})});
  auto plugin = MakeFit(DefaultFitArgs());
  ASSERT_NE(plugin, nullptr);
  framework::Status s = RunFilter(*plugin, pod, *node_info);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.reasons(), std::vector<std::string>{"Insufficient cpu"});
}

// TestFitScore: the three strategies through Score, with and without
// PreScore.
TEST(NodeResourcesFitTest, FitScore) {
  struct Case {
    std::string name;
    testing::ResourcePairs request;
    config::ScoringStrategy strategy;
    std::vector<int64_t> want;
  };
  const auto& res = noderesources_test::DefaultResources();
  using T = config::ScoringStrategyType;
  const Case cases[] = {
      {"test case for ScoringStrategy RequestedToCapacityRatio case1",
       {{"cpu", "3000"}, {"memory", "5000"}},
       {T::kRequestedToCapacityRatio, res, {{0, 10}, {100, 0}}},
       {10, 32}},
      {"test case for ScoringStrategy RequestedToCapacityRatio case2",
       {{"cpu", "3000"}, {"memory", "5000"}},
       {T::kRequestedToCapacityRatio, res, {{0, 0}, {100, 10}}},
       {95, 68}},
      {"test case for ScoringStrategy MostAllocated",
       {{"cpu", "1000"}, {"memory", "2000"}},
       {T::kMostAllocated, res, {}},
       {67, 36}},
      {"test case for ScoringStrategy LeastAllocated",
       {{"cpu", "1000"}, {"memory", "2000"}},
       {T::kLeastAllocated, res, {}},
       {32, 63}},
  };
  const std::vector<api::Node> nodes = {
      CapacityNode("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
      CapacityNode("node2", {{"cpu", "6000"}, {"memory", "10000"}}),
  };
  const std::vector<api::Pod> existing = {
      noderesources_test::ReqPod({{{"cpu", "2000"}, {"memory", "4000"}}},
                                 "node1"),
      noderesources_test::ReqPod({{{"cpu", "1000"}, {"memory", "2000"}}},
                                 "node2"),
  };
  for (const Case& c : cases) {
    for (bool run_pre_score : {true, false}) {
      SCOPED_TRACE(c.name +
                   (run_pre_score ? "" : " if PreScore is not called"));
      config::NodeResourcesFitArgs args;
      args.scoring_strategy = c.strategy;
      auto plugin = MakeFit(args);
      ASSERT_NE(plugin, nullptr);
      EXPECT_EQ(noderesources_test::ScoreAll(
                    *plugin, noderesources_test::ReqPod({c.request}),
                    noderesources_test::BuildNodeInfos(nodes, existing),
                    run_pre_score),
                c.want);
    }
  }
}

// TestEventsToRegister: scale-downs are registered with in-place resize on
// (v1.33+), node taint and label updates only without queueing hints.
TEST(NodeResourcesFitTest, EventsToRegister) {
  config::FeatureGates v132(config::KubeVersion{1, 32});
  config::FeatureGates no_hints;
  no_hints.Set(config::Feature::kSchedulerQueueingHints, false);
  config::FeatureGates neither = v132;
  neither.Set(config::Feature::kSchedulerQueueingHints, false);
  struct Case {
    std::string name;
    config::FeatureGates gates;
    std::string pod_events;
    std::string node_events;
  } cases[] = {
      {"v1.35 defaults: InPlacePodVerticalScaling and queueing hints on",
       config::FeatureGates(), "Pod/Delete|UpdatePodScaleDown",
       "Node/Add|UpdateNodeAllocatable"},
      {"v1.32 defaults: InPlacePodVerticalScaling off", v132, "Pod/Delete",
       "Node/Add|UpdateNodeAllocatable"},
      {"InPlacePodVerticalScaling on, queueing hints off", no_hints,
       "Pod/Delete|UpdatePodScaleDown",
       "Node/Add|UpdateNodeAllocatable|UpdateNodeLabel|UpdateNodeTaint"},
      {"both off", neither, "Pod/Delete",
       "Node/Add|UpdateNodeAllocatable|UpdateNodeLabel|UpdateNodeTaint"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto plugin = MakeFit(DefaultFitArgs(), c.gates);
    ASSERT_NE(plugin, nullptr);
    auto* ext = dynamic_cast<framework::EnqueueExtensions*>(plugin.get());
    ASSERT_NE(ext, nullptr);
    auto events = ext->EventsToRegister();
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].event.Label(), c.pod_events);
    EXPECT_EQ(events[1].event.Label(), c.node_events);
    EXPECT_TRUE(events[0].hint);
    EXPECT_TRUE(events[1].hint);
  }
}

// Test_isSchedulableAfterPodChange (the wrong-type cases do not arise).
TEST(NodeResourcesFitTest, HintAfterPodEvent) {
  using framework::QueueingHint;
  using testing::PodBuilder;
  auto req = [](const char* name, const char* uid, testing::ResourcePairs r) {
    return PodBuilder(name).Uid(uid).Req(r);
  };
  auto pod_level = [](const char* name, const char* uid,
                      testing::ResourcePairs r) {
    return PodBuilder(name).Uid(uid).PodLevelReq(r).Obj();
  };
  config::FeatureGates v132(config::KubeVersion{1, 32});
  struct Case {
    std::string name;
    api::Pod pod;
    std::optional<api::Pod> old_obj;
    std::optional<api::Pod> new_obj;
    config::FeatureGates gates;
    QueueingHint want;
  } cases[] = {
      {"queue-on-other-pod-deleted",
       req("pod1", "pod1", {{"cpu", "1"}}).Obj(),
       req("pod2", "pod2", {{"cpu", "1"}}).Node("fake").Obj(),
       std::nullopt,
       {},
       QueueingHint::kQueue},
      {"skip-queue-on-unscheduled-pod-deleted",
       api::Pod{},
       api::Pod{},
       std::nullopt,
       {},
       QueueingHint::kQueueSkip},
      {"queue-on-nominated-pod-deleted",
       req("pod1", "pod1", {{"cpu", "1"}}).Obj(),
       req("pod2", "pod2", {{"cpu", "1"}}).NominatedNode("fake").Obj(),
       std::nullopt,
       {},
       QueueingHint::kQueue},
      {"skip-queue-on-disable-inplace-pod-vertical-scaling",
       req("pod1", "pod1", {{"cpu", "1"}}).Obj(),
       req("pod2", "pod2", {{"cpu", "2"}}).Node("fake").Obj(),
       req("pod2", "pod2", {{"cpu", "1"}}).Node("fake").Obj(), v132,
       QueueingHint::kQueueSkip},
      {"skip-queue-on-other-unscheduled-pod",
       req("pod1", "uid0", {{"cpu", "1"}}).Obj(),
       req("pod2", "uid1", {{"cpu", "2"}}).Obj(),
       req("pod2", "uid1", {{"cpu", "1"}}).Obj(),
       {},
       QueueingHint::kQueueSkip},
      {"skip-queue-on-other-pod-unrelated-resource-scaled-down",
       req("pod1", "pod1", {{"cpu", "1"}}).Obj(),
       req("pod2", "pod2", {{"memory", "2"}}).Node("fake").Obj(),
       req("pod2", "pod2", {{"memory", "1"}}).Node("fake").Obj(),
       {},
       QueueingHint::kQueueSkip},
      {"skip-queue-on-other-pod-unrelated-pod-level-resource-scaled-down",
       pod_level("pod1", "pod1", {{"cpu", "1"}}),
       [&] {
         api::Pod p = pod_level("pod2", "pod2", {{"memory", "2"}});
         p.spec.node_name = "fake";
         return p;
       }(),
       [&] {
         api::Pod p = pod_level("pod2", "pod2", {{"memory", "1"}});
         p.spec.node_name = "fake";
         return p;
       }(),
       {},
       QueueingHint::kQueueSkip},
      {"queue-on-other-pod-some-resource-scale-down",
       req("pod1", "pod1", {{"cpu", "1"}}).Obj(),
       req("pod2", "pod2", {{"cpu", "2"}}).Node("fake").Obj(),
       req("pod2", "pod2", {{"cpu", "1"}}).Node("fake").Obj(),
       {},
       QueueingHint::kQueue},
      {"queue-on-other-pod-some-pod-level-resource-scale-down",
       pod_level("pod1", "pod1", {{"cpu", "1"}}),
       [&] {
         api::Pod p = pod_level("pod2", "pod2", {{"cpu", "2"}});
         p.spec.node_name = "fake";
         return p;
       }(),
       [&] {
         api::Pod p = pod_level("pod2", "pod2", {{"cpu", "1"}});
         p.spec.node_name = "fake";
         return p;
       }(),
       {},
       QueueingHint::kQueue},
      {"queue-on-target-pod-some-resource-scale-down",
       req("pod1", "pod1", {{"cpu", "1"}}).Obj(),
       req("pod1", "pod1", {{"cpu", "2"}}).Obj(),
       req("pod1", "pod1", {{"cpu", "1"}}).Obj(),
       {},
       QueueingHint::kQueue},
      {"queue-on-target-pod-some-pod-level-resource-scale-down",
       pod_level("pod1", "pod1", {{"cpu", "1"}}),
       pod_level("pod1", "pod1", {{"cpu", "2"}}),
       pod_level("pod1", "pod1", {{"cpu", "1"}}),
       {},
       QueueingHint::kQueue},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto plugin = MakeFit(DefaultFitArgs(), c.gates);
    ASSERT_NE(plugin, nullptr);
    framework::EventObjects objs;
    objs.old_pod = c.old_obj ? &*c.old_obj : nullptr;
    objs.new_pod = c.new_obj ? &*c.new_obj : nullptr;
    EXPECT_EQ(AsFit(plugin).HintAfterPodEvent(c.pod, objs), c.want);
  }
}

// A running pod whose resize the kubelet reports only in its status: the
// applied request going down frees room, one going up does not.
TEST(NodeResourcesFitTest, HintAfterResizeInStatus) {
  auto running = [](const char* status_cpu) {
    return testing::PodBuilder("running")
        .Uid("running")
        .Node("fake")
        .Req({{"cpu", "1"}})
        .StatusResources("c0", {{"cpu", status_cpu}}, {{"cpu", status_cpu}})
        .Obj();
  };
  const api::Pod pending =
      testing::PodBuilder("pending").Uid("pending").Req({{"cpu", "1"}}).Obj();
  const api::Pod big = running("3");
  const api::Pod small = running("2");
  auto plugin = MakeFit(DefaultFitArgs());
  ASSERT_NE(plugin, nullptr);
  framework::EventObjects down{.old_pod = &big, .new_pod = &small};
  EXPECT_EQ(AsFit(plugin).HintAfterPodEvent(pending, down),
            framework::QueueingHint::kQueue);
  framework::EventObjects up{.old_pod = &small, .new_pod = &big};
  EXPECT_EQ(AsFit(plugin).HintAfterPodEvent(pending, up),
            framework::QueueingHint::kQueueSkip);
}

// Test_isSchedulableAfterNodeChange (the wrong-type cases do not arise).
struct FitNodeHintCase {
  std::string name;
  std::map<std::string, std::string> pod_requests;
  std::optional<std::map<std::string, std::string>> old_capacity;
  std::map<std::string, std::string> new_capacity;
  framework::QueueingHint want;
};

class FitNodeHintTest : public ::testing::TestWithParam<FitNodeHintCase> {};

TEST_P(FitNodeHintTest, Hint) {
  const FitNodeHintCase& c = GetParam();
  // As kube's st.MakeNode().Capacity: 32 pods unless given.
  auto node = [](std::map<std::string, std::string> capacity) {
    capacity.emplace("pods", "32");
    return testing::NodeBuilder("n")
        .Capacity({capacity.begin(), capacity.end()})
        .Obj();
  };
  const api::Pod pod = testing::PodBuilder("p")
                           .Req({c.pod_requests.begin(), c.pod_requests.end()})
                           .Obj();
  std::optional<api::Node> old_node;
  if (c.old_capacity) old_node = node(*c.old_capacity);
  const api::Node new_node = node(c.new_capacity);
  framework::EventObjects objs;
  objs.old_node = old_node ? &*old_node : nullptr;
  objs.new_node = &new_node;
  auto plugin = MakeFit(DefaultFitArgs());
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(AsFit(plugin).HintAfterNodeChange(pod, objs), c.want);
}

constexpr char kExtendedA[] = "example.com/aaa";
constexpr char kExtendedB[] = "example.com/bbb";

INSTANTIATE_TEST_SUITE_P(
    IsSchedulableAfterNodeChange, FitNodeHintTest,
    ::testing::Values(
        FitNodeHintCase{"SkipQueueOnNodeAddWithoutSufficientResources",
                        {{"memory", "2"}},
                        std::nullopt,
                        {{"memory", "1"}},
                        framework::QueueingHint::kQueueSkip},
        FitNodeHintCase{"SkipQueueOnNodeAddWithoutRequiredResourceType",
                        {{kExtendedA, "1"}},
                        std::nullopt,
                        {{kExtendedB, "1"}},
                        framework::QueueingHint::kQueueSkip},
        FitNodeHintCase{"QueueOnNodeAddWithSufficientResources",
                        {{"memory", "2"}, {kExtendedA, "1"}},
                        std::nullopt,
                        {{"memory", "4"}, {kExtendedA, "2"}},
                        framework::QueueingHint::kQueue},
        FitNodeHintCase{"SkipQueueOnNodeUnrelatedChanges",
                        {{"memory", "2"}, {kExtendedA, "1"}},
                        std::map<std::string, std::string>{{"memory", "2"},
                                                           {kExtendedA, "2"}},
                        {{"memory", "2"}, {kExtendedA, "1"}, {kExtendedB, "2"}},
                        framework::QueueingHint::kQueueSkip},
        FitNodeHintCase{"QueueOnPodRequestedResourcesIncrease",
                        {{"memory", "2"}, {kExtendedA, "1"}},
                        std::map<std::string, std::string>{{"memory", "2"},
                                                           {kExtendedA, "1"}},
                        {{"memory", "2"}, {kExtendedA, "2"}},
                        framework::QueueingHint::kQueue},
        FitNodeHintCase{"SkipQueueOnNodeChangesFromSuitableToUnsuitable",
                        {{"memory", "2"}, {kExtendedA, "1"}},
                        std::map<std::string, std::string>{{"memory", "4"},
                                                           {kExtendedA, "2"}},
                        {{"memory", "1"}, {kExtendedA, "2"}},
                        framework::QueueingHint::kQueueSkip},
        FitNodeHintCase{"QueueOnNodeChangesFromUnsuitableToSuitable",
                        {{"memory", "2"}, {kExtendedA, "1"}},
                        std::map<std::string, std::string>{{"memory", "1"},
                                                           {kExtendedA, "2"}},
                        {{"memory", "4"}, {kExtendedA, "2"}},
                        framework::QueueingHint::kQueue}),
    [](const ::testing::TestParamInfo<FitNodeHintCase>& info) {
      return info.param.name;
    });

TEST(NodeResourcesFitTest, NameAndNoArgs) {
  testing::FakeHandle handle;
  auto p = NewNodeResourcesFit(nullptr, handle);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), "NodeResourcesFit");
  // No args behaves as kube's defaults: LeastAllocated on cpu and memory.
  const std::vector<api::Node> nodes = {
      CapacityNode("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
      CapacityNode("node2", {{"cpu", "6000"}, {"memory", "10000"}})};
  EXPECT_EQ(
      noderesources_test::ScoreAll(
          **p,
          noderesources_test::ReqPod({{{"cpu", "1000"}, {"memory", "2000"}},
                                      {{"cpu", "2000"}, {"memory", "3000"}}}),
          noderesources_test::BuildNodeInfos(nodes, {}), true),
      (std::vector<int64_t>{37, 50}));
}

// Bad args surface as factory errors with kube's field errors.
TEST(NodeResourcesFitTest, InvalidArgs) {
  struct Case {
    std::string name;
    config::NodeResourcesFitArgs args;
    std::string want;
  };
  auto with = [](auto mutate) {
    config::NodeResourcesFitArgs a = DefaultFitArgs();
    mutate(a);
    return a;
  };
  using A = config::NodeResourcesFitArgs;
  const Case cases[] = {
      {"resource with negative weight", with([](A& a) {
         a.scoring_strategy.resources = {{"memory", -1}, {"cpu", 1}};
       }),
       "scoringStrategy.resources[0].weight: Invalid value: -1: resource "
       "weight of memory not in valid range (0, 100]"},
      {"resource with zero weight", with([](A& a) {
         a.scoring_strategy.resources = {{"memory", 1}, {"cpu", 0}};
       }),
       "scoringStrategy.resources[1].weight: Invalid value: 0: resource "
       "weight of cpu not in valid range (0, 100]"},
      {"resource weight larger than MaxNodeScore", with([](A& a) {
         a.scoring_strategy.resources = {{"memory", 1}, {"cpu", 101}};
       }),
       "scoringStrategy.resources[1].weight: Invalid value: 101: resource "
       "weight of cpu not in valid range (0, 100]"},
      {"ignored resource group with a slash",
       with([](A& a) { a.ignored_resource_groups = {"example.com/aaa"}; }),
       "ignoredResourceGroups[0]: Invalid value: \"example.com/aaa\": "
       "resource group name can't contain '/'"},
      {"requested to capacity ratio without shape", with([](A& a) {
         a.scoring_strategy.type =
             config::ScoringStrategyType::kRequestedToCapacityRatio;
       }),
       "scoringStrategy.shape: Required value: at least one point must be "
       "specified"},
      {"shape out of order and out of range", with([](A& a) {
         a.scoring_strategy.type =
             config::ScoringStrategyType::kRequestedToCapacityRatio;
         a.scoring_strategy.shape = {{50, 5}, {10, 11}};
       }),
       "[scoringStrategy.shape[1].utilization: Invalid value: 10: values "
       "must be sorted in increasing order, scoringStrategy.shape[1].score: "
       "Invalid value: 11: not in valid range [0, 10]]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    testing::FakeHandle handle;
    auto p = NewNodeResourcesFit(&c.args, handle);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().message(), c.want);
  }
  // Args of another plugin are refused too.
  testing::FakeHandle handle;
  config::NodeResourcesBalancedAllocationArgs other;
  auto p = NewNodeResourcesFit(&other, handle);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(),
            "plugin NodeResourcesFit: pluginConfig args are of the wrong type");
}

// Filter runs on worker threads against one CycleState: every thread must
// see the same verdicts as a sequential run.
TEST(NodeResourcesFitTest, ConcurrentFilter) {
  std::vector<framework::NodeInfoPtr> nodes;
  for (int i = 0; i < 64; ++i) {
    api::Node node = FitNode(MakeResources(10, 20, 2 + i % 3, 5, 20, 5),
                             MakeResources(10, 20, 2 + i % 3, 5, 20, 5));
    node.metadata.name = "node" + std::to_string(i);
    std::vector<api::Pod> pods = {
        ResourcePod({{i % 11, i % 21, i % 7, {{kExtA, i % 6}}}}),
        ResourcePod({{i % 3, 0}})};
    nodes.push_back(testing::MakeNodeInfo(node, pods));
  }
  auto plugin = MakeFit(DefaultFitArgs());
  ASSERT_NE(plugin, nullptr);
  auto* pre = dynamic_cast<framework::PreFilterPlugin*>(plugin.get());
  const auto* filter =
      dynamic_cast<const framework::FilterPlugin*>(plugin.get());
  auto pod = framework::PodInfo::Create(
      std::make_shared<const api::Pod>(ResourcePod({{4, 8, 3, {{kExtA, 2}}}})));
  framework::CycleState state;
  framework::PreFilterResult result;
  ASSERT_TRUE(pre->PreFilter(state, *pod, nodes, &result).IsSuccess());

  std::vector<framework::Status> want;
  for (const auto& n : nodes) want.push_back(filter->Filter(state, *pod, *n));
  int rejected = 0;
  for (const auto& s : want) rejected += s.IsSuccess() ? 0 : 1;
  ASSERT_GT(rejected, 0);
  ASSERT_LT(rejected, static_cast<int>(nodes.size()));

  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round) {
        for (size_t i = 0; i < nodes.size(); ++i) {
          size_t k = (i + static_cast<size_t>(t) * 7) % nodes.size();
          if (!(filter->Filter(state, *pod, *nodes[k]) == want[k])) {
            ++mismatches;
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace ksched::plugins
