#!/usr/bin/env bash
# Linux on aarch64 (arm64), proven under qemu-user: builds our arm64
# libenet.so.7 (`cargo xtask build-arm64`), builds tests-c/interop/peer.c for
# arm64 against the stock headers and Debian's arm64 libenet.so.7, and runs
# the two-process interop matrix (basic over checksum x compression x
# bandwidth, broadcast, disconnect_now/later, timeouts; both directions) with
# our arm64 library under qemu-aarch64 against x86_64 stock ENet, then
# against Debian's arm64 stock ENet (both sides under qemu). Before the
# matrices it runs the engine's wire:: and proto:: unit tests and the layout
# check for aarch64 under qemu, and compares the range coder and CRC-32 with
# x86_64 stock's byte for byte.
#
# usage: scripts/test-arm64.sh [--no-unit-tests] [--only SUBSTRING] [--prebuild]
#   (after scripts/setup-arm64.sh; needs root only for that set-up)
#   --no-unit-tests   skip the unit and layout tests (their debug build for
#                     aarch64 takes a minute or more)
#   --only SUBSTRING  pass --only to both matrices (pick cases by name)
#   --prebuild        only build the library and the tests, run nothing
#                     (test-all.sh builds in the background while other
#                     steps run)
# Exit status non-zero if a build, a unit test or any case failed; both
# matrices always run.
#
# The same as scripts/test-linux-target.sh aarch64-unknown-linux-gnu [...],
# which also takes --skip and --reduced.
set -euo pipefail
for arg in "$@"; do
    case "$arg" in -h|--help) sed -n '2,25p' "$0"; exit 0 ;; esac
done
exec "$(dirname "$0")/test-linux-target.sh" aarch64-unknown-linux-gnu "$@"
