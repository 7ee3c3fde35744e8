#!/usr/bin/env bash
# Builds enet.dll for 64-bit Windows here on Linux, as the shipped library
# is built (release, panics abort): target/windows/x86_64-pc-windows-gnu/
# release/enet.dll and its import library libenet.dll.a (mingw's name; link with
# -lenet, or name the file). With --target i686-pc-windows-gnu, the 32-bit
# enet.dll in target/windows/i686-pc-windows-gnu/release.
#
# rustup's toolchain here has no Windows std, so this uses Debian's Rust
# (rustc-web, cargo-web) and builds std from Debian's sources
# (rust-web-src, -Zbuild-std); mingw-w64 links. scripts/setup-debian.sh
# installs all of it. On a Windows machine with rustup, build natively
# instead, as the DLL alone for the reason below: `cargo rustc --release
# -p enet-rs --lib --crate-type cdylib` (see docs/platforms.md, "Windows").
# usage: scripts/build-windows.sh [--target TARGET] [extra cargo rustc arguments]
#   TARGET: x86_64-pc-windows-gnu (the default) or i686-pc-windows-gnu.
#   CARGO_TARGET_DIR (default target/windows) builds elsewhere, as for
#   experiments that should leave the shared build alone.
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-pc-windows-gnu
case "${1:-}" in
    --target) [ $# -ge 2 ] || { echo "build-windows.sh: --target needs a target" >&2; exit 2; }
              target=$2; shift 2 ;;
    --target=*) target=${1#--target=}; shift ;;
esac
. scripts/lib/windows-targets.sh
windows_target "$target" || exit 2
mingw=$WT_MINGW
target_dir=${CARGO_TARGET_DIR:-target/windows}
for tool in /usr/bin/cargo /usr/bin/rustc "$mingw-gcc"; do
    command -v "$tool" >/dev/null || { echo "missing $tool (run scripts/setup-debian.sh)" >&2; exit 1; }
done
[ -d /usr/lib/rustlib/src/rust/library ] ||
    { echo "missing Debian's Rust sources for -Zbuild-std (apt-get install rust-web-src)" >&2; exit 1; }
# RUSTC_BOOTSTRAP lets Debian's stable compiler take -Zbuild-std.
# ENET_RS_SHIPPED_LIBRARY makes the build refuse panic = "unwind".
#
# `cargo rustc --crate-type cdylib` builds the library as the DLL alone:
# Cargo runs the release profile's LTO only for a library whose crate
# types can all take it, and Cargo.toml's list includes `rlib`, so a plain
# `cargo build` linked every crate's own object code instead. ELF linkers
# then drop the unreachable functions (--gc-sections), but GNU ld's PE
# script keeps every `.pdata` section, and each function's unwind entry
# there keeps the function: the DLL held whole crates (x509-cert's CSR
# parsing, std's process spawning), 3.8 MB stripped; with LTO, 1.9 MB
# (docs/packaging.md, "What the shipped binaries are made of").
#
# -Zbuild-std-features: std's backtraces (RUST_BACKTRACE=1 before a panic
# aborts) list bare addresses instead of symbolizing them
# (backtrace-trace-only), which leaves std's DWARF reader and demangler
# (gimli, addr2line, object, miniz_oxide, rustc-demangle) out: 178 KB.
# The DLL as shipped is stripped, and the symbolizer reads only the DLL's
# own symbols and DWARF, so it found no names there anyway; the addresses,
# less the DLL's load address, resolve against enet.dll.debug. The panic
# message itself is printed as before. panic-unwind and backtrace are
# Cargo's default list, which the option replaces.
#
# 32-bit MinGW links Rust's start-up objects rsbegin.o and rsend.o, which
# -Zbuild-std does not build: scripts/lib/rtstartup.sh compiles them, and
# a -L for the target's crates alone (not build scripts) finds them.
if [ "$target" = i686-pc-windows-gnu ]; then
    rtstartup=$(scripts/lib/rtstartup.sh "$target")
    export CARGO_TARGET_I686_PC_WINDOWS_GNU_RUSTFLAGS="-L native=$rtstartup"
fi
RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 ENET_RS_SHIPPED_LIBRARY=1 \
    /usr/bin/cargo rustc --release --locked -p enet-rs --lib --crate-type cdylib \
    --target "$target" -Zbuild-std=std,panic_abort \
    -Zbuild-std-features=panic-unwind,backtrace,backtrace-trace-only \
    --target-dir "$target_dir" "$@"
out=$target_dir/$target/release
ls -l "$out/enet.dll" "$out/libenet.dll.a" | awk '{print $5, $NF}'
