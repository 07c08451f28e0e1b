#include "pkg/framework/status.h"

#include <gtest/gtest.h>

namespace ksched::framework {
namespace {

TEST(StatusTest, DefaultIsSuccessWithoutDetails) {
  Status s;
  EXPECT_TRUE(s.IsSuccess());
  EXPECT_TRUE(s.reasons().empty());
  EXPECT_EQ(s.Message(), "");
  EXPECT_EQ(s.plugin(), "");
}

TEST(StatusTest, RejectedCodes) {
  EXPECT_TRUE(Status(Code::kUnschedulable).IsRejected());
  EXPECT_TRUE(Status(Code::kUnschedulableAndUnresolvable).IsRejected());
  EXPECT_TRUE(Status(Code::kPending).IsRejected());
  EXPECT_FALSE(Status(Code::kError).IsRejected());
  EXPECT_FALSE(Status(Code::kWait).IsRejected());
  EXPECT_FALSE(Status(Code::kSkip).IsRejected());
}

TEST(StatusTest, ReasonsJoinAndCopiesAreIndependent) {
  Status s(Code::kUnschedulable,
           std::vector<std::string>{"Insufficient cpu", "Too many pods"});
  s.WithPlugin("NodeResourcesFit");
  EXPECT_EQ(s.Message(), "Insufficient cpu, Too many pods");
  Status copy = s;
  copy.AppendReason("Insufficient memory");
  EXPECT_EQ(s.reasons().size(), 2u);
  EXPECT_EQ(copy.reasons().size(), 3u);
  EXPECT_EQ(copy.plugin(), "NodeResourcesFit");
  EXPECT_FALSE(s == copy);
  copy = s;
  EXPECT_TRUE(s == copy);
  EXPECT_EQ(CodeName(Code::kUnschedulableAndUnresolvable),
            "UnschedulableAndUnresolvable");
}

TEST(StatusTest, ConstantsShareTheirReasonsUntilChanged) {
  static const Status::Constant kMissed(Code::kUnschedulable, "node(s) missed",
                                        "SomePlugin");
  Status a = kMissed.status();
  Status b = a;
  EXPECT_EQ(a.code(), Code::kUnschedulable);
  EXPECT_EQ(a.Message(), "node(s) missed");
  EXPECT_EQ(a.plugin(), "SomePlugin");
  // Shared, not copied: the same vector behind both.
  EXPECT_EQ(&a.reasons(), &b.reasons());
  EXPECT_EQ(&a.reasons(), &kMissed.status().reasons());
  // The plugin name it already carries changes nothing.
  b.WithPlugin("SomePlugin");
  EXPECT_EQ(&a.reasons(), &b.reasons());
  // Any change copies first and leaves the constant alone.
  b.AppendReason("and more");
  EXPECT_NE(&a.reasons(), &b.reasons());
  EXPECT_EQ(b.Message(), "node(s) missed, and more");
  EXPECT_EQ(kMissed.status().Message(), "node(s) missed");
  Status c = kMissed.status();
  c.WithPlugin("Other");
  EXPECT_EQ(c.plugin(), "Other");
  EXPECT_EQ(c.Message(), "node(s) missed");
  EXPECT_EQ(kMissed.status().plugin(), "SomePlugin");
  EXPECT_TRUE(a == kMissed.status());
  Status moved = std::move(b);
  EXPECT_EQ(moved.Message(), "node(s) missed, and more");
}

}  // namespace
}  // namespace ksched::framework
