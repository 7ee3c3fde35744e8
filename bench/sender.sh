#!/usr/bin/env bash
# Sending from four threads into one host (bench/sender_bench.c): reliable
# 64-byte packets to one peer in another process, while one thread runs
# enet_host_service. Compares enet-rs's thread-safe sending
# (enet_rs_sender_send, enet/enet_rs.h) with the usual workaround, one
# mutex around enet_peer_send and enet_host_service, on our library and on
# stock ENet 1.3.17 (the same binary, switched with LD_LIBRARY_PATH).
# Prints, per configuration (medians of --runs, configurations alternate):
# packets delivered per second at the receiver, and send calls per second
# across the sender threads.
#
# usage: bench/sender.sh --ours DIR [--runs N] [--messages N] [--threads T]
# Not a test: it prints figures.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
ours="" runs=3 messages=200000 threads=4
die() { echo "bench/sender.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) ours=$2; shift ;;
        --runs) runs=$2; shift ;;
        --messages) messages=$2; shift ;;
        --threads) threads=$2; shift ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    [ $# -gt 0 ] && shift
done
[ -n "$ours" ] || die "--ours DIR is required"
messages=$(( (messages / threads) * threads ))
. "$repo/scripts/lib/procs.sh"
procs_init enet-sender
ours_library "$ours"
gcc -std=c99 -O2 -Wall -Wextra -Werror -I"$repo/include" "$here/sender_bench.c" -lenet -ldl \
    -pthread -o "$work/sender_bench" || die "building sender_bench.c failed"

# with CONFIG CMD...: CMD on the configuration's library.
with() {
    local config=$1; shift
    case "$config" in
        stock-mutex) env -u LD_LIBRARY_PATH "$@" ;;
        ours-mutex|ours-queue) env LD_LIBRARY_PATH="$ours_dir" "$@" ;;
    esac
}

one() {
    local config=$1 d="$work/run.$RANDOM"
    mkdir -p "$d"
    with "$config" "$work/sender_bench" receive --messages "$messages" >"$d/receiver.out" 2>&1 &
    local rpid=$!; track "$rpid"
    local port; port=$(wait_port "$d/receiver.out" "$rpid" receiver)
    with "$config" "$work/sender_bench" send --port "$port" --mode "${config#*-}" \
        --threads "$threads" --messages "$messages" >"$d/sender.out" 2>&1 &
    local spid=$!; track "$spid"
    bounded_wait "$rpid" 150
    bounded_wait "$spid" 30
    local delivered calls
    delivered=$(sed -n 's/.*delivered_per_s=\([0-9]*\).*/\1/p' "$d/receiver.out")
    calls=$(sed -n 's/^calls_per_s=\([0-9]*\).*/\1/p' "$d/sender.out")
    [ -n "$delivered" ] && [ -n "$calls" ] || die "$config failed: $(cat "$d"/*.out)"
    echo "$config $delivered $calls" >>"$work/results"
    echo "$config: delivered/s=$delivered calls/s=$calls" >&2
}

configs="stock-mutex ours-mutex ours-queue"
for _ in $(seq "$runs"); do
    for config in $configs; do one "$config"; done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo
echo "$threads sender threads, $messages reliable 64-byte packets, one service thread; medians of $runs runs"
printf '%-12s %14s %14s\n' config "delivered/s" "send calls/s"
for config in $configs; do
    printf '%-12s %14s %14s\n' "$config" \
        "$(awk -v c="$config" '$1 == c { print $2 }' "$work/results" | median)" \
        "$(awk -v c="$config" '$1 == c { print $3 }' "$work/results" | median)"
done
