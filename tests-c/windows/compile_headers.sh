#!/usr/bin/env bash
# Our headers compile for Windows, as a program using enet.dll (-DENET_DLL)
# and as one linking ENet statically, with mingw-w64's gcc and g++ under
# -Wall -Wextra -Wpedantic -Werror:
# - tests-c/compile_all_headers.c as C11 and C++11 (its static checks pin
#   every size, offset and constant; its _WIN32 branches hold the values
#   that depend on win32.h);
# - a probe including every header, enet_rs.h and win32.h among them, as
#   C89, C99, C11, C++98 and C++11;
# - the same compile_all_headers.c against Debian's stock headers, so its
#   Windows values are stock's and not merely ours;
# - with -DENET_DLL, calls to stock's and to our extension functions go
#   through the import table (__imp_...), as dllimport makes them.
# Exits non-zero at the first failure.
# Needs: gcc-mingw-w64-x86-64, g++-mingw-w64-x86-64, libenet-dev.
# usage: tests-c/windows/compile_headers.sh [--target i686-pc-windows-gnu]
#   (32-bit: i686-w64-mingw32's gcc, g++ and nm; MINGW_CC, MINGW_CXX and
#   MINGW_NM override either)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
target=x86_64-pc-windows-gnu
case "${1:-}" in
    "") ;;
    --target=*) target=${1#--target=} ;;
    --target) target=${2:-} ;;
    *) echo "compile_headers.sh: unknown argument $1" >&2; exit 2 ;;
esac
. "$root/scripts/lib/windows-targets.sh"
windows_target "$target" || exit 2
mingw=$WT_MINGW
cc=${MINGW_CC:-$mingw-gcc}
cxx=${MINGW_CXX:-$mingw-g++}
nm=${MINGW_NM:-$mingw-nm}
# 32-bit Windows names C functions with a leading underscore
# (enet_initialize is the symbol _enet_initialize, imported through
# __imp__enet_initialize); 64-bit Windows adds none.
# compile_all_headers.c pins 64-bit sizes and offsets, so 32-bit runs
# compile every header only; 32-bit Windows' layout is proven against
# stock's headers by tools/layout-check (under 32-bit wine).
case "$("$cc" -dumpmachine)" in
    i?86-*) c_prefix=_ pinned_64=0 ;;
    *) c_prefix="" pinned_64=1 ;;
esac
strict=(-Wall -Wextra -Wpedantic -Werror)
for tool in "$cc" "$cxx" "$nm"; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install g++-mingw-w64-x86-64)" >&2; exit 1; }
done
[ -f /usr/include/enet/win32.h ] || { echo "missing stock headers (apt-get install libenet-dev)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Stock's headers alone: /usr/include itself (Linux's) must not be searched.
mkdir -p "$work/stock"
cp -r /usr/include/enet "$work/stock/"

cat > "$work/probe.c" <<'EOF'
#include <enet/enet.h>
#include <enet/win32.h>
#include <enet/types.h>
#include <enet/protocol.h>
#include <enet/list.h>
#include <enet/callbacks.h>
#include <enet/time.h>
#include <enet/utility.h>
#include <enet/enet_rs.h>

int main (void)
{
    if (ENET_VERSION != ENET_VERSION_CREATE (1, 3, 17))
      return 1;
    return enet_initialize () + (int) enet_rs_version ();
}
EOF

passed=0
run() {
    local what=$1
    shift
    if ! "$@"; then
        echo "FAILED: $what" >&2
        echo "  $*" >&2
        exit 1
    fi
    echo "ok: $what"
    passed=$((passed + 1))
}

for dll in "" -DENET_DLL; do
    label=${dll:-static}
    if [ $pinned_64 -eq 1 ]; then
    run "compile_all_headers.c, C11, $label" \
        "$cc" -std=c11 "${strict[@]}" $dll -I "$root/include" \
        -c "$root/tests-c/compile_all_headers.c" -o "$work/all-c.o"
    run "compile_all_headers.c, C++11, $label" \
        "$cxx" -x c++ -std=c++11 "${strict[@]}" $dll -I "$root/include" \
        -c "$root/tests-c/compile_all_headers.c" -o "$work/all-cxx.o"
    fi
    for std in c89 c99 c11; do
        run "every header, $std, $label" \
            "$cc" -std=$std "${strict[@]}" -Wshadow $dll -I "$root/include" \
            -c "$work/probe.c" -o "$work/probe-$std.o"
    done
    for std in c++98 c++11; do
        run "every header, $std, $label" \
            "$cxx" -x c++ -std=$std "${strict[@]}" -Wshadow $dll -I "$root/include" \
            -c "$work/probe.c" -o "$work/probe-$std.o"
    done
    if [ $pinned_64 -eq 1 ]; then
    run "compile_all_headers.c against stock's headers, C11, $label" \
        "$cc" -std=c11 "${strict[@]}" $dll -I "$work/stock" \
        -c "$root/tests-c/compile_all_headers.c" -o "$work/all-stock.o"
    fi
done

# The library's own side: ENET_BUILDING_LIB turns ENET_API into dllexport.
run "every header, C11, ENET_DLL + ENET_BUILDING_LIB" \
    "$cc" -std=c11 "${strict[@]}" -DENET_DLL -DENET_BUILDING_LIB -I "$root/include" \
    -c "$work/probe.c" -o "$work/probe-lib.o"

# How the probe's calls are linked: through __imp_ pointers with ENET_DLL,
# directly without it.
undefined() { "$nm" "$1" | awk '$1 == "U" { print $2 }' | grep 'enet_' | sort | tr '\n' ' '; }
imports_with_dll="__imp_${c_prefix}enet_initialize __imp_${c_prefix}enet_rs_version "
direct_without="${c_prefix}enet_initialize ${c_prefix}enet_rs_version "
"$cc" -std=c11 -DENET_DLL -I "$root/include" -c "$work/probe.c" -o "$work/probe-dll.o"
"$cc" -std=c11 -I "$root/include" -c "$work/probe.c" -o "$work/probe-static.o"
check_symbols() {
    local what=$1 object=$2 expected=$3 got
    got=$(undefined "$object")
    if [ "$got" != "$expected" ]; then
        echo "FAILED: $what: the probe refers to '$got', expected '$expected'" >&2
        exit 1
    fi
    echo "ok: $what ($got)"
    passed=$((passed + 1))
}
check_symbols "-DENET_DLL imports enet.h's and enet_rs.h's functions" "$work/probe-dll.o" "$imports_with_dll"
check_symbols "without ENET_DLL the calls are direct" "$work/probe-static.o" "$direct_without"

echo "$passed passed, 0 failed"
