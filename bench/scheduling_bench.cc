// Scheduling-decision time per pod (PreFilter, Filter, PreScore, Score,
// host selection; no API, no binding) with ksched's default profile, for
// clusters of 500, 5,000 and 15,000 nodes holding ten pods each.
//
//   build/bench/scheduling_bench
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/config/config.h"
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

std::vector<framework::NodeInfoPtr> MakeCluster(int nodes, int pods_per_node) {
  std::vector<framework::NodeInfoPtr> infos;
  infos.reserve(nodes);
  for (int i = 0; i < nodes; ++i) {
    std::string name = "node-" + std::to_string(i);
    auto info = testing::MakeNodeInfo(
        NodeBuilder(name)
            .Label("kubernetes.io/hostname", name)
            .Label("topology.kubernetes.io/zone",
                   "zone-" + std::to_string(i % 10))
            .Capacity({{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}})
            .Obj());
    for (int j = 0; j < pods_per_node; ++j) {
      info->AddPod(
          PodBuilder("p-" + std::to_string(i) + "-" + std::to_string(j))
              .Label("app", "app-" + std::to_string(j))
              .Node(name)
              .Req({{"cpu", "500m"}, {"memory", "1Gi"}})
              .Info());
    }
    infos.push_back(std::move(info));
  }
  return infos;
}

void BM_ScheduleBasicPod(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  util::RealClock clock;
  util::DefaultRandom random(1);
  config::KubeSchedulerConfiguration cfg = config::DefaultConfig();
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
  framework::Snapshot snapshot(MakeCluster(nodes, 10));
  fwk.SetSnapshot(&snapshot);
  scheduler::SchedulingAlgorithm algorithm(cfg.percentage_of_nodes_to_score,
                                           random);
  auto pod =
      PodBuilder("new").Req({{"cpu", "250m"}, {"memory", "512Mi"}}).Info();
  for (auto _ : state) {
    framework::CycleState cycle;
    scheduler::ScheduleResult r =
        algorithm.Schedule(fwk, cycle, *pod, snapshot);
    benchmark::DoNotOptimize(r.suggested_host);
  }
  state.counters["nodes"] = nodes;
}
BENCHMARK(BM_ScheduleBasicPod)
    ->Arg(500)
    ->Arg(5000)
    ->Arg(15000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace ksched

BENCHMARK_MAIN();
