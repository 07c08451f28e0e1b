// CycleState: data plugins share within one scheduling cycle of one pod.
//
// Plugins write in the sequential extension points (PreFilter, PreScore,
// Reserve) and read in the parallel ones (Filter, Score), so reads need no
// lock; the PreBind plugins of a parallel group (RunPreBindPlugins) only
// read entries and change their own data. Preemption clones the state to try
// removing victims without touching the real cycle's data.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

namespace ksched::framework {

class CancelCause;
class CycleRecorder;

class StateData {
 public:
  virtual ~StateData() = default;
  // Deep copy, for preemption's what-if runs. Immutable data may return a
  // shared copy of itself.
  virtual std::shared_ptr<StateData> Clone() const = 0;
};

// A key is identified by its address: declare one per plugin as
//   constexpr StateKey kMyKey{"PreFilterMyPlugin"};
// at namespace scope. Lookup compares pointers, not strings.
class StateKey {
 public:
  constexpr explicit StateKey(std::string_view name) : name_(name) {}
  std::string_view name() const { return name_; }

 private:
  std::string_view name_;
};

class CycleState {
 public:
  CycleState() = default;

  void Write(const StateKey& key, std::shared_ptr<StateData> data) {
    for (auto& [k, d] : entries_) {
      if (k == &key) {
        d = std::move(data);
        return;
      }
    }
    entries_.emplace_back(&key, std::move(data));
  }

  // The data under `key` as T, or nullptr when absent or of another type.
  template <typename T>
  T* Read(const StateKey& key) const {
    for (const auto& [k, d] : entries_) {
      if (k != &key) continue;
      // Filter and Score read their state once per node: the exact type
      // (the common case) is checked without a full dynamic_cast.
      if (d == nullptr) return nullptr;
      const auto& data = *d;
      if (typeid(data) == typeid(T)) return static_cast<T*>(d.get());
      return dynamic_cast<T*>(d.get());
    }
    return nullptr;
  }

  void Delete(const StateKey& key) {
    std::erase_if(entries_, [&](const auto& e) { return e.first == &key; });
  }

  std::unique_ptr<CycleState> Clone() const {
    auto copy = std::make_unique<CycleState>();
    copy->entries_.reserve(entries_.size());
    for (const auto& [k, d] : entries_) {
      copy->entries_.emplace_back(k, d ? d->Clone() : nullptr);
    }
    copy->skip_filter_plugins_ = skip_filter_plugins_;
    copy->skip_score_plugins_ = skip_score_plugins_;
    copy->filter_skip_mask_ = filter_skip_mask_;
    copy->record_plugin_metrics_ = record_plugin_metrics_;
    copy->recorder_ = recorder_;
    return copy;
  }

  // Whether this cycle times each plugin call (a sampled share of cycles,
  // as kube-scheduler's pluginMetricsSamplePercent).
  void set_record_plugin_metrics(bool record) {
    record_plugin_metrics_ = record;
  }
  bool record_plugin_metrics() const { return record_plugin_metrics_; }

  // Where this cycle is recorded for `explain` (cycle_recorder.h); null,
  // the usual case, records nothing. Not owned.
  void set_recorder(CycleRecorder* recorder) { recorder_ = recorder; }
  CycleRecorder* recorder() const { return recorder_; }

  // While PreBind runs, why the binding cycle was cancelled, if it was
  // (preemption, or another plugin of a parallel PreBind group failing):
  // PreBind plugins check it before each API write and, once cancelled,
  // fail with its cause. Null outside PreBind. Not owned.
  void set_binding_cancellation(const CancelCause* cancellation) {
    binding_cancellation_ = cancellation;
  }
  const CancelCause* binding_cancellation() const {
    return binding_cancellation_;
  }

  // Plugins whose PreFilter / PreScore returned Skip: the framework does not
  // call their Filter / Score in this cycle.
  void SkipFilter(std::string_view plugin) {
    skip_filter_plugins_.push_back(plugin);
  }
  bool FilterSkipped(std::string_view plugin) const {
    return std::find(skip_filter_plugins_.begin(), skip_filter_plugins_.end(),
                     plugin) != skip_filter_plugins_.end();
  }
  void SkipScore(std::string_view plugin) {
    skip_score_plugins_.push_back(plugin);
  }
  bool ScoreSkipped(std::string_view plugin) const {
    return std::find(skip_score_plugins_.begin(), skip_score_plugins_.end(),
                     plugin) != skip_score_plugins_.end();
  }
  void ClearSkipScore() { skip_score_plugins_.clear(); }

  // The skipped Filter plugins as bits of their position in the profile's
  // filter list, which the framework computes once after PreFilter so that
  // the per-node loop does not compare names. Unset until then.
  void set_filter_skip_mask(uint64_t mask) { filter_skip_mask_ = mask; }
  const std::optional<uint64_t>& filter_skip_mask() const {
    return filter_skip_mask_;
  }

 private:
  std::vector<std::pair<const StateKey*, std::shared_ptr<StateData>>> entries_;
  // Plugin names are owned by the plugins, which outlive every cycle.
  std::vector<std::string_view> skip_filter_plugins_;
  std::vector<std::string_view> skip_score_plugins_;
  std::optional<uint64_t> filter_skip_mask_;
  bool record_plugin_metrics_ = false;
  CycleRecorder* recorder_ = nullptr;
  const CancelCause* binding_cancellation_ = nullptr;
};

}  // namespace ksched::framework
