#!/usr/bin/env bash
# Proves enet-rs's Windows C types against stock's Windows header: builds
# tools/layout-check for x86_64-pc-windows-gnu (its build.rs lays out
# Debian's stock headers as x86_64-w64-mingw32 with clang and mingw-w64's
# winsock2.h) and runs its tests under wine.
#
# Cross-building uses Debian's rustc and cargo (rustup's toolchain has no
# Windows std here): std is built from Debian's rust source with
# -Zbuild-std, and linked by x86_64-w64-mingw32-gcc. wine 8.0 lacks
# bcryptprimitives.dll, which Rust's std imports, so a test-only stand-in
# (bcryptprimitives.c) is built first and put on wine's PATH.
#
# Needs: rustc-web, cargo-web, rust-web-src, gcc-mingw-w64-x86-64,
# mingw-w64-x86-64-dev, wine, wine64, libclang-dev, libenet-dev.
# usage: tests-c/windows/layout.sh [extra cargo test arguments]
# Environment: WIN_TARGET_DIR (default target/win), WINEPREFIX (default
# WIN_TARGET_DIR/wineprefix), WINEDEBUG (default -all).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
target=x86_64-pc-windows-gnu
target_dir=${WIN_TARGET_DIR:-$root/target/win}

for tool in /usr/bin/rustc /usr/bin/cargo x86_64-w64-mingw32-gcc wine; do
    command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
done
[ -d /usr/lib/rustlib/src/rust/library ] ||
    { echo "missing Debian's rust source for -Zbuild-std (apt-get install rust-web-src)" >&2; exit 1; }

shim_dir="$target_dir/wine-shim"
"$here/build-prng-shim.sh" "$shim_dir" >/dev/null

mkdir -p "$target_dir"
export WINEPREFIX=${WINEPREFIX:-$target_dir/wineprefix}
export WINEDEBUG=${WINEDEBUG:--all}
# Wine searches its PATH for DLLs; WINEPATH adds to it.
export WINEPATH="$shim_dir"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1

cd "$root"
# --tests: the test binaries only (no doctests to run under wine).
exec /usr/bin/cargo test --locked -p layout-check --tests --target "$target" \
    -Zbuild-std=std,panic_unwind --target-dir "$target_dir" "$@"
