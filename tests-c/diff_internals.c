/* Differential test of the internal exports a program can reach:
 * enet_peer_queue_outgoing_command, enet_peer_queue_acknowledgement,
 * enet_peer_queue_incoming_command, enet_peer_reset_queues,
 * enet_peer_on_connect/on_disconnect, enet_peer_throttle. */
#include <enet/enet.h>
#include <stdio.h>
#include <string.h>

static ENetHost *server, *client;
static ENetPeer *to_server, *to_client;

static int pump_until_receive(ENetHost *host, const char *who, int rounds)
{
    ENetEvent event;
    int round;
    for (round = 0; round < rounds; ++round) {
        if (enet_host_service(server, &event, 1) > 0) {
            if (event.type == ENET_EVENT_TYPE_CONNECT)
                to_client = event.peer;
            if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                printf("%s RECEIVE \"%.*s\" channel=%u flags=%u\n", host == server ? who : "server",
                       (int) event.packet->dataLength, (const char *) event.packet->data, event.channelID,
                       event.packet->flags);
                enet_packet_destroy(event.packet);
                if (host == server)
                    return 1;
            }
        }
        if (enet_host_service(client, &event, 1) > 0 && event.type == ENET_EVENT_TYPE_RECEIVE) {
            printf("client RECEIVE \"%.*s\" channel=%u flags=%u\n", (int) event.packet->dataLength,
                   (const char *) event.packet->data, event.channelID, event.packet->flags);
            enet_packet_destroy(event.packet);
            if (host == client)
                return 1;
        }
    }
    return 0;
}

int main(void)
{
    ENetAddress address;
    ENetProtocol command;
    ENetPacket *packet;
    ENetOutgoingCommand *outgoing;
    ENetIncomingCommand *incoming;
    ENetAcknowledgement *acknowledgement;
    ENetEvent event;
    int round;

    enet_initialize();
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 2, 2, 0, 0);
    client = enet_host_create(NULL, 1, 2, 0, 0);
    to_server = enet_host_connect(client, &server->address, 2, 0);
    for (round = 0; round < 500 && !(to_client != NULL && to_server->state == ENET_PEER_STATE_CONNECTED); ++round) {
        if (enet_host_service(server, &event, 1) > 0 && event.type == ENET_EVENT_TYPE_CONNECT)
            to_client = event.peer;
        enet_host_service(client, &event, 1);
    }
    printf("connected=%d\n", to_client != NULL && to_server->state == ENET_PEER_STATE_CONNECTED);

    /* A reliable send queued by hand. */
    memset(&command, 0, sizeof command);
    command.header.command = ENET_PROTOCOL_COMMAND_SEND_RELIABLE | ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE;
    command.header.channelID = 1;
    packet = enet_packet_create("by hand", 7, ENET_PACKET_FLAG_RELIABLE);
    command.sendReliable.dataLength = ENET_HOST_TO_NET_16(7);
    outgoing = enet_peer_queue_outgoing_command(to_server, &command, packet, 0, 7);
    printf("queue_outgoing: non-null=%d rsn=%u usn=%u attempts=%u refs=%lu wire-rsn=%u\n", outgoing != NULL,
           outgoing->reliableSequenceNumber, outgoing->unreliableSequenceNumber, outgoing->sendAttempts,
           (unsigned long) packet->referenceCount, ENET_NET_TO_HOST_16(outgoing->command.header.reliableSequenceNumber));
    pump_until_receive(server, "server", 500);

    /* An unreliable one after it. */
    command.header.command = ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE;
    command.header.channelID = 1;
    command.sendUnreliable.dataLength = ENET_HOST_TO_NET_16(5);
    packet = enet_packet_create("quick", 5, 0);
    outgoing = enet_peer_queue_outgoing_command(to_server, &command, packet, 0, 5);
    printf("queue_outgoing unreliable: rsn=%u usn=%u\n", outgoing->reliableSequenceNumber,
           outgoing->unreliableSequenceNumber);
    pump_until_receive(server, "server", 500);

    /* A packet "received" by hand on the client: next reliable number. */
    memset(&command, 0, sizeof command);
    command.header.command = ENET_PROTOCOL_COMMAND_SEND_RELIABLE | ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE;
    command.header.channelID = 0;
    command.header.reliableSequenceNumber = 1; /* host order, as stock's internals hold it */
    incoming = enet_peer_queue_incoming_command(to_server, &command, "injected", 8, ENET_PACKET_FLAG_RELIABLE, 0);
    printf("queue_incoming: non-null=%d rsn=%u\n", incoming != NULL, incoming != NULL ? incoming->reliableSequenceNumber : 0);
    pump_until_receive(client, "client", 500);
    incoming = enet_peer_queue_incoming_command(to_server, &command, "again", 5, ENET_PACKET_FLAG_RELIABLE, 0);
    printf("queue_incoming duplicate: non-null=%d\n", incoming != NULL);

    /* An acknowledgement owed by hand. */
    command.header.channelID = 0;
    command.header.reliableSequenceNumber = 1;
    acknowledgement = enet_peer_queue_acknowledgement(to_server, &command, 1234);
    printf("queue_acknowledgement: non-null=%d sentTime=%u\n", acknowledgement != NULL,
           acknowledgement != NULL ? acknowledgement->sentTime : 0);

    /* Throttle arithmetic on a fresh state. */
    to_server->lastRoundTripTime = 100;
    to_server->lastRoundTripTimeVariance = 10;
    to_server->packetThrottle = 16;
    {
        static const enet_uint32 samples[] = {50, 200, 110, 300, 20};
        unsigned i;
        for (i = 0; i < sizeof samples / sizeof samples[0]; ++i) {
            int verdict = enet_peer_throttle(to_server, samples[i]);
            printf("throttle(%u)=%d throttle=%u\n", samples[i], verdict, to_server->packetThrottle);
        }
    }

    /* Connected-peer accounting. */
    printf("connectedPeers=%lu\n", (unsigned long) client->connectedPeers);
    enet_peer_on_disconnect(to_server);
    printf("after on_disconnect connectedPeers=%lu\n", (unsigned long) client->connectedPeers);
    enet_peer_on_connect(to_server);
    printf("after on_connect (still CONNECTED, not counted again) connectedPeers=%lu\n",
           (unsigned long) client->connectedPeers);

    /* Queued data dropped by reset_queues. */
    packet = enet_packet_create("dropped", 7, ENET_PACKET_FLAG_RELIABLE);
    enet_peer_send(to_server, 0, packet);
    printf("before reset_queues refs=%lu channelCount=%lu\n", (unsigned long) packet->referenceCount,
           (unsigned long) to_server->channelCount);
    enet_peer_reset_queues(to_server);
    printf("after reset_queues channelCount=%lu channels-null=%d state=%d\n", (unsigned long) to_server->channelCount,
           to_server->channels == NULL, (int) to_server->state);
    enet_peer_reset(to_server);
    enet_host_destroy(client);
    enet_host_destroy(server);
    enet_deinitialize();
    printf("done\n");
    return 0;
}
