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

// A short job stays on the calling thread; a long one is shared with the
// workers once the caller has worked alone for a while.
TEST(ParallelizerTest, OnABusyMachineShortJobsStayOnTheCaller) {
  Parallelizer p(4, std::make_unique<util::FixedFreeCpu>(0));
  if (p.workers() < 2) GTEST_SKIP() << "one hardware thread";
  std::mutex mu;
  std::set<std::thread::id> threads;
  // Jobs of a few microseconds, back to back (workers that just ran one
  // would poll for the next): the caller runs them alone unless it is
  // descheduled for the whole 50 us, which a loaded machine may do now
  // and then, hence most rather than all.
  int alone = 0;
  for (int job = 0; job < 20; ++job) {
    threads.clear();
    p.Until(64, [&](int) {
      std::lock_guard lock(mu);
      threads.insert(std::this_thread::get_id());
      return true;
    });
    alone += threads == std::set<std::thread::id>{std::this_thread::get_id()};
  }
  EXPECT_GE(alone, 10);

  threads.clear();
  std::atomic<int> calls{0};
  p.Until(400, [&](int) {
    std::this_thread::sleep_for(std::chrono::microseconds(500));
    calls.fetch_add(1);
    std::lock_guard lock(mu);
    threads.insert(std::this_thread::get_id());
    return true;
  });
  EXPECT_EQ(calls.load(), 400);
  EXPECT_GE(threads.size(), 2u);
}

// Index 0 waits (boundedly) for another thread to run an index. Where
// cores sit idle the workers are woken at once and one of them does;
// on a busy machine the caller keeps the job to itself until index 0
// returns, so the wait runs out.
bool AnotherThreadJoinedWhileTheFirstIndexRan(Parallelizer& p,
                                              std::chrono::milliseconds wait) {
  std::mutex mu;
  std::condition_variable cv;
  bool joined = false;
  const auto caller = std::this_thread::get_id();
  bool answer = false;
  p.Until(64, [&](int i) {
    std::unique_lock lock(mu);
    if (i == 0) {
      answer = cv.wait_for(lock, wait, [&] { return joined; });
    } else if (std::this_thread::get_id() != caller) {
      joined = true;
      cv.notify_all();
    }
    return true;
  });
  return answer;
}

TEST(ParallelizerTest, WhereCoresSitIdleJobsAreSharedAtOnce) {
  Parallelizer idle(2, std::make_unique<util::FixedFreeCpu>(2));
  if (idle.workers() < 2) GTEST_SKIP() << "one hardware thread";
  // Generous: a loaded machine may take a while to run the woken worker.
  EXPECT_TRUE(
      AnotherThreadJoinedWhileTheFirstIndexRan(idle, std::chrono::seconds(20)));

  Parallelizer busy(2, std::make_unique<util::FixedFreeCpu>(0));
  EXPECT_FALSE(AnotherThreadJoinedWhileTheFirstIndexRan(
      busy, std::chrono::milliseconds(200)));
}

}  // namespace
}  // namespace ksched::framework
