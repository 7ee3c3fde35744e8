#!/usr/bin/env bash
# A server spread over cores: examples/sharded_server.c with 1, 2 and 4
# shards (hosts sharing one port through ENET_RS_HOST_REUSE_PORT, one
# thread each), loaded by bench/shards_load.c processes: thousands of peers
# on many client sockets, each peer sending unreliable 64-byte packets at a
# fixed rate. Prints, per shard count (medians of --runs): packets the
# server received per second, its CPU seconds, and how evenly the kernel
# spread the peers over the shards.
#
# usage: bench/shards.sh --ours DIR [--runs N] [--shards "1 2 4"]
#                        [--clients N] [--hosts H] [--peers N] [--rate R]
#                        [--seconds S]
#   --ours DIR    directory holding our libenet.so.7 (or libenet.so)
#   --clients N   load processes (default 2), each with --hosts H client
#                 hosts (default 32) of --peers N peers (default 32): 2048
#                 peers by default
#   --rate R      packets per second per peer (default 200)
#   --seconds S   sending time per run (default 5)
# Not a test: it prints figures. Both sides run on our library (stock ENet
# has no way to share a port).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
ours="" runs=3 shard_counts="1 2 4" clients=2 hosts=32 peers=32 rate=200 seconds=5
die() { echo "bench/shards.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) ours=$2; shift ;;
        --runs) runs=$2; shift ;;
        --shards) shard_counts=$2; shift ;;
        --clients) clients=$2; shift ;;
        --hosts) hosts=$2; shift ;;
        --peers) peers=$2; shift ;;
        --rate) rate=$2; shift ;;
        --seconds) seconds=$2; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    [ $# -gt 0 ] && shift
done
[ -n "$ours" ] || die "--ours DIR is required"
. "$repo/scripts/lib/procs.sh"
procs_init enet-shards
ours_library "$ours"
cflags=(-std=c99 -O2 -Wall -Wextra -Werror -I"$repo/include" -L"$ours_dir")
gcc "${cflags[@]}" "$repo/examples/sharded_server.c" -lenet -pthread -o "$work/sharded_server" \
    || die "building sharded_server failed"
gcc "${cflags[@]}" "$here/shards_load.c" -lenet -o "$work/shards_load" \
    || die "building shards_load failed"
export LD_LIBRARY_PATH="$ours_dir"
peers_per_client=$((hosts * peers))

# one SHARDS: one run; appends "SHARDS packets_per_s cpu_s min_share max_share".
one() {
    local count=$1 d="$work/run.$RANDOM"
    mkdir -p "$d"
    "$work/sharded_server" --shards "$count" --port 0 --peers 4095 --no-echo \
        --seconds $((seconds + 45)) >"$d/server.out" 2>"$d/server.err" &
    local spid=$!; track "$spid"
    local port; port=$(wait_port "$d/server.out" "$spid" "sharded_server")
    local pids=() c
    for c in $(seq "$clients"); do
        "$work/shards_load" --port "$port" --hosts "$hosts" --peers "$peers" --rate "$rate" \
            --seconds "$seconds" >"$d/load.$c.out" 2>&1 &
        pids+=($!); track "$!"
    done
    for c in "${pids[@]}"; do bounded_wait "$c" $((seconds + 40)); done
    kill -TERM "$spid" 2>/dev/null || true
    bounded_wait "$spid" 20
    local total; total=$(grep '^total:' "$d/server.out") || die "no total from the server"
    local shares; shares=$(awk '/^shard/ { split($3, a, "="); print a[2] }' "$d/server.out" \
        | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo, hi }')
    local sent; sent=$(cat "$d"/load.*.out | awk -F'sent=' '{ s += $2 } END { print s }')
    echo "$count $(echo "$total" | sed -E 's/.*packets_per_s=([0-9.]+) cpu_s=([0-9.]+)/\1 \2/') $shares $sent" \
        >>"$work/results"
    echo "shards=$count: $total | peers per shard: $shares (of $((clients * peers_per_client))) | sent=$sent" >&2
}

for _ in $(seq "$runs"); do
    for count in $shard_counts; do one "$count"; done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo
echo "$((clients * peers_per_client)) peers on $((clients * hosts)) client sockets, $rate packets/s each; medians of $runs runs"
printf '%-7s %14s %10s %22s\n' shards "received/s" "server cpu" "peers per shard (min-max)"
for count in $shard_counts; do
    rate_median=$(awk -v c="$count" '$1 == c { print $2 }' "$work/results" | median)
    cpu_median=$(awk -v c="$count" '$1 == c { print $3 }' "$work/results" | median)
    low=$(awk -v c="$count" '$1 == c { print $4 }' "$work/results" | median)
    high=$(awk -v c="$count" '$1 == c { print $5 }' "$work/results" | median)
    printf '%-7s %14s %9ss %22s\n' "$count" "$rate_median" "$cpu_median" "$low-$high"
done
