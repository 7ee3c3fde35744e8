//! Review finding F1: a peer's send timer is only recomputed after the send
//! pass visits it, so a received ACKNOWLEDGE that moves the peer's next
//! deadline *earlier* (a new front of the sent queue with a shorter
//! retransmission timeout, or an empty sent queue that makes a ping due)
//! leaves the old, later timer in place.
//!
//! Stock 1.3.17 checks every peer on every `enet_host_service` call: it
//! retransmits when `serviceTime >= peer->nextTimeout`, where an ACK sets
//! `nextTimeout` to the new front's `sentTime + roundTripTimeout`
//! (protocol.c@v1.3.17:275-280, 1596-1599), and it pings once the sent queue
//! is empty and `serviceTime - lastReceiveTime >= pingInterval`
//! (protocol.c@v1.3.17:1607-1615). The simulation services each host every
//! millisecond, like a program calling `enet_host_service(host, &e, 0)` in
//! a loop, so stock would act at exactly those times.

mod sim;

use enet::mem::PacketRef;
use sim::{connect, Sim};

const RELIABLE: u32 = 1;
/// Longer than any test runs: the peer never pings on its own.
const NO_PINGS: u32 = 10_000_000;

fn send(sim: &mut Sim, host: usize, peer: usize, data: &[u8]) {
    let packet = PacketRef::new_with_data(data, RELIABLE).unwrap();
    sim.host(host).send(peer, 0, &packet).expect("send");
    let _ = packet.hand_to_program();
}

/// A connected pair on a quiet link (no pings either way); returns
/// (sim, server, client, server's peer, client's peer).
fn quiet_pair(seed: u64) -> (Sim, usize, usize, usize, usize) {
    let mut sim = Sim::new(seed, 50_000);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, server_peer) = connect(&mut sim, client, server, 1, 0);
    sim.host(server).set_ping_interval(server_peer, NO_PINGS);
    sim.host(client).set_ping_interval(client_peer, NO_PINGS);
    // Let pings, bandwidth-limit commands and their ACKs finish.
    sim.run_for(3000);
    (sim, server, client, server_peer, client_peer)
}

/// Steps until the client has sent `count` more datagrams (each a send or
/// retransmission of its one outstanding reliable command); returns the
/// time of the last one.
fn wait_for_sends(sim: &mut Sim, client: usize, client_peer: usize, count: usize) -> u32 {
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

// F1 (retransmission): command A has backed off to 8x its timeout; B is
// sent after it and lost. When A's ACK arrives, stock's next timeout is B's
// (sent + its own short timeout) and B is retransmitted then; ours keeps
// A's backed-off deadline and retransmits B hundreds of ms late.
#[test]
fn review_f1_ack_of_a_backed_off_command_brings_the_next_retransmission_forward() {
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

// F1 (ping): A has backed off to 32x its timeout when it is finally
// acknowledged. Stock pings pingInterval (500 ms) after that ACK, since the
// sent queue is empty; ours waits for A's stale retransmission deadline.
#[test]
fn review_f1_ping_follows_the_acknowledgement_that_emptied_the_sent_queue() {
    let (mut sim, server, client, _server_peer, client_peer) = quiet_pair(102);
    sim.down[server] = true;
    send(&mut sim, client, client_peer, b"A");
    // Six sends: A's timeout is 32x the first, far beyond 500 ms.
    wait_for_sends(&mut sim, client, client_peer, 6);
    sim.host(client).set_ping_interval(client_peer, 0); // back to 500 ms
    sim.down[server] = false;
    let before = sim.hosts[client].host.peer(client_peer).lastReceiveTime;
    assert!(
        sim.run_until(1000, |s| s.hosts[client].host.peer(client_peer).lastReceiveTime != before),
        "A was never acknowledged"
    );
    let acknowledged = sim.hosts[client].host.peer(client_peer).lastReceiveTime;
    let ping_due = acknowledged.wrapping_add(500);
    sim.run_until(2000, |s| s.now == ping_due.wrapping_add(1));
    let last_send = sim.hosts[client].host.peer(client_peer).lastSendTime;
    assert_eq!(
        last_send, ping_due,
        "no ping at lastReceiveTime + pingInterval ({ping_due}); last send at {last_send}"
    );
}

// F7: `enet_time_set` to an earlier time (programs call enet_time_set(0)
// after enet_host_create). The schedule's extended clock ignores the step
// back (schedule.rs:20-30) and freezes until the clock passes its old
// reading again, so no timer fires in between: no retransmission, no ping,
// no timeout. Stock compares 32-bit times on every call and times the dead
// peer out as usual (stock run: tests-c/diff_review_time_set_back.c).
#[test]
fn review_f7_timers_keep_running_after_the_clock_is_set_back() {
    let mut sim = Sim::new(103, 100_000_000);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, _) = connect(&mut sim, client, server, 1, 0);
    sim.run_for(2000);
    sim.now = 1000; // enet_time_set(1000)
    sim.down[server] = true;
    sim.host(client).set_timeout(client_peer, 0, 1000, 2000);
    send(&mut sim, client, client_peer, b"anyone?");
    let before = sim.disconnects(client).len();
    assert!(
        sim.run_until(10_000, |s| s.disconnects(client).len() > before),
        "the dead server was never timed out"
    );
}
