/*
 * stock_peer.c: the stock ENet 1.3.17 side of tests/stock_interop.rs,
 * built against Debian's /usr/include/enet and linked with its
 * libenet.so.7.
 *
 *   stock_peer server          prints "PORT p" and "LIB path", echoes every
 *                              packet back (same channel, same flags) until
 *                              its one peer disconnects; exit 0
 *   stock_peer client PORT N   connects to 127.0.0.1:PORT, sends N reliable
 *                              packets on channel 0 and one 5000-byte
 *                              reliable packet on channel 1, checks every
 *                              echo (order and bytes), then disconnects
 *                              with data 7; exit 0 when all came back
 * Every wait is bounded (10 s); exit 1 on any failure.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <enet/enet.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void print_library(void)
{
    Dl_info info;
    if (dladdr((void *) enet_host_create, &info) && info.dli_fname)
        printf("LIB %s\n", info.dli_fname);
}

static int serve(void)
{
    ENetAddress address;
    ENetHost *host;
    ENetEvent event;
    double deadline = now() + 10;
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    host = enet_host_create(&address, 1, 2, 0, 0);
    if (host == NULL)
        return 1;
    printf("PORT %u\n", host->address.port);
    print_library();
    fflush(stdout);
    while (now() < deadline) {
        if (enet_host_service(host, &event, 10) <= 0)
            continue;
        if (event.type == ENET_EVENT_TYPE_RECEIVE) {
            ENetPacket *echo = enet_packet_create(event.packet->data, event.packet->dataLength,
                                                  event.packet->flags);
            enet_peer_send(event.peer, event.channelID, echo);
            enet_packet_destroy(event.packet);
        } else if (event.type == ENET_EVENT_TYPE_DISCONNECT) {
            printf("DISCONNECT %u\n", event.data);
            enet_host_destroy(host);
            return 0;
        }
    }
    return 1;
}

static int client(int port, int count)
{
    ENetAddress address;
    ENetHost *host = enet_host_create(NULL, 1, 2, 0, 0);
    ENetPeer *peer;
    ENetEvent event;
    double deadline = now() + 10;
    int i, echoed = 0, big = 0;
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = (enet_uint16) port;
    peer = enet_host_connect(host, &address, 2, 99);
    print_library();
    while (now() < deadline && peer->state != ENET_PEER_STATE_CONNECTED)
        enet_host_service(host, &event, 10);
    if (peer->state != ENET_PEER_STATE_CONNECTED)
        return 1;
    for (i = 0; i < count; ++i)
        enet_peer_send(peer, 0, enet_packet_create(&i, sizeof i, ENET_PACKET_FLAG_RELIABLE));
    {
        unsigned char bytes[5000];
        for (i = 0; i < 5000; ++i)
            bytes[i] = (unsigned char) (i * 7);
        enet_peer_send(peer, 1, enet_packet_create(bytes, sizeof bytes, ENET_PACKET_FLAG_RELIABLE));
    }
    while (now() < deadline && (echoed < count || !big)) {
        if (enet_host_service(host, &event, 10) <= 0 || event.type != ENET_EVENT_TYPE_RECEIVE)
            continue;
        if (event.channelID == 0) {
            int value;
            memcpy(&value, event.packet->data, sizeof value);
            if (event.packet->dataLength != sizeof value || value != echoed)
                return 1;
            ++echoed;
        } else {
            if (event.packet->dataLength != 5000)
                return 1;
            for (i = 0; i < 5000; ++i)
                if (event.packet->data[i] != (unsigned char) (i * 7))
                    return 1;
            big = 1;
        }
        enet_packet_destroy(event.packet);
    }
    if (echoed != count || !big)
        return 1;
    enet_peer_disconnect(peer, 7);
    while (now() < deadline)
        if (enet_host_service(host, &event, 10) > 0 && event.type == ENET_EVENT_TYPE_DISCONNECT) {
            printf("ECHOED %d\n", echoed);
            enet_host_destroy(host);
            return 0;
        }
    return 1;
}

int main(int argc, char **argv)
{
    if (enet_initialize() != 0)
        return 1;
    if (argc == 2 && strcmp(argv[1], "server") == 0)
        return serve();
    if (argc == 4 && strcmp(argv[1], "client") == 0)
        return client(atoi(argv[2]), atoi(argv[3]));
    fprintf(stderr, "usage: stock_peer server | client PORT N\n");
    return 2;
}
