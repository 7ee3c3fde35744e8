"""ENet driven through pyenet (Debian's python3-enet), a real consumer of
libenet.so.7.

Covers what pyenet's own test_enet.py exercises (addresses, packets, host
connect, raw socket send + intercept, broadcast, peer send/reset/disconnect/
disconnect_later) and a little more (event data, flags on receive, one packet
sent to two peers, disconnect_now, checksum + range coder). Every test binds
127.0.0.1 port 0 and reads the port back; every loop is bounded in time.

Runs on whichever libenet.so.7 the loader picks: stock by default, ours with
LD_LIBRARY_PATH (see run.sh). setUpModule prints the library actually mapped
and, when EXPECT_LIBENET names a file, refuses to run on any other.

    /usr/bin/python3 -m unittest tests-py/test_pyenet.py
"""

import os
import socket
import sys
import time
import unittest

import enet

WAIT_S = 5.0


def mapped_libenet():
    """Path of the libenet shared object mapped into this process."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split(None, 5)
            if len(fields) == 6 and "/libenet" in fields[5]:
                return fields[5].strip()
    return None


def setUpModule():
    path = mapped_libenet()
    print("libenet.so.7 loaded from: %s" % path, file=sys.stderr)
    if path is None:
        raise RuntimeError("no libenet mapped into the process")
    expected = os.environ.get("EXPECT_LIBENET")
    if expected and os.path.realpath(expected) != path:
        raise RuntimeError("expected %s to be loaded, found %s"
                           % (os.path.realpath(expected), path))


def make_server(peers=4, channels=2):
    server = enet.Host(enet.Address("127.0.0.1", 0), peers, channels, 0, 0)
    if server.address.port == 0:
        raise AssertionError("server bound port 0 but host->address.port is 0")
    return server


def loopback(server):
    return enet.Address("127.0.0.1", server.address.port)


def run_until(hosts, handler, what, seconds=WAIT_S):
    """Service every host in turn; pass each real event to handler(host,
    event) until it returns True. Fails after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for host in hosts:
            event = host.service(1)
            if event.type != enet.EVENT_TYPE_NONE and handler(host, event):
                return
    raise AssertionError("timed out after %.0f s waiting for %s" % (seconds, what))


def settle(hosts, seconds):
    """Service for a while, returning the events seen."""
    seen = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for host in hosts:
            event = host.service(1)
            if event.type != enet.EVENT_TYPE_NONE:
                seen.append((host, event.type))
    return seen


class TestAddress(unittest.TestCase):
    def test_host_dotted(self):
        self.assertEqual(enet.Address("127.0.0.1", 9999).host, "127.0.0.1")

    def test_host_localhost_resolves_to_loopback(self):
        self.assertEqual(enet.Address("localhost", 9999).host, "127.0.0.1")

    def test_host_any(self):
        self.assertEqual(enet.Address(None, 9999).host, "*")
        self.assertEqual(enet.Address(None, 9999).hostname, "*")

    def test_unresolvable_host_raises(self):
        self.assertRaises(IOError, enet.Address, "foo.bar.baz.999", 9999)

    def test_port(self):
        self.assertEqual(enet.Address("127.0.0.1", 9999).port, 9999)
        self.assertEqual(enet.Address("127.0.0.1", 0).port, 0)
        self.assertRaises(TypeError, enet.Address, "127.0.0.1", "foo")

    def test_hostname_is_reverse_lookup(self):
        # enet_address_get_host: the name getnameinfo finds, else the
        # dotted quad. Compare with the same lookup done by Python.
        try:
            want = socket.getnameinfo(("127.0.0.1", 0), socket.NI_NAMEREQD)[0]
        except socket.gaierror:
            want = "127.0.0.1"
        self.assertEqual(enet.Address("127.0.0.1", 9999).hostname, want)

    def test_str(self):
        self.assertEqual(str(enet.Address("127.0.0.1", 9999)), "127.0.0.1:9999")
        self.assertEqual(str(enet.Address(None, 80)), "*:80")

    def test_compare(self):
        self.assertTrue(enet.Address("127.0.0.1", 9999) == enet.Address("127.0.0.1", 9999))
        self.assertFalse(enet.Address("127.0.0.1", 9999) != enet.Address("127.0.0.1", 9999))
        self.assertTrue(enet.Address("127.0.0.1", 9999) != enet.Address("127.0.0.1", 8888))
        self.assertFalse(enet.Address("127.1.1.1", 1992) == enet.Address("127.0.0.1", 9999))


class TestPacket(unittest.TestCase):
    def test_data_keeps_nul_bytes(self):
        self.assertEqual(enet.Packet(b"foo\0bar").data, b"foo\0bar")

    def test_data_length(self):
        self.assertEqual(enet.Packet(b"foobar").dataLength, 6)
        self.assertEqual(enet.Packet(b"foo\0bar").dataLength, 7)
        self.assertEqual(enet.Packet(bytes(range(256)) * 40).dataLength, 10240)

    def test_empty_packet(self):
        packet = enet.Packet(b"")
        self.assertTrue(packet.is_valid())
        self.assertEqual(packet.dataLength, 0)
        self.assertEqual(packet.data, b"")

    def test_flags(self):
        self.assertEqual(enet.Packet(b"foobar").flags, 0)
        for flag in (enet.PACKET_FLAG_RELIABLE, enet.PACKET_FLAG_UNSEQUENCED,
                     enet.PACKET_FLAG_UNRELIABLE_FRAGMENT):
            self.assertEqual(enet.Packet(b"foobar", flag).flags, flag)

    def test_uninitialised_packet_raises(self):
        for attribute in ("data", "dataLength", "flags"):
            self.assertRaises(MemoryError, getattr, enet.Packet(), attribute)


class ConnectedPair(unittest.TestCase):
    """A server on a free loopback port and a client connecting to it."""

    CONNECT_DATA = 0x2A

    def setUp(self):
        self.server = make_server()
        self.client = enet.Host(None, 2, 2, 0, 0)
        self.peer = self.client.connect(loopback(self.server), 2, self.CONNECT_DATA)
        self.assertEqual(self.peer.state, enet.PEER_STATE_CONNECTING)
        self.assertTrue(self.peer == self.peer)
        self.assertFalse(self.peer != self.peer)

    def tearDown(self):
        del self.peer
        del self.client
        del self.server

    def connect(self):
        """Runs the handshake; returns the server's peer for the client."""
        got = {}

        def handler(host, event):
            if event.type == enet.EVENT_TYPE_CONNECT:
                self.assertEqual(event.peer.state, enet.PEER_STATE_CONNECTED)
                got[host] = event
            else:
                self.fail("unexpected event %d during the handshake" % event.type)
            return len(got) == 2

        run_until([self.client, self.server], handler, "CONNECT on both sides")
        self.assertEqual(got[self.server].data, self.CONNECT_DATA)
        self.assertEqual(self.peer.state, enet.PEER_STATE_CONNECTED)
        return got[self.server].peer


class TestHost(ConnectedPair):
    def test_connect(self):
        server_peer = self.connect()
        self.assertEqual(server_peer.channelCount, 2)
        self.assertEqual(self.peer.channelCount, 2)
        connected = [p for p in self.server.peers if p.state == enet.PEER_STATE_CONNECTED]
        self.assertEqual(len(connected), 1)
        self.assertEqual(self.server.peerCount, 4)

    def test_socket_send_is_seen_by_intercept(self):
        self.connect()
        message = b"\xff\xff\xff\xffgetstatus\x00"
        seen = []

        def intercept(address, data):
            seen.append((address.host, data))
            return data == message   # consume ours, let ENet parse the rest

        self.server.intercept = intercept
        deadline = time.monotonic() + WAIT_S
        sent = 0
        while message not in [d for _, d in seen] and time.monotonic() < deadline:
            if sent < 5:
                self.assertEqual(self.client.socket.send(loopback(self.server), message),
                                 len(message))
                sent += 1
            self.client.service(1)
            self.assertEqual(self.server.service(1).type, enet.EVENT_TYPE_NONE)
        self.assertIn(("127.0.0.1", message), seen)
        self.server.intercept = None
        self.assertIsNone(self.server.intercept)
        # The connection survived the foreign datagrams.
        self.assertEqual(self.peer.state, enet.PEER_STATE_CONNECTED)

    def test_broadcast_reaches_every_peer(self):
        other = enet.Host(None, 1, 2, 0, 0)
        other.connect(loopback(self.server), 2, 0)
        message = b"foo\0bar\n baz!"
        connects = []
        received = {}

        def handler(host, event):
            if event.type == enet.EVENT_TYPE_CONNECT and host is self.server:
                connects.append(event.peer)
                if len(connects) == 2:
                    self.server.broadcast(1, enet.Packet(message, enet.PACKET_FLAG_RELIABLE))
            elif event.type == enet.EVENT_TYPE_RECEIVE:
                self.assertIsNot(host, self.server)
                self.assertNotIn(host, received)
                self.assertEqual(event.channelID, 1)
                self.assertEqual(event.packet.flags, enet.PACKET_FLAG_RELIABLE)
                received[host] = event.packet.data
            return len(received) == 2

        run_until([self.server, self.client, other], handler, "the broadcast on both clients")
        self.assertEqual(received, {self.client: message, other: message})

    def test_checksum_and_range_coder(self):
        server = make_server()
        client = enet.Host(None, 1, 1, 0, 0)
        for host in (server, client):
            host.checksum = enet.ENET_CRC32
            self.assertEqual(host.checksum, enet.ENET_CRC32)
            self.assertEqual(host.compress_with_range_coder(), 0)
        peer = client.connect(loopback(server), 1, 0)
        message = b"compressible " * 300
        received = []

        def handler(host, event):
            if event.type == enet.EVENT_TYPE_CONNECT and host is client:
                peer.send(0, enet.Packet(message, enet.PACKET_FLAG_RELIABLE))
            elif event.type == enet.EVENT_TYPE_RECEIVE:
                received.append(event.packet.data)
            return bool(received)

        run_until([server, client], handler, "a packet over checksum + range coder")
        self.assertEqual(received, [message])
        # Compression really happened: fewer bytes on the wire than payload.
        self.assertLess(client.totalSentData, len(message))

    def test_flush_and_check_events(self):
        server_peer = self.connect()
        self.assertIsNone(self.client.check_events())
        server_peer.send(0, enet.Packet(b"flushed", enet.PACKET_FLAG_RELIABLE))
        self.server.flush()
        got = []

        def handler(host, event):
            self.assertIs(host, self.client)
            got.append(event.packet.data)
            return True

        run_until([self.client], handler, "the flushed packet")
        self.assertEqual(got, [b"flushed"])

    def test_bandwidth_and_channel_limit_properties(self):
        self.server.incomingBandwidth = 64000
        self.server.outgoingBandwidth = 32000
        self.assertEqual(self.server.incomingBandwidth, 64000)
        self.assertEqual(self.server.outgoingBandwidth, 32000)
        self.server.channelLimit = 5
        self.assertEqual(self.server.channelLimit, 5)
        self.connect()


class TestPeer(ConnectedPair):
    def test_uninitialised_peer_raises(self):
        self.assertRaises(MemoryError, enet.Peer().reset)

    def test_send(self):
        message = b"foo\0bar"
        got = []

        def handler(host, event):
            if event.type == enet.EVENT_TYPE_CONNECT and host is self.client:
                packet = enet.Packet(message)
                self.assertFalse(packet.sent)
                self.assertEqual(self.peer.send(0, packet), 0)
                self.assertTrue(packet.sent)  # ENet owns it now
            elif event.type == enet.EVENT_TYPE_RECEIVE:
                self.assertIs(host, self.server)
                got.append((event.channelID, event.packet.flags, event.packet.data))
            return bool(got)

        run_until([self.server, self.client], handler, "the sent packet")
        self.assertEqual(got, [(0, 0, message)])

    def test_flags_survive_the_trip(self):
        self.connect()
        sent = {b"reliable": enet.PACKET_FLAG_RELIABLE,
                b"unsequenced": enet.PACKET_FLAG_UNSEQUENCED,
                b"unreliable": 0}
        for data, flags in sent.items():
            self.assertEqual(self.peer.send(1, enet.Packet(data, flags)), 0)
        got = {}

        def handler(host, event):
            self.assertEqual(event.type, enet.EVENT_TYPE_RECEIVE)
            self.assertEqual(event.channelID, 1)
            got[event.packet.data] = event.packet.flags
            return len(got) == len(sent)

        run_until([self.server, self.client], handler, "three packets")
        self.assertEqual(got, sent)

    def test_one_packet_to_two_peers(self):
        # ENet reference-counts a packet queued on several peers; both must
        # get intact data and the packet must outlive the first delivery.
        other = enet.Host(None, 1, 2, 0, 0)
        other.connect(loopback(self.server), 2, 0)
        message = bytes(range(256)) * 20  # fragmented: > MTU
        server_peers = []
        received = {}

        def handler(host, event):
            if event.type == enet.EVENT_TYPE_CONNECT and host is self.server:
                server_peers.append(event.peer)
                if len(server_peers) == 2:
                    packet = enet.Packet(message, enet.PACKET_FLAG_RELIABLE)
                    for peer in server_peers:
                        self.assertEqual(peer.send(0, packet), 0)
                    self.assertTrue(packet.sent)
                    del packet
            elif event.type == enet.EVENT_TYPE_RECEIVE:
                received[host] = event.packet.data
            return len(received) == 2

        run_until([self.server, self.client, other], handler, "the shared packet")
        self.assertEqual(received, {self.client: message, other: message})

    def test_reset(self):
        done = []

        def handler(host, event):
            if host is self.server and event.type == enet.EVENT_TYPE_CONNECT:
                event.peer.reset()
                self.assertEqual(event.peer.state, enet.PEER_STATE_DISCONNECTED)
                done.append(True)
            return bool(done)

        run_until([self.server, self.client], handler, "CONNECT on the server")
        self.assertEqual([p for p in self.server.peers
                          if p.state != enet.PEER_STATE_DISCONNECTED], [])

    def test_disconnect(self):
        self.connect()
        self.peer.disconnect(7)
        self.assertEqual(self.peer.state, enet.PEER_STATE_DISCONNECTING)
        got = {}

        def handler(host, event):
            self.assertEqual(event.type, enet.EVENT_TYPE_DISCONNECT)
            self.assertEqual(event.peer.state, enet.PEER_STATE_DISCONNECTED)
            got[host] = event.data
            return len(got) == 2

        run_until([self.server, self.client], handler, "DISCONNECT on both sides")
        self.assertEqual(got, {self.server: 7, self.client: 0})

    def test_disconnect_later_delivers_queued_packets_first(self):
        self.connect()
        for i in range(10):
            self.peer.send(0, enet.Packet(b"queued %d" % i, enet.PACKET_FLAG_RELIABLE))
        self.peer.disconnect_later(9)
        self.assertEqual(self.peer.state, enet.PEER_STATE_DISCONNECT_LATER)
        order = []

        def handler(host, event):
            if host is self.server:
                if event.type == enet.EVENT_TYPE_RECEIVE:
                    order.append(event.packet.data)
                else:
                    self.assertEqual(event.type, enet.EVENT_TYPE_DISCONNECT)
                    order.append(("disconnect", event.data))
                    return True
            return False

        run_until([self.server, self.client], handler, "DISCONNECT on the server")
        self.assertEqual(order, [b"queued %d" % i for i in range(10)] + [("disconnect", 9)])

    def test_disconnect_now(self):
        self.connect()
        self.peer.disconnect_now(11)
        self.assertEqual(self.peer.state, enet.PEER_STATE_DISCONNECTED)
        got = []

        def handler(host, event):
            self.assertIs(host, self.server, "disconnect_now gives the caller no event")
            self.assertEqual(event.type, enet.EVENT_TYPE_DISCONNECT)
            got.append(event.data)
            return True

        run_until([self.server, self.client], handler, "DISCONNECT on the server")
        self.assertEqual(got, [11])
        self.assertEqual(settle([self.client], 0.2), [])


if __name__ == "__main__":
    unittest.main()
