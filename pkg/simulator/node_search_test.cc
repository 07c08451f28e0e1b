#include "pkg/simulator/node_search.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>

namespace ksched::simulator {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A cluster where the training job fits from `fits_from` added nodes on,
// and smaller pods take the first nodes: with 1 to fits_from-1 nodes the
// same one pod is left pending, which is no sign that more do not help.
NodeSearchTrial TrainingJobFitsFrom(int fits_from, std::vector<int>* calls) {
  return [=](int n) -> util::Result<std::set<std::string>> {
    calls->push_back(n);
    if (n >= fits_from) return std::set<std::string>{};
    return std::set<std::string>{"ml/train-0"};
  };
}

TEST(SearchNodeCountTest, DoesNotStopWhenOneMoreNodeLeavesAsManyPending) {
  std::vector<int> calls;
  auto found = SearchNodeCount({.unscheduled_without = {"ml/train-0"},
                                .lower_bound = 1,
                                .upper_bound = 30},
                               TrainingJobFitsFrom(6, &calls));
  ASSERT_TRUE(found.ok()) << found.error().message();
  EXPECT_TRUE(found->found);
  EXPECT_EQ(found->nodes, 6);
  // Gallop 1, 2, 4, 8, then bisect 6, 5.
  EXPECT_THAT(calls, ElementsAre(1, 2, 4, 8, 6, 5));
  EXPECT_THAT(found->tried, ElementsAre(0, 1, 2, 4, 8, 6, 5));
}

TEST(SearchNodeCountTest, FindsTheSmallestCountForEveryAnswer) {
  for (int answer = 1; answer <= 40; ++answer) {
    for (int lower = 1; lower <= answer; lower += 3) {
      std::vector<int> calls;
      auto found = SearchNodeCount({.unscheduled_without = {"ml/train-0"},
                                    .lower_bound = lower,
                                    .upper_bound = 40},
                                   TrainingJobFitsFrom(answer, &calls));
      ASSERT_TRUE(found.ok());
      EXPECT_EQ(found->nodes, answer) << "lower bound " << lower;
      // Galloping and bisecting take about twice log2 of the gap.
      EXPECT_LE(
          calls.size(),
          2u * (std::bit_width(static_cast<unsigned>(answer - lower + 1))) + 1)
          << "answer " << answer << ", lower bound " << lower;
    }
  }
}

TEST(SearchNodeCountTest, ATightLowerBoundCostsOneRun) {
  std::vector<int> calls;
  auto found = SearchNodeCount({.unscheduled_without = {"ml/train-0"},
                                .lower_bound = 6,
                                .upper_bound = 30},
                               TrainingJobFitsFrom(6, &calls));
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->nodes, 6);
  EXPECT_THAT(calls, ElementsAre(6));
}

TEST(SearchNodeCountTest, PodsNoNodeCanTakeAreNotWaitedFor) {
  std::vector<int> calls;
  auto found = SearchNodeCount(
      {.unscheduled_without = {"ml/giant-0", "ml/train-0"},
       .hopeless = {"ml/giant-0"},
       .lower_bound = 1,
       .upper_bound = 30},
      [&](int n) -> util::Result<std::set<std::string>> {
        calls.push_back(n);
        if (n >= 3) return std::set<std::string>{"ml/giant-0"};
        return std::set<std::string>{"ml/giant-0", "ml/train-0"};
      });
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->found);
  EXPECT_EQ(found->nodes, 3);
  EXPECT_THAT(found->still_pending, IsEmpty());
}

TEST(SearchNodeCountTest, NothingToWaitForNeedsNoRun) {
  std::vector<int> calls;
  auto found = SearchNodeCount(
      {.unscheduled_without = {"ml/giant-0"}, .hopeless = {"ml/giant-0"}},
      TrainingJobFitsFrom(1, &calls));
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->nodes, 0);
  EXPECT_THAT(calls, IsEmpty());
  EXPECT_THAT(found->tried, ElementsAre(0));
}

TEST(SearchNodeCountTest, SaysWhatTheUpperBoundLeavesPending) {
  std::vector<int> calls;
  auto found = SearchNodeCount({.unscheduled_without = {"ml/train-0"},
                                .lower_bound = 1,
                                .upper_bound = 10},
                               TrainingJobFitsFrom(100, &calls));
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->found);
  EXPECT_EQ(found->nodes, 10);
  EXPECT_THAT(found->still_pending, ElementsAre("ml/train-0"));
  EXPECT_THAT(calls, ElementsAre(1, 2, 4, 8, 10));
}

TEST(SearchNodeCountTest, ALowerBoundAboveTheUpperTriesTheUpper) {
  std::vector<int> calls;
  auto found = SearchNodeCount({.unscheduled_without = {"ml/train-0"},
                                .lower_bound = 50,
                                .upper_bound = 10},
                               TrainingJobFitsFrom(50, &calls));
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->found);
  EXPECT_THAT(calls, ElementsAre(10));
}

TEST(SearchNodeCountTest, ATrialsErrorEndsTheSearch) {
  auto found = SearchNodeCount(
      {.unscheduled_without = {"ml/train-0"}, .upper_bound = 10},
      [](int) -> util::Result<std::set<std::string>> {
        return util::Error("no profiles configured");
      });
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.error().message(), "no profiles configured");
}

}  // namespace
}  // namespace ksched::simulator
