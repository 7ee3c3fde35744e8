#!/usr/bin/env bash
# The functions a host runs in common use sit together at the start of our
# library's text (build.rs, link/hot-text.txt), which is mapped 64 KiB at a
# time: the code segment starts on a 64 KiB boundary; its first 128 KiB
# hold what a server keeping idle peers runs (the service loop, the receive
# path, the C runtime's start-up code the loader runs) and the first 192
# KiB the send path and the standard library's allocator shims and one-time
# initialisation (which the linker's own order puts at the far end); none
# of the DTLS code a plain host never runs is among them.
# usage: check_hot_text.sh OUR_LIB
#   NM and READELF name another target's binutils (aarch64-linux-gnu-nm...).
set -eu
lib=$1
nm=${NM:-nm} readelf=${READELF:-readelf}
start=$($readelf -SW "$lib" | awk '$2 == ".text" { print $4 }')
[ -n "$start" ] || { echo "no .text in $lib" >&2; exit 1; }
start=$((16#$start))
end=$((start + 192 * 1024))
segment=$($readelf -lW "$lib" | awk '$1 == "LOAD" && / R E / { print $3 }')
[ -n "$segment" ] || { echo "no code segment in $lib" >&2; exit 1; }
if [ $((segment % 65536)) -ne 0 ]; then
    echo "the code segment starts at $segment, not on a 64 KiB boundary" >&2
    exit 1
fi
addresses() { $nm --defined-only "$lib" | awk -v p="$1" '$2 ~ /^[tT]$/ && $3 ~ p { print $1 }'; }
inside() { # NAME_PATTERN [KIB [optional]]: every function matching it lies in the first
           # KIB (192) KiB; with "optional", none may match (link-time optimisation
           # inlined it into its callers on some targets)
    local found=0 address limit=$((start + ${2:-192} * 1024))
    for address in $(addresses "$1"); do
        address=$((16#$address)); found=1
        if [ "$address" -lt "$start" ] || [ "$address" -ge "$limit" ]; then
            echo "$1 at $((address - start)) bytes into .text, past the first ${2:-192} KiB" >&2
            return 1
        fi
    done
    [ "$found" -eq 1 ] || [ "${3:-}" = optional ] || { echo "no function matches $1" >&2; return 1; }
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
inside '^enet_host_service$' 128
inside 'handle_received' 128
inside 'pack_outgoing' 128
inside '^frame_dummy$' 128
inside '^enet_peer_send$'
inside '^enet_packet_destroy$'
inside '__rust_alloc$'
inside '4Once4call$' 192 optional
outside '^enet_rs_host_dtls_server$'
outside '5dimpl'
echo "code from a 64 KiB boundary: the idle server's path in its first 128 KiB, the send path and the allocator shims in 192 KiB, DTLS after"
