#include "pkg/client/cpprest_threads.h"

#include <gtest/gtest.h>

namespace ksched::client {
namespace {

TEST(CpprestThreadsTest, PoolIsSizedOnceOnly) {
  EXPECT_FALSE(ConfigureCpprestThreads(0));
  // Another test in this process may have started the pool already.
  (void)ConfigureCpprestThreads(3);
  EXPECT_FALSE(ConfigureCpprestThreads(3)) << "a second sizing is refused";
  EXPECT_EQ(DefaultCpprestThreads(), 1);
}

}  // namespace
}  // namespace ksched::client
