/*
 * Connect-flood benchmark programs (not a test by itself): the server and
 * the legit client of bench/flood.sh and of the CI smoke. Compiled against
 * the stock header; which libenet.so.7 runs is chosen by LD_LIBRARY_PATH.
 *
 *   flood server [--peers N] [--seconds S]
 *       A host on 127.0.0.1:0 with N peer slots (default 1024), 2 channels;
 *       prints "PORT <n>", then services with a 1 ms timeout for S seconds
 *       (default 60). Connected peers are left to the client to
 *       disconnect. Prints "server_connects <n>" at exit.
 *   flood client --port P [--tries N] [--interval-ms I] [--timeout-ms T]
 *       The legit client: starts a connect to 127.0.0.1:P every I ms
 *       (default 500), N times (default 18), and gives each T ms (default
 *       3000) to produce its CONNECT event; a connected peer is
 *       disconnected 200 ms later (so it frees its slot), one that timed
 *       out is reset. Prints "try <i> ok <ms>" or "try <i> fail", then
 *       "ok <k>/<N>" and "mean_ms <x>" (mean over the successful tries; "-"
 *       if none).
 *
 *   --dtls DIR (both modes, enet-rs only)
 *       Encrypted: the server presents DIR/cert.pem (key DIR/key.pem) and
 *       also prints "server_peak_sessions <n>", the most DTLS sessions it
 *       held at once; the client verifies that certificate for
 *       "localhost", and makes each try from a host of its own, so every
 *       try is a full DTLS handshake. The enet_rs_* functions are looked
 *       up at run time, so this file still builds against the stock
 *       header and runs on either library (stock refuses --dtls).
 *
 * Diagnostics (and the mapped libenet path) go to stderr. Exit 0 unless
 * something failed to set up.
 */
#define _XOPEN_SOURCE 700

#define BENCH_PROGRAM "flood"
#include "bench_common.h"

#include "../tests-c/dynamic_dtls.h"

#define MAX_TRIES 64

static long option(int argc, char **argv, const char *name, long fallback)
{
    for (int i = 2; i + 1 < argc; i += 2)
        if (strcmp(argv[i], name) == 0)
            return strtol(argv[i + 1], NULL, 10);
    return fallback;
}

static const char *text_option(int argc, char **argv, const char *name)
{
    for (int i = 2; i + 1 < argc; i += 2)
        if (strcmp(argv[i], name) == 0)
            return argv[i + 1];
    return NULL;
}

static int run_server(long peers, long seconds, const char *dtls)
{
    ENetAddress address;
    memset(&address, 0, sizeof address);
    if (enet_address_set_host_ip(&address, "127.0.0.1") != 0)
        die("address");
    address.port = 0;
    ENetHost *host = enet_host_create(&address, (size_t) peers, 2, 0, 0);
    if (host == NULL)
        die("enet_host_create failed");
    size_t peak_sessions = 0;
    if (dtls != NULL) {
        dynamic_dtls_server(host, dtls);
    }
    ENetAddress bound;
    if (enet_socket_get_address(host->socket, &bound) != 0)
        die("enet_socket_get_address failed");
    printf("PORT %u\n", (unsigned) bound.port);
    fflush(stdout);

    long connects = 0;
    double end = now_s() + (double) seconds;
    while (now_s() < end) {
        ENetEvent event;
        int got = enet_host_service(host, &event, 1);
        if (got < 0)
            die("enet_host_service failed");
        if (got > 0) {
            if (event.type == ENET_EVENT_TYPE_CONNECT)
                connects++;
            else if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
        }
        if (dtls != NULL && dynamic_dtls_session_count(host) > peak_sessions)
            peak_sessions = dynamic_dtls_session_count(host);
    }
    printf("server_connects %ld\n", connects);
    if (dtls != NULL)
        printf("server_peak_sessions %zu\n", peak_sessions);
    fflush(stdout);
    enet_host_destroy(host);
    return 0;
}

static int run_client(long port, long tries, long interval_ms, long timeout_ms, const char *dtls)
{
    if (tries < 1 || tries > MAX_TRIES || port <= 0 || port > 65535)
        die("bad client arguments");
    /* Plain: one host for every try. Encrypted: a host per try, so that
     * each try is a handshake of its own (a host keeps one DTLS session
     * per server address, which its later connects would reuse). */
    long host_count = dtls != NULL ? tries : 1;
    ENetHost *hosts[MAX_TRIES] = {0};
    for (long h = 0; h < host_count; h++) {
        hosts[h] = enet_host_create(NULL, dtls != NULL ? 1 : (size_t) tries, 2, 0, 0);
        if (hosts[h] == NULL)
            die("enet_host_create failed");
        if (dtls != NULL)
            dynamic_dtls_client(hosts[h], dtls);
    }
    ENetAddress server;
    memset(&server, 0, sizeof server);
    if (enet_address_set_host_ip(&server, "127.0.0.1") != 0)
        die("address");
    server.port = (enet_uint16) port;

    ENetPeer *peer[MAX_TRIES] = {0};
    double started[MAX_TRIES] = {0};
    double took_ms[MAX_TRIES] = {0};
    int state[MAX_TRIES] = {0}; /* 0 not started, 1 waiting, 2 ok, 3 failed, 4 ok and disconnected */
    long next = 0, finished = 0;
    double start = now_s();

    while (finished < tries) {
        double now = now_s();
        if (next < tries && now >= start + (double) (next * interval_ms) / 1000.0) {
            ENetHost *host = hosts[dtls != NULL ? next : 0];
            peer[next] = enet_host_connect(host, &server, 2, (enet_uint32) next);
            if (peer[next] == NULL)
                die("enet_host_connect failed");
            peer[next]->data = (void *) (size_t) (next + 1);
            started[next] = now;
            state[next] = 1;
            next++;
        }
        for (long i = 0; i < next; i++) {
            /* Disconnect 200 ms after connecting, once the acknowledgement
             * of VERIFY_CONNECT has gone out (disconnecting at once would
             * drop it, and the server would never see the connection). */
            if (state[i] == 2 && (now - started[i]) * 1000.0 >= took_ms[i] + 200.0) {
                enet_peer_disconnect(peer[i], 0);
                state[i] = 4;
                finished++;
            }
            if (state[i] == 1 && (now - started[i]) * 1000.0 >= (double) timeout_ms) {
                enet_peer_reset(peer[i]);
                state[i] = 3;
                finished++;
                printf("try %ld fail\n", i);
            }
        }
        /* One host waits up to 1 ms; several are polled, then sleep. */
        for (long h = 0; h < host_count; h++) {
            ENetEvent event;
            int got = enet_host_service(hosts[h], &event, host_count == 1 ? 1 : 0);
            if (got < 0)
                die("enet_host_service failed");
            if (got > 0 && event.type == ENET_EVENT_TYPE_CONNECT) {
                long i = (long) (size_t) event.peer->data - 1;
                if (i >= 0 && i < next && state[i] == 1) {
                    took_ms[i] = (now_s() - started[i]) * 1000.0;
                    state[i] = 2;
                    printf("try %ld ok %.2f\n", i, took_ms[i]);
                }
            } else if (got > 0 && event.type == ENET_EVENT_TYPE_RECEIVE) {
                enet_packet_destroy(event.packet);
            }
        }
        if (host_count > 1) {
            struct timespec pause = {0, 1000000};
            nanosleep(&pause, NULL);
        }
    }
    /* Let the disconnects go out. */
    double drain_end = now_s() + 0.5;
    while (now_s() < drain_end) {
        for (long h = 0; h < host_count; h++) {
            ENetEvent event;
            if (enet_host_service(hosts[h], &event, host_count == 1 ? 5 : 0) > 0 &&
                event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
        }
        if (host_count > 1) {
            struct timespec pause = {0, 5000000};
            nanosleep(&pause, NULL);
        }
    }
    long ok = 0;
    double total = 0;
    for (long i = 0; i < tries; i++)
        if (state[i] == 4) {
            ok++;
            total += took_ms[i];
        }
    printf("ok %ld/%ld\n", ok, tries);
    if (ok > 0)
        printf("mean_ms %.2f\n", total / (double) ok);
    else
        printf("mean_ms -\n");
    fflush(stdout);
    for (long h = 0; h < host_count; h++)
        enet_host_destroy(hosts[h]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        die("usage: flood server|client [options]");
    if (enet_initialize() != 0)
        die("enet_initialize failed");
    print_mapped_library();
    int rc;
    if (strcmp(argv[1], "server") == 0)
        rc = run_server(option(argc, argv, "--peers", 1024), option(argc, argv, "--seconds", 60),
                        text_option(argc, argv, "--dtls"));
    else if (strcmp(argv[1], "client") == 0)
        rc = run_client(option(argc, argv, "--port", 0), option(argc, argv, "--tries", 18),
                        option(argc, argv, "--interval-ms", 500),
                        option(argc, argv, "--timeout-ms", 3000),
                        text_option(argc, argv, "--dtls"));
    else
        die("unknown mode");
    enet_deinitialize();
    return rc;
}
