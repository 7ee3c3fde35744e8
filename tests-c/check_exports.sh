#!/usr/bin/env bash
# Our library exports exactly stock 1.3.17's functions, the two ENet 1.3.18
# adds (upstream_exports.txt: 1.3.18's 75 enet_ names in all) and the
# documented extensions (extension_exports.txt, all named enet_rs_*), and
# carries stock's SONAME; it needs no library stock does not.
# usage: check_exports.sh OUR_LIB STOCK_LIB
set -eu
ours=$1 stock=$2
here=$(cd "$(dirname "$0")" && pwd)
exports() { nm -D --defined-only "$1" | awk '{print $2, $3}' | sort; }
listed() { grep -v '^#' "$here/$1" | sed '/^$/d' | sort; }
extensions() { listed extension_exports.txt; }
upstream() { listed upstream_exports.txt; }
if extensions | grep -v '^T enet_rs_'; then
    echo "every extension must be a function named enet_rs_*" >&2
    exit 1
fi
if upstream | grep -v '^T enet_' | grep -q . || upstream | grep -q '^T enet_rs_'; then
    echo "1.3.18's additions are functions named enet_* (not enet_rs_*)" >&2
    exit 1
fi
diff -u <(sort -u <(exports "$stock") <(upstream) <(extensions)) <(exports "$ours")
enet_names=$(exports "$ours" | grep -vc '^T enet_rs_')
[ "$enet_names" -eq 75 ] || { echo "expected 1.3.18's 75 enet_ functions, found $enet_names" >&2; exit 1; }
soname=$(readelf -d "$ours" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libenet.so.7" ] || { echo "SONAME is '$soname'"; exit 1; }
# It loads no library stock does not, beyond the dynamic loader, which every
# program has loaded already: no libgcc_s (build.rs links the unwinder in).
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -v '^ld-linux' | sort; }
extra=$(comm -13 <(needed "$stock") <(needed "$ours"))
[ -z "$extra" ] || { echo "needs libraries stock does not: $extra" >&2; exit 1; }
echo "exports: $(exports "$stock" | wc -l) of stock 1.3.17's, unchanged, and 1.3.18's $(upstream | wc -l) additions ($enet_names enet_ functions, as 1.3.18), plus $(extensions | wc -l) extensions; SONAME $soname"
