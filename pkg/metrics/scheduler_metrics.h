// SchedulerMetrics: kube-scheduler's metrics (pkg/scheduler/metrics), with
// the same names, types, labels and buckets, so dashboards and alerts
// written for kube-scheduler read ksched unchanged.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace ksched::metrics {

// Prometheus' exponential buckets: start, start*factor, ... (count bounds).
std::vector<double> ExponentialBuckets(double start, double factor, int count);

class SchedulerMetrics {
 public:
  explicit SchedulerMetrics(prometheus::Registry& registry);

  // One scheduling attempt ended: result is "scheduled", "unschedulable" or
  // "error" (scheduler_schedule_attempts_total,
  // scheduler_scheduling_attempt_duration_seconds).
  void ObserveAttempt(std::string_view result, std::string_view profile,
                      double seconds);
  // A pod was bound after `attempts` attempts, `seconds` after it first
  // entered the queue (scheduler_pod_scheduling_sli_duration_seconds,
  // scheduler_pod_scheduling_attempts).
  void ObserveScheduled(int attempts, double seconds);
  // scheduler_pending_pods{queue}.
  void SetPendingPods(int64_t active, int64_t backoff, int64_t unschedulable,
                      int64_t gated);
  // scheduler_scheduler_cache_size{type}.
  void SetCacheSize(int64_t nodes, int64_t pods, int64_t assumed_pods);
  // A preemption ran and picked `victims` pods
  // (scheduler_preemption_attempts_total, scheduler_preemption_victims).
  void ObservePreemption(int victims);

 private:
  prometheus::Family<prometheus::Counter>& attempts_;
  prometheus::Family<prometheus::Histogram>& attempt_duration_;
  prometheus::Family<prometheus::Histogram>& sli_duration_;
  prometheus::Histogram& pod_attempts_;
  prometheus::Family<prometheus::Gauge>& pending_;
  prometheus::Family<prometheus::Gauge>& cache_size_;
  prometheus::Counter& preemption_attempts_;
  prometheus::Histogram& preemption_victims_;
};

}  // namespace ksched::metrics
