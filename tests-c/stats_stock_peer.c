/*
 * stats_stock_peer.c: the stock ENet peer of ext_host_stats (built against
 * Debian's libenet): connects to 127.0.0.1:PORT with two channels, sends
 * 10 reliable packets of 100 bytes, takes 5 packets from the server,
 * disconnects, and exits 0 once the server has acknowledged.
 *
 * usage: stats_stock_peer PORT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <enet/enet.h>

int main(int argc, char **argv)
{
    ENetAddress address;
    ENetHost *host;
    ENetPeer *peer;
    ENetEvent event;
    unsigned char payload[100];
    int sent = 0, received = 0, disconnecting = 0, round;

    if (argc != 2 || enet_initialize() != 0)
        return 2;
    host = enet_host_create(NULL, 1, 2, 0, 0);
    if (host == NULL)
        return 2;
    host->checksum = enet_crc32;
    enet_address_set_host(&address, "127.0.0.1");
    address.port = (enet_uint16) atoi(argv[1]);
    peer = enet_host_connect(host, &address, 2, 0);
    if (peer == NULL)
        return 2;
    memset(payload, 0x5A, sizeof payload);
    for (round = 0; round < 5000; ++round) {
        if (enet_host_service(host, &event, 2) <= 0)
            continue;
        switch (event.type) {
        case ENET_EVENT_TYPE_CONNECT:
            for (sent = 0; sent < 10; ++sent)
                enet_peer_send(peer, 0, enet_packet_create(payload, sizeof payload,
                                                           ENET_PACKET_FLAG_RELIABLE));
            break;
        case ENET_EVENT_TYPE_RECEIVE:
            enet_packet_destroy(event.packet);
            if (++received == 5 && !disconnecting) {
                enet_peer_disconnect_later(peer, 7);
                disconnecting = 1;
            }
            break;
        case ENET_EVENT_TYPE_DISCONNECT:
            enet_host_destroy(host);
            enet_deinitialize();
            if (!disconnecting) {
                printf("stats_stock_peer: the server dropped us\n");
                return 1;
            }
            return 0;
        default:
            break;
        }
    }
    printf("stats_stock_peer: timed out (sent %d, received %d)\n", sent, received);
    return 1;
}
