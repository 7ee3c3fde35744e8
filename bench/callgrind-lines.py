#!/usr/bin/env python3
"""Per-message instructions by source line or by function, from two
callgrind profiles of bench/msgcost.c (bench/callgrind-lines.sh runs them).

usage: callgrind-lines.py SHORT_OUT LONG_OUT MESSAGES LIB SRC BY TOP [WITHIN]

SHORT_OUT and LONG_OUT are callgrind outputs (--dump-instr=yes) of runs
MESSAGES apart; each instruction's cost is the difference divided by
MESSAGES, so the set-up cancels out. Instructions in LIB (our libenet) are
placed with addr2line's inline chains: BY "line" gives each to the
innermost frame whose file lies under SRC (the engine's own line that
inlined a standard-library helper, say) or else the innermost frame; BY
"function" gives it to the symbol it sits in. WITHIN keeps only the
instructions of symbols whose name contains it. Prints the TOP largest.
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


def main():
    short, long_, messages, lib, src, by, top = sys.argv[1:8]
    within = sys.argv[8] if len(sys.argv) > 8 else ""
    messages = float(messages)
    before = self_costs(short)
    after = self_costs(long_)
    ours = {}
    elsewhere = collections.Counter()
    for (obj, address), cost in after.items():
        per_message = (cost - before.get((obj, address), 0)) / messages
        if obj and "libenet" in obj:
            ours[address] = per_message
        else:
            elsewhere[(obj or "?").rsplit("/", 1)[-1]] += per_message
    chains = inline_chains(lib, sorted(ours))
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
    print("%9.1f  in libenet" % sum(ours.values()))
    for obj, cost in elsewhere.most_common(3):
        if cost >= 0.05:
            print("%9.1f  in %s" % (cost, obj))
    if within:
        print("%9.1f  in functions named *%s*" % (sum(rows.values()), within))
    for where, cost in rows.most_common(int(top)):
        print("%9.1f  %s" % (cost, where))


if __name__ == "__main__":
    main()
