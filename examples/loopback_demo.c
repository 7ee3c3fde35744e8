/* A small ENet program: a server and a client in one process on
 * 127.0.0.1. The client connects, sends chat lines reliably, a burst of
 * unreliable "position updates" and a 1 MiB level file (fragmented), and
 * disconnects. Builds unchanged against stock ENet or enet-rs. */
#include <enet/enet.h>
#include <stdio.h>
#include <string.h>

static int serve(ENetHost *host, const char *name, int budget_ms)
{
    ENetEvent event;
    int events = 0;
    while (budget_ms-- > 0 && enet_host_service(host, &event, 1) > 0) {
        ++events;
        switch (event.type) {
        case ENET_EVENT_TYPE_CONNECT:
            printf("[%s] peer connected (data %u)\n", name, event.data);
            break;
        case ENET_EVENT_TYPE_RECEIVE:
            if (event.packet->dataLength > 1000)
                printf("[%s] received %lu bytes on channel %u\n", name,
                       (unsigned long) event.packet->dataLength, event.channelID);
            else if (event.channelID == 0)
                printf("[%s] chat: %s\n", name, (const char *) event.packet->data);
            enet_packet_destroy(event.packet);
            break;
        case ENET_EVENT_TYPE_DISCONNECT:
            printf("[%s] peer disconnected (data %u)\n", name, event.data);
            break;
        default:
            break;
        }
    }
    return events;
}

int main(void)
{
    static const char *lines[] = {"hello", "how is the latency?", "gg"};
    ENetAddress address;
    ENetHost *server, *client;
    ENetPeer *peer;
    ENetPacket *level;
    unsigned i;

    if (enet_initialize() != 0)
        return 1;
    printf("linked ENet %u.%u.%u\n", ENET_VERSION_GET_MAJOR(enet_linked_version()),
           ENET_VERSION_GET_MINOR(enet_linked_version()), ENET_VERSION_GET_PATCH(enet_linked_version()));
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 32, 2, 0, 0);
    client = enet_host_create(NULL, 1, 2, 0, 0);
    if (server == NULL || client == NULL)
        return 2;
    peer = enet_host_connect(client, &server->address, 2, 42);
    for (i = 0; i < 500 && peer->state != ENET_PEER_STATE_CONNECTED; ++i) {
        serve(server, "server", 1);
        serve(client, "client", 1);
    }
    for (i = 0; i < 3; ++i)
        enet_peer_send(peer, 0, enet_packet_create(lines[i], strlen(lines[i]) + 1, ENET_PACKET_FLAG_RELIABLE));
    for (i = 0; i < 100; ++i)
        enet_peer_send(peer, 1, enet_packet_create(&i, sizeof i, 0));
    level = enet_packet_create(NULL, 1 << 20, ENET_PACKET_FLAG_RELIABLE);
    memset(level->data, 0x5A, level->dataLength);
    enet_peer_send(peer, 1, level);
    for (i = 0; i < 2000; ++i) {
        serve(client, "client", 1);
        serve(server, "server", 1);
    }
    printf("[client] round-trip time %u ms, packet loss %u/65536, sent %u datagrams\n", peer->roundTripTime,
           peer->packetLoss, client->totalSentPackets);
    enet_peer_disconnect(peer, 7);
    for (i = 0; i < 300 && peer->state != ENET_PEER_STATE_DISCONNECTED; ++i) {
        serve(client, "client", 1);
        serve(server, "server", 1);
    }
    enet_host_destroy(client);
    enet_host_destroy(server);
    enet_deinitialize();
    return 0;
}
