/* Datagram order across peers: stock
 * enet_protocol_send_outgoing_commands builds one datagram per peer per
 * pass over host->peers and repeats the pass while any peer set
 * continueSending, so two peers with three datagrams each get them
 * interleaved: 0 1 0 1 0 1. A receiver with both connections sees that
 * order. This prints, for each large datagram the receiver gets after one
 * enet_host_flush of the sender, which of its peers it is addressed to. */
#include <enet/enet.h>
#include <stdio.h>
#include <string.h>

static char order[64];
static size_t order_length;

static int ENET_CALLBACK record(ENetHost *host, ENetEvent *event)
{
    (void) event;
    if (host->receivedDataLength > 1000 && order_length + 1 < sizeof order) {
        unsigned peer_id = ((unsigned) host->receivedData[0] << 8 | host->receivedData[1]) & 0x0FFF;
        order[order_length++] = (char) ('0' + peer_id);
    }
    return 0;
}

static void pump(ENetHost *a, ENetHost *b, int rounds)
{
    ENetEvent event;
    int round;
    for (round = 0; round < rounds; ++round) {
        while (enet_host_service(a, &event, 1) > 0)
            if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
        while (enet_host_service(b, &event, 1) > 0)
            if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
    }
}

int main(void)
{
    ENetAddress address;
    ENetHost *receiver, *sender;
    ENetPeer *peers[2];
    char payload[1000];
    int i, round;

    if (enet_initialize() != 0)
        return 1;
    memset(payload, 'x', sizeof payload);
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    receiver = enet_host_create(&address, 2, 1, 0, 0);
    sender = enet_host_create(NULL, 2, 1, 0, 0);
    if (receiver == NULL || sender == NULL)
        return 2;
    address.port = receiver->address.port;
    /* Two connections from the sender to the receiver: its peers 0 and 1
     * are the receiver's peers 0 and 1. */
    for (i = 0; i < 2; ++i) {
        peers[i] = enet_host_connect(sender, &address, 1, 0);
        if (peers[i] == NULL)
            return 3;
        for (round = 0; round < 2000 && peers[i]->state != ENET_PEER_STATE_CONNECTED; ++round)
            pump(receiver, sender, 1);
        if (peers[i]->state != ENET_PEER_STATE_CONNECTED)
            return 4;
    }
    pump(receiver, sender, 50);
    printf("receiver peer ids of sender peers: %u %u\n", (unsigned) peers[0]->outgoingPeerID,
           (unsigned) peers[1]->outgoingPeerID);

    receiver->intercept = record;
    for (i = 0; i < 3; ++i) {
        enet_peer_send(peers[0], 0, enet_packet_create(payload, sizeof payload, ENET_PACKET_FLAG_RELIABLE));
        enet_peer_send(peers[1], 0, enet_packet_create(payload, sizeof payload, ENET_PACKET_FLAG_RELIABLE));
    }
    enet_host_flush(sender);
    pump(receiver, sender, 20);
    order[order_length] = '\0';
    printf("large datagrams arrived for receiver peers: %s\n", order);

    enet_host_destroy(sender);
    enet_host_destroy(receiver);
    enet_deinitialize();
    return 0;
}
