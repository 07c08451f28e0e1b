#include "pkg/client/rate_limiter.h"

#include <gtest/gtest.h>

#include <chrono>

#include "pkg/client/backoff.h"
#include "pkg/util/fake_clock.h"

namespace ksched::client {
namespace {

using std::chrono::milliseconds;

TEST(TokenBucketTest, BurstThenTheRate) {
  util::FakeClock clock;
  TokenBucket bucket(clock, /*qps=*/10, /*burst=*/3);
  // The bucket starts full.
  EXPECT_EQ(bucket.Reserve(), milliseconds(0));
  EXPECT_EQ(bucket.Reserve(), milliseconds(0));
  EXPECT_EQ(bucket.Reserve(), milliseconds(0));
  // Then one token per 100 ms, reservations queueing behind each other.
  EXPECT_EQ(bucket.Reserve(), milliseconds(100));
  EXPECT_EQ(bucket.Reserve(), milliseconds(200));
  // Time passes: the debt is paid and a token has accrued.
  clock.Advance(milliseconds(300));
  EXPECT_EQ(bucket.Reserve(), milliseconds(0));
  EXPECT_EQ(bucket.Reserve(), milliseconds(100));
}

TEST(TokenBucketTest, RefillStopsAtTheBurst) {
  util::FakeClock clock;
  TokenBucket bucket(clock, /*qps=*/50, /*burst=*/2);
  clock.Advance(std::chrono::hours(1));
  EXPECT_EQ(bucket.Reserve(), milliseconds(0));
  EXPECT_EQ(bucket.Reserve(), milliseconds(0));
  EXPECT_EQ(bucket.Reserve(), milliseconds(20));
}

TEST(TokenBucketTest, NoQpsMeansNoLimitAndBurstIsAtLeastOne) {
  util::FakeClock clock;
  TokenBucket unlimited(clock, 0, 0);
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(unlimited.Reserve(), milliseconds(0));
  TokenBucket one(clock, 1, 0);
  EXPECT_EQ(one.Reserve(), milliseconds(0));
  EXPECT_EQ(one.Reserve(), std::chrono::seconds(1));
}

// A Random that always answers the same fraction of its range.
class FixedRandom final : public util::Random {
 public:
  explicit FixedRandom(double fraction) : fraction_(fraction) {}
  uint64_t Intn(uint64_t n) override {
    return static_cast<uint64_t>(fraction_ * static_cast<double>(n - 1));
  }

 private:
  double fraction_;
};

TEST(RetryBackoffTest, GrowsToTheMaxWithJitterAndHonoursRetryAfter) {
  RetryBackoff b{.initial = milliseconds(100),
                 .factor = 2,
                 .max = milliseconds(1000),
                 .jitter = 0.5};
  FixedRandom none(0);
  EXPECT_EQ(b.Wait(0, 0, none), milliseconds(100));
  EXPECT_EQ(b.Wait(1, 0, none), milliseconds(200));
  EXPECT_EQ(b.Wait(3, 0, none), milliseconds(800));
  EXPECT_EQ(b.Wait(4, 0, none), milliseconds(1000));
  EXPECT_EQ(b.Wait(40, 0, none), milliseconds(1000));
  FixedRandom all(1);
  EXPECT_EQ(b.Wait(0, 0, all), milliseconds(150));
  EXPECT_EQ(b.Wait(9, 0, all), milliseconds(1500));
  // The server's Retry-After wins.
  EXPECT_EQ(b.Wait(0, 3, all), std::chrono::seconds(3));
}

}  // namespace
}  // namespace ksched::client
