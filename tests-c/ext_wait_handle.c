/*
 * ext_wait_handle.c: a host waited on from the program's own loop
 * (enet_rs_host_get_wait_handle, enet_rs_host_next_deadline_ms), as an
 * event loop would: poll(2) on the handle for as long as the host's next
 * deadline, then enet_host_service(host, &event, 0).
 *
 * 1. An idle host wakes for a datagram within 1 ms of its sending.
 *    A datagram the network conditioner holds: the deadline says when
 *    it is due, and the loop hands it to the engine then.
 * 2. A reliable send to a peer that does not acknowledge: the loop wakes
 *    at the deadline it was given, and the resend happens then, one
 *    retransmission timeout after the send.
 * 3. A thread-safe sender's request from another thread wakes the loop
 *    within 1 ms, and the packet reaches the peer.
 * 4. Idle, the loop wakes no more often than enet_host_service(host, &e,
 *    1000) does: its voluntary context switches over 2 s, without peers
 *    and with a connected peer, are compared (CPU time is printed).
 *
 * Linux only (RUSAGE_THREAD); the handle itself also exists on macOS and
 * the BSDs (a kqueue) and Windows (an event).
 */
#define _GNU_SOURCE
#ifndef __linux__
#include <stdio.h>

int main(void)
{
    printf("ext_wait_handle: Linux only, skipped\n");
    return 0;
}
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <enet/enet.h>
#include <enet/enet_rs.h>

#include "hardening.h"

/* How late a wake may come. 1 ms as the issue asks; under valgrind, which
   runs every thread through one lock and translates code as it first
   runs, a wake takes longer than the library does, so it gets 25 ms. */
static double wake_bound_ms = 1.0;

/* A late wake that only a loaded machine explains: another process held
   the core for a few milliseconds. Single wakes are held to it; the
   median of many to `wake_bound_ms`. */
#define SCHEDULER_SLACK_MS 50.0

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long) (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int under_valgrind(void)
{
    const char *preload = getenv("LD_PRELOAD");
    return preload != NULL && (strstr(preload, "vgpreload") || strstr(preload, "valgrind"));
}

/* One wait of the loop: up to the host's next deadline, at most `cap_ms`.
   1 when the handle was ready (or work was due at once), 0 on time. */
static int wait_on(ENetHost *host, ENetRsWaitHandle handle, uint32_t cap_ms, uint32_t *deadline)
{
    struct pollfd watched = {handle, POLLIN, 0};
    uint32_t ms = enet_rs_host_next_deadline_ms(host);
    if (deadline != NULL)
        *deadline = ms;
    if (ms == 0)
        return 1;
    return poll(&watched, 1, (int) (ms < cap_ms ? ms : cap_ms)) > 0;
}

/* Services the host without waiting until it has no more events; how
   many it had. RECEIVE packets are destroyed; `received` counts them. */
static int drain(ENetHost *host, int *received)
{
    ENetEvent event;
    int events = 0;
    while (enet_host_service(host, &event, 0) > 0) {
        ++events;
        if (event.type == ENET_EVENT_TYPE_RECEIVE) {
            if (received != NULL)
                ++*received;
            enet_packet_destroy(event.packet);
        }
    }
    return events;
}

static ENetHost *loopback_host(void)
{
    ENetAddress address;
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    return enet_host_create(&address, 4, 2, 0, 0);
}

/* Connects `client` to `server`; the client's peer, NULL on failure. */
static ENetPeer *connect_pair(ENetHost *server, ENetHost *client, ENetPeer **server_side)
{
    ENetAddress address;
    ENetEvent event;
    ENetPeer *peer;
    int client_up = 0, server_up = 0, round;
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = server->address.port;
    peer = enet_host_connect(client, &address, 2, 0);
    for (round = 0; round < 400 && !(client_up && server_up); ++round) {
        while (enet_host_service(client, &event, 1) > 0)
            client_up |= event.type == ENET_EVENT_TYPE_CONNECT;
        while (enet_host_service(server, &event, 1) > 0)
            if (event.type == ENET_EVENT_TYPE_CONNECT) {
                server_up = 1;
                *server_side = event.peer;
            }
    }
    return client_up && server_up ? peer : NULL;
}

/* ---- 1: a datagram ---- */

struct datagram_shot {
    uint16_t port;
    double sent_at;
};

static void *send_datagram_later(void *argument)
{
    struct datagram_shot *shot = argument;
    struct sockaddr_in to;
    int sock = socket(AF_INET, SOCK_DGRAM, 0);
    memset(&to, 0, sizeof to);
    to.sin_family = AF_INET;
    to.sin_port = htons(shot->port);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sleep_ms(100);
    shot->sent_at = now_ms();
    sendto(sock, "not enet", 8, 0, (struct sockaddr *) &to, sizeof to);
    close(sock);
    return NULL;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static int test_datagram_wakes(void)
{
    enum { ROUNDS = 9 };
    double delays[ROUNDS];
    int round;
    ENetHost *host = loopback_host();
    ENetRsWaitHandle handle = enet_rs_host_get_wait_handle(host);
    CHECK(handle != ENET_RS_NO_WAIT_HANDLE);
    CHECK(enet_rs_host_get_wait_handle(host) == handle);
    /* Nothing is timed on a host without peers. */
    CHECK(enet_rs_host_next_deadline_ms(host) == ENET_RS_NO_DEADLINE);
    for (round = 0; round < ROUNDS; ++round) {
        struct datagram_shot shot = {host->address.port, 0};
        pthread_t thread;
        double woke;
        int ready;
        pthread_create(&thread, NULL, send_datagram_later, &shot);
        ready = wait_on(host, handle, 5000, NULL);
        woke = now_ms();
        pthread_join(thread, NULL);
        CHECK(ready == 1);
        delays[round] = woke - shot.sent_at;
        drain(host, NULL);
        CHECK(host->totalReceivedPackets == (enet_uint32) round + 1);
    }
    qsort(delays, ROUNDS, sizeof delays[0], compare_doubles);
    printf("datagram to wake: median %.3f ms, max %.3f ms over %d rounds\n",
           delays[ROUNDS / 2], delays[ROUNDS - 1], ROUNDS);
    enet_host_destroy(host);
    return delays[ROUNDS / 2] < wake_bound_ms;
}

/* ---- 1b: a datagram the network conditioner holds ---- */

/* The conditioner takes a datagram off the socket and holds it: the
   socket polls empty, and the deadline says when it is due. */
static void test_conditioner_deadline(void)
{
    enum { LAG_MS = 30 };
    ENetHost *host = loopback_host();
    ENetRsWaitHandle handle = enet_rs_host_get_wait_handle(host);
    struct datagram_shot shot = {host->address.port, 0};
    pthread_t thread;
    uint32_t deadline;
    double woke;
    CHECK(enet_rs_host_set_netsim(host, "in.lag=30ms") == 0);
    pthread_create(&thread, NULL, send_datagram_later, &shot);
    CHECK(wait_on(host, handle, 5000, NULL) == 1);
    pthread_join(thread, NULL);
    drain(host, NULL);
    CHECK(host->totalReceivedPackets == 0);
    deadline = enet_rs_host_next_deadline_ms(host);
    /* Due within the lag; already due only if the lag has passed (a slow
       run: valgrind on a busy machine). */
    CHECK(deadline <= LAG_MS);
    CHECK(deadline > 0 || now_ms() - shot.sent_at >= LAG_MS - 1.0);
    while (host->totalReceivedPackets == 0 && now_ms() - shot.sent_at < 1000) {
        wait_on(host, handle, 1000, NULL);
        drain(host, NULL);
    }
    woke = now_ms();
    CHECK(host->totalReceivedPackets == 1);
    printf("conditioner: a datagram held %d ms reached the engine after %.1f ms\n", LAG_MS,
           woke - shot.sent_at);
    CHECK(woke - shot.sent_at >= LAG_MS - 1.0);
    CHECK(woke - shot.sent_at <= LAG_MS + SCHEDULER_SLACK_MS);
    enet_host_destroy(host);
}

/* ---- 2: a retransmission ---- */

static int test_retransmission_on_time(void)
{
    enum { RESENDS = 3, MOST_WAKES = 40 };
    ENetHost *server = loopback_host(), *client = loopback_host();
    ENetPeer *server_side = NULL, *peer = connect_pair(server, client, &server_side);
    ENetRsWaitHandle handle = enet_rs_host_get_wait_handle(client);
    ENetPacket *packet;
    enet_uint32 lost_before, sent_before, timeout;
    double sent_at, first_resend = 0, lateness[MOST_WAKES];
    int wakes;
    int on_time;
    CHECK(peer != NULL);
    if (peer == NULL)
        return 1;
    /* The server is not serviced from here on: nothing is acknowledged. */
    drain(client, NULL);
    timeout = peer->roundTripTime + 4 * peer->roundTripTimeVariance;
    packet = enet_packet_create("resend me", 9, ENET_PACKET_FLAG_RELIABLE);
    CHECK(enet_peer_send(peer, 0, packet) == 0);
    /* Queued since the last pass: work now. */
    CHECK(enet_rs_host_next_deadline_ms(client) == 0);
    sent_before = client->totalSentPackets;
    sent_at = now_ms();
    drain(client, NULL);
    CHECK(client->totalSentPackets == sent_before + 1);
    lost_before = peer->packetsLost;
    for (wakes = 0; wakes < MOST_WAKES && peer->packetsLost < lost_before + RESENDS; ++wakes) {
        uint32_t deadline;
        double asked_at = now_ms(), woke;
        int ready = wait_on(client, handle, 5000, &deadline);
        woke = now_ms();
        /* Nothing arrives: only the deadline ends the wait. */
        CHECK(ready == 0 || deadline == 0);
        CHECK(deadline != ENET_RS_NO_DEADLINE);
        lateness[wakes] = woke - asked_at - (double) deadline;
        CHECK(lateness[wakes] >= -0.1);
        CHECK(lateness[wakes] <= SCHEDULER_SLACK_MS);
        drain(client, NULL);
        if (first_resend == 0 && peer->packetsLost != lost_before)
            first_resend = now_ms();
    }
    /* At least the packet's resends: a ping the client had in flight
       when the server stopped answering (a slow run's set-up can outlast
       the ping interval) is resent as well. */
    CHECK(peer->packetsLost >= lost_before + RESENDS);
    CHECK(client->totalSentPackets >= sent_before + 1 + RESENDS);
    qsort(lateness, (size_t) wakes, sizeof lateness[0], compare_doubles);
    printf("retransmission: timeout %u ms, first resend after %.1f ms; %d wakes for %d "
           "resends, late by median %.3f ms, max %.3f ms\n",
           (unsigned) timeout, first_resend - sent_at, wakes, RESENDS, lateness[wakes / 2],
           lateness[wakes - 1]);
    /* Poll's timeout is whole milliseconds, as the deadline: up to 1 ms
       of rounding beside the wake itself. */
    on_time = lateness[wakes / 2] <= 1.0 + wake_bound_ms;
    CHECK(first_resend - sent_at >= (double) timeout - 1.0);
    CHECK(first_resend - sent_at <= (double) timeout + SCHEDULER_SLACK_MS);
    enet_host_destroy(client);
    enet_host_destroy(server);
    return on_time;
}

/* ---- 3: a request from another thread ---- */

struct request_shot {
    ENetRsSender *sender;
    ENetRsPeerHandle peer;
    double sent_at;
    int queued;
};

static void *send_request_later(void *argument)
{
    struct request_shot *shot = argument;
    ENetPacket *packet = enet_packet_create("from a thread", 13, ENET_PACKET_FLAG_RELIABLE);
    sleep_ms(100);
    shot->sent_at = now_ms();
    shot->queued = enet_rs_sender_send(shot->sender, shot->peer, 0, packet) == 0;
    if (!shot->queued)
        enet_packet_destroy(packet);
    return NULL;
}

static int test_request_wakes(void)
{
    enum { ROUNDS = 5 };
    ENetHost *server = loopback_host(), *client = loopback_host();
    ENetPeer *server_side = NULL, *peer = connect_pair(server, client, &server_side);
    ENetRsWaitHandle handle = enet_rs_host_get_wait_handle(server);
    ENetRsSender *sender;
    double delays[ROUNDS];
    int received = 0, round;
    CHECK(peer != NULL && server_side != NULL);
    if (peer == NULL || server_side == NULL)
        return 1;
    sender = enet_rs_host_sender(server);
    drain(server, NULL);
    /* The client is not serviced meanwhile, so only the request (or one
       of the server's own timers) can end a wait. */
    for (round = 0; round < ROUNDS; ++round) {
        struct request_shot shot = {sender, enet_rs_peer_handle(server_side), 0, 0};
        pthread_t thread;
        double woke = 0;
        int wakes;
        pthread_create(&thread, NULL, send_request_later, &shot);
        for (wakes = 0; wakes < 20 && woke == 0; ++wakes) {
            if (wait_on(server, handle, 5000, NULL) == 1)
                woke = now_ms();
            drain(server, NULL);
        }
        pthread_join(thread, NULL);
        CHECK(shot.queued);
        CHECK(woke != 0);
        delays[round] = woke - shot.sent_at;
        CHECK(delays[round] <= SCHEDULER_SLACK_MS);
        /* The wake is consumed: once the deadline was asked, the handle
           is quiet (the deadline itself may be 0 if a resend to the
           silent client is due). */
        enet_rs_host_next_deadline_ms(server);
        {
            struct pollfd watched = {handle, POLLIN, 0};
            CHECK(poll(&watched, 1, 0) == 0);
        }
    }
    qsort(delays, ROUNDS, sizeof delays[0], compare_doubles);
    printf("request to wake: median %.3f ms, max %.3f ms over %d rounds\n", delays[ROUNDS / 2],
           delays[ROUNDS - 1], ROUNDS);
    for (round = 0; round < 400 && received < ROUNDS; ++round) {
        ENetEvent event;
        if (enet_host_service(client, &event, 5) > 0 && event.type == ENET_EVENT_TYPE_RECEIVE) {
            received += event.packet->dataLength == 13
                && memcmp(event.packet->data, "from a thread", 13) == 0;
            enet_packet_destroy(event.packet);
        }
        drain(server, NULL);
    }
    CHECK(received == ROUNDS);
    enet_rs_sender_destroy(sender);
    enet_host_destroy(client);
    enet_host_destroy(server);
    return delays[ROUNDS / 2] < wake_bound_ms;
}

/* ---- 4: idle wake-ups ---- */

struct idle_figures {
    long switches;
    long iterations;
    double cpu_ms;
};

static struct rusage thread_usage(void)
{
    struct rusage usage;
    getrusage(RUSAGE_THREAD, &usage);
    return usage;
}

static double cpu_ms(const struct rusage *usage)
{
    return (double) (usage->ru_utime.tv_sec + usage->ru_stime.tv_sec) * 1e3
         + (double) (usage->ru_utime.tv_usec + usage->ru_stime.tv_usec) / 1e3;
}

static struct idle_figures idle_with_service(ENetHost *host, int ms)
{
    struct idle_figures figures = {0, 0, 0};
    struct rusage before = thread_usage(), after;
    double end = now_ms() + ms;
    while (now_ms() < end) {
        ENetEvent event;
        double left = end - now_ms();
        if (enet_host_service(host, &event, left < 1000 ? (enet_uint32) left + 1 : 1000) > 0
            && event.type == ENET_EVENT_TYPE_RECEIVE)
            enet_packet_destroy(event.packet);
        ++figures.iterations;
    }
    after = thread_usage();
    figures.switches = after.ru_nvcsw - before.ru_nvcsw;
    figures.cpu_ms = cpu_ms(&after) - cpu_ms(&before);
    return figures;
}

static struct idle_figures idle_with_handle(ENetHost *host, int ms)
{
    struct idle_figures figures = {0, 0, 0};
    ENetRsWaitHandle handle = enet_rs_host_get_wait_handle(host);
    struct rusage before = thread_usage(), after;
    double end = now_ms() + ms;
    while (now_ms() < end) {
        double left = end - now_ms();
        wait_on(host, handle, (uint32_t) left + 1, NULL);
        drain(host, NULL);
        ++figures.iterations;
    }
    after = thread_usage();
    figures.switches = after.ru_nvcsw - before.ru_nvcsw;
    figures.cpu_ms = cpu_ms(&after) - cpu_ms(&before);
    return figures;
}

static volatile int stop_client;

static void *keep_serviced(void *argument)
{
    ENetHost *client = argument;
    while (!stop_client) {
        ENetEvent event;
        if (enet_host_service(client, &event, 50) > 0 && event.type == ENET_EVENT_TYPE_RECEIVE)
            enet_packet_destroy(event.packet);
    }
    return NULL;
}

static void report(const char *what, struct idle_figures service, struct idle_figures waited)
{
    printf("idle 2 s, %s: enet_host_service(1000) %ld wake-ups (%ld calls, %.2f ms CPU), "
           "wait handle %ld wake-ups (%ld iterations, %.2f ms CPU)\n",
           what, service.switches, service.iterations, service.cpu_ms, waited.switches,
           waited.iterations, waited.cpu_ms);
}

static void test_idle_wakes(void)
{
    ENetHost *alone = loopback_host(), *server = loopback_host(), *client = loopback_host();
    ENetPeer *server_side = NULL, *peer;
    struct idle_figures service, waited;
    pthread_t thread;
    int attempt, within = 0;

    service = idle_with_service(alone, 2000);
    waited = idle_with_handle(alone, 2000);
    report("no peers", service, waited);
    CHECK(waited.switches <= service.switches);
    CHECK(waited.iterations <= service.iterations);

    peer = connect_pair(server, client, &server_side);
    CHECK(peer != NULL);
    stop_client = 0;
    pthread_create(&thread, NULL, keep_serviced, client);
    /* Both wake for the same pings and acknowledgements; where the 2 s
       windows fall against the 500 ms ping period can put one exchange
       (two datagrams) more into either window. The client's thread runs
       beside them, so a busy machine that delays it shifts its pings
       between the windows too: as with the timed tests, the bound must
       hold in one of three pairs of windows. Under valgrind every thread
       switch goes through its lock, so only the figures print. */
    for (attempt = 1; attempt <= 3; ++attempt) {
        service = idle_with_service(server, 2000);
        waited = idle_with_handle(server, 2000);
        report("one connected peer", service, waited);
        within = waited.switches <= service.switches + 2;
        if (within || under_valgrind())
            break;
        printf("one connected peer: over the bound on attempt %d\n", attempt);
    }
    stop_client = 1;
    pthread_join(thread, NULL);
    if (!under_valgrind())
        CHECK(within);
    enet_host_destroy(client);
    enet_host_destroy(server);
    enet_host_destroy(alone);
}

/* Runs a timing test up to three times: its median must be within the
   bound once. Its other checks hold on every run. The machines this runs
   on build other things at the same time; a run where another process
   held the core through most of the wakes says nothing of the library. */
static int timed(const char *what, int (*test)(void))
{
    int attempt;
    for (attempt = 1; attempt <= 3; ++attempt) {
        if (test())
            return 1;
        printf("%s: median over the bound on attempt %d\n", what, attempt);
    }
    return 0;
}

int main(void)
{
    if (enet_initialize() != 0) {
        printf("FAILED: enet_initialize\n");
        return 1;
    }
    if (under_valgrind())
        wake_bound_ms = 25.0;
    /* A NULL host: service now (its call reports the NULL), no handle. */
    CHECK(enet_rs_host_next_deadline_ms(NULL) == 0);
    CHECK(enet_rs_host_get_wait_handle(NULL) == ENET_RS_NO_WAIT_HANDLE);
    CHECK(timed("datagram", test_datagram_wakes));
    test_conditioner_deadline();
    CHECK(timed("retransmission", test_retransmission_on_time));
    CHECK(timed("request", test_request_wakes));
    test_idle_wakes();
    enet_deinitialize();
    if (failures != 0) {
        printf("%d check(s) failed\n", failures);
        return 1;
    }
    printf("ext_wait_handle: all checks passed\n");
    return 0;
}
#endif /* __linux__ */
