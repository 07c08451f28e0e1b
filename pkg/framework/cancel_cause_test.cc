#include "pkg/framework/cancel_cause.h"

#include <gtest/gtest.h>

namespace ksched::framework {
namespace {

TEST(CancelCauseTest, TheFirstCauseStands) {
  CancelCause c;
  EXPECT_FALSE(c.cancelled());
  EXPECT_EQ(c.cause(), "");
  c.Cancel("preempted by DefaultPreemption");
  c.Cancel("some other PreBind operation failed");
  EXPECT_TRUE(c.cancelled());
  EXPECT_EQ(c.cause(), "preempted by DefaultPreemption");
}

TEST(CancelCauseTest, AChildIsCancelledWithItsParent) {
  CancelCause parent;
  CancelCause child(&parent);
  parent.Cancel("preempted by DefaultPreemption");
  EXPECT_TRUE(child.cancelled());
  EXPECT_EQ(child.cause(), "preempted by DefaultPreemption");
  // Cancelling it afterwards keeps the parent's cause.
  child.Cancel("some other PreBind operation failed");
  EXPECT_EQ(child.cause(), "preempted by DefaultPreemption");
}

TEST(CancelCauseTest, AChildCancelledFirstKeepsItsCauseAndSparesItsParent) {
  CancelCause parent;
  CancelCause child(&parent);
  child.Cancel("some other PreBind operation failed");
  EXPECT_FALSE(parent.cancelled());
  parent.Cancel("preempted by DefaultPreemption");
  EXPECT_EQ(child.cause(), "some other PreBind operation failed");
}

}  // namespace
}  // namespace ksched::framework
