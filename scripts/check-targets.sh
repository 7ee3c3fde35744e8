#!/usr/bin/env bash
# The library compiles for the systems we build but cannot run here:
# `cargo check` of enet-rs (with std built from Debian's Rust sources, as
# scripts/build-windows.sh does) for macOS on Intel and Apple silicon, for
# FreeBSD, for Android on aarch64, armv7 and x86_64 and for iOS on aarch64,
# zero errors and zero warnings. macOS and iOS have no recvmmsg, sendmmsg
# or eventfd: those systems take the per-datagram batches and a pipe as the
# waker (src/net/sys); Android is Linux to the engine. The Apple and Android
# targets are checked without the default `ring` feature (encrypted hosts'
# record ciphers, src/dtls/aead.rs): ring's build compiles C and assembly
# with the platform's own C compiler (Xcode's clang, the NDK's), which this
# machine does not have; with the kit, they build with it
# (docs/platforms.md).
# usage: scripts/check-targets.sh [TARGET...]   (no TARGET: all seven)
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(x86_64-apple-darwin aarch64-apple-darwin x86_64-unknown-freebsd
    aarch64-linux-android armv7-linux-androideabi x86_64-linux-android aarch64-apple-ios)
for target in "${targets[@]}"; do
    features=()
    case "$target" in *-apple-* | *-android*) features=(--no-default-features) ;; esac
    echo "-- cargo check --target $target ${features[*]}"
    RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 RUSTFLAGS="-D warnings" \
        /usr/bin/cargo check -q --locked -p enet-rs --lib --target "$target" "${features[@]}" \
        -Zbuild-std=std,panic_abort --target-dir target/check
done
echo "compiles for: ${targets[*]}"
