#!/usr/bin/env bash
# The functions a host runs in common use sit together at the start of our
# library's text (build.rs, link/hot-text.txt): the first 192 KiB of
# `.text` hold the service loop, the send and receive paths and the
# standard library's allocator shims and one-time initialisation (which the
# linker's own order puts at the far end), and none of the DTLS code a
# plain host never runs.
# usage: check_hot_text.sh [--engine-only] OUR_LIB
#   --engine-only  leave out the standard library's functions: the arm64
#                  build (scripts/test-arm64.sh) orders only the engine's.
#   NM and READELF name another target's binutils (aarch64-linux-gnu-nm...).
set -eu
engine_only=0
if [ "${1:-}" = --engine-only ]; then engine_only=1; shift; fi
lib=$1
nm=${NM:-nm} readelf=${READELF:-readelf}
start=$($readelf -SW "$lib" | awk '$2 == ".text" { print $4 }')
[ -n "$start" ] || { echo "no .text in $lib" >&2; exit 1; }
start=$((16#$start))
end=$((start + 192 * 1024))
addresses() { $nm --defined-only "$lib" | awk -v p="$1" '$2 ~ /^[tT]$/ && $3 ~ p { print $1 }'; }
inside() { # NAME_PATTERN: every function matching it lies in the first 192 KiB
    local found=0 address
    for address in $(addresses "$1"); do
        address=$((16#$address)); found=1
        if [ "$address" -lt "$start" ] || [ "$address" -ge "$end" ]; then
            echo "$1 at $((address - start)) bytes into .text, past the first 192 KiB" >&2
            return 1
        fi
    done
    [ "$found" -eq 1 ] || { echo "no function matches $1" >&2; return 1; }
}
outside() { # NAME_PATTERN: no function matching it lies in the first 192 KiB
    local address
    for address in $(addresses "$1"); do
        address=$((16#$address))
        if [ "$address" -ge "$start" ] && [ "$address" -lt "$end" ]; then
            echo "$1 at $((address - start)) bytes into .text, among the hot functions" >&2
            return 1
        fi
    done
}
inside '^enet_host_service$'
inside '^enet_peer_send$'
inside '^enet_packet_destroy$'
inside 'receive_datagram'
inside 'pack_outgoing'
if [ $engine_only -eq 0 ]; then
    inside '___rdl_alloc$'
    inside '4Once4call$'
fi
outside '^enet_rs_host_dtls_server$'
outside '5dimpl'
if [ $engine_only -eq 1 ]; then
    echo "the service loop and the send and receive paths in the first 192 KiB of .text, DTLS after"
else
    echo "the service loop, the send and receive paths and the allocator shims in the first 192 KiB of .text, DTLS after"
fi
