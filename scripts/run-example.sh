#!/usr/bin/env bash
# Fresh machine to first result: installs dependencies, builds, and schedules
# the bundled example cluster with `ksched simulate`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/cmd/ksched/ksched simulate --cluster examples/cluster.yaml "$@"
