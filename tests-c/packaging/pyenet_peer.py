"""One side of tests-c/packaging/test-deb.sh's pyenet exchange (Debian's
python3-enet, on whichever libenet.so.7 the loader gives it).

    pyenet_peer.py server SECONDS       echoes every packet back (reliable)
                                        until its client disconnects
    pyenet_peer.py client PORT SECONDS  connects to 127.0.0.1:PORT, sends
                                        small and fragmented reliable
                                        packets, checks each echo, disconnects

Prints "LIB <path>" (the libenet mapped into this process, from
/proc/self/maps), the server "PORT <n>", and "DONE <what>" on success.
Exits 3 on a timeout: every wait is bounded by SECONDS.
"""

import sys
import time

import enet


def mapped_libenet():
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split(None, 5)
            if len(fields) == 6 and "/libenet" in fields[5]:
                return fields[5].strip()
    return None


def fail(what):
    print("timed out: %s" % what, file=sys.stderr, flush=True)
    sys.exit(3)


def server(deadline):
    host = enet.Host(enet.Address("127.0.0.1", 0), 2, 1, 0, 0)
    print("PORT %d" % host.address.port, flush=True)
    echoed = 0
    while time.monotonic() < deadline:
        event = host.service(10)
        if event.type == enet.EVENT_TYPE_RECEIVE:
            event.peer.send(0, enet.Packet(b"echo:" + event.packet.data,
                                           enet.PACKET_FLAG_RELIABLE))
            echoed += 1
        elif event.type == enet.EVENT_TYPE_DISCONNECT:
            print("DONE echoed %d" % echoed, flush=True)
            return
    fail("the client's disconnect")


def client(port, deadline):
    host = enet.Host(None, 1, 1, 0, 0)
    peer = host.connect(enet.Address("127.0.0.1", port), 1, 0)
    while host.service(10).type != enet.EVENT_TYPE_CONNECT:
        if time.monotonic() > deadline:
            fail("CONNECT")
    # Small packets and one that fragments (larger than the MTU).
    messages = [b"hello %d" % i for i in range(20)] + [bytes(range(256)) * 40]
    for message in messages:
        peer.send(0, enet.Packet(message, enet.PACKET_FLAG_RELIABLE))
    received = []
    while len(received) < len(messages):
        event = host.service(10)
        if event.type == enet.EVENT_TYPE_RECEIVE:
            received.append(event.packet.data)
        elif time.monotonic() > deadline:
            fail("echo %d of %d" % (len(received) + 1, len(messages)))
    if received != [b"echo:" + m for m in messages]:
        print("echoes differ from what was sent", file=sys.stderr)
        sys.exit(1)
    peer.disconnect(0)
    while host.service(10).type != enet.EVENT_TYPE_DISCONNECT:
        if time.monotonic() > deadline:
            fail("DISCONNECT")
    print("DONE exchanged %d" % len(messages), flush=True)


def main():
    print("LIB %s" % mapped_libenet(), flush=True)
    if sys.argv[1] == "server":
        server(time.monotonic() + float(sys.argv[2]))
    else:
        client(int(sys.argv[2]), time.monotonic() + float(sys.argv[3]))


main()
