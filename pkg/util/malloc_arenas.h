// How many malloc arenas the process may have.
//
// glibc gives each thread that allocates while the others hold their arenas
// an arena of its own, up to eight per core. ksched's threads (informers,
// binding workers, the event writer, the HTTP servers' pools) each end up
// with one, and every arena keeps its own free pages: on a 2-core machine
// that was about 7 MiB of a 70 MiB scheduler, with no CPU gained.
#pragma once

namespace ksched::util {

// Limits the arenas to one per online CPU (at least two), unless the user
// chose a limit through MALLOC_ARENA_MAX. Returns the limit set, or 0 when
// it left malloc as it was. Call before the process starts threads.
int LimitMallocArenas();

}  // namespace ksched::util
