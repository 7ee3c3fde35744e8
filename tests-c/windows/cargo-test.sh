#!/usr/bin/env bash
# Runs cargo tests built for x86_64-pc-windows-gnu under wine: the engine's
# own tests (`-p enet-rs`), and the layout proof (`-p layout-check`: its
# build.rs lays out Debian's stock headers as x86_64-w64-mingw32 with clang
# and mingw-w64's winsock2.h, and the tests compare every size, alignment,
# field offset and constant with our Windows types).
#
# Cross-building uses Debian's rustc and cargo (rustup's toolchain has no
# Windows std here): std is built from Debian's rust source with
# -Zbuild-std, and linked by x86_64-w64-mingw32-gcc. wine 8.0 lacks
# bcryptprimitives.dll, which Rust's std imports, so a test-only stand-in
# (bcryptprimitives.c) is built first and put on wine's PATH (wine-env.sh).
#
# Needs: rustc-web, cargo-web, rust-web-src, gcc-mingw-w64-x86-64,
# mingw-w64-x86-64-dev, wine, wine64, libclang-dev, libenet-dev.
# usage: tests-c/windows/cargo-test.sh CARGO-TEST-ARGUMENTS...
#   e.g. tests-c/windows/cargo-test.sh -p layout-check --tests
#        tests-c/windows/cargo-test.sh -p enet-rs --lib
# Environment: ENET_WIN_TARGET (default x86_64-pc-windows-gnu; or
# i686-pc-windows-gnu, run under 32-bit wine), WIN_TARGET_DIR (default
# target/win, target/win-i686 for i686); wine's as wine-env.sh sets it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
target=${ENET_WIN_TARGET:-x86_64-pc-windows-gnu}
. "$root/scripts/lib/windows-targets.sh"
windows_target "$target" || exit 2
mingw=$WT_MINGW target_dir=${WIN_TARGET_DIR:-$root/target/win$WT_SUFFIX}

for tool in /usr/bin/rustc /usr/bin/cargo "$mingw-gcc" wine; do
    command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
done
[ -d /usr/lib/rustlib/src/rust/library ] ||
    { echo "missing Debian's rust source for -Zbuild-std (apt-get install rust-web-src)" >&2; exit 1; }

# The project's wine prefix, with the ProcessPrng stand-in on wine's PATH.
export ENET_WIN_TARGET=$target
. "$here/wine-env.sh"
if [ "$target" = i686-pc-windows-gnu ]; then
    export CARGO_TARGET_I686_PC_WINDOWS_GNU_RUNNER=wine
    # Rust's start-up objects for 32-bit MinGW (`cargo xtask rtstartup`).
    rtstartup=$(cd "$root" && cargo xtask rtstartup "$target")
    export CARGO_TARGET_I686_PC_WINDOWS_GNU_RUSTFLAGS="-L native=$rtstartup"
else
    export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
fi
# rustup's rustdoc cannot use Debian's std: Debian's for everything.
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1

cd "$root"
# Tests unwind (the harness catches a failing test's panic).
exec /usr/bin/cargo test --locked --target "$target" \
    -Zbuild-std=std,panic_unwind --target-dir "$target_dir" "$@"
