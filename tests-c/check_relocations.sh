#!/usr/bin/env bash
# Our library's relative relocations are packed (DT_RELR) where the linker
# packs them and the C library the build links against can apply them
# (build.rs), and left in the usual form where either cannot, so the
# library loads there (GNU ld 2.40 packs for x86_64, not for aarch64).
# usage: check_relocations.sh OUR_LIB [CC]
#   CC is the C compiler whose C library the build linked against (cc).
#   READELF names another target's binutils (aarch64-linux-gnu-readelf...).
set -eu
lib=$1 cc=${2:-cc}
readelf=${READELF:-readelf}
libc=$("$cc" -print-file-name=libc.so.6)
dynamic=$($readelf -dW "$lib")
relative=$($readelf -rW "$lib" | grep -c '_RELATIVE' || true)
probe=$(mktemp)
trap 'rm -f "$probe"' EXIT
linker_packs=0
"$cc" -shared -nostdlib -Wl,--fatal-warnings -Wl,-z,pack-relative-relocs -x c /dev/null \
    -o "$probe" 2>/dev/null && linker_packs=1
if [ -f "$libc" ] && grep -q GLIBC_ABI_DT_RELR "$libc" && [ $linker_packs -eq 1 ]; then
    grep -q '(RELR)' <<<"$dynamic" || { echo "$lib has no DT_RELR, though the linker and $libc support it" >&2; exit 1; }
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
        echo "$lib packs its relocations, but $libc or the linker cannot" >&2
        exit 1
    fi
    echo "relative relocations unpacked: $libc predates DT_RELR or the linker ignores it ($relative of them)"
fi
