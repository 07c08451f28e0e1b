#include "pkg/metrics/ksched_metrics.h"

#include <limits>

#include "pkg/metrics/scheduler_metrics.h"

namespace ksched::metrics {
namespace {

const std::vector<double>& LatencyBuckets() {
  static const std::vector<double> bounds = ExponentialBuckets(0.001, 2, 15);
  return bounds;
}

std::vector<prometheus::ClientMetric::Label> Labels(
    const std::map<std::string, std::string>& labels) {
  std::vector<prometheus::ClientMetric::Label> out;
  for (const auto& [name, value] : labels) out.push_back({name, value});
  return out;
}

}  // namespace

KschedMetrics::KschedMetrics(prometheus::Registry& registry)
    : api_requests_(prometheus::BuildCounter()
                        .Name("ksched_api_requests_total")
                        .Help("Requests to the API server, by verb (HTTP "
                              "method), resource and HTTP code; retries "
                              "count each.")
                        .Register(registry)),
      api_duration_(prometheus::BuildHistogram()
                        .Name("ksched_api_request_duration_seconds")
                        .Help("API request latency in seconds (for watches, "
                              "until the answer's headers), by verb and "
                              "resource.")
                        .Register(registry)),
      bindings_(prometheus::BuildCounter()
                    .Name("ksched_bindings_total")
                    .Help("Binding POSTs, by result and by source: "
                          "scheduler (ksched's own scheduling loop) or "
                          "extender (the extender API's bind verb).")
                    .Register(registry)),
      binding_duration_(prometheus::BuildHistogram()
                            .Name("ksched_binding_duration_seconds")
                            .Help("Time to bind a pod (the Binding POST, "
                                  "retries included), by result and source.")
                            .Register(registry)),
      informer_restarts_(prometheus::BuildCounter()
                             .Name("ksched_informer_restarts_total")
                             .Help("Informer watches resumed (rewatch), "
                                   "relists after expired resource versions "
                                   "(relist) and failed lists or watches "
                                   "(failure), by informer.")
                             .Register(registry)),
      leader_(prometheus::BuildGauge()
                  .Name("leader_election_master_status")
                  .Help(Annotated(
                      Stability::kAlpha,
                      "Gauge of if the reporting system is master of the "
                      "relevant lease, 0 indicates backup, 1 indicates "
                      "master. 'name' is the string used to identify the "
                      "lease. Please make sure to group by name."))
                  .Register(registry)) {}

void KschedMetrics::SetLeader(std::string_view lease, bool leading) {
  leader_.Add({{"name", std::string(lease)}}).Set(leading ? 1 : 0);
}

void KschedMetrics::ObserveApiRequest(std::string_view verb,
                                      std::string_view resource, int code,
                                      double seconds) {
  api_requests_
      .Add({{"verb", std::string(verb)},
            {"resource", std::string(resource)},
            {"code", code == 0 ? "<error>" : std::to_string(code)}})
      .Increment();
  api_duration_
      .Add({{"verb", std::string(verb)}, {"resource", std::string(resource)}},
           LatencyBuckets())
      .Observe(seconds);
}

void KschedMetrics::ObserveBinding(std::string_view result,
                                   std::string_view source, double seconds) {
  const prometheus::Labels labels{{"result", std::string(result)},
                                  {"source", std::string(source)}};
  bindings_.Add(labels).Increment();
  binding_duration_.Add(labels, LatencyBuckets()).Observe(seconds);
}

void KschedMetrics::ObserveInformerRestart(std::string_view informer,
                                           std::string_view restart) {
  informer_restarts_
      .Add({{"informer", std::string(informer)},
            {"restart", std::string(restart)}})
      .Increment();
}

prometheus::MetricFamily CounterFamily(
    const std::string& name, const std::string& help,
    const std::vector<std::pair<std::map<std::string, std::string>, double>>&
        values) {
  prometheus::MetricFamily family{
      name, help, prometheus::MetricType::Counter, {}};
  for (const auto& [labels, value] : values) {
    prometheus::ClientMetric m;
    m.label = Labels(labels);
    m.counter.value = value;
    family.metric.push_back(std::move(m));
  }
  return family;
}

prometheus::MetricFamily HistogramFamily(
    const std::string& name, const std::string& help,
    const std::vector<HistogramSnapshot>& histograms) {
  prometheus::MetricFamily family{
      name, help, prometheus::MetricType::Histogram, {}};
  for (const HistogramSnapshot& h : histograms) {
    prometheus::ClientMetric m;
    m.label = Labels(h.labels);
    for (size_t i = 0; i < h.bounds.size(); ++i) {
      m.histogram.bucket.push_back(
          {static_cast<uint64_t>(h.cumulative[i]), h.bounds[i]});
    }
    m.histogram.bucket.push_back({static_cast<uint64_t>(h.cumulative.back()),
                                  std::numeric_limits<double>::infinity()});
    m.histogram.sample_count = static_cast<uint64_t>(h.cumulative.back());
    m.histogram.sample_sum = h.sum;
    family.metric.push_back(std::move(m));
  }
  return family;
}

}  // namespace ksched::metrics
