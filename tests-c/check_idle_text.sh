#!/usr/bin/env bash
# A server keeping idle peers keeps resident only the code windows that
# link/hot-text.txt's idle tier spans. The kernel maps a library's code 64
# KiB at a time, so one function the idle server runs but the list leaves
# out (a new function, or one renamed by a change) costs a whole window
# more: the list is stale, and `cargo xtask hot-text` makes it anew. This
# runs bench/engine.c's rss-server with idle clients on our library, reads
# its code's resident size at the moment it measures its RSS (the same
# moment bench/rss_breakdown.sh describes), and compares it with the
# windows the idle tier spans in the library. Before any run it checks the
# list's traffic tier (what a server whose peers send it messages adds)
# ends within those windows too. Where the build moved the read-only data
# a plain host never reads to a segment after the code (build.rs,
# `cold_read_only_data_after_text`), the server must leave that segment
# wholly unmapped: a constant of the engine's moved there would cost a
# 64 KiB window of it.
# usage: check_idle_text.sh OUR_LIB_DIR [PEERS [LIST]]
#   LIST: the hot list the library was built with (link/hot-text.txt)
#   CC, NM and READELF name the tools (gcc, nm, readelf).
# It assumes the kernel maps code 64 KiB at a time (fault-around) from a
# page cache holding the whole library, as after a build: a colder cache
# maps less, which can only let a stale list pass.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
die() { echo "check_idle_text.sh: $*" >&2; exit 1; }
lib_dir=$(cd "$1" && pwd) || die "no directory $1"
peers=${2:-1000}
list=${3:-$repo/link/hot-text.txt}
lib="$lib_dir/libenet.so.7"
[ -e "$lib" ] || die "no libenet.so.7 in $lib_dir"
source "$repo/scripts/lib/procs.sh"
procs_init enet-idle-text

cc=${CC:-gcc}
export NM=${NM:-nm} READELF=${READELF:-readelf}
cflags=(-std=c99 -O2 -I"$repo/include")
"$cc" "${cflags[@]}" "$repo/bench/engine.c" -L"$lib_dir" -lenet -o "$work/engine" || die "building engine.c failed"
"$cc" "${cflags[@]}" "$repo/bench/bench.c" -L"$lib_dir" -lenet -o "$work/bench" || die "building bench.c failed"
"$cc" -std=c99 -O2 -shared -fPIC "$repo/bench/smaps_snapshot.c" -o "$work/smaps_snapshot.so" -ldl ||
    die "building smaps_snapshot.c failed"

# The library's layout depends only on the library and the list, so it is
# read once, before any server runs: the KiB of code the idle tier's 64 KiB
# windows span (a misplaced tier fails here, without a run).
allowed=$(python3 - "$repo/scripts/lib" "$lib" "$list" <<'PY'
import fnmatch, os, subprocess, sys
sys.path.insert(0, sys.argv[1])
from hot_text import TIERS, kept_patterns, text_symbols
lib, listing = sys.argv[2:]
WINDOW = 64 * 1024

symbols = text_symbols(lib)
patterns = kept_patterns(listing, symbols)
functions = {tier: [] for tier in TIERS}
for address, size, mangled, _ in symbols:
    for tier in TIERS:
        if any(fnmatch.fnmatchcase(mangled, p) for p in patterns[tier]):
            functions[tier].append((address, size, mangled))
            break

# Where the code segment starts.
segments = subprocess.run([os.environ["READELF"], "-lW", lib], capture_output=True, text=True,
                          check=True).stdout
code = [l.split() for l in segments.splitlines() if l.split()[:1] == ["LOAD"] and " R E " in l]
if len(code) != 1:
    sys.exit(f"{lib}: expected one code segment")
segment_start = int(code[0][2], 16)
if segment_start % WINDOW:
    sys.exit(f"{lib}: the code segment starts at {segment_start:#x}, not on a 64 KiB boundary")
if not all(functions[tier] for tier in TIERS):
    sys.exit(f"a tier of {listing} ({', '.join(TIERS)}) names no function of {lib}")
# The linker script puts the idle tier first, then the busy one: an idle
# function after the first busy one was not placed by the list (a build
# without it, or a name that is another function's alias).
busy_start = min(address for address, _, _ in functions["busy"])
misplaced = [name for address, _, name in functions["idle"] if address >= busy_start]
if misplaced:
    sys.exit(f"{len(misplaced)} idle-tier functions lie after the busy tier's start, "
             f"such as {misplaced[0]}")
idle_end = max(address + size for address, size, _ in functions["idle"])
windows = -(-(idle_end - segment_start) // WINDOW)
# The traffic tier follows the idle one in the same windows: a server
# whose peers send it messages keeps no more code resident than an idle
# one (docs/performance.md#memory). Past them it would keep another 64 KiB.
traffic_end = max(address + size for address, size, _ in functions["traffic"])
room = windows * WINDOW - (traffic_end - segment_start)
if room < 0:
    sys.exit(f"the traffic tier ends {-room} bytes past the idle tier's {windows} window(s) "
             f"of 64 KiB: a loaded server would keep another window resident")
print(windows * WINDOW // 1024)
print(f"idle tier: {idle_end - segment_start} bytes of code in {windows} window(s) of 64 KiB, "
      f"the traffic tier after it, {room} bytes before their end", file=sys.stderr)
PY
) || die "reading the idle tier's place in $lib failed"

# The file range of the segment the moved read-only data went to ("start
# end" in hex), or nothing where the build kept it before the code (no
# such section, or a linker that put it in the code's segment).
cold_range=$(python3 - "$lib" <<'PY'
import os, subprocess, sys
readelf = lambda option: subprocess.run([os.environ["READELF"], option, sys.argv[1]],
                                        capture_output=True, text=True, check=True).stdout
sections = [l.split() for l in readelf("-SW").splitlines() if ".rodata.cold" in l]
if sections:
    words = sections[0][sections[0].index(".rodata.cold") + 2:]
    address = int(words[0], 16)
    for fields in (l.split() for l in readelf("-lW").splitlines()):
        if fields[:1] != ["LOAD"]:
            continue
        offset, virtual, size = int(fields[1], 16), int(fields[2], 16), int(fields[4], 16)
        if virtual <= address < virtual + size and fields[6:7] == ["R"]:
            print(f"{offset:x} {offset + size:x}")
PY
) || die "reading the library's segments failed"

# resident SMAPS: the KiB of our library's code resident in a snapshot,
# then those of the moved read-only data's segment (0 where it has none).
resident() {
    python3 - "$1" $cold_range <<'PY'
import re, sys
cold = [int(word, 16) for word in sys.argv[2:4]]
resident, cold_resident, inside, in_cold = None, 0, False, False
for line in open(sys.argv[1]):
    head = re.match(r"^([0-9a-f]+)-[0-9a-f]+ (\S+) ([0-9a-f]+) \S+ \S+\s*(.*)$", line)
    if head:
        name = head.group(4).rsplit("/", 1)[-1]
        ours = name.startswith("libenet.so")
        inside = ours and head.group(2).startswith("r-x")
        in_cold = ours and bool(cold) and cold[0] <= int(head.group(3), 16) < cold[1]
        if inside and int(head.group(1), 16) % (64 * 1024):
            sys.exit("the library's code was mapped off a 64 KiB boundary (a C library that "
                     "does not align to the segment's alignment?)")
    elif line.startswith("Rss:"):
        if inside:
            resident = (resident or 0) + int(line.split()[1])
        elif in_cold:
            cold_resident += int(line.split()[1])
if resident is None:
    sys.exit("no code mapping of libenet.so in the server's smaps")
print(resident, cold_resident)
PY
}

# check: one run of the server; fails if its code outgrew the idle tier's
# windows.
check() {
    local kib
    rm -f "$work/server.smaps"
    idle_server "$work/engine" "$work/bench" "$lib_dir" "$peers" "$work/server.out" 60 10 \
        SMAPS_SNAPSHOT="$work/server.smaps" LD_PRELOAD="$work/smaps_snapshot.so"
    [ -s "$work/server.smaps" ] || die "the server left no smaps snapshot"
    read -r kib cold_kib < <(resident "$work/server.smaps") ||
        die "reading the server's smaps failed"
    echo "the idle server's resident code: $kib KiB (at most $allowed)"
    [ -z "$cold_range" ] ||
        echo "its moved read-only data (file 0x${cold_range/ /-0x}): $cold_kib KiB resident (must be 0)"
    [ "$kib" -le "$allowed" ] || {
        echo "the idle server ran code outside link/hot-text.txt's idle tier:" \
            "run cargo xtask hot-text and commit the list" >&2
        return 1
    }
    [ "$cold_kib" -eq 0 ] || {
        echo "the idle server read data build.rs moved after the code: a constant it" \
            "reads comes from another crate (keep it in the engine, or move less)" >&2
        return 1
    }
}
# A stale list fails every run. A path only timing makes (a loaded
# machine's timeouts) can run code outside the tier in one run, so the
# test fails only when a second run does too.
check || { echo "once more"; check || exit 1; }
