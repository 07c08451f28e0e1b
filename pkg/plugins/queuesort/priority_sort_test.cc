#include "pkg/plugins/queuesort/priority_sort.h"

#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::plugins {
namespace {

using framework::QueuedPodInfo;
using util::Clock;

QueuedPodInfo Queued(std::optional<int32_t> priority, Clock::TimePoint ts) {
  testing::PodBuilder b("p");
  if (priority) b.Priority(*priority);
  QueuedPodInfo q;
  q.pod_info = b.Info();
  q.timestamp = ts;
  return q;
}

// "<index>_<case name>" with what gtest does not allow in names as '_'.
template <typename Case>
std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string out = std::to_string(info.index) + "_";
  for (char ch : info.param.name) {
    out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  return out;
}

struct LessCase {
  std::string name;
  QueuedPodInfo p1;
  QueuedPodInfo p2;
  bool expected;
  friend void PrintTo(const LessCase& c, std::ostream* os) { *os << c.name; }
};

// Cases from kube-scheduler's TestLess (queuesort/priority_sort_test.go),
// plus ties and the default priority of a pod without spec.priority.
std::vector<LessCase> LessCases() {
  const int32_t low = 10;
  const int32_t high = 100;
  const Clock::TimePoint t1{std::chrono::seconds(1000)};
  const Clock::TimePoint t2 = t1 + std::chrono::seconds(1);
  return {
      {"p1.priority less than p2.priority", Queued(low, t1), Queued(high, t1),
       false},
      {"p1.priority greater than p2.priority", Queued(high, t1),
       Queued(low, t1), true},
      {"equal priority. p1 is added to schedulingQ earlier than p2",
       Queued(high, t1), Queued(high, t2), true},
      {"equal priority. p2 is added to schedulingQ earlier than p1",
       Queued(high, t2), Queued(high, t1), false},
      {"equal priority and timestamp: neither goes first", Queued(high, t1),
       Queued(high, t1), false},
      {"no priority counts as zero, below a positive priority",
       Queued(std::nullopt, t1), Queued(1, t2), false},
      {"no priority counts as zero, above a negative priority",
       Queued(std::nullopt, t2), Queued(-1, t1), true},
  };
}

class PrioritySortLessTest : public ::testing::TestWithParam<LessCase> {};

TEST_P(PrioritySortLessTest, Less) {
  const LessCase& c = GetParam();
  testing::FakeHandle handle;
  auto plugin = NewPrioritySort(nullptr, handle);
  ASSERT_TRUE(plugin.ok());
  auto* sort = dynamic_cast<framework::QueueSortPlugin*>(plugin->get());
  ASSERT_NE(sort, nullptr);
  EXPECT_EQ(sort->Name(), "PrioritySort");
  EXPECT_EQ(sort->Less(c.p1, c.p2), c.expected);
}

INSTANTIATE_TEST_SUITE_P(TestLess, PrioritySortLessTest,
                         ::testing::ValuesIn(LessCases()), CaseName<LessCase>);

}  // namespace
}  // namespace ksched::plugins
