#include "pkg/util/malloc_arenas.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace ksched::util {

int LimitMallocArenas() {
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr) return 0;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const int limit = static_cast<int>(std::max(2L, cpus));
  return mallopt(M_ARENA_MAX, limit) == 1 ? limit : 0;
}

}  // namespace ksched::util
