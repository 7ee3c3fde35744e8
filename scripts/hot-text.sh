#!/usr/bin/env bash
# Regenerates link/hot-text.txt: the functions our library runs in common
# use, which build.rs places together at the start of its text so that
# fewer of its pages stay resident (docs/performance.md#memory).
#
# usage: scripts/hot-text.sh
#
# Profiles, with callgrind, bench/engine.c's rss-server with 1000 idle peers
# (bench/bench.c connects them) and bench/msgcost.c (reliable, unreliable
# and bulk traffic between two hosts). Every function seen running in
# libenet goes in the list, beside the current list's functions that the
# library still has (some paths run only when timing makes them): first
# those the server ran before it destroyed its host, then the rest. Run it
# after changes that move the hot path into new functions; a stale list
# costs memory, never correctness.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
die() { echo "scripts/hot-text.sh: $*" >&2; exit 2; }
command -v valgrind >/dev/null || die "valgrind is not installed"
command -v python3 >/dev/null || die "python3 is not installed"
(cd "$repo" && cargo build --release --locked -p enet-rs -q) || die "cargo build failed"
source "$repo/scripts/lib/procs.sh"
procs_init enet-hot-text
ours_library "$repo/target/release"
cflags=(-std=c99 -Wall -Wextra -Werror -O2)
gcc "${cflags[@]}" -idirafter "$repo/include" "$repo/bench/msgcost.c" -lenet -ldl -o "$work/msgcost" || die "building msgcost.c failed"
gcc "${cflags[@]}" "$repo/bench/engine.c" -lenet -o "$work/engine" || die "building engine.c failed"
gcc "${cflags[@]}" "$repo/bench/bench.c" -lenet -o "$work/bench" || die "building bench.c failed"

profile() { # OUT PROGRAM ARGS...: one callgrind run on our library
    local out=$1
    shift
    LD_LIBRARY_PATH="$ours_dir" valgrind --tool=callgrind --callgrind-out-file="$out" "$@" \
        >"$out.stdout" 2>"$out.log"
}
for kind in reliable unreliable bulk; do
    count=2000
    [ "$kind" = bulk ] && count=20
    profile "$work/$kind.cg" "$work/msgcost" "$kind" "$count" || die "msgcost $kind failed"
done
# The server under callgrind, its idle clients natively. Its profile up to
# enet_host_destroy (rss.cg.1) is the idle tier; its teardown (rss.cg) is
# not.
peers=1000
LD_LIBRARY_PATH="$ours_dir" valgrind --tool=callgrind --callgrind-out-file="$work/rss.cg" \
    --dump-before=enet_host_destroy "$work/engine" rss-server --peers "$peers" >"$work/rss.out" 2>"$work/rss.err" &
server=$!; track "$server"
port=$(wait_port "$work/rss.out" "$server" rss-server 60)
LD_LIBRARY_PATH="$ours_dir" "$work/bench" idle-clients --port "$port" --peers "$peers" --hosts 4 \
    >/dev/null 2>"$work/clients.err" &
clients=$!; track "$clients"
bounded_wait "$server" 300
[ "$RC" -eq 0 ] || die "rss-server failed ($RC): $(cat "$work/rss.err")"
bounded_wait "$clients" 30
[ -s "$work/rss.cg.1" ] || die "rss-server's profile up to enet_host_destroy is missing"

{
    echo "# Functions the engine runs in common use, by section-name pattern: build.rs"
    echo "# places them first in the library's text (see docs/performance.md#memory)."
    echo "# Made by scripts/hot-text.sh; one glob pattern per line, '#' comments."
    echo "# Two tiers, each under its marker: what a server keeping idle peers runs"
    echo "# (connects, pings, timeouts), then the rest of common use (traffic)."
    python3 "$here/lib/hot_text.py" --keep "$repo/link/hot-text.txt" "$ours_dir/libenet.so.7" \
        --idle "$work/rss.cg.1" --busy "$work"/*.cg
} >"$repo/link/hot-text.txt.new"
mv "$repo/link/hot-text.txt.new" "$repo/link/hot-text.txt"
echo "link/hot-text.txt: $(grep -vc '^#' "$repo/link/hot-text.txt") patterns"
