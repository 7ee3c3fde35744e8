/*
 * ext_loss_recovery.c: the loss-recovery extension of enet/enet_rs.h from
 * C: presets, host and peer settings, ENET_RS_LOSS_RECOVERY, statistics,
 * and refusals of bad arguments. Two hosts talk over 127.0.0.1.
 */
#define _POSIX_C_SOURCE 200112L /* setenv, unsetenv */
#include <stdlib.h>
#include <string.h>

#include <enet/enet.h>
#include <enet/enet_rs.h>

#include "hardening.h"

static ENetRsLossRecovery preset(int mode)
{
    ENetRsLossRecovery settings;
    memset(&settings, 0xAB, sizeof settings);
    CHECK(enet_rs_loss_recovery_preset(mode, &settings) == 0);
    return settings;
}

static int same(const ENetRsLossRecovery *a, const ENetRsLossRecovery *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* The loss recovery a new host gets with ENET_RS_LOSS_RECOVERY=value
 * (NULL: unset). */
static ENetRsLossRecovery host_default(const char *value)
{
    ENetRsLossRecovery settings;
    ENetHost *host;
    if (value)
        setenv("ENET_RS_LOSS_RECOVERY", value, 1);
    else
        unsetenv("ENET_RS_LOSS_RECOVERY");
    host = enet_host_create(NULL, 1, 1, 0, 0);
    CHECK(host != NULL);
    memset(&settings, 0, sizeof settings);
    CHECK(enet_rs_host_get_loss_recovery(host, &settings) == 0);
    enet_host_destroy(host);
    unsetenv("ENET_RS_LOSS_RECOVERY");
    return settings;
}

static int received;

/* Services both hosts until `done` says so or about 5 s pass. */
static int service_until(ENetHost *a, ENetHost *b, int (*done)(void), ENetEvent *last)
{
    int round;
    for (round = 0; round < 5000; ++round) {
        ENetEvent event;
        while (enet_host_service(a, &event, 0) > 0) {
            if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
            *last = event;
        }
        while (enet_host_service(b, &event, 1) > 0) {
            if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                ++received;
                enet_packet_destroy(event.packet);
            }
            *last = event;
        }
        if (done())
            return 1;
    }
    return 0;
}

static ENetPeer *client_peer;
static ENetHost *server_host;

static int connected(void)
{
    return client_peer->state == ENET_PEER_STATE_CONNECTED && server_host->connectedPeers == 1;
}

/* The widest congestion window the client's peer had while sending: a
 * timeout on a loaded machine (the process descheduled past the
 * retransmission timeout) rightly shrinks the window again, so what the
 * traffic opened is read as it goes, not only at the end. */
static enet_uint32 widest_window;

static int all_delivered(void)
{
    ENetRsPeerStats now;
    if (enet_rs_peer_get_stats(client_peer, &now) == 0 && now.congestionWindow > widest_window)
        widest_window = now.congestionWindow;
    return received == 400 && client_peer->reliableDataInTransit == 0;
}

int main(void)
{
    ENetRsLossRecovery stock, standard, fast, settings;
    ENetRsPeerStats stats;
    ENetAddress address;
    ENetHost *client;
    ENetEvent last;
    int i;

    CHECK(enet_initialize() == 0);
    CHECK(enet_rs_version() == ENET_RS_VERSION);

    /* Presets; unknown modes and NULL are refused. */
    stock = preset(ENET_RS_LOSS_RECOVERY_STOCK);
    standard = preset(ENET_RS_LOSS_RECOVERY_DEFAULT);
    fast = preset(ENET_RS_LOSS_RECOVERY_FAST);
    CHECK(stock.perCommandDeadlines == 0 && stock.fastResend == 0 && stock.backoffPercent == 200
          && stock.minimumTimeout == 0 && stock.congestionControl == 0
          && stock.thinStreamCommands == 0 && stock.repeatAcknowledgements == 0);
    CHECK(standard.perCommandDeadlines && standard.fastResend == 3 && standard.keepStockTimeouts
          && standard.backoffPercent == 200 && !standard.congestionControl
          && standard.thinStreamCommands == 0 && !standard.repeatAcknowledgements);
    CHECK(fast.perCommandDeadlines && fast.fastResend == 2 && !fast.keepStockTimeouts
          && fast.backoffPercent == 150 && fast.minimumTimeout == 30 && fast.congestionControl
          && fast.thinStreamCommands == 4 && fast.repeatAcknowledgements);
    CHECK(enet_rs_loss_recovery_preset(3, &settings) == -1);
    CHECK(enet_rs_loss_recovery_preset(-1, &settings) == -1);
    CHECK(enet_rs_loss_recovery_preset(ENET_RS_LOSS_RECOVERY_FAST, NULL) == -1);

    /* ENET_RS_LOSS_RECOVERY picks every new host's mode. */
    settings = host_default(NULL);
    CHECK(same(&settings, &standard));
    settings = host_default("fast");
    CHECK(same(&settings, &fast));
    settings = host_default("STOCK");
    CHECK(same(&settings, &stock));
    settings = host_default("bogus");
    CHECK(same(&settings, &standard));

    /* NULL hosts, peers and settings are refused. */
    CHECK(enet_rs_host_set_loss_recovery(NULL, &fast) == -1);
    CHECK(enet_rs_host_get_loss_recovery(NULL, &settings) == -1);
    CHECK(enet_rs_peer_set_loss_recovery(NULL, &fast) == -1);
    CHECK(enet_rs_peer_get_loss_recovery(NULL, &settings) == -1);
    CHECK(enet_rs_peer_get_stats(NULL, &stats) == -1);

    enet_address_set_host(&address, "127.0.0.1");
    address.port = 0;
    server_host = enet_host_create(&address, 4, 2, 0, 0);
    CHECK(server_host != NULL);
    address.port = server_host->address.port;
    client = enet_host_create(NULL, 1, 2, 0, 0);
    CHECK(client != NULL);
    CHECK(enet_rs_host_set_loss_recovery(server_host, NULL) == -1);
    CHECK(enet_rs_peer_get_stats(client->peers, NULL) == -1);

    /* A host setting reaches its peers; a peer's own lasts until reset. */
    CHECK(enet_rs_host_set_loss_recovery(client, &fast) == 0);
    client_peer = enet_host_connect(client, &address, 2, 0);
    CHECK(client_peer != NULL);
    CHECK(enet_rs_peer_get_loss_recovery(client_peer, &settings) == 0);
    CHECK(same(&settings, &fast));
    CHECK(service_until(client, server_host, connected, &last));

    /* Reliable traffic under congestion control opens the window. */
    for (i = 0; i < 400; ++i) {
        char bytes[1000];
        memset(bytes, i & 0xFF, sizeof bytes);
        CHECK(enet_peer_send(client_peer, 0,
                             enet_packet_create(bytes, sizeof bytes, ENET_PACKET_FLAG_RELIABLE))
              == 0);
    }
    CHECK(service_until(client, server_host, all_delivered, &last));
    CHECK(enet_rs_peer_get_stats(client_peer, &stats) == 0);
    CHECK(widest_window > 65536);
    CHECK(stats.retransmittedBytes <= 400 * 1000);
    CHECK(stats.fastRetransmits + stats.timeouts == stats.retransmittedCommands);

    /* Back to stock for this peer only. */
    CHECK(enet_rs_peer_set_loss_recovery(client_peer, &stock) == 0);
    CHECK(enet_rs_peer_get_loss_recovery(client_peer, &settings) == 0);
    CHECK(same(&settings, &stock));
    CHECK(enet_rs_peer_get_stats(client_peer, &stats) == 0);
    CHECK(stats.congestionWindow == 0);
    CHECK(enet_rs_host_get_loss_recovery(client, &settings) == 0);
    CHECK(same(&settings, &fast));

    /* Odd values are brought into range. */
    settings = fast;
    settings.backoffPercent = 10;
    settings.fastResend = 100000;
    CHECK(enet_rs_peer_set_loss_recovery(client_peer, &settings) == 0);
    CHECK(enet_rs_peer_get_loss_recovery(client_peer, &settings) == 0);
    CHECK(settings.backoffPercent == 100 && settings.fastResend == 255);

    /* A reset slot starts again from the host's setting. */
    enet_peer_reset(client_peer);
    CHECK(enet_rs_peer_get_loss_recovery(client_peer, &settings) == 0);
    CHECK(same(&settings, &fast));
    CHECK(enet_rs_peer_get_stats(client_peer, &stats) == 0);
    CHECK(stats.retransmittedCommands == 0);

    enet_host_destroy(client);
    enet_host_destroy(server_host);
    enet_deinitialize();
    if (failures)
        printf("%d checks failed\n", failures);
    return failures != 0;
}
