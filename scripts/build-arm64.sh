#!/usr/bin/env bash
# Cross-builds our libenet.so.7 for Linux on aarch64 (arm64), the way the
# shipped library is built (release, ENET_RS_SHIPPED_LIBRARY=1, --locked),
# and stages it as DIR/libenet.so.7 (default DIR: target/cross/lib).
#
# usage: scripts/build-arm64.sh [DIR]     (after scripts/setup-arm64.sh)
# Prints the staged path last. Run the arm64 library under qemu-aarch64 with
# LD_LIBRARY_PATH=DIR; scripts/test-arm64.sh does that for the interop matrix.
#
# The same as scripts/build-linux-target.sh aarch64-unknown-linux-gnu [DIR]
# (Debian's Rust with its prebuilt arm64 std, libstd-rust-web-dev:arm64;
# the target table is scripts/lib/linux-targets.sh).
set -euo pipefail
[ $# -le 1 ] || { sed -n '2,8p' "$0" >&2; exit 2; }
exec "$(dirname "$0")/build-linux-target.sh" aarch64-unknown-linux-gnu "$@"
