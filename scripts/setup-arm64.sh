#!/usr/bin/env bash
# Installs what the aarch64 (arm64) build and tests need, from Debian's
# packages only: qemu-user (runs arm64 programs on this machine), the arm64
# C cross toolchain and libc headers, Debian's arm64 stock ENet (libenet7:arm64,
# which brings libc6:arm64: the reference our arm64 library is tested
# against, and the loader qemu-aarch64 starts arm64 programs with), and
# Debian's Rust 1.96 with its arm64 std (rustup's toolchain has none).
#
# usage: scripts/setup-arm64.sh   (as root, or through sudo; safe to re-run)
# Then: cargo xtask build-arm64 DIR, or scripts/test-arm64.sh (builds and tests).
set -euo pipefail
packages=(qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross libenet7:arm64
          rustc-web cargo-web libstd-rust-web-dev:arm64)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# libenet7:arm64 only resolves once dpkg knows the foreign architecture, and
# its package list only arrives with the next apt-get update (below).
added_arch=0
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "== dpkg --add-architecture arm64"
    $sudo dpkg --add-architecture arm64
    added_arch=1
fi

. "$(dirname "$0")/lib/apt.sh"
if [ $added_arch -eq 1 ]; then
    apt_install --update "${packages[@]}"
else
    apt_install "${packages[@]}"
fi
