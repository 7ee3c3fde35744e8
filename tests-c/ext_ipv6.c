/*
 * ext_ipv6.c: the IPv6 extensions of enet/enet_rs.h from C. One
 * dual-stack server on [::] takes an IPv6 client on ::1 and an IPv4
 * client (a stock-made host) on 127.0.0.1 at once; each side sees the
 * other's whole address, old fields keep stock's meaning for the IPv4 peer
 * and the documented placeholder for the IPv6 one, and reliable packets go
 * both ways. Also: address text and conversions, families a host cannot
 * reach, an IPv6-only host, and hosts sharing a port.
 */
#define _POSIX_C_SOURCE 200112L /* setenv, unsetenv */
#include <stdlib.h>
#include <string.h>

#include <enet/enet.h>
#include <enet/enet_rs.h>

#include "hardening.h"

static ENetRsAddress ip(const char *text, enet_uint16 port)
{
    ENetRsAddress address;
    memset(&address, 0, sizeof address);
    address.port = port;
    CHECK(enet_rs_address_set_host_ip(&address, text) == 0);
    return address;
}

static ENetHost *create(const ENetRsAddress *address, size_t peers, enet_uint32 flags)
{
    ENetRsHostOptions options;
    memset(&options, 0, sizeof options);
    options.address = address;
    options.peerCount = peers;
    options.channelLimit = 2;
    options.flags = flags;
    return enet_rs_host_create(&options);
}

static ENetHost *hosts[3];
static int received[3];
static ENetPeer *server_peers[2];

/* Services every host until `done` says so or about 5 s pass. */
static int service_until(int (*done)(void))
{
    int round, i;
    for (round = 0; round < 5000; ++round) {
        for (i = 0; i < 3; ++i) {
            ENetEvent event;
            while (enet_host_service(hosts[i], &event, i == 0 ? 1 : 0) > 0) {
                if (event.type == ENET_EVENT_TYPE_CONNECT && i == 0)
                    server_peers[event.data] = event.peer;
                if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                    ++received[i];
                    enet_packet_destroy(event.packet);
                }
            }
        }
        if (done())
            return 1;
    }
    return 0;
}

static int both_connected(void)
{
    return server_peers[0] != NULL && server_peers[1] != NULL
           && hosts[1]->peers[0].state == ENET_PEER_STATE_CONNECTED
           && hosts[2]->peers[0].state == ENET_PEER_STATE_CONNECTED;
}

static int all_received(void)
{
    return received[0] == 2 * 50 && received[1] == 50 && received[2] == 50;
}

static void send_reliable(ENetPeer *peer, int tag)
{
    char bytes[600];
    memset(bytes, tag, sizeof bytes);
    CHECK(enet_peer_send(peer, 1, enet_packet_create(bytes, sizeof bytes, ENET_PACKET_FLAG_RELIABLE))
          == 0);
}

static void addresses_and_text(void)
{
    ENetRsAddress address;
    ENetAddress old;
    char text[64];

    CHECK(enet_rs_version() == ENET_RS_VERSION && ENET_RS_VERSION >= 2);
    address = ip("2001:db8::7", 9);
    CHECK(address.family == ENET_RS_ADDRESS_IPV6 && address.port == 9);
    CHECK(enet_rs_address_get_host_ip(&address, text, sizeof text) == 0);
    CHECK(strcmp(text, "2001:db8::7") == 0);
    CHECK(enet_rs_address_get_host_ip(&address, text, 5) == -1);
    CHECK(enet_rs_address_to_enet(&old, &address) == -1);
    address = ip("fe80::1%3", 9);
    CHECK(address.scopeId == 3);
    CHECK(enet_rs_address_get_host_ip(&address, text, sizeof text) == 0);
    CHECK(strcmp(text, "fe80::1%3") == 0);

    address = ip("10.1.2.3", 80);
    CHECK(address.family == ENET_RS_ADDRESS_IPV4);
    CHECK(enet_rs_address_to_enet(&old, &address) == 0);
    CHECK(old.port == 80);
    CHECK(enet_address_get_host_ip(&old, text, sizeof text) == 0 && strcmp(text, "10.1.2.3") == 0);
    CHECK(enet_rs_address_from_enet(&address, &old) == 0);
    CHECK(address.family == ENET_RS_ADDRESS_IPV4 && address.host[0] == 10 && address.host[3] == 3);
    /* An IPv4-mapped IPv6 address is an IPv4 one to ENetAddress. */
    address = ip("::ffff:10.1.2.3", 80);
    CHECK(address.family == ENET_RS_ADDRESS_IPV6);
    CHECK(enet_rs_address_to_enet(&old, &address) == 0);
    CHECK(enet_address_get_host_ip(&old, text, sizeof text) == 0 && strcmp(text, "10.1.2.3") == 0);

    CHECK(enet_rs_address_set_host_ip(&address, "not an address") == -1);
    CHECK(enet_rs_address_set_host_ip(&address, "10.0.0.1%2") == -1);
    CHECK(enet_rs_address_set_host_ip(&address, NULL) == -1);
    CHECK(enet_rs_address_set_host(&address, "localhost") == 0);
    CHECK(enet_rs_address_get_host_ip(&address, text, sizeof text) == 0);
    CHECK(strcmp(text, "127.0.0.1") == 0 || strcmp(text, "::1") == 0);
    address.family = 5;
    CHECK(enet_rs_address_get_host_ip(&address, text, sizeof text) == -1);
}

static void families_a_host_cannot_reach(void)
{
    ENetRsAddress v6 = ip("::1", 9), v4 = ip("127.0.0.1", 9), any = ip("::", 0);
    ENetHost *ipv4_host = enet_host_create(NULL, 1, 1, 0, 0);
    ENetHost *ipv6_only = create(&any, 1, ENET_RS_HOST_IPV6_ONLY);
    ENetRsHostOptions options;

    CHECK(ipv4_host != NULL && ipv6_only != NULL);
    CHECK(enet_rs_host_connect(ipv4_host, &v6, 1, 0) == NULL);
    CHECK(enet_rs_host_connect(ipv6_only, &v4, 1, 0) == NULL);
    CHECK(enet_rs_host_connect(ipv6_only, &v6, 1, 0) != NULL);
    enet_host_destroy(ipv4_host);
    enet_host_destroy(ipv6_only);

    memset(&options, 0, sizeof options);
    options.peerCount = 4096;
    CHECK(enet_rs_host_create(&options) == NULL);
    options.peerCount = 1;
    options.flags = 0x80;
    CHECK(enet_rs_host_create(&options) == NULL);
    CHECK(enet_rs_host_create(NULL) == NULL);
    v4.family = 0;
    options.flags = 0;
    options.address = &v4;
    CHECK(enet_rs_host_create(&options) == NULL);
}

#ifdef _WIN32
/* Windows has no SO_REUSEPORT: asking to share a port is refused. */
static void hosts_sharing_a_port(void)
{
    ENetRsAddress address = ip("127.0.0.1", 0);
    CHECK(create(&address, 1, ENET_RS_HOST_REUSE_PORT) == NULL);
}
#else
static void hosts_sharing_a_port(void)
{
    ENetRsAddress address = ip("127.0.0.1", 0), bound;
    ENetHost *first = create(&address, 1, ENET_RS_HOST_REUSE_PORT), *second, *alone;
    CHECK(first != NULL);
    CHECK(enet_rs_host_get_address(first, &bound) == 0);
    CHECK(bound.port != 0 && first->address.port == bound.port);
    second = create(&bound, 1, ENET_RS_HOST_REUSE_PORT);
    CHECK(second != NULL);
    alone = create(&bound, 1, 0);
    CHECK(alone == NULL);
    enet_host_destroy(second);
    enet_host_destroy(first);
}
#endif

/* ENET_RS_DUAL_STACK=1: enet_host_create on the IPv4 any-address makes a
 * dual-stack host, which an IPv6 client reaches; a host bound to a given
 * IPv4 address stays IPv4. */
static void dual_stack_by_environment(void)
{
    ENetAddress any4, loopback4;
    ENetRsAddress bound, loopback6 = ip("::1", 0);
    ENetHost *server, *pinned, *client;
    ENetEvent event;
    int round, connected = 0;

    memset(&any4, 0, sizeof any4);
    setenv("ENET_RS_DUAL_STACK", "1", 1);
    server = enet_host_create(&any4, 1, 1, 0, 0);
    enet_address_set_host_ip(&loopback4, "127.0.0.1");
    loopback4.port = 0;
    pinned = enet_host_create(&loopback4, 1, 1, 0, 0);
    unsetenv("ENET_RS_DUAL_STACK");
    CHECK(server != NULL && pinned != NULL);
    CHECK(enet_rs_host_get_address(server, &bound) == 0);
    CHECK(bound.family == ENET_RS_ADDRESS_IPV6);
    CHECK(server->address.host == ENET_HOST_ANY && server->address.port == bound.port);
    CHECK(enet_rs_host_get_address(pinned, &bound) == 0 && bound.family == ENET_RS_ADDRESS_IPV4);

    client = create(&loopback6, 1, 0);
    CHECK(client != NULL);
    loopback6.port = server->address.port;
    CHECK(enet_rs_host_connect(client, &loopback6, 1, 0) != NULL);
    for (round = 0; round < 5000 && connected < 2; ++round) {
        while (enet_host_service(server, &event, 1) > 0)
            connected += event.type == ENET_EVENT_TYPE_CONNECT;
        while (enet_host_service(client, &event, 0) > 0)
            connected += event.type == ENET_EVENT_TYPE_CONNECT;
    }
    CHECK(connected == 2);
    enet_host_destroy(client);
    enet_host_destroy(pinned);
    enet_host_destroy(server);
}

int main(void)
{
    ENetRsAddress any = ip("::", 0), bound, seen, loopback6;
    ENetAddress loopback4;
    char text[64];
    int i;

    CHECK(enet_initialize() == 0);
    addresses_and_text();
    families_a_host_cannot_reach();
    hosts_sharing_a_port();
    dual_stack_by_environment();

    /* A dual-stack server, an IPv6 client and an IPv4 (stock-made) one. */
    hosts[0] = create(&any, 4, 0);
    CHECK(hosts[0] != NULL);
    CHECK(enet_rs_host_get_address(hosts[0], &bound) == 0);
    CHECK(bound.family == ENET_RS_ADDRESS_IPV6 && bound.port != 0);
    CHECK(hosts[0]->address.host == ENET_HOST_ANY && hosts[0]->address.port == bound.port);
    loopback6 = ip("::1", 0);
    hosts[1] = create(&loopback6, 1, 0);
    hosts[2] = enet_host_create(NULL, 1, 2, 0, 0);
    CHECK(hosts[1] != NULL && hosts[2] != NULL);

    loopback6.port = bound.port;
    CHECK(enet_rs_host_connect(hosts[1], &loopback6, 2, 0) == &hosts[1]->peers[0]);
    enet_address_set_host_ip(&loopback4, "127.0.0.1");
    loopback4.port = bound.port;
    CHECK(enet_host_connect(hosts[2], &loopback4, 2, 1) == &hosts[2]->peers[0]);
    CHECK(service_until(both_connected));

    /* The IPv6 peer: its whole address, and the placeholder in old fields. */
    CHECK(enet_rs_peer_get_address(server_peers[0], &seen) == 0);
    CHECK(seen.family == ENET_RS_ADDRESS_IPV6);
    CHECK(enet_rs_address_get_host_ip(&seen, text, sizeof text) == 0 && strcmp(text, "::1") == 0);
    CHECK(enet_rs_host_get_address(hosts[1], &bound) == 0);
    CHECK(seen.port == bound.port);
    CHECK(server_peers[0]->address.host == ENET_RS_IPV6_PLACEHOLDER_HOST);
    CHECK(server_peers[0]->address.port == seen.port);
    CHECK(enet_address_get_host_ip(&server_peers[0]->address, text, sizeof text) == 0);
    CHECK(strcmp(text, "0.0.0.0") == 0);

    /* The IPv4 peer: peer->address exactly as stock, not a mapped one. */
    CHECK(enet_rs_peer_get_address(server_peers[1], &seen) == 0);
    CHECK(seen.family == ENET_RS_ADDRESS_IPV4);
    CHECK(enet_address_get_host_ip(&server_peers[1]->address, text, sizeof text) == 0);
    CHECK(strcmp(text, "127.0.0.1") == 0);
    CHECK(server_peers[1]->address.port == seen.port && seen.port != 0);
    CHECK(enet_rs_peer_get_address(&hosts[2]->peers[0], &seen) == 0);
    CHECK(seen.family == ENET_RS_ADDRESS_IPV4 && seen.port == hosts[0]->address.port);

    /* Reliable packets both ways on both. */
    for (i = 0; i < 50; ++i) {
        send_reliable(&hosts[1]->peers[0], 6);
        send_reliable(&hosts[2]->peers[0], 4);
        send_reliable(server_peers[0], 60);
        send_reliable(server_peers[1], 40);
    }
    CHECK(service_until(all_received));

    CHECK(enet_rs_peer_get_address(NULL, &seen) == -1);
    CHECK(enet_rs_peer_get_address(server_peers[0], NULL) == -1);
    CHECK(enet_rs_host_get_address(NULL, &seen) == -1);
    for (i = 0; i < 3; ++i)
        enet_host_destroy(hosts[i]);
    enet_deinitialize();
    if (failures)
        printf("%d checks failed\n", failures);
    return failures != 0;
}
