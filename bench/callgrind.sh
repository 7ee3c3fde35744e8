#!/usr/bin/env bash
# Instructions per message, stock ENet 1.3.17 and ours side by side, counted
# by callgrind on bench/msgcost.c with its fixed clock (deterministic: the
# same figures on every run of the same build).
#
# usage: bench/callgrind.sh [--ours DIR] [--small N] [--bulk N] [--entry-points]
#                           [--stages] [--ipv6]
#   --ours DIR       directory holding our libenet.so (default: target/release,
#                    built first with cargo build --release)
#   --small N        64-byte messages in the longer run (default 40000; the
#                    shorter run sends N/4)
#   --bulk N         64 KiB messages in the longer run (default 400)
#   --entry-points   also split each whole-process figure by the ENet call
#                    the program made (enet_host_service, enet_peer_send,
#                    enet_packet_create, enet_packet_destroy; inclusive), and
#                    show the C allocator (malloc, free, calloc, realloc)
#                    from any caller
#   --stages         also split ours inside enet_host_service by the engine
#                    function that ran (inclusive; stock's are static
#                    functions that Debian's stripped library leaves
#                    unnamed, so it has no such split)
#   --ipv6           also count ours with reliable 64-byte messages between
#                    two hosts on ::1, beside ours on 127.0.0.1 (stock has
#                    no IPv6): what an IPv6 peer's address look-up costs
#
# For each traffic kind the program runs with two message counts; the
# difference of the instruction counts divided by the difference of the
# counts is the cost per message with connection set-up cancelled out.
# The last row, "idle service call", is one enet_host_service call on a
# connected server with nothing due (msgcost's idle mode), the cost a game
# loop pays on each call between messages.
# "whole process" counts everything (both hosts, the program's own loop,
# malloc, memcpy and the kernel-call wrappers in libc); "in libenet code"
# only instructions in libenet's own object (bench/callgrind-objects.awk).
# Not a test: it prints figures.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
ours=""
small=40000
bulk=400
entry_points=0
stages=0
ipv6=0

die() { echo "bench/callgrind.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) [ $# -ge 2 ] || die "--ours needs a directory"; ours=$2; shift ;;
        --small) [ $# -ge 2 ] || die "--small needs a count"; small=$2; shift ;;
        --bulk) [ $# -ge 2 ] || die "--bulk needs a count"; bulk=$2; shift ;;
        --entry-points) entry_points=1 ;;
        --stages) stages=1 ;;
        --ipv6) ipv6=1 ;;
        -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    shift
done
command -v valgrind >/dev/null || die "valgrind is not installed"
source "$repo/scripts/lib/procs.sh"
procs_init enet-callgrind
stock_library
ours_library "$ours"

program="$work/msgcost"
# -idirafter: <enet/enet.h> is stock's, <enet/enet_rs.h> (for the ipv6
# mode's types) ours.
gcc -std=c99 -Wall -Wextra -Werror -O2 -rdynamic -idirafter "$repo/include" \
    "$here/msgcost.c" -lenet -ldl -o "$program" \
    || die "building msgcost.c failed"

# The calls --entry-points splits the whole-process figure by.
entry_point_names="enet_host_service enet_peer_send enet_packet_create enet_packet_destroy"

# The engine functions --stages splits ours by (inclusive counts; the
# stages are differences of them, see bench/callgrind-rows.awk).
# (`Host>::NAME` is the tail of `<impl enet::proto::host::Host>::NAME`,
# `PeerMut>::NAME` of a method on one peer's view: `acknowledge` takes an
# acknowledged command out of the sent queue, whichever path called it.)
stage_names="enet_host_service Host>::handle_received PeerMut>::acknowledge"
stage_names+=" Host>::queue_incoming Host>::dispatch_received Host>::send_pass"
stage_names+=" Host>::pack_outgoing ReceiveBatch::fill Host>::handle_fragment"
stage_names+=" Host>::reschedule_deferred"

# counts LIBDIR MODE COUNT [ipv6]: "TOTAL LIBENET" instructions of one run, LIBENET
# being those executed in libenet's own code (not in libc or the program);
# with --entry-points, then what the program's calls to each of
# $entry_point_names cost, inclusive, and the C allocator from any caller;
# with --stages, then the inclusive count of each of $stage_names.
counts() {
    local libdir=$1 mode=$2 count=$3 family=${4:-} out="$work/cg.out" log="$work/cg.log"
    LD_LIBRARY_PATH="$libdir" valgrind --tool=callgrind --callgrind-out-file="$out" \
        "$program" "$mode" "$count" $family >"$work/stdout" 2>"$log" \
        || { cat "$log" >&2; die "msgcost $mode $count failed on $libdir"; }
    grep -Eq "^(delivered|serviced) $count\$" "$work/stdout" ||
        die "msgcost $mode $count: $(cat "$work/stdout")"
    awk -f "$here/callgrind-objects.awk" "$out" |
        awk '{ total += $1 } $2 ~ /libenet/ { lib += $1 } END { printf "%d %d ", total, lib + 0 }'
    if [ "$entry_points" = 1 ] || [ "$stages" = 1 ]; then
        callgrind_annotate --tree=calling --inclusive=yes --threshold=100 "$out" \
            >"$work/tree" 2>/dev/null
    fi
    if [ "$entry_points" = 1 ]; then
        awk -v entry_points="$entry_point_names" -f "$here/callgrind-entry-points.awk" \
            "$work/tree" | tr '\n' ' '
    fi
    if [ "$stages" = 1 ]; then
        awk -v stages="$stage_names" -f "$here/callgrind-stages.awk" "$work/tree"
    else
        echo
    fi
}

# per_message LIBDIR MODE LONG DIVISOR [ipv6]: the fields of `counts` per
# message (per message/DIVISOR) from runs of LONG/4 and LONG messages.
per_message() {
    local libdir=$1 mode=$2 long=$3 divisor=$4 family=${5:-} short=$(($3 / 4)) a b
    a=$(counts "$libdir" "$mode" "$short" $family)
    b=$(counts "$libdir" "$mode" "$long" $family)
    awk -v a="$a" -v b="$b" -v n=$((long - short)) -v d="$divisor" 'BEGIN {
        k = split(a, x, " "); split(b, y, " ")
        for (i = 1; i <= k; i++) printf "%s%.0f", (i > 1 ? " " : ""), (y[i] - x[i]) / n / d }'
}

printf '%-36s %10s %10s %8s\n' "instructions per message" stock ours ratio
for row in "reliable 64 B:reliable:$small:1" "unreliable 64 B:unreliable:$small:1" \
           "bulk 64 KiB, per KiB:bulk:$bulk:64" "idle service call:idle:$small:1"; do
    IFS=: read -r label mode long divisor <<<"$row"
    stock_row=$(per_message "$stock_dir" "$mode" "$long" "$divisor")
    ours_row=$(per_message "$ours_dir" "$mode" "$long" "$divisor")
    [ "$mode" = reliable ] && ours_reliable=$ours_row
    awk -v l="$label" -v s="$stock_row" -v o="$ours_row" -v names="$entry_point_names" \
        -v parts="$entry_points" -v stages="$stages" -f "$here/callgrind-rows.awk"
done
if [ "$ipv6" = 1 ]; then
    ours_v6=$(per_message "$ours_dir" reliable "$small" 1 ipv6)
    awk -v v4="$ours_reliable" -v v6="$ours_v6" 'BEGIN {
        split(v4, a, " "); split(v6, b, " ")
        printf "%-36s %10s %10s %8s\n", "ours, reliable 64 B", "127.0.0.1", "::1", "ratio"
        printf "%-36s %10d %10d %7.2fx\n", "  whole process", a[1], b[1], b[1] / a[1]
        printf "%-36s %10d %10d %7.2fx\n", "  in libenet code", a[2], b[2], b[2] / a[2] }'
fi
echo "(callgrind, fixed clock; ours from $ours)"
