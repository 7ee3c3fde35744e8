/*
 * ext_disconnect_reason.c: why a peer left (enet/enet_rs.h) from C:
 * enet_rs_peer_get_disconnect_reason during and after the DISCONNECT
 * event, the peer's address and data still readable then, local ends
 * (enet_peer_disconnect_now, enet_peer_reset), a connect nothing answers,
 * and enet_rs_host_set_event_options reporting time-outs as
 * ENET_RS_EVENT_TYPE_DISCONNECT_TIMEOUT from enet_host_service and
 * enet_host_check_events. With ENET_RS_STOCK_PEER naming the stock-built
 * reasons/stock_peer program (CMake sets it), the same against a stock
 * ENet peer in another process: its graceful disconnect with data, and
 * its death (SIGKILL) as a time-out with and without the option.
 */
#define _POSIX_C_SOURCE 200809L /* fork, kill, waitpid, nanosleep */
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#endif

#include <enet/enet.h>
#include <enet/enet_rs.h>

#include "hardening.h"

/* The reason of `peer`, or kind 0 when the call fails. */
static ENetRsDisconnectReason reason_of(ENetPeer *peer, char *detail, size_t length)
{
    ENetRsDisconnectReason reason;
    memset(&reason, 0, sizeof reason);
    reason.size = sizeof reason;
    if (enet_rs_peer_get_disconnect_reason(peer, &reason, detail, length) != 0)
        reason.kind = 0;
    return reason;
}

/* Services `host` (and `other`, if any, with no event) until `host`
 * reports an event of `type` or `ms` pass; whether it did. The event is
 * left in `event`. */
static int wait_event(ENetHost *host, ENetHost *other, int type, enet_uint32 ms, ENetEvent *event)
{
    enet_uint32 start = enet_time_get();
    while (enet_time_get() - start < ms) {
        if (other)
            enet_host_service(other, NULL, 0);
        if (enet_host_service(host, event, 5) > 0) {
            if (event->type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event->packet);
            if ((int) event->type == type)
                return 1;
        }
    }
    return 0;
}

static ENetHost *server_host(void)
{
    ENetAddress address;
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    return enet_host_create(&address, 2, 1, 0, 0);
}

static void refuses_bad_arguments(void)
{
    ENetHost *host = enet_host_create(NULL, 1, 1, 0, 0);
    ENetRsDisconnectReason reason;
    CHECK(host != NULL);
    if (!host)
        return;
    memset(&reason, 0, sizeof reason);
    reason.size = sizeof reason;
    CHECK(enet_rs_peer_get_disconnect_reason(NULL, &reason, NULL, 0) == -1);
    CHECK(enet_rs_peer_get_disconnect_reason(&host->peers[0], NULL, NULL, 0) == -1);
    /* A slot that never connected has no reason. */
    CHECK(enet_rs_peer_get_disconnect_reason(&host->peers[0], &reason, NULL, 0) == -1);
    reason.size = ENET_RS_DISCONNECT_REASON_SIZE_V1 - 1;
    CHECK(enet_rs_peer_get_disconnect_reason(&host->peers[0], &reason, NULL, 0) == -1);
    CHECK(sizeof (ENetRsDisconnectReason) == ENET_RS_DISCONNECT_REASON_SIZE_V1);
    CHECK(enet_rs_host_set_event_options(NULL, 0) == -1);
    CHECK(enet_rs_host_set_event_options(host, 2) == -1);
    CHECK(enet_rs_host_set_event_options(host, ENET_RS_EVENT_OPTION_TIMEOUT_EVENTS) == 0);
    CHECK(enet_rs_host_set_event_options(host, 0) == 0);
    /* zpl-c/enet's name and number. */
    CHECK(ENET_EVENT_TYPE_DISCONNECT_TIMEOUT == 4);
    CHECK(ENET_RS_EVENT_TYPE_DISCONNECT_TIMEOUT == 4);
    enet_host_destroy(host);
}

/* Two of our hosts: a graceful disconnect with data, the peer's address
 * and data at the event, disconnect_now and reset. */
static void ends_between_two_of_ours(void)
{
    static int marker;
    ENetHost *server = server_host(), *client = enet_host_create(NULL, 1, 1, 0, 0);
    ENetPeer *peer, *accepted;
    ENetEvent event;
    ENetRsDisconnectReason reason;
    char detail[64];
    enet_uint16 client_port;
    CHECK(server != NULL && client != NULL);
    if (!server || !client)
        return;
    peer = enet_host_connect(client, &server->address, 1, 0);
    CHECK(peer != NULL);
    CHECK(wait_event(server, client, ENET_EVENT_TYPE_CONNECT, 3000, &event));
    accepted = event.peer;
    accepted->data = &marker;
    client_port = accepted->address.port;
    CHECK(wait_event(client, server, ENET_EVENT_TYPE_CONNECT, 3000, &event));
    CHECK(reason_of(peer, NULL, 0).kind == 0); /* still up */

    enet_peer_disconnect(peer, 0xBEEF);
    CHECK(wait_event(server, client, ENET_EVENT_TYPE_DISCONNECT, 3000, &event));
    CHECK(event.peer == accepted);
    CHECK(event.data == 0xBEEF);
    reason = reason_of(event.peer, detail, sizeof detail);
    CHECK(reason.kind == ENET_RS_DISCONNECT_REMOTE);
    CHECK(reason.data == 0xBEEF);
    CHECK(reason.size == sizeof reason);
    CHECK(strlen(detail) > 0);
    {
        /* A struct from a later header: this version fills its own
         * fields, leaves the rest alone and says how much it filled. */
        struct {
            ENetRsDisconnectReason known;
            enet_uint32 later;
        } longer;
        memset(&longer, 0, sizeof longer);
        longer.known.size = sizeof longer;
        longer.later = 0x12345678;
        CHECK(enet_rs_peer_get_disconnect_reason(event.peer, &longer.known, NULL, 0) == 0);
        CHECK(longer.known.size == ENET_RS_DISCONNECT_REASON_SIZE_V1);
        CHECK(longer.known.kind == ENET_RS_DISCONNECT_REMOTE && longer.known.data == 0xBEEF);
        CHECK(longer.later == 0x12345678);
    }
    /* As stock: the reset at the event keeps the address and the data. */
    CHECK(event.peer->data == &marker);
    CHECK(event.peer->address.port == client_port);
    CHECK(wait_event(client, server, ENET_EVENT_TYPE_DISCONNECT, 3000, &event));
    CHECK(reason_of(peer, NULL, 0).kind == ENET_RS_DISCONNECT_LOCAL);
    /* Still there after the next service call, until the slot connects. */
    enet_host_service(client, &event, 0);
    CHECK(reason_of(peer, NULL, 0).kind == ENET_RS_DISCONNECT_LOCAL);

    peer = enet_host_connect(client, &server->address, 1, 0);
    CHECK(reason_of(peer, NULL, 0).kind == 0); /* a new connection */
    CHECK(wait_event(server, client, ENET_EVENT_TYPE_CONNECT, 3000, &event));
    accepted = event.peer;
    CHECK(wait_event(client, server, ENET_EVENT_TYPE_CONNECT, 3000, &event));
    enet_peer_disconnect_now(peer, 7);
    CHECK(reason_of(peer, NULL, 0).kind == ENET_RS_DISCONNECT_LOCAL);
    CHECK(wait_event(server, client, ENET_EVENT_TYPE_DISCONNECT, 3000, &event));
    reason = reason_of(event.peer, NULL, 0);
    CHECK(reason.kind == ENET_RS_DISCONNECT_REMOTE && reason.data == 7);

    peer = enet_host_connect(client, &server->address, 1, 0);
    CHECK(wait_event(server, client, ENET_EVENT_TYPE_CONNECT, 3000, &event));
    CHECK(wait_event(client, server, ENET_EVENT_TYPE_CONNECT, 3000, &event));
    enet_peer_reset(peer);
    CHECK(reason_of(peer, NULL, 0).kind == ENET_RS_DISCONNECT_LOCAL_RESET);
    enet_host_destroy(client);
    enet_host_destroy(server);
}

/* A connect to a port where a socket never answers: unanswered, as a
 * plain DISCONNECT or, with the option, as the time-out event type. */
static void unanswered_connect(int timeout_events)
{
    ENetAddress silent_address;
    ENetSocket silent = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    ENetHost *client = enet_host_create(NULL, 1, 1, 0, 0);
    ENetPeer *peer;
    ENetEvent event;
    int expected = timeout_events ? ENET_RS_EVENT_TYPE_DISCONNECT_TIMEOUT
                                  : (int) ENET_EVENT_TYPE_DISCONNECT;
    CHECK(silent != ENET_SOCKET_NULL && client != NULL);
    if (silent == ENET_SOCKET_NULL || !client)
        return;
    enet_address_set_host_ip(&silent_address, "127.0.0.1");
    silent_address.port = 0;
    CHECK(enet_socket_bind(silent, &silent_address) == 0);
    CHECK(enet_socket_get_address(silent, &silent_address) == 0);
    enet_address_set_host_ip(&silent_address, "127.0.0.1");
    if (timeout_events)
        CHECK(enet_rs_host_set_event_options(client, ENET_RS_EVENT_OPTION_TIMEOUT_EVENTS) == 0);
    peer = enet_host_connect(client, &silent_address, 1, 0);
    CHECK(peer != NULL);
    if (peer)
        enet_peer_timeout(peer, 0, 200, 400);
    CHECK(wait_event(client, NULL, expected, 5000, &event));
    CHECK(event.peer == peer);
    CHECK(reason_of(peer, NULL, 0).kind == ENET_RS_DISCONNECT_CONNECT_UNANSWERED);
    enet_host_destroy(client);
    enet_socket_destroy(silent);
}

#ifndef _WIN32
static void sleep_ms(long ms)
{
    struct timespec wait;
    wait.tv_sec = ms / 1000;
    wait.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&wait, NULL);
}

/* Runs the stock peer with `port` and its mode arguments; its pid. */
static pid_t spawn_stock(const char *program, enet_uint16 port, const char *mode, const char *data)
{
    char port_text[16];
    pid_t pid;
    snprintf(port_text, sizeof port_text, "%u", (unsigned) port);
    pid = fork();
    if (pid == 0) {
        execl(program, program, port_text, mode, data, (char *) NULL);
        _exit(127);
    }
    return pid;
}

/* Waits up to `ms` for child `pid` to exit; its exit status, or -1 if it
 * did not (it is killed then). */
static int reap(pid_t pid, long ms)
{
    int status;
    long waited;
    for (waited = 0; waited < ms; waited += 10) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
        sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

/* A stock peer disconnects gracefully with data. */
static void stock_peer_disconnects(const char *program)
{
    static int marker;
    ENetHost *server = server_host();
    ENetEvent event;
    ENetRsDisconnectReason reason;
    enet_uint16 port;
    pid_t pid;
    CHECK(server != NULL);
    if (!server)
        return;
    pid = spawn_stock(program, server->address.port, "disconnect", "0x5EED");
    CHECK(pid > 0);
    if (!wait_event(server, NULL, ENET_EVENT_TYPE_CONNECT, 5000, &event)) {
        CHECK(!"the stock peer connected");
        reap(pid, 0);
        enet_host_destroy(server);
        return;
    }
    event.peer->data = &marker;
    port = event.peer->address.port;
    CHECK(wait_event(server, NULL, ENET_EVENT_TYPE_DISCONNECT, 5000, &event));
    CHECK(event.data == 0x5EED);
    reason = reason_of(event.peer, NULL, 0);
    CHECK(reason.kind == ENET_RS_DISCONNECT_REMOTE);
    CHECK(reason.data == 0x5EED);
    CHECK(event.peer->data == &marker);
    CHECK(event.peer->address.port == port);
    /* The stock peer's own DISCONNECT needs our acknowledgement. */
    enet_host_flush(server);
    CHECK(reap(pid, 5000) == 0);
    enet_host_destroy(server);
}

/* A stock peer is killed: a time-out, as a DISCONNECT from
 * enet_host_service, or, with the option, as the time-out event type from
 * enet_host_check_events (the time-out found by a service call without an
 * event, and queued). */
static void stock_peer_killed(const char *program, int timeout_events)
{
    ENetHost *server = server_host();
    ENetEvent event;
    ENetPeer *peer;
    enet_uint32 start;
    pid_t pid;
    CHECK(server != NULL);
    if (!server)
        return;
    if (timeout_events)
        CHECK(enet_rs_host_set_event_options(server, ENET_RS_EVENT_OPTION_TIMEOUT_EVENTS) == 0);
    pid = spawn_stock(program, server->address.port, "hang", NULL);
    CHECK(pid > 0);
    if (!wait_event(server, NULL, ENET_EVENT_TYPE_CONNECT, 5000, &event)) {
        CHECK(!"the stock peer connected");
        reap(pid, 0);
        enet_host_destroy(server);
        return;
    }
    peer = event.peer;
    enet_peer_timeout(peer, 0, 300, 600);
    CHECK(kill(pid, SIGKILL) == 0);
    CHECK(reap(pid, 2000) == 128);
    if (!timeout_events) {
        CHECK(wait_event(server, NULL, ENET_EVENT_TYPE_DISCONNECT, 5000, &event));
        CHECK(event.peer == peer);
    } else {
        start = enet_time_get();
        while (peer->state != ENET_PEER_STATE_ZOMBIE && enet_time_get() - start < 5000)
            enet_host_service(server, NULL, 5);
        CHECK(peer->state == ENET_PEER_STATE_ZOMBIE);
        CHECK(enet_host_check_events(server, &event) == 1);
        CHECK((int) event.type == ENET_EVENT_TYPE_DISCONNECT_TIMEOUT);
        CHECK(event.peer == peer);
        CHECK(event.data == 0);
    }
    CHECK(reason_of(peer, NULL, 0).kind == ENET_RS_DISCONNECT_TIMEOUT);
    enet_host_destroy(server);
}
#endif

int main(void)
{
    const char *stock = getenv("ENET_RS_STOCK_PEER");
    if (enet_initialize() != 0)
        return 1;
    refuses_bad_arguments();
    ends_between_two_of_ours();
    unanswered_connect(0);
    unanswered_connect(1);
#ifndef _WIN32
    if (stock && *stock) {
        stock_peer_disconnects(stock);
        stock_peer_killed(stock, 0);
        stock_peer_killed(stock, 1);
    } else {
        printf("ENET_RS_STOCK_PEER unset: the stock-peer cases are skipped\n");
    }
#else
    (void) stock;
#endif
    enet_deinitialize();
    if (failures) {
        printf("%d failure(s)\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
