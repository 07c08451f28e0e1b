#include "pkg/queue/backoff_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "pkg/framework/testing/wrappers.h"

namespace ksched::queue {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;
using TimePoint = util::Clock::TimePoint;

// A whole second, far from the clock's epoch, as kube's tests start from
// time.Now().Truncate(window).
const TimePoint kWindowStart = TimePoint(seconds(1000));

bool ActiveOrder(const framework::QueuedPodInfo& a,
                 const framework::QueuedPodInfo& b) {
  const int32_t pa = a.pod().spec.priority.value_or(0);
  const int32_t pb = b.pod().spec.priority.value_or(0);
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

BackoffQueue Make(nanoseconds initial, nanoseconds max, bool pop) {
  return BackoffQueue(initial, max, ActiveOrder, pop);
}

// A pod rejected `rejections` times (by "plugin"), last requeued at `ts`.
QueuedPodInfoPtr Rejected(const std::string& name, int rejections, TimePoint ts,
                          int32_t priority = 0) {
  auto info = std::make_shared<framework::QueuedPodInfo>();
  info->pod_info = testing::PodBuilder(name).Priority(priority).Info();
  info->unschedulable_count = rejections;
  info->unschedulable_plugins = {"plugin"};
  info->attempts = rejections;
  info->timestamp = ts;
  return info;
}

// A pod whose last `errors` attempts ended in errors (no rejector).
QueuedPodInfoPtr Errored(const std::string& name, int errors, TimePoint ts) {
  auto info = std::make_shared<framework::QueuedPodInfo>();
  info->pod_info = testing::PodBuilder(name).Info();
  info->consecutive_errors_count = errors;
  info->attempts = errors;
  info->timestamp = ts;
  return info;
}

std::vector<std::string> Names(const std::vector<QueuedPodInfoPtr>& pods) {
  std::vector<std::string> out;
  for (const QueuedPodInfoPtr& p : pods) out.push_back(p->pod().metadata.name);
  return out;
}

// kube's TestBackoffQueue_calculateBackoffDuration.
TEST(BackoffQueueTest, DurationDoublesPerCountAndCaps) {
  EXPECT_EQ(Make(nanoseconds(1), nanoseconds(32), true).BackoffDuration(0),
            nanoseconds(0));
  EXPECT_EQ(Make(nanoseconds(3), nanoseconds(1000), true).BackoffDuration(5),
            nanoseconds(48));
  EXPECT_EQ(Make(nanoseconds(1), nanoseconds(32), true).BackoffDuration(16),
            nanoseconds(32));
  const nanoseconds max32(std::numeric_limits<int32_t>::max());
  EXPECT_EQ(Make(nanoseconds(1), max32, true).BackoffDuration(32), max32);
  const nanoseconds max64 = nanoseconds::max();
  EXPECT_EQ(Make(nanoseconds(1), max64, true).BackoffDuration(64), max64);
  EXPECT_EQ(Make(nanoseconds(1), max64, true).BackoffDuration(1000000), max64);
}

// kube's TestBackoffQueue_getBackoffTime.
TEST(BackoffQueueTest, ExpiryCountsRejectionsOrErrorsInARow) {
  BackoffQueue q = Make(seconds(1), seconds(32), true);
  // Never rejected: no backoff at all.
  EXPECT_EQ(q.BackoffExpiry(*Rejected("none", 0, kWindowStart)), std::nullopt);
  // The cached value wins until the pod is requeued.
  QueuedPodInfoPtr cached = Rejected("cached", 1, kWindowStart);
  cached->backoff_expiration = kWindowStart + nanoseconds(1);
  EXPECT_EQ(q.BackoffExpiry(*cached), kWindowStart + nanoseconds(1));
  EXPECT_EQ(q.BackoffExpiry(*Rejected("many", 16, kWindowStart)),
            kWindowStart + seconds(32));
  // Errors in a row take precedence over the rejections.
  QueuedPodInfoPtr both = Rejected("both", 5, kWindowStart);
  both->consecutive_errors_count = 16;
  EXPECT_EQ(q.BackoffExpiry(*both), kWindowStart + seconds(32));
  both->backoff_expiration.reset();
  both->consecutive_errors_count = 0;
  EXPECT_EQ(q.BackoffExpiry(*both), kWindowStart + seconds(16));
  // A zero maximum turns backoff off.
  BackoffQueue off = Make(nanoseconds(0), nanoseconds(0), true);
  EXPECT_EQ(off.BackoffExpiry(*Rejected("off", 16, kWindowStart)),
            std::nullopt);
  EXPECT_FALSE(
      off.IsBackingOff(*Rejected("off", 16, kWindowStart), kWindowStart));
}

TEST(BackoffQueueTest, ExpiryIsRoundedDownToItsWindowWithPopFromBackoffQ) {
  QueuedPodInfoPtr p = Rejected("p", 1, kWindowStart + milliseconds(300));
  BackoffQueue windowed = Make(seconds(1), seconds(10), true);
  EXPECT_EQ(windowed.BackoffExpiry(*p), kWindowStart + seconds(1));
  // Still backing off for the whole window its expiry falls in, expiry
  // included; done once the next window starts.
  EXPECT_TRUE(windowed.IsBackingOff(*p, kWindowStart + milliseconds(1999)));
  EXPECT_FALSE(windowed.IsBackingOff(*p, kWindowStart + seconds(2)));

  QueuedPodInfoPtr q = Rejected("q", 1, kWindowStart + milliseconds(300));
  BackoffQueue exact = Make(seconds(1), seconds(10), false);
  EXPECT_EQ(exact.BackoffExpiry(*q), kWindowStart + milliseconds(1300));
  // v1.33+ still counts the expiry instant itself as backing off.
  EXPECT_TRUE(exact.IsBackingOff(*q, kWindowStart + milliseconds(1300)));
  EXPECT_FALSE(exact.IsBackingOff(*q, kWindowStart + milliseconds(1301)));
}

// kube's TestBackoffQueue_popAllBackoffCompleted, with and without the
// gate.
TEST(BackoffQueueTest, PopAllCompletedTakesBothHeaps) {
  struct Case {
    std::vector<std::string> in_backoff;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {{}, {}},
      {{"pod0", "pod1"}, {"pod0"}},
      {{"pod2", "pod3"}, {"pod2"}},
      {{"pod0", "pod1", "pod2", "pod3"}, {"pod0", "pod2"}},
      {{"pod0", "pod2"}, {"pod0", "pod2"}},
      {{"pod1", "pod3"}, {}},
  };
  for (bool pop : {true, false}) {
    for (const Case& c : cases) {
      BackoffQueue q = Make(seconds(1), seconds(10), pop);
      for (const std::string& name : c.in_backoff) {
        if (name == "pod0") q.Add(Rejected(name, 1, kWindowStart - seconds(2)));
        if (name == "pod1") q.Add(Rejected(name, 1, kWindowStart + seconds(1)));
        if (name == "pod2") q.Add(Errored(name, 1, kWindowStart - seconds(2)));
        if (name == "pod3") q.Add(Errored(name, 1, kWindowStart + seconds(1)));
      }
      EXPECT_EQ(Names(q.PopAllCompleted(kWindowStart)), c.want)
          << "pop=" << pop;
      EXPECT_EQ(q.size(), c.in_backoff.size() - c.want.size());
    }
  }
}

// kube's TestBackoffQueueOrdering.
TEST(BackoffQueueTest, OrderWithinAWindowFollowsActiveQWithPopFromBackoffQ) {
  auto fill = [](BackoffQueue& q) {
    q.Add(Rejected("pod0", 1, kWindowStart, 1));
    q.Add(Rejected("pod1", 1, kWindowStart - seconds(1), 1));
    q.Add(Rejected("pod2", 1, kWindowStart - seconds(2) + milliseconds(1), 2));
    q.Add(Rejected("pod3", 1, kWindowStart - seconds(2), 1));
    q.Add(Rejected("pod4", 1, kWindowStart - seconds(2), 2));
    q.Add(Rejected("pod5", 1, kWindowStart - seconds(3), 1));
  };
  BackoffQueue windowed = Make(seconds(1), seconds(10), true);
  fill(windowed);
  EXPECT_EQ(Names(windowed.PopAllCompleted(kWindowStart)),
            (std::vector<std::string>{"pod5", "pod4", "pod2", "pod3"}));

  // Without the gate priority plays no part: pod3 and pod4 expire at the
  // same instant (in either order), pod2 a millisecond later.
  BackoffQueue exact = Make(seconds(1), seconds(10), false);
  fill(exact);
  std::vector<std::string> got = Names(exact.PopAllCompleted(kWindowStart));
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0], "pod5");
  EXPECT_EQ(std::set<std::string>(got.begin() + 1, got.begin() + 3),
            (std::set<std::string>{"pod3", "pod4"}));
  EXPECT_EQ(got[3], "pod2");
}

TEST(BackoffQueueTest, AddMovesAPodBetweenHeapsAndPopTakesOnlyRejected) {
  BackoffQueue q = Make(seconds(1), seconds(10), true);
  QueuedPodInfoPtr p = Errored("p", 1, kWindowStart);
  q.Add(p);
  EXPECT_EQ(q.unschedulable_size(), 0u);
  // An error is never popped before its backoff.
  EXPECT_EQ(q.PopUnschedulable(), nullptr);
  // Rejected on its next attempt: it moves to the other heap, once.
  p->unschedulable_plugins = {"plugin"};
  p->unschedulable_count = 1;
  p->consecutive_errors_count = 0;
  p->backoff_expiration.reset();
  q.Add(p);
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.unschedulable_size(), 1u);
  EXPECT_EQ(q.PopUnschedulable(), p);
  EXPECT_EQ(q.size(), 0u);
}

TEST(BackoffQueueTest, GetHasDelete) {
  BackoffQueue q = Make(seconds(1), seconds(10), false);
  q.Add(Rejected("a", 1, kWindowStart));
  q.Add(Errored("b", 1, kWindowStart));
  EXPECT_TRUE(q.Has("default/a"));
  EXPECT_TRUE(q.Has("default/b"));
  EXPECT_NE(q.Get("default/b"), nullptr);
  EXPECT_NE(q.Delete("default/b"), nullptr);
  EXPECT_EQ(q.Delete("default/b"), nullptr);
  EXPECT_EQ(q.size(), 1u);
}

}  // namespace
}  // namespace ksched::queue
