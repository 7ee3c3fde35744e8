#!/usr/bin/env bash
# The Windows half of the test suite, run here on Linux: enet.dll
# cross-built with mingw-w64, its layout proven against stock's Windows
# headers, and the engine's tests, the C test programs and the two-process
# interop with stock ENet run under wine. Called by scripts/test-all.sh;
# needs the packages of scripts/setup-debian.sh.
# usage: scripts/test-windows.sh [--prebuild]
#   --prebuild   only build the Rust test programs, no wine (test-all.sh
#                builds them and enet.dll in the background while other
#                steps run; a later run then finds everything built)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TERM_COLOR=never
step() { echo; echo "== windows: $*"; }
prebuild=0
case "${1:-}" in
    --prebuild) prebuild=1 ;;
    "") ;;
    *) echo "test-windows.sh: unknown argument $1" >&2; exit 2 ;;
esac

# The Rust tests that run under wine, as one list of cargo-test.sh
# arguments: the layout proof (layout-check), the engine's unit tests and
# its tests of sockets, addresses, the clock, thread-safe sending, hostile
# input, leaks and encrypted hosts, and the safe API's. One cargo
# invocation builds and runs them all: cargo unifies the features of the
# host's build dependencies per invocation, so separate invocations for
# layout-check (bindgen's syn) and the rest built the whole cryptography
# stack twice, through zeroize's derive macro.
rust_tests=(-p layout-check -p enet-rs -p enet-safe --lib --test layout
            --test net_socket --test net_address --test net_time --test net_time_unset
            --test thread_safe_send --test hostile --test no_leaks --test dtls
            --test handles --test sender --test encryption)

if [ $prebuild -eq 1 ]; then
    step "build the Rust tests (no wine)"
    tests-c/windows/cargo-test.sh -q --no-run "${rust_tests[@]}"
    exit 0
fi

. tests-c/windows/wine-env.sh
# One wineserver for the whole run (started once the prefix exists), so no
# test program races a server that is shutting down; `wineserver -k` at the
# end stops it and anything left in this prefix, which is ours alone.
wine cmd /c exit 0 >/dev/null 2>&1
wineserver -w
wineserver -p
trap 'wineserver -k 2>/dev/null || true' EXIT

dll_dir=target/windows/x86_64-pc-windows-gnu/release

step "build enet.dll (scripts/build-windows.sh: release, panics abort)"
scripts/build-windows.sh

step "exports of enet.dll (objdump): stock enet.dll's, and the Linux library's"
tests-c/windows/check_exports.sh "$dll_dir/enet.dll" /usr/lib/x86_64-linux-gnu/libenet.so.7

step "our headers with mingw-w64 (C89-C11, C++98/C++11, with and without ENET_DLL)"
tests-c/windows/compile_headers.sh

step "the Rust tests under wine: layout (every struct, field offset and constant against stock's headers laid out for x86_64-w64-mingw32), the engine's (unit tests, sockets, addresses, clock, thread-safe sending, hostile input, leaks, encrypted hosts), the safe API's (stale handles, sending from four threads through the Windows waker, encrypted hosts)"
tests-c/windows/cargo-test.sh -q --no-fail-fast "${rust_tests[@]}"

step "C programs under wine (hardening, extensions, the tutorial pair across systems)"
tests-c/windows/run_programs.sh "$dll_dir"

step "wire interop across systems: enet.dll under wine against stock ENet on Linux, both directions, the interop matrix"
tests-c/windows/interop.sh "$dll_dir"
