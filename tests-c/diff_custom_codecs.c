/* A program's own checksum and compressor (not ENet's): both sides use
 * them; the session must work and the compressor's context must be
 * destroyed when replaced and when the host is destroyed. */
#include <enet/enet.h>
#include <stdio.h>
#include <string.h>

static int contexts_destroyed, compress_calls, decompress_calls;
static int context_a, context_b, context_c;

/* FNV-1a over all buffers as one stream. */
static enet_uint32 ENET_CALLBACK fnv_checksum(const ENetBuffer *buffers, size_t count)
{
    enet_uint32 hash = 2166136261u;
    size_t i, j;
    for (i = 0; i < count; ++i)
        for (j = 0; j < buffers[i].dataLength; ++j)
            hash = (hash ^ ((const enet_uint8 *) buffers[i].data)[j]) * 16777619u;
    return hash;
}

/* Run-length coding of zero bytes: 0x00 n -> n+1 zeros; other bytes as is. */
static size_t ENET_CALLBACK zrle_compress(void *context, const ENetBuffer *in, size_t count, size_t limit,
                                          enet_uint8 *out, size_t out_limit)
{
    size_t i, j, written = 0;
    int run = -1;
    (void) context;
    (void) limit;
    ++compress_calls;
    for (i = 0; i < count; ++i)
        for (j = 0; j < in[i].dataLength; ++j) {
            enet_uint8 byte = ((const enet_uint8 *) in[i].data)[j];
            if (byte == 0 && run >= 0 && run < 255) {
                ++run;
                out[written - 1] = (enet_uint8) run;
                continue;
            }
            if (written + (byte == 0 ? 2 : 1) > out_limit)
                return 0;
            out[written++] = byte;
            if (byte == 0) {
                out[written++] = 0;
                run = 0;
            } else
                run = -1;
        }
    return written;
}

static size_t ENET_CALLBACK zrle_decompress(void *context, const enet_uint8 *in, size_t in_limit, enet_uint8 *out,
                                            size_t out_limit)
{
    size_t i, written = 0;
    (void) context;
    ++decompress_calls;
    for (i = 0; i < in_limit; ++i) {
        if (in[i] == 0) {
            size_t n;
            if (i + 1 >= in_limit)
                return 0;
            for (n = 0; n <= in[i + 1]; ++n) {
                if (written >= out_limit)
                    return 0;
                out[written++] = 0;
            }
            ++i;
        } else {
            if (written >= out_limit)
                return 0;
            out[written++] = in[i];
        }
    }
    return written;
}

static void ENET_CALLBACK count_destroy(void *context)
{
    (void) context;
    ++contexts_destroyed;
}

static ENetCompressor make(void *context)
{
    ENetCompressor compressor;
    compressor.context = context;
    compressor.compress = zrle_compress;
    compressor.decompress = zrle_decompress;
    compressor.destroy = count_destroy;
    return compressor;
}

int main(void)
{
    ENetAddress address;
    ENetHost *server, *client;
    ENetCompressor compressor;
    ENetPeer *peer;
    ENetEvent event;
    static enet_uint8 sparse[5000];
    int round, connects = 0, received = 0;

    enet_initialize();
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 1, 1, 0, 0);
    client = enet_host_create(NULL, 1, 1, 0, 0);
    server->checksum = fnv_checksum;
    client->checksum = fnv_checksum;
    compressor = make(&context_a);
    enet_host_compress(server, &compressor);
    compressor = make(&context_b);
    enet_host_compress(client, &compressor);
    compressor = make(&context_c);
    enet_host_compress(client, &compressor); /* replaces b: destroys it */
    printf("destroyed after replacement: %d\n", contexts_destroyed);

    peer = enet_host_connect(client, &server->address, 1, 5);
    for (round = 0; round < 500 && connects < 2; ++round) {
        while (enet_host_service(server, &event, 1) > 0)
            connects += event.type == ENET_EVENT_TYPE_CONNECT;
        while (enet_host_service(client, &event, 1) > 0)
            connects += event.type == ENET_EVENT_TYPE_CONNECT;
    }
    printf("connected: %d\n", connects);
    sparse[100] = 1;
    sparse[4000] = 2;
    enet_peer_send(peer, 0, enet_packet_create(sparse, sizeof sparse, ENET_PACKET_FLAG_RELIABLE));
    enet_peer_send(peer, 0, enet_packet_create("dense text", 10, ENET_PACKET_FLAG_RELIABLE));
    for (round = 0; round < 500 && received < 2; ++round) {
        while (enet_host_service(server, &event, 1) > 0)
            if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                printf("received %lu bytes, intact %d\n", (unsigned long) event.packet->dataLength,
                       event.packet->dataLength == sizeof sparse
                           ? memcmp(event.packet->data, sparse, sizeof sparse) == 0
                           : memcmp(event.packet->data, "dense text", 10) == 0);
                ++received;
                enet_packet_destroy(event.packet);
            }
        enet_host_service(client, &event, 1);
    }
    printf("compressor used: %d, decompressor used: %d\n", compress_calls > 0, decompress_calls > 0);
    enet_host_compress(server, NULL); /* turns it off: destroys a */
    printf("destroyed after turning off: %d\n", contexts_destroyed);
    enet_host_destroy(client); /* destroys c */
    enet_host_destroy(server);
    printf("destroyed after host destroy: %d\n", contexts_destroyed);
    enet_deinitialize();
    return 0;
}
