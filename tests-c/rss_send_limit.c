/*
 * rss_send_limit.c: what a send limit does for memory (issue 51's
 * back-pressure test). A client sends 1 KiB reliable packets as fast as
 * it can to a server on 127.0.0.1 through its own 1 Mbit/s network
 * conditioner (enet_rs_host_set_netsim "rate=1mbit"), for a few seconds,
 * once with a send limit of 256 KiB and once without. With the limit
 * enet_peer_send starts returning -1 once the backlog is full, the
 * program destroys the refused packet, and the process's resident memory
 * stays flat; without it every packet is queued and memory grows with
 * the time spent sending. The figures are printed (docs/extensions.md
 * quotes them).
 *
 * Linux only (it reads VmRSS from /proc/self/status); not run under
 * valgrind, whose own memory would swamp the figures.
 */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <enet/enet.h>
#include <enet/enet_rs.h>

#include "hardening.h"

#define MESSAGE_SIZE 1024
#define LIMIT (256 * 1024)
#define RUN_MS 3000
/* The unlimited run stops early once it has grown this much: enough to
   show the growth without taking the machine's memory. */
#define UNLIMITED_STOP_KIB (96 * 1024)

/* The process's resident memory in KiB (VmRSS), 0 if unreadable. */
static long rss_kib(void)
{
    char line[256];
    long kib = 0;
    FILE *status = fopen("/proc/self/status", "r");
    if (!status)
        return 0;
    while (fgets(line, sizeof line, status))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    fclose(status);
    return kib;
}

static double now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000.0 + now.tv_nsec / 1e6;
}

/* Services a host without waiting; returns the payload bytes received. */
static size_t drain(ENetHost *host, ENetPeer **connected)
{
    ENetEvent event;
    size_t bytes = 0;
    while (enet_host_service(host, &event, 0) > 0) {
        if (event.type == ENET_EVENT_TYPE_RECEIVE) {
            bytes += event.packet->dataLength;
            enet_packet_destroy(event.packet);
        } else if (event.type == ENET_EVENT_TYPE_CONNECT && connected) {
            *connected = event.peer;
        }
    }
    return bytes;
}

struct run {
    long growth_kib;
    unsigned long taken, refused;
    double seconds, delivered_kib;
};

/* Sends as fast as possible for RUN_MS through a 1 Mbit/s conditioner,
   with a send limit of `limit` bytes (0: none). */
static struct run send_flat_out(size_t limit)
{
    struct run run = {0, 0, 0, 0, 0};
    ENetAddress address;
    ENetHost *server, *client;
    ENetPeer *peer, *accepted = NULL;
    unsigned char bytes[MESSAGE_SIZE];
    double start, sampled;
    size_t delivered = 0;
    long before, peak;
    int round;

    memset(bytes, 0xa5, sizeof bytes);
    enet_address_set_host(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 1, 1, 0, 0);
    client = enet_host_create(NULL, 1, 1, 0, 0);
    CHECK(server != NULL && client != NULL);
    if (!server || !client)
        return run;
    address.port = server->address.port;
    peer = enet_host_connect(client, &address, 1, 0);
    CHECK(peer != NULL);
    for (round = 0; round < 5000 && (peer->state != ENET_PEER_STATE_CONNECTED || !accepted);
         ++round) {
        drain(client, NULL);
        drain(server, &accepted);
        enet_host_service(server, NULL, 1);
    }
    CHECK(peer->state == ENET_PEER_STATE_CONNECTED);
    CHECK(enet_rs_host_set_netsim(client, "rate=1mbit") == 0);
    CHECK(enet_rs_peer_set_send_limit(peer, limit) == 0);

    before = peak = rss_kib();
    start = sampled = now_ms();
    while (now_ms() - start < RUN_MS) {
        int burst;
        for (burst = 0; burst < 64; ++burst) {
            ENetPacket *packet = enet_packet_create(bytes, sizeof bytes,
                                                    ENET_PACKET_FLAG_RELIABLE);
            if (enet_peer_send(peer, 0, packet) == 0) {
                ++run.taken;
            } else {
                /* Refused: the packet is still ours. */
                ++run.refused;
                enet_packet_destroy(packet);
                break;
            }
        }
        drain(client, NULL);
        delivered += drain(server, NULL);
        if (now_ms() - sampled >= 50) {
            long rss = rss_kib();
            sampled = now_ms();
            if (rss > peak)
                peak = rss;
            if (limit == 0 && peak - before > UNLIMITED_STOP_KIB)
                break;
        }
    }
    run.seconds = (now_ms() - start) / 1000.0;
    {
        long rss = rss_kib();
        if (rss > peak)
            peak = rss;
    }
    run.growth_kib = peak - before;
    run.delivered_kib = delivered / 1024.0;
    CHECK(peer->state == ENET_PEER_STATE_CONNECTED);
    enet_host_destroy(client);
    enet_host_destroy(server);
    return run;
}

static void report(const char *name, struct run run)
{
    printf("%-22s RSS growth %6ld KiB over %.1f s; %lu packets taken, %lu refused; "
           "%.0f KiB delivered (%.0f kbit/s)\n",
           name, run.growth_kib, run.seconds, run.taken, run.refused, run.delivered_kib,
           run.delivered_kib * 8.192 / run.seconds);
}

int main(void)
{
    struct run limited, unlimited;
    CHECK(enet_initialize() == 0);
    CHECK(rss_kib() > 0);
    limited = send_flat_out(LIMIT);
    unlimited = send_flat_out(0);
    report("send limit 256 KiB:", limited);
    report("no send limit:", unlimited);
    /* With the limit: the backlog (256 KiB and a packet) plus what the
       conditioner and the allocator hold, well under 4 MiB. */
    CHECK(limited.refused > 0);
    CHECK(limited.growth_kib < 4 * 1024);
    /* Without: every packet queued, far more. */
    CHECK(unlimited.refused == 0);
    CHECK(unlimited.growth_kib > 8 * limited.growth_kib + 16 * 1024);
    enet_deinitialize();
    if (failures)
        printf("%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
