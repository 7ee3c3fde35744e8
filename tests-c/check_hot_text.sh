#!/usr/bin/env bash
# The functions a host runs in common use sit together at the start of our
# library's text (build.rs, link/hot-text.txt): a `.text.hot` section that
# holds the service loop, the send and receive paths and the allocator
# shims, and nothing of the DTLS code a plain host never runs.
# usage: check_hot_text.sh OUR_LIB
set -eu
lib=$1
section=$(readelf -SW "$lib" | awk '$2 == ".text.hot" { print $4, $6 }')
[ -n "$section" ] || { echo ".text.hot missing from $lib (linker script not applied?)" >&2; exit 1; }
read -r start size <<<"$section"
start=$((16#$start)) size=$((16#$size))
inside() { # NAME_PATTERN: every function matching it lies inside .text.hot
    local found=0 address
    for address in $(nm --defined-only "$lib" | awk -v p="$1" '$2 ~ /^[tT]$/ && $3 ~ p { print $1 }'); do
        address=$((16#$address)); found=1
        if [ "$address" -lt "$start" ] || [ "$address" -ge $((start + size)) ]; then
            echo "$1 at $address, outside .text.hot [$start, $((start + size)))" >&2
            return 1
        fi
    done
    [ "$found" -eq 1 ] || { echo "no function matches $1" >&2; return 1; }
}
outside() { # NAME_PATTERN: no function matching it lies inside .text.hot
    local address
    for address in $(nm --defined-only "$lib" | awk -v p="$1" '$2 ~ /^[tT]$/ && $3 ~ p { print $1 }'); do
        address=$((16#$address))
        if [ "$address" -ge "$start" ] && [ "$address" -lt $((start + size)) ]; then
            echo "$1 inside .text.hot" >&2
            return 1
        fi
    done
}
inside '^enet_host_service$'
inside '^enet_peer_send$'
inside '^enet_packet_destroy$'
inside 'receive_datagram'
inside 'pack_outgoing'
outside '^enet_rs_host_dtls_server$'
outside '5dimpl'
[ "$size" -le $((256 * 1024)) ] || { echo ".text.hot is $size bytes, over 256 KiB" >&2; exit 1; }
echo ".text.hot: $size bytes at $start; the service loop, send and receive paths inside, DTLS outside"
