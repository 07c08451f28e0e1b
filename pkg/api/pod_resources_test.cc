#include "pkg/api/pod_resources.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace ksched::api {
namespace {

Container C(std::initializer_list<std::pair<std::string, std::string>> req,
            bool sidecar = false) {
  Container c;
  for (const auto& [k, v] : req)
    c.resources.requests.Set(k, *Quantity::Parse(v));
  if (sidecar) c.restart_policy = "Always";
  return c;
}

int64_t Cpu(const ResourceList& r) {
  const Quantity* q = r.Find("cpu");
  return q ? q->MilliValue() : 0;
}
int64_t Mem(const ResourceList& r) {
  const Quantity* q = r.Find("memory");
  return q ? q->Value() : 0;
}

// Cases after component-helpers' resource tests (TestPodRequests, the
// restartable init container cases) and the sidecar KEP's formula.
TEST(PodRequestsTest, MaxOfContainersAndInitContainersPlusOverhead) {
  struct Case {
    const char* name;
    std::vector<Container> init;
    std::vector<Container> containers;
    ResourceList overhead;
    int64_t cpu;
  } cases[] = {
      {"containers sum", {}, {C({{"cpu", "1"}}), C({{"cpu", "2"}})}, {}, 3000},
      {"init larger than the sum",
       {C({{"cpu", "4"}})},
       {C({{"cpu", "1"}}), C({{"cpu", "2"}})},
       {},
       4000},
      {"init smaller than the sum",
       {C({{"cpu", "2"}})},
       {C({{"cpu", "1"}}), C({{"cpu", "2"}})},
       {},
       3000},
      {"sidecar adds to the app containers",
       {C({{"cpu", "1"}}, true)},
       {C({{"cpu", "1"}})},
       {},
       2000},
      {"two sidecars",
       {C({{"cpu", "1"}}, true), C({{"cpu", "2"}}, true)},
       {C({{"cpu", "1"}})},
       {},
       4000},
      {"init runs beside the sidecars started before it",
       {C({{"cpu", "1"}}, true), C({{"cpu", "5"}}), C({{"cpu", "2"}}, true)},
       {C({{"cpu", "1"}})},
       {},
       6000},
      {"init before any sidecar runs alone",
       {C({{"cpu", "5"}}), C({{"cpu", "1"}}, true)},
       {C({{"cpu", "1"}})},
       {},
       5000},
      {"overhead on top",
       {},
       {C({{"cpu", "1"}})},
       ResourceList{{"cpu", *Quantity::Parse("250m")}},
       1250},
      {"no requests", {}, {C({})}, {}, 0},
  };
  for (const Case& c : cases) {
    Pod pod;
    pod.spec.init_containers = c.init;
    pod.spec.containers = c.containers;
    pod.spec.overhead = c.overhead;
    EXPECT_EQ(Cpu(PodRequests(pod, {})), c.cpu) << c.name;
  }
}

TEST(PodRequestsTest, OverheadCanBeExcluded) {
  Pod pod;
  pod.spec.containers = {C({{"cpu", "1"}})};
  pod.spec.overhead.Set("cpu", *Quantity::Parse("1"));
  EXPECT_EQ(Cpu(PodRequests(pod, {.exclude_overhead = true})), 1000);
  EXPECT_EQ(Cpu(PodRequests(pod, {})), 2000);
}

TEST(PodRequestsTest, NonZeroDefaultsApplyOnlyWhereARequestIsMissing) {
  Pod pod;
  pod.spec.containers = {C({}), C({{"cpu", "500m"}}),
                         C({{"cpu", "0"}, {"memory", "0"}})};
  ResourceList real = PodRequests(pod, {});
  EXPECT_EQ(Cpu(real), 500);
  EXPECT_EQ(Mem(real), 0);
  ResourceList non_zero = PodRequests(
      pod, {.non_missing_container_requests = NonZeroDefaultRequests()});
  // 100m (default) + 500m + 0 (explicit zero stays zero).
  EXPECT_EQ(Cpu(non_zero), 600);
  // 200Mi + 200Mi (second container has no memory) + 0.
  EXPECT_EQ(Mem(non_zero), 2 * kDefaultMemoryRequest);
}

ResourceList L(std::initializer_list<std::pair<std::string, std::string>> r) {
  ResourceList out;
  for (const auto& [k, v] : r) out.Set(k, *Quantity::Parse(v));
  return out;
}

Container Named(std::string name, ResourceList requests, bool sidecar = false) {
  Container c;
  c.name = std::move(name);
  c.resources.requests = std::move(requests);
  if (sidecar) c.restart_policy = "Always";
  return c;
}

// A status reporting what the kubelet applied and allocated.
ContainerStatus Status(std::string name, ResourceList applied,
                       ResourceList allocated = {}) {
  ContainerStatus s;
  s.name = std::move(name);
  s.resources.emplace().requests = std::move(applied);
  s.allocated_resources = std::move(allocated);
  return s;
}

PodCondition ResizePending(std::string reason) {
  PodCondition c;
  c.type = std::string(kPodResizePending);
  c.status = "True";
  c.reason = std::move(reason);
  return c;
}

// Exact comparison of two lists: same names, same values.
testing::AssertionResult SameList(const ResourceList& got,
                                  const ResourceList& want) {
  bool same = got.size() == want.size();
  for (const auto& [name, q] : want) {
    const Quantity* g = got.Find(name);
    if (g == nullptr || !(*g == q)) same = false;
  }
  if (same) return testing::AssertionSuccess();
  auto print = [](const ResourceList& l) {
    std::string out = "{";
    for (const auto& [name, q] : l) out += " " + name + ":" + q.ToString();
    return out + " }";
  };
  return testing::AssertionFailure()
         << "got " << print(got) << ", want " << print(want);
}

// TestPodResourceRequests (component-helpers, v1.35): the resize cases and
// the sidecar formula, with the options each case names.
TEST(PodRequestsTest, PodResourceRequests) {
  const PodResourcesOptions use_status{.use_status_resources = true};
  struct Case {
    std::string name;
    PodResourcesOptions options;
    ResourceList overhead;
    std::vector<PodCondition> conditions;
    std::vector<Container> init;
    std::vector<ContainerStatus> init_statuses;
    std::vector<Container> containers;
    std::vector<ContainerStatus> statuses;
    ResourceList want;
  };
  const Case cases[] = {
      {"nil options, larger init container",
       {},
       {},
       {},
       {Named("", L({{"cpu", "4"}}))},
       {},
       {Named("", L({{"cpu", "1"}}))},
       {},
       L({{"cpu", "4"}})},
      {"nil options, larger containers",
       {},
       {},
       {},
       {Named("", L({{"cpu", "2"}}))},
       {},
       {Named("", L({{"cpu", "2"}})), Named("", L({{"cpu", "3"}}))},
       {},
       L({{"cpu", "5"}})},
      {"pod overhead excluded",
       {.exclude_overhead = true},
       L({{"cpu", "1"}}),
       {},
       {Named("", L({{"cpu", "2"}}))},
       {},
       {Named("", L({{"cpu", "2"}})), Named("", L({{"cpu", "3"}}))},
       {},
       L({{"cpu", "5"}})},
      {"pod overhead included",
       {},
       L({{"cpu", "1"}, {"memory", "1Gi"}}),
       {},
       {Named("", L({{"cpu", "2"}}))},
       {},
       {Named("", L({{"cpu", "2"}})), Named("", L({{"cpu", "3"}}))},
       {},
       L({{"cpu", "6"}, {"memory", "1Gi"}})},
      {"resized, infeasible",
       use_status,
       {},
       {ResizePending("Infeasible")},
       {},
       {},
       {Named("container-1", L({{"cpu", "4"}}))},
       {Status("container-1", L({{"cpu", "2"}}))},
       L({{"cpu", "2"}})},
      {"resized, infeasible & in-progress",
       use_status,
       {},
       {ResizePending("Infeasible")},
       {},
       {},
       {Named("container-1", L({{"cpu", "6"}}))},
       {Status("container-1", L({{"cpu", "2"}}), L({{"cpu", "4"}}))},
       L({{"cpu", "4"}})},
      {"resized, no resize status",
       use_status,
       {},
       {},
       {},
       {},
       {Named("container-1", L({{"cpu", "4"}}))},
       {Status("container-1", L({{"cpu", "2"}}))},
       L({{"cpu", "4"}})},
      {"resized: per-resource 3-way maximum",
       use_status,
       {},
       {},
       {},
       {},
       {Named("container-1", L({{"cpu", "30m"},
                                {"memory", "20M"},
                                {"ephemeral-storage", "10G"}}))},
       {Status(
           "container-1",
           L({{"cpu", "10m"}, {"memory", "30M"}, {"ephemeral-storage", "20G"}}),
           L({{"cpu", "20m"},
              {"memory", "10M"},
              {"ephemeral-storage", "30G"}}))},
       L({{"cpu", "30m"}, {"memory", "30M"}, {"ephemeral-storage", "30G"}})},
      {"resized, infeasible, but don't use status",
       {},
       {},
       {ResizePending("Infeasible")},
       {},
       {},
       {Named("container-1", L({{"cpu", "4"}}))},
       {Status("container-1", L({{"cpu", "2"}}))},
       L({{"cpu", "4"}})},
      {"resized, restartable init container, infeasible",
       use_status,
       {},
       {ResizePending("Infeasible")},
       {Named("restartable-init-1", L({{"cpu", "4"}}), true)},
       {Status("restartable-init-1", L({{"cpu", "2"}}))},
       {},
       {},
       L({{"cpu", "2"}})},
      {"resized, restartable init container, no resize status",
       use_status,
       {},
       {},
       {Named("restartable-init-1", L({{"cpu", "4"}}), true)},
       {Status("restartable-init-1", L({{"cpu", "2"}}))},
       {},
       {},
       L({{"cpu", "4"}})},
      {"resized, restartable init container, infeasible, but don't use "
       "status",
       {},
       {},
       {ResizePending("Infeasible")},
       {Named("restartable-init-1", L({{"cpu", "4"}}), true)},
       {Status("restartable-init-1", L({{"cpu", "2"}}))},
       {},
       {},
       L({{"cpu", "4"}})},
      {"restartable init container",
       {},
       {},
       {},
       {Named("restartable-init-1", L({{"cpu", "1"}}), true)},
       {},
       {Named("container-1", L({{"cpu", "1"}}))},
       {},
       L({{"cpu", "2"}})},
      // max(5, restartable init containers (3+2+1) + regular (1)) = 7.
      {"multiple restartable init containers",
       {},
       {},
       {},
       {Named("init-1", L({{"cpu", "5"}})),
        Named("restartable-init-1", L({{"cpu", "1"}}), true),
        Named("restartable-init-2", L({{"cpu", "2"}}), true),
        Named("restartable-init-3", L({{"cpu", "3"}}), true)},
       {},
       {Named("container-1", L({{"cpu", "1"}}))},
       {},
       L({{"cpu", "7"}})},
      // init-2 runs beside the sidecars started before it: 5 + 1 + 2 = 8.
      {"multiple restartable and regular init containers",
       {},
       {},
       {},
       {Named("init-1", L({{"cpu", "5"}})),
        Named("restartable-init-1", L({{"cpu", "1"}}), true),
        Named("restartable-init-2", L({{"cpu", "2"}}), true),
        Named("init-2", L({{"cpu", "5"}})),
        Named("restartable-init-3", L({{"cpu", "3"}}), true)},
       {},
       {Named("container-1", L({{"cpu", "1"}}))},
       {},
       L({{"cpu", "8"}})},
      {"restartable-init, init and regular",
       {},
       {},
       {},
       {Named("restartable-init-1", L({{"cpu", "10"}}), true),
        Named("init-1", L({{"cpu", "200"}}))},
       {},
       {Named("container-1", L({{"cpu", "100"}}))},
       {},
       L({{"cpu", "210"}})},
      // A plain init container has finished before the pod runs: its status
      // is never read.
      {"resized status of a plain init container is not read",
       use_status,
       {},
       {},
       {Named("init-1", L({{"cpu", "1"}}))},
       {Status("init-1", L({{"cpu", "9"}}))},
       {Named("container-1", L({{"cpu", "2"}}))},
       {},
       L({{"cpu", "2"}})},
      // Without `resources` the status says nothing about the resize.
      {"allocated only, no applied resources: spec",
       use_status,
       {},
       {},
       {},
       {},
       {Named("container-1", L({{"cpu", "1"}}))},
       {[] {
         ContainerStatus s;
         s.name = "container-1";
         s.allocated_resources = L({{"cpu", "3"}});
         return s;
       }()},
       L({{"cpu", "1"}})},
      // Only the first PodResizePending condition counts.
      {"first resize condition decides",
       use_status,
       {},
       {ResizePending("Deferred"), ResizePending("Infeasible")},
       {},
       {},
       {Named("container-1", L({{"cpu", "4"}}))},
       {Status("container-1", L({{"cpu", "2"}}))},
       L({{"cpu", "4"}})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Pod pod;
    pod.spec.containers = c.containers;
    pod.spec.init_containers = c.init;
    pod.spec.overhead = c.overhead;
    pod.status.container_statuses = c.statuses;
    pod.status.init_container_statuses = c.init_statuses;
    pod.status.conditions = c.conditions;
    EXPECT_TRUE(SameList(PodRequests(pod, c.options), c.want));
  }
}

// TestPodLevelResourceRequests (component-helpers, v1.35).
TEST(PodRequestsTest, PodLevelResourceRequests) {
  const PodResourcesOptions skip{.skip_pod_level_resources = true};
  struct Case {
    std::string name;
    PodResourcesOptions options;
    std::optional<ResourceList> pod_requests;
    ResourceList pod_limits;
    std::vector<Container> init;
    std::vector<Container> containers;
    ResourceList want;
  };
  const Case cases[] = {
      {"nil", {}, std::nullopt, {}, {}, {}, {}},
      {"pod level memory resource with SkipPodLevelResources true",
       skip,
       L({{"memory", "2Mi"}}),
       {},
       {},
       {},
       {}},
      {"pod level memory resource with SkipPodLevelResources false",
       {},
       L({{"memory", "2Mi"}}),
       {},
       {},
       {},
       L({{"memory", "2Mi"}})},
      {"pod level memory and container level cpu resources",
       {},
       L({{"memory", "2Mi"}}),
       {},
       {},
       {Named("", L({{"cpu", "2m"}}))},
       L({{"memory", "2Mi"}, {"cpu", "2m"}})},
      {"pod level unsupported resources set at both pod-level and "
       "container-level",
       {},
       L({{"storage", "2Mi"}}),
       {},
       {},
       {Named("", L({{"storage", "3Mi"}}))},
       L({{"storage", "3Mi"}})},
      {"pod level unsupported resources set at pod-level",
       {},
       L({{"storage", "2Mi"}}),
       {},
       {},
       {Named("", L({{"memory", "3Mi"}}))},
       L({{"memory", "3Mi"}})},
      {"only container level resources set",
       {},
       std::nullopt,
       {},
       {},
       {Named("", L({{"memory", "3Mi"}, {"cpu", "2m"}}))},
       L({{"memory", "3Mi"}, {"cpu", "2m"}})},
      {"both container-level and pod-level resources set",
       {},
       L({{"memory", "6Mi"}, {"cpu", "8m"}}),
       {},
       {},
       {Named("", L({{"memory", "3Mi"}, {"cpu", "2m"}}))},
       L({{"memory", "6Mi"}, {"cpu", "8m"}})},
      {"container-level resources and init container set",
       {},
       std::nullopt,
       {},
       {Named("", L({{"memory", "5Mi"}, {"cpu", "4m"}}))},
       {Named("", L({{"memory", "3Mi"}, {"cpu", "2m"}}))},
       L({{"memory", "5Mi"}, {"cpu", "4m"}})},
      {"container-level resources and init container set, "
       "SkipPodLevelResources true",
       skip,
       std::nullopt,
       {},
       {Named("", L({{"memory", "5Mi"}, {"cpu", "4m"}}))},
       {Named("", L({{"memory", "3Mi"}, {"cpu", "2m"}}))},
       L({{"memory", "5Mi"}, {"cpu", "4m"}})},
      {"container-level resources and sidecar container set",
       {},
       std::nullopt,
       {},
       {Named("", L({{"memory", "5Mi"}, {"cpu", "4m"}}), true)},
       {Named("", L({{"memory", "3Mi"}, {"cpu", "2m"}}))},
       L({{"memory", "8Mi"}, {"cpu", "6m"}})},
      {"container-level resources, init and sidecar container set",
       {},
       std::nullopt,
       {},
       {Named("", L({{"memory", "5Mi"}, {"cpu", "4m"}}), true),
        Named("", L({{"memory", "6Mi"}, {"cpu", "8m"}}))},
       {Named("", L({{"memory", "3Mi"}, {"cpu", "2m"}}))},
       L({{"memory", "11Mi"}, {"cpu", "12m"}})},
      {"pod-level resources, container-level resources, init and sidecar "
       "container set",
       {},
       L({{"memory", "15Mi"}, {"cpu", "18m"}}),
       {},
       {Named("", L({{"memory", "5Mi"}, {"cpu", "4m"}}), true),
        Named("", L({{"memory", "6Mi"}, {"cpu", "8m"}}))},
       {Named("", L({{"memory", "3Mi"}, {"cpu", "2m"}}))},
       L({{"memory", "15Mi"}, {"cpu", "18m"}})},
      {"pod-level resources, hugepage request/limit single page size",
       {},
       L({{"memory", "10Mi"}, {"hugepages-2Mi", "2Mi"}}),
       L({{"hugepages-2Mi", "2Mi"}}),
       {},
       {},
       L({{"memory", "10Mi"}, {"hugepages-2Mi", "2Mi"}})},
      {"pod-level resources, hugepage request/limit multiple page sizes",
       {},
       L({{"cpu", "1"}, {"hugepages-2Mi", "2Mi"}, {"hugepages-1Gi", "1Gi"}}),
       L({{"hugepages-2Mi", "2Mi"}, {"hugepages-1Gi", "1Gi"}}),
       {},
       {},
       L({{"cpu", "1"}, {"hugepages-2Mi", "2Mi"}, {"hugepages-1Gi", "1Gi"}})},
      {"pod-level resources, container-level resources, hugepage "
       "request/limit single page size",
       {},
       L({{"cpu", "1"}, {"hugepages-2Mi", "10Mi"}}),
       L({{"hugepages-2Mi", "10Mi"}}),
       {},
       {Named("", L({{"hugepages-2Mi", "6Mi"}}))},
       L({{"cpu", "1"}, {"hugepages-2Mi", "10Mi"}})},
      {"pod-level resources, container-level resources, hugepage "
       "request/limit multiple page sizes",
       {},
       L({{"cpu", "1"}, {"hugepages-2Mi", "10Mi"}, {"hugepages-1Gi", "2Gi"}}),
       L({{"hugepages-2Mi", "10Mi"}, {"hugepages-1Gi", "2Gi"}}),
       {},
       {Named("", L({{"cpu", "1"}, {"hugepages-1Gi", "2Gi"}}))},
       L({{"cpu", "1"}, {"hugepages-2Mi", "10Mi"}, {"hugepages-1Gi", "2Gi"}})},
      {"pod-level resources, container-level resources, hugepage "
       "request/limit multiple page sizes between pod-level and "
       "container-level",
       {},
       L({{"cpu", "1"}, {"hugepages-2Mi", "10Mi"}}),
       L({{"hugepages-2Mi", "10Mi"}}),
       {},
       {Named("", L({{"memory", "4Mi"}, {"hugepages-1Gi", "1Gi"}}))},
       L({{"cpu", "1"},
          {"memory", "4Mi"},
          {"hugepages-2Mi", "10Mi"},
          {"hugepages-1Gi", "1Gi"}})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Pod pod;
    pod.spec.containers = c.containers;
    pod.spec.init_containers = c.init;
    if (c.pod_requests || !c.pod_limits.empty()) {
      pod.spec.resources.emplace();
      if (c.pod_requests) pod.spec.resources->requests = *c.pod_requests;
      pod.spec.resources->limits = c.pod_limits;
    }
    EXPECT_TRUE(SameList(PodRequests(pod, c.options), c.want));
  }
}

// Pod-level requests with the pod's overhead: the overhead is added to the
// pod-level value, as to the containers' sum.
TEST(PodRequestsTest, PodLevelRequestsPlusOverhead) {
  Pod pod;
  pod.spec.containers = {Named("app", L({{"cpu", "250m"}}))};
  pod.spec.resources.emplace().requests = L({{"cpu", "2"}, {"memory", "2Gi"}});
  pod.spec.overhead = L({{"cpu", "100m"}, {"memory", "64Mi"}});
  EXPECT_TRUE(SameList(PodRequests(pod, {}),
                       L({{"cpu", "2100m"}, {"memory", "2112Mi"}})));
  EXPECT_TRUE(SameList(PodRequests(pod, {.exclude_overhead = true}),
                       L({{"cpu", "2"}, {"memory", "2Gi"}})));
}

// InPlacePodLevelResourcesVerticalScaling: the pod-level requests follow
// the same rule as a container's, once the kubelet reports them.
TEST(PodRequestsTest, PodLevelStatusResources) {
  Pod pod;
  pod.spec.containers = {Named("c1", L({{"cpu", "500m"}}))};
  pod.spec.resources.emplace().requests =
      L({{"cpu", "700m"}, {"memory", "500M"}});
  pod.status.resources.emplace().requests =
      L({{"cpu", "900m"}, {"memory", "400M"}});
  pod.status.allocated_resources = L({{"memory", "600M"}});
  const PodResourcesOptions both{
      .use_status_resources = true,
      .in_place_pod_level_resources_vertical_scaling = true};
  EXPECT_TRUE(SameList(PodRequests(pod, both),
                       L({{"cpu", "900m"}, {"memory", "600M"}})));
  // Either switch off: the spec.
  EXPECT_TRUE(SameList(PodRequests(pod, {.use_status_resources = true}),
                       L({{"cpu", "700m"}, {"memory", "500M"}})));
  // Infeasible: what runs and what was allocated, a resource neither
  // names reads as zero.
  pod.status.conditions = {ResizePending("Infeasible")};
  pod.status.resources->requests = L({{"cpu", "600m"}});
  pod.status.allocated_resources = {};
  EXPECT_TRUE(
      SameList(PodRequests(pod, both), L({{"cpu", "600m"}, {"memory", "0"}})));
}

TEST(PodRequestsTest, IsPodLevelRequestsSet) {
  Pod pod;
  EXPECT_FALSE(IsPodLevelRequestsSet(pod));
  pod.spec.resources.emplace();
  EXPECT_FALSE(IsPodLevelRequestsSet(pod));
  pod.spec.resources->limits = L({{"cpu", "1"}});
  EXPECT_FALSE(IsPodLevelRequestsSet(pod));
  pod.spec.resources->requests = L({{"ephemeral-storage", "1Mi"}});
  EXPECT_FALSE(IsPodLevelRequestsSet(pod));
  pod.spec.resources->requests.Set("cpu", *Quantity::Parse("1m"));
  EXPECT_TRUE(IsPodLevelRequestsSet(pod));
}

TEST(PodRequestsTest, IsSupportedPodLevelResource) {
  EXPECT_TRUE(IsSupportedPodLevelResource("cpu"));
  EXPECT_TRUE(IsSupportedPodLevelResource("memory"));
  EXPECT_FALSE(IsSupportedPodLevelResource("ephemeral-storage"));
  EXPECT_TRUE(IsSupportedPodLevelResource("hugepages-2Mi"));
  EXPECT_TRUE(IsSupportedPodLevelResource("hugepages-1Gi"));
  EXPECT_FALSE(IsSupportedPodLevelResource("nvidia.com/gpu"));
}

TEST(PodRequestsTest, ExtendedResourcesAreSummedToo) {
  Pod pod;
  pod.spec.containers = {C({{"nvidia.com/gpu", "1"}}),
                         C({{"nvidia.com/gpu", "2"}})};
  pod.spec.init_containers = {C({{"nvidia.com/gpu", "4"}})};
  ResourceList r = PodRequests(pod, {});
  EXPECT_EQ(r.Find("nvidia.com/gpu")->Value(), 4);
}

}  // namespace
}  // namespace ksched::api
