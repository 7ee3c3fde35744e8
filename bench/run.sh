#!/usr/bin/env bash
# Benchmark stock ENet and our libenet.so.7 in the same run and print a table.
#
# usage: bench/run.sh [--ours DIR] [--build-dir DIR] [--seconds S] [--peers N]
#   --ours DIR       directory holding our libenet.so.7; without it (or with
#                    --ours "") the "ours" column runs stock too, which shows
#                    the run-to-run noise of the machine.
#   --build-dir DIR  where bench is built (default: <repo>/target/interop).
#   --seconds S      measuring time per metric (default 3).
#   --peers N        idle peers on the server for metric (b) (default 1000).
#   --bandwidth B    give every host B bytes/s in and out (default 0 =
#                    unlimited), so the bandwidth throttle and window
#                    sizing run ("throttling on").
#
# Each column uses one library for every process of that metric (chosen by
# LD_LIBRARY_PATH per process); bench prints which library it mapped and the
# table footer shows it. Metrics:
#   (a) reliable 64-byte messages delivered per second: one process, two
#       hosts on 127.0.0.1 serviced in turn (bench throughput);
#   (b) CPU time (getrusage user+system) per enet_host_service(host, &e, 0)
#       on a server with N connected idle peers; the peers are 4 client hosts
#       in a second process (bench idle-server / idle-clients).
# Not a test: numbers vary with machine load; compare columns of one run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build_dir="$repo/target/interop"
stock_lib=/usr/lib/x86_64-linux-gnu/libenet.so.7
ours=""
seconds=3
peers=1000
bandwidth=0

die() { echo "bench/run.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) [ $# -ge 2 ] || die "--ours needs a directory"; ours=$2; shift ;;
        --build-dir) [ $# -ge 2 ] || die "--build-dir needs a directory"; build_dir=$2; shift ;;
        --seconds) [ $# -ge 2 ] || die "--seconds needs a value"; seconds=$2; shift ;;
        --peers) [ $# -ge 2 ] || die "--peers needs a value"; peers=$2; shift ;;
        --bandwidth) [ $# -ge 2 ] || die "--bandwidth needs a value"; bandwidth=$2; shift ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    shift
done
if [ -n "$ours" ]; then
    ours=$(cd "$ours" 2>/dev/null && pwd) || die "--ours: no such directory"
    [ -e "$ours/libenet.so.7" ] || die "--ours: $ours/libenet.so.7 missing"
fi
mkdir -p "$build_dir" || die "cannot create $build_dir"
bench="$build_dir/bench"
gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -O2 "$here/bench.c" -lenet -o "$bench" \
    || die "building bench.c failed"

source "$repo/scripts/lib/procs.sh"
procs_init enet-bench

# run_with COLUMN ARGS...: runs bench on the column's library (foreground).
run_with() {
    local column=$1
    shift
    if [ "$column" = ours ] && [ -n "$ours" ]; then
        env LD_LIBRARY_PATH="$ours" "$bench" "$@"
    else
        env -u LD_LIBRARY_PATH "$bench" "$@"
    fi
}

value() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }
mapped() { sed -n 's/^libenet mapped from //p' "$1" | head -1; }

declare -A result lib
for column in stock ours; do
    d="$work/$column"
    mkdir -p "$d"
    # (a)
    run_with $column throughput --seconds "$seconds" --bandwidth "$bandwidth" >"$d/tp.out" 2>"$d/tp.err" &
    pid=$!; started+=("$pid")
    bounded_wait "$pid" $((seconds * 2 + 20))
    [ "$RC" -eq 0 ] || { cat "$d/tp.err" >&2; die "$column throughput failed ($RC)"; }
    result[$column,a]=$(value msgs_per_s "$d/tp.out")
    lib[$column]=$(mapped "$d/tp.err")
    # (b)
    run_with $column idle-server --peers "$peers" --seconds "$seconds" --bandwidth "$bandwidth" >"$d/srv.out" 2>"$d/srv.err" &
    spid=$!; started+=("$spid")
    port=$(wait_port "$d/srv.out" "$spid" "$column idle-server" 5) || exit 2
    run_with $column idle-clients --port "$port" --peers "$peers" --hosts 4 --bandwidth "$bandwidth" \
        >"$d/cli.out" 2>"$d/cli.err" &
    cpid=$!; started+=("$cpid")
    bounded_wait "$spid" $((seconds + 100))
    src=$RC
    bounded_wait "$cpid" 5   # clients end on DISCONNECT; killed if some missed it
    [ "$src" -eq 0 ] || { cat "$d/srv.err" "$d/cli.err" >&2; die "$column idle-server failed ($src)"; }
    [ "$(value connected_peers "$d/srv.out")" = "$peers" ] || die "$column: not all peers connected"
    result[$column,b]=$(value cpu_us_per_service "$d/srv.out")
    echo "$column: $(sed -n 's/^idle-server: //p' "$d/srv.err")" >&2
done

ours_label="ours"
[ -z "$ours" ] && ours_label="ours(=stock)"
[ "$bandwidth" != 0 ] && echo "every host limited to $bandwidth bytes/s in and out (throttling on)"
printf '%-62s | %-12s | %-12s\n' "metric" "stock" "$ours_label"
printf '%-62s | %-12s | %-12s\n' "reliable 64-byte msgs/s (1 process, 2 hosts, ${seconds} s)" \
    "${result[stock,a]}" "${result[ours,a]}"
printf '%-62s | %-12s | %-12s\n' "CPU us per enet_host_service(h,&e,0), $peers idle peers" \
    "${result[stock,b]}" "${result[ours,b]}"
echo "stock column ran on: ${lib[stock]}"
echo "ours column ran on:  ${lib[ours]}"
