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
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/framework/metrics_recorder.h"

namespace ksched::metrics {

// Prometheus' exponential buckets: start, start*factor, ... (count bounds).
std::vector<double> ExponentialBuckets(double start, double factor, int count);

// A kube metric's stability level, which component-base prints at the
// head of its help text ("[STABLE] Number of ..."). ksched's metrics take
// kube-scheduler v1.36's levels.
enum class Stability { kAlpha, kBeta, kStable };
std::string Annotated(Stability level, std::string_view help);

class SchedulerMetrics final : public framework::MetricsRecorder {
 public:
  // `async_preemption`: SchedulerAsyncPreemption is on, which registers the
  // preemption goroutine metrics, as kube registers them only then.
  explicit SchedulerMetrics(prometheus::Registry& registry,
                            bool async_preemption = true);

  // scheduler_framework_extension_point_duration_seconds and (sampled)
  // scheduler_plugin_execution_duration_seconds.
  void ObserveExtensionPoint(std::string_view extension_point,
                             framework::Code status, std::string_view profile,
                             std::chrono::nanoseconds duration) override;
  void ObservePlugin(std::string_view plugin, std::string_view extension_point,
                     framework::Code status,
                     std::chrono::nanoseconds duration) override;
  void ObservePlugins(
      std::string_view plugin, std::string_view extension_point,
      framework::Code status,
      std::span<const std::chrono::nanoseconds> durations) override;

  // One scheduling attempt ended: result is "scheduled", "unschedulable" or
  // "error" (scheduler_schedule_attempts_total,
  // scheduler_scheduling_attempt_duration_seconds).
  void ObserveAttempt(std::string_view result, std::string_view profile,
                      double seconds);
  // A pod was bound after `attempts` attempts, `seconds` after it first
  // entered the queue (scheduler_pod_scheduling_sli_duration_seconds,
  // scheduler_pod_scheduling_attempts).
  void ObserveScheduled(int attempts, double seconds);
  // scheduler_pod_scheduled_after_flush_total (v1.36): a pod bound after
  // the periodic flush moved it out of the unschedulable pods.
  void ObserveScheduledAfterFlush();
  // scheduler_pending_pods{queue}.
  void SetPendingPods(int64_t active, int64_t backoff, int64_t unschedulable,
                      int64_t gated);
  // scheduler_queue_incoming_pods_total{queue,event}: one move into a
  // queue. Called under the scheduling queue's lock, so it looks the
  // counter up in a small cache rather than hashing labels each time.
  void ObserveIncomingPod(std::string_view queue, std::string_view event);
  // scheduler_unschedulable_pods{plugin,profile}, from a count taken now:
  // (profile, plugin) -> pods. Series absent from `counts` drop to 0.
  using ReasonCounts = std::map<std::pair<std::string, std::string>, int64_t>;
  void SetUnschedulablePods(const ReasonCounts& counts);
  // scheduler_cache_size{type}.
  void SetCacheSize(int64_t nodes, int64_t pods, int64_t assumed_pods);
  // scheduler_preemption_attempts_total and scheduler_preemption_victims.
  void ObservePermitWait(framework::Code result,
                         std::chrono::nanoseconds duration) override;
  // scheduler_dra_bindingconditions_wait_duration_seconds and
  // scheduler_dra_bindingconditions_allocations_total{profile,driver,status}.
  void ObserveBindingConditionsWait(std::string_view profile,
                                    std::string_view driver,
                                    std::string_view status,
                                    std::chrono::nanoseconds wait) override;
  void CountBindingConditionsAllocation(std::string_view profile,
                                        std::string_view driver,
                                        std::string_view status) override;
  // scheduler_resourceclaim_creates_total{status}.
  void CountResourceClaimCreate(std::string_view status) override;
  void ObservePreemptionAttempt() override;
  void ObservePreemptionVictims(int victims) override;
  // scheduler_preemption_goroutines_execution_total{result} and
  // scheduler_preemption_goroutines_duration_seconds{result}.
  void ObservePreemptionGoroutine(std::string_view result,
                                  std::chrono::nanoseconds duration) override;
  // scheduler_batch_attempts_total{profile,result} and
  // scheduler_batch_cache_flushed_total{profile,reason}.
  void ObserveBatchAttempt(std::string_view profile,
                           std::string_view result) override;
  void ObserveBatchFlush(std::string_view profile,
                         std::string_view reason) override;

 private:
  prometheus::Family<prometheus::Counter>& attempts_;
  prometheus::Family<prometheus::Histogram>& attempt_duration_;
  prometheus::Family<prometheus::Histogram>& sli_duration_;
  prometheus::Histogram& pod_attempts_;
  prometheus::Counter& scheduled_after_flush_;
  prometheus::Family<prometheus::Gauge>& pending_;
  prometheus::Family<prometheus::Gauge>& cache_size_;
  prometheus::Family<prometheus::Counter>& incoming_;
  prometheus::Family<prometheus::Gauge>& unschedulable_;
  prometheus::Counter& preemption_attempts_;
  prometheus::Histogram& preemption_victims_;
  // Null unless asynchronous preemption is on.
  prometheus::Family<prometheus::Counter>* preemption_goroutines_ = nullptr;
  prometheus::Family<prometheus::Histogram>* preemption_goroutine_duration_ =
      nullptr;
  prometheus::Family<prometheus::Counter>& batch_attempts_;
  prometheus::Family<prometheus::Counter>& batch_flushes_;
  prometheus::Family<prometheus::Histogram>& extension_point_duration_;
  prometheus::Family<prometheus::Histogram>& plugin_duration_;
  prometheus::Family<prometheus::Histogram>& permit_wait_;
  prometheus::Family<prometheus::Counter>& binding_conditions_allocations_;
  prometheus::Family<prometheus::Histogram>& binding_conditions_wait_;
  prometheus::Family<prometheus::Counter>& resourceclaim_creates_;
  // Plugin histograms by label set, so the sampled per-node Filter calls
  // look one up under a short lock instead of hashing labels each time.
  // The series of one plugin, extension point and status, made on first
  // use.
  prometheus::Histogram& PluginHistogram(std::string_view plugin,
                                         std::string_view extension_point,
                                         framework::Code status);
  std::mutex plugin_mu_;
  std::map<std::string, prometheus::Histogram*, std::less<>> plugin_cache_;
  std::mutex incoming_mu_;
  std::map<std::string, prometheus::Counter*, std::less<>> incoming_cache_;
  // Every (profile, plugin) reported so far, so a count that fell to zero
  // reads 0 rather than its last value.
  std::mutex unschedulable_mu_;
  std::map<std::pair<std::string, std::string>, prometheus::Gauge*>
      unschedulable_series_;
};

}  // namespace ksched::metrics
