#!/usr/bin/env bash
# Builds enet.dll for 64-bit Windows here on Linux, as the shipped library
# is built (release, panics abort): target/windows/x86_64-pc-windows-gnu/
# release/enet.dll and its import library libenet.dll.a (mingw's name; link with
# -lenet, or name the file).
#
# rustup's toolchain here has no Windows std, so this uses Debian's Rust
# (rustc-web, cargo-web) and builds std from Debian's sources
# (rust-web-src, -Zbuild-std); mingw-w64 links. scripts/setup-debian.sh
# installs all of it. On a Windows machine with rustup, build natively
# instead: `cargo build --release -p enet-rs` (see docs/platforms.md, "Windows").
# usage: scripts/build-windows.sh [extra cargo build arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-pc-windows-gnu
for tool in /usr/bin/cargo /usr/bin/rustc x86_64-w64-mingw32-gcc; do
    command -v "$tool" >/dev/null || { echo "missing $tool (run scripts/setup-debian.sh)" >&2; exit 1; }
done
[ -d /usr/lib/rustlib/src/rust/library ] ||
    { echo "missing Debian's Rust sources for -Zbuild-std (apt-get install rust-web-src)" >&2; exit 1; }
# RUSTC_BOOTSTRAP lets Debian's stable compiler take -Zbuild-std.
# ENET_RS_SHIPPED_LIBRARY makes the build refuse panic = "unwind".
RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 ENET_RS_SHIPPED_LIBRARY=1 \
    /usr/bin/cargo build --release --locked -p enet-rs --target "$target" \
    -Zbuild-std=std,panic_abort --target-dir target/windows "$@"
out=target/windows/$target/release
ls -l "$out/enet.dll" "$out/libenet.dll.a" | awk '{print $5, $NF}'
