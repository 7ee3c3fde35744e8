#!/usr/bin/env bash
# The Windows half of the test suite, run here on Linux: enet.dll
# cross-built with mingw-w64, its layout proven against stock's Windows
# headers, and the engine's tests, the C test programs and the two-process
# interop with stock ENet run under wine. Called by scripts/test-all.sh;
# needs the packages of scripts/setup-debian.sh.
# usage: scripts/test-windows.sh [--target TARGET] [--prebuild]
#   --target     x86_64-pc-windows-gnu (the default) or i686-pc-windows-gnu:
#                32-bit enet.dll (target/windows/i686-pc-windows-gnu), its
#                tests built in target/win-i686 and run under Debian's
#                32-bit wine from scripts/setup-targets.sh's private root
#                (tests-c/windows/wine-env.sh), the same steps
#   --prebuild   only build the Rust test programs, no wine (test-all.sh
#                builds them and enet.dll in the background while other
#                steps run; a later run then finds everything built)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TERM_COLOR=never
target=x86_64-pc-windows-gnu
prebuild=0
while [ $# -gt 0 ]; do
    case "$1" in
        --prebuild) prebuild=1; shift ;;
        --target) [ $# -ge 2 ] || { echo "test-windows.sh: --target needs a target" >&2; exit 2; }
                  target=$2; shift 2 ;;
        --target=*) target=${1#--target=}; shift ;;
        *) echo "test-windows.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
. scripts/lib/windows-targets.sh
windows_target "$target" || exit 2
label=windows$WT_SUFFIX objdump=$WT_MINGW-objdump
# The Windows test scripts (cargo-test.sh, wine-env.sh, run_programs.sh,
# interop.sh) take the target from here.
export ENET_WIN_TARGET=$target
step() { echo; echo "== $label: $*"; }

# The Rust tests that run under wine, as one list of cargo-test.sh
# arguments: the layout proof (layout-check), the engine's unit tests and
# its tests of sockets, addresses, the clock, thread-safe sending, hostile
# input, leaks and encrypted hosts, and the safe API's. One cargo
# invocation builds and runs them all: cargo unifies the features of the
# host's build dependencies per invocation, so separate invocations for
# layout-check (bindgen's syn) and the rest built the whole cryptography
# stack twice, through zeroize's derive macro.
rust_tests=(-p layout-check -p enet-rs -p enet-safe --lib --test layout
            --test net_time --test net_time_unset --test no_leaks --test dtls
            --test handles --test sender --test encryption)
# The topics of the engine's test binary (tests/engine/) that run under
# wine, run as a second invocation over the same packages (so the same
# build) with the topics as filters.
engine_tests=(-p layout-check -p enet-rs -p enet-safe --test engine)
engine_topics=(net_socket:: net_address:: thread_safe_send:: hostile::)

if [ $prebuild -eq 1 ]; then
    step "build the Rust tests (no wine)"
    tests-c/windows/cargo-test.sh -q --no-run "${rust_tests[@]}" --test engine
    exit 0
fi

. tests-c/windows/wine-env.sh
# One wineserver for the whole run; `wine_stop` at the end stops it and
# anything left in this prefix, which is ours alone.
wine_start_server
trap wine_stop EXIT

dll_dir=target/windows/$target/release

if [ "$target" = x86_64-pc-windows-gnu ]; then
    step "build enet.dll (cargo xtask build-windows: release, panics abort)"
    cargo xtask build-windows
else
    step "build enet.dll (cargo xtask build-windows --target $target: release, panics abort)"
    cargo xtask build-windows --target "$target"
fi

step "exports of enet.dll (objdump): stock enet.dll's, and the Linux library's"
OBJDUMP=$objdump tests-c/windows/check_exports.sh "$dll_dir/enet.dll" /usr/lib/x86_64-linux-gnu/libenet.so.7

step "our headers with mingw-w64 (C89-C11, C++98/C++11, with and without ENET_DLL)"
if [ "$target" = x86_64-pc-windows-gnu ]; then
    tests-c/windows/compile_headers.sh
else
    tests-c/windows/compile_headers.sh --target "$target"
fi

step "the Rust tests under wine: layout (every struct, field offset and constant against stock's headers laid out for $WT_MINGW), the engine's (unit tests, sockets, addresses, clock, thread-safe sending, hostile input, leaks, encrypted hosts), the safe API's (stale handles, sending from four threads through the Windows waker, encrypted hosts)"
rust_failed=0
tests-c/windows/cargo-test.sh -q --no-fail-fast "${rust_tests[@]}" || rust_failed=1
tests-c/windows/cargo-test.sh -q --no-fail-fast "${engine_tests[@]}" -- "${engine_topics[@]}" ||
    rust_failed=1
[ $rust_failed -eq 0 ] || { echo "FAILED: the Rust tests under wine" >&2; exit 1; }

step "C programs under wine (hardening, extensions, the tutorial pair across systems)"
tests-c/windows/run_programs.sh "$dll_dir"

step "wire interop across systems: enet.dll under wine against stock ENet on Linux, both directions, the interop matrix"
tests-c/windows/interop.sh "$dll_dir"
