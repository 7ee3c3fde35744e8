#!/usr/bin/env bash
# Our library's relative relocations are packed (DT_RELR) where the C
# library it was built against can apply them (build.rs), and left in the
# usual form where it cannot, so the library loads there.
# usage: check_relocations.sh OUR_LIB [CC]
#   CC is the C compiler whose C library the build linked against (cc).
#   READELF names another target's binutils (aarch64-linux-gnu-readelf...).
set -eu
lib=$1 cc=${2:-cc}
readelf=${READELF:-readelf}
libc=$("$cc" -print-file-name=libc.so.6)
dynamic=$($readelf -dW "$lib")
relative=$($readelf -rW "$lib" | grep -c '_RELATIVE' || true)
if [ -f "$libc" ] && grep -q GLIBC_ABI_DT_RELR "$libc"; then
    grep -q '(RELR)' <<<"$dynamic" || { echo "$lib has no DT_RELR, though $libc supports it" >&2; exit 1; }
    $readelf -VW "$lib" | grep -q GLIBC_ABI_DT_RELR ||
        { echo "$lib packs its relocations without needing GLIBC_ABI_DT_RELR" >&2; exit 1; }
    # Stock-sized: a pointer the packed form cannot describe stays behind.
    if [ "$relative" -gt 64 ]; then
        echo "$lib still has $relative unpacked relative relocations" >&2
        exit 1
    fi
    echo "relative relocations packed (DT_RELR, $relative left unpacked)"
else
    if grep -q '(RELR)' <<<"$dynamic"; then
        echo "$lib packs its relocations, but $libc cannot apply them" >&2
        exit 1
    fi
    echo "relative relocations unpacked: $libc predates DT_RELR ($relative of them)"
fi
