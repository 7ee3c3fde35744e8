#!/usr/bin/env bash
# Where our library's instructions per message go, line by line: the
# profile behind bench/callgrind.sh's figures. Callgrind counts every
# instruction of bench/msgcost.c (its fixed clock makes the counts
# repeatable) in two runs of different lengths; each instruction's
# difference, divided by the difference of the message counts, is its cost
# per message. Our library's instructions are then placed by their inline
# chains (addr2line on the build's debug information): a line of the
# engine's own code (src/) takes the standard-library helpers it inlined,
# so a queue's push shows up at the line that pushes.
#
# usage: bench/callgrind-lines.sh [--ours DIR] [--base DIR] [--mode MODE]
#                                 [--count N] [--by line|function]
#                                 [--within NAME] [--top K]
#   --ours DIR      directory holding our libenet.so, built with debug
#                   information (default: target/release, built first; the
#                   release profile keeps line tables)
#   --base DIR      another build's directory (the commit before a change,
#                   say): both are counted, and the rows show each build's
#                   cost and the change, largest change first
#   --mode MODE     reliable (default), unreliable or bulk: msgcost's
#                   traffic; bulk's figures are per KiB
#   --count N       messages in the longer run; the shorter sends N/4
#                   (default 8000, for bulk 80)
#   --by line       (default) by our innermost source line; `function`: by
#                   the function each instruction sits in after inlining
#   --within NAME   only the instructions of functions whose name contains
#                   NAME (pack_outgoing, handle_received, ...)
#   --top K         rows to print (default 40)
# Not a test: it prints figures.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
ours=""
base=""
mode=reliable
count=""
by=line
within=""
top=40

die() { echo "bench/callgrind-lines.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) [ $# -ge 2 ] || die "--ours needs a directory"; ours=$2; shift ;;
        --base) [ $# -ge 2 ] || die "--base needs a directory"; base=$2; shift ;;
        --mode) [ $# -ge 2 ] || die "--mode needs a mode"; mode=$2; shift ;;
        --count) [ $# -ge 2 ] || die "--count needs a count"; count=$2; shift ;;
        --by) [ $# -ge 2 ] || die "--by needs line or function"; by=$2; shift ;;
        --within) [ $# -ge 2 ] || die "--within needs a name"; within=$2; shift ;;
        --top) [ $# -ge 2 ] || die "--top needs a count"; top=$2; shift ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    shift
done
case "$mode" in
    reliable|unreliable) divisor=1; count=${count:-8000} ;;
    bulk) divisor=64; count=${count:-80} ;;
    *) die "--mode must be reliable, unreliable or bulk" ;;
esac
case "$by" in line|function) ;; *) die "--by must be line or function" ;; esac
[[ "$count" =~ ^[0-9]+$ ]] && [ "$count" -ge 8 ] || die "--count must be at least 8"
[[ "$top" =~ ^[0-9]+$ ]] || die "--top must be a count"
for tool in valgrind addr2line python3; do
    command -v "$tool" >/dev/null || die "$tool is not installed"
done
source "$repo/scripts/lib/procs.sh"
procs_init enet-callgrind-lines
ours_library "$ours"
libs=("$ours_dir")
if [ -n "$base" ]; then
    library_dir "$base" --base
    libs=("$library_dir" "$ours_dir")
fi

program="$work/msgcost"
gcc -std=c99 -Wall -Wextra -Werror -O2 -rdynamic -idirafter "$repo/include" \
    "$here/msgcost.c" -lenet -ldl -o "$program" || die "building msgcost.c failed"

# profile LIBDIR COUNT OUT: a callgrind profile, per instruction, of msgcost
# sending COUNT on LIBDIR's library.
profile() {
    LD_LIBRARY_PATH="$1" valgrind --tool=callgrind --dump-instr=yes \
        --callgrind-out-file="$3" "$program" "$mode" "$2" >"$work/stdout" 2>"$work/log" \
        || { cat "$work/log" >&2; die "msgcost $mode $2 failed on $1"; }
    grep -qx "delivered $2" "$work/stdout" || die "msgcost $mode $2 on $1: $(cat "$work/stdout")"
}
short=$((count / 4))
profiles=()
for i in "${!libs[@]}"; do
    profile "${libs[i]}" "$short" "$work/cg.$i.short"
    profile "${libs[i]}" "$count" "$work/cg.$i.long"
    profiles+=("$work/cg.$i.short" "$work/cg.$i.long" "${libs[i]}/libenet.so.7")
done
unit="message"
[ "$mode" = bulk ] && unit="KiB"
echo "instructions per $unit, $mode (callgrind, fixed clock; ours from $ours${base:+, base from $base})"
python3 "$here/callgrind-lines.py" $(((count - short) * divisor)) "$repo/src/" "$by" "$top" \
    "$within" "${profiles[@]}"
