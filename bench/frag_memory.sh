#!/usr/bin/env bash
# Fragment-memory benchmark: server RSS growth under peers that send
# fragments of 32 MiB packets and never complete them, our server and
# stock's side by side in one run, and a table.
#
# usage: bench/frag_memory.sh --ours DIR [--peers "2 16"] [--channels 3]
#                             [--rate 20000] [--seconds 10] [--only-ours]
#                             [--max-growth-mb N]
#   --ours DIR          directory holding our libenet.so.7 (or libenet.so,
#                       e.g. target/release), required.
#   --peers LIST        attacker peers, one run per count and column
#                       (default "2 16").
#   --channels N        channels each peer attacks (default 3).
#   --rate R            attack datagrams per second, all peers together
#                       (default 20000; each carries 1000 bytes).
#   --seconds S         attack duration (default 10).
#   --only-ours         skip the stock column (the CI smoke).
#   --max-growth-mb N   exit 1 if our server's RSS grew by more than N MB
#                       in any run (default: no check).
#
# The server is bench/flood.c's (a host of 64 slots), on that column's
# library; the attacker (bench/frag_attack.c) runs on stock ENet, connects
# its peers for real and then sends SEND_UNRELIABLE_FRAGMENTs claiming
# 32 MiB packets, 7000 bytes apart (so each lands on a page of its own in a
# receiver that maps the whole claimed length, as stock does). RSS growth = VmHWM at the end minus VmRSS once the peers
# are connected. Our budget is the default (64 MiB, or twice the largest
# packet) unless ENET_RS_REASSEMBLY_BUDGET is set in the environment.
set -u
here=$(cd "$(dirname "$0")" && pwd)
ours=""
peer_counts="2 16"
channels=3
rate=20000
seconds=10
columns="ours stock"
max_growth=""

die() { echo "bench/frag_memory.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) [ $# -ge 2 ] || die "--ours needs a directory"; ours=$2; shift ;;
        --peers) [ $# -ge 2 ] || die "--peers needs a list"; peer_counts=$2; shift ;;
        --channels) [ $# -ge 2 ] || die "--channels needs a value"; channels=$2; shift ;;
        --rate) [ $# -ge 2 ] || die "--rate needs a value"; rate=$2; shift ;;
        --seconds) [ $# -ge 2 ] || die "--seconds needs a value"; seconds=$2; shift ;;
        --only-ours) columns="ours" ;;
        --max-growth-mb) [ $# -ge 2 ] || die "--max-growth-mb needs a value"; max_growth=$2; shift ;;
        -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    shift
done
[ -n "$ours" ] || die "--ours DIR is required"
. "$here/../scripts/lib/procs.sh"
procs_init enet-frag-bench
ours_library "$ours"
for program in flood frag_attack; do
    gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -O2 "$here/$program.c" -lenet -o "$work/$program" \
        || die "building bench/$program.c failed"
done

value() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }
# status_kb PID FIELD: a /proc/PID/status figure in kB.
status_kb() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null; }

server_secs=$((seconds + 15))
declare -A growth sent alive
for n in $peer_counts; do
    for column in $columns; do
        d="$work/$column-$n"
        mkdir -p "$d"
        if [ "$column" = ours ]; then
            env LD_LIBRARY_PATH="$ours_dir" "$work/flood" server --peers 64 --seconds "$server_secs" \
                >"$d/server.out" 2>"$d/server.err" &
        else
            env -u LD_LIBRARY_PATH "$work/flood" server --peers 64 --seconds "$server_secs" \
                >"$d/server.out" 2>"$d/server.err" &
        fi
        spid=$!; started+=("$spid")
        port=$(wait_port "$d/server.out" "$spid" "$column server")
        env -u LD_LIBRARY_PATH "$work/frag_attack" --port "$port" --peers "$n" --channels "$channels" \
            --rate "$rate" --seconds "$seconds" >"$d/attack.out" 2>"$d/attack.err" &
        apid=$!; started+=("$apid")
        t=0
        until grep -q '^connected ' "$d/attack.out" 2>/dev/null; do
            kill -0 "$apid" 2>/dev/null || { cat "$d/attack.err" >&2; die "attacker died"; }
            [ $t -ge 150 ] && die "attacker did not connect"
            sleep 0.1; t=$((t + 1))
        done
        base=$(status_kb "$spid" VmRSS)
        bounded_wait "$apid" $((seconds + 20))
        [ "$RC" -eq 0 ] || { cat "$d/attack.out" "$d/attack.err" >&2; die "attacker failed ($RC)"; }
        peak=$(status_kb "$spid" VmHWM)
        kill -TERM "$spid" 2>/dev/null
        bounded_wait "$spid" 10
        if [ "$column" = ours ]; then
            grep -q "^libenet mapped from $ours" "$d/server.err" \
                || grep -q "^libenet mapped from $ours_dir" "$d/server.err" \
                || die "our server did not run on $ours: $(cat "$d/server.err")"
        else
            grep -q "^libenet mapped from /usr/lib" "$d/server.err" || die "the stock server did not run on stock ENet"
        fi
        growth[$column,$n]=$(( (peak - base) / 1024 ))
        sent[$column,$n]=$(value sent "$d/attack.out")
        alive[$column,$n]=$(value still_connected "$d/attack.out")
        echo "$column, $n peers: RSS $((base / 1024)) -> peak $((peak / 1024)) MB;" \
            "${sent[$column,$n]} datagrams sent; ${alive[$column,$n]}/$n attacker peers still connected" >&2
    done
done

echo "attack: peers x $channels channels, SEND_UNRELIABLE_FRAGMENTs of 1000 bytes, 7000 apart, claiming 32 MiB"
echo "packets, $rate datagrams/s in total for $seconds s; server RSS growth in MB (VmHWM at the end"
echo "minus VmRSS after connect); our budget: ${ENET_RS_REASSEMBLY_BUDGET:-64 MiB (default)}"
if [ "$columns" = ours ]; then
    printf '%-6s | %-12s\n' "peers" "ours MB"
    for n in $peer_counts; do printf '%-6s | %-12s\n' "$n" "${growth[ours,$n]}"; done
else
    printf '%-6s | %-12s | %-12s\n' "peers" "ours MB" "stock MB"
    for n in $peer_counts; do
        printf '%-6s | %-12s | %-12s\n' "$n" "${growth[ours,$n]}" "${growth[stock,$n]}"
    done
fi
status=0
if [ -n "$max_growth" ]; then
    for n in $peer_counts; do
        if [ "${growth[ours,$n]}" -gt "$max_growth" ]; then
            echo "FAIL: our server grew by ${growth[ours,$n]} MB with $n attacker peers (limit $max_growth MB)" >&2
            status=1
        fi
    done
fi
exit $status
