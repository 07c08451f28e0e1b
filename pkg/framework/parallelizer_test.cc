#include "pkg/framework/parallelizer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace ksched::framework {
namespace {

TEST(ParallelizerTest, VisitsEveryIndexExactlyOnce) {
  Parallelizer p(4);
  for (int n : {0, 1, 31, 32, 1000, 5000}) {
    std::vector<std::atomic<int>> seen(n);
    p.Until(n, [&](int i) {
      seen[i].fetch_add(1);
      return true;
    });
    for (int i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << n << " " << i;
  }
}

TEST(ParallelizerTest, StopsEarlyWhenAskedTo) {
  Parallelizer p(4);
  std::atomic<int> calls{0};
  p.Until(100000, [&](int) { return calls.fetch_add(1) < 10; });
  // Chunks already started may finish, but far from all 100000 run.
  EXPECT_LT(calls.load(), 100000);
  EXPECT_GE(calls.load(), 11);
}

TEST(ParallelizerTest, ManyJobsInARowFromSeveralThreads) {
  Parallelizer p(3);
  std::vector<std::thread> callers;
  std::atomic<long> total{0};
  for (int t = 0; t < 3; ++t) {
    callers.emplace_back([&] {
      for (int j = 0; j < 200; ++j) {
        p.Until(64, [&](int) {
          total.fetch_add(1);
          return true;
        });
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(total.load(), 3L * 200 * 64);
}

// Budgets for the caller's time alone on a busy machine that the tests'
// jobs never exhaust, or always do, however loaded the machine is.
constexpr std::chrono::nanoseconds kNeverShares = std::chrono::hours(1);
constexpr std::chrono::nanoseconds kSharesAfterOneChunk{0};

// Whether another thread ran an index of a 64-index job while the caller
// waited, boundedly, in the first index >= `caller_waits_at` it ran (or, if
// the caller ran none, whether another thread ran any). Only the caller
// waits, so a worker that takes the first chunk cannot stall the job.
bool AnotherThreadJoinedWhileTheCallerWaited(Parallelizer& p,
                                             int caller_waits_at,
                                             std::chrono::milliseconds wait) {
  std::mutex mu;
  std::condition_variable cv;
  bool joined = false;
  bool waited = false;
  bool answer = false;
  const auto caller = std::this_thread::get_id();
  p.Until(64, [&](int i) {
    std::unique_lock lock(mu);
    if (std::this_thread::get_id() != caller) {
      joined = true;
      cv.notify_all();
    } else if (!waited && i >= caller_waits_at) {
      waited = true;
      answer = cv.wait_for(lock, wait, [&] { return joined; });
    }
    return true;
  });
  return waited ? answer : joined;
}

// The threads that ran some index of a job of n indices.
std::set<std::thread::id> ThreadsThatRan(Parallelizer& p, int n) {
  std::mutex mu;
  std::set<std::thread::id> threads;
  p.Until(n, [&](int) {
    std::lock_guard lock(mu);
    threads.insert(std::this_thread::get_id());
    return true;
  });
  return threads;
}

// On a busy machine a job that ends within the caller's time alone is
// never handed to a worker.
TEST(ParallelizerTest, OnABusyMachineShortJobsStayOnTheCaller) {
  Parallelizer p(4, std::make_unique<util::FixedFreeCpu>(0), kNeverShares);
  if (p.workers() < 2) GTEST_SKIP() << "one hardware thread";
  const std::set<std::thread::id> caller_only = {std::this_thread::get_id()};
  for (int job = 0; job < 20; ++job) {
    EXPECT_EQ(ThreadsThatRan(p, 64), caller_only) << "job " << job;
  }
  // However long the caller waits in it: only the clock's budget counts.
  EXPECT_FALSE(AnotherThreadJoinedWhileTheCallerWaited(
      p, 0, std::chrono::milliseconds(200)));
}

// Once the caller's time alone runs out, the rest of the job is shared:
// the first chunk is the caller's alone, a later index is not.
TEST(ParallelizerTest,
     OnABusyMachineLongJobsAreSharedAfterTheCallerWorkedAlone) {
  Parallelizer p(2, std::make_unique<util::FixedFreeCpu>(0),
                 kSharesAfterOneChunk);
  if (p.workers() < 2) GTEST_SKIP() << "one hardware thread";
  EXPECT_FALSE(AnotherThreadJoinedWhileTheCallerWaited(
      p, 0, std::chrono::milliseconds(200)));
  // Chunks are at most sqrt(64) = 8 indices, so index 32 comes after the
  // caller's first chunk. Generous: a loaded machine may take a while to
  // run the woken worker.
  EXPECT_TRUE(
      AnotherThreadJoinedWhileTheCallerWaited(p, 32, std::chrono::seconds(20)));
}

// Where cores sit idle the workers are woken at once, whatever the
// caller's budget alone.
TEST(ParallelizerTest, WhereCoresSitIdleJobsAreSharedAtOnce) {
  Parallelizer idle(2, std::make_unique<util::FixedFreeCpu>(2), kNeverShares);
  if (idle.workers() < 2) GTEST_SKIP() << "one hardware thread";
  EXPECT_TRUE(AnotherThreadJoinedWhileTheCallerWaited(
      idle, 0, std::chrono::seconds(20)));
}

}  // namespace
}  // namespace ksched::framework
