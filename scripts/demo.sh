#!/usr/bin/env bash
# Builds the library with CMake and runs the loopback demo on it.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2 --target loopback_demo
echo "== loopback demo on $(readlink -f build/lib/libenet.so.7)"
build/loopback_demo
