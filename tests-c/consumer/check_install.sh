#!/usr/bin/env bash
# usage: check_install.sh BUILD_DIR CONSUMER_SOURCE_DIR
# Installs the build into a scratch prefix, checks the installed file set,
# then builds and runs a consumer via find_package(enet) and via pkg-config.
set -eu
build=$1 consumer=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix="$scratch/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(find "$prefix" -name 'libenet.so.7' -printf '%h\n' | head -n1)
[ -n "$libdir" ] || { echo "libenet.so.7 not installed"; exit 1; }
for f in libenet.so libenet.so.7 libenet.so.7.0.5 libenet.a pkgconfig/libenet.pc cmake/enet/enetConfig.cmake; do
    [ -e "$libdir/$f" ] || { echo "missing $libdir/$f"; exit 1; }
done
[ "$(readlink "$libdir/libenet.so.7")" = "libenet.so.7.0.5" ] || { echo "libenet.so.7 link wrong"; exit 1; }
for h in enet.h types.h protocol.h list.h callbacks.h time.h utility.h unix.h; do
    [ -f "$prefix/include/enet/$h" ] || { echo "missing header $h"; exit 1; }
done
cmake -S "$consumer" -B "$scratch/consumer-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/consumer-build" >/dev/null
LD_LIBRARY_PATH="$libdir" "$scratch/consumer-build/consumer"
if LD_LIBRARY_PATH="$libdir" ldd "$scratch/consumer-build/consumer" | grep -q "$libdir/libenet.so.7"; then
    echo "find_package consumer ran on the installed library"
else
    echo "consumer did not load the installed library"; exit 1
fi
# libenet.pc names the prefix the build was configured with; a scratch
# install relocates it as pkg-config allows. Without that, its -I and -L
# would name a prefix holding no ENet, and the compiler would quietly take
# the system's (stock) headers and library instead of the installed ones.
pc_flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --define-variable=prefix="$prefix" --cflags --libs libenet)
case "$pc_flags" in
    *"-I$prefix/include"*"-L$libdir"*) ;;
    *) echo "libenet.pc does not point into the install: $pc_flags"; exit 1 ;;
esac
cc -std=c99 -Wall -Werror "$consumer/consumer.c" $pc_flags -o "$scratch/pc-consumer"
LD_LIBRARY_PATH="$libdir" "$scratch/pc-consumer"
if LD_LIBRARY_PATH="$libdir" ldd "$scratch/pc-consumer" | grep -q "$libdir/libenet.so.7"; then
    echo "pkg-config consumer built against the install and ran on its library"
else
    echo "pkg-config consumer did not load the installed library"; exit 1
fi
