#!/usr/bin/env python3
"""Per-message instructions by source line or by function, from two
callgrind profiles of bench/msgcost.c (bench/callgrind-lines.sh runs them).

usage: callgrind-lines.py MESSAGES SRC BY TOP WITHIN SHORT LONG LIB
                          [SHORT LONG LIB]

SHORT and LONG are callgrind outputs (--dump-instr=yes) of runs MESSAGES
apart on the library LIB; each instruction's cost is the difference
divided by MESSAGES, so the set-up cancels out. With a second triple, the
first is a base build and the rows are both builds' costs and the change,
largest change first. Instructions in LIB (our libenet) are
placed with addr2line's inline chains: BY "line" gives each to the
innermost frame whose file lies under the engine's src/ directory (the
engine's own line that inlined a standard-library helper, say; SRC if the
line tables do not show it) or else the innermost frame; BY
"function" gives it to the symbol it sits in. WITHIN (may be empty) keeps
only the instructions of symbols whose name contains it. Prints the TOP
largest rows.
"""

import collections
import re
import subprocess
import sys

NAME = re.compile(r"\((\d+)\)(?: (.*))?$")


def self_costs(path):
    """Self cost per (object, address): call lines' inclusive costs skipped."""
    costs = collections.Counter()
    names = {}
    obj = None
    position = [0, 0]
    skip_next = False

    def name(kind, text):
        match = NAME.match(text)
        if not match:
            return text
        key = (kind, match.group(1))
        if match.group(2) is not None:
            names[key] = match.group(2)
        return names.get(key, "?")

    def step(token, previous):
        if token == "*":
            return previous
        if token[0] in "+-":
            return previous + int(token, 0)
        return int(token, 0)

    with open(path, encoding="utf-8", errors="replace") as profile:
        for raw in profile:
            line = raw.rstrip("\n")
            if not line:
                continue
            head = line[0]
            if head.isdigit() or head in "+-*":
                fields = line.split()
                position = [step(fields[0], position[0]), step(fields[1], position[1])]
                if skip_next:
                    skip_next = False
                elif len(fields) > 2:
                    costs[(obj, position[0])] += int(fields[2])
                continue
            key, _, value = line.partition("=")
            if key == "ob":
                obj = name("ob", value)
            elif key == "cob":
                name("ob", value)
            elif key in ("fl", "fi", "fe", "cfi", "cfl"):
                name("fl", value)
            elif key in ("fn", "cfn"):
                name("fn", value)
            elif key == "calls":
                skip_next = True
    return costs


def inline_chains(lib, addresses):
    """addr2line's frames (function, file:line), innermost first, by address."""
    query = "".join("%#x\n" % address for address in addresses)
    out = subprocess.run(
        ["addr2line", "-i", "-f", "-C", "-a", "-e", lib],
        input=query, capture_output=True, text=True, check=True,
    ).stdout.split("\n")
    chains = {}
    current = None
    i = 0
    while i < len(out):
        if out[i].startswith("0x"):
            current = int(out[i], 16)
            chains[current] = []
            i += 1
        elif out[i] and current is not None and i + 1 < len(out):
            where = re.sub(r" \(discriminator \d+\)", "", out[i + 1])
            chains[current].append((out[i], where))
            i += 2
        else:
            i += 1
    return chains


def source_root(chains):
    """The engine's src/ directory as the library's line tables name it
    (a base build may come from another checkout), or None."""
    for chain in chains.values():
        for _, where in chain:
            match = re.match(r"(.*/src/)ffi/host\.rs:", where)
            if match:
                return match.group(1)
    return None


def rows_of(short, long_, messages, lib, src, by, within):
    """Per-message costs by row, and the totals above the rows."""
    before = self_costs(short)
    after = self_costs(long_)
    ours = {}
    totals = collections.Counter()
    for (obj, address), cost in after.items():
        per_message = (cost - before.get((obj, address), 0)) / messages
        if obj and "libenet" in obj:
            ours[address] = per_message
        else:
            totals["in " + (obj or "?").rsplit("/", 1)[-1]] += per_message
    totals["in libenet"] = sum(ours.values())
    chains = inline_chains(lib, sorted(ours))
    src = source_root(chains) or src
    rows = collections.Counter()
    for address, cost in ours.items():
        chain = chains.get(address) or [("?", "?")]
        if within and within not in chain[-1][0]:
            continue
        if by == "function":
            rows[chain[-1][0]] += cost
        else:
            own = next((frame for frame in chain if src in frame[1]), chain[0])
            # Line 0 (":?"): code the compiler made for the file as a whole.
            rows[own[1].replace(src, "src/").replace(":?", " (no line)")] += cost
    if within:
        totals["in functions named *%s*" % within] = sum(rows.values())
    return totals, rows


def main():
    # PROFILES: SHORT LONG LIB, once, or twice to compare a base build
    # (first) with ours (second).
    messages, src, by, top, within, *profiles = sys.argv[1:]
    runs = [
        rows_of(profiles[i], profiles[i + 1], float(messages), profiles[i + 2], src, by, within)
        for i in range(0, len(profiles), 3)
    ]
    if len(runs) == 1:
        totals, rows = runs[0]
        for name in sorted(totals, key=lambda name: (name != "in libenet", -totals[name])):
            if totals[name] >= 0.05:
                print("%9.1f  %s" % (totals[name], name))
        for where, cost in rows.most_common(int(top)):
            print("%9.1f  %s" % (cost, where))
        return
    (base_totals, base_rows), (totals, rows) = runs
    print("%9s %9s %9s" % ("base", "ours", "change"))
    for name in sorted(set(totals) | set(base_totals), key=lambda name: name != "in libenet"):
        a, b = base_totals.get(name, 0), totals.get(name, 0)
        if max(a, b) >= 0.05:
            print("%9.1f %9.1f %+9.1f  %s" % (a, b, b - a, name))
    # Rows by size of the change: a line moved by an edit above it shows
    # as one row gone and one come.
    changed = sorted(set(rows) | set(base_rows), key=lambda k: -abs(rows[k] - base_rows[k]))
    for where in changed[: int(top)]:
        if abs(rows[where] - base_rows[where]) < 0.05:
            break
        print("%9.1f %9.1f %+9.1f  %s" % (base_rows[where], rows[where], rows[where] - base_rows[where], where))


if __name__ == "__main__":
    main()
