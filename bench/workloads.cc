#include "bench/workloads.h"

#include "test/apiserver/test_objects.h"

namespace ksched::bench {
namespace {

constexpr int kZones = 10;
constexpr int kAntiAffinityGroups = 100;
constexpr int kSpreadGroups = 20;

std::string GroupLabel(int group) {
  return R"("group":"group-)" + std::to_string(group) + "\"";
}

std::string GroupSelector(int group) {
  return R"({"matchLabels":{)" + GroupLabel(group) + "}}";
}

}  // namespace

std::optional<Workload> ParseWorkload(std::string_view name) {
  if (name == "basic") return Workload::kBasic;
  if (name == "anti-affinity") return Workload::kAntiAffinity;
  if (name == "spread") return Workload::kSpread;
  return std::nullopt;
}

std::string_view WorkloadName(Workload workload) {
  switch (workload) {
    case Workload::kBasic:
      return "basic";
    case Workload::kAntiAffinity:
      return "anti-affinity";
    case Workload::kSpread:
      return "spread";
  }
  return "";
}

int DefaultPods(Workload workload) {
  switch (workload) {
    case Workload::kBasic:
      return 10000;
    case Workload::kAntiAffinity:
      return 3000;
    case Workload::kSpread:
      return 5000;
  }
  return 0;
}

std::string NodeJson(int i) {
  const std::string name = "node-" + std::to_string(i);
  return testing::NodeJson(
      {.name = name,
       .cpu = "32",
       .memory = "128Gi",
       .labels = R"("kubernetes.io/hostname":")" + name +
                 R"(","topology.kubernetes.io/zone":"zone-)" +
                 std::to_string(i % kZones) + "\""});
}

std::string PendingPodJson(Workload workload, int i,
                           const std::string& scheduler) {
  // scheduler_perf's pod-default requests.
  testing::PodFixture pod{.name = "pod-" + std::to_string(i),
                          .cpu = "100m",
                          .memory = "500Mi",
                          .scheduler = scheduler};
  switch (workload) {
    case Workload::kBasic:
      break;
    case Workload::kAntiAffinity: {
      const int group = i % kAntiAffinityGroups;
      pod.labels = GroupLabel(group);
      pod.extra_spec =
          R"("affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":)" +
          GroupSelector(group) +
          R"(,"topologyKey":"kubernetes.io/hostname"}]}})";
      break;
    }
    case Workload::kSpread: {
      const int group = i % kSpreadGroups;
      pod.labels = GroupLabel(group);
      pod.extra_spec =
          R"("topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":)" +
          GroupSelector(group) + "}]";
      break;
    }
  }
  return testing::PodJson(pod);
}

std::string RunningPodJson(int i, const std::string& node) {
  return testing::PodJson({.name = "running-" + std::to_string(i),
                           .cpu = "100m",
                           .memory = "500Mi",
                           .labels = R"("app":"running")",
                           .extra_spec = R"("nodeName":")" + node + "\""});
}

}  // namespace ksched::bench
