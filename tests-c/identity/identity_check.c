/* The release a build of enet-rs identifies as, seen by a program compiled
 * against that build's installed headers and linked to its library:
 * headers and library agree on ENET_VERSION, ENET_VERSION_PATCH is the
 * release's, and a new host (and a peer it connects) starts with the
 * release's default MTU, and its server caps a client's MTU as that release
 * does (1.3.18) or takes it (1.3.17). tests-c/identity/run.sh builds it once per
 * identity with -DEXPECTED_PATCH=17 -DEXPECTED_MTU=1400 (Debian's 1.3.17)
 * or -DEXPECTED_PATCH=18 -DEXPECTED_MTU=1392 (upstream's 1.3.18).
 * Prints what it saw; exits non-zero on any failed check. */
#include <string.h>

#include <enet/enet.h>
#include <enet/enet_rs.h>

#include "../hardening.h"

#if !defined(EXPECTED_PATCH) || !defined(EXPECTED_MTU)
#error "build with -DEXPECTED_PATCH=N -DEXPECTED_MTU=M (tests-c/identity/run.sh)"
#endif

int main(void)
{
    ENetAddress address;
    ENetHost *server, *client;
    ENetPeer *peer;
    ENetVersion linked;

    /* The headers say the release... */
    CHECK(ENET_VERSION_MAJOR == 1 && ENET_VERSION_MINOR == 3);
    CHECK(ENET_VERSION_PATCH == EXPECTED_PATCH);
    CHECK(ENET_HOST_DEFAULT_MTU == EXPECTED_MTU);

    /* ... and so does the library, which is ours (stock has no
       enet_rs_version, so this would not even link against it). */
    CHECK(enet_rs_version() >= 1);
    linked = enet_linked_version();
    CHECK(linked == ENET_VERSION);
    CHECK(linked == ENET_VERSION_CREATE(1, 3, EXPECTED_PATCH));
    CHECK(enet_initialize() == 0);

    memset(&address, 0, sizeof address);
    CHECK(enet_address_set_host_ip(&address, "127.0.0.1") == 0);
    server = enet_host_create(&address, 1, 1, 0, 0);
    client = enet_host_create(NULL, 1, 1, 0, 0);
    CHECK(server != NULL && client != NULL);
    if (server == NULL || client == NULL)
        return 1;
    CHECK(server->mtu == ENET_HOST_DEFAULT_MTU);
    CHECK(client->mtu == EXPECTED_MTU);

    /* A peer starts from its host's MTU. */
    address.port = server->address.port;
    peer = enet_host_connect(client, &address, 1, 0);
    CHECK(peer != NULL);
    if (peer != NULL)
        CHECK(peer->mtu == EXPECTED_MTU);

    printf("linked version 0x%X (1.3.%u), headers' ENET_VERSION 0x%X, host mtu %u\n",
           (unsigned) linked, (unsigned) ENET_VERSION_GET_PATCH(linked),
           (unsigned) ENET_VERSION, (unsigned) client->mtu);
    /* A client offering 1.3.17's 1400: a 1.3.17 server takes it, a 1.3.18
       server caps it at its own MTU, and the client settles on the
       server's answer. (The peer is reset after the host's MTU changes, so
       it offers 1400 under either release's rules.) */
    client->mtu = 1400;
    if (peer != NULL)
        enet_peer_reset(peer);
    peer = enet_host_connect(client, &address, 1, 0);
    CHECK(peer != NULL);
    if (peer != NULL) {
        ENetPeer *accepted = NULL;
        ENetEvent event;
        int round, connected = 0;
        const enet_uint32 settled = EXPECTED_PATCH >= 18 && EXPECTED_MTU < 1400 ? EXPECTED_MTU : 1400;
        for (round = 0; round < 2000 && !(connected && accepted != NULL); ++round) {
            while (enet_host_service(server, &event, 1) > 0)
                if (event.type == ENET_EVENT_TYPE_CONNECT)
                    accepted = event.peer;
            while (enet_host_service(client, &event, 0) > 0)
                connected |= event.type == ENET_EVENT_TYPE_CONNECT;
        }
        CHECK(connected && accepted != NULL);
        if (accepted != NULL)
            CHECK(accepted->mtu == settled);
        CHECK(peer->mtu == settled);
        printf("a client offering mtu 1400: the server's peer has %u, the client's %u\n",
               accepted != NULL ? (unsigned) accepted->mtu : 0u, (unsigned) peer->mtu);
        enet_peer_reset(peer);
    }

    /* The host's MTU changed after the peer was reset: a 1.3.18 peer
       connects with the host's MTU as it is now, a 1.3.17 one with the MTU
       it took at its reset. */
    client->mtu = 1300;
    peer = enet_host_connect(client, &address, 1, 0);
    CHECK(peer != NULL);
    if (peer != NULL) {
        CHECK(peer->mtu == (EXPECTED_PATCH >= 18 ? 1300u : 1400u));
        printf("host mtu set to 1300 after the reset: the peer connects with %u\n", (unsigned) peer->mtu);
    }

    enet_host_destroy(client);
    enet_host_destroy(server);
    enet_deinitialize();
    if (failures)
        printf("%d checks failed\n", failures);
    return failures != 0;
}
