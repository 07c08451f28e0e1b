// What a fuzz target does when a property it checks does not hold: print
// what broke and abort, which libFuzzer reports as a crash and saves the
// input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>

#define KSCHED_FUZZ_CHECK(condition, what)                               \
  do {                                                                   \
    if (!(condition)) {                                                  \
      std::fprintf(stderr, "fuzz check failed at %s:%d: %s\n", __FILE__, \
                   __LINE__, (what));                                    \
      std::abort();                                                      \
    }                                                                    \
  } while (0)
