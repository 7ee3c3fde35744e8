#!/usr/bin/env bash
# A server keeping idle peers keeps resident only the code windows that
# link/hot-text.txt's idle tier spans. The kernel maps a library's code 64
# KiB at a time, so one function the idle server runs but the list leaves
# out (a new function, or one renamed by a change) costs a whole window
# more: the list is stale, and scripts/hot-text.sh makes it anew. This
# runs bench/engine.c's rss-server with idle clients on our library, reads
# its code's resident size at the moment it measures its RSS (the same
# moment bench/rss_breakdown.sh describes), and compares it with the
# windows the idle tier spans in the library.
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

# check: one run of the server, then the comparison (exit 1 if its code
# outgrew the idle tier's windows).
check() {
    rm -f "$work/server.smaps"
    idle_server "$work/engine" "$work/bench" "$lib_dir" "$peers" "$work/server.out" 60 10 \
        SMAPS_SNAPSHOT="$work/server.smaps" LD_PRELOAD="$work/smaps_snapshot.so"
    [ -s "$work/server.smaps" ] || die "the server left no smaps snapshot"
    compare
}
compare() {
python3 - "$lib" "$list" "$work/server.smaps" <<'PY'
import fnmatch, os, re, subprocess, sys
lib, listing, smaps = sys.argv[1:]
WINDOW = 64 * 1024

# The tiers' patterns, as build.rs reads them.
tiers, tier = {"idle": [], "busy": []}, None
for line in open(listing):
    line = line.strip()
    if line.startswith("# tier: "):
        tier = line[len("# tier: "):]
    elif line and not line.startswith("#") and tier in tiers:
        tiers[tier].append(line)
if not tiers["idle"] or not tiers["busy"]:
    sys.exit(f"{listing} lacks an idle or a busy tier")

# Where the code segment starts, and where the idle tier's last function ends.
segments = subprocess.run([os.environ["READELF"], "-lW", lib], capture_output=True, text=True,
                          check=True).stdout
code = [l.split() for l in segments.splitlines() if l.split()[:1] == ["LOAD"] and " R E " in l]
if len(code) != 1:
    sys.exit(f"{lib}: expected one code segment")
segment_start = int(code[0][2], 16)
if segment_start % WINDOW:
    sys.exit(f"{lib}: the code segment starts at {segment_start:#x}, not on a 64 KiB boundary")
symbols = subprocess.run([os.environ["NM"], "-S", "--defined-only", lib], capture_output=True,
                         text=True, check=True).stdout
functions = {"idle": [], "busy": []}
for line in symbols.splitlines():
    parts = line.split()
    if len(parts) == 4 and parts[2] in "tT":
        for name in ("idle", "busy"):
            if any(fnmatch.fnmatchcase(parts[3], p) for p in tiers[name]):
                functions[name].append((int(parts[0], 16), int(parts[1], 16), parts[3]))
                break
if not functions["idle"] or not functions["busy"]:
    sys.exit(f"no function of {lib} matches the idle or the busy tier")
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

# The server's resident code of our library.
resident, inside = None, False
for line in open(smaps):
    head = re.match(r"^([0-9a-f]+)-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$", line)
    if head:
        name = head.group(3).rsplit("/", 1)[-1]
        inside = head.group(2).startswith("r-x") and name.startswith("libenet.so")
        if inside and int(head.group(1), 16) % WINDOW:
            sys.exit("the library's code was mapped off a 64 KiB boundary (a C library that "
                     "does not align to the segment's alignment?)")
    elif inside and line.startswith("Rss:"):
        resident = (resident or 0) + int(line.split()[1])
if resident is None:
    sys.exit("no code mapping of libenet.so in the server's smaps")

allowed = windows * WINDOW // 1024
print(f"idle tier: {idle_end - segment_start} bytes of code, {windows} window(s) of 64 KiB; "
      f"the idle server's resident code: {resident} KiB (at most {allowed})")
if resident > allowed:
    sys.exit("the idle server ran code outside link/hot-text.txt's idle tier: "
             "run scripts/hot-text.sh and commit the list")
PY
}
# A stale list fails every run. A path only timing makes (a loaded
# machine's timeouts) can run code outside the tier in one run, so the
# test fails only when a second run does too.
check || { echo "once more"; check || exit 1; }
