#include "pkg/plugins/defaultpreemption/pdb.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pkg/plugins/defaultpreemption/testing_util.h"

namespace ksched::plugins::defaultpreemption::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

struct Split {
  std::vector<std::string> violating;
  std::vector<std::string> non_violating;
};

Split SplitPods(const std::vector<api::Pod>& pods,
                const std::vector<api::PodDisruptionBudget>& pdbs) {
  std::vector<framework::PodInfoPtr> infos;
  for (const api::Pod& p : pods) {
    infos.push_back(framework::PodInfo::Create(std::make_shared<api::Pod>(p)));
  }
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> ptrs;
  for (const auto& p : pdbs) {
    ptrs.push_back(std::make_shared<api::PodDisruptionBudget>(p));
  }
  std::vector<framework::PodInfoPtr> v, nv;
  SplitByPdbViolation(infos, CompilePdbs(ptrs), &v, &nv);
  return {Names(v), Names(nv)};
}

// filterPodsWithPDBViolation: the budget is spent in order, so the pods
// after the allowed disruptions violate.
TEST(PdbTest, SpendsTheBudgetInOrder) {
  Split s = SplitPods({MakePod("a").Label("app", "foo").Obj(),
                       MakePod("b").Label("app", "foo").Obj(),
                       MakePod("c").Label("app", "foo").Obj(),
                       MakePod("d").Label("app", "bar").Obj()},
                      {MakePdb("pdb", {{"app", "foo"}}, 1)});
  EXPECT_THAT(s.violating, ElementsAre("b", "c"));
  EXPECT_THAT(s.non_violating, ElementsAre("a", "d"));
}

TEST(PdbTest, DisruptedPodsDoNotSpendTheBudget) {
  Split s = SplitPods({MakePod("a").Label("app", "foo").Obj(),
                       MakePod("b").Label("app", "foo").Obj()},
                      {MakePdb("pdb", {{"app", "foo"}}, 1, {"a"})});
  EXPECT_THAT(s.violating, IsEmpty());
  EXPECT_THAT(s.non_violating, ElementsAre("a", "b"));
}

TEST(PdbTest, EmptyNilAndForeignPdbsMatchNothing) {
  api::PodDisruptionBudget empty = MakePdb("empty", {}, 0);
  api::PodDisruptionBudget nil = MakePdb("nil", {}, 0);
  nil.spec.selector.reset();
  api::PodDisruptionBudget other_ns = MakePdb("other", {{"app", "foo"}}, 0);
  other_ns.metadata.ns = "kube-system";
  api::PodDisruptionBudget invalid = MakePdb("invalid", {}, 0);
  invalid.spec.selector->match_expressions.push_back(
      {"app", api::LabelSelectorOperator::kIn, {}});  // In needs values
  Split s = SplitPods({MakePod("a").Label("app", "foo").Obj()},
                      {empty, nil, other_ns, invalid});
  EXPECT_THAT(s.violating, IsEmpty());
  EXPECT_THAT(s.non_violating, ElementsAre("a"));
}

// A selector that matches pods without a label still does not protect pods
// without any labels: kube skips them.
TEST(PdbTest, PodsWithoutLabelsAreNeverViolating) {
  api::PodDisruptionBudget not_foo = MakePdb("not-foo", {}, 0);
  not_foo.spec.selector->match_expressions.push_back(
      {"app", api::LabelSelectorOperator::kDoesNotExist, {}});
  Split s = SplitPods(
      {MakePod("bare").Obj(), MakePod("x").Label("k", "v").Obj()}, {not_foo});
  EXPECT_THAT(s.violating, ElementsAre("x"));
  EXPECT_THAT(s.non_violating, ElementsAre("bare"));
}

// Every matching PDB is charged; one exhausted PDB is enough to violate.
TEST(PdbTest, AnyExhaustedPdbViolates) {
  Split s =
      SplitPods({MakePod("a").Label("app", "foo").Label("tier", "web").Obj()},
                {MakePdb("generous", {{"app", "foo"}}, 5),
                 MakePdb("strict", {{"tier", "web"}}, 0)});
  EXPECT_THAT(s.violating, ElementsAre("a"));
}

}  // namespace
}  // namespace ksched::plugins::defaultpreemption::testing
