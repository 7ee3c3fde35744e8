#!/usr/bin/env bash
# enet.dll exports every function stock's enet.dll does (the 53 declared
# ENET_API in Debian's stock headers), and in fact exactly what our Linux
# library does: stock libenet.so.7's 73 functions, the 20 internal helpers
# included, ENet 1.3.18's two additions (../upstream_exports.txt), and the
# documented extensions (../extension_exports.txt).
# The names must be the undecorated C names on 32-bit Windows too
# (cdecl, as stock's ENET_CALLBACK), never stdcall's name@bytes.
# usage: check_exports.sh ENET_DLL STOCK_LIBENET_SO [STOCK_INCLUDE_DIR]
#   (OBJDUMP: x86_64-w64-mingw32-objdump by default; it reads 32-bit DLLs too)
set -euo pipefail
dll=$1 stock=$2 include=${3:-/usr/include}
objdump=${OBJDUMP:-x86_64-w64-mingw32-objdump}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The DLL's export name table, as objdump prints it.
"$objdump" -p "$dll" |
    awk '/\[Ordinal\/Name Pointer\] Table/ { table = 1; next }
         table && NF == 0 { table = 0 }
         table { print $NF }' | sort >"$work/dll"
# Stock enet.dll's exports: the functions its headers declare ENET_API.
cat "$include"/enet/*.h | tr '\n' ' ' | grep -oE 'ENET_API [^;(]*\(' |
    sed -E 's/.*[ *]([A-Za-z_0-9]+) *\($/\1/' | grep '^enet_' | sort -u >"$work/api"
# Our Linux library's: stock libenet.so.7's functions and the extensions.
{
    nm -D --defined-only "$stock" | awk '$2 == "T" { print $3 }'
    grep -hv '^#' "$here/../upstream_exports.txt" "$here/../extension_exports.txt" |
        sed '/^$/d' | awk '{ print $2 }'
} | sort -u >"$work/linux"

[ "$(wc -l <"$work/api")" -eq 53 ] || { echo "expected 53 ENET_API functions in $include/enet" >&2; exit 1; }
missing=$(comm -23 "$work/api" "$work/dll")
[ -z "$missing" ] || { echo "enet.dll lacks stock enet.dll's exports: $missing" >&2; exit 1; }
diff -u "$work/linux" "$work/dll" || { echo "enet.dll's exports differ from the Linux library's" >&2; exit 1; }
echo "enet.dll exports: stock enet.dll's $(wc -l <"$work/api"), stock libenet.so.7's $(nm -D --defined-only "$stock" | awk '$2 == "T"' | wc -l), ENet 1.3.18's $(grep -vc '^enet_rs_' "$work/dll") enet_ functions, plus $(grep -c '^enet_rs_' "$work/dll") extensions: $(wc -l <"$work/dll") in all, as on Linux"
