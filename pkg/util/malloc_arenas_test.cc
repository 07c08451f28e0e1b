#include "pkg/util/malloc_arenas.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#if defined(__SANITIZE_ADDRESS__)
#define KSCHED_GLIBC_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KSCHED_GLIBC_MALLOC 0
#endif
#endif
#ifndef KSCHED_GLIBC_MALLOC
#define KSCHED_GLIBC_MALLOC 1
#endif

namespace ksched::util {
namespace {

TEST(MallocArenasTest, OnePerCpuAtLeastTwo) {
  unsetenv("MALLOC_ARENA_MAX");
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  // AddressSanitizer's malloc takes no mallopt: malloc is left as it is.
  EXPECT_EQ(LimitMallocArenas(),
            KSCHED_GLIBC_MALLOC ? static_cast<int>(std::max(2L, cpus)) : 0);
}

TEST(MallocArenasTest, TheUsersLimitStands) {
  setenv("MALLOC_ARENA_MAX", "7", /*overwrite=*/1);
  EXPECT_EQ(LimitMallocArenas(), 0);
  unsetenv("MALLOC_ARENA_MAX");
}

}  // namespace
}  // namespace ksched::util
