#include "pkg/framework/cycle_state.h"

#include <gtest/gtest.h>

namespace ksched::framework {
namespace {

struct Counter final : StateData {
  int value = 0;
  std::shared_ptr<StateData> Clone() const override {
    return std::make_shared<Counter>(*this);
  }
};
struct Other final : StateData {
  std::shared_ptr<StateData> Clone() const override {
    return std::make_shared<Other>(*this);
  }
};

constexpr StateKey kCounterKey{"Counter"};
constexpr StateKey kOtherKey{"Other"};

TEST(CycleStateTest, ReadsBackWhatWasWrittenByKeyAndType) {
  CycleState state;
  EXPECT_EQ(state.Read<Counter>(kCounterKey), nullptr);
  auto c = std::make_shared<Counter>();
  c->value = 3;
  state.Write(kCounterKey, c);
  state.Write(kOtherKey, std::make_shared<Other>());
  ASSERT_NE(state.Read<Counter>(kCounterKey), nullptr);
  EXPECT_EQ(state.Read<Counter>(kCounterKey)->value, 3);
  // A key holding another type reads as absent rather than miscasting.
  EXPECT_EQ(state.Read<Counter>(kOtherKey), nullptr);
  state.Delete(kCounterKey);
  EXPECT_EQ(state.Read<Counter>(kCounterKey), nullptr);
}

TEST(CycleStateTest, CloneIsDeep) {
  CycleState state;
  auto c = std::make_shared<Counter>();
  c->value = 1;
  state.Write(kCounterKey, c);
  state.SkipFilter("NodePorts");
  auto copy = state.Clone();
  copy->Read<Counter>(kCounterKey)->value = 42;
  EXPECT_EQ(state.Read<Counter>(kCounterKey)->value, 1);
  EXPECT_TRUE(copy->FilterSkipped("NodePorts"));
  EXPECT_FALSE(copy->FilterSkipped("NodeAffinity"));
}

}  // namespace
}  // namespace ksched::framework
