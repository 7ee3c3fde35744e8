#!/usr/bin/env bash
# The interop matrix against ENet 1.3.18's protocol code: peer-1318
# (tools/peer-1318: peer.c's scenarios rewritten on rusty_enet, a Rust port
# of ENet 1.3.18 with the same wire) is the reference side, peer.c on our
# library the other; both ways (1.3.18 server + our client, our server +
# 1.3.18 client), every case of run_matrix.sh. Builds peer-1318 first.
#
# usage: run_1318.sh --ours DIR [run_matrix.sh options]
#   --ours DIR   directory holding our libenet.so.7 (as for run_matrix.sh;
#                --ours-lib PATH works too).
#   Other options go to run_matrix.sh unchanged: --only SUBSTRING, --keep,
#   --time-scale N, --steady-throttle, and --self-check (also runs
#   peer-1318 against itself).
# Output, exit status: run_matrix.sh's ("N passed, M failed" last).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

case "${1:-}" in
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    --ours|--ours-lib) ;;
    *) echo "usage: run_1318.sh --ours DIR [run_matrix.sh options] (see --help)" >&2; exit 2 ;;
esac

target_dir=${CARGO_TARGET_DIR:-target}
[[ "$target_dir" = /* ]] || target_dir="$repo/$target_dir"
# A debug build: the test suite's build has compiled its crates already,
# and the peer's speed plays no part in the cases.
echo "building peer-1318 (cargo build -p peer-1318 --locked)"
(cd "$repo" && cargo build -q -p peer-1318 --locked)

exec "$here/run_matrix.sh" --stock-peer "$target_dir/debug/peer-1318" \
    --stock-lib none --stock-name enet1318 "$@"
