#include "pkg/api/pod_resources.h"

#include <gtest/gtest.h>

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
