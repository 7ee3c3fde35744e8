#!/usr/bin/env bash
# Runs one differential C program three ways and requires identical output:
#   1. built against stock headers, run on stock libenet.so.7;
#   2. built against our headers, run on our library (recompile);
#   3. the stock-built binary run on our library via LD_LIBRARY_PATH (relink).
# usage: run_diff.sh STOCK_EXE OURS_EXE OUR_LIB_DIR [program args...]
set -u
stock_exe=$1 ours_exe=$2 our_lib_dir=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
"$stock_exe" "$@" >"$work/stock.out" 2>"$work/stock.err" || { echo "stock run failed ($?)"; cat "$work/stock.err"; status=1; }
"$ours_exe" "$@" >"$work/ours.out" 2>"$work/ours.err" || { echo "recompiled run on ours failed ($?)"; cat "$work/ours.err"; status=1; }
LD_LIBRARY_PATH="$our_lib_dir" "$stock_exe" "$@" >"$work/relinked.out" 2>"$work/relinked.err" || { echo "relinked run on ours failed ($?)"; cat "$work/relinked.err"; status=1; }
# The relinked run must really have loaded our library.
if ! LD_LIBRARY_PATH="$our_lib_dir" ldd "$stock_exe" | grep -q "$our_lib_dir/libenet.so.7"; then
    echo "relinked run did not resolve libenet.so.7 to $our_lib_dir"
    status=1
fi
if ! diff -u "$work/stock.out" "$work/ours.out"; then echo "recompiled output differs from stock"; status=1; fi
if ! diff -u "$work/stock.out" "$work/relinked.out"; then echo "relinked output differs from stock"; status=1; fi
[ -s "$work/stock.out" ] || { echo "no output at all"; status=1; }
[ $status -eq 0 ] && echo "identical: $(wc -l <"$work/stock.out") lines"
exit $status
