/* The client and server of ENet's tutorial (initialise, create a server
 * host and a client host, service them, send a packet, connect with a
 * 5-second wait, disconnect gracefully with a 3-second wait and a reset
 * fallback), assembled into one program: `tutorial server` prints
 * "PORT n" and serves one client; `tutorial client PORT` talks to it.
 * Output is what each side observes; run_pairs.sh runs it across
 * libraries. */
#include <enet/enet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run_server(void)
{
    ENetAddress address;
    ENetHost *server;
    ENetEvent event;
    int finished = 0, idle_rounds = 0;

    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0; /* the tutorial uses 1234; a free port keeps tests apart */
    server = enet_host_create(&address, 32, 2, 0, 0);
    if (server == NULL) {
        fprintf(stderr, "An error occurred while trying to create an ENet server host.\n");
        return EXIT_FAILURE;
    }
    printf("PORT %u\n", server->address.port);
    fflush(stdout);
    while (!finished && idle_rounds < 30) {
        if (enet_host_service(server, &event, 1000) <= 0) {
            ++idle_rounds;
            continue;
        }
        switch (event.type) {
        case ENET_EVENT_TYPE_CONNECT:
            printf("server: a new client connected (data %u)\n", event.data);
            event.peer->data = "Client information";
            break;
        case ENET_EVENT_TYPE_RECEIVE:
            printf("server: a packet of length %lu containing \"%s\" was received from \"%s\" on channel %u\n",
                   (unsigned long) event.packet->dataLength, (const char *) event.packet->data,
                   (const char *) event.peer->data, event.channelID);
            enet_packet_destroy(event.packet);
            enet_peer_send(event.peer, 1, enet_packet_create("pong", 5, ENET_PACKET_FLAG_RELIABLE));
            break;
        case ENET_EVENT_TYPE_DISCONNECT:
            printf("server: \"%s\" disconnected (data %u)\n", (const char *) event.peer->data, event.data);
            event.peer->data = NULL;
            finished = 1;
            break;
        default:
            break;
        }
    }
    enet_host_destroy(server);
    return finished ? EXIT_SUCCESS : EXIT_FAILURE;
}

static int run_client(unsigned port)
{
    ENetAddress address;
    ENetHost *client;
    ENetPeer *peer;
    ENetEvent event;
    int round, replied = 0, disconnected = 0;

    client = enet_host_create(NULL, 1, 2, 0, 0);
    if (client == NULL) {
        fprintf(stderr, "An error occurred while trying to create an ENet client host.\n");
        return EXIT_FAILURE;
    }
    enet_address_set_host(&address, "localhost");
    address.port = (enet_uint16) port;
    peer = enet_host_connect(client, &address, 2, 42);
    if (peer == NULL) {
        fprintf(stderr, "No available peers for initiating an ENet connection.\n");
        return EXIT_FAILURE;
    }
    if (enet_host_service(client, &event, 5000) > 0 && event.type == ENET_EVENT_TYPE_CONNECT) {
        printf("client: connection to localhost succeeded\n");
    } else {
        enet_peer_reset(peer);
        printf("client: connection to localhost failed\n");
        return EXIT_FAILURE;
    }
    enet_peer_send(peer, 0, enet_packet_create("packet", strlen("packet") + 1, ENET_PACKET_FLAG_RELIABLE));
    enet_host_flush(client);
    for (round = 0; round < 50 && !replied; ++round)
        while (enet_host_service(client, &event, 100) > 0)
            if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                printf("client: reply \"%s\" on channel %u\n", (const char *) event.packet->data, event.channelID);
                enet_packet_destroy(event.packet);
                replied = 1;
            }
    enet_peer_disconnect(peer, 7);
    while (enet_host_service(client, &event, 3000) > 0) {
        if (event.type == ENET_EVENT_TYPE_RECEIVE)
            enet_packet_destroy(event.packet);
        else if (event.type == ENET_EVENT_TYPE_DISCONNECT) {
            printf("client: disconnection succeeded\n");
            disconnected = 1;
            break;
        }
    }
    if (!disconnected)
        enet_peer_reset(peer);
    enet_host_destroy(client);
    return replied && disconnected ? EXIT_SUCCESS : EXIT_FAILURE;
}

int main(int argc, char **argv)
{
    int status;
    if (enet_initialize() != 0) {
        fprintf(stderr, "An error occurred while initializing ENet.\n");
        return EXIT_FAILURE;
    }
    atexit(enet_deinitialize);
    if (argc == 2 && strcmp(argv[1], "server") == 0)
        status = run_server();
    else if (argc == 3 && strcmp(argv[1], "client") == 0)
        status = run_client((unsigned) atoi(argv[2]));
    else {
        fprintf(stderr, "usage: %s server | client PORT\n", argv[0]);
        status = 2;
    }
    return status;
}
