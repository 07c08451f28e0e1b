// KschedMetrics: what ksched adds to kube-scheduler's metrics, under the
// ksched_ prefix: API requests by verb, resource and code with their
// latency, binding latency and outcome, informer restarts, and the
// extender's requests (families built from ExtenderServer::Stats). And
// client-go's leader_election_master_status, which kube-scheduler exports
// under that name.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::metrics {

class KschedMetrics {
 public:
  explicit KschedMetrics(prometheus::Registry& registry);

  // code 0: no answer (connection error, timeout), labelled "<error>" as
  // client-go labels it.
  void ObserveApiRequest(std::string_view verb, std::string_view resource,
                         int code, double seconds);
  // result: "bound" or "error".
  // `source`: "scheduler" or "extender".
  void ObserveBinding(std::string_view result, std::string_view source,
                      double seconds);
  // restart: "relist", "rewatch" or "failure".
  void ObserveInformerRestart(std::string_view informer,
                              std::string_view restart);
  // leader_election_master_status{name=<lease name>}: 1 while this process
  // holds the lease, 0 while it waits (client-go sets it so, once the
  // elector exists). Absent with leader election off, as in
  // kube-scheduler.
  void SetLeader(std::string_view lease, bool leading);

 private:
  prometheus::Family<prometheus::Counter>& api_requests_;
  prometheus::Family<prometheus::Histogram>& api_duration_;
  prometheus::Family<prometheus::Counter>& bindings_;
  prometheus::Family<prometheus::Histogram>& binding_duration_;
  prometheus::Family<prometheus::Counter>& informer_restarts_;
  prometheus::Family<prometheus::Gauge>& leader_;
};

// A histogram given as cumulative bucket counts (one per bound, then the
// total) and a sum, per label set.
struct HistogramSnapshot {
  std::map<std::string, std::string> labels;
  std::vector<double> bounds;
  std::vector<int64_t> cumulative;  // bounds.size() + 1 entries
  double sum = 0;
};
// The text-exposition families of a counter and a histogram collected
// elsewhere (the extender server keeps its own counts).
prometheus::MetricFamily CounterFamily(
    const std::string& name, const std::string& help,
    const std::vector<std::pair<std::map<std::string, std::string>, double>>&
        values);
prometheus::MetricFamily HistogramFamily(
    const std::string& name, const std::string& help,
    const std::vector<HistogramSnapshot>& histograms);

}  // namespace ksched::metrics
