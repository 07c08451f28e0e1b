#include "pkg/framework/label_sets.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace ksched::framework {
namespace {

api::StringMap Labels(const std::string& app, const std::string& hash) {
  return {{"app", app}, {"pod-template-hash", hash}};
}

TEST(LabelSetsTest, EqualSetsShareOneCopy) {
  LabelSets sets;
  auto a = sets.Intern(Labels("web", "7c9f"));
  auto b = sets.Intern(Labels("web", "7c9f"));
  auto c = sets.Intern(Labels("web", "8d0a"));
  auto d = sets.Intern({{"app", "web"}});
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(a.get(), c.get());
  EXPECT_NE(a.get(), d.get());
  EXPECT_EQ(*a, Labels("web", "7c9f"));
  EXPECT_EQ(*c, Labels("web", "8d0a"));
  EXPECT_EQ(sets.size(), 3u);
}

TEST(LabelSetsTest, ASetNobodyHoldsIsMadeAfresh) {
  LabelSets sets;
  {
    auto a = sets.Intern(Labels("web", "1"));
    EXPECT_EQ(sets.size(), 1u);
  }
  EXPECT_EQ(sets.size(), 0u);
  auto again = sets.Intern(Labels("web", "1"));
  EXPECT_EQ(*again, Labels("web", "1"));
  EXPECT_EQ(sets.size(), 1u);
}

// Sets of pods long gone do not pile up.
TEST(LabelSetsTest, ReleasedSetsAreSwept) {
  LabelSets sets;
  auto kept = sets.Intern(Labels("kept", "0"));
  for (int i = 0; i < 10000; ++i) {
    (void)sets.Intern(Labels("gone", std::to_string(i)));
  }
  EXPECT_EQ(sets.size(), 1u);
  EXPECT_LE(sets.tracked(), 64u);
  EXPECT_EQ(sets.Intern(Labels("kept", "0")).get(), kept.get());
}

// Many live sets stay found while the table grows and sweeps.
TEST(LabelSetsTest, LiveSetsSurviveSweeps) {
  LabelSets sets;
  std::vector<std::shared_ptr<const api::StringMap>> held;
  for (int i = 0; i < 1000; ++i) {
    held.push_back(sets.Intern(Labels("app-" + std::to_string(i), "h")));
  }
  EXPECT_EQ(sets.size(), 1000u);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(sets.Intern(Labels("app-" + std::to_string(i), "h")).get(),
              held[i].get());
  }
}

TEST(LabelSetsTest, ConcurrentInternsAgree) {
  LabelSets sets;
  constexpr int kThreads = 4;
  constexpr int kSets = 200;
  std::vector<std::vector<const api::StringMap*>> seen(kThreads);
  std::vector<std::shared_ptr<const api::StringMap>> keep_alive[kThreads];
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kSets; ++i) {
          auto set = sets.Intern(Labels("app-" + std::to_string(i), "h"));
          seen[t].push_back(set.get());
          keep_alive[t].push_back(std::move(set));
        }
      });
    }
  }
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(seen[t], seen[0]);
  EXPECT_EQ(sets.size(), static_cast<size_t>(kSets));
}

}  // namespace
}  // namespace ksched::framework
