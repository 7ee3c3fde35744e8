/* Wire trace through the intercept callback: a scripted session between
 * two hosts in one process, with every received datagram decoded and
 * printed (sent times, connect ids and checksum values masked). Run once
 * plain, once with checksums, once with the range coder, once with both.
 * Identical output on stock and ours means the same commands, flags,
 * channels, sequence numbers, sizes and payloads on the wire.
 *
 * The clock is virtual (bench/virtual_clock.h): time moves 1 ms per round
 * of the script, whose service calls do not wait. On the system clock, a
 * round that a busy machine delayed by a few milliseconds could time a
 * reliable command out (a loopback round trip makes the retransmission
 * timeout a few milliseconds) or change an acknowledged sent time and with
 * it whether a datagram compresses: a different trace on one side only. */
#define _GNU_SOURCE
#include <enet/enet.h>
#include <stdio.h>
#include <string.h>

#define VIRTUAL_CLOCK_START_MS 5000000ull
#include "../bench/virtual_clock.h"

static int use_checksum, use_compression;
static enet_uint8 scratch[4096];

static unsigned get16(const enet_uint8 *p) { return (unsigned) p[0] << 8 | p[1]; }
static unsigned long get32(const enet_uint8 *p)
{
    return (unsigned long) p[0] << 24 | (unsigned long) p[1] << 16 | (unsigned long) p[2] << 8 | p[3];
}

static void decode(const char *who, const enet_uint8 *data, size_t length)
{
    static const size_t sizes[13] = {0, 8, 48, 44, 8, 4, 6, 8, 24, 8, 12, 16, 24};
    static const char *names[13] = {"?", "ACK", "CONNECT", "VERIFY", "DISCONNECT", "PING", "RELIABLE",
                                    "UNRELIABLE", "FRAGMENT", "UNSEQUENCED", "BANDWIDTH", "THROTTLE", "UFRAGMENT"};
    unsigned word = get16(data);
    size_t header = (word & 0x8000 ? 4 : 2) + (use_checksum ? 4 : 0);
    const enet_uint8 *body = data + header, *end = data + length;
    printf("%s <- peer=%03x session=%u sentTime=%d compressed=%d:", who, word & 0xFFF, (word >> 12) & 3,
           (word & 0x8000) != 0, (word & 0x4000) != 0);
    if (word & 0x4000) {
        void *coder = enet_range_coder_create();
        size_t out = enet_range_coder_decompress(coder, body, (size_t) (end - body), scratch, sizeof scratch);
        enet_range_coder_destroy(coder);
        body = scratch;
        end = scratch + out;
    }
    while (body + 4 <= end) {
        unsigned number = body[0] & 0x0F;
        size_t size, payload = 0;
        if (number == 0 || number > 12 || body + sizes[number] > end)
            break;
        size = sizes[number];
        printf(" %s%s%s ch=%u rsn=%u", names[number], body[0] & 0x80 ? "+A" : "", body[0] & 0x40 ? "+U" : "",
               body[1], get16(body + 2));
        switch (number) {
        case 1: printf("(%u)", get16(body + 4)); break;
        case 2: case 3:
            printf("(mtu %lu win %lu ch %lu bw %lu/%lu thr %lu/%lu/%lu%s)", get32(body + 8), get32(body + 12),
                   get32(body + 16), get32(body + 20), get32(body + 24), get32(body + 28), get32(body + 32),
                   get32(body + 36), number == 2 ? "" : "");
            if (number == 2)
                printf("(data %lx)", get32(body + 44));
            break;
        case 4: printf("(data %lu)", get32(body + 4)); break;
        case 6: payload = get16(body + 4); break;
        case 7: printf("(usn %u)", get16(body + 4)); payload = get16(body + 6); break;
        case 9: printf("(group %u)", get16(body + 4)); payload = get16(body + 6); break;
        case 8: case 12:
            printf("(start %u n %lu/%lu off %lu total %lu)", get16(body + 4), get32(body + 12), get32(body + 8),
                   get32(body + 20), get32(body + 16));
            payload = get16(body + 6);
            break;
        case 10: printf("(%lu/%lu)", get32(body + 4), get32(body + 8)); break;
        case 11: printf("(%lu/%lu/%lu)", get32(body + 4), get32(body + 8), get32(body + 12)); break;
        default: break;
        }
        if (payload > 0) {
            size_t i, sum = 0;
            for (i = 0; i < payload && body + size + i < end; ++i)
                sum = sum * 31 + body[size + i];
            printf("[%lu bytes, hash %lx]", (unsigned long) payload, (unsigned long) (sum & 0xFFFFFF));
        }
        body += size + payload;
    }
    printf("\n");
}

static int ENET_CALLBACK trace_server(ENetHost *host, ENetEvent *event)
{
    (void) event;
    decode("server", host->receivedData, host->receivedDataLength);
    return 0;
}

static int ENET_CALLBACK trace_client(ENetHost *host, ENetEvent *event)
{
    (void) event;
    decode("client", host->receivedData, host->receivedDataLength);
    return 0;
}

static void run(int checksum, int compression)
{
    ENetAddress address;
    ENetHost *server, *client;
    ENetPeer *peer;
    ENetEvent event;
    ENetPacket *packet;
    int round, connects = 0, received = 0, disconnects = 0;
    static enet_uint8 big[3000];
    unsigned i;

    use_checksum = checksum;
    use_compression = compression;
    printf("== checksum=%d compression=%d\n", checksum, compression);
    /* The same clock for both libraries: acknowledgements carry sent
     * times, and whether a small datagram compresses depends on them. */
    enet_time_set(1000);
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 2, 2, 0, 0);
    client = enet_host_create(NULL, 1, 2, 0, 0);
    server->intercept = trace_server;
    client->intercept = trace_client;
    if (checksum) {
        server->checksum = enet_crc32;
        client->checksum = enet_crc32;
    }
    if (compression) {
        enet_host_compress_with_range_coder(server);
        enet_host_compress_with_range_coder(client);
    }
    peer = enet_host_connect(client, &server->address, 2, 0x12345678);
    for (round = 0; round < 200 && connects < 2; ++round, ++virtual_ms) {
        while (enet_host_service(client, &event, 0) > 0)
            connects += event.type == ENET_EVENT_TYPE_CONNECT;
        while (enet_host_service(server, &event, 0) > 0)
            connects += event.type == ENET_EVENT_TYPE_CONNECT;
    }
    enet_peer_send(peer, 0, enet_packet_create("hello-reliable", 14, ENET_PACKET_FLAG_RELIABLE));
    enet_peer_send(peer, 1, enet_packet_create("hello-unreliable", 16, 0));
    enet_peer_send(peer, 1, enet_packet_create("hello-unsequenced", 17, ENET_PACKET_FLAG_UNSEQUENCED));
    for (i = 0; i < sizeof big; ++i)
        big[i] = (enet_uint8) (i % 7);
    enet_peer_send(peer, 0, enet_packet_create(big, sizeof big, ENET_PACKET_FLAG_RELIABLE));
    enet_peer_send(peer, 1, enet_packet_create(big, sizeof big, ENET_PACKET_FLAG_UNRELIABLE_FRAGMENT));
    enet_host_flush(client);
    for (round = 0; round < 200 && received < 5; ++round, ++virtual_ms) {
        while (enet_host_service(server, &event, 0) > 0)
            if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                ++received;
                enet_packet_destroy(event.packet);
            }
        enet_host_service(client, &event, 0);
    }
    packet = enet_packet_create("reply", 5, ENET_PACKET_FLAG_RELIABLE);
    enet_host_broadcast(server, 1, packet);
    enet_peer_throttle_configure(peer, 3000, 3, 4);
    enet_host_bandwidth_limit(server, 100000, 50000);
    enet_host_bandwidth_throttle(server);
    for (round = 0; round < 50; ++round, ++virtual_ms) {
        enet_host_service(server, &event, 0);
        if (enet_host_service(client, &event, 0) > 0 && event.type == ENET_EVENT_TYPE_RECEIVE)
            enet_packet_destroy(event.packet);
    }
    enet_peer_disconnect(peer, 0xABCD);
    for (round = 0; round < 200 && disconnects < 2; ++round, ++virtual_ms) {
        while (enet_host_service(client, &event, 0) > 0)
            disconnects += event.type == ENET_EVENT_TYPE_DISCONNECT;
        while (enet_host_service(server, &event, 0) > 0)
            disconnects += event.type == ENET_EVENT_TYPE_DISCONNECT;
    }
    printf("received %d, disconnects %d\n", received, disconnects);
    enet_host_destroy(client);
    enet_host_destroy(server);
}

int main(void)
{
    enet_initialize();
    run(0, 0);
    run(1, 0);
    run(0, 1);
    run(1, 1);
    enet_deinitialize();
    return 0;
}
