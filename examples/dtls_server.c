/* An encrypted ENet server (enet-rs, enet/enet_rs.h): every datagram to
 * and from its clients travels over DTLS 1.2. It echoes what each client
 * sends back to it, and reports each client's encryption.
 *
 *   dtls_server CERT.pem KEY.pem [PORT] [--once]
 *
 * CERT.pem holds the server's certificate (first) and its chain; KEY.pem
 * its ECDSA P-256 or P-384 private key. For a try-out:
 *
 *   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
 *       -nodes -days 30 -subj /CN=localhost -addext subjectAltName=DNS:localhost \
 *       -keyout key.pem -out cert.pem
 *
 * It listens on 127.0.0.1:PORT (0 or none: any free port) and prints
 * "PORT <n>". With --once it exits after its first client leaves. */
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

static const char *state_name(ENetRsDtlsState state)
{
    switch (state) {
    case ENET_RS_DTLS_HANDSHAKING: return "handshaking";
    case ENET_RS_DTLS_ESTABLISHED: return "established";
    case ENET_RS_DTLS_FAILED: return "failed";
    default: return "none";
    }
}

int main(int argc, char **argv)
{
    ENetAddress address;
    ENetHost *host;
    static char certificate[64 * 1024], key[16 * 1024];
    int once = argc > 4 && strcmp(argv[4], "--once") == 0;

    if (argc < 3) {
        fprintf(stderr, "usage: dtls_server CERT.pem KEY.pem [PORT] [--once]\n");
        return 2;
    }
    if (read_pem(argv[1], certificate, sizeof certificate) != 0 ||
        read_pem(argv[2], key, sizeof key) != 0) {
        fprintf(stderr, "dtls_server: cannot read %s or %s\n", argv[1], argv[2]);
        return 2;
    }
    if (enet_initialize() != 0)
        return 1;
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = (enet_uint16) (argc > 3 ? atoi(argv[3]) : 0);
    host = enet_host_create(&address, 32, 2, 0, 0);
    if (host == NULL) {
        fprintf(stderr, "dtls_server: cannot bind 127.0.0.1:%u\n", address.port);
        return 1;
    }
    /* Before any client connects: from here on the host takes only DTLS. */
    if (enet_rs_host_dtls_server(host, certificate, key) != 0) {
        fprintf(stderr, "dtls_server: the certificate or key was refused\n");
        return 1;
    }
    memset(key, 0, sizeof key); /* the library keeps its own copy */
    printf("PORT %u\n", host->address.port);
    fflush(stdout);

    for (;;) {
        ENetEvent event;
        ENetRsDtlsState state;
        if (enet_host_service(host, &event, 100) <= 0)
            continue;
        switch (event.type) {
        case ENET_EVENT_TYPE_CONNECT:
            enet_rs_peer_get_dtls_state(event.peer, &state, NULL, 0);
            printf("client connected, encryption %s\n", state_name(state));
            break;
        case ENET_EVENT_TYPE_RECEIVE: {
            char reply[600];
            int length = snprintf(reply, sizeof reply, "echo: %.*s",
                                  (int) (event.packet->dataLength < 500 ? event.packet->dataLength : 500),
                                  (const char *) event.packet->data);
            enet_peer_send(event.peer, event.channelID,
                           enet_packet_create(reply, (size_t) length + 1, ENET_PACKET_FLAG_RELIABLE));
            enet_packet_destroy(event.packet);
            break;
        }
        case ENET_EVENT_TYPE_DISCONNECT:
            printf("client left\n");
            fflush(stdout);
            if (once) {
                enet_host_destroy(host);
                enet_deinitialize();
                return 0;
            }
            break;
        default:
            break;
        }
        fflush(stdout);
    }
}
