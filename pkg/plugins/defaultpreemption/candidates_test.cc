#include "pkg/plugins/defaultpreemption/candidates.h"

#include <gtest/gtest.h>

#include "pkg/plugins/defaultpreemption/testing_util.h"

namespace ksched::plugins::defaultpreemption::testing {
namespace {

framework::PodInfoPtr P(const std::string& name, int32_t priority,
                        int64_t start_micros = 0) {
  return framework::PodInfo::Create(std::make_shared<api::Pod>(
      WithStart(MakePod(name).Priority(priority).Obj(), start_micros)));
}

Candidate C(std::string node, std::vector<framework::PodInfoPtr> pods,
            int64_t pdb_violations = 0) {
  return Candidate{std::move(node), Victims{std::move(pods), pdb_violations}};
}

const api::Timestamp kNow = api::Timestamp(std::chrono::seconds(1000));

// pickOneNodeForPreemption's criteria, each deciding on its own.
TEST(PickOneNodeForPreemptionTest, FewestPdbViolationsFirst) {
  std::vector<Candidate> cs = {
      C("node1", {P("a", kLowPriority)}, 2),
      C("node2", {P("b", kHighPriority), P("c", kHighPriority)}, 1),
      C("node3", {P("d", kMidPriority)}, 1)};
  EXPECT_EQ(PickOneNodeForPreemption(cs, kNow), "node3");
}

TEST(PickOneNodeForPreemptionTest, LowestHighestPriorityVictim) {
  std::vector<Candidate> cs = {
      C("node1", {P("a", kMidPriority)}),
      C("node2",
        {P("b", kLowPriority), P("c", kLowPriority), P("d", kLowPriority)})};
  EXPECT_EQ(PickOneNodeForPreemption(cs, kNow), "node2");
}

TEST(PickOneNodeForPreemptionTest, SmallestSumOfShiftedPriorities) {
  // Without the shift, node1's two negative victims would sum lower.
  std::vector<Candidate> cs = {
      C("node1",
        {P("a", kMidPriority), P("b", kNegPriority), P("c", kNegPriority)}),
      C("node2", {P("d", kMidPriority), P("e", kNegPriority)})};
  EXPECT_EQ(PickOneNodeForPreemption(cs, kNow), "node2");
}

TEST(PickOneNodeForPreemptionTest, FewestVictims) {
  // Equal highest priority and equal shifted sums cannot differ in count
  // unless priorities differ; equal-count ties fall through to start time.
  std::vector<Candidate> cs = {
      C("node1", {P("a", kLowPriority, 5), P("b", kLowPriority, 5)}),
      C("node2", {P("c", kLowPriority, 5)})};
  EXPECT_EQ(PickOneNodeForPreemption(cs, kNow), "node2");
}

TEST(PickOneNodeForPreemptionTest, LatestStartOfHighestPriorityVictims) {
  std::vector<Candidate> cs = {
      C("node1", {P("a", kMidPriority, 10), P("b", kLowPriority, 99)}),
      C("node2", {P("c", kMidPriority, 20), P("d", kLowPriority, 1)}),
      C("node3", {P("e", kMidPriority, 15), P("f", kLowPriority, 50)})};
  EXPECT_EQ(PickOneNodeForPreemption(cs, kNow), "node2");
}

TEST(PickOneNodeForPreemptionTest, RemainingTiesGoToTheFirst) {
  std::vector<Candidate> cs = {C("node2", {P("a", kLowPriority, 7)}),
                               C("node1", {P("b", kLowPriority, 7)})};
  EXPECT_EQ(PickOneNodeForPreemption(cs, kNow), "node2");
  EXPECT_EQ(PickOneNodeForPreemption({}, kNow), "");
}

TEST(MoreImportantPodTest, PriorityThenLongerRunning) {
  // Running pods, as the cache keeps them.
  auto bound = [](const api::Pod& pod) {
    return framework::PodInfo::CreateBound(pod);
  };
  const auto high = *bound(MakePod("h").Priority(kHighPriority).Obj());
  const auto old_low =
      *bound(WithStart(MakePod("o").Priority(kLowPriority).Obj(), 1));
  const auto new_low =
      *bound(WithStart(MakePod("n").Priority(kLowPriority).Obj(), 2));
  const auto no_start = *bound(MakePod("x").Priority(kLowPriority).Obj());
  EXPECT_TRUE(MoreImportantPod(high, old_low, kNow));
  EXPECT_FALSE(MoreImportantPod(old_low, high, kNow));
  EXPECT_TRUE(MoreImportantPod(old_low, new_low, kNow));
  EXPECT_FALSE(MoreImportantPod(new_low, old_low, kNow));
  // A pod without a start time counts as starting now.
  EXPECT_TRUE(MoreImportantPod(new_low, no_start, kNow));
  EXPECT_EQ(PodStartTime(no_start, kNow), kNow);
  EXPECT_EQ(PodPriority(MakePod("d").Obj()), 0);
}

}  // namespace
}  // namespace ksched::plugins::defaultpreemption::testing
