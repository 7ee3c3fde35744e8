#!/usr/bin/env bash
# A host's traffic reads none of the read-only data the shared library's
# build moved after its code (crates/libenet/build.rs,
# `cold_read_only_data_after_text`): one read there maps a 64 KiB window
# of it in every process that makes it. The build keeps the engine's
# constants apart by their sections' names, so a table or text the engine
# reads at run time but keeps in a literal (src/named.rs) lands there.
# This runs bench/msgcost.c (a server and a client host in one process:
# connect, then reliable, unreliable and fragmented messages), then
# bench/engine.c's load server (a burst of 2000 connects, then 20 messages
# a second from each peer for 3 s, which grows the packet pool and gives it
# back), with tests-c/cold_rodata_trap.c preloaded, which reports each
# address read in that segment, and fails on any. x86_64 Linux only (the
# trap flag).
# usage: check_cold_rodata.sh OUR_LIB_DIR
#   CC names the C compiler (gcc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
die() { echo "check_cold_rodata.sh: $*" >&2; exit 1; }
lib_dir=$(cd "$1" && pwd) || die "no directory $1"
lib="$lib_dir/libenet.so.7"
[ -e "$lib" ] || die "no libenet.so.7 in $lib_dir"
source "$repo/scripts/lib/procs.sh"
procs_init enet-cold-rodata

cc=${CC:-gcc}
"$cc" -std=c99 -O2 -shared -fPIC "$here/cold_rodata_trap.c" -o "$work/trap.so" ||
    die "building cold_rodata_trap.c failed"
"$cc" -std=c99 -O2 -I"$repo/include" "$repo/bench/msgcost.c" -L"$lib_dir" -lenet -ldl \
    -o "$work/msgcost" || die "building msgcost.c failed"
"$cc" -std=c99 -O2 -I"$repo/include" "$repo/bench/engine.c" -L"$lib_dir" -lenet \
    -o "$work/engine" || die "building engine.c failed"

log="$work/reads"
for mode in reliable unreliable bulk; do
    timeout 120 env COLD_RODATA_LIBRARY="$lib_dir/libenet.so" COLD_RODATA_LOG="$log" \
        LD_PRELOAD="$work/trap.so" LD_LIBRARY_PATH="$lib_dir" \
        "$work/msgcost" "$mode" 200 >"$work/out" ||
        die "msgcost $mode failed under the trap: $(cat "$work/out")"
    grep -q '^delivered 200$' "$work/out" || die "msgcost $mode: $(cat "$work/out")"
done
loaded_server "$work/engine" "$lib_dir" 2000 3 "$work/server.out" 120 \
    COLD_RODATA_LIBRARY="$lib_dir/libenet.so" COLD_RODATA_LOG="$log" LD_PRELOAD="$work/trap.so"
grep -q '^connected_peers 2000$' "$work/server.out" ||
    die "the load server under the trap: $(cat "$work/server.out")"
if [ -s "$log" ]; then
    echo "check_cold_rodata.sh: the host read moved read-only data (offsets in $lib):" >&2
    sort -u "$log" | head -20 >&2
    echo "keep what the engine reads in a static (src/named.rs), or move less" >&2
    exit 1
fi
echo "reliable, unreliable and fragmented traffic, and a loaded server, read none of the moved read-only data"
