// UnschedulablePods: the pool of pods that were tried and rejected, and of
// pods a PreEnqueue plugin gates, waiting for an event that may help them
// (kube-scheduler's unschedulablePods). Not thread-safe: the scheduling
// queue's lock guards it.
#pragma once

#include <string>
#include <unordered_map>

#include "pkg/queue/pod_heap.h"
#include "pkg/util/clock.h"

namespace ksched::queue {

class UnschedulablePods {
 public:
  // Inserts or replaces (by key).
  void AddOrUpdate(QueuedPodInfoPtr info);
  QueuedPodInfoPtr Get(const std::string& key) const;
  // The removed entry, or null when absent.
  QueuedPodInfoPtr Delete(const std::string& key);

  size_t size() const { return pods_.size(); }
  // How many entries are gated (scheduler_pending_pods{queue="gated"}).
  size_t gated() const { return gated_; }
  // Visits every entry, in no particular order; `f` must not modify the
  // pool.
  template <typename F>
  void ForEach(F&& f) const {
    for (const auto& [key, entry] : pods_) f(entry.info);
  }
  // No entry's timestamp is earlier than this. A bound, not the minimum:
  // entries that leave do not raise it. The flush of pods left too long
  // skips its walk over every entry while even the bound is recent (the
  // simulator asks on every cycle, with tens of thousands pooled).
  util::Clock::TimePoint oldest_timestamp_bound() const { return oldest_; }
  // After a walk: the least timestamp of the entries it leaves.
  void set_oldest_timestamp_bound(util::Clock::TimePoint bound) {
    oldest_ = bound;
  }

 private:
  struct Entry {
    QueuedPodInfoPtr info;
    // The entry's `gated` when stored: the flag on the shared QueuedPodInfo
    // may change (PreEnqueue re-runs) before the entry is removed, and the
    // counts must undo exactly what they did.
    bool counted_gated = false;
  };
  std::unordered_map<std::string, Entry> pods_;
  size_t gated_ = 0;
  util::Clock::TimePoint oldest_ = util::Clock::TimePoint::max();
};

}  // namespace ksched::queue
