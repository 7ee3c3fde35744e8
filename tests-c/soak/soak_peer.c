/*
 * Soak peer: the two ends of scripts/soak.sh. Compiled against the stock
 * header; which libenet.so.7 runs is chosen by LD_LIBRARY_PATH.
 *
 *   soak_peer server [--seconds S]
 *       A host on 127.0.0.1:0 (1 peer, 4 channels, CRC32 checksums); prints
 *       "PORT <n>", takes one client, checks every message and prints one
 *       summary line when the client's DONE has arrived with every reliable
 *       message before it (then disconnects it), when the connection drops,
 *       or after S seconds (default 300).
 *   soak_peer client --port P [--messages N] [--seed X] [--rate R]
 *       Connects to 127.0.0.1:P and sends N reliable messages (default
 *       10000) of 16..3000 bytes over channels 0-2, R per second (default
 *       2000), each followed by an unreliable one of 16..600 bytes on
 *       channel 3; then a reliable DONE on channel 0 with the counts; then
 *       waits for the server to disconnect it. Prints one summary line.
 *
 * With --dtls DIR (either mode; enet-rs only, its functions looked up at
 * run time) the host is encrypted: the server presents DIR/cert.pem (key
 * DIR/key.pem), the client verifies it for "localhost".
 *
 * Every message: magic "SOAK", channel, sequence number (per channel, from
 * 0), length, FNV-1a of the body; the body is a pure function of (seed,
 * channel, sequence), so the receiver regenerates it and any byte that was
 * never sent shows as corruption. Per channel the receiver counts delivered,
 * duplicated (seen before), out of order (older than the newest seen) and
 * corrupted messages; lost = sent - delivered.
 *
 * Summary (server): "soak reliable_sent=.. reliable_delivered=.. reliable_lost=..
 * reliable_duplicated=.. reliable_out_of_order=.. reliable_corrupted=..
 * unreliable_sent=.. unreliable_delivered=.. unreliable_duplicated=..
 * unreliable_out_of_order=.. unreliable_corrupted=.. dropped=0|1 done=0|1
 * connected=0|1 elapsed_ms=.." where dropped=1 means the connection ended (or
 * the time ran out) before every reliable message and DONE arrived.
 */
#define _XOPEN_SOURCE 700

#include <enet/enet.h>

#include "../dynamic_dtls.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHANNELS 4
#define RELIABLE_CHANNELS 3
#define UNRELIABLE_CHANNEL 3
#define HEADER 17
#define MAX_MESSAGES 1000000

/* --dtls DIR, or NULL for a plain host. */
static const char *dtls_dir = NULL;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static long option(int argc, char **argv, const char *name, long fallback)
{
    int i;
    for (i = 1; i + 1 < argc; ++i)
        if (strcmp(argv[i], name) == 0)
            return strtol(argv[i + 1], NULL, 0);
    return fallback;
}

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t fnv1a(const unsigned char *data, size_t length)
{
    uint32_t hash = 2166136261u;
    size_t i;
    for (i = 0; i < length; ++i)
        hash = (hash ^ data[i]) * 16777619u;
    return hash;
}

static void put32(unsigned char *at, uint32_t value)
{
    at[0] = (unsigned char) (value >> 24);
    at[1] = (unsigned char) (value >> 16);
    at[2] = (unsigned char) (value >> 8);
    at[3] = (unsigned char) value;
}

static uint32_t get32(const unsigned char *at)
{
    return (uint32_t) at[0] << 24 | (uint32_t) at[1] << 16 | (uint32_t) at[2] << 8 | at[3];
}

/* The message (channel, sequence) of a soak with `seed`: its length and
 * body bytes. */
static size_t message_length(uint64_t seed, unsigned channel, uint32_t sequence)
{
    uint64_t r = mix(seed ^ ((uint64_t) channel << 40) ^ sequence);
    return channel == UNRELIABLE_CHANNEL ? 16 + (size_t) (r % 585) : 16 + (size_t) (r % 2985);
}

static void fill_body(uint64_t seed, unsigned channel, uint32_t sequence, unsigned char *body,
                      size_t length)
{
    uint64_t state = mix(seed * 31 + channel * 7919 + sequence);
    size_t i;
    for (i = 0; i < length; ++i) {
        if (i % 8 == 0)
            state = mix(state);
        body[i] = (unsigned char) (state >> (8 * (i % 8)));
    }
}

static ENetPacket *make_message(uint64_t seed, unsigned channel, uint32_t sequence, int reliable)
{
    size_t length = message_length(seed, channel, sequence);
    ENetPacket *packet =
        enet_packet_create(NULL, HEADER + length, reliable ? ENET_PACKET_FLAG_RELIABLE : 0);
    unsigned char *data;
    if (packet == NULL)
        return NULL;
    data = packet->data;
    memcpy(data, "SOAK", 4);
    data[4] = (unsigned char) channel;
    put32(data + 5, sequence);
    put32(data + 9, (uint32_t) length);
    fill_body(seed, channel, sequence, data + HEADER, length);
    put32(data + 13, fnv1a(data + HEADER, length));
    return packet;
}

typedef struct {
    unsigned long delivered, duplicated, out_of_order, corrupted;
    long newest;                  /* newest sequence seen, -1 before any */
    unsigned char *seen;          /* a bit per sequence number */
} Tally;

static int run_server(long seconds)
{
    ENetAddress address;
    ENetHost *host;
    ENetEvent event;
    Tally tally[CHANNELS];
    unsigned long expected[CHANNELS] = { 0, 0, 0, 0 };
    uint64_t seed = 0;
    int done = 0, complete = 0, connected = 0, finished = 0;
    double start = now_s(), first = 0;
    unsigned c;

    memset(tally, 0, sizeof tally);
    for (c = 0; c < CHANNELS; ++c) {
        tally[c].newest = -1;
        tally[c].seen = calloc(MAX_MESSAGES / 8 + 1, 1);
        if (tally[c].seen == NULL)
            return 2;
    }
    enet_address_set_host(&address, "127.0.0.1");
    address.port = 0;
    host = enet_host_create(&address, 1, CHANNELS, 0, 0);
    if (host == NULL)
        return 2;
    host->checksum = enet_crc32;
    if (dtls_dir != NULL)
        dynamic_dtls_server(host, dtls_dir);
    printf("PORT %u\n", host->address.port);
    fflush(stdout);
    while (!finished && now_s() - start < (double) seconds) {
        int got = enet_host_service(host, &event, 10);
        if (got < 0)
            break;
        if (got == 0)
            continue;
        switch (event.type) {
        case ENET_EVENT_TYPE_CONNECT:
            connected = 1;
            first = now_s();
            seed = event.data;
            break;
        case ENET_EVENT_TYPE_DISCONNECT:
            finished = 1;
            break;
        case ENET_EVENT_TYPE_RECEIVE: {
            const unsigned char *data = event.packet->data;
            size_t length = event.packet->dataLength;
            unsigned channel = event.channelID;
            if (length >= 4 + 4 * CHANNELS && memcmp(data, "DONE", 4) == 0 && channel == 0) {
                for (c = 0; c < CHANNELS; ++c)
                    expected[c] = get32(data + 4 + 4 * c);
                done = 1;
            } else if (channel < CHANNELS) {
                Tally *t = &tally[channel];
                uint32_t sequence = length >= HEADER ? get32(data + 5) : 0;
                size_t body = length >= HEADER ? get32(data + 9) : 0;
                int intact = length >= HEADER && memcmp(data, "SOAK", 4) == 0 && data[4] == channel &&
                             sequence < MAX_MESSAGES && body == length - HEADER &&
                             body == message_length(seed, channel, sequence) &&
                             get32(data + 13) == fnv1a(data + HEADER, body);
                if (intact) {
                    unsigned char *expect = malloc(body);
                    fill_body(seed, channel, sequence, expect, body);
                    intact = expect != NULL && memcmp(expect, data + HEADER, body) == 0;
                    free(expect);
                }
                if (!intact) {
                    ++t->corrupted;
                } else if (t->seen[sequence / 8] & (1u << (sequence % 8))) {
                    ++t->duplicated;
                } else {
                    t->seen[sequence / 8] |= (unsigned char) (1u << (sequence % 8));
                    ++t->delivered;
                    if ((long) sequence < t->newest)
                        ++t->out_of_order;
                    else
                        t->newest = sequence;
                }
            }
            enet_packet_destroy(event.packet);
            break;
        }
        default:
            break;
        }
        if (done) {
            unsigned long have = 0, want = 0;
            for (c = 0; c < RELIABLE_CHANNELS; ++c) {
                have += tally[c].delivered;
                want += expected[c];
            }
            /* Reliable delivery is in order per channel, and DONE went
             * last on channel 0: by now channels 1-2 may still lag. */
            if (have >= want) {
                enet_peer_disconnect(&host->peers[0], 0);
                complete = 1;
                finished = 1;
            }
        }
    }
    {
        unsigned long sent = 0, delivered = 0, duplicated = 0, out_of_order = 0, corrupted = 0;
        for (c = 0; c < RELIABLE_CHANNELS; ++c) {
            sent += expected[c];
            delivered += tally[c].delivered;
            duplicated += tally[c].duplicated;
            out_of_order += tally[c].out_of_order;
            corrupted += tally[c].corrupted;
        }
        printf("soak reliable_sent=%lu reliable_delivered=%lu reliable_lost=%lu "
               "reliable_duplicated=%lu reliable_out_of_order=%lu reliable_corrupted=%lu "
               "unreliable_sent=%lu unreliable_delivered=%lu unreliable_duplicated=%lu "
               "unreliable_out_of_order=%lu unreliable_corrupted=%lu dropped=%d done=%d "
               "connected=%d elapsed_ms=%.0f\n",
               sent, delivered, sent > delivered ? sent - delivered : 0, duplicated,
               out_of_order, corrupted, expected[UNRELIABLE_CHANNEL],
               tally[UNRELIABLE_CHANNEL].delivered, tally[UNRELIABLE_CHANNEL].duplicated,
               tally[UNRELIABLE_CHANNEL].out_of_order, tally[UNRELIABLE_CHANNEL].corrupted,
               !complete, done, connected,
               connected ? 1000 * (now_s() - first) : 0.0);
        fflush(stdout);
    }
    /* Let the disconnect go out. */
    start = now_s();
    while (now_s() - start < 1.0 && enet_host_service(host, &event, 10) >= 0) {
        if (event.type == ENET_EVENT_TYPE_RECEIVE)
            enet_packet_destroy(event.packet);
    }
    enet_host_destroy(host);
    for (c = 0; c < CHANNELS; ++c)
        free(tally[c].seen);
    return 0;
}

static int run_client(long port, long messages, uint64_t seed, long rate)
{
    ENetAddress address;
    ENetHost *host;
    ENetPeer *peer;
    ENetEvent event;
    uint32_t next[CHANNELS] = { 0, 0, 0, 0 };
    long sent = 0;
    int connected = 0, done_sent = 0, disconnected = 0;
    double start, deadline;
    unsigned c;

    host = enet_host_create(NULL, 1, CHANNELS, 0, 0);
    if (host == NULL)
        return 2;
    host->checksum = enet_crc32;
    if (dtls_dir != NULL)
        dynamic_dtls_client(host, dtls_dir);
    enet_address_set_host(&address, "127.0.0.1");
    address.port = (enet_uint16) port;
    peer = enet_host_connect(host, &address, CHANNELS, (enet_uint32) seed);
    if (peer == NULL)
        return 2;
    start = now_s();
    /* Sending takes messages/rate seconds; then reliable catch-up under
     * loss; the bound only stops a hung run. */
    deadline = start + 60 + (double) messages / (double) rate * 4;
    while (!disconnected && now_s() < deadline) {
        long due = connected ? (long) ((now_s() - start) * (double) rate) : 0;
        while (connected && sent < messages && sent < due) {
            unsigned channel = (unsigned) (sent % RELIABLE_CHANNELS);
            ENetPacket *packet = make_message(seed, channel, next[channel]++, 1);
            if (packet == NULL || enet_peer_send(peer, (enet_uint8) channel, packet) != 0)
                return 2;
            packet = make_message(seed, UNRELIABLE_CHANNEL, next[UNRELIABLE_CHANNEL]++, 0);
            if (packet == NULL || enet_peer_send(peer, UNRELIABLE_CHANNEL, packet) != 0)
                return 2;
            ++sent;
        }
        if (connected && sent == messages && !done_sent) {
            unsigned char done[4 + 4 * CHANNELS];
            memcpy(done, "DONE", 4);
            for (c = 0; c < CHANNELS; ++c)
                put32(done + 4 + 4 * c, next[c]);
            if (enet_peer_send(peer, 0, enet_packet_create(done, sizeof done, ENET_PACKET_FLAG_RELIABLE)) != 0)
                return 2;
            done_sent = 1;
        }
        if (enet_host_service(host, &event, 1) > 0) {
            if (event.type == ENET_EVENT_TYPE_CONNECT) {
                connected = 1;
                start = now_s();
            } else if (event.type == ENET_EVENT_TYPE_DISCONNECT) {
                disconnected = 1;
            } else if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                enet_packet_destroy(event.packet);
            }
        }
    }
    printf("client sent=%ld done_sent=%d disconnected=%d elapsed_ms=%.0f\n", sent, done_sent,
           disconnected, 1000 * (now_s() - start));
    enet_host_destroy(host);
    return 0;
}

int main(int argc, char **argv)
{
    int rc;
    int i;
    if (argc < 2 || enet_initialize() != 0) {
        fprintf(stderr, "usage: soak_peer server|client ...\n");
        return 2;
    }
    for (i = 1; i + 1 < argc; ++i)
        if (strcmp(argv[i], "--dtls") == 0)
            dtls_dir = argv[i + 1];
    if (strcmp(argv[1], "server") == 0) {
        rc = run_server(option(argc, argv, "--seconds", 300));
    } else if (strcmp(argv[1], "client") == 0) {
        long messages = option(argc, argv, "--messages", 10000);
        long rate = option(argc, argv, "--rate", 2000);
        if (messages < 1 || messages >= MAX_MESSAGES || rate < 1) {
            fprintf(stderr, "soak_peer: --messages 1..999999, --rate > 0\n");
            return 2;
        }
        /* The seed travels as the CONNECT's 32-bit data. */
        rc = run_client(option(argc, argv, "--port", 0), messages,
                        (uint64_t) (uint32_t) option(argc, argv, "--seed", 1), rate);
    } else {
        fprintf(stderr, "usage: soak_peer server|client ...\n");
        rc = 2;
    }
    enet_deinitialize();
    return rc;
}
