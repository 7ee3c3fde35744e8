/*
 * What a server's heap holds for each handshake waiting for its
 * acknowledgement: a client host in this process connects N peers to a
 * server host, the server serves until it has answered every CONNECT it
 * read (sent each VERIFY_CONNECT), and the C heap's allocated bytes
 * (mallinfo2) before and after those service calls are divided by the
 * server's peers in ACKNOWLEDGING_CONNECT. The client is never serviced
 * again, so no acknowledgement arrives. Run it on either library
 * (LD_LIBRARY_PATH); bench/handshake_heap.sh runs both.
 *
 * usage: handshake_heap PEERS
 * prints: "handshaking N" and "heap_per_handshake BYTES"
 */
#define _GNU_SOURCE
#include <enet/enet.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

static size_t handshaking_peers(const ENetHost *server) {
    size_t count = 0;
    for (size_t i = 0; i < server->peerCount; i++) {
        count += server->peers[i].state == ENET_PEER_STATE_ACKNOWLEDGING_CONNECT;
    }
    return count;
}

int main(int argc, char **argv) {
    int peers = argc > 1 ? atoi(argv[1]) : 1000;
    if (peers < 1 || peers > 4095 || enet_initialize() != 0) {
        fprintf(stderr, "usage: handshake_heap PEERS (1-4095)\n");
        return 2;
    }
    ENetAddress address = {0};
    enet_address_set_host(&address, "127.0.0.1");
    ENetHost *server = enet_host_create(&address, (size_t)peers, 2, 0, 0);
    ENetHost *client = enet_host_create(NULL, (size_t)peers, 2, 0, 0);
    if (server == NULL || client == NULL) {
        fprintf(stderr, "enet_host_create failed\n");
        return 1;
    }
    ENetAddress bound;
    if (enet_socket_get_address(server->socket, &bound) != 0) {
        fprintf(stderr, "enet_socket_get_address failed\n");
        return 1;
    }
    address.port = bound.port;
    for (int i = 0; i < peers; i++) {
        if (enet_host_connect(client, &address, 2, 0) == NULL) {
            fprintf(stderr, "enet_host_connect failed\n");
            return 1;
        }
    }
    enet_host_flush(client);
    ENetEvent event;
    size_t before = mallinfo2().uordblks;
    /* Until three calls in a row answer no more CONNECTs (each reads up
       to 256 datagrams on either library). */
    size_t handshaking = 0;
    for (int unchanged = 0, calls = 0; unchanged < 3 && calls < 1000; calls++) {
        enet_host_service(server, &event, 1);
        size_t now = handshaking_peers(server);
        unchanged = now == handshaking ? unchanged + 1 : 0;
        handshaking = now;
    }
    size_t after = mallinfo2().uordblks;
    printf("handshaking %zu\n", handshaking);
    if (handshaking > 0) {
        printf("heap_per_handshake %.0f\n", (double)(after - before) / (double)handshaking);
    }
    enet_host_destroy(client);
    enet_host_destroy(server);
    enet_deinitialize();
    return 0;
}
