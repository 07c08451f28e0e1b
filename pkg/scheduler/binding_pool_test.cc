#include "pkg/scheduler/binding_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pkg/scheduler/test_gate.h"

namespace ksched::scheduler {
namespace {

using test::kWaitLimit;

using test::Gate;

// Counts events and lets a test wait (bounded) until a number is reached.
class Counter {
 public:
  void Increment() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++count_;
    }
    cv_.notify_all();
  }
  bool WaitFor(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kWaitLimit, [&] { return count_ >= n; });
  }
  int Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return count_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int count_ = 0;
};

// Runs `fn` on a detached thread; the future becomes ready when it returns.
// Detached so that a test whose `fn` never returns fails on its bounded wait
// instead of blocking in a joining destructor.
std::shared_future<void> RunDetached(std::function<void()> fn) {
  auto done = std::make_shared<std::promise<void>>();
  std::shared_future<void> future = done->get_future().share();
  std::thread([fn = std::move(fn), done] {
    fn();
    done->set_value();
  }).detach();
  return future;
}

TEST(BindingPoolTest, ZeroWorkersRunsTasksInline) {
  BindingPool pool(0);
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id ran_on;
  int runs = 0;
  pool.Submit([&] {
    ran_on = std::this_thread::get_id();
    ++runs;
    EXPECT_EQ(pool.InFlight(), 0u);
  });
  // Already done when Submit returns, on the caller's thread.
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(ran_on, caller);
  EXPECT_EQ(pool.InFlight(), 0u);
  pool.Drain();  // nothing to wait for
  EXPECT_EQ(runs, 1);
}

TEST(BindingPoolTest, WorkersRunTasksConcurrently) {
  constexpr int kWorkers = 4;
  BindingPool pool(kWorkers);
  Counter started;
  std::atomic<int> saw_all_started{0};
  std::mutex ids_mu;
  std::set<std::thread::id> ids;
  for (int i = 0; i < kWorkers; ++i) {
    pool.Submit([&] {
      {
        std::lock_guard<std::mutex> lock(ids_mu);
        ids.insert(std::this_thread::get_id());
      }
      started.Increment();
      // Only returns early if every task runs at the same time: a pool
      // running them one after another times out here.
      if (started.WaitFor(kWorkers)) ++saw_all_started;
    });
  }
  pool.Drain();
  EXPECT_EQ(saw_all_started.load(), kWorkers);
  EXPECT_EQ(ids.size(), static_cast<size_t>(kWorkers));
  EXPECT_EQ(ids.count(std::this_thread::get_id()), 0u);
  EXPECT_EQ(pool.InFlight(), 0u);
}

TEST(BindingPoolTest, DrainWaitsForEveryTaskAndInFlightCountsQueuedOnes) {
  BindingPool pool(2);
  Gate gate;
  Counter started;
  std::atomic<int> finished{0};
  constexpr int kTasks = 5;
  for (int i = 0; i < kTasks; ++i) {
    pool.Submit([&] {
      started.Increment();
      EXPECT_TRUE(gate.Wait());
      ++finished;
    });
  }
  // Two run (and block), three wait for a worker: all five are in flight.
  ASSERT_TRUE(started.WaitFor(2));
  EXPECT_EQ(pool.InFlight(), static_cast<size_t>(kTasks));

  std::shared_future<void> drained = RunDetached([&] { pool.Drain(); });
  // Drain cannot return while tasks are blocked.
  EXPECT_EQ(drained.wait_for(std::chrono::milliseconds(50)),
            std::future_status::timeout);
  EXPECT_EQ(finished.load(), 0);

  gate.Open();
  ASSERT_EQ(drained.wait_for(kWaitLimit), std::future_status::ready);
  EXPECT_EQ(finished.load(), kTasks);
  EXPECT_EQ(started.Get(), kTasks);
  EXPECT_EQ(pool.InFlight(), 0u);

  // The pool is reusable after a drain.
  pool.Submit([&] { ++finished; });
  pool.Drain();
  EXPECT_EQ(finished.load(), kTasks + 1);
}

// A shutdown that does not wait for ever: DrainFor gives up at its bound,
// and the tasks no worker started are dropped, never run.
TEST(BindingPoolTest, ABoundedDrainDropsTheTasksNotStarted) {
  BindingPool pool(2);
  Gate gate;
  Counter started;
  std::atomic<int> finished{0};
  for (int i = 0; i < 5; ++i) {
    pool.Submit([&] {
      started.Increment();
      EXPECT_TRUE(gate.Wait());
      ++finished;
    });
  }
  ASSERT_TRUE(started.WaitFor(2));
  EXPECT_FALSE(pool.DrainFor(std::chrono::milliseconds(50)));
  EXPECT_EQ(pool.AbandonQueued(), 3u);
  EXPECT_EQ(pool.InFlight(), 2u);  // the two running
  gate.Open();
  EXPECT_TRUE(pool.DrainFor(kWaitLimit));
  EXPECT_EQ(finished.load(), 2);
  EXPECT_EQ(started.Get(), 2);
  EXPECT_TRUE(pool.DrainFor(std::chrono::milliseconds(0)));
}

TEST(BindingPoolTest, TasksMaySubmitMoreTasks) {
  BindingPool pool(1);
  std::atomic<int> runs{0};
  pool.Submit([&] {
    ++runs;
    pool.Submit([&] { ++runs; });
  });
  pool.Drain();
  EXPECT_EQ(runs.load(), 2);
}

TEST(BindingPoolTest, DestructionDrainsQueuedTasks) {
  auto pool = std::make_unique<BindingPool>(2);
  Gate gate;
  auto finished = std::make_shared<std::atomic<int>>(0);
  constexpr int kTasks = 6;
  for (int i = 0; i < kTasks; ++i) {
    pool->Submit([&gate, finished] {
      EXPECT_TRUE(gate.Wait());
      ++*finished;
    });
  }
  BindingPool* raw = pool.release();
  std::shared_future<void> destroyed = RunDetached([raw] { delete raw; });
  EXPECT_EQ(destroyed.wait_for(std::chrono::milliseconds(50)),
            std::future_status::timeout);
  gate.Open();
  ASSERT_EQ(destroyed.wait_for(kWaitLimit), std::future_status::ready);
  // Every task ran, the queued ones too, before the workers stopped.
  EXPECT_EQ(finished->load(), kTasks);
}

TEST(BindingPoolTest, DestroyingAnIdlePoolStopsItsWorkers) {
  std::shared_future<void> destroyed = RunDetached([] {
    BindingPool pool(3);
    pool.Submit([] {});
    pool.Drain();
  });
  EXPECT_EQ(destroyed.wait_for(kWaitLimit), std::future_status::ready);
}

TEST(BindingPoolTest, AFullQueueMakesSubmitWaitForAWorker) {
  BindingPool pool(1, /*max_queued=*/2);
  Gate release;
  Counter started;
  pool.Submit([&] {
    started.Increment();
    release.Wait();
  });
  ASSERT_TRUE(started.WaitFor(1));
  pool.Submit([] {});
  pool.Submit([] {});  // the queue is full now
  std::atomic<bool> submitted{false};
  std::shared_future<void> third = RunDetached([&] {
    pool.Submit([] {});
    submitted = true;
  });
  // Waiting cannot end while the only worker is busy: a pause shows it.
  EXPECT_EQ(third.wait_for(std::chrono::milliseconds(100)),
            std::future_status::timeout);
  EXPECT_FALSE(submitted.load());
  release.Open();
  EXPECT_EQ(third.wait_for(kWaitLimit), std::future_status::ready);
  pool.Drain();
  EXPECT_EQ(pool.InFlight(), 0u);
}

TEST(BindingPoolTest, PostNeverWaitsForAFullQueue) {
  // A Permit wait ends under whatever lock allowed it: its binding cycle is
  // posted, and must not wait for the busy workers.
  BindingPool pool(1, /*max_queued=*/1);
  Gate release;
  Counter ran;
  pool.Submit([&] { release.Wait(); });
  pool.Submit([&] { ran.Increment(); });  // fills the queue
  std::shared_future<void> posted = RunDetached([&] {
    for (int i = 0; i < 3; ++i) pool.Post([&] { ran.Increment(); });
  });
  EXPECT_EQ(posted.wait_for(kWaitLimit), std::future_status::ready)
      << "Post waited for a worker";
  EXPECT_EQ(ran.Get(), 0);
  release.Open();
  pool.Drain();
  EXPECT_EQ(ran.Get(), 4);
  EXPECT_EQ(pool.InFlight(), 0u);
}

TEST(BindingPoolTest, WithoutWorkersPostedTasksRunAtTheNextSubmitOrDrain) {
  BindingPool pool(0);
  std::vector<std::string> order;
  pool.Post([&] { order.push_back("posted 1"); });
  pool.Post([&] { order.push_back("posted 2"); });
  EXPECT_TRUE(order.empty());
  pool.Submit([&] { order.push_back("submitted"); });
  EXPECT_EQ(order,
            (std::vector<std::string>{"posted 1", "posted 2", "submitted"}));
  // A posted task may post another; Drain runs both.
  pool.Post([&] {
    order.push_back("posted 3");
    pool.Post([&] { order.push_back("posted by 3"); });
  });
  pool.RunPosted();
  EXPECT_EQ(order.back(), "posted by 3");
  pool.Post([&] { order.push_back("posted 4"); });
  pool.Drain();
  EXPECT_EQ(order.back(), "posted 4");
  EXPECT_EQ(pool.InFlight(), 0u);
}

}  // namespace
}  // namespace ksched::scheduler
