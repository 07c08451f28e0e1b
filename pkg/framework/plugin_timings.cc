#include "pkg/framework/plugin_timings.h"

#include <algorithm>

namespace ksched::framework {

void PluginTimings::Flush(MetricsRecorder& recorder,
                          std::string_view extension_point,
                          std::span<const std::string_view> names) {
  std::sort(
      entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
        return a.plugin != b.plugin ? a.plugin < b.plugin : a.code < b.code;
      });
  std::vector<std::chrono::nanoseconds> durations;
  for (size_t begin = 0; begin < entries_.size();) {
    const Entry& first = entries_[begin];
    size_t end = begin;
    durations.clear();
    while (end < entries_.size() && entries_[end].plugin == first.plugin &&
           entries_[end].code == first.code) {
      durations.push_back(entries_[end].duration);
      ++end;
    }
    if (first.plugin < names.size()) {
      recorder.ObservePlugins(names[first.plugin], extension_point, first.code,
                              durations);
    }
    begin = end;
  }
  entries_.clear();
}

}  // namespace ksched::framework
