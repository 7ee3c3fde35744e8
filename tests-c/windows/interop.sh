#!/usr/bin/env bash
# Wire interop across systems: our enet.dll in a Windows process (under
# wine) against Debian's stock libenet.so.7 in a Linux process, over
# 127.0.0.1, both directions (Windows client to Linux server and Linux
# client to Windows server), through the interop matrix's scenarios: basic
# over checksum x range coder x bandwidth, broadcast, disconnects, timeouts.
# tests-c/interop/peer.c is built for Windows twice: with -DENET_DLL
# (stock's dllimport declarations), which runs the whole matrix, and
# without, which runs the basic cases.
#
# Two allowances for the emulator, as for qemu (scripts/test-arm64.sh):
# --steady-throttle, because wine's timing jitter makes a stock sender's
# packet throttle fall (ENet lowers it when a round trip exceeds the last
# plus twice its variance) and drop unreliable packets before sending;
# and --time-scale 2 for the driver's waits.
# usage: interop.sh ENET_DLL_DIR   (enet.dll and libenet.dll.a)
#   ENET_WIN_TARGET=i686-pc-windows-gnu: peer.c built with i686-w64-mingw32,
#   run under 32-bit wine (wine-env.sh, through wine-run.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dll_dir=$(cd "${1:?usage: interop.sh ENET_DLL_DIR}" && pwd)
export ENET_WIN_TARGET=${ENET_WIN_TARGET:-x86_64-pc-windows-gnu}
. "$root/scripts/lib/windows-targets.sh"
windows_target "$ENET_WIN_TARGET" || exit 2
mingw=$WT_MINGW bin=$root/target/windows-tests$WT_SUFFIX/interop
mkdir -p "$bin"
# Dropped beside the programs, as a game ships it.
cp "$dll_dir/enet.dll" "$bin/"
for variant in dllimport plain; do
    defines=()
    [ $variant = dllimport ] && defines=(-DENET_DLL)
    "$mingw-gcc" -std=c99 -Wall -Wextra -Wpedantic -Werror -O2 -I"$root/include" \
        "${defines[@]}" "$root/tests-c/interop/peer.c" -o "$bin/peer-$variant.exe" \
        "$dll_dir/libenet.dll.a"
done
matrix() {
    "$root/tests-c/interop/run_matrix.sh" --ours-lib "$bin/enet.dll" \
        --ours-launcher "$here/wine-run.sh" --steady-throttle --time-scale 2 "$@"
}
# The two runs at once (their cases mostly wait), each with its own build
# of the Linux peer; outputs shown one after the other.
matrix --ours-peer "$bin/peer-dllimport.exe" --build-dir "$bin/linux-a" >"$bin/dllimport.log" 2>&1 &
full=$!
matrix --ours-peer "$bin/peer-plain.exe" --build-dir "$bin/linux-b" --only basic/ >"$bin/plain.log" 2>&1 &
basic=$!
# Interrupted, stop both runs (by PID; each stops its own peers on exit).
trap 'for pid in $full $basic; do kill -0 "$pid" 2>/dev/null && kill "$pid"; done' EXIT
status=0
wait $full || status=1
wait $basic || status=1
echo "-- peer built with -DENET_DLL: every case"
cat "$bin/dllimport.log"
echo "-- peer built without ENET_DLL: the basic cases"
cat "$bin/plain.log"
exit $status
