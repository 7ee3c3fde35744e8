#!/usr/bin/env bash
# Where the server RSS of bench/engine.sh goes: bench/engine.c's rss-server
# with N connected idle peers (bench/bench.c connects them), on stock ENet
# 1.3.17 and on ours in turn, with /proc/PID/smaps copied at the moment the
# server reads its RSS (bench/smaps_snapshot.c, preloaded). Prints the
# median over the runs of each part's resident KiB, side by side.
#
# usage: bench/rss_breakdown.sh [--ours DIR] [--runs N] [--peers N] [--load S]
#   --ours DIR   directory holding our libenet.so (default: target/release,
#                built first)
#   --runs N     runs per library (default 3)
#   --peers N    connected idle peers (default 4000)
#   --load S     the loaded server of bench/engine.sh instead: the peers
#                connect at once and send 20 reliable messages/s each for
#                S seconds; the snapshot is taken at the end
# Large anonymous mappings are listed by size: with 4000 peers, the
# ENetPeer array (4000 x 456 bytes) is the one of about 1790 KiB in both,
# our per-slot bookkeeping (PeerSlot, 48 bytes a slot) the one of about
# 190 KiB (or the two are one mapping of about 1972 KiB, when the kernel
# places them side by side)
# and our receive batch's buffer the one of about 2220 KiB (32 slots of
# 64 KiB and their 1536-byte heads). The C library's
# pages vary by up to 200 KiB between runs of either library (the kernel
# maps a file's pages around each one touched, as far as they are in the
# page cache). Not a test: it prints figures.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
die() { echo "bench/rss_breakdown.sh: $*" >&2; exit 2; }
ours="" runs=3 peers=4000 load=""
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) [ $# -ge 2 ] || die "--ours needs a directory"; ours=$2; shift ;;
        --runs) [ $# -ge 2 ] || die "--runs needs a count"; runs=$2; shift ;;
        --peers) [ $# -ge 2 ] || die "--peers needs a count"; peers=$2; shift ;;
        --load) [ $# -ge 2 ] || die "--load needs seconds"; load=$2; shift ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
    shift
done
source "$repo/scripts/lib/procs.sh"
procs_init enet-rss-breakdown
stock_library
ours_library "$ours"

cflags=(-std=c99 -Wall -Wextra -Werror -O2)
gcc "${cflags[@]}" "$here/engine.c" -lenet -o "$work/engine" || die "building engine.c failed"
gcc "${cflags[@]}" "$here/bench.c" -lenet -o "$work/bench" || die "building bench.c failed"
gcc "${cflags[@]}" -shared -fPIC "$here/smaps_snapshot.c" -o "$work/smaps_snapshot.so" -ldl ||
    die "building smaps_snapshot.c failed"

# parts SMAPS SERVER_OUT: "part<TAB>KiB" lines for one run.
parts() {
    python3 - "$1" "$2" <<'PY'
import collections, re, sys
smaps, server_out = sys.argv[1], sys.argv[2]
kib, part = collections.Counter(), None
for line in open(smaps):
    head = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$", line)
    if head:
        start, end, perm, path = head.groups()
        size = (int(end, 16) - int(start, 16)) // 1024
        base = path.split("/")[-1]
        lib = next((name for prefix, name in (("libenet.so", "libenet"), ("libc.so", "libc"),
                                              ("ld-linux", "ld.so")) if base.startswith(prefix)), None)
        if not path:
            part = f"anonymous mapping of {size} KiB" if size >= 256 else "other anonymous memory"
        elif path in ("[heap]", "[stack]"):
            part = path
        elif lib is None:
            part = "other files"
        elif "x" in perm:
            part = f"{lib} text"
        elif "w" in perm:
            part = f"{lib} data"
        else:
            part = f"{lib} read-only (and relocated)"
    elif line.startswith("Rss:") and part:
        kib[part] += int(line.split()[1])
for name, value in kib.items():
    print(f"{name}\t{value}")
print(f"total of the mappings\t{sum(kib.values())}")
for line in open(server_out):
    fields = line.split()
    if fields[:1] == ["rss_kb"]:
        print(f"VmRSS (the RSS row)\t{fields[1]}")
    elif fields[:1] == ["heap_in_use_kb"]:
        print(f"C heap allocated (mallinfo2)\t{fields[1]}")
PY
}

run() { # COLUMN INDEX
    local column=$1 index=$2 lib=$ours_dir
    [ "$column" = stock ] && lib=$stock_dir
    if [ -n "$load" ]; then
        loaded_server "$work/engine" "$lib" "$peers" "$load" "$work/$column.$index.out" $((load + 150)) \
            SMAPS_SNAPSHOT="$work/$column.$index.smaps" LD_PRELOAD="$work/smaps_snapshot.so"
    else
        idle_server "$work/engine" "$work/bench" "$lib" "$peers" "$work/$column.$index.out" 300 30 \
            SMAPS_SNAPSHOT="$work/$column.$index.smaps" LD_PRELOAD="$work/smaps_snapshot.so"
    fi
    [ -s "$work/$column.$index.smaps" ] || die "$column: no smaps snapshot"
    parts "$work/$column.$index.smaps" "$work/$column.$index.out" >"$work/$column.$index.parts"
}

for index in $(seq "$runs"); do
    run stock "$index"
    run ours "$index"
done

# The median of each part over the runs (a part missing in a run counts 0).
python3 - "$work" "$runs" <<'PY'
import statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
medians, order = {}, []
for column in ("stock", "ours"):
    seen = {}
    for index in range(1, runs + 1):
        with open(f"{work}/{column}.{index}.parts") as parts:
            for line in parts:
                part, kib = line.rstrip("\n").split("\t")
                seen.setdefault(part, [0] * runs)[index - 1] = int(kib)
                if part not in order:
                    order.append(part)
    medians[column] = {part: statistics.median(values) for part, values in seen.items()}
first = ["VmRSS (the RSS row)", "total of the mappings", "C heap allocated (mallinfo2)"]
rest = sorted((p for p in order if p not in first),
              key=lambda p: -max(medians["stock"].get(p, 0), medians["ours"].get(p, 0)))
print(f"{'part (KiB, median of ' + str(runs) + ' runs)':<48} {'stock':>8} {'ours':>8}")
for part in first + rest:
    stock, ours = medians["stock"].get(part, 0), medians["ours"].get(part, 0)
    if stock or ours:
        print(f"{part:<48} {stock:>8g} {ours:>8g}")
PY
if [ -n "$load" ]; then
    echo "($peers peers after a connect burst and $load s of 20 msgs/s each; ours from $ours_dir)"
else
    echo "($peers connected idle peers; ours from $ours_dir)"
fi
