#!/usr/bin/env bash
# Fresh machine to first result: installs the build's packages, builds the
# ksched binary alone (no tests, no benchmarks) and schedules the bundled
# example cluster with `ksched simulate`. Extra arguments go to simulate,
# e.g. --output json.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --build-only
build_dir="${BUILD_DIR:-build-example}"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_TESTING=OFF -DKSCHED_BUILD_BENCH=OFF >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target ksched
"$build_dir"/cmd/ksched/ksched simulate --cluster examples/cluster.yaml "$@"
