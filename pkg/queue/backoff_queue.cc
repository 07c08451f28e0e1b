#include "pkg/queue/backoff_queue.h"

namespace ksched::queue {

BackoffQueue::BackoffQueue(std::chrono::nanoseconds initial,
                           std::chrono::nanoseconds max)
    : initial_(initial),
      max_(max),
      heap_([this](const framework::QueuedPodInfo& a,
                   const framework::QueuedPodInfo& b) {
        return BackoffExpiry(a) < BackoffExpiry(b);
      }) {}

std::chrono::nanoseconds BackoffQueue::BackoffDuration(int attempts) const {
  if (attempts <= 0) return std::chrono::nanoseconds::zero();
  std::chrono::nanoseconds d = initial_;
  for (int i = 1; i < attempts; ++i) {
    // Compare by subtraction so that doubling never overflows.
    if (d > max_ - d) return max_;
    d += d;
  }
  return d;
}

std::vector<QueuedPodInfoPtr> BackoffQueue::PopAllCompleted(
    util::Clock::TimePoint now) {
  std::vector<QueuedPodInfoPtr> out;
  while (QueuedPodInfoPtr head = heap_.Peek()) {
    if (IsBackingOff(*head, now)) break;
    out.push_back(heap_.Pop());
  }
  return out;
}

}  // namespace ksched::queue
