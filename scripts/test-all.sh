#!/usr/bin/env bash
# The whole test suite, in named steps. Run from anywhere; needs the
# packages of scripts/setup-debian.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

# Each step's heading; the one before it is closed with its time, so a
# slow step shows in the log (CI must stay under 45 minutes on 2 cores).
step_name=""
step_start=$SECONDS
step_end() {
    [ -n "$step_name" ] && echo "-- $((SECONDS - step_start)) s: $step_name"
    return 0
}
step() {
    step_end
    step_name=${1:0:60}
    step_start=$SECONDS
    echo; echo "== $*"
}

# The cross builds (Windows 64- and 32-bit, the other Linux targets, the
# compile checks of FreeBSD, Android and iOS) are CPU
# work with no timing in them. They start now in the background at idle
# priority (SCHED_IDLE), each chain in a session of its own, and take what
# the steps below leave of the cores (test runs, ctest, the interop steps
# that mostly wait); the steps that need them wait for them at the end.
rm -rf target/background
mkdir -p target/background
# background NAME COMMAND... (in a chain): COMMAND's output goes to
# target/background/NAME.log, its exit status to NAME.status.
# The log ends with the build's elapsed and CPU seconds, so a CI log shows
# where the cores went.
background() {
    local name=$1
    shift
    set +e
    local TIMEFORMAT="== background $name: %0R s elapsed, %0U s user + %0S s system CPU"
    { time chrt -i 0 nice -n 19 "$@"; } >"target/background/$name.log" 2>&1
    echo $? >"target/background/$name.status"
    set -e
}
# chain VAR COMMANDS: runs COMMANDS (background calls) in the background,
# in a session of its own; VAR gets its PID, which is its process group.
# With the kernel's autogroups on, a new session is a scheduling group that
# would get an equal share of the cores whatever its tasks' priority, so
# the chain first lowers its group's nice value to 19.
chain() {
    local var=$1
    shift
    setsid bash -c "echo 19 >/proc/self/autogroup 2>/dev/null; $(declare -f background); $*" &
    printf -v "$var" %s "$!"
}
# Four chains: release builds spend long stretches on one core (one
# codegen unit, LTO), so several of them and the debug builds share the
# cores well.
# In CI the arm64 library is tested through the interop matrices (its unit
# tests, whose aarch64 debug build costs minutes, run with
# scripts/test-arm64.sh alone). The other systems' compile check is CPU too
# (each target compiles std from source, about 190 CPU-seconds): in CI,
# iOS on aarch64 stands for both Macs (every cfg of ours names macOS and
# iOS together), FreeBSD for itself (its don't-fragment option is its
# own), and aarch64 Android for the other Android targets;
# `cargo xtask check-targets` with no arguments checks all seven.
# The compile check comes last, after enet.dll in its chain: it has no
# step that waits on it but its own, while the builds that arm64's and
# Windows's steps wait for end sooner without it, and it then takes what
# those steps (emulated and wine-hosted peers) leave of the cores.
chain dll_chain background dll cargo xtask build-windows ';' \
    background dll_i686 cargo xtask build-windows --target i686-pc-windows-gnu ';' \
    background targets cargo xtask check-targets x86_64-unknown-freebsd aarch64-linux-android aarch64-apple-ios
chain windows_chain background windows scripts/test-windows.sh --prebuild ';' \
    background windows_i686 scripts/test-windows.sh --target i686-pc-windows-gnu --prebuild
# The 1.3.18 identity's build (docs/packaging.md) follows the arm64 build
# in its chain: its own Cargo target directory, so it never waits on the
# default build's lock. Only the library (enetperf is the same in both
# identities) and no C suite (it compares with stock 1.3.17). A failed
# configure fails the build after it, whose status the step reads.
chain arm64_chain background arm64 scripts/test-arm64.sh --prebuild --no-unit-tests ';' \
    background identity_configure cmake -S . -B build-1.3.18 -DENET_RS_IDENTITY=1.3.18 -DENET_RS_BUILD_TESTS=OFF ';' \
    background identity cmake --build build-1.3.18 --target enet_build -j2
# The other Linux targets (docs/platforms.md): each target's library, its
# test build (unit tests and the layout proof) and its C peers, built with
# std compiled for it; one chain, in the order their steps come. (A fifth
# chain for s390x alone was tried: every chain then got a smaller share of
# the idle cores, and the early steps waited longer for theirs than the
# s390x step saved.)
chain linux_chain background linux_i686 scripts/test-linux-target.sh i686-unknown-linux-gnu --prebuild ';' \
    background linux_armv7 scripts/test-linux-target.sh armv7-unknown-linux-gnueabihf --prebuild ';' \
    background linux_s390x scripts/test-linux-target.sh s390x-unknown-linux-gnu --prebuild
# joined NAME PID: waits until NAME has ended in chain PID, prints its log,
# and succeeds if it did.
joined() {
    until [ -e "target/background/$1.status" ]; do
        kill -0 "$2" 2>/dev/null || { echo "the chain running $1 ended without it" >&2; return 1; }
        sleep 1
    done
    cat "target/background/$1.log"
    [ "$(cat "target/background/$1.status")" = 0 ]
}
finish() {
    local group
    step_end
    for group in "$dll_chain" "$windows_chain" "$arm64_chain" "$linux_chain"; do kill -TERM -- "-$group" 2>/dev/null || true; done
    echo "-- $SECONDS s in all"
}
trap finish EXIT

step "format"
cargo fmt --all -- --check

step "clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "rustdoc (warnings denied: no broken links in the API docs)"
RUSTDOCFLAGS="-D warnings" cargo doc -q --locked --no-deps -p enet-rs

# One debug build of every member's libraries and programs, which the
# steps below share: gen-headers for the drift check, libenet.so for
# enetperf's tests (a test build makes only the rlib), enet-flood for the
# smokes. The whole workspace in one invocation: cargo unifies the build
# dependencies' features over the packages an invocation names, and a
# narrower one (no layout-check, whose bindgen wants more of syn) built
# the cryptography stack a second time, through zeroize's derive macro.
step "debug build of the workspace"
cargo build -q --locked --workspace

step "header drift (include/enet vs a fresh cbindgen run)"
target/debug/gen-headers --check

step "cargo tests (unit, layout vs stock header, integration)"
cargo test --workspace --locked

step "panic guard (the installed library's build must refuse panic = unwind)"
# The dev profile unwinds: checking it as the shipped library must fail
# (a check, not a release build: the refusal comes before code generation).
if ENET_RS_SHIPPED_LIBRARY=1 cargo check -q --locked -p enet-rs 2>target/panic-guard.log; then
    echo "the shipped build compiled with panic = unwind" >&2
    exit 1
fi
grep -q 'must be built with panic = "abort"' target/panic-guard.log

step "C suite via CMake/CTest (differential vs stock, hardening, compile checks, exports, install)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2
ctest --test-dir build --output-on-failure -j2

step "connect-flood smoke (our server under a 5000/s spoofed CONNECT flood from 200 addresses; a stock client must connect at least 4 times of 5)"
bench/flood.sh --ours build/lib --flood target/debug/enet-flood --rates 5000 --tries 5 --only-ours --min-ok 4

step "handshake-flood smoke (our encrypted server under 5000/s spoofed DTLS ClientHellos from 200 addresses, half with forged cookies; our encrypted clients must connect at least 4 times of 5, and the server may hold no session beyond theirs)"
bench/flood.sh --ours build/lib --flood target/debug/enet-flood --rates 5000 --tries 5 --only-dtls --min-ok 4

step "fragment-memory smoke (16 peers x 3 channels send fragments of 32 MiB claims for 3 s; our server's RSS must stay within a 16 MiB reassembly budget + overhead)"
ENET_RS_REASSEMBLY_BUDGET=16777216 bench/frag_memory.sh --ours build/lib --peers 16 --seconds 3 --only-ours --max-growth-mb 30

step "soak smoke (1000 reliable + 1000 unreliable messages through enet-impair: 10 % loss, 5 % duplication, 10 % reordering, 1 % corruption; every client-server pairing of ours and stock; no reliable message lost, duplicated, reordered or corrupted)"
scripts/soak.sh --ours build/lib --runs 1 --messages 1000 --check

step "encrypted soak smoke (1000 reliable + 1000 unreliable messages over DTLS between our hosts through the same impairments, handshake included; nothing lost, duplicated, reordered or corrupted)"
scripts/soak.sh --ours build/lib --runs 1 --messages 1000 --check --dtls

step "soak smoke with our hosts in fast loss recovery (ENET_RS_LOSS_RECOVERY=fast), every pairing"
ENET_RS_LOSS_RECOVERY=fast scripts/soak.sh --ours build/lib --runs 1 --messages 1000 --check

step "two-process interop with stock ENet (stock server + our client, our server + stock client; checksum x compression x bandwidth)"
tests-c/interop/run_matrix.sh --ours build/lib

step "the same interop matrix with our hosts in fast loss recovery (ENET_RS_LOSS_RECOVERY=fast: per-command deadlines, early resend, x1.5 backoff, congestion window)"
ENET_RS_LOSS_RECOVERY=fast tests-c/interop/run_matrix.sh --ours build/lib

step "interop with our hosts dual-stack (ENET_RS_DUAL_STACK=1, server on [::]): a stock client on 127.0.0.1 reaches our server, our dual-stack client reaches a stock server (basic, broadcast, disconnects)"
ENET_RS_DUAL_STACK=1 INTEROP_BIND_ANY=1 tests-c/interop/run_matrix.sh --ours build/lib \
    --skip bandwidth=64000 --skip timeout/

step "interop with ENet 1.3.18 (tools/peer-1318 on rusty_enet) as the other side: 1.3.18 server + our client, our server + 1.3.18 client, every case"
tests-c/interop/run_1318.sh --ours build/lib

step "interop in stock loss recovery (ENET_RS_LOSS_RECOVERY=stock), timeouts and disconnects"
ENET_RS_LOSS_RECOVERY=stock tests-c/interop/run_matrix.sh --ours build/lib --only disconnect
ENET_RS_LOSS_RECOVERY=stock tests-c/interop/run_matrix.sh --ours build/lib --only timeout

step "the Wireshark dissector (tools/wireshark/enet.lua) under tshark, on captures of interop traffic"
tools/wireshark/test.sh --ours build/lib

step "pyenet (Debian's python3-enet, built against stock) on our library"
tests-py/run.sh build/lib

# (The bandwidth-limited and timeout cases, which test ENet's throttle and
# timeouts rather than the encryption, are left to the plain matrices.)
step "DTLS interop with Godot (mbedtls): our encrypted client -> Godot's DTLS server relay -> stock server, stock client -> Godot's DTLS client relay (verifying our certificate and host name) -> our encrypted server: basic, broadcast, disconnects; relay checks of verification"
tests-c/dtls/run_dtls.sh godot --ours build/lib --native-dtls ours --skip bandwidth=64000 --skip timeout/

step "DTLS interop with OpenSSL (socat): the basic cases, both directions"
tests-c/dtls/run_dtls.sh socat --ours build/lib --native-dtls ours --no-checks --only bandwidth=unlimited

step "release identities (docs/packaging.md): each build's library, headers, libenet.pc and CMake package say 1.3.17 or 1.3.18, and programs built against them pass; the 1.3.18 identity's interop with stock 1.3.17 and with the 1.3.18 reference peer, both ways (its build in the background)"
joined identity "$arm64_chain"
tests-c/identity/run.sh --ours-1317 build --ours-1318 build-1.3.18

# After the identity's build (the trixie packages) and the arm64 build
# (ours for arm64 beside amd64), both in the arm64 chain.
step "Debian packages (scripts/package-deb.sh) installed as a user would, in a throwaway overlay root: every libenet7 consumer loads ours, pyenet and Sauerbraten's server against stock ENet, builds against -dev, arm64 beside amd64, back to Debian's; lintian; the trixie (1.3.18) packages' contents"
tests-c/packaging/test-deb.sh

# The cross steps in the order their builds end: the arm64 library and the
# 64-bit Windows builds come first, then i686 Linux and 32-bit Windows, the
# compile checks, and armv7 and s390x last in their chain; so each step
# runs while the builds still going take what it leaves of the cores.
step "Linux on ARM: our arm64 library under qemu-user, the interop matrix against Debian's arm64 and x86_64 stock ENet (scripts/test-arm64.sh; its builds in the background)"
joined arm64 "$arm64_chain"
scripts/test-arm64.sh --no-unit-tests

step "Windows: enet.dll cross-built, layout proven, tests and interop with stock on Linux under wine (scripts/test-windows.sh; its builds in the background)"
joined dll "$dll_chain"
joined windows "$windows_chain"
scripts/test-windows.sh

step "the Windows SDK zip (scripts/package-windows.sh) under wine: a CMake project finds it and talks to stock ENet on Linux, pkg-config, an MSVC-style program linked against enet.lib, the project's Windows CMake build installs the same files"
scripts/package-windows.sh | tee target/package-windows.log
sdk_zip=$(tail -n 1 target/package-windows.log)
tests-c/windows/sdk/test-sdk.sh --zip "$sdk_zip"

# The reduced matrices (basic over checksum x compression, broadcast, the
# disconnect kinds, the client's timeout); the scripts alone run them whole.
step "Linux on i686, 32-bit and native: the layout against stock's i686 headers, the wire and proto unit tests, the range coder and CRC-32 against x86_64 stock's, the interop matrices against Debian's i386 and x86_64 stock ENet, stock's tutorial relinked onto ours (its builds in the background)"
joined linux_i686 "$linux_chain"
scripts/test-linux-target.sh i686-unknown-linux-gnu --reduced

step "32-bit Windows: enet.dll for i686 cross-built, layout proven, tests and interop with stock on Linux under 32-bit wine (scripts/test-windows.sh --target i686-pc-windows-gnu; its builds in the background)"
joined dll_i686 "$dll_chain"
joined windows_i686 "$windows_chain"
scripts/test-windows.sh --target i686-pc-windows-gnu

step "the 32-bit Windows SDK zip under 32-bit wine: the CMake consumer against stock ENet on Linux, pkg-config, an MSVC-style program against enet.lib, the project's 32-bit Windows CMake build installs the same files"
scripts/package-windows.sh --target i686-pc-windows-gnu | tee target/package-windows-x86.log
tests-c/windows/sdk/test-sdk.sh --target i686-pc-windows-gnu --zip "$(tail -n 1 target/package-windows-x86.log)"

step "other systems compile: FreeBSD, and Android and iOS on aarch64 (cargo xtask check-targets, run in the background)"
joined targets "$dll_chain"

step "Linux on armv7 (armhf) under qemu-arm: the layout, the unit tests, the range coder and CRC-32, the interop matrices against Debian's armhf and x86_64 stock ENet"
joined linux_armv7 "$linux_chain"
scripts/test-linux-target.sh armv7-unknown-linux-gnueabihf --reduced

step "Linux on s390x (big-endian) under qemu-s390x, our side with UDP offload off (qemu 7.2 does not byte-swap its control messages): the layout, the unit tests, the range coder and CRC-32, the interop matrices against Debian's s390x and x86_64 stock ENet"
joined linux_s390x "$linux_chain"
scripts/test-linux-target.sh s390x-unknown-linux-gnu --reduced
