#!/usr/bin/env bash
# Installs what the 32-bit, armhf and big-endian builds and tests need
# (docs/platforms.md), from Debian's packages only:
# - the C cross compilers and their C libraries for i686, armhf and s390x
#   Linux and for 32-bit Windows (mingw-w64), which link our library and
#   build the test programs, and i686 Linux's loader and libraries as
#   amd64 packages (libc6-i386, lib32gcc-s1), so 32-bit programs run here
#   natively; qemu-user (scripts/setup-arm64.sh) runs armhf and s390x;
# - zlib1.dll for 32-bit mingw programs under wine (libz-mingw-w64);
# - Debian's stock ENet for i386, armhf and s390x (the layout and wire
#   oracle on each), and 32-bit wine (wine32:i386, libwine:i386, with
#   FreeType and its libraries, without which every 32-bit wine process
#   prints a warning into the tests' output), unpacked
#   into private roots by scripts/lib/foreign-debs.sh rather than through
#   `dpkg --add-architecture` (that file says why).
#
# usage: scripts/setup-targets.sh   (as root, or through sudo; safe to re-run)
set -euo pipefail
here="$(dirname "$0")"
packages=(gcc-i686-linux-gnu libc6-dev-i386-cross libc6-i386 lib32gcc-s1
          gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
          gcc-s390x-linux-gnu libc6-dev-s390x-cross
          gcc-mingw-w64-i686 g++-mingw-w64-i686 mingw-w64-i686-dev libz-mingw-w64
          qemu-user)
. "$here/lib/apt.sh"
apt_install "${packages[@]}"

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# As root (the roots sit under /var/cache), with this file's function.
$sudo bash -c ". '$here/lib/foreign-debs.sh'
    foreign_debs i386 libenet7 wine32 libwine libfreetype6 libpng16-16 libbrotli1 zlib1g
    foreign_debs armhf libenet7
    foreign_debs s390x libenet7"
