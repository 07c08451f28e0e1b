#include "pkg/http/open_files.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

namespace ksched::http {
namespace {

class OpenFilesTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved_), 0); }
  void TearDown() override { setrlimit(RLIMIT_NOFILE, &saved_); }
  rlimit saved_{};
};

TEST_F(OpenFilesTest, RaisesTheSoftLimitToTheHardLimit) {
  if (saved_.rlim_max != RLIM_INFINITY && saved_.rlim_max <= 64) {
    GTEST_SKIP() << "hard limit " << saved_.rlim_max << " leaves no room";
  }
  rlimit lowered = saved_;
  lowered.rlim_cur = 64;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);

  auto raised = RaiseOpenFileLimit();
  ASSERT_TRUE(raised.ok()) << raised.error().message();
  EXPECT_EQ(raised->before, 64u);
  rlimit now{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &now), 0);
  EXPECT_EQ(now.rlim_cur, raised->after);
  EXPECT_EQ(now.rlim_max, saved_.rlim_max) << "the hard limit is left alone";
  if (saved_.rlim_max != RLIM_INFINITY) {
    EXPECT_EQ(raised->after, saved_.rlim_max);
  } else {
    EXPECT_GT(raised->after, 64u);
  }
}

TEST_F(OpenFilesTest, LeavesALimitAlreadyAtTheHardLimit) {
  auto first = RaiseOpenFileLimit();
  ASSERT_TRUE(first.ok()) << first.error().message();
  auto second = RaiseOpenFileLimit();
  ASSERT_TRUE(second.ok()) << second.error().message();
  EXPECT_EQ(second->before, first->after);
  EXPECT_EQ(second->after, first->after);
}

}  // namespace
}  // namespace ksched::http
