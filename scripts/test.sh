#!/usr/bin/env bash
# Fresh machine to green suite: installs dependencies, builds, runs every
# test with ctest; then does it again in the sanitizer build (clang,
# ASan + UBSan) and fuzzes every parser for 30 s each (scripts/sanitize.sh).
# This is what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
(cd "${BUILD_DIR:-build}" && ctest --output-on-failure -j "$(nproc)" --timeout 600)
scripts/sanitize.sh
