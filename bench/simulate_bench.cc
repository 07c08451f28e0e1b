// `ksched simulate` in-process on the workloads of workloads.h: the
// scheduling loop, plugins, cache and queue with no API server, so the
// figures are the scheduler's own cost per pod.
//
//   simulate_bench [--workload basic|anti-affinity|spread|dra|dra-partitions
//                   |gpu-cluster] [--nodes N]
//                  [--pods N] [--running-pods N] [--write FILE]
//                  [--memo on|off] [--node-shape CPU,MEMORY,ZONES[,POOLS]]
//
// dra is scheduler_perf's SchedulingWithResourceClaimTemplate (500 nodes of
// 10 devices and 5,000 pods by default): simulate makes each pod's claim
// from the template as the resourceclaim controller would, then allocates
// it. gpu-cluster is a GPU cluster of 5,000 nodes, one in five with 8 GPUs
// (h100 or a100), and 2,000 pods claiming 1, 2, 4 or 8 GPUs (4:3:2:1)
// through templates, half of them h100 only; it runs only when asked for.
// Other workloads default to 5,000 nodes.
// For each workload (all four by default) it prints the time to parse the
// cluster (a JSON List, as `kubectl get -o json` writes one), the time to
// load the nodes into the scheduler (a simulation with no pending pod) and
// the time to schedule the pods, with pods/s net of the load.
// --running-pods adds pods already bound (100m, 500Mi, round-robin over the
// nodes), the bulk of a large cluster's start-up. --write saves
// the cluster file instead, for `ksched simulate --cluster FILE` under a
// profiler. --memo off schedules without keeping node-local answers across
// cycles (scheduler/node_result_memo.h), for a before/after on one build.
// --node-shape sets the nodes' capacity and zones (default 32,128Gi,10;
// 16,64Gi,50 is a large cloud cluster's), and with a fourth number how
// many node pools their node-pool label spreads them over.
// It prints figures; it asserts nothing.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/workloads.h"
#include "pkg/config/config.h"
#include "pkg/config/feature_gates.h"
#include "pkg/plugins/registry.h"
#include "pkg/simulator/cluster.h"
#include "pkg/simulator/simulator.h"

namespace {

using Clock = std::chrono::steady_clock;
using ksched::bench::Workload;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::string ClusterJson(Workload workload, int nodes, int pods, int running,
                        const ksched::bench::NodeShape& shape) {
  std::string json = R"({"apiVersion":"v1","kind":"List","items":[)";
  for (int i = 0; i < nodes; ++i) {
    if (i > 0) json += ",";
    json += ksched::bench::NodeJson(i, shape);
  }
  for (int i = 0; i < running; ++i) {
    json += ",";
    json +=
        ksched::bench::RunningPodJson(i, "node-" + std::to_string(i % nodes));
  }
  if (ksched::bench::IsDra(workload)) {
    for (const std::string& object :
         ksched::bench::DeviceObjectsJson(workload)) {
      json += "," + object;
    }
    for (int i = 0; i < nodes; ++i) {
      for (const std::string& slice :
           ksched::bench::ResourceSlicesJson(workload, i)) {
        json += "," + slice;
      }
    }
  }
  for (int i = 0; i < pods; ++i) {
    json += ",";
    json += ksched::bench::PendingPodJson(workload, i, "ksched");
  }
  return json + "]}";
}

// Runs one simulation; returns the pods scheduled, or nullopt on error.
std::optional<int> Run(const ksched::simulator::Cluster& cluster,
                       const ksched::framework::Registry& registry,
                       const ksched::simulator::SimulationOptions& options) {
  auto result = ksched::simulator::Simulate(
      cluster, ksched::config::DefaultConfig(), registry, options);
  if (!result.ok()) {
    std::cerr << "simulate: " << result.error().message() << "\n";
    return std::nullopt;
  }
  int scheduled = 0;
  for (const auto& pod : result->pods) scheduled += pod.node.has_value();
  return scheduled;
}

int Bench(Workload workload, int nodes, int pods, int running,
          const ksched::bench::NodeShape& shape,
          const ksched::simulator::SimulationOptions& options) {
  const ksched::framework::Registry registry =
      ksched::plugins::NewInTreeRegistry();
  const std::string json = ClusterJson(workload, nodes, pods, running, shape);
  Clock::time_point t0 = Clock::now();
  auto cluster = ksched::simulator::ParseCluster(json);
  const double parse_s = Seconds(Clock::now() - t0);
  if (!cluster.ok()) {
    std::cerr << "parse: " << cluster.error().message() << "\n";
    return 1;
  }
  // The load: nodes and running pods, nothing pending.
  ksched::simulator::Cluster nodes_only = *cluster;
  std::erase_if(nodes_only.pods,
                [](const auto& pod) { return pod.spec.node_name.empty(); });
  t0 = Clock::now();
  if (!Run(nodes_only, registry, options)) return 1;
  const double load_s = Seconds(Clock::now() - t0);

  const double cpu0 = CpuSeconds();
  t0 = Clock::now();
  const std::optional<int> scheduled = Run(*cluster, registry, options);
  const double total_s = Seconds(Clock::now() - t0);
  const double cpu_s = CpuSeconds() - cpu0;
  if (!scheduled) return 1;
  const double schedule_s = std::max(1e-9, total_s - load_s);
  std::printf(
      "%-13s nodes=%d running=%d pods=%d scheduled=%d | parse %.2f s (%.1f "
      "MB) | load %.2f s | schedule %.2f s -> %.0f pods/s, %.0f us CPU per "
      "pod\n",
      std::string(ksched::bench::WorkloadName(workload)).c_str(), nodes,
      running, pods, *scheduled, parse_s, json.size() / 1e6, load_s, schedule_s,
      pods / schedule_s, (cpu_s / total_s) * schedule_s * 1e6 / pods);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) {
      std::cerr << "flag " << argv[i] << " needs a value\n";
      return 2;
    }
    flags[argv[i]] = argv[i + 1];
  }
  std::vector<Workload> workloads = {Workload::kBasic, Workload::kAntiAffinity,
                                     Workload::kSpread, Workload::kDra,
                                     Workload::kDraPartitions};
  std::optional<int> nodes_flag;
  std::optional<int> pods;
  int running = 0;
  std::string write;
  ksched::bench::NodeShape shape;
  ksched::simulator::SimulationOptions options;
  for (const auto& [flag, value] : flags) {
    if (flag == "--workload") {
      auto w = ksched::bench::ParseWorkload(value);
      if (!w) {
        std::cerr << "unknown workload " << value << "\n";
        return 2;
      }
      workloads = {*w};
    } else if (flag == "--nodes") {
      nodes_flag = std::stoi(value);
    } else if (flag == "--pods") {
      pods = std::stoi(value);
    } else if (flag == "--running-pods") {
      running = std::stoi(value);
    } else if (flag == "--write") {
      write = value;
    } else if (flag == "--memo") {
      if (value != "on" && value != "off") {
        std::cerr << "--memo must be on or off\n";
        return 2;
      }
      options.memoize_node_results = value == "on";
    } else if (flag == "--node-shape") {
      auto parsed = ksched::bench::ParseNodeShape(value);
      if (!parsed) {
        std::cerr
            << "--node-shape is CPU,MEMORY,ZONES[,POOLS] (e.g. 16,64Gi,50 "
               "or 16,64Gi,50,20)\n";
        return 2;
      }
      shape = *parsed;
    } else if (flag == "--feature-gates") {
      auto gates = ksched::config::FeatureGates::Parse("", value, nullptr);
      if (!gates.ok()) {
        std::cerr << "--feature-gates: " << gates.error().message() << "\n";
        return 2;
      }
      options.features = *gates;
    } else {
      std::cerr << "unknown flag " << flag << "\n";
      return 2;
    }
  }
  if (!write.empty()) {
    if (workloads.size() != 1) {
      std::cerr << "--write needs --workload\n";
      return 2;
    }
    const int nodes =
        nodes_flag.value_or(ksched::bench::DefaultNodes(workloads[0]));
    std::ofstream out(write);
    out << ClusterJson(workloads[0], nodes,
                       pods.value_or(ksched::bench::DefaultPods(workloads[0])),
                       running, shape);
    return out ? 0 : 1;
  }
  for (Workload w : workloads) {
    const int nodes = nodes_flag.value_or(ksched::bench::DefaultNodes(w));
    if (int rc = Bench(w, nodes, pods.value_or(ksched::bench::DefaultPods(w)),
                       running, shape, options);
        rc != 0) {
      return rc;
    }
  }
  return 0;
}
