#!/usr/bin/env bash
# Builds the library and prints the benchmark table, stock and ours side by
# side in one run (see bench/run.sh for what is measured).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2 --target enet_build >/dev/null
bench/run.sh --ours build/lib "$@"
