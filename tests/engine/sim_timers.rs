//! Peer timers follow every change of their deadlines, not only the send
//! pass: a received ACKNOWLEDGE that moves the next deadline *earlier* (a
//! new front of the sent queue with a shorter retransmission timeout, or an
//! empty sent queue that makes a ping due), a connection completed by
//! dispatch, and a clock set back with `enet_time_set`.
//!
//! Stock 1.3.17 checks every peer on every `enet_host_service` call: it
//! retransmits when `serviceTime >= peer->nextTimeout`, where an ACK sets
//! `nextTimeout` to the new front's `sentTime + roundTripTimeout`
//! (protocol.c@v1.3.17:275-280, 1596-1599), and it pings once the sent queue
//! is empty and `serviceTime - lastReceiveTime >= pingInterval`
//! (protocol.c@v1.3.17:1607-1615). The simulation services each host every
//! millisecond, like a program calling `enet_host_service(host, &e, 0)` in
//! a loop, so stock would act at exactly those times.

use enet::mem::{PacketFlags, PacketRef};
use enet::proto::{ChannelId, PeerIndex};

use crate::sim::{connect, Sim, SimTransport};

/// Longer than any test runs: the peer never pings on its own.
const NO_PINGS: u32 = 10_000_000;

fn send(sim: &mut Sim, host: usize, peer: PeerIndex, data: &[u8]) {
    let packet = PacketRef::new_with_data(data, PacketFlags::RELIABLE).unwrap();
    sim.host(host)
        .with_peer(peer, |view, terms| {
            view.send(ChannelId::from(0), &packet, terms)
        })
        .expect("send");
    let _ = packet.hand_to_program();
}

/// A connected pair on a quiet link (no pings either way); returns
/// (sim, server, client, server's peer, client's peer).
fn quiet_pair(seed: u64) -> (Sim, usize, usize, PeerIndex, PeerIndex) {
    let mut sim = Sim::new(seed, 50_000);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, server_peer) = connect(&mut sim, client, server, 1, 0);
    sim.host(server)
        .with_peer(server_peer, |peer, _| peer.set_ping_interval(NO_PINGS));
    sim.host(client)
        .with_peer(client_peer, |peer, _| peer.set_ping_interval(NO_PINGS));
    // Let pings, bandwidth-limit commands and their ACKs finish.
    sim.run_for(3000);
    (sim, server, client, server_peer, client_peer)
}

/// Steps until the client has sent `count` more datagrams (each a send or
/// retransmission of its one outstanding reliable command); returns the
/// time of the last one.
fn wait_for_sends(sim: &mut Sim, client: usize, client_peer: PeerIndex, count: usize) -> u32 {
    let mut last = sim.hosts[client].host.peer(client_peer).lastSendTime;
    let mut seen = 0;
    for _ in 0..20_000 {
        sim.step();
        let sent = sim.hosts[client].host.peer(client_peer).lastSendTime;
        if sent != last {
            last = sent;
            seen += 1;
            if seen == count {
                return sent;
            }
        }
    }
    panic!("the client sent only {seen} datagrams");
}

// retransmission: command A has backed off to 8x its timeout; B is
// sent after it and lost. When A's ACK arrives, stock's next timeout is B's
// (sent + its own short timeout) and B is retransmitted then; ours keeps
// A's backed-off deadline and retransmits B hundreds of ms late.
#[test]
fn ack_of_a_backed_off_command_brings_the_next_retransmission_forward() {
    let (mut sim, server, client, _server_peer, client_peer) = quiet_pair(101);
    sim.down[server] = true;
    send(&mut sim, client, client_peer, b"A");
    // The original send and three retransmissions: A's timeout is now 8x.
    wait_for_sends(&mut sim, client, client_peer, 4);
    // The step that sent A's 4th copy (delivery 5 ms later) has run.
    send(&mut sim, client, client_peer, b"B");
    sim.step(); // B goes out now, 1 ms after A's copy
    let peer = sim.hosts[client].host.peer(client_peer);
    let b_sent = peer.lastSendTime;
    let b_timeout = peer.roundTripTime + 4 * peer.roundTripTimeVariance;
    assert_eq!(b_sent, sim.now - 1, "B was not sent on its own step");
    sim.run_for(3); // A's copy arrives on the 5th step after it was sent
    sim.down[server] = false;
    sim.step(); // the server takes A's copy and acknowledges it
    assert_eq!(sim.received(server), vec![(0, b"A".to_vec())]);
    sim.down[server] = true;
    sim.step(); // B arrives now and is lost
    sim.down[server] = false;

    // Stock: B is resent at b_sent + b_timeout and arrives 5 ms later.
    let deadline = b_sent.wrapping_add(b_timeout).wrapping_add(5 + 2);
    let arrived = sim.run_until(30_000, |s| s.received(server).len() == 2);
    assert!(arrived, "B never arrived");
    let late_by = sim.now.wrapping_sub(deadline) as i32;
    assert!(
        late_by <= 0,
        "B (sent at {b_sent}, timeout {b_timeout} ms) was retransmitted {late_by} ms later than stock"
    );
}

// ping: A has backed off to 32x its timeout when it is finally
// acknowledged. Stock pings pingInterval (500 ms) after that ACK, since the
// sent queue is empty; ours waits for A's stale retransmission deadline.
#[test]
fn ping_follows_the_acknowledgement_that_emptied_the_sent_queue() {
    let (mut sim, server, client, _server_peer, client_peer) = quiet_pair(102);
    back_off_a_command(&mut sim, server, client, client_peer);
    let before = sim.hosts[client].host.peer(client_peer).lastReceiveTime;
    assert!(
        sim.run_until(1000, |s| s.hosts[client]
            .host
            .peer(client_peer)
            .lastReceiveTime
            != before),
        "A was never acknowledged"
    );
    let acknowledged = sim.hosts[client].host.peer(client_peer).lastReceiveTime;
    assert_pings_after(&mut sim, client, client_peer, acknowledged);
}

/// Makes the client's one reliable command back off to 32x its timeout,
/// far beyond 500 ms, on a link to `server` that is down meanwhile, and
/// sets the client's ping interval back to 500 ms.
fn back_off_a_command(sim: &mut Sim, server: usize, client: usize, client_peer: PeerIndex) {
    sim.down[server] = true;
    send(sim, client, client_peer, b"A");
    // Six sends: the original and five retransmissions.
    wait_for_sends(sim, client, client_peer, 6);
    sim.host(client)
        .with_peer(client_peer, |peer, _| peer.set_ping_interval(0));
    sim.down[server] = false;
}

/// Asserts the client pings `client_peer` exactly pingInterval (500 ms)
/// after the ACK it received at `acknowledged`, as stock does.
fn assert_pings_after(sim: &mut Sim, client: usize, client_peer: PeerIndex, acknowledged: u32) {
    let ping_due = acknowledged.wrapping_add(500);
    sim.run_until(2000, |s| s.now == ping_due.wrapping_add(1));
    let last_send = sim.hosts[client].host.peer(client_peer).lastSendTime;
    assert_eq!(
        last_send, ping_due,
        "no ping at lastReceiveTime + pingInterval ({ping_due}); last send at {last_send}"
    );
}

// `enet_time_set` to an earlier time (programs call enet_time_set(0)
// after enet_host_create). The schedule's extended clock ignores the step
// back (schedule.rs:20-30) and freezes until the clock passes its old
// reading again, so no timer fires in between: no retransmission, no ping,
// no timeout. Stock compares 32-bit times on every call and times the dead
// peer out as usual (stock run: tests-c/diff_time_set_back.c).
#[test]
fn timers_keep_running_after_the_clock_is_set_back() {
    let mut sim = Sim::new(103, 100_000_000);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, _) = connect(&mut sim, client, server, 1, 0);
    sim.run_for(2000);
    sim.now = 1000; // enet_time_set(1000)
    sim.down[server] = true;
    sim.host(client)
        .with_peer(client_peer, |peer, _| peer.set_timeout(0, 1000, 2000));
    send(&mut sim, client, client_peer, b"anyone?");
    let before = sim.disconnects(client).len();
    assert!(
        sim.run_until(10_000, |s| s.disconnects(client).len() > before),
        "the dead server was never timed out"
    );
}

/// A bare two-host network that drives the engine as a program does with
/// `enet_host_service(host, NULL, 0)` followed by
/// `while (enet_host_check_events(host, &event) > 0)`: receive and send
/// passes get no event, so connects and disconnects go through the
/// dispatch queue.
struct NullEventNet {
    sim: Sim,
    in_flight: Vec<(u64, usize, Vec<u8>)>,
    ticks: u64,
    down: [bool; 2],
    /// Per host, whether each event dispatched was a CONNECT.
    connects: [Vec<bool>; 2],
}

impl NullEventNet {
    const LATENCY: u64 = 5;

    fn step(&mut self) {
        use enet::proto::{CodecOnly, NoCodec, Serviced};
        let now = self.sim.now;
        for index in 0..2 {
            if self.down[index] {
                self.in_flight.retain(|(_, to, _)| *to != index);
                continue;
            }
            let from = self.sim.hosts[1 - index].address;
            let (due, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.in_flight)
                .into_iter()
                .partition(|(at, to, _)| *to == index && *at <= self.ticks);
            self.in_flight = rest;
            let mut outbox = Vec::new();
            let mut transport = SimTransport {
                now,
                due: due.into_iter().map(|(_, _, bytes)| (from, bytes)).collect(),
                outbox: &mut outbox,
            };
            let host = &mut self.sim.hosts[index].host;
            // `enet_host_service(host, NULL, 0)`: no event is reported.
            let serviced = host
                .service(&mut transport, &mut CodecOnly(&mut NoCodec), false, 0)
                .expect("service");
            assert!(matches!(serviced, Serviced::Idle));
            assert!(transport.due.is_empty());
            while let Some(event) = host.dispatch() {
                let connect = matches!(event, enet::proto::Event::Connect { .. });
                if let enet::proto::Event::Receive { packet, .. } = event {
                    packet.release();
                }
                self.connects[index].push(connect);
            }
            for (_, bytes) in outbox {
                self.in_flight
                    .push((self.ticks + Self::LATENCY, 1 - index, bytes));
            }
        }
        self.ticks += 1;
        self.sim.now = self.sim.now.wrapping_add(1);
    }
}

// state change in dispatch: with NULL events the connect completes
// in the dispatch queue (CONNECTION_SUCCEEDED); the send pass that
// acknowledges the VERIFY_CONNECT finds the peer not yet CONNECTED, so it
// sets no ping timer, and enet_host_check_events then makes it CONNECTED
// without a reschedule. Stock pings a CONNECTED peer whose lastReceiveTime
// is 0 (no ACK received yet) on the very next service call
// (protocol.c@v1.3.17:1607-1615). Ours sends nothing until something else
// wakes the peer (here the BANDWIDTH_LIMIT of the next throttle epoch, up
// to a second later), and a peer that dies right after the handshake is
// timed out that much later.
#[test]
fn peer_connected_through_check_events_pings_at_once() {
    let mut sim = Sim::new(104, 50_000);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let server_address = sim.hosts[server].address;
    let client_peer = sim
        .host(client)
        .connect(server_address, 1, 0)
        .expect("free slot");
    let mut net = NullEventNet {
        sim,
        in_flight: Vec::new(),
        ticks: 0,
        down: [false; 2],
        connects: [Vec::new(), Vec::new()],
    };
    for _ in 0..2000 {
        if net.connects[client].contains(&true) {
            break;
        }
        net.step();
    }
    assert!(net.connects[client].contains(&true), "no connect");
    // The step that dispatched the client's CONNECT ran at now - 1.
    let connected_at = net.sim.now.wrapping_sub(1);
    net.step();
    let peer = net.sim.hosts[client].host.peer(client_peer);
    assert_eq!(peer.lastReceiveTime, 0);
    assert_eq!(
        peer.lastSendTime,
        connected_at.wrapping_add(1),
        "no PING on the service call after the connect (connected at {connected_at})"
    );
}

// A receive phase that takes datagrams from two peers, one after the
// other, sets both peers' timers: the engine reschedules a peer once after
// a run of its datagrams, so the first peer's reschedule must happen when
// the second's datagram comes. Here the first's datagram is the ACK that
// empties its sent queue, as in the test above, and the second's a PING
// (neither makes an event, which would end the receive phase): the ping
// to the first still follows its ACK by pingInterval.
#[test]
fn the_first_peer_of_a_receive_phase_is_rescheduled_when_another_follows() {
    let mut sim = Sim::new(104, 50_000);
    // The client is serviced first in each step, so what the two servers
    // send on one step reaches it in one receive phase, the first
    // server's datagram before the second's.
    let client = sim.add_host(2, 1);
    let first = sim.add_host(1, 1);
    let second = sim.add_host(1, 1);
    let (client_first, first_peer) = connect(&mut sim, client, first, 1, 0);
    let (client_second, second_peer) = connect(&mut sim, client, second, 1, 0);
    for (host, peer) in [
        (client, client_first),
        (client, client_second),
        (first, first_peer),
        (second, second_peer),
    ] {
        sim.host(host)
            .with_peer(peer, |view, _| view.set_ping_interval(NO_PINGS));
    }
    sim.run_for(3000);
    back_off_a_command(&mut sim, first, client, client_first);
    // The second server pings on every step until A's ACK has arrived, so
    // a PING follows the ACK on the step it arrives.
    let heard = |s: &Sim| s.hosts[client].host.peer(client_first).lastReceiveTime;
    let second_bytes = |s: &Sim| s.hosts[client].host.peer(client_second).incomingDataTotal;
    let before = heard(&sim);
    let mut second_arrived = false;
    for _ in 0..2000 {
        if heard(&sim) != before {
            break;
        }
        sim.host(second)
            .with_peer(second_peer, |view, _| view.ping());
        let bytes = second_bytes(&sim);
        sim.step();
        second_arrived = second_bytes(&sim) != bytes;
    }
    let acknowledged = heard(&sim);
    assert_ne!(acknowledged, before, "A was never acknowledged");
    assert!(
        second_arrived,
        "no PING from the second server arrived with A's ACK"
    );
    assert_pings_after(&mut sim, client, client_first, acknowledged);
}
