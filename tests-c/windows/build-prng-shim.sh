#!/usr/bin/env bash
# Builds the test-only bcryptprimitives.dll stand-in (see bcryptprimitives.c)
# into DIR (default target/wine-shim). Put DIR on wine's PATH with
# WINEPATH=DIR (as a Unix path; wine maps it to Z:\...).
# usage: tests-c/windows/build-prng-shim.sh [DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/target/wine-shim}
mkdir -p "$out"
x86_64-w64-mingw32-gcc -std=c99 -Wall -Wextra -Werror -O2 -shared \
    -o "$out/bcryptprimitives.dll" "$here/bcryptprimitives.c" -ladvapi32
echo "$out/bcryptprimitives.dll"
