// MetricsRecorder seam: how long extension points and plugins took, for
// kube-scheduler's scheduler_framework_extension_point_duration_seconds
// and scheduler_plugin_execution_duration_seconds. The framework times each
// extension point of a cycle, and each plugin call only in the cycles the
// scheduler samples (CycleState::record_plugin_metrics), as kube-scheduler
// does, so the per-node Filter calls stay cheap.
#pragma once

#include <chrono>
#include <span>
#include <string_view>

#include "pkg/framework/status.h"

namespace ksched::framework {

class MetricsRecorder {
 public:
  virtual ~MetricsRecorder() = default;
  virtual void ObserveExtensionPoint(std::string_view extension_point,
                                     Code status, std::string_view profile,
                                     std::chrono::nanoseconds duration) = 0;
  virtual void ObservePlugin(std::string_view plugin,
                             std::string_view extension_point, Code status,
                             std::chrono::nanoseconds duration) = 0;
  // Several calls of one plugin that ended with one status, observed at
  // once (PluginTimings).
  virtual void ObservePlugins(
      std::string_view plugin, std::string_view extension_point, Code status,
      std::span<const std::chrono::nanoseconds> durations) {
    for (std::chrono::nanoseconds d : durations) {
      ObservePlugin(plugin, extension_point, status, d);
    }
  }
  // A pod's wait at Permit ended with `result` after `duration`
  // (scheduler_permit_wait_duration_seconds).
  virtual void ObservePermitWait(Code result,
                                 std::chrono::nanoseconds duration) {
    (void)result;
    (void)duration;
  }
  // DefaultPreemption ran for a pod (scheduler_preemption_attempts_total),
  // and picked a node with this many victims (scheduler_preemption_victims).
  // DynamicResources waited in PreBind for a device's binding conditions
  // (scheduler_dra_bindingconditions_wait_duration_seconds, one
  // observation per allocated device), and an allocation with such devices
  // ended, per driver (scheduler_dra_bindingconditions_allocations_total);
  // status is success, failure, timeout or error.
  virtual void ObserveBindingConditionsWait(std::string_view profile,
                                            std::string_view driver,
                                            std::string_view status,
                                            std::chrono::nanoseconds wait) {
    (void)profile;
    (void)driver;
    (void)status;
    (void)wait;
  }
  virtual void CountBindingConditionsAllocation(std::string_view profile,
                                                std::string_view driver,
                                                std::string_view status) {
    (void)profile;
    (void)driver;
    (void)status;
  }
  // DynamicResources created a claim for a pod's extended resources,
  // "success" or "failure" (scheduler_resourceclaim_creates_total).
  virtual void CountResourceClaimCreate(std::string_view status) {
    (void)status;
  }
  virtual void ObservePreemptionAttempt() {}
  virtual void ObservePreemptionVictims(int victims) { (void)victims; }
  // An asynchronous preemption's background work ended, "success" or
  // "error", after `duration` (scheduler_preemption_goroutines_execution_total
  // and scheduler_preemption_goroutines_duration_seconds).
  virtual void ObservePreemptionGoroutine(std::string_view result,
                                          std::chrono::nanoseconds duration) {
    (void)result;
    (void)duration;
  }
  // Opportunistic batching: what became of a cycle's attempt to reuse the
  // last one (scheduler_batch_attempts_total: no_hint, hint_used,
  // hint_not_used), and why kept results were dropped
  // (scheduler_batch_cache_flushed_total).
  virtual void ObserveBatchAttempt(std::string_view profile,
                                   std::string_view result) {
    (void)profile;
    (void)result;
  }
  virtual void ObserveBatchFlush(std::string_view profile,
                                 std::string_view reason) {
    (void)profile;
    (void)reason;
  }
};

}  // namespace ksched::framework
