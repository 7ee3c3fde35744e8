/*
 * Cost per message, for instruction counting under callgrind (not a test).
 *
 *   msgcost reliable|unreliable|bulk|idle COUNT [ipv6]
 *
 * One process, a server and a client host on 127.0.0.1, serviced in turn
 * with timeout 0. With "ipv6" the hosts are on ::1 instead, made with
 * enet-rs's enet_rs_host_create and enet_rs_host_connect, looked up at run
 * time (on stock ENet, which has no IPv6, the program stops with a
 * message). Each round the client queues BATCH messages (64-byte
 * reliable or unreliable, or 64 KiB reliable for "bulk"), then both hosts
 * are serviced until the round's messages have arrived; the server checks
 * each one (order for reliable, size and tag always). "idle" sends
 * nothing: once connected, the server is serviced COUNT times with
 * nothing due (the fixed clock brings no ping), which is what a game
 * loop's service call costs between messages.
 *
 * The clock is fixed: this program defines gettimeofday and clock_gettime
 * itself, so every library it is linked with at run time (stock ENet reads
 * gettimeofday, ours clock_gettime) sees a virtual time that only moves
 * when a round ends (+1 ms). Retransmissions, pings and throttle passes
 * therefore happen at the same points on every run, and callgrind counts
 * are repeatable. Run it twice with two COUNTs and divide the difference
 * of the instruction counts by the difference of the counts: the set-up
 * cancels out (bench/callgrind.sh does this, for stock and ours).
 *
 * Prints "delivered <n>" on stdout; exit 0 when all COUNT arrived intact
 * (for "idle", "serviced <n>" once every call returned 0).
 */
#define _GNU_SOURCE

#define BENCH_PROGRAM "msgcost"
#include "bench_common.h"

#include <dlfcn.h>
/* enet-rs's own header, for its IPv6 types; built with -idirafter, so
 * <enet/enet.h> stays the stock one. */
#include <enet/enet_rs.h>

#define SMALL_LEN 64u
#define BULK_LEN (64u * 1024u)
#define BATCH 16u
#define STUCK_ROUNDS 100000u

/* Virtual milliseconds start just below the 32-bit wrap of ENet's clock,
 * so wrapping arithmetic is exercised too. */
#define VIRTUAL_CLOCK_START_MS 0xFFFFF000ull
#include "virtual_clock.h"

/* The function `name` of the libenet this process runs on, or a stop with
 * a message when it has none. */
static void *enet_rs_function(const char *name)
{
    void *function = dlsym(RTLD_DEFAULT, name);
    if (function == NULL)
        die("the ipv6 mode needs enet-rs (stock ENet has no IPv6)");
    return function;
}

/* A server on [::1] and a client host, and the client's peer on its way to
 * the server, made through enet-rs's IPv6 calls. */
static ENetPeer *connect_on_ipv6_loopback(ENetHost **server, ENetHost **client)
{
    ENetHost *(*host_create)(const ENetRsHostOptions *);
    int (*set_host_ip)(ENetRsAddress *, const char *);
    int (*get_address)(ENetHost *, ENetRsAddress *);
    ENetPeer *(*host_connect)(ENetHost *, const ENetRsAddress *, size_t, enet_uint32);
    ENetRsAddress address;
    ENetRsHostOptions options;
    void *function;

    /* POSIX lets dlsym's result be copied into a function pointer; ISO C
     * has no cast for it. */
    function = enet_rs_function("enet_rs_host_create");
    memcpy(&host_create, &function, sizeof function);
    function = enet_rs_function("enet_rs_address_set_host_ip");
    memcpy(&set_host_ip, &function, sizeof function);
    function = enet_rs_function("enet_rs_host_get_address");
    memcpy(&get_address, &function, sizeof function);
    function = enet_rs_function("enet_rs_host_connect");
    memcpy(&host_connect, &function, sizeof function);

    memset(&address, 0, sizeof address);
    if (set_host_ip(&address, "::1") != 0)
        die("enet_rs_address_set_host_ip failed");
    memset(&options, 0, sizeof options);
    options.address = &address;
    options.peerCount = 1;
    options.channelLimit = 1;
    *server = host_create(&options);
    *client = host_create(&options);
    if (*server == NULL || *client == NULL || get_address(*server, &address) != 0)
        die("enet_rs_host_create on ::1 failed");
    return host_connect(*client, &address, 1, 0);
}

/* The idle mode: a few rounds of both hosts first, so that nothing the
 * handshake left (an acknowledgement still to send) remains, then COUNT
 * calls on the server with nothing due; any event is a failure. */
static void serve_idle(ENetHost *client, ENetHost *server, enet_uint32 count)
{
    ENetEvent ev;
    for (int round = 0; round < 4; ++round)
        if (enet_host_service(client, &ev, 0) != 0 || enet_host_service(server, &ev, 0) != 0)
            die("an event on an idle connection");
    for (enet_uint32 call = 0; call < count; ++call)
        if (enet_host_service(server, &ev, 0) != 0)
            die("an event on an idle connection");
}

/* Drops the connection and both hosts, and ENet. */
static void tear_down(ENetPeer *peer, ENetHost *client, ENetHost *server)
{
    enet_peer_disconnect_now(peer, 0);
    enet_host_destroy(client);
    enet_host_destroy(server);
    enet_deinitialize();
}

int main(int argc, char **argv)
{
    ENetAddress bind_address, server_address;
    ENetHost *server, *client;
    ENetPeer *peer;
    ENetEvent ev;
    enet_uint32 flags = 0, length = 0, count, sent = 0, received = 0, stuck = 0;
    int connected = 0, reliable, idle = 0;

    if (argc != 3 && !(argc == 4 && strcmp(argv[3], "ipv6") == 0))
        die("usage: msgcost reliable|unreliable|bulk|idle COUNT [ipv6]");
    if (strcmp(argv[1], "reliable") == 0) {
        flags = ENET_PACKET_FLAG_RELIABLE;
        length = SMALL_LEN;
    } else if (strcmp(argv[1], "unreliable") == 0) {
        flags = 0;
        length = SMALL_LEN;
    } else if (strcmp(argv[1], "bulk") == 0) {
        flags = ENET_PACKET_FLAG_RELIABLE;
        length = BULK_LEN;
    } else if (strcmp(argv[1], "idle") == 0) {
        idle = 1;
    } else {
        die("mode must be reliable, unreliable, bulk or idle");
    }
    reliable = (flags & ENET_PACKET_FLAG_RELIABLE) != 0;
    count = (enet_uint32) strtoul(argv[2], NULL, 10);
    if (count == 0)
        die("COUNT must be positive");
    if (enet_initialize() != 0)
        die("enet_initialize failed");

    if (argc == 4) {
        peer = connect_on_ipv6_loopback(&server, &client);
    } else {
        bind_address = loopback(0);
        server = enet_host_create(&bind_address, 1, 1, 0, 0);
        client = enet_host_create(NULL, 1, 1, 0, 0);
        if (server == NULL || client == NULL)
            die("enet_host_create failed");
        server_address = loopback(server->address.port);
        peer = enet_host_connect(client, &server_address, 1, 0);
    }
    if (peer == NULL)
        die("enet_host_connect failed");
    while (connected < 2) {
        if (++stuck > STUCK_ROUNDS)
            die("no connection");
        if (enet_host_service(client, &ev, 0) > 0 && ev.type == ENET_EVENT_TYPE_CONNECT)
            ++connected;
        if (enet_host_service(server, &ev, 0) > 0 && ev.type == ENET_EVENT_TYPE_CONNECT)
            ++connected;
        ++virtual_ms;
    }

    if (idle) {
        serve_idle(client, server, count);
        printf("serviced %u\n", count);
        tear_down(peer, client, server);
        return 0;
    }

    while (received < count) {
        enet_uint32 goal;
        while (sent < count && sent - received < BATCH) {
            ENetPacket *p = enet_packet_create(NULL, length, flags);
            if (p == NULL)
                die("enet_packet_create failed");
            memset(p->data, 0x5A, 8);
            put32(p->data, sent);
            if (enet_peer_send(peer, 0, p) < 0)
                die("enet_peer_send failed");
            ++sent;
        }
        goal = sent;
        stuck = 0;
        /* Unreliable messages lost on loopback (none expected) count as
         * delivered once a round passes without them. */
        while (received < goal) {
            int progressed = 0;
            while (enet_host_service(client, &ev, 0) > 0)
                if (ev.type != ENET_EVENT_TYPE_NONE)
                    die("unexpected client event");
            while (enet_host_service(server, &ev, 0) > 0) {
                enet_uint32 tag;
                if (ev.type != ENET_EVENT_TYPE_RECEIVE)
                    die("unexpected server event");
                tag = get32(ev.packet->data);
                if (ev.packet->dataLength != length || (reliable && tag != received))
                    die("message out of order or damaged");
                enet_packet_destroy(ev.packet);
                ++received;
                progressed = 1;
            }
            ++virtual_ms;
            if (!progressed && ++stuck > (reliable ? STUCK_ROUNDS : 50u)) {
                if (reliable)
                    die("reliable messages stuck");
                received = goal;
            }
        }
    }
    /* Let the last acknowledgements reach the client. */
    while (enet_host_service(client, &ev, 0) > 0)
        ;
    printf("delivered %u\n", received);
    tear_down(peer, client, server);
    return 0;
}
