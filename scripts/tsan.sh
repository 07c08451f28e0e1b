#!/usr/bin/env bash
# ThreadSanitizer over the concurrent parts: the scheduling queue, the
# cache, the scheduling and binding cycles, the informers, the REST client
# and its watches, the writers, leader election, the extender and metrics
# servers, and CEL programs evaluated from several threads. Builds their
# unit tests with clang and -fsanitize=thread in build-tsan/ (or
# $TSAN_BUILD_DIR) and runs each; any data race or
# lock-order inversion fails it. Not part of CI's time budget: run it by
# hand (minutes on two cores, most of it building).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TSAN_BUILD_DIR:-build-tsan}"
tests=(queue_test cache_test scheduler_test informer_test client_test
       apiwriter_test leader_test extender_test metrics_test http_test
       cel_test)
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" \
  -DKSCHED_TSAN=ON -DKSCHED_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${tests[@]}"

export TSAN_OPTIONS="suppressions=$PWD/test/sanitizers/tsan.supp:halt_on_error=1:second_deadlock_stack=1"
failed=()
for t in "${tests[@]}"; do
  binary=$(find "$build/pkg" -type f -name "$t" -perm -u+x | head -1)
  log="$build/$t.tsan.log"
  if "$binary" >"$log" 2>&1; then
    echo "tsan: $t: $(grep -E '^\[  PASSED  \]' "$log" | tail -1), no race"
  else
    echo "tsan: $t FAILED; see $log"
    grep -m3 -E 'WARNING: ThreadSanitizer|FAILED' "$log" | sed 's/^/    /'
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "tsan: ${failed[*]} failed" >&2
  exit 1
fi
echo "tsan: ${#tests[@]} test programs, no report"
