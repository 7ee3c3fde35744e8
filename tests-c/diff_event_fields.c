/* Event fields: stock enet_host_service writes only the
 * fields an event kind owns. A RECEIVE event sets type, peer, channelID and
 * packet but leaves `data` as it was; CONNECT and DISCONNECT events set
 * type, peer and data but leave `channelID` as it was. A program that keeps
 * one ENetEvent across calls (the usual loop) therefore sees the previous
 * event's value there. This prints both fields for every event. */
#include <enet/enet.h>
#include <stdio.h>
#include <string.h>

static ENetHost *server, *client;
static ENetPeer *server_side, *client_side;
/* One event per host, reused across calls as programs do. */
static ENetEvent server_event, client_event;

static void show(const char *who, const ENetEvent *event)
{
    const char *kind = event->type == ENET_EVENT_TYPE_CONNECT      ? "CONNECT"
                       : event->type == ENET_EVENT_TYPE_DISCONNECT ? "DISCONNECT"
                       : event->type == ENET_EVENT_TYPE_RECEIVE    ? "RECEIVE"
                                                                   : "NONE";
    printf("%s %s data=0x%x channelID=%u\n", who, kind, (unsigned) event->data,
           (unsigned) event->channelID);
}

/* Services both hosts until `want` events were seen on `who`'s side. */
static int pump(ENetHost *who, int want)
{
    int seen = 0, round;
    for (round = 0; round < 2000 && seen < want; ++round) {
        while (enet_host_service(server, &server_event, 1) > 0) {
            show("server", &server_event);
            if (server_event.type == ENET_EVENT_TYPE_CONNECT)
                server_side = server_event.peer;
            if (server_event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(server_event.packet);
            if (who == server)
                ++seen;
        }
        while (enet_host_service(client, &client_event, 1) > 0) {
            show("client", &client_event);
            if (client_event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(client_event.packet);
            if (who == client)
                ++seen;
        }
    }
    return seen >= want;
}

int main(void)
{
    ENetAddress address;
    ENetPacket *packet;

    if (enet_initialize() != 0)
        return 1;
    memset(&server_event, 0, sizeof server_event);
    memset(&client_event, 0, sizeof client_event);
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 4, 4, 0, 0);
    client = enet_host_create(NULL, 1, 4, 0, 0);
    if (server == NULL || client == NULL)
        return 2;
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = server->address.port;

    client_side = enet_host_connect(client, &address, 4, 0x1234);
    if (client_side == NULL)
        return 3;
    /* Client CONNECT (data 0), then server CONNECT (data 0x1234). */
    if (!pump(client, 1) || !pump(server, 1) || server_side == NULL)
        return 4;

    /* Server RECEIVE on channel 2: data is still the CONNECT's 0x1234. */
    packet = enet_packet_create("to server", 9, ENET_PACKET_FLAG_RELIABLE);
    if (enet_peer_send(client_side, 2, packet) != 0)
        return 5;
    if (!pump(server, 1))
        return 6;

    /* Client RECEIVE on channel 3: data is still the client CONNECT's 0. */
    packet = enet_packet_create("to client", 9, ENET_PACKET_FLAG_RELIABLE);
    if (enet_peer_send(server_side, 3, packet) != 0)
        return 7;
    if (!pump(client, 1))
        return 8;

    /* Client DISCONNECT (data 77): channelID is still 3 from the RECEIVE. */
    enet_peer_disconnect(server_side, 77);
    if (!pump(client, 1))
        return 9;
    /* Server DISCONNECT: channelID is still 2 from its RECEIVE. */
    if (!pump(server, 1))
        return 10;

    enet_host_destroy(client);
    enet_host_destroy(server);
    enet_deinitialize();
    return 0;
}
