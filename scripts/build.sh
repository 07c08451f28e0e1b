#!/usr/bin/env bash
# Configures and builds ksched, its tests and benchmarks in build/ (or
# $BUILD_DIR). Extra arguments go to CMake's configure step, e.g.
# -DKSCHED_SANITIZE=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DBUILD_TESTING=ON -DKSCHED_BUILD_BENCH=ON "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
