#!/usr/bin/env bash
# Builds the test-only bcryptprimitives.dll stand-in (see bcryptprimitives.c)
# into DIR (default target/wine-shim). Put DIR on wine's PATH with
# WINEPATH=DIR (as a Unix path; wine maps it to Z:\...).
# CC picks the compiler: x86_64-w64-mingw32-gcc (the default) or
# i686-w64-mingw32-gcc for 32-bit wine, where WINAPI decorates the export
# (ProcessPrng@8) and bcryptprimitives.def names it as Windows does.
# usage: tests-c/windows/build-prng-shim.sh [DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/target/wine-shim}
cc=${CC:-x86_64-w64-mingw32-gcc}
mkdir -p "$out"
case "$cc" in
    *i686*) exports=("$here/bcryptprimitives.def" -Wl,--enable-stdcall-fixup) ;;
    *) exports=() ;;
esac
"$cc" -std=c99 -Wall -Wextra -Werror -O2 -shared \
    -o "$out/bcryptprimitives.dll" "$here/bcryptprimitives.c" "${exports[@]}" -ladvapi32
echo "$out/bcryptprimitives.dll"
