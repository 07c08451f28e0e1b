#include "pkg/util/malloc_arenas.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace ksched::util {
namespace {

TEST(MallocArenasTest, OnePerCpuAtLeastTwo) {
  unsetenv("MALLOC_ARENA_MAX");
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  EXPECT_EQ(LimitMallocArenas(), static_cast<int>(std::max(2L, cpus)));
}

TEST(MallocArenasTest, TheUsersLimitStands) {
  setenv("MALLOC_ARENA_MAX", "7", /*overwrite=*/1);
  EXPECT_EQ(LimitMallocArenas(), 0);
  unsetenv("MALLOC_ARENA_MAX");
}

}  // namespace
}  // namespace ksched::util
