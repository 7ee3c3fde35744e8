/* An encrypted ENet client (enet-rs, enet/enet_rs.h): it connects to
 * dtls_server over DTLS 1.2, verifying the server's certificate, sends
 * three chat lines and prints the echoes.
 *
 *   dtls_client PORT CA.pem [NAME]
 *
 * The server's certificate must be CA.pem itself or be signed by it, and
 * name NAME (default "localhost"). If the handshake fails, the client says
 * why and exits 1. */
#include <enet/enet.h>
#include <enet/enet_rs.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the PEM file `path` into `text` (NUL-terminated); 0 on success. */
static int read_pem(const char *path, char *text, size_t size)
{
    FILE *file = fopen(path, "rb");
    size_t length;
    if (file == NULL)
        return -1;
    length = fread(text, 1, size - 1, file);
    fclose(file);
    text[length] = '\0';
    return 0;
}

int main(int argc, char **argv)
{
    static const char *lines[] = {"hello", "is anyone listening in?", "gg"};
    ENetAddress address;
    ENetHost *host;
    ENetPeer *peer;
    ENetEvent event;
    ENetRsDtlsState state;
    char reason[256];
    static char trusted[64 * 1024];
    int echoes = 0, round;

    if (argc < 3) {
        fprintf(stderr, "usage: dtls_client PORT CA.pem [NAME]\n");
        return 2;
    }
    if (read_pem(argv[2], trusted, sizeof trusted) != 0) {
        fprintf(stderr, "dtls_client: cannot read %s\n", argv[2]);
        return 2;
    }
    if (enet_initialize() != 0)
        return 1;
    host = enet_host_create(NULL, 1, 2, 0, 0);
    if (host == NULL)
        return 1;
    /* Verify on: the server must prove it holds a certificate we trust,
     * for the name we expect. */
    if (enet_rs_host_dtls_client(host, 1, trusted, argc > 3 ? argv[3] : "localhost") != 0) {
        fprintf(stderr, "dtls_client: the trusted certificate or name was refused\n");
        return 1;
    }
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = (enet_uint16) atoi(argv[1]);
    /* The DTLS handshake first, then ENet's CONNECT inside it. */
    peer = enet_host_connect(host, &address, 2, 0);
    if (peer == NULL)
        return 1;

    for (round = 0; round < 1000 && echoes < 3; ++round) {
        if (enet_host_service(host, &event, 10) <= 0)
            continue;
        if (event.type == ENET_EVENT_TYPE_CONNECT) {
            unsigned i;
            enet_rs_peer_get_dtls_state(peer, &state, NULL, 0);
            printf("connected, encryption %s\n",
                   state == ENET_RS_DTLS_ESTABLISHED ? "established" : "not established");
            for (i = 0; i < 3; ++i)
                enet_peer_send(peer, 0,
                               enet_packet_create(lines[i], strlen(lines[i]) + 1, ENET_PACKET_FLAG_RELIABLE));
        } else if (event.type == ENET_EVENT_TYPE_RECEIVE) {
            printf("%s\n", (const char *) event.packet->data);
            enet_packet_destroy(event.packet);
            ++echoes;
        } else if (event.type == ENET_EVENT_TYPE_DISCONNECT) {
            /* A refused certificate or a handshake that timed out ends
             * here, as any failed connect does; the state says why. */
            enet_rs_peer_get_dtls_state(peer, &state, reason, sizeof reason);
            printf("connection failed: %s\n", state == ENET_RS_DTLS_FAILED ? reason : "no answer");
            enet_host_destroy(host);
            return 1;
        }
    }
    if (echoes < 3) {
        printf("connection failed: no answer\n");
        return 1;
    }
    enet_peer_disconnect(peer, 0);
    while (enet_host_service(host, &event, 100) > 0 && event.type != ENET_EVENT_TYPE_DISCONNECT)
        if (event.type == ENET_EVENT_TYPE_RECEIVE)
            enet_packet_destroy(event.packet);
    enet_host_destroy(host);
    enet_deinitialize();
    return 0;
}
