#!/usr/bin/env bash
# Our library exports exactly stock's functions and carries its SONAME.
# usage: check_exports.sh OUR_LIB STOCK_LIB
set -eu
ours=$1 stock=$2
exports() { nm -D --defined-only "$1" | awk '{print $2, $3}' | sort; }
diff -u <(exports "$stock") <(exports "$ours")
soname=$(readelf -d "$ours" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libenet.so.7" ] || { echo "SONAME is '$soname'"; exit 1; }
readelf -d "$ours" | grep -q 'Library soname' 
echo "exports identical: $(exports "$ours" | wc -l) symbols, SONAME $soname"
