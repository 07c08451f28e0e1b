// BackoffQueue: pods that may be retried only once their backoff expires,
// ordered by that expiry (kube-scheduler v1.32's podBackoffQ; its pods are
// never popped directly: SchedulerPopFromBackoffQ is a v1.33 feature).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "pkg/queue/pod_heap.h"
#include "pkg/util/clock.h"

namespace ksched::queue {

class BackoffQueue {
 public:
  BackoffQueue(std::chrono::nanoseconds initial, std::chrono::nanoseconds max);
  // The heap's order refers to this object.
  BackoffQueue(const BackoffQueue&) = delete;
  BackoffQueue& operator=(const BackoffQueue&) = delete;

  // initial * 2^(attempts-1), capped at max; zero before the first attempt:
  // a pod that never consumed a scheduling cycle owes no penalty.
  std::chrono::nanoseconds BackoffDuration(int attempts) const;
  // When the pod's backoff ends: measured from its last (re)queue time.
  util::Clock::TimePoint BackoffExpiry(
      const framework::QueuedPodInfo& info) const {
    return info.timestamp + BackoffDuration(info.attempts);
  }
  bool IsBackingOff(const framework::QueuedPodInfo& info,
                    util::Clock::TimePoint now) const {
    return BackoffExpiry(info) > now;
  }

  void Add(QueuedPodInfoPtr info) { heap_.AddOrUpdate(std::move(info)); }
  QueuedPodInfoPtr Get(const std::string& key) const { return heap_.Get(key); }
  bool Has(const std::string& key) const { return heap_.Has(key); }
  QueuedPodInfoPtr Delete(const std::string& key) { return heap_.Delete(key); }
  // Removes and returns, earliest first, every pod whose backoff is over.
  std::vector<QueuedPodInfoPtr> PopAllCompleted(util::Clock::TimePoint now);

  size_t size() const { return heap_.size(); }
  template <typename F>
  void ForEach(F&& f) const {
    heap_.ForEach(std::forward<F>(f));
  }

 private:
  std::chrono::nanoseconds initial_;
  std::chrono::nanoseconds max_;
  PodHeap heap_;
};

}  // namespace ksched::queue
