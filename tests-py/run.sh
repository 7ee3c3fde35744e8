#!/usr/bin/env bash
# Runs tests-py/test_pyenet.py through Debian's pyenet (python3-enet).
# usage: tests-py/run.sh [LIBDIR]
#   LIBDIR  directory holding our libenet.so.7 (put first on LD_LIBRARY_PATH);
#           absent or "" = stock Debian libenet.so.7.
# The test module checks in setUpModule, via /proc/self/maps, that the
# library it was promised (EXPECT_LIBENET) is the one really loaded.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3   # Debian's interpreter: the one python3-enet is built for
stock=/usr/lib/x86_64-linux-gnu/libenet.so.7

"$python" -c 'import enet' 2>/dev/null || {
    echo "run.sh: $python cannot import enet (apt-get install python3-enet)" >&2
    exit 2
}
if [ -n "${1:-}" ]; then
    dir=$(cd "$1" && pwd) || exit 2
    [ -e "$dir/libenet.so.7" ] || { echo "run.sh: $dir/libenet.so.7 missing" >&2; exit 2; }
    export LD_LIBRARY_PATH="$dir"
    export EXPECT_LIBENET="$dir/libenet.so.7"
else
    unset LD_LIBRARY_PATH
    export EXPECT_LIBENET="$stock"
fi
cd "$here"
# Every test loop is bounded (5 s); this bounds the whole run as well.
exec timeout -s KILL 300 "$python" -m unittest -v test_pyenet test_netsim
