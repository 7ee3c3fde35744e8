#!/usr/bin/env bash
# Engine benchmarks, stock ENet 1.3.17 and ours side by side from the same
# run: each metric runs on both libraries in turn (stock, ours, stock, ...)
# and the table shows medians. See bench/engine.c for what each mode does.
#
# usage: bench/engine.sh [--ours DIR] [--runs N] [--seconds S] [--peers N]
#                        [--queued N] [--burst N] [--flood N] [--waiting BYTES]
#                        [--only overload] [--load-peers "N ..."]
#                        [--load-seconds S] [--load-only]
#   --ours DIR    directory holding our libenet.so (default: target/release,
#                 built first)
#   --runs N      runs per library and metric (default 3)
#   --seconds S   measuring time of the two-process runs (default 3)
#   --peers N     connected peers for the RSS metric (default 4000)
#   --queued N    messages queued up front (default 200000)
#   --burst N     peers connecting at once (default 4000)
#   --flood N     unreliable messages of the overload scenario (default
#                 1000000): a sender that outruns its receiver, then one
#                 reliable END; each run's line shows delivered %, the
#                 receiver socket's rcvbuf errors, the share of the
#                 sender's datagrams the receiver never read, the
#                 receiver's CPU time, and END's arrival
#   --waiting BYTES  the overload receiver's maximumWaitingData (default
#                 ENet's 32 MiB; a small one fills with the messages held
#                 for a reliable one the receiver lost, the END stall)
#   --only overload  runs only the overload scenario
#   --load-peers "N ..."  peer counts of the loaded-server metric (default
#                 "500 2000 4000"; "" skips it): N peers connect at once,
#                 then each sends a reliable 64-byte message 20 times a
#                 second (the server receives, as a game server takes its
#                 players' input); the server's RSS after the burst, at
#                 the end, at its peak (VmHWM) and at the most sampled
#                 under the load, and its CPU per message under the load
#   --load-seconds S  how long the load lasts (default 10)
#   --load-only   run the loaded-server metric alone
# Not a test: it prints figures, which vary with the machine's load.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
ours=""
runs=3
seconds=3
peers=4000
queued=200000
burst=4000
flood=1000000
waiting=()
only=""
load_peers="500 2000 4000"
load_seconds=10
load_only=0

die() { echo "bench/engine.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) [ $# -ge 2 ] || die "--ours needs a directory"; ours=$2; shift ;;
        --runs) [ $# -ge 2 ] || die "--runs needs a count"; runs=$2; shift ;;
        --seconds) [ $# -ge 2 ] || die "--seconds needs a value"; seconds=$2; shift ;;
        --peers) [ $# -ge 2 ] || die "--peers needs a count"; peers=$2; shift ;;
        --queued) [ $# -ge 2 ] || die "--queued needs a count"; queued=$2; shift ;;
        --burst) [ $# -ge 2 ] || die "--burst needs a count"; burst=$2; shift ;;
        --flood) [ $# -ge 2 ] || die "--flood needs a count"; flood=$2; shift ;;
        --waiting) [ $# -ge 2 ] || die "--waiting needs a size"; waiting=(--waiting "$2"); shift ;;
        --only) [ "${2:-}" = overload ] || die "--only takes: overload"; only=$2; shift ;;
        --load-peers) [ $# -ge 2 ] || die "--load-peers needs counts"; load_peers=$2; shift ;;
        --load-seconds) [ $# -ge 2 ] || die "--load-seconds needs a value"; load_seconds=$2; shift ;;
        --load-only) load_only=1 ;;
        -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    shift
done
source "$repo/scripts/lib/procs.sh"
procs_init enet-engine-bench
stock_library
ours_library "$ours"

engine="$work/engine"
clients="$work/bench"
gcc -std=c99 -Wall -Wextra -Werror -O2 "$here/engine.c" -lenet -o "$engine" || die "building engine.c failed"
gcc -std=c99 -Wall -Wextra -Werror -O2 "$here/bench.c" -lenet -o "$clients" || die "building bench.c failed"

libdir() { if [ "$1" = ours ]; then echo "$ours_dir"; else echo "$stock_dir"; fi; }
value() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# two_process COLUMN TAG [ARGS...]: one sink/source run with ARGS; appends
# msgs/s, CPU ns per message and MB/s to $work/COLUMN.tpTAG.
two_process() {
    local column=$1 tag=$2 out="$work/sink.out" spid cpid port
    shift 2
    # The last run's output goes first: the shell truncates it only once
    # the sink starts, and wait_port could read that run's port before.
    rm -f "$out"
    LD_LIBRARY_PATH=$(libdir "$column") "$engine" sink --seconds "$seconds" "$@" >"$out" 2>"$work/sink.err" &
    spid=$!; track "$spid"
    port=$(wait_port "$out" "$spid" "$column sink")
    LD_LIBRARY_PATH=$(libdir "$column") "$engine" source --port "$port" "$@" >"$work/source.out" 2>"$work/source.err" &
    cpid=$!; track "$cpid"
    bounded_wait "$spid" $((seconds + 30))
    [ "$RC" -eq 0 ] || { cat "$work/sink.err" >&2; die "$column sink failed ($RC)"; }
    bounded_wait "$cpid" 10
    echo "$(value msgs_per_s "$out") $(value cpu_ns_per_msg "$out") $(value mb_per_s "$out")" >>"$work/$column.tp$tag"
}

# rss COLUMN: the server's RSS with $peers connected idle peers.
rss() {
    idle_server "$engine" "$clients" "$(libdir "$1")" "$peers" "$work/rss.out" 120 10
    value rss_kb "$work/rss.out" >>"$work/$1.rss"
}

# loaded COLUMN PEERS: engine.c's load-server with PEERS of its load-clients
# (a connect burst, then 20 messages/s a peer for $load_seconds s); appends
# the RSS after the burst, at the end and at the peak (VmHWM), the most
# sampled under the load, and the server's CPU per message under the load
# to $work/COLUMN.loadPEERS.
loaded() {
    local column=$1 n=$2 out="$work/load.out"
    loaded_server "$engine" "$(libdir "$column")" "$n" "$load_seconds" "$out" $((load_seconds + 150))
    echo "$(value rss_burst_kb "$out") $(value rss_kb "$out") $(value rss_peak_kb "$out")" \
        "$(value rss_sampled_peak_kb "$out") $(value load_cpu_ns_per_msg "$out")" \
        >>"$work/$column.load$n"
}

# single COLUMN MODE ARGS...: a one-process mode's "seconds" (or "timeout").
single() {
    local column=$1 out="$work/single.out" pid
    shift
    LD_LIBRARY_PATH=$(libdir "$column") "$engine" "$@" >"$out" 2>"$work/single.err" &
    pid=$!; track "$pid"
    bounded_wait "$pid" 700
    if [ "$RC" -eq 3 ]; then
        echo "timeout"
    elif [ "$RC" -eq 0 ]; then
        value seconds "$out"
    else
        cat "$work/single.err" >&2; die "$column $1 failed ($RC)"
    fi
}

# overload COLUMN RUN: one overload run; prints its line and appends
# "delivered_pct rcvbuf_errors end_ms datagrams_missing_pct cpu_ms" to
# $work/COLUMN.overload.
overload() {
    local column=$1 out="$work/osink.out" spid cpid port
    rm -f "$out"
    LD_LIBRARY_PATH=$(libdir "$column") "$engine" overload-sink --count "$flood" "${waiting[@]}" >"$out" 2>"$work/osink.err" &
    spid=$!; track "$spid"
    port=$(wait_port "$out" "$spid" "$column overload sink")
    LD_LIBRARY_PATH=$(libdir "$column") "$engine" overload-source --port "$port" --count "$flood" \
        >"$work/osource.out" 2>"$work/osource.err" &
    cpid=$!; track "$cpid"
    bounded_wait "$spid" 40
    [ "$RC" -eq 0 ] || { cat "$work/osink.err" >&2; die "$column overload sink failed ($RC)"; }
    bounded_wait "$cpid" 30
    local pct errors end sent received missing cpu
    pct=$(value delivered_pct "$out"); errors=$(value rcvbuf_errors "$out"); end=$(value end_ms "$out")
    cpu=$(value cpu_ms "$out")
    # Datagrams the sender sent that the receiver never read, in %: the
    # socket's drops, which its rcvbuf errors undercount once the kernel
    # coalesces datagrams (a dropped coalesced run is one error).
    sent=$(value datagrams_sent "$work/osource.out"); received=$(value datagrams_received "$out")
    missing=$(awk -v s="$sent" -v r="$received" 'BEGIN { if (s + 0 > 0) printf "%.2f", 100 * (s - r) / s; else print "-" }')
    echo "$pct $errors $end $missing $cpu" >>"$work/$column.overload"
    printf 'overload run %s %-5s delivered %6s %%  rcvbuf errors %6s  datagrams not read %6s %%  receiver CPU %6s ms  END %s\n' \
        "$2" "$column" "$pct" "$errors" "$missing" "$cpu" \
        "$(awk -v e="$end" 'BEGIN { if (e < 0) print "LOST (10 s)"; else print "after " e " ms" }')"
}

for run in $(seq "$runs"); do
    for column in stock ours; do
        if [ "$load_only" -eq 0 ]; then
            overload "$column" "$run"
        fi
        [ "$only" = overload ] && continue
        for n in $load_peers; do
            loaded "$column" "$n"
        done
        [ "$load_only" -eq 1 ] && continue
        two_process "$column" ""
        two_process "$column" "-unreliable" --unreliable
        two_process "$column" "-bulk" --size 1048576
        rss "$column"
        single "$column" queued --count "$queued" >>"$work/$column.queued"
        single "$column" burst --peers "$burst" >>"$work/$column.burst"
    done
done

# field COLUMN FILE N: median of column N of the file's lines (numbers only).
field() { awk -v n="$3" '$n ~ /^[0-9.]+$/ { print $n }' "$work/$1.$2" | median; }
# timeouts COLUMN FILE: how many runs timed out.
timeouts() { grep -c timeout "$work/$1.$2" || true; }
ratio() { awk -v s="$1" -v o="$2" 'BEGIN { if (s + 0 > 0 && o + 0 > 0) printf "%.2fx", o / s; else print "-" }'; }
row() { printf '%-50s %14s %14s %8s\n' "$1" "$2" "$3" "$(ratio "$2" "$3")"; }

# lost COLUMN: overload runs whose END never arrived.
lost() { awk '$3 < 0' "$work/$1.overload" | wc -l; }

printf '%-50s %14s %14s %8s\n' "metric (median of $runs runs)" stock ours "ours/stock"
if [ "$load_only" -eq 0 ]; then
    row "overload ($flood unreliable 64 B), delivered %" "$(field stock overload 1)" "$(field ours overload 1)"
    row "  receiver socket's rcvbuf errors" "$(field stock overload 2)" "$(field ours overload 2)"
    row "  datagrams sent and never read, %" "$(field stock overload 4)" "$(field ours overload 4)"
    row "  receiver CPU from first message to END, ms" "$(field stock overload 5)" "$(field ours overload 5)"
    row "  END message lost (runs)" "$(lost stock)" "$(lost ours)"
fi
if [ "$only" = overload ]; then echo "(ours from $ours)"; exit 0; fi
for n in $load_peers; do
    row "server RSS KiB, $n peers: after the burst" "$(field stock "load$n" 1)" "$(field ours "load$n" 1)"
    row "  after ${load_seconds} s of 20 msgs/s a peer" "$(field stock "load$n" 2)" "$(field ours "load$n" 2)"
    row "  peak (VmHWM)" "$(field stock "load$n" 3)" "$(field ours "load$n" 3)"
    row "  peak under the load (sampled every 100 ms)" "$(field stock "load$n" 4)" "$(field ours "load$n" 4)"
    row "  server CPU ns per message under the load" "$(field stock "load$n" 5)" "$(field ours "load$n" 5)"
done
if [ "$load_only" -eq 1 ]; then
    echo "(ours from $ours)"
    exit 0
fi
row "reliable 64 B msgs/s, two processes" "$(field stock tp 1)" "$(field ours tp 1)"
row "  receiver CPU ns per message" "$(field stock tp 2)" "$(field ours tp 2)"
row "unreliable 64 B msgs/s, two processes" "$(field stock tp-unreliable 1)" "$(field ours tp-unreliable 1)"
row "  receiver CPU ns per message" "$(field stock tp-unreliable 2)" "$(field ours tp-unreliable 2)"
row "reliable 1 MiB messages, MB/s, two processes" "$(field stock tp-bulk 3)" "$(field ours tp-bulk 3)"
row "server RSS KiB, $peers connected idle peers" "$(field stock rss 1)" "$(field ours rss 1)"
row "$queued reliable msgs queued up front: s" "$(field stock queued 1)" "$(field ours queued 1)"
row "$burst-peer connect burst: s" "$(field stock burst 1)" "$(field ours burst 1)"
echo "connect-burst runs over 30 s: stock $(timeouts stock burst) of $runs, ours $(timeouts ours burst) of $runs"
echo "(ours from $ours)"
