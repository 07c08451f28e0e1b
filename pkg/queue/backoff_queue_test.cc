#include "pkg/queue/backoff_queue.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "pkg/framework/testing/wrappers.h"

namespace ksched::queue {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;
using TimePoint = util::Clock::TimePoint;

QueuedPodInfoPtr Queued(const std::string& name, int attempts, TimePoint ts) {
  auto info = std::make_shared<framework::QueuedPodInfo>();
  info->pod_info = testing::PodBuilder(name).Info();
  info->attempts = attempts;
  info->timestamp = ts;
  return info;
}

TEST(BackoffQueueTest, DurationDoublesPerAttemptAndCaps) {
  BackoffQueue q(seconds(1), seconds(10));
  EXPECT_EQ(q.BackoffDuration(0), seconds(0));
  EXPECT_EQ(q.BackoffDuration(1), seconds(1));
  EXPECT_EQ(q.BackoffDuration(2), seconds(2));
  EXPECT_EQ(q.BackoffDuration(3), seconds(4));
  EXPECT_EQ(q.BackoffDuration(4), seconds(8));
  EXPECT_EQ(q.BackoffDuration(5), seconds(10));
  EXPECT_EQ(q.BackoffDuration(6), seconds(10));
  EXPECT_EQ(q.BackoffDuration(1000000), seconds(10));
}

TEST(BackoffQueueTest, DurationNeverOverflows) {
  const auto max = std::chrono::nanoseconds::max();
  BackoffQueue q(milliseconds(1), max);
  EXPECT_EQ(q.BackoffDuration(2), milliseconds(2));
  EXPECT_EQ(q.BackoffDuration(200), max);
  EXPECT_GT(q.BackoffDuration(50), hours(1));
}

TEST(BackoffQueueTest, ExpiryIsMeasuredFromTimestamp) {
  BackoffQueue q(seconds(1), seconds(10));
  QueuedPodInfoPtr p = Queued("p", 3, TimePoint(seconds(100)));
  EXPECT_EQ(q.BackoffExpiry(*p), TimePoint(seconds(104)));
  EXPECT_TRUE(q.IsBackingOff(*p, TimePoint(seconds(103))));
  // Expiry is not "backing off" any more.
  EXPECT_FALSE(q.IsBackingOff(*p, TimePoint(seconds(104))));
}

TEST(BackoffQueueTest, PopAllCompletedInExpiryOrder) {
  BackoffQueue q(seconds(1), seconds(10));
  q.Add(Queued("late", 4, TimePoint(seconds(0))));     // 0s + 8s
  q.Add(Queued("early", 1, TimePoint(seconds(2))));    // 2s + 1s
  q.Add(Queued("middle", 2, TimePoint(seconds(1))));   // 1s + 2s
  q.Add(Queued("never", 5, TimePoint(seconds(100))));  // 100s + 10s
  EXPECT_EQ(q.size(), 4u);
  EXPECT_TRUE(q.PopAllCompleted(TimePoint(seconds(2))).empty());
  std::vector<QueuedPodInfoPtr> done = q.PopAllCompleted(TimePoint(seconds(8)));
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done[2]->pod().metadata.name, "late");
  EXPECT_EQ(q.size(), 1u);
  EXPECT_TRUE(q.Has("default/never"));
  EXPECT_NE(q.Delete("default/never"), nullptr);
  EXPECT_EQ(q.size(), 0u);
}

}  // namespace
}  // namespace ksched::queue
