/*
 * The stock side of tests-c/packaging/test-deb.sh's game-server check: an
 * ENet client built against Debian's stock ENet 1.3.17, run outside the
 * throwaway root, so it is stock ENet whatever the root has installed.
 *
 * usage: stock_client PORT CHANNELS SECONDS
 * Connects to 127.0.0.1:PORT with CHANNELS channels and prints "CONNECT",
 * then "RECEIVE <channel> <length>" for the server's first packet, and
 * disconnects. Exit 0 once both are seen; 2 without a connection, 3
 * without a packet, within SECONDS (both bound every wait).
 */
#include <enet/enet.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: stock_client PORT CHANNELS SECONDS\n");
        return 1;
    }
    if (enet_initialize() != 0) {
        fprintf(stderr, "enet_initialize failed\n");
        return 1;
    }
    ENetHost *client = enet_host_create(NULL, 1, (size_t) atoi(argv[2]), 0, 0);
    if (client == NULL) {
        fprintf(stderr, "enet_host_create failed\n");
        return 1;
    }
    ENetAddress address;
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = (enet_uint16) atoi(argv[1]);
    ENetPeer *peer = enet_host_connect(client, &address, (size_t) atoi(argv[2]), 0);
    if (peer == NULL) {
        fprintf(stderr, "enet_host_connect failed\n");
        return 1;
    }
    enet_uint32 limit = (enet_uint32) atoi(argv[3]) * 1000, start = enet_time_get();
    int connected = 0, status = 2;
    ENetEvent event;
    while (enet_time_get() - start < limit && status == 2 + connected) {
        if (enet_host_service(client, &event, 50) <= 0)
            continue;
        switch (event.type) {
        case ENET_EVENT_TYPE_CONNECT:
            printf("CONNECT\n");
            fflush(stdout);
            connected = 1;
            status = 3;
            break;
        case ENET_EVENT_TYPE_RECEIVE:
            printf("RECEIVE %u %zu\n", event.channelID, event.packet->dataLength);
            fflush(stdout);
            enet_packet_destroy(event.packet);
            status = 0;
            break;
        case ENET_EVENT_TYPE_DISCONNECT:
            fprintf(stderr, "disconnected by the server (data %u)\n", event.data);
            limit = 0;
            break;
        default:
            break;
        }
    }
    if (connected) {
        enet_peer_disconnect_now(peer, 0);
        enet_host_flush(client);
    }
    enet_host_destroy(client);
    enet_deinitialize();
    return status;
}
