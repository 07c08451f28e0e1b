#include "pkg/util/cancellation.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace ksched::util {
namespace {

TEST(CancellationTest, RunsRegisteredCallbacksOnce) {
  Cancellation c;
  int runs = 0;
  auto reg = c.OnCancel([&] { ++runs; });
  EXPECT_FALSE(c.cancelled());
  c.Cancel();
  c.Cancel();
  EXPECT_TRUE(c.cancelled());
  EXPECT_EQ(runs, 1);
}

TEST(CancellationTest, RegisteringAfterCancelRunsAtOnce) {
  Cancellation c;
  c.Cancel();
  bool ran = false;
  auto reg = c.OnCancel([&] { ran = true; });
  EXPECT_TRUE(ran);
}

TEST(CancellationTest, EndedRegistrationNeverRuns) {
  Cancellation c;
  bool ran = false;
  {
    auto reg = c.OnCancel([&] { ran = true; });
  }
  auto moved_from = c.OnCancel([&] { ran = true; });
  Cancellation::Registration holder = std::move(moved_from);
  holder.Reset();
  c.Cancel();
  EXPECT_FALSE(ran);
}

TEST(CancellationTest, WaitForTimesOutWhenNotCancelled) {
  Cancellation c;
  EXPECT_FALSE(c.WaitFor(std::chrono::milliseconds(5)));
}

TEST(CancellationTest, CancelWakesAWaiter) {
  Cancellation c;
  std::atomic<bool> woke{false};
  std::thread waiter([&] { woke = c.WaitFor(std::chrono::hours(1)); });
  c.Cancel();
  waiter.join();
  EXPECT_TRUE(woke);
}

}  // namespace
}  // namespace ksched::util
