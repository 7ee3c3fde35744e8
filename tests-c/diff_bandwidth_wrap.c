/* Bandwidth throttle arithmetic: stock
 * enet_host_bandwidth_throttle computes a second's byte budget as
 * `bandwidth * elapsedTime / 1000` in 32-bit unsigned arithmetic, which
 * wraps for any bandwidth above 4294967 bytes/s (about 34 Mbit/s). With a
 * 10 MB/s limit and 3 MB sent in the last second, stock's budget is
 * (10000000 * 1000 mod 2^32) / 1000 = 1410065 bytes, so it lowers the
 * peer's packetThrottleLimit to 1410065 * 32 / 3000000 = 15. Both the
 * host's outgoing limit and a peer's incoming limit go through that
 * product. The elapsed time is set up as 1000 ms (up to 8 ms of scheduling
 * delay gives the same result). */
#include <enet/enet.h>
#include <stdio.h>
#include <string.h>

static int connect_pair(ENetHost *server, ENetHost *client, ENetPeer **server_side)
{
    ENetAddress address;
    ENetEvent event;
    int round, client_up = 0;

    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = server->address.port;
    if (enet_host_connect(client, &address, 1, 0) == NULL)
        return 0;
    *server_side = NULL;
    for (round = 0; round < 2000 && (*server_side == NULL || !client_up); ++round) {
        while (enet_host_service(server, &event, 1) > 0)
            if (event.type == ENET_EVENT_TYPE_CONNECT)
                *server_side = event.peer;
        while (enet_host_service(client, &event, 1) > 0)
            if (event.type == ENET_EVENT_TYPE_CONNECT)
                client_up = 1;
    }
    return *server_side != NULL && client_up;
}

/* Runs the throttle as if one second passed in which `sent` bytes were
 * queued to the peer; returns the peer's new throttle limit. */
static unsigned throttle_after(ENetHost *host, ENetPeer *peer, enet_uint32 sent)
{
    peer->outgoingDataTotal = sent;
    host->bandwidthThrottleEpoch = enet_time_get() - 1000;
    enet_host_bandwidth_throttle(host);
    return peer->packetThrottleLimit;
}

int main(void)
{
    ENetAddress any;
    ENetHost *server, *client;
    ENetPeer *server_side;

    if (enet_initialize() != 0)
        return 1;
    enet_address_set_host_ip(&any, "127.0.0.1");
    any.port = 0;

    /* The host's own outgoing limit: 10 MB/s. */
    server = enet_host_create(&any, 2, 1, 0, 10000000);
    client = enet_host_create(NULL, 1, 1, 0, 0);
    if (server == NULL || client == NULL || !connect_pair(server, client, &server_side))
        return 2;
    printf("host outgoing 10 MB/s, 3 MB sent: packetThrottleLimit=%u\n",
           throttle_after(server, server_side, 3000000));
    enet_host_destroy(client);
    enet_host_destroy(server);

    /* The peer's incoming limit: the client announces 10 MB/s. */
    server = enet_host_create(&any, 2, 1, 0, 0);
    client = enet_host_create(NULL, 1, 1, 10000000, 0);
    if (server == NULL || client == NULL || !connect_pair(server, client, &server_side))
        return 3;
    printf("peer incomingBandwidth=%u\n", (unsigned) server_side->incomingBandwidth);
    printf("peer incoming 10 MB/s, 3 MB sent: packetThrottleLimit=%u\n",
           throttle_after(server, server_side, 3000000));
    enet_host_destroy(client);
    enet_host_destroy(server);

    enet_deinitialize();
    return 0;
}
