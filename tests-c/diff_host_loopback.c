/* Differential test of the host and peer API in one process: a server and
 * three clients on 127.0.0.1 exchange every delivery mode, a fragmented
 * packet, a broadcast, and each kind of disconnect. Output lines are what
 * a program observes (events, data, states, counters), never timings. */
#include <enet/enet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLIENTS 3
#define BIG (300 * 1000)

static ENetHost *server, *clients[CLIENTS];
static ENetPeer *to_server[CLIENTS];
static int connects, disconnects, freed;
static unsigned received_reliable[3], received_other[3], big_ok, broadcast_seen;

static void on_free(ENetPacket *packet) { (void) packet; ++freed; }

static void handle(const char *who, ENetEvent *event)
{
    switch (event->type) {
    case ENET_EVENT_TYPE_CONNECT:
        ++connects;
        printf("%s CONNECT data=%u state=%d\n", who, event->data, (int) event->peer->state);
        break;
    case ENET_EVENT_TYPE_DISCONNECT:
        ++disconnects;
        printf("%s DISCONNECT data=%u state=%d\n", who, event->data, (int) event->peer->state);
        break;
    case ENET_EVENT_TYPE_RECEIVE:
        if (event->packet->dataLength == BIG) {
            size_t i, bad = 0;
            for (i = 0; i < BIG; ++i)
                bad += event->packet->data[i] != (enet_uint8) (i * 7);
            big_ok = bad == 0;
        } else if (event->packet->dataLength == 9 && memcmp(event->packet->data, "broadcast", 9) == 0) {
            ++broadcast_seen;
        } else if (event->packet->dataLength == 4 && memcmp(event->packet->data, "last", 4) == 0) {
            printf("%s got the packet queued before disconnect_later\n", who);
        } else if (event->channelID < 3) {
            if (event->packet->flags & ENET_PACKET_FLAG_RELIABLE) {
                unsigned value;
                memcpy(&value, event->packet->data, sizeof value);
                /* Value n goes on channel n % 3, so channel c sees c, c + 3, ... */
                if (value != event->channelID + 3 * received_reliable[event->channelID])
                    printf("%s out of order on channel %u: %u\n", who, event->channelID, value);
                ++received_reliable[event->channelID];
            } else {
                ++received_other[event->channelID];
            }
        }
        enet_packet_destroy(event->packet);
        break;
    default:
        break;
    }
}

static void pump(int rounds)
{
    ENetEvent event;
    int round, i;
    for (round = 0; round < rounds; ++round) {
        while (enet_host_service(server, &event, 1) > 0)
            handle("server", &event);
        for (i = 0; i < CLIENTS; ++i)
            while (clients[i] != NULL && enet_host_service(clients[i], &event, 0) > 0)
                handle("client", &event);
    }
}

static int pump_until(int *counter, int target, int limit)
{
    int rounds = 0;
    while (*counter < target && rounds++ < limit)
        pump(1);
    return *counter >= target;
}

int main(void)
{
    ENetAddress address;
    ENetPacket *packet;
    int i;
    unsigned n;

    if (enet_initialize() != 0)
        return 1;
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 8, 3, 0, 0);
    if (server == NULL)
        return 2;
    printf("server peerCount=%lu channelLimit=%lu mtu=%u duplicatePeers=%lu port-bound=%d\n",
           (unsigned long) server->peerCount, (unsigned long) server->channelLimit, server->mtu,
           (unsigned long) server->duplicatePeers, server->address.port != 0);
    for (i = 0; i < CLIENTS; ++i) {
        clients[i] = enet_host_create(NULL, 1, 0, 0, 0);
        to_server[i] = enet_host_connect(clients[i], &server->address, 5, 1000 + (unsigned) i);
        printf("client %d connect: state=%d channelCount=%lu mtu=%u\n", i, (int) to_server[i]->state,
               (unsigned long) to_server[i]->channelCount, to_server[i]->mtu);
    }
    if (!pump_until(&connects, 2 * CLIENTS, 2000)) {
        printf("connect timed out\n");
        return 3;
    }
    printf("server connectedPeers=%lu client0 channelCount=%lu state=%d\n",
           (unsigned long) server->connectedPeers, (unsigned long) to_server[0]->channelCount,
           (int) to_server[0]->state);

    /* Every delivery mode on every channel, client 0 to the server. */
    for (n = 0; n < 60; ++n) {
        packet = enet_packet_create(&n, sizeof n, ENET_PACKET_FLAG_RELIABLE);
        enet_peer_send(to_server[0], (enet_uint8) (n % 3), packet);
        packet = enet_packet_create(&n, sizeof n, n % 2 ? ENET_PACKET_FLAG_UNSEQUENCED : 0);
        enet_peer_send(to_server[0], (enet_uint8) (n % 3), packet);
    }
    packet = enet_packet_create(NULL, BIG, ENET_PACKET_FLAG_RELIABLE);
    for (n = 0; n < BIG; ++n)
        packet->data[n] = (enet_uint8) (n * 7);
    printf("send big=%d\n", enet_peer_send(to_server[0], 1, packet));
    packet = enet_packet_create("x", 1, 0);
    printf("send on channel 3 (beyond the server's limit)=%d\n", enet_peer_send(to_server[0], 3, packet));
    enet_packet_destroy(packet); /* refused, so still ours */
    for (i = 0; i < 3000 && !(big_ok && received_reliable[0] + received_reliable[1] + received_reliable[2] == 60); ++i)
        pump(1);
    printf("reliable per channel: %u %u %u; big intact=%u\n", received_reliable[0], received_reliable[1],
           received_reliable[2], big_ok);
    printf("unreliable/unsequenced delivered: %s\n",
           received_other[0] + received_other[1] + received_other[2] <= 60 ? "no more than sent" : "DUPLICATED");

    /* A broadcast shares one packet among the connected peers. */
    packet = enet_packet_create("broadcast", 9, ENET_PACKET_FLAG_RELIABLE);
    packet->freeCallback = on_free;
    enet_host_broadcast(server, 0, packet);
    printf("broadcast referenceCount=%lu\n", (unsigned long) packet->referenceCount);
    for (i = 0; i < 2000 && !(broadcast_seen == CLIENTS && freed == 1); ++i)
        pump(1);
    printf("broadcast seen by %u clients, packet freed %d time(s)\n", broadcast_seen, freed);

    /* Three ways to leave. */
    disconnects = 0;
    enet_peer_disconnect(to_server[0], 7);
    printf("client 0 after disconnect: state=%d\n", (int) to_server[0]->state);
    pump_until(&disconnects, 2, 2000);
    printf("queue before disconnect_later=%d\n", enet_peer_send(to_server[1], 0, enet_packet_create("last", 4, ENET_PACKET_FLAG_RELIABLE)));
    enet_peer_disconnect_later(to_server[1], 8);
    printf("client 1 after disconnect_later: state=%d\n", (int) to_server[1]->state);
    pump_until(&disconnects, 4, 2000);
    enet_peer_disconnect_now(to_server[2], 9);
    printf("client 2 after disconnect_now: state=%d\n", (int) to_server[2]->state);
    pump_until(&disconnects, 5, 2000);
    printf("server connectedPeers=%lu\n", (unsigned long) server->connectedPeers);

    /* A refused send and a reset peer slot. */
    packet = enet_packet_create("late", 4, 0);
    printf("send to a disconnected peer=%d\n", enet_peer_send(to_server[0], 0, packet));
    enet_packet_destroy(packet);
    enet_peer_reset(to_server[0]);
    printf("after reset: state=%d channelCount=%lu\n", (int) to_server[0]->state,
           (unsigned long) to_server[0]->channelCount);

    for (i = 0; i < CLIENTS; ++i)
        enet_host_destroy(clients[i]);
    enet_host_destroy(server);
    enet_deinitialize();
    printf("done\n");
    return 0;
}
