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

}  // namespace
}  // namespace ksched::framework
