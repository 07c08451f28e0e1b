#!/usr/bin/env bash
# Writes manifests/ksched.yaml: the Helm chart (helm/ksched) rendered with
# its default values, as `helm template ksched helm/ksched -n kube-system`
# renders it, through the chart renderer the tests use (test/chart). The
# chart tests fail while the file differs from the chart.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${BUILD_DIR:-$root/build}/test/chart"
mkdir -p "$out"
GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOCACHE="$out/gocache" \
  go build -o "$out/chart_render" "$root/test/chart/render.go"
{
  cat "$root/test/chart/manifests_header.txt"
  (cd "$root/helm" && "$out/chart_render" --name ksched --namespace kube-system ksched)
} > "$root/manifests/ksched.yaml"
echo "wrote manifests/ksched.yaml"
