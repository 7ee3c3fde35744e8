#!/usr/bin/env bash
# The library compiles for the systems we build but cannot run here:
# `cargo check` of enet-rs (with std built from Debian's Rust sources, as
# scripts/build-windows.sh does) for macOS on Intel and Apple silicon and
# for FreeBSD, zero errors and zero warnings. macOS has no recvmmsg,
# sendmmsg or eventfd: those systems take the per-datagram batches and a
# pipe as the waker (src/net/sys). macOS is checked without the default
# `ring` feature (encrypted hosts' record ciphers, src/dtls/aead.rs):
# ring's build compiles C and assembly, and this machine has no Apple C
# compiler; on a Mac it builds with the system's clang.
# usage: scripts/check-targets.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(x86_64-apple-darwin aarch64-apple-darwin x86_64-unknown-freebsd)
for target in "${targets[@]}"; do
    features=()
    case "$target" in *-apple-*) features=(--no-default-features) ;; esac
    echo "-- cargo check --target $target ${features[*]}"
    RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 RUSTFLAGS="-D warnings" \
        /usr/bin/cargo check -q --locked -p enet-rs --lib --target "$target" "${features[@]}" \
        -Zbuild-std=std,panic_abort --target-dir target/check
done
echo "compiles for: ${targets[*]}"
