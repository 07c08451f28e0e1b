#include "pkg/framework/parallelizer.h"

#include <gtest/gtest.h>

#include <atomic>
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

}  // namespace
}  // namespace ksched::framework
