// Memory of the scheduler cache: 5,000 nodes and 50,000 assigned pods, each
// decoded from JSON as the informers decode them (the pod body is one a
// real kube-apiserver returned, given a name, labels and a node of its
// own), added to the cache as the scheduler's pod handler adds an assigned
// pod (the facts PodInfo::CreateBound keeps), and a snapshot taken as the first
// scheduling cycle would.
//
//   build/bench/cache_memory_bench
//
// Counters: bytes_per_pod is the growth of the resident set while the pods
// were added and snapshotted, divided by their number; peak_rss_mib is the
// process's high-water mark (VmHWM) at the end.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/api/node.h"
#include "pkg/api/pod.h"
#include "pkg/cache/cache.h"
#include "pkg/framework/pod_info.h"
#include "pkg/framework/snapshot.h"
#include "pkg/framework/testing/wrappers.h"
#include "pkg/util/fake_clock.h"

namespace ksched {
namespace {

constexpr int kNodes = 5000;
constexpr int kPods = 50000;

// Kibibytes of a /proc/self/status line such as "VmRSS:  1234 kB".
int64_t StatusKiB(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      return std::stoll(line.substr(field.size() + 1));
    }
  }
  return -1;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The recorded pod, renamed, labelled and placed, as JSON: what a LIST of a
// real cluster's Deployment pods looks like, one object at a time.
std::string PodJson(const api::Pod& tmpl, int i) {
  api::Pod pod = tmpl;
  const std::string app = "web-" + std::to_string(i % 500);
  pod.metadata.name = app + "-7c9f8d6b5-" + std::to_string(i);
  pod.metadata.uid =
      "0c9f" + std::to_string(1000000 + i) + "-5e4f-4321-8765-0fedcba98765";
  pod.metadata.labels.Set("app", app);
  pod.metadata.labels.Set("pod-template-hash", "7c9f8d6b5");
  pod.spec.node_name = "node-" + std::to_string(i % kNodes);
  return api::EncodeJson(pod);
}

void BM_CacheMemory(benchmark::State& state) {
  auto tmpl = api::DecodeJson<api::Pod>(
      ReadFile(std::string(KSCHED_SHARED_DIR) +
               "/apiserver/real_kube_scheduler_bound_pod.json"));
  if (!tmpl.ok()) {
    state.SkipWithError(
        ("recorded pod under ../shared/apiserver: " + tmpl.error().message())
            .c_str());
    return;
  }
  for (auto _ : state) {
    util::FakeClock clock;
    cache::Cache cache(clock, std::chrono::minutes(15));
    for (int i = 0; i < kNodes; ++i) {
      std::string name = "node-" + std::to_string(i);
      cache.AddNode(std::make_shared<const api::Node>(
          testing::NodeBuilder(name)
              .Label("kubernetes.io/hostname", name)
              .Label("topology.kubernetes.io/zone",
                     "zone-" + std::to_string(i % 10))
              .Capacity({{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}})
              .Obj()));
    }
    framework::Snapshot snapshot;
    (void)cache.UpdateSnapshot(&snapshot);
    malloc_trim(0);
    const int64_t before = StatusKiB("VmRSS");

    for (int i = 0; i < kPods; ++i) {
      auto pod = api::DecodeJson<api::Pod>(PodJson(*tmpl, i));
      if (!pod.ok()) {
        state.SkipWithError(pod.error().message().c_str());
        return;
      }
      // As the scheduler's pod handler adds an assigned pod.
      auto added = cache.AddPod(
          framework::PodInfo::CreateBound(*pod, &cache.label_sets()));
      if (!added.ok()) {
        state.SkipWithError(added.error().message().c_str());
        return;
      }
    }
    (void)cache.UpdateSnapshot(&snapshot);
    malloc_trim(0);
    const int64_t after = StatusKiB("VmRSS");
    state.counters["bytes_per_pod"] =
        static_cast<double>(after - before) * 1024.0 / kPods;
    state.counters["peak_rss_mib"] = StatusKiB("VmHWM") / 1024.0;
    state.counters["pods"] = kPods;
    state.counters["nodes"] = kNodes;
  }
}
BENCHMARK(BM_CacheMemory)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ksched

BENCHMARK_MAIN();
