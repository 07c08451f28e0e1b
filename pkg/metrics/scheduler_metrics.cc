#include "pkg/metrics/scheduler_metrics.h"

#include <algorithm>
#include <string>

namespace ksched::metrics {
namespace {

// Bounds of the histograms that take labels, made once: Family::Add reads
// them only when a label set first appears.
const std::vector<double>& AttemptBuckets() {
  static const std::vector<double> bounds = ExponentialBuckets(0.001, 2, 15);
  return bounds;
}
const std::vector<double>& ExtensionPointBuckets() {
  static const std::vector<double> bounds = ExponentialBuckets(0.0001, 2, 12);
  return bounds;
}
const std::vector<double>& PluginBuckets() {
  static const std::vector<double> bounds =
      ExponentialBuckets(0.00001, 1.5, 20);
  return bounds;
}
const std::vector<double>& PermitWaitBuckets() {
  static const std::vector<double> bounds = ExponentialBuckets(0.001, 2, 15);
  return bounds;
}
const std::vector<double>& BindingConditionsBuckets() {
  static const std::vector<double> bounds = ExponentialBuckets(0.1, 2, 14);
  return bounds;
}
const std::vector<double>& SliBuckets() {
  static const std::vector<double> bounds = ExponentialBuckets(0.01, 2, 20);
  return bounds;
}

}  // namespace

std::string Annotated(Stability level, std::string_view help) {
  std::string_view name = "ALPHA";
  if (level == Stability::kBeta) name = "BETA";
  if (level == Stability::kStable) name = "STABLE";
  return "[" + std::string(name) + "] " + std::string(help);
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> bounds;
  double bound = start;
  for (int i = 0; i < count; ++i) {
    bounds.push_back(bound);
    bound *= factor;
  }
  return bounds;
}

// Help texts as kube-scheduler words them.
SchedulerMetrics::SchedulerMetrics(prometheus::Registry& registry,
                                   bool async_preemption)
    : attempts_(prometheus::BuildCounter()
                    .Name("scheduler_schedule_attempts_total")
                    .Help(Annotated(
                        Stability::kStable,
                        "Number of attempts to schedule pods, by the result. "
                        "'unschedulable' means a pod could not be scheduled, "
                        "while 'error' means an internal scheduler problem."))
                    .Register(registry)),
      attempt_duration_(
          prometheus::BuildHistogram()
              .Name("scheduler_scheduling_attempt_duration_seconds")
              .Help(
                  Annotated(Stability::kStable,
                            "Scheduling attempt latency in seconds (scheduling "
                            "algorithm + binding)"))
              .Register(registry)),
      sli_duration_(
          prometheus::BuildHistogram()
              .Name("scheduler_pod_scheduling_sli_duration_seconds")
              .Help(Annotated(
                  Stability::kBeta,
                  "E2e latency for a pod being scheduled, from the time the "
                  "pod enters the scheduling queue and might involve "
                  "multiple scheduling attempts."))
              .Register(registry)),
      pod_attempts_(
          prometheus::BuildHistogram()
              .Name("scheduler_pod_scheduling_attempts")
              .Help(Annotated(Stability::kStable,
                              "Number of attempts to successfully schedule a "
                              "pod."))
              .Register(registry)
              .Add({}, ExponentialBuckets(1, 2, 5))),
      scheduled_after_flush_(
          prometheus::BuildCounter()
              .Name("scheduler_pod_scheduled_after_flush_total")
              .Help(Annotated(
                  Stability::kAlpha,
                  "Number of pods that were successfully scheduled after "
                  "being flushed from unschedulablePods due to timeout. "
                  "This metric helps detect potential queueing hint "
                  "misconfigurations or event handling issues."))
              .Register(registry)
              .Add({})),
      pending_(prometheus::BuildGauge()
                   .Name("scheduler_pending_pods")
                   .Help(Annotated(
                       Stability::kStable,
                       "Number of pending pods, by the queue type. 'active' "
                       "means number of pods in activeQ; 'backoff' means "
                       "number of pods in backoffQ; 'unschedulable' means "
                       "number of pods in unschedulablePods that the "
                       "scheduler attempted to schedule and failed; 'gated' "
                       "is the number of unschedulable pods that the "
                       "scheduler never attempted to schedule because they "
                       "are gated."))
                   .Register(registry)),
      cache_size_(
          prometheus::BuildGauge()
              .Name("scheduler_cache_size")
              .Help(Annotated(Stability::kAlpha,
                              "Number of nodes, pods, and assumed (bound) pods "
                              "in the scheduler cache."))
              .Register(registry)),
      incoming_(prometheus::BuildCounter()
                    .Name("scheduler_queue_incoming_pods_total")
                    .Help(Annotated(
                        Stability::kStable,
                        "Number of pods added to scheduling queues by event "
                        "and queue type."))
                    .Register(registry)),
      unschedulable_(
          prometheus::BuildGauge()
              .Name("scheduler_unschedulable_pods")
              .Help(Annotated(
                  Stability::kBeta,
                  "The number of unschedulable pods broken down by plugin "
                  "name. A pod will increment the gauge for all plugins "
                  "that caused it to not schedule and so this metric have "
                  "meaning only when broken down by plugin."))
              .Register(registry)),
      preemption_attempts_(
          prometheus::BuildCounter()
              .Name("scheduler_preemption_attempts_total")
              .Help(Annotated(
                  Stability::kStable,
                  "Total preemption attempts in the cluster till now"))
              .Register(registry)
              .Add({})),
      preemption_victims_(
          prometheus::BuildHistogram()
              .Name("scheduler_preemption_victims")
              .Help(Annotated(Stability::kStable,
                              "Number of selected preemption victims"))
              .Register(registry)
              .Add({}, ExponentialBuckets(1, 2, 7))),
      batch_attempts_(
          prometheus::BuildCounter()
              .Name("scheduler_batch_attempts_total")
              .Help(Annotated(
                  Stability::kAlpha,
                  "Counts of results when we attempt to use batching."))
              .Register(registry)),
      batch_flushes_(prometheus::BuildCounter()
                         .Name("scheduler_batch_cache_flushed_total")
                         .Help(Annotated(Stability::kAlpha,
                                         "Counts of cache flushes by reason."))
                         .Register(registry)),
      extension_point_duration_(
          prometheus::BuildHistogram()
              .Name("scheduler_framework_extension_point_duration_seconds")
              .Help(Annotated(
                  Stability::kStable,
                  "Latency for running all plugins of a specific extension "
                  "point."))
              .Register(registry)),
      plugin_duration_(
          prometheus::BuildHistogram()
              .Name("scheduler_plugin_execution_duration_seconds")
              .Help(Annotated(
                  Stability::kAlpha,
                  "Duration for running a plugin at a specific extension "
                  "point."))
              .Register(registry)),
      permit_wait_(prometheus::BuildHistogram()
                       .Name("scheduler_permit_wait_duration_seconds")
                       .Help(Annotated(Stability::kBeta,
                                       "Duration of waiting on permit."))
                       .Register(registry)),
      binding_conditions_allocations_(
          prometheus::BuildCounter()
              .Name("scheduler_dra_bindingconditions_allocations_total")
              .Help(Annotated(Stability::kAlpha,
                              "Number of allocations using devices with "
                              "BindingConditions, counted per driver per "
                              "scheduling attempt"))
              .Register(registry)),
      binding_conditions_wait_(
          prometheus::BuildHistogram()
              .Name("scheduler_dra_bindingconditions_wait_duration_seconds")
              .Help(Annotated(Stability::kAlpha,
                              "Time in seconds spent waiting for "
                              "BindingConditions to be satisfied during "
                              "PreBind."))
              .Register(registry)),
      resourceclaim_creates_(
          prometheus::BuildCounter()
              .Name("scheduler_resourceclaim_creates_total")
              .Help(Annotated(Stability::kAlpha,
                              "Number of ResourceClaims creation requests "
                              "within scheduler"))
              .Register(registry)) {
  if (async_preemption) {
    preemption_goroutines_ =
        &prometheus::BuildCounter()
             .Name("scheduler_preemption_goroutines_execution_total")
             .Help(Annotated(Stability::kAlpha,
                             "Number of preemption goroutines executed."))
             .Register(registry);
    preemption_goroutine_duration_ =
        &prometheus::BuildHistogram()
             .Name("scheduler_preemption_goroutines_duration_seconds")
             .Help(
                 Annotated(Stability::kAlpha,
                           "Duration in seconds for running goroutines for the "
                           "preemption."))
             .Register(registry);
  }
}

void SchedulerMetrics::ObservePreemptionGoroutine(
    std::string_view result, std::chrono::nanoseconds duration) {
  if (preemption_goroutines_ == nullptr) return;
  // The result as the work ended. (kube's deferred calls read `result` as
  // the goroutine starts, so kube itself reports every run as a success
  // lasting no time; ksched reports what happened.)
  const prometheus::Labels labels{{"result", std::string(result)}};
  preemption_goroutines_->Add(labels).Increment();
  static const std::vector<double> kBounds = ExponentialBuckets(0.01, 2, 20);
  preemption_goroutine_duration_->Add(labels, kBounds)
      .Observe(std::chrono::duration<double>(duration).count());
}

void SchedulerMetrics::ObserveExtensionPoint(
    std::string_view extension_point, framework::Code status,
    std::string_view profile, std::chrono::nanoseconds duration) {
  extension_point_duration_
      .Add({{"extension_point", std::string(extension_point)},
            {"status", std::string(framework::CodeName(status))},
            {"profile", std::string(profile)}},
           ExtensionPointBuckets())
      .Observe(std::chrono::duration<double>(duration).count());
}

prometheus::Histogram& SchedulerMetrics::PluginHistogram(
    std::string_view plugin, std::string_view extension_point,
    framework::Code status) {
  const std::string_view code = framework::CodeName(status);
  std::string key;
  key.reserve(plugin.size() + extension_point.size() + code.size() + 2);
  key.append(plugin)
      .append("/")
      .append(extension_point)
      .append("/")
      .append(code);
  std::lock_guard lock(plugin_mu_);
  auto it = plugin_cache_.find(key);
  if (it != plugin_cache_.end()) return *it->second;
  prometheus::Histogram* histogram =
      &plugin_duration_.Add({{"plugin", std::string(plugin)},
                             {"extension_point", std::string(extension_point)},
                             {"status", std::string(code)}},
                            PluginBuckets());
  plugin_cache_.emplace(std::move(key), histogram);
  return *histogram;
}

void SchedulerMetrics::ObservePlugin(std::string_view plugin,
                                     std::string_view extension_point,
                                     framework::Code status,
                                     std::chrono::nanoseconds duration) {
  PluginHistogram(plugin, extension_point, status)
      .Observe(std::chrono::duration<double>(duration).count());
}

void SchedulerMetrics::ObservePlugins(
    std::string_view plugin, std::string_view extension_point,
    framework::Code status,
    std::span<const std::chrono::nanoseconds> durations) {
  if (durations.empty()) return;
  // Sorted into the buckets here as Observe would (the first bound at or
  // above the value; past the last, +Inf), then added under one lock.
  const std::vector<double>& bounds = PluginBuckets();
  std::vector<double> increments(bounds.size() + 1, 0.0);
  double sum = 0;
  for (std::chrono::nanoseconds d : durations) {
    const double seconds = std::chrono::duration<double>(d).count();
    const auto bucket = std::lower_bound(bounds.begin(), bounds.end(), seconds);
    increments[static_cast<size_t>(bucket - bounds.begin())] += 1;
    sum += seconds;
  }
  PluginHistogram(plugin, extension_point, status)
      .ObserveMultiple(increments, sum);
}

void SchedulerMetrics::ObserveAttempt(std::string_view result,
                                      std::string_view profile,
                                      double seconds) {
  const prometheus::Labels labels{{"result", std::string(result)},
                                  {"profile", std::string(profile)}};
  attempts_.Add(labels).Increment();
  attempt_duration_.Add(labels, AttemptBuckets()).Observe(seconds);
}

void SchedulerMetrics::ObserveScheduledAfterFlush() {
  scheduled_after_flush_.Increment();
}

void SchedulerMetrics::ObserveScheduled(int attempts, double seconds) {
  sli_duration_.Add({{"attempts", std::to_string(attempts)}}, SliBuckets())
      .Observe(seconds);
  pod_attempts_.Observe(attempts);
}

void SchedulerMetrics::SetPendingPods(int64_t active, int64_t backoff,
                                      int64_t unschedulable, int64_t gated) {
  pending_.Add({{"queue", "active"}}).Set(static_cast<double>(active));
  pending_.Add({{"queue", "backoff"}}).Set(static_cast<double>(backoff));
  pending_.Add({{"queue", "unschedulable"}})
      .Set(static_cast<double>(unschedulable));
  pending_.Add({{"queue", "gated"}}).Set(static_cast<double>(gated));
}

void SchedulerMetrics::SetCacheSize(int64_t nodes, int64_t pods,
                                    int64_t assumed_pods) {
  cache_size_.Add({{"type", "nodes"}}).Set(static_cast<double>(nodes));
  cache_size_.Add({{"type", "pods"}}).Set(static_cast<double>(pods));
  cache_size_.Add({{"type", "assumed_pods"}})
      .Set(static_cast<double>(assumed_pods));
}

void SchedulerMetrics::ObserveIncomingPod(std::string_view queue,
                                          std::string_view event) {
  std::string key;
  key.reserve(queue.size() + event.size() + 1);
  key.append(queue).append("/").append(event);
  prometheus::Counter* counter = nullptr;
  {
    std::lock_guard lock(incoming_mu_);
    auto it = incoming_cache_.find(key);
    if (it == incoming_cache_.end()) {
      counter = &incoming_.Add(
          {{"queue", std::string(queue)}, {"event", std::string(event)}});
      incoming_cache_.emplace(std::move(key), counter);
    } else {
      counter = it->second;
    }
  }
  counter->Increment();
}

void SchedulerMetrics::SetUnschedulablePods(const ReasonCounts& counts) {
  std::lock_guard lock(unschedulable_mu_);
  for (auto& [key, gauge] : unschedulable_series_) {
    if (counts.count(key) == 0) gauge->Set(0);
  }
  for (const auto& [key, pods] : counts) {
    auto it = unschedulable_series_.find(key);
    if (it == unschedulable_series_.end()) {
      prometheus::Gauge* gauge =
          &unschedulable_.Add({{"profile", key.first}, {"plugin", key.second}});
      it = unschedulable_series_.emplace(key, gauge).first;
    }
    it->second->Set(static_cast<double>(pods));
  }
}

void SchedulerMetrics::ObservePermitWait(framework::Code result,
                                         std::chrono::nanoseconds duration) {
  permit_wait_
      .Add({{"result", std::string(framework::CodeName(result))}},
           PermitWaitBuckets())
      .Observe(std::chrono::duration<double>(duration).count());
}

void SchedulerMetrics::ObserveBindingConditionsWait(
    std::string_view profile, std::string_view driver, std::string_view status,
    std::chrono::nanoseconds wait) {
  binding_conditions_wait_
      .Add({{"profile", std::string(profile)},
            {"driver", std::string(driver)},
            {"status", std::string(status)}},
           BindingConditionsBuckets())
      .Observe(std::chrono::duration<double>(wait).count());
}

void SchedulerMetrics::CountBindingConditionsAllocation(
    std::string_view profile, std::string_view driver,
    std::string_view status) {
  binding_conditions_allocations_
      .Add({{"profile", std::string(profile)},
            {"driver", std::string(driver)},
            {"status", std::string(status)}})
      .Increment();
}

void SchedulerMetrics::CountResourceClaimCreate(std::string_view status) {
  resourceclaim_creates_.Add({{"status", std::string(status)}}).Increment();
}

void SchedulerMetrics::ObservePreemptionAttempt() {
  preemption_attempts_.Increment();
}

void SchedulerMetrics::ObserveBatchAttempt(std::string_view profile,
                                           std::string_view result) {
  batch_attempts_
      .Add({{"profile", std::string(profile)}, {"result", std::string(result)}})
      .Increment();
}

void SchedulerMetrics::ObserveBatchFlush(std::string_view profile,
                                         std::string_view reason) {
  batch_flushes_
      .Add({{"profile", std::string(profile)}, {"reason", std::string(reason)}})
      .Increment();
}

void SchedulerMetrics::ObservePreemptionVictims(int victims) {
  preemption_victims_.Observe(victims);
}

}  // namespace ksched::metrics
