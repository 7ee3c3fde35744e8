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
# usage: tests-c/windows/compile_headers.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cc=${MINGW_CC:-x86_64-w64-mingw32-gcc}
cxx=${MINGW_CXX:-x86_64-w64-mingw32-g++}
nm=${MINGW_NM:-x86_64-w64-mingw32-nm}
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
    run "compile_all_headers.c, C11, $label" \
        "$cc" -std=c11 "${strict[@]}" $dll -I "$root/include" \
        -c "$root/tests-c/compile_all_headers.c" -o "$work/all-c.o"
    run "compile_all_headers.c, C++11, $label" \
        "$cxx" -x c++ -std=c++11 "${strict[@]}" $dll -I "$root/include" \
        -c "$root/tests-c/compile_all_headers.c" -o "$work/all-cxx.o"
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
    run "compile_all_headers.c against stock's headers, C11, $label" \
        "$cc" -std=c11 "${strict[@]}" $dll -I "$work/stock" \
        -c "$root/tests-c/compile_all_headers.c" -o "$work/all-stock.o"
done

# The library's own side: ENET_BUILDING_LIB turns ENET_API into dllexport.
run "every header, C11, ENET_DLL + ENET_BUILDING_LIB" \
    "$cc" -std=c11 "${strict[@]}" -DENET_DLL -DENET_BUILDING_LIB -I "$root/include" \
    -c "$work/probe.c" -o "$work/probe-lib.o"

# How the probe's calls are linked: through __imp_ pointers with ENET_DLL,
# directly without it.
undefined() { "$nm" "$1" | awk '$1 == "U" { print $2 }' | grep 'enet_' | sort | tr '\n' ' '; }
imports_with_dll="__imp_enet_initialize __imp_enet_rs_version "
direct_without="enet_initialize enet_rs_version "
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
