// PluginTimings: the durations of plugin calls one thread made, handed to
// the MetricsRecorder together.
//
// A sampled cycle times every Filter plugin on every node it filters
// (scheduler_plugin_execution_duration_seconds): 30,000 observations for
// six plugins on 5,000 nodes. Observed one by one from the parallel Filter
// workers, each took the recorder's locks and contended with the other
// workers for them; kube-scheduler records them asynchronously for the
// same reason. A worker now gathers a chunk's durations here and flushes
// them at the end of the chunk: one observation per plugin and status.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "pkg/framework/metrics_recorder.h"
#include "pkg/framework/status.h"

namespace ksched::framework {

class PluginTimings {
 public:
  // `plugin` is the plugin's position in the list Flush is given.
  void Add(size_t plugin, Code code, std::chrono::nanoseconds duration) {
    entries_.push_back({static_cast<uint32_t>(plugin), code, duration});
  }
  bool empty() const { return entries_.empty(); }

  // Hands every duration to `recorder`, grouped by plugin and status, as
  // observations at `extension_point` of the plugins named by `names`;
  // then holds nothing.
  void Flush(MetricsRecorder& recorder, std::string_view extension_point,
             std::span<const std::string_view> names);

 private:
  struct Entry {
    uint32_t plugin;
    Code code;
    std::chrono::nanoseconds duration;
  };
  std::vector<Entry> entries_;
};

}  // namespace ksched::framework
