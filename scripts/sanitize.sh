#!/usr/bin/env bash
# The sanitizer half of CI: builds everything with clang under
# AddressSanitizer + UndefinedBehaviorSanitizer, with libFuzzer's coverage
# (build-sanitize/, or $SANITIZE_BUILD_DIR), runs the whole test suite
# there (every seed and regression input of the fuzz targets included),
# then fuzzes each target for $FUZZ_SECONDS (default 30). Any sanitizer
# report fails the test that caused it.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${SANITIZE_BUILD_DIR:-build-sanitize}"
# -O1 with line tables: reports keep file:line, the tests and the fuzzers
# run several times faster than at -O0, and it compiles as fast.
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" \
  -DKSCHED_SANITIZE=ON -DKSCHED_FUZZ=ON -DKSCHED_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"
(cd "$build" && ctest --output-on-failure -j "$(nproc)" --timeout 600)
FUZZ_BUILD_DIR="$build" scripts/fuzz.sh "${FUZZ_SECONDS:-30}"
