#!/usr/bin/env bash
# Tests the Wireshark dissector (tools/wireshark/enet.lua) with tshark on
# captures of real traffic: the interop `basic` scenario (tests-c/interop/
# peer.c: reliable, fragmented, unreliable, unsequenced and unreliable
# fragmented packets, then a disconnect), our library as the server and
# stock ENet 1.3.17 as the client, through enet-impair --pcap with no
# impairment. Three times: plain, with checksums, and with checksums and
# the range coder. The
# decoded fields are checked against what the scenario sends.
#
# usage: tools/wireshark/test.sh --ours DIR [--keep DIR]
#   --ours DIR   directory holding our libenet.so.7 (or libenet.so)
#   --keep DIR   also copy the captures there
set -eu  # no pipefail: readers stop early (awk exit) on tshark output
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
ours="" keep=""
die() { echo "wireshark/test.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) ours=$2; shift ;;
        --keep) keep=$2; shift ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    shift
done
[ -n "$ours" ] || die "--ours DIR is required"
command -v tshark >/dev/null || die "tshark is not installed (apt-get install tshark)"
. "$repo/scripts/lib/procs.sh"
procs_init enet-wireshark
ours_library "$ours"
(cd "$repo" && cargo build -q --release --locked -p enet-impair) || die "building enet-impair failed"
impair="$repo/target/release/enet-impair"
gcc -std=c99 -O2 -Wall -Wextra -Werror "$repo/tests-c/interop/peer.c" -lenet -ldl -o "$work/peer" \
    || die "building peer.c failed"

failures=0
check() { # check DESCRIPTION CONDITION-RESULT
    if [ "$2" = 1 ]; then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi
}

# capture NAME PEER-OPTIONS...: runs the scenario through the proxy into
# $work/NAME.pcap and prints the server's port.
capture() {
    local name=$1; shift
    local d="$work/$name"
    mkdir -p "$d"
    LD_LIBRARY_PATH="$ours_dir" "$work/peer" --role server --scenario basic "$@" \
        >"$d/server.out" 2>"$d/server.err" &
    local spid=$!; track "$spid"
    local sport; sport=$(wait_port "$d/server.out" "$spid" "server")
    "$impair" --server "127.0.0.1:$sport" --duration 120 --pcap "$work/$name.pcap" \
        >"$d/proxy.out" 2>"$d/proxy.err" &
    local ppid_=$!; track "$ppid_"
    local pport; pport=$(wait_port "$d/proxy.out" "$ppid_" enet-impair)
    env -u LD_LIBRARY_PATH "$work/peer" --role client --scenario basic --port "$pport" "$@" \
        >"$d/client.out" 2>"$d/client.err" &
    local cpid=$!; track "$cpid"
    bounded_wait "$cpid" 60; local client_rc=$RC
    bounded_wait "$spid" 30; local server_rc=$RC
    kill -TERM "$ppid_" 2>/dev/null || true
    bounded_wait "$ppid_" 10
    [ "$client_rc" = 0 ] && [ "$server_rc" = 0 ] \
        || die "$name: the scenario failed: $(cat "$d"/*.err)"
    [ -n "$keep" ] && cp "$work/$name.pcap" "$keep/"
    echo "$sport"
}

# fields PCAP PORT CHECKSUM FIELDS...: one line per ENet datagram, the
# fields tab-separated, several occurrences comma-separated.
fields() {
    local pcap=$1 port=$2 checksum=$3; shift 3
    local args=()
    for field in "$@"; do args+=(-e "$field"); done
    tshark -r "$pcap" -X "lua_script:$here/enet.lua" -o "enet.checksum:$checksum" \
        -d "udp.port==$port,enet" -Y enet -T fields "${args[@]}" 2>/dev/null
}

# -- plain: every command decoded
port=$(capture plain)
pcap="$work/plain.pcap"
first=$(fields "$pcap" "$port" FALSE enet.peer_id enet.flags.sent_time enet.command \
    enet.channel enet.connect.mtu enet.connect.channel_count enet.connect.data | awk 'NR == 1')
check "the first datagram is the client's CONNECT: no peer yet, sent time, channel 255, MTU 1400, 3 channels, data 0x12345678" \
    "$([ "$first" = "$(printf '4095\t1\t2\t255\t1400\t3\t0x12345678')" ] && echo 1 || echo 0)"
commands=$(fields "$pcap" "$port" FALSE enet.command | tr ',' '\n' | sort -n | uniq -c \
    | awk '{ printf "%s:%s ", $2, $1 }')
echo "     commands seen (number:count): $commands"
for wanted in 1:ACKNOWLEDGE 2:CONNECT 3:VERIFY_CONNECT 4:DISCONNECT 6:SEND_RELIABLE \
    7:SEND_UNRELIABLE 8:SEND_FRAGMENT 9:SEND_UNSEQUENCED 12:SEND_UNRELIABLE_FRAGMENT; do
    check "some ${wanted#*:} decoded" \
        "$(echo " $commands" | grep -q " ${wanted%%:*}:" && echo 1 || echo 0)"
done
verify=$(fields "$pcap" "$port" FALSE enet.command enet.connect.mtu enet.connect.outgoing_peer_id \
    | awk -F'\t' '$1 ~ /(^|,)3(,|$)/ { print; exit }')
check "the server answers VERIFY_CONNECT with MTU 1400 and its peer ID" \
    "$(echo "$verify" | awk -F'\t' '$2 == 1400 && $3 != "" { print 1; exit } END { if (NR == 0) print 0 }' | awk 'NR == 1')"
# Reliable sequence numbers on channel 0 count up from 1 in the client's
# SEND_RELIABLEs.
reliable=$(fields "$pcap" "$port" FALSE ip.src udp.srcport enet.command enet.channel \
    enet.reliable_sequence | awk -F'\t' -v p="$port" '$2 != p' | awk -F'\t' '{
        n = split($3, c, ","); split($4, ch, ","); split($5, s, ",");
        for (i = 1; i <= n; i++) if (c[i] == 6 && ch[i] == 0) print s[i] }' | awk 'NR <= 5' | tr '\n' ' ')
check "the client's first reliable sends on channel 0 carry sequence numbers 1 2 3 4 5 (got: $reliable)" \
    "$([ "$reliable" = "1 2 3 4 5 " ] && echo 1 || echo 0)"
# The 3000-byte reliable packet: three fragments, offsets 0 1372 2744.
offsets=$(fields "$pcap" "$port" FALSE udp.srcport enet.fragment.total_length enet.fragment.offset \
    enet.fragment.count | awk -F'\t' -v p="$port" '$1 != p' | awk -F'\t' '{
        n = split($2, t, ","); split($3, o, ","); split($4, k, ",");
        for (i = 1; i <= n; i++) if (t[i] == 3000) print o[i] "/" k[i] }' \
    | sort -t/ -k1n | uniq | awk 'NR <= 3' | tr '\n' ' ')
check "a 3000-byte packet goes as 3 fragments at offsets 0, 1372, 2744 (got: $offsets)" \
    "$([ "$offsets" = "0/3 1372/3 2744/3 " ] && echo 1 || echo 0)"
acks=$(fields "$pcap" "$port" FALSE enet.ack.reliable_sequence | grep -c . || true)
check "acknowledgements carry the sequence number they acknowledge ($acks datagrams)" \
    "$([ "$acks" -gt 100 ] && echo 1 || echo 0)"
disconnect=$(fields "$pcap" "$port" FALSE enet.disconnect.data | grep -v '^$' | awk 'NR == 1')
check "the client's DISCONNECT carries 0xd15c0001 (got: $disconnect)" \
    "$([ "$disconnect" = "0xd15c0001" ] && echo 1 || echo 0)"
lengths=$(fields "$pcap" "$port" FALSE enet.command enet.data_length enet.data | awk -F'\t' '
    { n = split($2, l, ","); split($3, d, ","); for (i = 1; i <= n; i++)
        if (length(d[i]) != 2 * l[i]) bad++; total += n }
    END { print (bad == 0 && total > 0) ? 1 : 0 }')
check "every payload is as long as its command says" "$lengths"

# -- checksums: the checksum field, and the commands after it
port=$(capture checksum --checksum)
pcap="$work/checksum.pcap"
first=$(fields "$pcap" "$port" TRUE enet.command enet.checksum enet.connect.mtu | awk 'NR == 1')
check "with checksums the CONNECT decodes after its checksum (got: $first)" \
    "$(echo "$first" | awk -F'\t' '{ print ($1 == 2 && length($2) == 8 && $3 == 1400) ? 1 : 0 }')"
sums=$(fields "$pcap" "$port" TRUE enet.checksum | awk 'length($1) != 8 { bad++ } END { print (NR > 100 && bad == 0) ? 1 : 0 }')
check "every datagram shows its checksum" "$sums"

# -- checksums and the range coder: compressed datagrams flagged as such
port=$(capture compressed --checksum --compress)
pcap="$work/compressed.pcap"
compressed=$(fields "$pcap" "$port" TRUE enet.flags.compressed enet.compressed_data \
    | awk -F'\t' '$1 == 1 && $2 != "" { n++ } END { print n + 0 }')
check "compressed datagrams are flagged as such ($compressed of them)" \
    "$([ "$compressed" -gt 50 ] && echo 1 || echo 0)"

echo
if [ "$failures" -gt 0 ]; then
    echo "$failures checks failed"
    exit 1
fi
echo "all checks passed"
