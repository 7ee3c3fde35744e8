"""enet-rs's network conditioner under a relinked program: pyenet (Debian's
python3-enet, unchanged) runs on our libenet.so.7 with ENET_RS_NETSIM set,
and talks to a stock ENet 1.3.17 peer in another process (pyenet again, on
Debian's libenet.so.7). The round trips it measures, and ENet's own, show
the configured lag; a malformed spec is named on stderr and the host is
made without a conditioner.

Only meaningful on our library (run.sh LIBDIR); on stock the tests skip.
Loopback only, a free port, every wait bounded, the peer process stopped
by its PID.
"""

import os
import subprocess
import sys
import time
import unittest

import enet

STOCK = "/usr/lib/x86_64-linux-gnu/libenet.so.7"
WAIT_S = 5.0

# The stock peer: echoes every packet back, reliable, until stdin closes or
# 20 s pass. Prints the library it runs on, then its port.
ECHO_PEER = r"""
import select, sys, time, enet
with open("/proc/self/maps") as maps:
    print(next((l.split(None, 5)[5].strip() for l in maps
                if len(l.split(None, 5)) == 6 and "/libenet" in l), None), flush=True)
host = enet.Host(enet.Address("127.0.0.1", 0), 2, 1, 0, 0)
print(host.address.port, flush=True)
deadline = time.monotonic() + 20
while time.monotonic() < deadline:
    if select.select([sys.stdin], [], [], 0)[0] and not sys.stdin.read(1):
        break
    event = host.service(5)
    if event.type == enet.EVENT_TYPE_RECEIVE:
        event.peer.send(0, enet.Packet(event.packet.data, enet.PACKET_FLAG_RELIABLE))
"""


def on_our_library():
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split(None, 5)
            if len(fields) == 6 and "/libenet" in fields[5]:
                return os.path.realpath(fields[5].strip()) != os.path.realpath(STOCK)
    return False


def stock_environment():
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env.pop("ENET_RS_NETSIM", None)
    return env


@unittest.skipUnless(on_our_library(), "the network conditioner is enet-rs's")
class TestNetsimAgainstStock(unittest.TestCase):
    def setUp(self):
        self.peer = subprocess.Popen(
            [sys.executable, "-c", ECHO_PEER], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, env=stock_environment(), text=True)
        library = self.peer.stdout.readline().strip()
        self.assertEqual(os.path.realpath(library), os.path.realpath(STOCK))
        self.port = int(self.peer.stdout.readline())

    def tearDown(self):
        self.peer.stdin.close()
        try:
            self.peer.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.peer.kill()
            self.peer.wait()
        self.peer.stdout.close()
        os.environ.pop("ENET_RS_NETSIM", None)

    def echo_round_trips(self, spec, count):
        """Connects a host made under ENET_RS_NETSIM=spec to the stock
        peer, sends `count` messages one at a time, and returns the round
        trips measured here (s) and ENet's roundTripTime (ms)."""
        os.environ["ENET_RS_NETSIM"] = spec
        client = enet.Host(None, 1, 1, 0, 0)
        del os.environ["ENET_RS_NETSIM"]
        peer = client.connect(enet.Address("127.0.0.1", self.port), 1)
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            if client.service(5).type == enet.EVENT_TYPE_CONNECT:
                break
        else:
            self.fail("no connection to the stock peer")
        trips = []
        for number in range(count):
            sent = time.monotonic()
            peer.send(0, enet.Packet(b"%d" % number, enet.PACKET_FLAG_RELIABLE))
            while time.monotonic() < sent + WAIT_S:
                event = client.service(5)
                if event.type == enet.EVENT_TYPE_RECEIVE:
                    self.assertEqual(event.packet.data, b"%d" % number)
                    trips.append(time.monotonic() - sent)
                    break
            else:
                self.fail("message %d never came back" % number)
        rtt = peer.roundTripTime
        peer.disconnect_now(0)
        return trips, rtt

    def test_lag_shows_in_every_round_trip(self):
        # 40 ms each way on our side: a round trip of at least 80 ms, where
        # loopback alone takes well under one.
        trips, rtt = self.echo_round_trips("lag=40ms,seed=3", 12)
        print("round trips %.1f-%.1f ms, ENet's roundTripTime %d ms"
              % (min(trips) * 1000, max(trips) * 1000, rtt), file=sys.stderr)
        self.assertGreaterEqual(min(trips), 0.079)
        self.assertLess(sorted(trips)[len(trips) // 2], 0.2)
        self.assertGreaterEqual(rtt, 80)

    def test_without_it_loopback_is_fast(self):
        trips, _ = self.echo_round_trips("", 5)
        self.assertLess(min(trips), 0.04)

    def test_a_bad_spec_is_named_and_ignored(self):
        program = ("import enet, os; enet.Host(None, 1, 1, 0, 0); "
                   "print('made', flush=True)")
        env = dict(os.environ, ENET_RS_NETSIM="loss=5%,lag=soon")
        result = subprocess.run([sys.executable, "-c", program], env=env,
                                capture_output=True, text=True, timeout=20)
        self.assertEqual(result.stdout.strip(), "made")
        self.assertIn("ENET_RS_NETSIM", result.stderr)
        self.assertIn("`lag`", result.stderr)


if __name__ == "__main__":
    unittest.main()
