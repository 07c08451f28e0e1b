// BackoffQueue: pods that may be retried only once their backoff expires
// (kube-scheduler v1.35's backoffQueue). Two heaps, both ordered by expiry:
//
//   unschedulable  pods some plugin rejected; their backoff grows with
//                  QueuedPodInfo::unschedulable_count.
//   error          pods whose last attempt ended in an error (no plugin
//                  rejected them); their backoff grows with
//                  consecutive_errors_count and restarts once an attempt
//                  ends in a rejection again.
//
// With SchedulerPopFromBackoffQ (beta, on in v1.33+) the scheduling queue
// pops from the unschedulable heap whenever activeQ is empty, so that heap
// is ordered as activeQ would order its pods within each whole-second
// window of expiry, and expiries are rounded down to their window (a pod
// leaves backoff when the window after its expiry starts). Pods of the
// error heap are never popped early: an error is retried only after its
// backoff.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "pkg/queue/pod_heap.h"
#include "pkg/util/clock.h"

namespace ksched::queue {

class BackoffQueue {
 public:
  // kube's backoffQOrderingWindowDuration.
  static constexpr std::chrono::seconds kOrderingWindow{1};

  // `active_less` breaks ties between equal (windowed) expiries when
  // `pop_from_backoff_q` is on.
  BackoffQueue(std::chrono::nanoseconds initial, std::chrono::nanoseconds max,
               LessFn active_less, bool pop_from_backoff_q);
  // The heaps' orders refer to this object.
  BackoffQueue(const BackoffQueue&) = delete;
  BackoffQueue& operator=(const BackoffQueue&) = delete;

  // initial * 2^(count-1), capped at max; zero for count 0: a pod never
  // rejected (or never failed) owes no penalty.
  std::chrono::nanoseconds BackoffDuration(int count) const;
  // When the pod's backoff ends: measured from its last requeue time, from
  // the error count when its last attempt failed with an error, else from
  // its unschedulable count; rounded down to the ordering window with
  // PopFromBackoffQ. Cached in info.backoff_expiration until the pod is
  // requeued (AddUnschedulableIfNotPresent clears it). nullopt: no backoff
  // (no attempt counted yet, or pod_max_backoff is zero).
  std::optional<util::Clock::TimePoint> BackoffExpiry(
      const framework::QueuedPodInfo& info) const;
  // kube's isPodBackingoff: the expiry has not passed the start of the
  // current window (or `now` itself without PopFromBackoffQ); an expiry
  // equal to it still backs off.
  bool IsBackingOff(const framework::QueuedPodInfo& info,
                    util::Clock::TimePoint now) const;

  // Into the error heap when no plugin rejected the pod in its last
  // attempt, else into the unschedulable heap; out of the other.
  void Add(QueuedPodInfoPtr info);
  QueuedPodInfoPtr Get(const std::string& key) const;
  bool Has(const std::string& key) const {
    return unschedulable_.Has(key) || error_.Has(key);
  }
  QueuedPodInfoPtr Delete(const std::string& key);
  // Removes and returns every pod whose backoff is over: the unschedulable
  // heap's earliest first, then the error heap's.
  std::vector<QueuedPodInfoPtr> PopAllCompleted(util::Clock::TimePoint now);
  // The head of the unschedulable heap, backing off or not (kube's
  // popBackoff); null when that heap is empty.
  QueuedPodInfoPtr PopUnschedulable() { return unschedulable_.Pop(); }

  size_t size() const { return unschedulable_.size() + error_.size(); }
  // Pods PopUnschedulable could return.
  size_t unschedulable_size() const { return unschedulable_.size(); }
  template <typename F>
  void ForEach(F&& f) const {
    unschedulable_.ForEach(f);
    error_.ForEach(f);
  }

 private:
  util::Clock::TimePoint AlignToWindow(util::Clock::TimePoint t) const;

  std::chrono::nanoseconds initial_;
  std::chrono::nanoseconds max_;
  bool pop_from_backoff_q_;
  PodHeap unschedulable_;
  PodHeap error_;
};

// Whether the pod's last attempt ended in an error rather than a rejection:
// no plugin is recorded as having rejected it.
inline bool FailedWithError(const framework::QueuedPodInfo& info) {
  return info.unschedulable_plugins.empty() && info.pending_plugins.empty();
}

}  // namespace ksched::queue
