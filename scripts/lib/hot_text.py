"""Section-name patterns of the functions callgrind saw run in libenet.

usage: hot_text.py [--keep LIST] LIBRARY --idle CALLGRIND_OUT... [--traffic CALLGRIND_OUT...]
                   --busy CALLGRIND_OUT...

Reads the callgrind profiles (made with LIBRARY loaded, best with
--demangle=no, which tells a generic function's instances apart), finds
every function executed in LIBRARY, and prints one glob pattern per
function for link/hot-text.txt: the symbol's mangled name with what
changes between builds (the legacy hash, v0 crate disambiguators) replaced
by '*'. Where that pattern would name several functions (the instances of
a generic function: a vector's growth for each element type), the
executed instance is named exactly instead, hash and all, and the pattern
goes to a last tier: the instances that did not run then come after all
that did, and a build whose hashes differ (another compiler, another
target) still finds every instance there, after the tiers it misses.

The list comes in four tiers, each under its marker line: first the
functions the --idle profiles ran (a server that accepts connections and
keeps idle peers), then those the --traffic ones added (a server whose
peers send it messages), then those only the --busy ones ran (more kinds
of traffic, teardown), then the generic functions' patterns ("shared").
The library's text is mapped 64 KiB at a time, so a server that only
keeps idle peers touches the windows holding the first tier alone, and
one taking its players' messages those of the first two.

With --keep, the patterns of the list LIST (the current hot-text.txt) that
still name a function of LIBRARY are printed too, in the tier they had
(the busy one, if LIST has no markers) unless an earlier tier's profile
ran them;
a kept pattern that names several functions goes to the last tier. Some
of the engine's paths run only when timing makes them (a handshake's
retransmission, a queue that wraps), so one round of profiles can miss a
function an earlier round saw; keeping the earlier list makes
regenerating it add, not drop.
"""
import bisect
import fnmatch
import os
import re
import subprocess
import sys


def executed_functions(paths, calls=None):
    """Names (and bare addresses) of functions run in the library; with
    `calls` (a dict), also how many times each name was called, summed
    into it."""
    names, addresses = set(), set()
    for path in paths:
        objects, functions, current, callee = {}, {}, None, None
        with open(path, errors="replace") as profile:
            for line in profile:
                line = line.rstrip("\n")
                found = re.match(r"^(ob|cob)=\((\d+)\)(?: (.*))?$", line)
                if found:
                    kind, key, name = found.groups()
                    if name:
                        objects[key] = name
                    if kind == "ob":
                        current = objects.get(key)
                    continue
                if line.startswith("calls=") and callee is not None and calls is not None:
                    calls[callee] = calls.get(callee, 0) + int(line[6:].split()[0])
                    continue
                found = re.match(r"^(fn|cfn)=\((\d+)\)(?: (.*))?$", line)
                if not found:
                    continue
                kind, key, name = found.groups()
                if name:
                    functions[key] = name
                if kind == "cfn":
                    callee = re.sub(r"'\d+$", "", functions[key])
                    continue
                # Code valgrind could not attribute shows as "???".
                if kind != "fn" or not current or not ("libenet" in current or current == "???"):
                    continue
                # Recursion levels come as name'2, name'3...
                function = re.sub(r"'\d+$", "", functions[key])
                if re.match(r"^0x[0-9a-f]+$", function):
                    # A bare address is the library's only under its name.
                    if "libenet" in current:
                        addresses.add(int(function, 16))
                else:
                    names.add(function)
    return names, addresses


def text_symbols(library):
    """(address, size, mangled, demangled) of each function symbol (nm, or
    the tool NM names)."""
    def listing(*flags):
        return subprocess.run([os.environ.get("NM", "nm"), *flags, "-S", "--defined-only", library],
                              capture_output=True, text=True, check=True).stdout.splitlines()
    symbols = []
    for mangled, demangled in zip(listing(), listing("-C")):
        raw, plain = mangled.split(None, 3), demangled.split(None, 3)
        if len(raw) == 4 and len(plain) == 4 and plain[2] in "tT":
            symbols.append((int(raw[0], 16), int(raw[1], 16), raw[3].strip(), plain[3].strip()))
    symbols.sort()
    return symbols


TIERS = ("idle", "traffic", "busy", "shared")
# Calls in the busy profiles from which a function counts as run per
# message rather than once per host or connection.
CALLED_OFTEN = 100
MARKER = "# tier: "


def kept_patterns(path, symbols):
    """The patterns of the list at `path` that match a function symbol, by
    the tier they are listed in."""
    names = [mangled for _, _, mangled, _ in symbols]
    kept = {tier: set() for tier in TIERS}
    tier = "busy"
    with open(path) as listing:
        for line in listing:
            pattern = line.strip()
            if pattern.startswith(MARKER) and pattern[len(MARKER):] in TIERS:
                tier = pattern[len(MARKER):]
            elif pattern and not pattern.startswith("#") and fnmatch.filter(names, pattern):
                kept[tier].add(pattern)
    return kept


def generalized(mangled):
    """The pattern that names `mangled` in any build: its legacy hash and
    v0 crate disambiguators replaced by '*'."""
    pattern = re.sub(r"17h[0-9a-f]{16}E$", "17h*", mangled)
    return re.sub(r"Cs[0-9A-Za-z]+_", "Cs*_", pattern)


def instance_counts(symbols):
    """How many of the library's functions each generalized pattern names."""
    counts = {}
    for _, _, mangled, _ in symbols:
        pattern = generalized(mangled)
        counts[pattern] = counts.get(pattern, 0) + 1
    return counts


def patterns_run(profiles, symbols, instances, calls=None, shared=None):
    """Patterns of the library's functions the profiles saw run; with
    `calls` (a dict), each pattern's call count summed into it. A function
    whose generalized pattern names others too (`instances`, from
    `instance_counts`) is named exactly, and that pattern added to
    `shared` (a set)."""
    called = {}
    names, addresses = executed_functions(profiles, called)
    # Profiles made with --demangle=no name each instance; demangled ones
    # name all instances of a generic function alike.
    hot = {mangled for _, _, mangled, plain in symbols if mangled in names or plain in names}
    starts = [start for start, _, _, _ in symbols]
    for address in addresses:
        at = bisect.bisect_right(starts, address) - 1
        if at >= 0 and symbols[at][0] <= address < symbols[at][0] + max(symbols[at][1], 1):
            hot.add(symbols[at][2])
    plain_of = {mangled: plain for _, _, mangled, plain in symbols}
    patterns = set()
    for mangled in hot:
        pattern = generalized(mangled)
        if instances.get(pattern, 0) > 1:
            if shared is not None:
                shared.add(pattern)
            pattern = mangled
        patterns.add(pattern)
        if calls is not None:
            count = called.get(mangled, 0) or called.get(plain_of.get(mangled), 0)
            calls[pattern] = calls.get(pattern, 0) + count
    return patterns


def main():
    arguments = sys.argv[1:]
    keep = None
    if arguments[:1] == ["--keep"]:
        keep, arguments = arguments[1], arguments[2:]
    library, arguments = arguments[0], arguments[1:]
    profiles, tier = {t: [] for t in TIERS}, None
    for argument in arguments:
        if argument.startswith("--") and argument[2:] in TIERS:
            tier = argument[2:]
        elif tier is None:
            sys.exit("hot_text.py: name each profile's tier (--idle, --traffic or --busy) before it")
        elif tier == "shared":
            sys.exit("hot_text.py: the shared tier is made, not profiled")
        else:
            profiles[tier].append(argument)
    symbols = text_symbols(library)
    kept = kept_patterns(keep, symbols) if keep else {t: set() for t in TIERS}
    # A kept pattern naming several functions (an earlier list's, or a
    # generic function's) would place them all in its tier.
    names = [mangled for _, _, mangled, _ in symbols]
    shared = set(kept["shared"])
    for tier in ("idle", "traffic", "busy"):
        several = {p for p in kept[tier] if len(fnmatch.filter(names, p)) > 1}
        kept[tier] -= several
        shared |= several
    calls = {tier: {} for tier in TIERS}
    instances = instance_counts(symbols)

    def run(tier):
        return patterns_run(profiles[tier], symbols, instances, calls[tier], shared) | kept[tier]

    idle = run("idle")
    traffic = run("traffic") - idle
    busy = run("busy") - idle - traffic
    shared -= idle | traffic | busy
    # Each tier most called first, then by name, so that what runs per
    # pass, message or datagram comes before what a run met once (a host's
    # creation and destruction, reading the process's switches), which
    # trails into the next window when the tier outgrows its windows.
    for tier, patterns in (("idle", idle), ("traffic", traffic), ("busy", busy), ("shared", shared)):
        often = calls[tier]
        patterns = sorted(patterns, key=lambda p: (-(often.get(p, 0) >= CALLED_OFTEN), p))
        print(MARKER + tier)
        for pattern in patterns:
            print(pattern)


if __name__ == "__main__":
    main()
