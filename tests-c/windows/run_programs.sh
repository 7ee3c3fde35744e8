#!/usr/bin/env bash
# The C test programs on Windows: each built with mingw-w64 against our
# headers (-Wall -Wextra -Wpedantic -Werror) and linked to enet.dll, run
# under wine with enet.dll dropped beside them, as a game ships it.
#
# - single-process tests: the hardening host test, the extension tests
#   that make sense on Windows (ext_reuse_port does not: Windows has no
#   SO_REUSEPORT, which ext_ipv6 checks is refused; the send limit, the
#   host counters and path MTU discovery with Windows' don't-fragment
#   option run here too), and the program
#   written against ENet 1.3.18's API (TTL, enet_host_random, ...);
# - ENet's tutorial server and client as two processes, Windows with
#   Windows and across systems with Debian's stock ENet on Linux, each
#   side's output equal to the stock/stock reference; the Windows build of
#   the tutorial is compiled once with -DENET_DLL (stock's dllimport
#   declarations) and once without.
# usage: run_programs.sh ENET_DLL_DIR
#   ENET_DLL_DIR holds enet.dll and libenet.dll.a (cargo xtask build-windows
#   puts them in target/windows/x86_64-pc-windows-gnu/release).
#   ENET_WIN_TARGET=i686-pc-windows-gnu: the 32-bit programs, built with
#   i686-w64-mingw32 and run under 32-bit wine (wine-env.sh).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dll_dir=$(cd "${1:?usage: run_programs.sh ENET_DLL_DIR}" && pwd)
. "$root/scripts/lib/windows-targets.sh"
windows_target "${ENET_WIN_TARGET:-x86_64-pc-windows-gnu}" || exit 2
# (32-bit Windows names C functions with a leading underscore.)
mingw=$WT_MINGW bin=$root/target/windows-tests$WT_SUFFIX/bin c_prefix=$WT_C_PREFIX
die() { echo "run_programs.sh: $*" >&2; exit 2; }
# $work, and the children started in the background stopped by PID on exit.
. "$root/scripts/lib/procs.sh"
procs_init enet-windows
. "$here/wine-env.sh"
status=0

mkdir -p "$bin"
cp "$dll_dir/enet.dll" "$bin/"
flags=(-std=c99 -Wall -Wextra -Wpedantic -Werror -O2 -I"$root/include")
# build NAME SOURCE [EXTRA FLAGS...]: a Windows program linked to enet.dll
# (winpthreads linked in statically, so only enet.dll sits beside it).
build() {
    local name=$1 source=$2
    shift 2
    "$mingw-gcc" "${flags[@]}" "$@" "$source" -o "$bin/$name.exe" \
        -static "$dll_dir/libenet.dll.a" -lpthread ||
        { echo "FAIL building $name"; status=1; }
}
build hardening_host "$root/tests-c/hardening_host.c"
for test in ext_ipv6 ext_loss_recovery ext_sender ext_netsim compat_1_3_18 ext_send_limit \
    ext_host_stats ext_pmtu; do
    build "$test" "$root/tests-c/$test.c"
done
# The wait handle as Windows has it (a WinSock event).
build wait_handle "$root/tests-c/windows/wait_handle.c"
build tutorial "$root/tests-c/tutorial/tutorial.c"
build tutorial_dll "$root/tests-c/tutorial/tutorial.c" -DENET_DLL
# -DENET_DLL must have made the calls go through the import table.
# (grep reads all of nm's output: with pipefail, an early exit would fail
# the pipe.)
"$mingw-nm" "$bin/tutorial_dll.exe" >"$work/tutorial_dll.nm"
grep -q "__imp_${c_prefix}enet_host_service" "$work/tutorial_dll.nm" ||
    { echo "FAIL tutorial_dll.exe does not import enet_host_service through __imp_"; status=1; }
gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -O2 "$root/tests-c/tutorial/tutorial.c" \
    -lenet -o "$bin/tutorial_stock" || { echo "FAIL building the stock tutorial"; status=1; }

for test in hardening_host ext_ipv6 ext_loss_recovery ext_sender ext_netsim compat_1_3_18 \
    ext_send_limit ext_host_stats ext_pmtu wait_handle; do
    if timeout 120 wine "$bin/$test.exe" >"$work/$test.out" 2>&1; then
        echo "PASS $test.exe"
    else
        echo "FAIL $test.exe (exit $?)"
        sed 's/^/    /' "$work/$test.out"
        status=1
    fi
done

# side SYSTEM PROGRAM ARGS...: runs one side of the tutorial, in the
# background if it is the server; a Windows side runs under wine.
side() {
    local system=$1
    shift
    if [ "$system" = windows ]; then
        timeout 40 wine "$@"
    else
        timeout 40 "$@"
    fi
}

# pair NAME SERVER_SYSTEM SERVER_EXE CLIENT_SYSTEM CLIENT_EXE: the tutorial
# over 127.0.0.1; both sides' outputs (CR stripped) land in $work/NAME.*.
pair() {
    local name=$1 server_system=$2 server=$3 client_system=$4 client=$5 port="" i pid rc
    side "$server_system" "$server" server >"$work/$name.server.raw" 2>&1 &
    pid=$!
    track "$pid"
    for i in $(seq 400); do
        port=$(tr -d '\r' <"$work/$name.server.raw" | sed -n 's/^PORT //p')
        [ -n "$port" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    [ -n "$port" ] || { echo "FAIL $name: the server gave no port"; cat "$work/$name.server.raw"; return 1; }
    side "$client_system" "$client" client "$port" >"$work/$name.client.raw" 2>&1
    rc=$?
    wait "$pid" || rc=1
    tr -d '\r' <"$work/$name.server.raw" | sed '/^PORT /d' >"$work/$name.server"
    tr -d '\r' <"$work/$name.client.raw" >"$work/$name.client"
    [ $rc -eq 0 ] || { echo "FAIL $name: exit status"; cat "$work/$name.server" "$work/$name.client"; return 1; }
}

if pair reference linux "$bin/tutorial_stock" linux "$bin/tutorial_stock"; then
    for spec in "windows-server+windows-client:windows:$bin/tutorial.exe:windows:$bin/tutorial.exe" \
                "windows-dllimport-server+windows-client:windows:$bin/tutorial_dll.exe:windows:$bin/tutorial.exe" \
                "stock-linux-server+windows-client:linux:$bin/tutorial_stock:windows:$bin/tutorial_dll.exe" \
                "windows-server+stock-linux-client:windows:$bin/tutorial.exe:linux:$bin/tutorial_stock"; do
        IFS=: read -r name server_system server client_system client <<<"$spec"
        if pair "$name" "$server_system" "$server" "$client_system" "$client" &&
           diff -u "$work/reference.server" "$work/$name.server" &&
           diff -u "$work/reference.client" "$work/$name.client"; then
            echo "PASS tutorial $name"
        else
            echo "FAIL tutorial $name"
            status=1
        fi
    done
else
    status=1
fi
exit $status
