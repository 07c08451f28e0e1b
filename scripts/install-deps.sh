#!/usr/bin/env bash
# Installs what ksched needs from Debian bookworm's packages. Safe to run
# again: it installs only what is missing.
#
#   scripts/install-deps.sh              build, tests, sanitizers, fuzzing
#   scripts/install-deps.sh --build-only the compiler and libraries ksched
#                                        itself builds with (what
#                                        scripts/run-example.sh needs)
set -euo pipefail

build=(
  cmake g++ make
  libcpprest-dev rapidjson-dev libssl-dev prometheus-cpp-dev libyaml-cpp-dev
  # libyaml's event parser reads large YAML cluster files 8x faster than
  # yaml-cpp, without a node tree.
  libyaml-dev
  # RE2: the regular expressions of CEL selectors (matches, find) use RE2's
  # syntax and linear-time matching, as cel-go does.
  libre2-dev
)
tests=(
  libgtest-dev libgmock-dev libbenchmark-dev
  # The Prometheus server scrapes ksched in a test; promtool lints the
  # exposition.
  prometheus
  # The HTML report's tests load it in headless chromium and read the DOM
  # its scripts drew (test/browser).
  chromium
  # The Helm chart's tests render it with Go's text/template and sprig,
  # the template engine Helm itself uses (test/chart/render.go), and read
  # the API server's gzip'd OpenAPI document with zlib.
  golang-go golang-github-masterminds-sprig-dev golang-github-ghodss-yaml-dev
  golang-github-xeipuuv-gojsonschema-dev zlib1g-dev
  # The sanitizer build CI runs is clang's: ASan, UBSan and libFuzzer
  # (libclang-rt-14-dev), with llvm-symbolizer (llvm-14) for readable
  # reports. strace shows a test that ksched writes no file.
  clang libclang-rt-14-dev llvm-14 strace
  # Keeps compiled objects between runs, so a second run of the suite
  # recompiles only what changed.
  ccache
)

packages=("${build[@]}")
case "${1:-}" in
  --build-only) ;;
  "") packages+=("${tests[@]}") ;;
  *) echo "usage: $0 [--build-only]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages are installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
  sudo=sudo
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
