// A cluster that gives the HTML report something to show at scale: nodes
// of three sizes in ten zones, some with GPUs and a taint, some cordoned,
// filled to different levels by running pods; pending pods that fit, and
// pods that fit nowhere for a handful of reasons. The browser tests and
// the report benchmark draw it.
#pragma once

#include <string>

namespace ksched::bench {

struct ReportClusterShape {
  int nodes = 5000;
  int pending = 2000;  // small pods that fit somewhere
};

// One JSON List (as `kubectl get -o json` writes one).
std::string ReportClusterJson(const ReportClusterShape& shape);

// Pending pods the cluster has besides the small ones, each unschedulable:
// "huge-N" (Insufficient cpu), "gpu-N" (untolerated taint, Insufficient
// nvidia.com/gpu), "pinned-N" (a node selector no node matches).
inline constexpr int kReportHugePods = 60;
inline constexpr int kReportGpuPods = 30;
inline constexpr int kReportPinnedPods = 10;

}  // namespace ksched::bench
