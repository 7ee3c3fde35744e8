/*
 * pmtu_stock_server.c: a stock ENet 1.3.17 server (Debian's library) for
 * ext_pmtu's interop run. It prints "PORT n", then receives until it has
 * the client's packets (argv[1] of them, argv[2] bytes each, on channel
 * 1, each filled with its number), answers "ok" and exits 0. Anything
 * else delivered (a probe's padding would be: channel 0) or a disconnect
 * before the end exits non-zero.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <enet/enet.h>

int main(int argc, char **argv)
{
    ENetAddress address;
    ENetHost *server;
    ENetEvent event;
    ENetPeer *client = NULL;
    long expected, size, received = 0, rounds = 0;
    int status = 0;
    if (argc != 3 || enet_initialize() != 0)
        return 10;
    expected = atol(argv[1]);
    size = atol(argv[2]);
    address.host = ENET_HOST_ANY;
    enet_address_set_host(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 1, 2, 0, 0);
    if (!server)
        return 11;
    printf("PORT %u\n", (unsigned) server->address.port);
    fflush(stdout);
    /* At most 60 s. */
    while (rounds++ < 6000 && status == 0) {
        while (enet_host_service(server, &event, 10) > 0) {
            switch (event.type) {
            case ENET_EVENT_TYPE_CONNECT:
                client = event.peer;
                break;
            case ENET_EVENT_TYPE_RECEIVE: {
                unsigned char fill = (unsigned char) received;
                size_t i;
                int intact = event.channelID == 1 && (long) event.packet->dataLength == size;
                for (i = 0; intact && i < event.packet->dataLength; ++i)
                    intact = event.packet->data[i] == fill;
                enet_packet_destroy(event.packet);
                if (!intact) {
                    fprintf(stderr, "stock server: packet %ld not as sent (channel %u)\n",
                            received, (unsigned) event.channelID);
                    status = 2;
                    break;
                }
                if (++received == expected) {
                    ENetPacket *ok = enet_packet_create("ok", 3, ENET_PACKET_FLAG_RELIABLE);
                    enet_peer_send(client, 0, ok);
                    enet_host_flush(server);
                }
                break;
            }
            case ENET_EVENT_TYPE_DISCONNECT:
                if (received != expected) {
                    fprintf(stderr, "stock server: disconnected after %ld packets\n", received);
                    status = 3;
                } else
                    status = -1; /* done */
                break;
            default:
                break;
            }
            if (status != 0)
                break;
        }
    }
    if (status == 0)
        status = 4; /* out of time */
    printf("RECEIVED %ld\n", received);
    enet_host_destroy(server);
    enet_deinitialize();
    return status == -1 ? 0 : status;
}
