#!/usr/bin/env bash
# Linux on aarch64 (arm64), proven under qemu-user: builds our arm64
# libenet.so.7 (scripts/build-arm64.sh), builds tests-c/interop/peer.c for
# arm64 against the stock headers and Debian's arm64 libenet.so.7, and runs
# the two-process interop matrix (basic over checksum x compression x
# bandwidth, broadcast, disconnect_now/later, timeouts; both directions) with
# our arm64 library under qemu-aarch64 against x86_64 stock ENet, then
# against Debian's arm64 stock ENet (both sides under qemu). Before the
# matrices it runs the engine's wire:: and proto:: unit tests for aarch64
# under qemu.
#
# usage: scripts/test-arm64.sh [--no-unit-tests] [--only SUBSTRING] [--prebuild]
#   (after scripts/setup-arm64.sh; needs root only for that set-up)
#   --no-unit-tests   skip the unit tests (their debug build of the
#                     dev-dependencies for aarch64 takes a minute or more)
#   --only SUBSTRING  pass --only to both matrices (pick cases by name)
#   --prebuild        only build the library and the unit tests, run
#                     nothing (test-all.sh builds in the background while
#                     other steps run)
# Exit status non-zero if a build, a unit test or any case failed; both
# matrices always run.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

unit_tests=1
prebuild=0
only=()
while [ $# -gt 0 ]; do
    case "$1" in
        --no-unit-tests) unit_tests=0 ;;
        --prebuild) prebuild=1 ;;
        --only) [ $# -ge 2 ] || { echo "test-arm64.sh: --only needs a pattern" >&2; exit 2; }
                only=(--only "$2"); shift ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "test-arm64.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

target=aarch64-unknown-linux-gnu
lib_dir=target/cross/lib
peer_dir=target/cross/interop
stock_arm64=/usr/lib/aarch64-linux-gnu/libenet.so.7
started=$SECONDS
step() { echo; echo "== [$((SECONDS - started)) s] $*"; }

step "build our libenet.so.7 for $target (release, as shipped)"
scripts/build-arm64.sh "$lib_dir"

step "the hot functions first in the arm64 library's text"
NM=aarch64-linux-gnu-nm READELF=aarch64-linux-gnu-readelf \
    tests-c/check_hot_text.sh "$lib_dir/libenet.so.7"

step "the arm64 library's relative relocations packed where its C library applies them"
READELF=aarch64-linux-gnu-readelf \
    tests-c/check_relocations.sh "$lib_dir/libenet.so.7" aarch64-linux-gnu-gcc

step "build peer.c for arm64 against the stock headers, linked to Debian's arm64 $stock_arm64"
[ -e "$stock_arm64" ] || { echo "test-arm64.sh: $stock_arm64 missing (run scripts/setup-arm64.sh)" >&2; exit 2; }
# The stock headers alone, in a private directory: -I/usr/include would put
# the x86_64 glibc headers in front of the cross compiler's own.
rm -rf "$peer_dir/include"
mkdir -p "$peer_dir/include"
cp -r /usr/include/enet "$peer_dir/include/"
# No libenet.so (dev) link exists for arm64, so link the library file itself;
# the peer then records its SONAME, libenet.so.7, and the loader picks stock
# or ours as on x86_64.
aarch64-linux-gnu-gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -O2 -I"$peer_dir/include" \
    tests-c/interop/peer.c "$stock_arm64" -ldl -o "$peer_dir/peer"
# (grep -q on a variable: in a pipe under pipefail, its early exit could
# fail readelf with SIGPIPE.)
dynamic=$(aarch64-linux-gnu-readelf -d "$peer_dir/peer")
grep -q 'NEEDED.*\[libenet.so.7\]' <<<"$dynamic"
echo "peer: $peer_dir/peer (AArch64, NEEDED libenet.so.7)"

# The same toolchain as build-arm64.sh (Debian's cargo and arm64 std,
# which unwinds, as tests must).
unit_test_build=(env RUSTC=/usr/bin/rustc
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER=qemu-aarch64
    CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
    /usr/bin/cargo test --locked -p enet-rs --lib --target "$target"
    --target-dir target/cross)
if [ $prebuild -eq 1 ]; then
    [ $unit_tests -eq 1 ] && "${unit_test_build[@]}" --no-run
    exit 0
fi

status=0
if [ $unit_tests -eq 1 ]; then
    step "unit tests wire:: and proto:: for $target under qemu-aarch64"
    # Three long tests are left to the host run (test-all.sh), as they are
    # arithmetic that emulation only slows down: the random-input parser
    # test (8 min under qemu, unoptimized), the 1,000,000 connect ids (15 s)
    # and the randomized sequence-map model (7 s). The other 76 take ~1 s.
    "${unit_test_build[@]}" -- wire:: proto:: \
        --skip wire::test_suite::fuzz --skip connect_ids_of_one_host_never_repeat \
        --skip sequence_map::tests::behaves_as_an_ordinary_map \
        || status=1
fi

# Under emulation, for both matrices:
#  --time-scale 2: every driver wait and peer deadline doubled (the cases
#    take seconds, the bounds are 10-65 s; a loaded CI machine slows qemu);
#  --steady-throttle: ENet lowers its packet throttle on round-trip jitter,
#    and qemu's jitter made stock arm64 <-> stock arm64 drop up to 80 % of
#    the unreliable packets of a basic case, below its 50 % floor (peer.c
#    prints the throttle it queued at; tests-c/interop/README.md).
emulated=(--time-scale 2 --steady-throttle)
ours=(--ours-lib "$lib_dir/libenet.so.7" --ours-peer "$peer_dir/peer" --ours-launcher qemu-aarch64)

# The two matrices run one after the other. Side by side they saved about
# 80 s, but then three emulated peers shared the 2 cores with what CI runs
# in the background, and a broadcast case's 100 KB fragmented packet took
# longer than its paused host can stay silent (the server failed with
# "paused client 0 reported before the others").
names=("our arm64 library (qemu-aarch64) <-> x86_64 stock ENet, both directions"
       "our arm64 library <-> Debian's arm64 stock ENet (both under qemu-aarch64), both directions")
step "interop: ${names[0]}"
tests-c/interop/run_matrix.sh "${ours[@]}" "${emulated[@]}" ${only[@]+"${only[@]}"} || status=1
step "interop: ${names[1]}"
tests-c/interop/run_matrix.sh "${ours[@]}" "${emulated[@]}" ${only[@]+"${only[@]}"} \
    --stock-lib "$stock_arm64" --stock-peer "$peer_dir/peer" --stock-launcher qemu-aarch64 \
    || status=1

step "done: $([ $status -eq 0 ] && echo "every step passed" || echo "FAILURES above")"
exit $status
