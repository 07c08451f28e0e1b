#!/usr/bin/env bash
# Fresh machine to green suite: installs dependencies, builds, runs every
# test with ctest; then does it again in the sanitizer build (clang,
# ASan + UBSan) and fuzzes every parser for 30 s each (scripts/sanitize.sh).
# This is what CI runs (.ci/run).
#
# Every stage runs even when an earlier one failed (a failing test does not
# hide what the fuzzers would find); the script fails at the end if any
# stage did, and prints how long each took.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh || exit 1

failed=()
summary=()
stage() {
  local name="$1"
  shift
  local start=$SECONDS rc=0
  echo "== $name"
  "$@" || rc=$?
  summary+=("$(printf '%-28s %5ss  %s' "$name" $((SECONDS - start)) \
    "$([ $rc -eq 0 ] && echo ok || echo "FAILED (exit $rc)")")")
  [ $rc -eq 0 ] || failed+=("$name")
}

build_dir="${BUILD_DIR:-build}"
stage "build" scripts/build.sh
stage "tests" bash -c "cd '$build_dir' && ctest --output-on-failure -j $(nproc) --timeout 600"
# The sanitizer build, its tests, and the fuzzing (each its own stage).
stage "sanitizer build" scripts/sanitize.sh build
stage "sanitizer tests" scripts/sanitize.sh test
stage "fuzzing" scripts/sanitize.sh fuzz

echo "== summary (total ${SECONDS}s)"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -ne 0 ]; then
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "all stages passed"
