/*
 * ext_pmtu.c: path MTU discovery of enet/enet_rs.h from C.
 * enet_rs_host_set_path_mtu_discovery and enet_rs_peer_get_path_mtu, and
 * a 1 MB reliable transfer through the conditioner's 1280-byte black hole
 * (mtu=1280 on the sender): with discovery it completes and the path size
 * settles between 1220 and 1252 bytes; without, nothing arrives. Two of
 * our hosts over 127.0.0.1; with `--stock-server PROGRAM` the receiver is
 * instead stock ENet 1.3.17 (pmtu_stock_server.c), which must get every
 * packet and nothing else from the probes.
 */
#define _POSIX_C_SOURCE 200112L /* popen, pclose */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <enet/enet.h>
#include <enet/enet_rs.h>

#include "hardening.h"

#define PACKETS 20
#define SIZE 50000

static ENetAddress localhost(enet_uint16 port)
{
    ENetAddress address;
    enet_address_set_host(&address, "127.0.0.1");
    address.port = port;
    return address;
}

/* Services `client` (and `server`, if ours) for up to `ms`; the number of
 * packets the server received, or -1 once the client got stock's "ok". */
static long run(ENetHost *client, ENetHost *server, long *received, int ms)
{
    ENetEvent event;
    int elapsed;
    for (elapsed = 0; elapsed < ms && *received >= 0 && *received < PACKETS; elapsed += 2) {
        while (enet_host_service(client, &event, server ? 0 : 2) > 0) {
            if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                if (!server && strcmp((const char *) event.packet->data, "ok") == 0)
                    *received = -1;
                enet_packet_destroy(event.packet);
            }
            CHECK(event.type != ENET_EVENT_TYPE_DISCONNECT);
        }
        while (server && enet_host_service(server, &event, 2) > 0) {
            if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                int intact = event.channelID == 1 && event.packet->dataLength == SIZE &&
                             event.packet->data[SIZE - 1] == (enet_uint8) *received;
                CHECK(intact);
                enet_packet_destroy(event.packet);
                ++*received;
            }
        }
    }
    return *received;
}

/* Services both hosts (the server if ours) for `ms`, dropping what
 * arrives. */
static void settle(ENetHost *client, ENetHost *server, int ms)
{
    ENetEvent event;
    int elapsed;
    for (elapsed = 0; elapsed < ms; elapsed += 2) {
        while (enet_host_service(client, &event, server ? 0 : 2) > 0) {
            if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
        }
        while (server && enet_host_service(server, &event, 2) > 0) {
            CHECK(event.type != ENET_EVENT_TYPE_RECEIVE);
            if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
        }
    }
}

/* A client through mtu=1280, connected to 127.0.0.1:port; NULL on failure. */
static ENetPeer *connect_through_black_hole(ENetHost *client, ENetHost *server,
                                            enet_uint16 port, int discovery)
{
    ENetAddress address = localhost(port);
    ENetPeer *peer;
    ENetEvent event;
    int i;
    CHECK(enet_rs_host_set_netsim(client, "mtu=1280") == 0);
    CHECK(enet_rs_host_set_path_mtu_discovery(client, discovery) == 0);
    peer = enet_host_connect(client, &address, 2, 0);
    CHECK(peer != NULL);
    for (i = 0; i < 500 && peer && peer->state != ENET_PEER_STATE_CONNECTED; ++i) {
        enet_host_service(client, &event, server ? 0 : 10);
        if (server)
            enet_host_service(server, &event, 10);
    }
    CHECK(peer && peer->state == ENET_PEER_STATE_CONNECTED);
    return peer;
}

static void send_bulk(ENetPeer *peer)
{
    static enet_uint8 bytes[SIZE];
    int i;
    for (i = 0; i < PACKETS; ++i) {
        memset(bytes, i, sizeof bytes);
        CHECK(enet_peer_send(peer, 1,
                             enet_packet_create(bytes, SIZE, ENET_PACKET_FLAG_RELIABLE)) == 0);
    }
}

static void between_our_hosts(int discovery)
{
    ENetAddress address = localhost(0);
    ENetHost *server = enet_host_create(&address, 1, 2, 0, 0);
    ENetHost *client = enet_host_create(NULL, 1, 2, 0, 0);
    ENetPeer *peer;
    long received = 0;
    CHECK(server && client);
    if (!server || !client)
        return;
    peer = connect_through_black_hole(client, server, server->address.port, discovery);
    if (peer) {
        CHECK(enet_rs_peer_get_path_mtu(peer) == (discovery ? 1200 : peer->mtu));
        send_bulk(peer);
        run(client, server, &received, discovery ? 20000 : 3000);
        if (discovery) {
            enet_uint32 found;
            CHECK(received == PACKETS);
            /* The search finishes; its probes deliver nothing. */
            settle(client, server, 3000);
            found = enet_rs_peer_get_path_mtu(peer);
            printf("ours -> ours, discovery on: %ld of %d packets, path size %u\n", received,
                   PACKETS, (unsigned) found);
            CHECK(found >= 1220 && found <= 1252);
            CHECK(peer->mtu == ENET_HOST_DEFAULT_MTU);
        } else {
            printf("ours -> ours, discovery off: %ld of %d packets in 3 s\n", received,
                   PACKETS);
            CHECK(received == 0);
        }
    }
    enet_host_destroy(client);
    enet_host_destroy(server);
}

#ifndef _WIN32
static void to_stock_server(const char *program)
{
    char command[512];
    unsigned port = 0;
    long received = 0;
    FILE *server;
    ENetHost *client = enet_host_create(NULL, 1, 2, 0, 0);
    ENetPeer *peer;
    snprintf(command, sizeof command, "%s %d %d", program, PACKETS, SIZE);
    server = popen(command, "r");
    CHECK(server != NULL && client != NULL);
    if (!server || !client)
        return;
    CHECK(fscanf(server, "PORT %u", &port) == 1);
    peer = connect_through_black_hole(client, NULL, (enet_uint16) port, 1);
    if (peer) {
        send_bulk(peer);
        run(client, NULL, &received, 30000);
        CHECK(received == -1);
        printf("ours -> stock, discovery on: stock %s, path size %u\n",
               received == -1 ? "got every packet and nothing else" : "did NOT finish",
               (unsigned) enet_rs_peer_get_path_mtu(peer));
        settle(client, NULL, 3000);
        printf("ours -> stock, after the search: path size %u\n",
               (unsigned) enet_rs_peer_get_path_mtu(peer));
        CHECK(enet_rs_peer_get_path_mtu(peer) >= 1220 && enet_rs_peer_get_path_mtu(peer) <= 1252);
        enet_peer_disconnect(peer, 0);
        settle(client, NULL, 500);
    }
    enet_host_destroy(client);
    CHECK(pclose(server) == 0);
}
#endif

int main(int argc, char **argv)
{
    ENetAddress address = localhost(0);
    ENetHost *host;
    if (enet_initialize() != 0)
        return 1;
    CHECK(enet_rs_host_set_path_mtu_discovery(NULL, 1) == -1);
    CHECK(enet_rs_peer_get_path_mtu(NULL) == 0);
    host = enet_host_create(&address, 1, 1, 0, 0);
    CHECK(host != NULL);
    if (host) {
        /* A peer that is not connected has no path size: its MTU. */
        CHECK(enet_rs_peer_get_path_mtu(&host->peers[0]) == host->peers[0].mtu);
        CHECK(enet_rs_host_set_path_mtu_discovery(host, 1) == 0);
        CHECK(enet_rs_peer_get_path_mtu(&host->peers[0]) == host->peers[0].mtu);
        CHECK(enet_rs_host_set_path_mtu_discovery(host, 0) == 0);
        enet_host_destroy(host);
    }
#ifndef _WIN32
    if (argc == 3 && strcmp(argv[1], "--stock-server") == 0) {
        to_stock_server(argv[2]);
        enet_deinitialize();
        return failures != 0;
    }
#endif
    (void) argc;
    (void) argv;
    between_our_hosts(1);
    between_our_hosts(0);
    enet_deinitialize();
    return failures != 0;
}
