#include "pkg/queue/backoff_queue.h"

namespace ksched::queue {

BackoffQueue::BackoffQueue(std::chrono::nanoseconds initial,
                           std::chrono::nanoseconds max, LessFn active_less,
                           bool pop_from_backoff_q)
    : initial_(initial),
      max_(max),
      pop_from_backoff_q_(pop_from_backoff_q),
      unschedulable_([this, less = std::move(active_less)](
                         const framework::QueuedPodInfo& a,
                         const framework::QueuedPodInfo& b) {
        const auto ea = BackoffExpiry(a);
        const auto eb = BackoffExpiry(b);
        const auto ta = ea.value_or(util::Clock::TimePoint::min());
        const auto tb = eb.value_or(util::Clock::TimePoint::min());
        if (ta != tb) return ta < tb;
        // Within one window the pods come out as activeQ would order them,
        // which is what a pop from an empty activeQ should see.
        return pop_from_backoff_q_ && less && less(a, b);
      }),
      error_([this](const framework::QueuedPodInfo& a,
                    const framework::QueuedPodInfo& b) {
        return BackoffExpiry(a).value_or(util::Clock::TimePoint::min()) <
               BackoffExpiry(b).value_or(util::Clock::TimePoint::min());
      }) {}

std::chrono::nanoseconds BackoffQueue::BackoffDuration(int count) const {
  if (count <= 0) return std::chrono::nanoseconds::zero();
  std::chrono::nanoseconds d = initial_;
  for (int i = 1; i < count; ++i) {
    // Compare by subtraction so that doubling never overflows.
    if (d > max_ - d) return max_;
    d += d;
  }
  return std::min(d, max_);
}

util::Clock::TimePoint BackoffQueue::AlignToWindow(
    util::Clock::TimePoint t) const {
  if (!pop_from_backoff_q_) return t;
  const auto since_epoch = t.time_since_epoch();
  auto windows = since_epoch / kOrderingWindow;
  // Round toward negative infinity, as Go's Time.Truncate does for the
  // times it sees (all after its epoch).
  if (since_epoch < std::chrono::nanoseconds::zero() &&
      since_epoch % kOrderingWindow != std::chrono::nanoseconds::zero()) {
    --windows;
  }
  return util::Clock::TimePoint(
      std::chrono::duration_cast<util::Clock::TimePoint::duration>(
          windows * kOrderingWindow));
}

std::optional<util::Clock::TimePoint> BackoffQueue::BackoffExpiry(
    const framework::QueuedPodInfo& info) const {
  // A zero maximum turns backoff off altogether.
  if (max_ <= std::chrono::nanoseconds::zero()) return std::nullopt;
  const int count = info.consecutive_errors_count > 0
                        ? info.consecutive_errors_count
                        : info.unschedulable_count;
  if (count == 0) return std::nullopt;
  if (!info.backoff_expiration) {
    info.backoff_expiration = AlignToWindow(
        info.timestamp +
        std::chrono::duration_cast<util::Clock::TimePoint::duration>(
            BackoffDuration(count)));
  }
  return info.backoff_expiration;
}

bool BackoffQueue::IsBackingOff(const framework::QueuedPodInfo& info,
                                util::Clock::TimePoint now) const {
  const std::optional<util::Clock::TimePoint> expiry = BackoffExpiry(info);
  if (!expiry) return false;
  return *expiry >= AlignToWindow(now);
}

void BackoffQueue::Add(QueuedPodInfoPtr info) {
  const std::string key = PodKey(info->pod());
  if (FailedWithError(*info)) {
    unschedulable_.Delete(key);
    error_.AddOrUpdate(std::move(info));
  } else {
    error_.Delete(key);
    unschedulable_.AddOrUpdate(std::move(info));
  }
}

QueuedPodInfoPtr BackoffQueue::Get(const std::string& key) const {
  if (QueuedPodInfoPtr info = unschedulable_.Get(key)) return info;
  return error_.Get(key);
}

QueuedPodInfoPtr BackoffQueue::Delete(const std::string& key) {
  if (QueuedPodInfoPtr info = unschedulable_.Delete(key)) return info;
  return error_.Delete(key);
}

std::vector<QueuedPodInfoPtr> BackoffQueue::PopAllCompleted(
    util::Clock::TimePoint now) {
  std::vector<QueuedPodInfoPtr> out;
  for (PodHeap* heap : {&unschedulable_, &error_}) {
    while (QueuedPodInfoPtr head = heap->Peek()) {
      if (IsBackingOff(*head, now)) break;
      out.push_back(heap->Pop());
    }
  }
  return out;
}

}  // namespace ksched::queue
