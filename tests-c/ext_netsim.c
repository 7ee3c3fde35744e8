/*
 * ext_netsim.c: the network conditioner of enet/enet_rs.h from C:
 * ENET_RS_NETSIM read when a host is made (a bad spec named on stderr and
 * the host made without a conditioner), enet_rs_host_set_netsim and
 * enet_rs_host_netsim_stats, reliable traffic through duplication and
 * corruption with checksums on, and hosts destroyed while their
 * conditioner still holds datagrams (valgrind checks those are freed).
 * Two hosts talk over 127.0.0.1.
 */
#define _POSIX_C_SOURCE 200112L /* setenv, unsetenv, dup, dup2, fileno */
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <unistd.h>
#endif

#include <enet/enet.h>
#include <enet/enet_rs.h>

#include "hardening.h"

/* Whether a host made with ENET_RS_NETSIM=value (NULL: unset) has a
 * conditioner. */
static int host_has_netsim(const char *value)
{
    ENetRsNetsimStats stats;
    ENetHost *host;
    int result;
    if (value)
        setenv("ENET_RS_NETSIM", value, 1);
    else
        unsetenv("ENET_RS_NETSIM");
    host = enet_host_create(NULL, 1, 1, 0, 0);
    CHECK(host != NULL);
    result = enet_rs_host_netsim_stats(host, &stats);
    CHECK(result == 0 || result == 1);
    enet_host_destroy(host);
    unsetenv("ENET_RS_NETSIM");
    return result == 0;
}

#ifndef _WIN32
/* What the library wrote on stderr while a host was made with
 * ENET_RS_NETSIM=value, into text. */
static void stderr_of_host(const char *value, char *text, size_t size)
{
    FILE *capture = tmpfile();
    int saved;
    size_t length;
    CHECK(capture != NULL);
    if (!capture)
        return;
    fflush(stderr);
    saved = dup(fileno(stderr));
    dup2(fileno(capture), fileno(stderr));
    CHECK(!host_has_netsim(value));
    fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    rewind(capture);
    length = fread(text, 1, size - 1, capture);
    text[length] = '\0';
    fclose(capture);
}
#endif

static ENetPeer *client_peer;
static ENetHost *server_host;
static int received, damaged;

#define MESSAGES 40
#define MESSAGE_SIZE 300

static void fill(unsigned char *bytes, int number)
{
    int i;
    for (i = 0; i < MESSAGE_SIZE; ++i)
        bytes[i] = (unsigned char) (number * 31 + i * 7);
}

/* Services both hosts until `done` says so or about 10 s pass. */
static int service_until(ENetHost *client, int (*done)(void))
{
    int round;
    for (round = 0; round < 10000; ++round) {
        ENetEvent event;
        while (enet_host_service(client, &event, 0) > 0)
            if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
        while (enet_host_service(server_host, &event, 1) > 0) {
            if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                unsigned char expected[MESSAGE_SIZE];
                fill(expected, received);
                if (event.packet->dataLength != MESSAGE_SIZE
                    || memcmp(event.packet->data, expected, MESSAGE_SIZE) != 0)
                    ++damaged;
                ++received;
                enet_packet_destroy(event.packet);
            }
        }
        if (done())
            return 1;
    }
    return 0;
}

static int connected(void)
{
    return client_peer->state == ENET_PEER_STATE_CONNECTED && server_host->connectedPeers == 1;
}

static int all_delivered(void)
{
    return received == MESSAGES && client_peer->reliableDataInTransit == 0;
}

int main(void)
{
    ENetRsNetsimStats stats;
    ENetAddress address;
    ENetHost *client, *held;
    int i;

    CHECK(enet_initialize() == 0);
    CHECK(enet_rs_version() == ENET_RS_VERSION && ENET_RS_VERSION >= 4);

    /* ENET_RS_NETSIM gives new hosts a conditioner; unset or empty, none. */
    CHECK(!host_has_netsim(NULL));
    CHECK(!host_has_netsim(""));
    CHECK(host_has_netsim("loss=5%,lag=40ms,jitter=10ms,dup=1%,reorder=2%,corrupt=0.1%,"
                          "rate=2mbit,seed=42"));
    CHECK(host_has_netsim("preset:wifi-bad"));
    CHECK(host_has_netsim("preset:mobile,out.loss=1%"));
#ifndef _WIN32
    {
        char text[512];
        stderr_of_host("loss=5%,lagg=40ms", text, sizeof text);
        CHECK(strstr(text, "ENET_RS_NETSIM") != NULL && strstr(text, "`lagg`") != NULL);
        stderr_of_host("loss=5%,jitter=often", text, sizeof text);
        CHECK(strstr(text, "`jitter`") != NULL);
    }
#else
    CHECK(!host_has_netsim("loss=5%,lagg=40ms"));
#endif

    /* NULL arguments are refused. */
    CHECK(enet_rs_host_set_netsim(NULL, "loss=1%") == -1);
    CHECK(enet_rs_host_netsim_stats(NULL, &stats) == -1);

    enet_address_set_host(&address, "127.0.0.1");
    address.port = 0;
    server_host = enet_host_create(&address, 4, 2, 0, 0);
    CHECK(server_host != NULL);
    address.port = server_host->address.port;
    client = enet_host_create(NULL, 1, 2, 0, 0);
    CHECK(client != NULL);
    CHECK(enet_rs_host_netsim_stats(client, NULL) == -1);
    CHECK(enet_rs_host_netsim_stats(client, &stats) == 1);
    CHECK(stats.outgoing.datagrams == 0);

    /* Duplication and corruption both ways, checksums on: every message
       arrives once, whole. */
    server_host->checksum = enet_crc32;
    client->checksum = enet_crc32;
    CHECK(enet_rs_host_set_netsim(client, "dup=20%,corrupt=20%,seed=3") == 0);
    /* Short retransmission timeouts: the run need not wait long for what
       the checksum threw away. */
    {
        ENetRsLossRecovery fast;
        CHECK(enet_rs_loss_recovery_preset(ENET_RS_LOSS_RECOVERY_FAST, &fast) == 0);
        CHECK(enet_rs_host_set_loss_recovery(client, &fast) == 0);
        CHECK(enet_rs_host_set_loss_recovery(server_host, &fast) == 0);
    }
    CHECK(enet_rs_host_set_netsim(client, "dup=20%,corupt=10%") == -1);
    client_peer = enet_host_connect(client, &address, 2, 0);
    CHECK(client_peer != NULL);
    CHECK(service_until(client, connected));
    for (i = 0; i < MESSAGES; ++i) {
        unsigned char bytes[MESSAGE_SIZE];
        fill(bytes, i);
        CHECK(enet_peer_send(client_peer, 0,
                             enet_packet_create(bytes, sizeof bytes, ENET_PACKET_FLAG_RELIABLE))
              == 0);
        enet_host_flush(client);
    }
    CHECK(service_until(client, all_delivered));
    CHECK(received == MESSAGES && damaged == 0);
    CHECK(enet_rs_host_netsim_stats(client, &stats) == 0);
    CHECK(stats.outgoing.datagrams > 0 && stats.outgoing.duplicated > 0);
    CHECK(stats.outgoing.corrupted + stats.incoming.corrupted > 0);
    CHECK(stats.outgoing.released == stats.outgoing.datagrams + stats.outgoing.duplicated);
    printf("out: %llu datagrams, %llu duplicated, %llu corrupted; in: %llu, %llu, %llu\n",
           (unsigned long long) stats.outgoing.datagrams,
           (unsigned long long) stats.outgoing.duplicated,
           (unsigned long long) stats.outgoing.corrupted,
           (unsigned long long) stats.incoming.datagrams,
           (unsigned long long) stats.incoming.duplicated,
           (unsigned long long) stats.incoming.corrupted);

    /* Off again: NULL and "" both. */
    CHECK(enet_rs_host_set_netsim(client, NULL) == 0);
    CHECK(enet_rs_host_netsim_stats(client, &stats) == 1);
    CHECK(enet_rs_host_set_netsim(client, "lag=5ms") == 0);
    CHECK(enet_rs_host_set_netsim(client, "") == 0);
    CHECK(enet_rs_host_netsim_stats(client, &stats) == 1);

    /* A host destroyed while its conditioner holds datagrams (a connect and
       a packet, a second away) frees them. */
    held = enet_host_create(NULL, 1, 2, 0, 0);
    CHECK(held != NULL);
    CHECK(enet_rs_host_set_netsim(held, "lag=1s") == 0);
    CHECK(enet_host_connect(held, &address, 2, 0) != NULL);
    enet_host_flush(held);
    CHECK(enet_rs_host_netsim_stats(held, &stats) == 0);
    CHECK(stats.outgoing.datagrams >= 1 && stats.outgoing.released == 0);
    CHECK(stats.outgoing.delayed == stats.outgoing.datagrams);
    enet_host_destroy(held);

    enet_host_destroy(client);
    enet_host_destroy(server_host);
    enet_deinitialize();
    if (failures)
        printf("%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
