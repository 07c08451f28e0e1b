#!/usr/bin/env bash
# The sanitizer half of CI: builds everything with clang under
# AddressSanitizer + UndefinedBehaviorSanitizer, with libFuzzer's coverage
# (build-sanitize/, or $SANITIZE_BUILD_DIR), runs the whole test suite
# there (every seed and regression input of the fuzz targets included),
# then fuzzes each target for $FUZZ_SECONDS (default 30). Any sanitizer
# report fails the test that caused it.
#
#   scripts/sanitize.sh            build, test and fuzz; the fuzzing runs
#                                  even when a test failed, and the script
#                                  fails if either did
#   scripts/sanitize.sh build|test|fuzz   one step only
set -uo pipefail
cd "$(dirname "$0")/.."
build="${SANITIZE_BUILD_DIR:-build-sanitize}"

do_build() {
  # -O1 with line tables: reports keep file:line, the tests and the fuzzers
  # run several times faster than at -O0, and it compiles as fast.
  CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" \
    -DKSCHED_SANITIZE=ON -DKSCHED_FUZZ=ON -DKSCHED_BUILD_BENCH=OFF \
    -DBUILD_TESTING=ON >/dev/null &&
    cmake --build "$build" -j "$(nproc)"
}
do_test() {
  (cd "$build" && ctest --output-on-failure -j "$(nproc)" --timeout 600)
}
do_fuzz() {
  FUZZ_BUILD_DIR="$build" scripts/fuzz.sh "${FUZZ_SECONDS:-30}"
}

case "${1:-all}" in
  build) do_build ;;
  test) do_test ;;
  fuzz) do_fuzz ;;
  all)
    do_build || exit 1
    rc=0
    do_test || rc=1
    do_fuzz || rc=1
    exit $rc
    ;;
  *) echo "usage: $0 [build|test|fuzz]" >&2; exit 2 ;;
esac
