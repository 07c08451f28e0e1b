// The three cluster shapes of the end-to-end benchmarks, after
// scheduler_perf's SchedulingBasic, SchedulingPodAntiAffinity and
// TopologySpreading: nodes with 32 CPU and 128 Gi in ten zones, and pods
// as the API server would receive them from a user.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ksched::bench {

enum class Workload {
  kBasic,         // requests only
  kAntiAffinity,  // required anti-affinity on the hostname within its group
  kSpread,        // zone spread, maxSkew 1, DoNotSchedule, within its group
};

std::optional<Workload> ParseWorkload(std::string_view name);
std::string_view WorkloadName(Workload workload);

// The pods each workload schedules by default (as in the design notes).
int DefaultPods(Workload workload);

// Node i: hostname and zone labels (zone-<i % 10>), Ready.
std::string NodeJson(int i);

// Pending pod i of `workload` for `scheduler`.
std::string PendingPodJson(Workload workload, int i,
                           const std::string& scheduler);

// A pod already running on `node` (requests only), as a cluster has before
// the scheduler starts: what the informers list at start-up.
std::string RunningPodJson(int i, const std::string& node);

}  // namespace ksched::bench
