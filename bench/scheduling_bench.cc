// Scheduling-decision time per pod (PreFilter, Filter, PreScore, Score,
// host selection; no API, no binding) with ksched's default profile, on
// clusters of 500, 5,000 and 15,000 nodes holding ten pods each, for two
// workloads. The cluster goes through the scheduler's cache into a
// snapshot, as in `ksched run`, so pods are cached as the scheduler caches
// them and per-node answers can be memoised between decisions. Every
// decision is for the same pending pod against the same snapshot, as for
// the replicas of one workload between two cache changes. The workloads:
//   basic:  the pod and the cluster's pods request cpu and memory only;
//   spread: the pod spreads over zones (maxSkew 1, DoNotSchedule) and has
//           required anti-affinity on the hostname against its group, and
//           one pod in ten on every node has required anti-affinity of its
//           own (100 groups), so the symmetry check has work to do.
//
//   build/bench/scheduling_bench
//
// Google Benchmark reports the mean; the p50_us / p99_us counters are the
// median and 99th percentile of the individual decisions.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/cache/cache.h"
#include "pkg/config/config.h"
#include "pkg/framework/cycle_recorder.h"
#include "pkg/framework/parallelizer.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/algorithm.h"
#include "pkg/scheduler/profile.h"
#include "pkg/util/clock.h"
#include "pkg/util/random.h"

namespace ksched {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;

constexpr int kPodsPerNode = 10;
constexpr int kZones = 10;
constexpr int kGroups = 100;
constexpr char kHostname[] = "kubernetes.io/hostname";
constexpr char kZone[] = "topology.kubernetes.io/zone";

enum class Workload { kBasic, kSpread };

std::string Group(int g) { return "group-" + std::to_string(g); }

// Fills `cache` with the cluster.
bool MakeCluster(int nodes, Workload workload, cache::Cache& cache) {
  for (int i = 0; i < nodes; ++i) {
    std::string name = "node-" + std::to_string(i);
    const std::string zone = "zone-" + std::to_string(i % kZones);
    // The labels a cloud provider's nodes usually carry, so label lookups
    // cost what they cost in real clusters.
    cache.AddNode(std::make_shared<const api::Node>(
        NodeBuilder(name)
            .Label(kHostname, name)
            .Label(kZone, zone)
            .Label("topology.kubernetes.io/region", "region-1")
            .Label("failure-domain.beta.kubernetes.io/zone", zone)
            .Label("failure-domain.beta.kubernetes.io/region", "region-1")
            .Label("kubernetes.io/arch", "amd64")
            .Label("kubernetes.io/os", "linux")
            .Label("beta.kubernetes.io/arch", "amd64")
            .Label("beta.kubernetes.io/os", "linux")
            .Label("node.kubernetes.io/instance-type", "m5.8xlarge")
            .Label("beta.kubernetes.io/instance-type", "m5.8xlarge")
            .Label("node-pool", "general")
            .Capacity({{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}})
            .Obj()));
    for (int j = 0; j < kPodsPerNode; ++j) {
      PodBuilder pod("p-" + std::to_string(i) + "-" + std::to_string(j));
      pod.Uid("uid-" + std::to_string(i) + "-" + std::to_string(j))
          .Label("app", "app-" + std::to_string(j))
          .Node(name)
          .Req({{"cpu", "500m"}, {"memory", "1Gi"}});
      if (workload == Workload::kSpread && j == 0) {
        const std::string group = Group(i % kGroups);
        pod.Label("group", group)
            .PodAffinity(kHostname, "group", group,
                         /*anti=*/true);
      }
      // As the scheduler's pod handler adds a running pod.
      if (!cache
               .AddPod(framework::PodInfo::CreateBound(pod.Obj(),
                                                       &cache.label_sets()))
               .ok()) {
        return false;
      }
    }
  }
  return true;
}

framework::PodInfoPtr MakePod(Workload workload) {
  PodBuilder pod("new");
  pod.Uid("uid-new").Req({{"cpu", "250m"}, {"memory", "512Mi"}});
  if (workload == Workload::kSpread) {
    // A group that already has one pod on every hundredth node.
    const std::string group = Group(7);
    pod.Label("group", group)
        .SpreadConstraint(1, kZone,
                          api::UnsatisfiableConstraintAction::kDoNotSchedule,
                          "group", group)
        .PodAffinity(kHostname, "group", group, /*anti=*/true);
  }
  return pod.Info();
}

// `recorded`: every cycle carries a CycleRecorder, as `explain` runs it
// (all Filter plugins on every node, every verdict and score kept).
void RunSchedule(benchmark::State& state, Workload workload,
                 bool recorded = false) {
  const int nodes = static_cast<int>(state.range(0));
  util::RealClock clock;
  util::DefaultRandom random(1);
  config::KubeSchedulerConfiguration cfg = config::DefaultConfig();
  if (const char* p = std::getenv("KSCHED_BENCH_PARALLELISM")) {
    cfg.parallelism = std::atoi(p);
  }
  framework::Parallelizer parallelizer(cfg.parallelism);
  framework::Registry registry = plugins::NewInTreeRegistry();
  framework::Framework::Options options;
  options.parallelizer = &parallelizer;
  options.clock = &clock;
  auto profiles = scheduler::BuildProfiles(cfg, registry, options);
  if (!profiles.ok()) {
    state.SkipWithError(profiles.error().message().c_str());
    return;
  }
  framework::Framework& fwk = *profiles->begin()->second;
  cache::Cache cache(clock, std::chrono::seconds(30));
  framework::Snapshot snapshot;
  if (!MakeCluster(nodes, workload, cache) ||
      !cache.UpdateSnapshot(&snapshot).ok()) {
    state.SkipWithError("building the cluster failed");
    return;
  }
  fwk.SetSnapshot(&snapshot);
  scheduler::SchedulingAlgorithm algorithm(cfg.percentage_of_nodes_to_score,
                                           random);
  framework::PodInfoPtr pod = MakePod(workload);

  std::vector<double> micros;
  micros.reserve(1 << 16);
  int64_t failures = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    framework::CycleState cycle;
    std::optional<framework::CycleRecorder> recorder;
    if (recorded) cycle.set_recorder(&recorder.emplace());
    scheduler::ScheduleResult r =
        algorithm.Schedule(fwk, cycle, *pod, snapshot);
    benchmark::DoNotOptimize(r.suggested_host);
    micros.push_back(std::chrono::duration<double, std::micro>(
                         std::chrono::steady_clock::now() - start)
                         .count());
    failures += r.suggested_host.empty();
  }
  if (failures > 0) state.SkipWithError("the pod did not fit");
  std::sort(micros.begin(), micros.end());
  if (!micros.empty()) {
    state.counters["p50_us"] = micros[micros.size() / 2];
    state.counters["p99_us"] = micros[micros.size() * 99 / 100];
  }
  state.counters["nodes"] = nodes;
}

void BM_ScheduleBasicPod(benchmark::State& state) {
  RunSchedule(state, Workload::kBasic);
}
void BM_ScheduleSpreadAntiAffinityPod(benchmark::State& state) {
  RunSchedule(state, Workload::kSpread);
}
void BM_ScheduleBasicPodRecorded(benchmark::State& state) {
  RunSchedule(state, Workload::kBasic, /*recorded=*/true);
}
void BM_ScheduleSpreadAntiAffinityPodRecorded(benchmark::State& state) {
  RunSchedule(state, Workload::kSpread, /*recorded=*/true);
}

BENCHMARK(BM_ScheduleBasicPod)
    ->Arg(500)
    ->Arg(5000)
    ->Arg(15000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_ScheduleSpreadAntiAffinityPod)
    ->Arg(500)
    ->Arg(5000)
    ->Arg(15000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// What recording costs (explain, --record-failed-decisions).
BENCHMARK(BM_ScheduleBasicPodRecorded)
    ->Arg(500)
    ->Arg(5000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_ScheduleSpreadAntiAffinityPodRecorded)
    ->Arg(500)
    ->Arg(5000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace ksched

BENCHMARK_MAIN();
