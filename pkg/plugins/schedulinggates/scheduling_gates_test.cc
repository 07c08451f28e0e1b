#include "pkg/plugins/schedulinggates/scheduling_gates.h"

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/framework/testing/fake_handle.h"
#include "pkg/framework/testing/wrappers.h"

namespace ksched::plugins {
namespace {

using framework::Code;
using testing::PodBuilder;

// "<index>_<case name>" with what gtest does not allow in names as '_'.
template <typename Case>
std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string out = std::to_string(info.index) + "_";
  for (char ch : info.param.name) {
    out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  return out;
}

struct PreEnqueueCase {
  std::string name;
  PodBuilder pod;
  Code code;
  std::vector<std::string> reasons;
  friend void PrintTo(const PreEnqueueCase& c, std::ostream* os) {
    *os << c.name;
  }
};

// Cases from kube-scheduler's TestPreEnqueue (schedulinggates), plus a
// single gate.
std::vector<PreEnqueueCase> PreEnqueueCases() {
  return {
      {"pod does not carry scheduling gates",
       PodBuilder("p"),
       Code::kSuccess,
       {}},
      {"pod carries scheduling gates",
       PodBuilder("p").SchedulingGate("foo").SchedulingGate("bar"),
       Code::kUnschedulableAndUnresolvable,
       {"waiting for scheduling gates: [foo bar]"}},
      {"pod carries one scheduling gate",
       PodBuilder("p").SchedulingGate("example.com/quota"),
       Code::kUnschedulableAndUnresolvable,
       {"waiting for scheduling gates: [example.com/quota]"}},
  };
}

class SchedulingGatesPreEnqueueTest
    : public ::testing::TestWithParam<PreEnqueueCase> {};

TEST_P(SchedulingGatesPreEnqueueTest, PreEnqueue) {
  const PreEnqueueCase& c = GetParam();
  testing::FakeHandle handle;
  auto plugin = NewSchedulingGates(nullptr, handle);
  ASSERT_TRUE(plugin.ok());
  auto* pre_enqueue = dynamic_cast<framework::PreEnqueuePlugin*>(plugin->get());
  ASSERT_NE(pre_enqueue, nullptr);
  EXPECT_EQ(pre_enqueue->Name(), "SchedulingGates");
  framework::Status s = pre_enqueue->PreEnqueue(c.pod.Obj());
  EXPECT_EQ(framework::CodeName(s.code()), framework::CodeName(c.code));
  EXPECT_EQ(s.reasons(), c.reasons);
}

INSTANTIATE_TEST_SUITE_P(TestPreEnqueue, SchedulingGatesPreEnqueueTest,
                         ::testing::ValuesIn(PreEnqueueCases()),
                         CaseName<PreEnqueueCase>);

TEST(SchedulingGatesTest, EventsToRegister) {
  SchedulingGates plugin;
  auto events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.Label(), "Pod/UpdatePodSchedulingGatesEliminated");
}

}  // namespace
}  // namespace ksched::plugins
