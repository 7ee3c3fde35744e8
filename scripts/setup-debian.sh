#!/usr/bin/env bash
# Installs what the build and the tests need from Debian's packages:
# stock ENet 1.3.17 (the reference the tests compare against), pyenet (a
# real consumer), CMake and a C toolchain, libclang (bindgen layout tests),
# valgrind, and tshark (the Wireshark dissector's tests); for the other
# systems, Debian's Rust with its std sources (rustc-web, cargo-web,
# rust-web-src: cross builds with -Zbuild-std), mingw-w64 and wine (enet.dll,
# built and tested here), through scripts/setup-arm64.sh, the arm64
# cross toolchain, qemu-user and Debian's arm64 stock ENet, through
# scripts/setup-targets.sh the 32-bit, armhf and s390x cross compilers,
# those systems' stock ENet and 32-bit wine, and through
# scripts/setup-dtls.sh the DTLS interop partners (Godot, socat, openssl);
# for the packages (docs/packaging.md): dpkg-dev and lintian (the Debian
# packages and their checks), cube2-server (an installed game server that
# must load the packaged library), llvm and lld (the Windows SDK's MSVC
# import library and its MSVC-style link test) and zip.
set -euo pipefail
packages=(libenet-dev libenet7 python3-enet cmake gcc g++ make pkg-config libclang-dev clang valgrind
          tshark
          rustc-web cargo-web rust-web-src
          gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 mingw-w64-x86-64-dev wine wine64
          dpkg-dev lintian cube2-server
          llvm lld zip)
. "$(dirname "$0")/lib/apt.sh"
apt_install "${packages[@]}"
"$(dirname "$0")/setup-arm64.sh"
"$(dirname "$0")/setup-targets.sh"
"$(dirname "$0")/setup-dtls.sh"
