/*
 * reasons/stock_peer.c: the stock ENet side of ext_disconnect_reason.c,
 * built against Debian's stock libenet. It connects to 127.0.0.1:PORT and
 * then, by MODE:
 *   disconnect DATA  disconnects gracefully with DATA and waits for the
 *                    acknowledgement (its own DISCONNECT event);
 *   hang             keeps servicing until it is killed.
 * It prints "connected" once the connection is up. Exit 0 on success, 1
 * if the connection or the disconnect did not happen within 5 s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <enet/enet.h>

static int wait_for(ENetHost *host, ENetEventType type, enet_uint32 ms)
{
    enet_uint32 start = enet_time_get();
    ENetEvent event;
    while (enet_time_get() - start < ms) {
        if (enet_host_service(host, &event, 10) > 0) {
            if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
            if (event.type == type)
                return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    ENetAddress address;
    ENetHost *host;
    ENetPeer *peer;
    if (argc < 3 || enet_initialize() != 0)
        return 2;
    host = enet_host_create(NULL, 1, 1, 0, 0);
    if (!host)
        return 2;
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = (enet_uint16) atoi(argv[1]);
    peer = enet_host_connect(host, &address, 1, 0);
    if (!peer || !wait_for(host, ENET_EVENT_TYPE_CONNECT, 5000))
        return 1;
    printf("connected\n");
    fflush(stdout);
    if (strcmp(argv[2], "disconnect") == 0 && argc > 3) {
        /* A disconnect at once would drop the acknowledgement of the
         * server's VERIFY_CONNECT still queued, and the server would reset
         * its half-open peer without an event, as stock does. */
        wait_for(host, ENET_EVENT_TYPE_NONE, 200);
        enet_peer_disconnect(peer, (enet_uint32) strtoul(argv[3], NULL, 0));
        if (!wait_for(host, ENET_EVENT_TYPE_DISCONNECT, 5000))
            return 1;
    } else {
        for (;;)
            wait_for(host, ENET_EVENT_TYPE_NONE, 1000);
    }
    enet_host_destroy(host);
    enet_deinitialize();
    return 0;
}
