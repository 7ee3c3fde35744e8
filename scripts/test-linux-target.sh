#!/usr/bin/env bash
# Our library on another Linux target, proven here: natively as 32-bit
# processes (i686) or under qemu-user (aarch64, armv7, s390x). Builds our
# libenet.so.7 for TARGET as shipped (`cargo xtask build-linux-target`),
# builds tests-c/interop/peer.c for TARGET against the stock headers and
# Debian's stock libenet.so.7 for TARGET, and runs the two-process interop
# matrix (tests-c/interop/run_matrix.sh: basic over checksum x compression
# x bandwidth, broadcast, disconnect_now/later, timeouts; both directions)
# with our library on TARGET against x86_64 stock ENet, then against
# Debian's stock ENet for TARGET (both sides on TARGET). Before the
# matrices, one test build for TARGET runs the engine's wire:: and proto::
# unit tests and tools/layout-check (every struct size, alignment, field
# offset, enum value and constant of ours against stock's headers laid out
# for TARGET by clang). Per target also:
#   i686:  ENet's tutorial pair (tests-c/tutorial/) built against Debian's
#          i386 stock library, relinked onto ours (run_pairs.sh), after
#          proving which library each side maps;
#   s390x: (big-endian) the range coder and CRC-32 of our s390x library
#          and of Debian's s390x one against x86_64 stock's, byte for byte
#          (tests-c/cross_range_coder.c --dump), and ours against Debian's
#          s390x in one process (its cross test).
# The per-target table (compiler, launcher, stock library, std, the
# environment our side runs with) is scripts/lib/linux-targets.sh; on
# s390x our side runs with ENET_RS_UDP_OFFLOAD=off because qemu-user does
# not byte-swap UDP offload's control messages (see there).
#
# usage: scripts/test-linux-target.sh TARGET [--no-unit-tests] [--integration]
#            [--only SUBSTRING] [--skip SUBSTRING]... [--reduced] [--prebuild]
#   (after scripts/setup-targets.sh, or setup-arm64.sh for aarch64)
#   --no-unit-tests   skip the unit and layout tests (their debug build for
#                     TARGET, std included where it is compiled here, takes
#                     minutes)
#   --integration     also the engine's integration tests (tests/engine/ and
#                     tests/*.rs: the simulated hosts, sockets, time, the
#                     range coder, the hostile inputs, leaks) in the same
#                     test build, run on TARGET (minutes more to build
#                     and, emulated, to run)
#   --only SUBSTRING  pass --only to both matrices (pick cases by name)
#   --skip SUBSTRING  pass --skip to both matrices (repeatable)
#   --reduced         the matrices' CI selection: basic over checksum x
#                     compression (no limited bandwidth), broadcast, every
#                     disconnect kind, one timeout case (the client's)
#   --prebuild        only build the library, the peer and the tests'
#                     binaries, run nothing (test-all.sh builds in the
#                     background while other steps run)
# Exit status non-zero if a build, a test or any case failed; every step
# after the builds runs.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
. scripts/lib/linux-targets.sh
me=test-linux-target.sh

[ $# -ge 1 ] || { sed -n '27,46p' "$0" >&2; exit 2; }
case "$1" in -h|--help) sed -n '2,46p' "$0"; exit 0 ;; esac
target=$1
shift
linux_target "$target" || exit 2
linux_target_cargo_env "$target"

unit_tests=1
integration=0
prebuild=0
select=()
while [ $# -gt 0 ]; do
    case "$1" in
        --no-unit-tests) unit_tests=0 ;;
        --integration) integration=1 ;;
        --prebuild) prebuild=1 ;;
        --only|--skip) [ $# -ge 2 ] || { echo "$me: $1 needs a pattern" >&2; exit 2; }
                select+=("$1" "$2"); shift ;;
        --reduced) select+=(--skip bandwidth=64000 --skip timeout/victim=server) ;;
        -h|--help) sed -n '2,46p' "$0"; exit 0 ;;
        *) echo "$me: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
[ $integration -eq 0 ] || [ $unit_tests -eq 1 ] ||
    { echo "$me: --integration needs the unit tests' build (no --no-unit-tests)" >&2; exit 2; }

lib_dir=$LT_DIR/lib
peer_dir=$LT_DIR/interop
stock_dir=$(dirname "$LT_STOCK")
started=$SECONDS
step() { echo; echo "== [$((SECONDS - started)) s] $*"; }
status=0
# fail WHAT: a failed check after the builds; the remaining steps still run.
fail() { echo "FAILED: $*"; status=1; }

step "build our libenet.so.7 for $target (release, as shipped)"
cargo xtask build-linux-target "$target" "$lib_dir"

if [ "$LT_STD" = prebuilt ]; then
    # (A std compiled here takes the legacy symbol names, which
    # link/hot-text.txt does not name; only the engine's would be first.)
    step "the hot functions first in the $target library's text"
    NM=$LT_GNU-nm READELF=$LT_GNU-readelf tests-c/check_hot_text.sh "$lib_dir/libenet.so.7"
fi

step "the $target library's relative relocations packed where its C library applies them"
READELF=$LT_GNU-readelf tests-c/check_relocations.sh "$lib_dir/libenet.so.7" "$LT_GNU-gcc"

[ -e "$LT_STOCK" ] || { echo "$me: Debian's stock $LT_STOCK missing (run $LT_SETUP)" >&2; exit 2; }
# The stock headers alone, in a private directory: -I/usr/include would put
# the x86_64 glibc headers in front of the cross compiler's own.
rm -rf "$peer_dir/include"
mkdir -p "$peer_dir/include"
cp -r /usr/include/enet "$peer_dir/include/"
# A program for TARGET built against stock's headers and Debian's stock
# library for TARGET. No libenet.so (dev) link exists for TARGET, so link
# the library file itself; the program then records its SONAME,
# libenet.so.7, and the loader picks stock or ours as on x86_64. Where the
# stock library is not installed (unpacked in a private root), the program
# also searches its directory (DT_RUNPATH), after LD_LIBRARY_PATH: with
# LD_LIBRARY_PATH unset it maps stock, with ours there ours.
stock_build() { # OUTPUT SOURCE... : a program for TARGET linked to stock
    local out=$1 rpath=()
    shift
    [[ "$stock_dir" == /usr/lib/* ]] || rpath=("-Wl,-rpath,$stock_dir")
    "$LT_GNU-gcc" -std=c99 -Wall -Wextra -Wpedantic -Werror -O2 -I"$peer_dir/include" \
        "$@" "$LT_STOCK" ${rpath[@]+"${rpath[@]}"} -ldl -o "$out"
    # (grep -q on a variable: in a pipe under pipefail, its early exit could
    # fail readelf with SIGPIPE.)
    local headers
    headers=$("$LT_GNU-readelf" -h -d "$out")
    grep -q 'NEEDED.*\[libenet.so.7\]' <<<"$headers" &&
        grep -q "Machine: *$LT_MACHINE\$" <<<"$headers" ||
        { echo "$me: $out is not an $LT_MACHINE program needing libenet.so.7" >&2; exit 1; }
}
step "build peer.c for $target against the stock headers, linked to Debian's $LT_STOCK"
stock_build "$peer_dir/peer" tests-c/interop/peer.c
echo "peer: $peer_dir/peer ($LT_MACHINE, NEEDED libenet.so.7)"

# What runs a program for TARGET in the tests: nothing (native), the
# launcher itself if it is one word, or a script that sets our side's
# environment and execs the launcher (run_matrix.sh takes one executable,
# which must exec so that the PID it stops is the peer's).
launcher_for() { # SIDE (ours|stock): prints the launcher, or nothing
    local side=$1 env=""
    [ "$side" = ours ] && env=$LT_OURS_ENV
    if [ -z "$env" ] && [[ "$LT_LAUNCHER" != *" "* ]]; then
        echo "$LT_LAUNCHER"
        return
    fi
    local script
    script="$(pwd)/$peer_dir/run-$side"
    {
        echo '#!/bin/sh'
        echo "# Runs a $target program for the $side side ($me)."
        [ -z "$env" ] || echo "export $env"
        echo "exec ${LT_LAUNCHER:+$LT_LAUNCHER }\"\$@\""
    } >"$script"
    chmod +x "$script"
    echo "$script"
}
ours_launcher=$(launcher_for ours)
stock_launcher=$(launcher_for stock)

# The tests' build: the engine's library tests and layout-check, in one
# invocation so they share one build of enet-rs and of std. Debian's
# prebuilt std unwinds; a std compiled here is told to. Without enet-rs's
# default feature (ring, the DTLS record cipher, whose C the unit tests
# run here do not need): no ring C code compiled for the target.
std_args=()
[ "$LT_STD" = prebuilt ] || std_args=(-Zbuild-std=std,panic_unwind)
# --integration: the engine's integration tests that need no other
# program; natively also the three long simulations (2.5 min on i686) and
# the range coder's (2 min under qemu-s390x, unoptimized; the
# cross_range_coder step covers it there).
# The test binaries, and the topics of the engine's (tests/engine/) that
# run, as filters.
integration_tests=(engine net_time net_time_unset no_leaks)
engine_topics=(wrapping_arithmetic net_address net_socket hostile netsim_hosts thread_safe_send
    sim_basic sim_deadlines sim_lifecycle sim_options sim_reassembly sim_timers)
[ -n "$LT_LAUNCHER" ] || engine_topics+=(range_coder sim_lossy sim_flood sim_recovery)
test_args=()
if [ $integration -eq 1 ]; then
    for name in "${integration_tests[@]}"; do test_args+=(--test "$name"); done
fi
test_build=(env "${LT_CARGO_ENV[@]}" RUSTC_BOOTSTRAP=1
    /usr/bin/cargo test --locked -p enet-rs --lib -p layout-check --test layout
    ${test_args[@]+"${test_args[@]}"} --no-default-features --target "$target"
    --target-dir "$LT_DIR" ${std_args[@]+"${std_args[@]}"})
if [ $unit_tests -eq 1 ]; then
    step "build the unit and layout tests${test_args[*]:+ and the integration tests} for $target"
    "${test_build[@]}" --no-run --message-format=json-render-diagnostics >"$LT_DIR/tests.json"
fi

step "build tests-c/cross_range_coder.c for $target and for x86_64"
"$LT_GNU-gcc" -std=c99 -Wall -Wextra -Wpedantic -Werror -O2 \
    tests-c/cross_range_coder.c -ldl -o "$peer_dir/cross_range_coder"
gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -O2 \
    tests-c/cross_range_coder.c -ldl -o "$peer_dir/cross_range_coder.x86_64"
if [[ "$target" == i686-* ]]; then
    step "build ENet's tutorial for $target: against stock's headers and library, and against ours"
    stock_build "$peer_dir/tutorial_stock" tests-c/tutorial/tutorial.c
    "$LT_GNU-gcc" -std=c99 -Wall -Wextra -Wpedantic -Werror -O2 -Iinclude \
        tests-c/tutorial/tutorial.c "$lib_dir/libenet.so.7" -Wl,-rpath,"$(pwd)/$lib_dir" \
        -o "$peer_dir/tutorial_ours"
fi
[ $prebuild -eq 1 ] && exit 0

if [ $unit_tests -eq 1 ]; then
    # The test executables the build made, by target name.
    test_exe() {
        python3 -c 'import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == sys.argv[2]:
        print(m["executable"])' "$LT_DIR/tests.json" "$1"
    }
    enet_tests=$(test_exe enet)
    layout_tests=$(test_exe layout)
    [ -n "$enet_tests" ] && [ -n "$layout_tests" ] || { echo "$me: no test executables in $LT_DIR/tests.json" >&2; exit 1; }
    step "unit tests wire:: and proto:: for $target${LT_LAUNCHER:+ under ${LT_LAUNCHER%% *}}"
    # Three long tests are left to the host run (test-all.sh), as they are
    # arithmetic that emulation only slows down: the random-input parser
    # test (8 min under qemu, unoptimized), the 1,000,000 connect ids (15 s)
    # and the randomized sequence-map model (7 s).
    $LT_LAUNCHER "$enet_tests" wire:: proto:: \
        --skip wire::test_suite::fuzz --skip connect_ids_of_one_host_never_repeat \
        --skip sequence_map::tests::behaves_as_an_ordinary_map || fail "unit tests"
    step "layout: our types and constants against stock's headers laid out for $target"
    # How many checks build.rs generated from the headers for TARGET (the
    # test itself refuses fewer than 400 layout and 100 value checks).
    checks=$(ls -t "$LT_DIR/$target"/debug/build/layout-check-*/out/checks.rs 2>/dev/null | head -n 1 || true)
    [ -n "$checks" ] && echo "generated for $target: $(grep -c 'LayoutCheck {' "$checks") layout checks," \
        "$(grep -c 'ValueCheck {' "$checks") value checks ($checks)"
    if $LT_LAUNCHER "$layout_tests" >"$LT_DIR/layout.out" 2>&1; then
        grep -E '^(test |test result)' "$LT_DIR/layout.out"
    else
        cat "$LT_DIR/layout.out"
        fail "layout tests"
    fi
fi

if [ $integration -eq 1 ]; then
    step "integration tests for $target${LT_LAUNCHER:+ under ${LT_LAUNCHER%% *}}: ${integration_tests[*]} (engine: ${engine_topics[*]})"
    # Under qemu-user (7.2) one socket test cannot pass: qemu returns 0
    # from a sendmsg without an iovec and sends nothing (the kernel sends an
    # empty datagram), so the test's empty datagram never arrives. The tests
    # run with our side's environment (UDP offload off on s390x).
    skips=()
    [ -z "$LT_LAUNCHER" ] || skips=(--skip udp_scatter_gather_round_trip)
    for name in "${integration_tests[@]}"; do
        exe=$(test_exe "$name")
        [ -n "$exe" ] || { fail "no test executable $name"; continue; }
        filters=()
        [ "$name" != engine ] || filters=("${engine_topics[@]/%/::}")
        if env $LT_OURS_ENV $LT_LAUNCHER "$exe" ${filters[@]+"${filters[@]}"} ${skips[@]+"${skips[@]}"} \
            >"$LT_DIR/$name.out" 2>&1; then
            echo "$name: $(grep '^test result' "$LT_DIR/$name.out" | tail -n 1)"
        else
            cat "$LT_DIR/$name.out"
            fail "integration test $name"
        fi
    done
fi

# The range coder and CRC-32 byte for byte against x86_64 stock's: on s390x
# this is the big-endian proof of both (the wire stays big-endian whatever
# the host's order), on 32-bit targets of their size_t arithmetic. Then ours
# against Debian's stock for the target in one process (round trips both
# ways, corrupt streams, a sweep).
# (Fewer inputs under emulation: the dumps and the sweep take ~10 s there.)
codec_cases=10000 codec_sweep=20000
[ -z "$LT_LAUNCHER" ] || codec_cases=4000 codec_sweep=6000
step "range coder and CRC-32: our $target library and Debian's against x86_64 stock's, byte for byte ($codec_cases inputs)"
"$peer_dir/cross_range_coder.x86_64" --dump /usr/lib/x86_64-linux-gnu/libenet.so.7 $codec_cases \
    >"$peer_dir/codec.x86_64-stock" || fail "x86_64 stock's dump"
for side in ours stock; do
    library=$lib_dir/libenet.so.7
    [ $side = stock ] && library=$LT_STOCK
    if $LT_LAUNCHER "$peer_dir/cross_range_coder" --dump "$library" $codec_cases >"$peer_dir/codec.$side" &&
        cmp "$peer_dir/codec.x86_64-stock" "$peer_dir/codec.$side"; then
        echo "PASS $side ($library): $(stat -c %s "$peer_dir/codec.$side") bytes identical to x86_64 stock's"
    else
        fail "range coder or CRC-32 of $library differ from x86_64 stock's"
    fi
done
step "range coder and CRC-32: ours against Debian's $target stock in one process ($codec_sweep sweep inputs)"
$LT_LAUNCHER "$peer_dir/cross_range_coder" "$LT_STOCK" "$lib_dir/libenet.so.7" $codec_sweep \
    | tail -n 2 || fail "cross_range_coder on $target"

if [[ "$target" == i686-* ]]; then
    # A 32-bit program built against Debian's i386 stock library, run on
    # ours by LD_LIBRARY_PATH alone. First which library each way maps
    # (the tutorial server's /proc/PID/maps while it waits for a client).
    step "ENet's tutorial built against Debian's i386 stock library: which library it maps"
    for side in stock ours; do
        want=$LT_STOCK path=""
        [ $side = ours ] && want=$(pwd)/$lib_dir/libenet.so.7 path=$lib_dir
        # Each side writes its own file, removed first: a PORT line left by
        # the other side would let the wait end before this child has even
        # exec'd, and its maps would still be the forked shell's.
        out=$peer_dir/maps-$side.out
        rm -f "$out"
        LD_LIBRARY_PATH=$path "$peer_dir/tutorial_stock" server >"$out" 2>&1 &
        pid=$!
        for _ in $(seq 200); do grep -qs '^PORT ' "$out" && break; sleep 0.05; done
        mapped=$(awk '$6 ~ /libenet/ { print $6; exit }' "/proc/$pid/maps" 2>/dev/null || true)
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        if [ -n "$mapped" ] && [ "$(realpath "$mapped")" = "$(realpath "$want")" ]; then
            echo "PASS LD_LIBRARY_PATH=${path:-(empty)}: maps $mapped"
        else
            fail "LD_LIBRARY_PATH=${path:-(empty)}: maps ${mapped:-nothing}, not $want"
        fi
    done
    step "ENet's tutorial pair: stock/stock, each side on ours, relinked onto ours, recompiled against ours"
    tests-c/tutorial/run_pairs.sh "$peer_dir/tutorial_stock" "$peer_dir/tutorial_ours" "$(pwd)/$lib_dir" \
        || fail "tutorial pairs"
fi

# Under emulation, for both matrices:
#  --time-scale 2: every driver wait and peer deadline doubled (the cases
#    take seconds, the bounds are 10-65 s; a loaded CI machine slows qemu);
#  --steady-throttle: ENet lowers its packet throttle on round-trip jitter,
#    and qemu's jitter made stock arm64 <-> stock arm64 drop up to 80 % of
#    the unreliable packets of a basic case, below its 50 % floor (peer.c
#    prints the throttle it queued at; tests-c/interop/README.md).
emulated=()
[ -z "$LT_LAUNCHER" ] || emulated=(--time-scale 2 --steady-throttle)
ours=(--ours-lib "$lib_dir/libenet.so.7" --ours-peer "$peer_dir/peer"
      ${ours_launcher:+--ours-launcher "$ours_launcher"})
where=${LT_LAUNCHER:+ (${LT_LAUNCHER%% *})}
ours_where=$where
[ -z "$LT_OURS_ENV" ] || ours_where+=" with $LT_OURS_ENV"

# The two matrices run one after the other. Side by side they saved about
# 80 s on arm64, but then three emulated peers shared the 2 cores with what
# CI runs in the background, and a broadcast case's 100 KB fragmented
# packet took longer than its paused host can stay silent.
step "interop: our $target library$ours_where <-> x86_64 stock ENet, both directions"
tests-c/interop/run_matrix.sh "${ours[@]}" ${emulated[@]+"${emulated[@]}"} \
    ${select[@]+"${select[@]}"} || fail "matrix against x86_64 stock"
step "interop: our $target library$ours_where <-> Debian's $target stock ENet$where, both directions"
tests-c/interop/run_matrix.sh "${ours[@]}" ${emulated[@]+"${emulated[@]}"} ${select[@]+"${select[@]}"} \
    --stock-lib "$LT_STOCK" --stock-peer "$peer_dir/peer" \
    ${stock_launcher:+--stock-launcher "$stock_launcher"} || fail "matrix against $target stock"


step "done: $([ $status -eq 0 ] && echo "every step passed" || echo "FAILURES above")"
exit $status
