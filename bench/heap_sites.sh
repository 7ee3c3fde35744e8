#!/usr/bin/env bash
# What the loaded server of bench/engine.sh holds allocated at the end of
# its load, by the call that allocated it, on stock ENet 1.3.17 and on
# ours: engine.c's load-server runs under heaptrack with --leave-live (it
# exits after its last reading without destroying its host), so whatever
# the burst and the load left in use is reported as never freed. Each
# allocation goes to the innermost caller that is neither the allocator
# nor a collection growing (stock's library is stripped: its internal
# functions show as the exported call they ran under). Prints KiB per
# call site, side by side, largest first.
#
# usage: bench/heap_sites.sh [--ours DIR] [--peers N] [--load S] [--top N]
#   --ours DIR   directory holding our libenet.so (default: target/release,
#                built first)
#   --peers N    peers of the connect burst (default 500)
#   --load S     seconds of 20 reliable messages/s per peer (default 5)
#   --top N      call sites listed (default 25; the rest are summed)
# Allocations of 128 KiB and more (the peer array, our receive batch) are
# mapped by glibc apart from [heap], and listed with the rest. The C
# library's own caches (tcache, fastbins) are not allocations and
# do not show here: mallinfo2's figure, also printed, counts them as in
# use. Needs heaptrack (apt-get install heaptrack). Not a test: it prints
# figures.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
die() { echo "bench/heap_sites.sh: $*" >&2; exit 2; }
ours="" peers=500 load=5 top=25
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) [ $# -ge 2 ] || die "--ours needs a directory"; ours=$2; shift ;;
        --peers) [ $# -ge 2 ] || die "--peers needs a count"; peers=$2; shift ;;
        --load) [ $# -ge 2 ] || die "--load needs seconds"; load=$2; shift ;;
        --top) [ $# -ge 2 ] || die "--top needs a count"; top=$2; shift ;;
        -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
    shift
done
command -v heaptrack >/dev/null && command -v heaptrack_print >/dev/null ||
    die "heaptrack is not installed (apt-get install heaptrack)"
source "$repo/scripts/lib/procs.sh"
procs_init enet-heap-sites
stock_library
ours_library "$ours"

gcc -std=c99 -Wall -Wextra -Werror -O2 -g "$here/engine.c" -lenet -o "$work/engine" ||
    die "building engine.c failed"

# profile COLUMN LIBDIR: heaptrack's data of one loaded server, as
# $work/heap-COLUMN.*, its leaked bytes by stack as $work/COLUMN.stacks,
# and the server's output as $work/COLUMN.out.
profile() {
    local column=$1 lib=$2
    loaded_server "$work/engine" "$lib" "$peers" "$load" "$work/$column.out" $((load + 300)) \
        heaptrack -o "$work/heap-$column" -- --leave-live
    local data
    data=$(ls "$work/heap-$column"* 2>/dev/null | head -n 1)
    [ -n "$data" ] || die "$column: heaptrack wrote no data"
    heaptrack_print -f "$data" --flamegraph-cost-type leaked -F "$work/$column.stacks" >/dev/null 2>&1 ||
        die "$column: heaptrack_print failed"
}

profile stock "$stock_dir"
profile ours "$ours_dir"

python3 - "$work" "$top" <<'PY'
import collections, re, sys
work, top = sys.argv[1], int(sys.argv[2])
# Frames that only pass an allocation on: the allocator, its wrappers,
# and the growth of standard collections.
passing = re.compile(
    r"^(malloc|calloc|realloc|posix_memalign|aligned_alloc|__rust|__rdl|_RNv|alloc::|core::|std::"
    r"|enet::mem::(hooks|cbox)::|enet_malloc$|<?alloc\.\.|_\$LT\$alloc\.\.|_\$LT\$core\.\.)")

def readable(frame):
    name = re.sub(r" \([^()]*\)$", "", frame)           # the source file
    name = re.sub(r"::h[0-9a-f]{16}$", "", name)        # the symbol hash
    for code, text in (("$LT$", "<"), ("$GT$", ">"), ("$u20$", " "), ("$u7b$", "{"),
                       ("$u7d$", "}"), ("..", "::"), ("$C$", ",")):
        name = name.replace(code, text)
    name = re.sub(r"_?<impl [^>]*>::", "", name)        # impl blocks: the method is enough
    name = re.sub(r"^_?<([^ >]+) as [^>]+>::", r"\1::", name)  # trait methods: the type's
    return name.removeprefix("enet::")

def sites(column):
    kib = collections.Counter()
    for line in open(f"{work}/{column}.stacks"):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not count.isdigit() or int(count) == 0:
            continue
        frames = [f for f in stack.split(";") if f]
        site = next((f for f in reversed(frames) if not passing.match(f)), frames[-1])
        kib[readable(site)] += int(count) / 1024
    return kib

columns = {column: sites(column) for column in ("stock", "ours")}
names = sorted(set(columns["stock"]) | set(columns["ours"]),
               key=lambda n: -max(columns["stock"][n], columns["ours"][n]))
width = 78
print(f"{'allocated by (KiB in use at the end of the load)':<{width}} {'stock':>8} {'ours':>8}")
for name in names[:top]:
    print(f"{name[:width]:<{width}} {columns['stock'][name]:>8.1f} {columns['ours'][name]:>8.1f}")
rest = names[top:]
if rest:
    print(f"{'the other ' + str(len(rest)) + ' sites':<{width}} "
          f"{sum(columns['stock'][n] for n in rest):>8.1f} {sum(columns['ours'][n] for n in rest):>8.1f}")
row = [sum(columns[c].values()) for c in ("stock", "ours")]
print(f"{'in all':<{width}} {row[0]:>8.1f} {row[1]:>8.1f}")
PY
for column in stock ours; do
    echo "$column: $(grep -h heap_in_use_kb "$work/$column.out" || echo 'heap_in_use_kb ?') (mallinfo2 in the profiled run, heaptrack's own allocations included)"
done
echo "($peers peers after a connect burst and $load s of 20 msgs/s each; ours from $ours_dir)"
