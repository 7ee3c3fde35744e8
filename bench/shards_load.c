/*
 * shards_load.c: the clients of bench/shards.sh. HOSTS client hosts (each
 * its own socket, so its own source port, which is what the kernel shards
 * a shared port by) with PEERS peers each connect to 127.0.0.1:PORT, then
 * every peer sends RATE unreliable 64-byte packets a second for SECONDS.
 *
 * usage: shards_load --port P [--hosts H] [--peers N] [--rate R] [--seconds S]
 * Prints "connected=N sent=N" at the end; exit 1 if not all connected.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <enet/enet.h>

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static long number(const char *text)
{
    char *end;
    long value = strtol(text, &end, 10);
    if (*end != '\0' || value < 1) {
        fprintf(stderr, "shards_load: bad number %s\n", text);
        exit(2);
    }
    return value;
}

/* Services every host once without waiting; counts connects. */
static long service_all(ENetHost **hosts, long count)
{
    long connects = 0, i;
    for (i = 0; i < count; ++i) {
        ENetEvent event;
        while (enet_host_service(hosts[i], &event, 0) > 0) {
            if (event.type == ENET_EVENT_TYPE_CONNECT)
                ++connects;
            else if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
        }
    }
    return connects;
}

int main(int argc, char **argv)
{
    long port = 0, host_count = 64, peers = 32, rate = 100, seconds = 5;
    long connected = 0, sent = 0, i, j;
    ENetAddress server;
    ENetHost **hosts;
    double start, next_tick;
    unsigned char payload[64];

    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--port") == 0)
            port = number(argv[i + 1]);
        else if (strcmp(argv[i], "--hosts") == 0)
            host_count = number(argv[i + 1]);
        else if (strcmp(argv[i], "--peers") == 0)
            peers = number(argv[i + 1]);
        else if (strcmp(argv[i], "--rate") == 0)
            rate = number(argv[i + 1]);
        else if (strcmp(argv[i], "--seconds") == 0)
            seconds = number(argv[i + 1]);
        else
            break;
    }
    if (port == 0 || i < argc) {
        fprintf(stderr, "usage: shards_load --port P [--hosts H] [--peers N] [--rate R] "
                        "[--seconds S]\n");
        return 2;
    }
    if (enet_initialize() != 0)
        return 1;
    enet_address_set_host_ip(&server, "127.0.0.1");
    server.port = (enet_uint16) port;
    hosts = calloc((size_t) host_count, sizeof *hosts);
    for (i = 0; i < host_count; ++i) {
        hosts[i] = enet_host_create(NULL, (size_t) peers, 1, 0, 0);
        if (hosts[i] == NULL)
            return 1;
        for (j = 0; j < peers; ++j)
            enet_host_connect(hosts[i], &server, 1, 0);
    }
    start = now_seconds();
    while (connected < host_count * peers && now_seconds() - start < 30)
        connected += service_all(hosts, host_count);

    memset(payload, 0x5A, sizeof payload);
    start = next_tick = now_seconds();
    while (now_seconds() - start < (double) seconds) {
        /* 100 ticks a second, each peer's share of RATE per tick. */
        if (now_seconds() >= next_tick) {
            long per_tick = rate / 100 > 0 ? rate / 100 : 1;
            next_tick += 0.01;
            for (i = 0; i < host_count; ++i) {
                for (j = 0; j < peers; ++j) {
                    ENetPeer *peer = &hosts[i]->peers[j];
                    long k;
                    if (peer->state != ENET_PEER_STATE_CONNECTED)
                        continue;
                    for (k = 0; k < per_tick; ++k) {
                        ENetPacket *packet = enet_packet_create(payload, sizeof payload, 0);
                        if (enet_peer_send(peer, 0, packet) == 0)
                            ++sent;
                    }
                }
                enet_host_flush(hosts[i]);
            }
        }
        service_all(hosts, host_count);
    }
    printf("connected=%ld sent=%ld\n", connected, sent);
    for (i = 0; i < host_count; ++i)
        enet_host_destroy(hosts[i]);
    free(hosts);
    enet_deinitialize();
    return connected == host_count * peers ? 0 : 1;
}
