#!/usr/bin/env bash
# Fuzzes every libFuzzer target of a KSCHED_FUZZ=ON build for a while and
# prints how many inputs each ran.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# SECONDS_PER_TARGET defaults to 30 (what CI runs); give 600 or more for a
# long run. The build is $FUZZ_BUILD_DIR (default build-sanitize, which
# scripts/sanitize.sh makes). Targets run $(nproc) at a time. Each grows a
# corpus in <build>/test/fuzz/corpus/<target>, kept between runs, from the
# seeds gathered at configure time. A crash, a sanitizer report or a failed
# property check fails the script and leaves the input in
# <build>/test/fuzz/crashes/<target>/; once fixed, copy it into
# test/fuzz/regressions/<target>/ so ctest runs it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
shift || true
build="${FUZZ_BUILD_DIR:-build-sanitize}"
fuzz_dir="$build/test/fuzz"
if [ ! -d "$fuzz_dir/seeds" ]; then
  echo "fuzz: no fuzz targets in $build; build it with scripts/sanitize.sh" >&2
  exit 1
fi

# As ctest runs the sanitizer build (cmake/ksched.cmake).
export UBSAN_OPTIONS="suppressions=$PWD/test/sanitizers/ubsan.supp:print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/test/sanitizers/lsan.supp"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for seeds in "$fuzz_dir"/seeds/*/; do
    targets+=("$(basename "$seeds")")
  done
fi

run_one() {
  local target="$1"
  local corpus="$fuzz_dir/corpus/$target"
  local crashes="$fuzz_dir/crashes/$target"
  local log="$fuzz_dir/logs/$target.log"
  mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
  local rc=0
  # -rss_limit_mb: a parser that needs more than this for one input is a
  # bug (huge inputs are refused before they are held).
  "$fuzz_dir/$target" -max_total_time="$seconds" -print_final_stats=1 \
    -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$crashes/" \
    "$corpus" "$fuzz_dir/seeds/$target" "test/fuzz/regressions/$target" \
    >"$log" 2>&1 || rc=$?
  local runs corpus_size
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  corpus_size=$(find "$corpus" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    printf '%-20s %12s inputs in %ss, corpus %s, no crash\n' \
      "$target" "${runs:-?}" "$seconds" "$corpus_size"
  else
    printf '%-20s FAILED (exit %s) after %s inputs; see %s\n' \
      "$target" "$rc" "${runs:-?}" "$log"
    grep -m5 -E 'ERROR:|fuzz check failed|runtime error|Test unit written' \
      "$log" | sed 's/^/    /'
  fi
  return "$rc"
}

jobs="$(nproc)"
failed=0
pids=()
for target in "${targets[@]}"; do
  if [ ! -x "$fuzz_dir/$target" ]; then
    echo "fuzz: no target $target in $fuzz_dir" >&2
    exit 1
  fi
  run_one "$target" &
  pids+=($!)
  # At most $jobs at once: wait for the oldest.
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do
  wait "$pid" || failed=1
done
if [ "$failed" -ne 0 ]; then
  echo "fuzz: a target failed" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, no crash"
