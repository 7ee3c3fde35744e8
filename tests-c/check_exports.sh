#!/usr/bin/env bash
# Our library exports exactly stock's functions plus the documented
# extensions (extension_exports.txt, all named enet_rs_*), and carries
# stock's SONAME.
# usage: check_exports.sh OUR_LIB STOCK_LIB
set -eu
ours=$1 stock=$2
here=$(cd "$(dirname "$0")" && pwd)
exports() { nm -D --defined-only "$1" | awk '{print $2, $3}' | sort; }
extensions() { grep -v '^#' "$here/extension_exports.txt" | sed '/^$/d' | sort; }
if extensions | grep -v '^T enet_rs_'; then
    echo "every extension must be a function named enet_rs_*" >&2
    exit 1
fi
diff -u <(sort -u <(exports "$stock") <(extensions)) <(exports "$ours")
soname=$(readelf -d "$ours" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libenet.so.7" ] || { echo "SONAME is '$soname'"; exit 1; }
echo "exports: $(exports "$stock" | wc -l) of stock's, unchanged, plus $(extensions | wc -l) extensions; SONAME $soname"
