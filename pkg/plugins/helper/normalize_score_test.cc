#include "pkg/plugins/helper/normalize_score.h"

#include <gtest/gtest.h>

namespace ksched::plugins::helper {
namespace {

// Cases after kube-scheduler's TestDefaultNormalizeScore.
TEST(DefaultNormalizeScoreTest, ScalesAndReverses) {
  struct Case {
    bool reverse;
    std::vector<int64_t> in;
    std::vector<int64_t> want;
  } cases[] = {
      {false, {10, 20, 30, 40, 50}, {20, 40, 60, 80, 100}},
      {true, {10, 20, 30, 40, 50}, {80, 60, 40, 20, 0}},
      {false, {1000, 10, 20, 30, 40, 50}, {100, 1, 2, 3, 4, 5}},
      {true, {1000, 10, 20, 30, 40, 50}, {0, 99, 98, 97, 96, 95}},
      {false, {1, 1, 1, 1}, {100, 100, 100, 100}},
      {true, {1, 1, 1, 1}, {0, 0, 0, 0}},
      {false, {0, 0, 0, 0}, {0, 0, 0, 0}},
      {true, {0, 0, 0, 0}, {100, 100, 100, 100}},
  };
  for (const Case& c : cases) {
    framework::NodeScoreList scores;
    for (int64_t v : c.in) scores.push_back({"n", v});
    DefaultNormalizeScore(framework::kMaxNodeScore, c.reverse, scores);
    std::vector<int64_t> got;
    for (const auto& s : scores) got.push_back(s.score);
    EXPECT_EQ(got, c.want);
  }
}

}  // namespace
}  // namespace ksched::plugins::helper
