#include "pkg/metrics/scheduler_metrics.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <atomic>
#include <initializer_list>
#include <string>
#include <thread>
#include <vector>

#include "pkg/framework/plugin_timings.h"

namespace ksched::metrics {
namespace {

// Each line appears in the registry's text exposition.
void ExpectExposes(prometheus::Registry& registry,
                   std::initializer_list<const char*> lines) {
  const std::string text =
      prometheus::TextSerializer().Serialize(registry.Collect());
  for (const char* line : lines) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
}

// v1.36's counter of pods bound after the periodic flush: exposed at 0
// from the start, one per such pod.
TEST(SchedulerMetricsTest, ScheduledAfterFlushCounts) {
  prometheus::Registry registry;
  SchedulerMetrics m(registry, /*async_preemption=*/true);
  ExpectExposes(registry,
                {"# TYPE scheduler_pod_scheduled_after_flush_total counter",
                 "\nscheduler_pod_scheduled_after_flush_total 0\n"});
  m.ObserveScheduledAfterFlush();
  m.ObserveScheduledAfterFlush();
  ExpectExposes(registry, {"\nscheduler_pod_scheduled_after_flush_total 2\n"});
}

// SchedulerAsyncPreemption's goroutine metrics: registered only with the
// gate, labelled with each run's result.
TEST(SchedulerMetricsTest, PreemptionGoroutinesOnlyWithAsyncPreemption) {
  prometheus::Registry registry;
  SchedulerMetrics m(registry, /*async_preemption=*/true);
  m.ObservePreemptionGoroutine("success", std::chrono::milliseconds(15));
  m.ObservePreemptionGoroutine("success", std::chrono::milliseconds(5));
  m.ObservePreemptionGoroutine("error", std::chrono::seconds(1));
  ExpectExposes(
      registry,
      {
          "# TYPE scheduler_preemption_goroutines_execution_total counter",
          R"(scheduler_preemption_goroutines_execution_total{result="success"} 2)",
          R"(scheduler_preemption_goroutines_execution_total{result="error"} 1)",
          "# TYPE scheduler_preemption_goroutines_duration_seconds histogram",
          R"(scheduler_preemption_goroutines_duration_seconds_bucket{result="success",le="0.01"} 1)",
          R"(scheduler_preemption_goroutines_duration_seconds_bucket{result="success",le="0.02"} 2)",
          R"(scheduler_preemption_goroutines_duration_seconds_count{result="error"} 1)",
      });

  prometheus::Registry v132;
  SchedulerMetrics off(v132, /*async_preemption=*/false);
  off.ObservePreemptionGoroutine("success", std::chrono::milliseconds(1));
  const std::string text =
      prometheus::TextSerializer().Serialize(v132.Collect());
  EXPECT_EQ(text.find("preemption_goroutines"), std::string::npos);
}

TEST(SchedulerMetricsTest, KubeSchedulersNamesLabelsAndBuckets) {
  EXPECT_EQ(ExponentialBuckets(0.001, 2, 3),
            (std::vector<double>{0.001, 0.002, 0.004}));
  prometheus::Registry registry;
  SchedulerMetrics m(registry);
  m.ObserveAttempt("scheduled", "ksched", 0.003);
  m.ObserveAttempt("scheduled", "ksched", 0.0005);
  m.ObserveAttempt("unschedulable", "ksched", 0.002);
  m.ObserveScheduled(2, 0.5);
  m.SetPendingPods(3, 2, 1, 0);
  m.SetCacheSize(5, 40, 1);
  m.ObservePreemptionAttempt();
  m.ObservePreemptionVictims(2);
  m.ObserveExtensionPoint("PreFilter", framework::Code::kSuccess, "ksched",
                          std::chrono::microseconds(150));
  m.ObservePlugin("NodeResourcesFit", "Filter", framework::Code::kUnschedulable,
                  std::chrono::microseconds(3));
  m.ObservePlugin("NodeResourcesFit", "Filter", framework::Code::kUnschedulable,
                  std::chrono::microseconds(4));
  ExpectExposes(
      registry,
      {
          "# TYPE scheduler_schedule_attempts_total counter",
          R"(scheduler_schedule_attempts_total{profile="ksched",result="scheduled"} 2)",
          R"(scheduler_schedule_attempts_total{profile="ksched",result="unschedulable"} 1)",
          "# TYPE scheduler_scheduling_attempt_duration_seconds histogram",
          R"(scheduler_scheduling_attempt_duration_seconds_bucket{profile="ksched",result="scheduled",le="0.001"} 1)",
          R"(scheduler_scheduling_attempt_duration_seconds_bucket{profile="ksched",result="scheduled",le="16.384"} 2)",
          R"(scheduler_pod_scheduling_sli_duration_seconds_count{attempts="2"} 1)",
          R"(scheduler_pod_scheduling_attempts_bucket{le="2"} 1)",
          R"(scheduler_pending_pods{queue="active"} 3)",
          R"(scheduler_pending_pods{queue="gated"} 0)",
          R"(scheduler_cache_size{type="assumed_pods"} 1)",
          "scheduler_preemption_attempts_total 1",
          R"(scheduler_preemption_victims_bucket{le="2"} 1)",
      });
}

// Help texts carry kube-scheduler v1.36's stability level as
// component-base prints it; the cache size has kube's name.
TEST(SchedulerMetricsTest, HelpTextsCarryKubesStabilityLevels) {
  prometheus::Registry registry;
  SchedulerMetrics m(registry);
  m.SetCacheSize(1, 2, 0);
  m.ObservePermitWait(framework::Code::kSuccess, std::chrono::milliseconds(3));
  m.ObserveAttempt("scheduled", "ksched", 0.01);
  m.ObserveScheduled(1, 0.01);
  ExpectExposes(
      registry,
      {
          "# HELP scheduler_schedule_attempts_total [STABLE] Number of "
          "attempts to schedule pods",
          "# HELP scheduler_pod_scheduling_sli_duration_seconds [BETA] E2e "
          "latency",
          "# HELP scheduler_cache_size [ALPHA] Number of nodes, pods, and "
          "assumed (bound) pods in the scheduler cache.",
          "# HELP scheduler_permit_wait_duration_seconds [BETA] Duration of "
          "waiting on permit.",
          R"(scheduler_cache_size{type="nodes"} 1)",
      });
}

// kube's WaitOnPermit: how long each wait at Permit took, by its result.
TEST(SchedulerMetricsTest, PermitWaitsByResult) {
  prometheus::Registry registry;
  SchedulerMetrics m(registry);
  m.ObservePermitWait(framework::Code::kSuccess, std::chrono::milliseconds(3));
  m.ObservePermitWait(framework::Code::kUnschedulable, std::chrono::seconds(5));
  ExpectExposes(
      registry,
      {
          "# TYPE scheduler_permit_wait_duration_seconds histogram",
          R"(scheduler_permit_wait_duration_seconds_bucket{result="Success",le="0.002"} 0)",
          R"(scheduler_permit_wait_duration_seconds_bucket{result="Success",le="0.004"} 1)",
          R"(scheduler_permit_wait_duration_seconds_bucket{result="Unschedulable",le="4.096"} 0)",
          R"(scheduler_permit_wait_duration_seconds_bucket{result="Unschedulable",le="8.192"} 1)",
          R"(scheduler_permit_wait_duration_seconds_count{result="Unschedulable"} 1)",
      });
}

// Durations observed together (a chunk's PluginTimings) land in the buckets
// and sum that observing them one by one gives, bounds included.
TEST(SchedulerMetricsTest, PluginDurationsObservedTogetherAsOneByOne) {
  std::vector<std::chrono::nanoseconds> durations;
  for (double seconds : {0.0, 0.000001, 0.00001, 0.000015, 0.0000151, 0.0001,
                         0.001, 0.01, 0.02, 0.5, 3.0}) {
    durations.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double>(seconds)));
  }
  prometheus::Registry one_by_one_registry, together_registry;
  SchedulerMetrics one_by_one(one_by_one_registry), together(together_registry);
  for (std::chrono::nanoseconds d : durations) {
    one_by_one.ObservePlugin("NodeAffinity", "Filter",
                             framework::Code::kUnschedulable, d);
  }
  together.ObservePlugins("NodeAffinity", "Filter",
                          framework::Code::kUnschedulable, durations);
  together.ObservePlugins("NodeAffinity", "Filter", framework::Code::kSuccess,
                          {});
  const std::string expected =
      prometheus::TextSerializer().Serialize(one_by_one_registry.Collect());
  EXPECT_NE(
      expected.find(
          R"(extension_point="Filter",plugin="NodeAffinity",status="Unschedulable",le="1.5e-05"} 4)"),
      std::string::npos)
      << expected;
  EXPECT_EQ(prometheus::TextSerializer().Serialize(together_registry.Collect()),
            expected);
}

// A chunk's timings reach the recorder grouped by plugin and status, under
// the names of the plugins' positions; the buffer is empty after.
TEST(SchedulerMetricsTest, PluginTimingsFlushOnceAPluginAndStatus) {
  struct Observed {
    std::string plugin;
    framework::Code code;
    size_t count;
  };
  struct Recorder : framework::MetricsRecorder {
    std::vector<Observed> observed;
    void ObserveExtensionPoint(std::string_view, framework::Code,
                               std::string_view,
                               std::chrono::nanoseconds) override {}
    void ObservePlugin(std::string_view, std::string_view, framework::Code,
                       std::chrono::nanoseconds) override {
      ADD_FAILURE() << "observed one by one";
    }
    void ObservePlugins(
        std::string_view plugin, std::string_view extension_point,
        framework::Code code,
        std::span<const std::chrono::nanoseconds> durations) override {
      EXPECT_EQ(extension_point, "Filter");
      observed.push_back({std::string(plugin), code, durations.size()});
    }
  } recorder;
  framework::PluginTimings timings;
  using framework::Code;
  const std::chrono::nanoseconds d(100);
  timings.Add(1, Code::kSuccess, d);
  timings.Add(0, Code::kSuccess, d);
  timings.Add(1, Code::kUnschedulable, d);
  timings.Add(1, Code::kSuccess, d);
  timings.Add(0, Code::kSuccess, d);
  const std::string_view names[] = {"NodeName", "TaintToleration"};
  timings.Flush(recorder, "Filter", names);
  EXPECT_TRUE(timings.empty());
  ASSERT_EQ(recorder.observed.size(), 3u);
  EXPECT_EQ(recorder.observed[0].plugin, "NodeName");
  EXPECT_EQ(recorder.observed[0].count, 2u);
  EXPECT_EQ(recorder.observed[1].plugin, "TaintToleration");
  EXPECT_EQ(recorder.observed[1].code, Code::kSuccess);
  EXPECT_EQ(recorder.observed[1].count, 2u);
  EXPECT_EQ(recorder.observed[2].code, Code::kUnschedulable);
  EXPECT_EQ(recorder.observed[2].count, 1u);
}

TEST(SchedulerMetricsTest, IncomingPodsAndUnschedulableReasons) {
  prometheus::Registry registry;
  SchedulerMetrics m(registry);
  m.ObserveIncomingPod("active", "UnscheduledPodAdd");
  m.ObserveIncomingPod("active", "UnscheduledPodAdd");
  m.ObserveIncomingPod("unschedulable", "ScheduleAttemptFailure");
  m.SetUnschedulablePods({{{"ksched", "NodeResourcesFit"}, 3},
                          {{"ksched", "TaintToleration"}, 1}});
  // NodeResourcesFit's pods were all retried: it reads 0, not 3.
  m.SetUnschedulablePods({{{"ksched", "TaintToleration"}, 2}});
  ExpectExposes(
      registry,
      {
          "# TYPE scheduler_queue_incoming_pods_total counter",
          R"(scheduler_queue_incoming_pods_total{event="UnscheduledPodAdd",queue="active"} 2)",
          R"(scheduler_queue_incoming_pods_total{event="ScheduleAttemptFailure",queue="unschedulable"} 1)",
          "# TYPE scheduler_unschedulable_pods gauge",
          R"(scheduler_unschedulable_pods{plugin="NodeResourcesFit",profile="ksched"} 0)",
          R"(scheduler_unschedulable_pods{plugin="TaintToleration",profile="ksched"} 2)",
      });
}

// The scheduling and binding threads observe while Prometheus scrapes:
// every observation is counted once.
TEST(SchedulerMetricsTest, ObservationsFromManyThreadsWhileScraped) {
  prometheus::Registry registry;
  SchedulerMetrics m(registry);
  std::atomic<bool> stop{false};
  std::thread scraper([&] {
    while (!stop.load()) {
      (void)prometheus::TextSerializer().Serialize(registry.Collect());
    }
  });
  std::vector<std::thread> observers;
  for (int t = 0; t < 4; ++t) {
    observers.emplace_back([&m, t] {
      for (int i = 0; i < 1000; ++i) {
        m.ObserveAttempt("scheduled", "ksched", 0.001);
        m.ObservePlugin("NodeResourcesFit", "Filter", framework::Code::kSuccess,
                        std::chrono::microseconds(i));
        m.SetCacheSize(t, i, 0);
      }
    });
  }
  for (auto& t : observers) t.join();
  stop = true;
  scraper.join();
  ExpectExposes(
      registry,
      {R"(scheduler_schedule_attempts_total{profile="ksched",result="scheduled"} 4000)"});
}

}  // namespace
}  // namespace ksched::metrics
