/* Enet_time_set backwards: programs call
 * enet_time_set(0) after enet_host_create (several servers in the wild do
 * exactly that). Stock keeps comparing 32-bit times with ENET_TIME_* on
 * every service call, so a peer that stops answering is still timed out.
 * This connects two hosts with the clock at 100000000 ms, sets it back to
 * 1000, stops servicing the server (a dead process) and checks that the
 * client reports the DISCONNECT of its unanswered reliable packet. The
 * peer timeout is shortened to 1-2 s to keep the test quick. */
#include <enet/enet.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    ENetAddress address;
    ENetHost *server, *client;
    ENetPeer *peer;
    ENetEvent event;
    int round, server_up = 0, client_up = 0, disconnected = 0;
    enet_uint32 start;

    if (enet_initialize() != 0)
        return 1;
    enet_time_set(100000000);
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 1, 1, 0, 0);
    client = enet_host_create(NULL, 1, 1, 0, 0);
    if (server == NULL || client == NULL)
        return 2;
    address.port = server->address.port;
    peer = enet_host_connect(client, &address, 1, 0);
    if (peer == NULL)
        return 3;
    for (round = 0; round < 2000 && !(server_up && client_up); ++round) {
        while (enet_host_service(server, &event, 1) > 0)
            server_up |= event.type == ENET_EVENT_TYPE_CONNECT;
        while (enet_host_service(client, &event, 1) > 0)
            client_up |= event.type == ENET_EVENT_TYPE_CONNECT;
    }
    if (!server_up || !client_up)
        return 4;
    for (round = 0; round < 100; ++round) {
        enet_host_service(server, NULL, 1);
        enet_host_service(client, NULL, 1);
    }

    enet_time_set(1000);
    printf("connected; clock set back to 1000\n");
    enet_peer_timeout(peer, 0, 1000, 2000);
    enet_peer_send(peer, 0, enet_packet_create("anyone?", 7, ENET_PACKET_FLAG_RELIABLE));
    /* The server is never serviced again. */
    start = enet_time_get();
    while (!disconnected && enet_time_get() - start < 6000) {
        if (enet_host_service(client, &event, 10) > 0 && event.type == ENET_EVENT_TYPE_DISCONNECT)
            disconnected = 1;
    }
    printf("client saw DISCONNECT within 6 s: %s\n", disconnected ? "yes" : "no");
    printf("client peer state: %d\n", (int) peer->state);

    enet_host_destroy(client);
    enet_host_destroy(server);
    enet_deinitialize();
    return 0;
}
