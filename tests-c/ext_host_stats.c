/*
 * ext_host_stats.c: the counters of enet/enet_rs.h from C
 * (enet_rs_host_get_stats, enet_rs_peer_get_counters). Over 127.0.0.1: a
 * raw UDP socket sends one datagram of each kind the server must drop,
 * and exactly that reason's counter goes up by one; a real exchange
 * between two of our hosts is counted in and out, as the stock totals
 * count it, and in the peers' counters. With the path of
 * stats_stock_peer (built on stock ENet) as its argument, it also serves
 * that stock peer and checks what was counted of it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <enet/enet.h>
#include <enet/enet_rs.h>

#include "hardening.h"

static ENetRsHostStats stats_of(ENetHost *host)
{
    ENetRsHostStats stats;
    memset(&stats, 0xAB, sizeof stats);
    stats.size = sizeof stats;
    CHECK(enet_rs_host_get_stats(host, &stats) == 0);
    CHECK(stats.size == sizeof stats);
    return stats;
}

static ENetRsPeerCounters counters_of(ENetPeer *peer)
{
    ENetRsPeerCounters counters;
    memset(&counters, 0xAB, sizeof counters);
    counters.size = sizeof counters;
    CHECK(enet_rs_peer_get_counters(peer, &counters) == 0);
    CHECK(counters.size == sizeof counters);
    return counters;
}

static uint64_t total_dropped(const ENetRsHostStats *stats)
{
    uint64_t total = 0;
    int reason;
    for (reason = 0; reason < ENET_RS_DROP_REASON_SLOTS; ++reason)
        total += stats->dropped[reason];
    return total;
}

/* The protocol's totals and ours agree while nobody resets the former. */
static void check_totals(ENetHost *host)
{
    ENetRsHostStats stats = stats_of(host);
    CHECK(stats.datagramsReceived == host->totalReceivedPackets);
    CHECK(stats.bytesReceived == host->totalReceivedData);
    CHECK(stats.datagramsSent == host->totalSentPackets);
    CHECK(stats.bytesSent == host->totalSentData);
}

/* A datagram to the "no peer yet" id with a valid CRC-32 over `body`,
 * as a host with enet_crc32 checks it (the slot seeded with 0). */
static size_t no_peer_datagram(unsigned char *out, const unsigned char *body, size_t length)
{
    ENetBuffer buffer;
    enet_uint32 crc;
    out[0] = 0x0F;
    out[1] = 0xFF;
    memset(out + 2, 0, 4);
    memcpy(out + 6, body, length);
    buffer.data = out;
    buffer.dataLength = 6 + length;
    crc = enet_crc32(&buffer, 1);
    memcpy(out + 2, &crc, 4);
    return 6 + length;
}

/* Sends `length` bytes from `raw` to `host`, services it until a drop is
 * counted (1 s at most), and checks it was one of `reason` alone. */
static void expect_drop(ENetHost *host, ENetSocket raw, const void *bytes, size_t length,
                        int reason, const char *what)
{
    ENetRsHostStats before = stats_of(host), after;
    ENetBuffer buffer;
    ENetEvent event;
    int round, other;
    buffer.data = (void *) bytes;
    buffer.dataLength = length;
    CHECK(enet_socket_send(raw, &host->address, &buffer, 1) == (int) length);
    for (round = 0; round < 200; ++round) {
        while (enet_host_service(host, &event, 5) > 0)
            if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
        after = stats_of(host);
        if (total_dropped(&after) != total_dropped(&before))
            break;
    }
    after = stats_of(host);
    if (after.dropped[reason] != before.dropped[reason] + 1)
        printf("  %s: reason %d counted %llu times\n", what, reason,
               (unsigned long long) (after.dropped[reason] - before.dropped[reason]));
    CHECK(after.dropped[reason] == before.dropped[reason] + 1);
    for (other = 0; other < ENET_RS_DROP_REASON_SLOTS; ++other)
        if (other != reason)
            CHECK(after.dropped[other] == before.dropped[other]);
}

/* An intercept that takes every datagram starting with "IN" for itself. */
static int ENET_CALLBACK take_marked(ENetHost *host, ENetEvent *event)
{
    (void) event;
    return host->receivedDataLength >= 2 && memcmp(host->receivedData, "IN", 2) == 0;
}

/* Datagrams the program's intercept consumed are counted as such, and
 * as received, never as dropped. */
static void intercepted(ENetHost *server)
{
    ENetSocket raw = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    const char marked[] = "INTERCEPTED";
    ENetRsHostStats before, after;
    ENetBuffer buffer;
    ENetEvent event;
    int sent, round;

    CHECK(raw != ENET_SOCKET_NULL);
    server->intercept = take_marked;
    before = stats_of(server);
    buffer.data = (void *) marked;
    buffer.dataLength = sizeof marked;
    for (sent = 0; sent < 3; ++sent)
        CHECK(enet_socket_send(raw, &server->address, &buffer, 1) == (int) sizeof marked);
    for (round = 0; round < 200; ++round) {
        while (enet_host_service(server, &event, 5) > 0)
            if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
        after = stats_of(server);
        if (after.datagramsIntercepted >= before.datagramsIntercepted + 3)
            break;
    }
    after = stats_of(server);
    CHECK(after.datagramsIntercepted == before.datagramsIntercepted + 3);
    CHECK(after.datagramsReceived >= before.datagramsReceived + 3);
    CHECK(total_dropped(&after) == total_dropped(&before));
    server->intercept = NULL;
    enet_socket_destroy(raw);
}

static void bad_arguments(ENetHost *host)
{
    ENetRsHostStats stats;
    ENetRsPeerCounters counters;
    struct {
        ENetRsHostStats stats;
        uint64_t later[2];
    } longer;

    memset(&stats, 0, sizeof stats);
    stats.size = sizeof stats;
    CHECK(enet_rs_host_get_stats(NULL, &stats) == -1);
    CHECK(enet_rs_host_get_stats(host, NULL) == -1);
    stats.size = ENET_RS_HOST_STATS_SIZE_V1 - 1;
    stats.datagramsSent = 12345;
    CHECK(enet_rs_host_get_stats(host, &stats) == -1);
    CHECK(stats.datagramsSent == 12345);
    CHECK(sizeof(ENetRsHostStats) == ENET_RS_HOST_STATS_SIZE_V1);

    /* A program built against a later header: filled as far as this
     * version goes, the rest left alone, `size` telling how far. */
    memset(&longer, 0xCD, sizeof longer);
    longer.stats.size = sizeof longer;
    CHECK(enet_rs_host_get_stats(host, &longer.stats) == 0);
    CHECK(longer.stats.size == sizeof(ENetRsHostStats));
    CHECK(longer.later[0] == 0xCDCDCDCDCDCDCDCDull);

    memset(&counters, 0, sizeof counters);
    counters.size = sizeof counters;
    CHECK(enet_rs_peer_get_counters(NULL, &counters) == -1);
    CHECK(enet_rs_peer_get_counters(&host->peers[0], NULL) == -1);
    counters.size = 8;
    CHECK(enet_rs_peer_get_counters(&host->peers[0], &counters) == -1);
    CHECK(sizeof(ENetRsPeerCounters) == ENET_RS_PEER_COUNTERS_SIZE_V1);
}

/* Each kind of datagram the server can be sent from a stranger's socket. */
static void drops(ENetHost *server)
{
    static unsigned char big[5000];
    unsigned char datagram[64];
    ENetSocket raw = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    const unsigned char ping[] = {0x05, 0xFF, 0x00, 0x01};
    const unsigned char unknown[] = {0x0D, 0x00, 0x00, 0x01};
    const unsigned char short_command[] = {0x05};
    const unsigned char past_end[] = {0x06, 0x00, 0x00, 0x01, 0x00, 0x64, 0x07};
    /* Peer 77 of a host with 4 slots; slot 3, free; slot 0, the client's,
     * from the wrong address. Each with a checksum slot. */
    const unsigned char bad_peer[] = {0x00, 0x4D, 0, 0, 0, 0, 0x05, 0xFF, 0x00, 0x01};
    const unsigned char free_slot[] = {0x00, 0x03, 0, 0, 0, 0, 0x05, 0xFF, 0x00, 0x01};
    const unsigned char wrong_address[] = {0x00, 0x00, 0, 0, 0, 0, 0x05, 0xFF, 0x00, 0x01};
    const unsigned char compressed[] = {0x4F, 0xFF, 0, 0, 0, 0, 0x05, 0xFF, 0x00, 0x01};
    const unsigned char bad_checksum[] = {0x0F, 0xFF, 0xDE, 0xAD, 0xBE, 0xEF,
                                          0x05, 0xFF, 0x00, 0x01};
    const unsigned char tiny[] = {0x80};
    size_t length;

    CHECK(raw != ENET_SOCKET_NULL);
    expect_drop(server, raw, tiny, sizeof tiny, ENET_RS_DROP_TRUNCATED, "truncated header");
    expect_drop(server, raw, bad_peer, sizeof bad_peer, ENET_RS_DROP_BAD_PEER_ID,
                "unknown peer id");
    expect_drop(server, raw, free_slot, sizeof free_slot, ENET_RS_DROP_PEER_NOT_CONNECTED,
                "free slot");
    expect_drop(server, raw, wrong_address, sizeof wrong_address,
                ENET_RS_DROP_ADDRESS_MISMATCH, "wrong address");
    expect_drop(server, raw, compressed, sizeof compressed, ENET_RS_DROP_NO_DECOMPRESSOR,
                "compressed without a compressor");
    expect_drop(server, raw, bad_checksum, sizeof bad_checksum, ENET_RS_DROP_BAD_CHECKSUM,
                "bad checksum");
    length = no_peer_datagram(datagram, unknown, sizeof unknown);
    expect_drop(server, raw, datagram, length, ENET_RS_DROP_UNKNOWN_COMMAND,
                "unknown command");
    length = no_peer_datagram(datagram, short_command, sizeof short_command);
    expect_drop(server, raw, datagram, length, ENET_RS_DROP_TRUNCATED_COMMAND,
                "truncated command");
    length = no_peer_datagram(datagram, past_end, sizeof past_end);
    expect_drop(server, raw, datagram, length, ENET_RS_DROP_PAYLOAD_OUT_OF_BOUNDS,
                "payload past the end");
    length = no_peer_datagram(datagram, ping, sizeof ping);
    expect_drop(server, raw, datagram, length, ENET_RS_DROP_NO_PEER_FOR_COMMAND,
                "a ping from nobody");
    expect_drop(server, raw, big, sizeof big, ENET_RS_DROP_OVERSIZED, "5000 bytes");
    enet_socket_destroy(raw);
}

static int received;

/* Services both hosts until `done` says so or about 5 s pass. */
static int service_until(ENetHost *a, ENetHost *b, int (*done)(void))
{
    int round;
    for (round = 0; round < 2500; ++round) {
        ENetEvent event;
        while (enet_host_service(a, &event, 1) > 0)
            if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
        while (enet_host_service(b, &event, 1) > 0)
            if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                ++received;
                enet_packet_destroy(event.packet);
            }
        if (done())
            return 1;
    }
    return 0;
}

static ENetPeer *client_peer;
static ENetHost *server_host;

static int connected(void)
{
    return client_peer->state == ENET_PEER_STATE_CONNECTED && server_host->connectedPeers == 1;
}

static int all_received(void)
{
    return received == 5;
}

static int all_acknowledged(void)
{
    return counters_of(client_peer).inFlightCommands == 0;
}

/* Two of our hosts: the client sends 5 reliable packets of 300 bytes. */
static void exchange(ENetHost *server, ENetHost *client)
{
    ENetAddress address;
    ENetRsHostStats before, after;
    ENetRsPeerCounters counters;
    ENetRsPeerStats recovery;
    unsigned char payload[300];
    int i;

    enet_address_set_host(&address, "127.0.0.1");
    address.port = server->address.port;
    client_peer = enet_host_connect(client, &address, 2, 0);
    CHECK(client_peer != NULL);
    server_host = server;
    CHECK(service_until(client, server, connected));
    CHECK(stats_of(server).connectsAccepted == 1);
    CHECK(stats_of(server).connectsRefused == 0);

    before = stats_of(server);
    memset(payload, 0x33, sizeof payload);
    for (i = 0; i < 5; ++i)
        CHECK(enet_peer_send(client_peer, 1,
                             enet_packet_create(payload, sizeof payload,
                                                ENET_PACKET_FLAG_RELIABLE)) == 0);
    counters = counters_of(client_peer);
    CHECK(counters.queuedCommands >= 5);
    CHECK(counters.queuedBytes == 5 * sizeof payload);
    CHECK(service_until(client, server, all_received));
    CHECK(service_until(client, server, all_acknowledged));

    after = stats_of(server);
    CHECK(after.datagramsReceived > before.datagramsReceived);
    CHECK(after.bytesReceived >= before.bytesReceived + 5 * sizeof payload);
    CHECK(after.datagramsSent > before.datagramsSent);
    CHECK(total_dropped(&after) == total_dropped(&before));
    CHECK(after.dtlsSessions == 0 && after.netsimDropped == 0);
    check_totals(server);
    check_totals(client);

    counters = counters_of(client_peer);
    CHECK(counters.queuedBytes == 0);
    CHECK(counters.inFlightCommands == 0 && counters.inFlightBytes == 0);
    CHECK(counters.roundTripTime == client_peer->roundTripTime);
    CHECK(counters.roundTripTimeVariance == client_peer->roundTripTimeVariance);
    CHECK(counters.packetLoss == client_peer->packetLoss);
    CHECK(counters.mtu == client_peer->mtu);
    CHECK(enet_rs_peer_get_stats(client_peer, &recovery) == 0);
    CHECK(counters.resends == recovery.retransmittedCommands);
    CHECK(counters.resentBytes == recovery.retransmittedBytes);
}

#ifndef _WIN32
/* A stock peer connects, sends 10 packets of 100 bytes, takes 5 of 200
 * bytes, and disconnects. */
static void stock_peer(const char *program)
{
    ENetHost *server;
    ENetAddress address;
    ENetEvent event;
    ENetRsHostStats stats;
    ENetRsPeerCounters counters;
    ENetPeer *peer = NULL;
    unsigned char payload[200];
    char port[16];
    int got = 0, gone = 0, round, status = -1, i;
    pid_t child;

    enet_address_set_host(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 2, 2, 0, 0);
    CHECK(server != NULL);
    server->checksum = enet_crc32;
    snprintf(port, sizeof port, "%u", (unsigned) server->address.port);
    child = fork();
    if (child == 0) {
        execl(program, program, port, (char *) NULL);
        _exit(127);
    }
    CHECK(child > 0);
    memset(payload, 0x44, sizeof payload);
    for (round = 0; round < 5000 && !gone; ++round) {
        if (enet_host_service(server, &event, 2) <= 0)
            continue;
        switch (event.type) {
        case ENET_EVENT_TYPE_CONNECT:
            peer = event.peer;
            for (i = 0; i < 5; ++i)
                enet_peer_send(peer, 1, enet_packet_create(payload, sizeof payload,
                                                           ENET_PACKET_FLAG_RELIABLE));
            counters = counters_of(peer);
            CHECK(counters.queuedBytes == 5 * sizeof payload);
            break;
        case ENET_EVENT_TYPE_RECEIVE:
            ++got;
            enet_packet_destroy(event.packet);
            break;
        case ENET_EVENT_TYPE_DISCONNECT:
            CHECK(event.data == 7);
            gone = 1;
            break;
        default:
            break;
        }
    }
    CHECK(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(got == 10);
    CHECK(gone);
    stats = stats_of(server);
    CHECK(stats.connectsAccepted == 1);
    CHECK(stats.datagramsReceived >= 3);
    CHECK(stats.bytesReceived >= 10 * 100);
    CHECK(stats.bytesSent >= 5 * sizeof payload);
    CHECK(total_dropped(&stats) == 0);
    check_totals(server);
    enet_host_destroy(server);
}
#endif

int main(int argc, char **argv)
{
    ENetAddress address;
    ENetHost *server, *client;

    CHECK(enet_initialize() == 0);
    /* The counters came with extension set 5. */
    CHECK(enet_rs_version() == ENET_RS_VERSION && ENET_RS_VERSION >= 5);
    enet_address_set_host(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 4, 2, 0, 0);
    client = enet_host_create(NULL, 1, 2, 0, 0);
    CHECK(server != NULL && client != NULL);
    server->checksum = enet_crc32;
    client->checksum = enet_crc32;

    bad_arguments(server);
    exchange(server, client);
    drops(server);
    intercepted(server);
    check_totals(server);

    enet_host_destroy(client);
    enet_host_destroy(server);
#ifndef _WIN32
    if (argc > 1)
        stock_peer(argv[1]);
#else
    (void) argv;
#endif
    (void) argc;
    enet_deinitialize();
    if (failures == 0)
        printf("ext_host_stats: all checks passed\n");
    return failures == 0 ? 0 : 1;
}
