#!/usr/bin/env bash
# What a server's C heap holds for each handshake waiting for its
# acknowledgement (the peak of a connect burst), stock ENet 1.3.17 and
# ours side by side: bench/handshake_heap.c, a client and a server host in
# one process, N connects answered and never acknowledged, the heap's
# allocated bytes (mallinfo2) per handshaking peer. Deterministic up to
# the connects the socket drops (stock's smaller receive buffer answers
# fewer of a large burst; the figure is per answered one).
#
# usage: bench/handshake_heap.sh [--ours DIR] [--peers "N ..."]
#   --ours DIR     directory holding our libenet.so (default:
#                  target/release, built first)
#   --peers LIST   connects per run (default "500 4000")
# Not a test: it prints figures.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
die() { echo "bench/handshake_heap.sh: $*" >&2; exit 2; }
ours="" peers="500 4000"
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) [ $# -ge 2 ] || die "--ours needs a directory"; ours=$2; shift ;;
        --peers) [ $# -ge 2 ] || die "--peers needs a list"; peers=$2; shift ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
    shift
done
source "$repo/scripts/lib/procs.sh"
procs_init enet-handshake-heap
stock_library
ours_library "$ours"
gcc -std=c99 -Wall -Wextra -Werror -O2 "$here/handshake_heap.c" -lenet -o "$work/handshake_heap" ||
    die "building handshake_heap.c failed"

# run LIBDIR PEERS: "handshaking bytes" of one run.
run() {
    LD_LIBRARY_PATH="$1" timeout 60 "$work/handshake_heap" "$2" >"$work/out" || die "handshake_heap $2 failed on $1"
    awk '$1 == "handshaking" { h = $2 } $1 == "heap_per_handshake" { b = $2 } END { print h, b }' "$work/out"
}

printf '%-8s %22s %22s %8s\n' peers "stock: answered, B each" "ours: answered, B each" ratio
for count in $peers; do
    read -r stock_n stock_b <<<"$(run "$stock_dir" "$count")"
    read -r ours_n ours_b <<<"$(run "$ours_dir" "$count")"
    ratio=$(awk -v s="$stock_b" -v o="$ours_b" 'BEGIN { if (s > 0) printf "%.2fx", o / s; else print "-" }')
    printf '%-8s %22s %22s %8s\n' "$count" "$stock_n, $stock_b" "$ours_n, $ours_b" "$ratio"
done
echo "(heap allocated per handshake waiting for its acknowledgement; ours from $ours)"
