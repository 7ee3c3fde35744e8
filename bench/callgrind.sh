#!/usr/bin/env bash
# Instructions per message, stock ENet 1.3.17 and ours side by side, counted
# by callgrind on bench/msgcost.c with its fixed clock (deterministic: the
# same figures on every run of the same build).
#
# usage: bench/callgrind.sh [--ours DIR] [--small N] [--bulk N]
#   --ours DIR   directory holding our libenet.so (default: target/release,
#                built first with cargo build --release)
#   --small N    64-byte messages in the longer run (default 40000; the
#                shorter run sends N/4)
#   --bulk N     64 KiB messages in the longer run (default 400)
#
# For each traffic kind the program runs with two message counts; the
# difference of the instruction counts divided by the difference of the
# counts is the cost per message with connection set-up cancelled out.
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

die() { echo "bench/callgrind.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) [ $# -ge 2 ] || die "--ours needs a directory"; ours=$2; shift ;;
        --small) [ $# -ge 2 ] || die "--small needs a count"; small=$2; shift ;;
        --bulk) [ $# -ge 2 ] || die "--bulk needs a count"; bulk=$2; shift ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
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
gcc -std=c99 -Wall -Wextra -Werror -O2 -rdynamic "$here/msgcost.c" -lenet -o "$program" \
    || die "building msgcost.c failed"

# counts LIBDIR MODE COUNT: "TOTAL LIBENET" instructions of one run, LIBENET
# being those executed in libenet's own code (not in libc or the program).
counts() {
    local libdir=$1 mode=$2 count=$3 out="$work/cg.out" log="$work/cg.log"
    LD_LIBRARY_PATH="$libdir" valgrind --tool=callgrind --callgrind-out-file="$out" \
        "$program" "$mode" "$count" >"$work/stdout" 2>"$log" \
        || { cat "$log" >&2; die "msgcost $mode $count failed on $libdir"; }
    grep -q "^delivered $count\$" "$work/stdout" || die "msgcost $mode $count: $(cat "$work/stdout")"
    awk -f "$here/callgrind-objects.awk" "$out" |
        awk '{ total += $1 } $2 ~ /libenet/ { lib += $1 } END { print total, lib + 0 }'
}

# per_message LIBDIR MODE LONG DIVISOR: "TOTAL LIBENET" per message (per
# message/DIVISOR) from runs of LONG/4 and LONG messages.
per_message() {
    local libdir=$1 mode=$2 long=$3 divisor=$4 short=$(($3 / 4)) a b
    a=$(counts "$libdir" "$mode" "$short")
    b=$(counts "$libdir" "$mode" "$long")
    awk -v a="$a" -v b="$b" -v n=$((long - short)) -v d="$divisor" 'BEGIN {
        split(a, x, " "); split(b, y, " ")
        printf "%.0f %.0f", (y[1] - x[1]) / n / d, (y[2] - x[2]) / n / d }'
}

printf '%-36s %10s %10s %8s\n' "instructions per message" stock ours ratio
for row in "reliable 64 B:reliable:$small:1" "unreliable 64 B:unreliable:$small:1" \
           "bulk 64 KiB, per KiB:bulk:$bulk:64"; do
    IFS=: read -r label mode long divisor <<<"$row"
    read -r s_total s_lib <<<"$(per_message "$stock_dir" "$mode" "$long" "$divisor")"
    read -r o_total o_lib <<<"$(per_message "$ours_dir" "$mode" "$long" "$divisor")"
    awk -v l="$label" -v st="$s_total" -v sl="$s_lib" -v ot="$o_total" -v ol="$o_lib" 'BEGIN {
        printf "%-36s %10d %10d %7.2fx\n", l ", whole process", st, ot, ot / st
        printf "%-36s %10d %10d %7.2fx\n", l ", in libenet code", sl, ol, ol / sl }'
done
echo "(callgrind, fixed clock; ours from $ours)"
