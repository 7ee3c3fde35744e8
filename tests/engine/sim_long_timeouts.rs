//! Long and pausable timeouts, in virtual time (`docs/extensions.md`,
//! "Long and pausable timeouts"):
//! - `enet_peer_timeout(peer, UINT32_MAX, UINT32_MAX, UINT32_MAX)` keeps a
//!   peer that never answers for as long as it stays silent, hours and
//!   days of it, with every step of the retransmission timeout saturating
//!   (the tests run with debug overflow checks) and the host's timer never
//!   due on every pass; once the link is back, the stream completes;
//! - `Host::hold_timeouts` (`enet_rs_host_hold_timeouts`) keeps the peers
//!   of a program that stops servicing its host for longer than their
//!   timeout, where the same stall without the hold ends them.

use enet::abi::ENetPeerState::*;
use enet::mem::{PacketFlags, PacketRef};
use enet::proto::{ChannelId, LossRecovery, PeerIndex};

use crate::sim::{connect, numbers_on, Sim};

const HOUR: u32 = 3_600_000;
/// Just under a day: the longest retransmission timeout.
const LONGEST_TIMEOUT: u32 = 86_400_000 - 1;

fn send_numbered(sim: &mut Sim, host: usize, peer: PeerIndex, number: u32) {
    let packet = PacketRef::new_with_data(&number.to_be_bytes(), PacketFlags::RELIABLE).unwrap();
    sim.host(host)
        .with_peer(peer, |view, terms| {
            view.send(ChannelId::from(0), &packet, terms)
        })
        .expect("send");
    let _ = packet.hand_to_program();
}

fn set_timeout(sim: &mut Sim, host: usize, peer: PeerIndex, limits: [u32; 3]) {
    let [limit, minimum, maximum] = limits;
    sim.host(host)
        .with_peer(peer, |view, _| view.set_timeout(limit, minimum, maximum));
}

/// A connected pair with `recovery` on both hosts; returns (sim, server,
/// client, server's peer, client's peer).
fn pair(
    seed: u64,
    start: u32,
    recovery: LossRecovery,
) -> (Sim, usize, usize, PeerIndex, PeerIndex) {
    let mut sim = Sim::new(seed, start);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    sim.host(server).set_loss_recovery(recovery);
    sim.host(client).set_loss_recovery(recovery);
    let (client_peer, server_peer) = connect(&mut sim, client, server, 1, 0);
    sim.run_for(100);
    (sim, server, client, server_peer, client_peer)
}

#[test]
fn uint32_max_timeouts_keep_a_silent_peer_for_days_and_the_stream_completes() {
    for (seed, recovery) in [
        (1, LossRecovery::STOCK),
        (2, LossRecovery::DEFAULT),
        (3, LossRecovery::FAST),
    ] {
        // Near the clock's wrap, which the days below cross.
        let (mut sim, server, client, server_peer, client_peer) =
            pair(seed, u32::MAX - 20 * HOUR, recovery);
        set_timeout(&mut sim, server, server_peer, [u32::MAX; 3]);
        set_timeout(&mut sim, client, client_peer, [u32::MAX; 3]);
        sim.down[server] = true;
        for number in 0..20 {
            send_numbered(&mut sim, client, client_peer, number);
        }
        let sent_before = sim.datagrams_sent;
        // Fifty hours of a silent server: every resend's timeout doubles
        // until it stops at a day.
        for hour in 0..50 {
            // Woken by the once-a-second bandwidth throttle and the
            // resends, never on every millisecond.
            let rounds = sim.rounds;
            sim.run_jumping(HOUR);
            let woken = sim.rounds - rounds;
            assert!(woken <= 5000, "{recovery:?}: {woken} passes in hour {hour}");
            for (host, peer) in [(client, client_peer), (server, server_peer)] {
                assert_eq!(
                    sim.state(host, peer),
                    ENET_PEER_STATE_CONNECTED,
                    "{recovery:?}: host {host} lost its peer after {hour} hours"
                );
                let now = sim.now;
                let next = sim.host(host).next_deadline(now);
                assert!(
                    next.is_some_and(|ms| ms <= LONGEST_TIMEOUT),
                    "{recovery:?}: next deadline {next:?}"
                );
            }
        }
        assert!(sim.disconnects(client).is_empty() && sim.disconnects(server).is_empty());
        // Resends back off: a few dozen datagrams in fifty hours, not one
        // per pass (both hosts, each also pinging or resending).
        let sent = sim.datagrams_sent - sent_before;
        assert!(sent < 400, "{recovery:?}: {sent} datagrams in 50 hours");
        // The link is back: within a day (the longest timeout), the
        // stream arrives whole and in order.
        sim.down[server] = false;
        let mut waited = 0;
        while numbers_on(&sim.received(server), 0).len() < 20 && waited < 25 {
            sim.run_jumping(HOUR);
            waited += 1;
        }
        assert_eq!(
            numbers_on(&sim.received(server), 0),
            (0..20).collect::<Vec<_>>(),
            "{recovery:?}"
        );
        assert_eq!(sim.state(client, client_peer), ENET_PEER_STATE_CONNECTED);
        assert!(sim.disconnects(client).is_empty() && sim.disconnects(server).is_empty());
    }
}

#[test]
fn a_silent_peer_with_stock_timeouts_still_times_out() {
    // The control: the same silence with the defaults ends the peer within
    // stock's 30-second maximum.
    let (mut sim, server, client, _, client_peer) = pair(4, 10_000, LossRecovery::DEFAULT);
    sim.down[server] = true;
    send_numbered(&mut sim, client, client_peer, 1);
    sim.run_jumping(31_000);
    assert_eq!(sim.state(client, client_peer), ENET_PEER_STATE_DISCONNECTED);
    assert_eq!(sim.disconnects(client), vec![0]);
}

/// The client sends a numbered stream, stalls (its program stops
/// servicing it) for `stall` ms in the middle of it, with `hold` ms of
/// timeouts held just before (if any), and resumes. Its peer gives up
/// after 2 s of silence; the server's never does. Returns whether the
/// client kept its peer, and the numbers the server received.
fn stall_client(seed: u64, stall: u32, hold: Option<u32>) -> (bool, Vec<u32>) {
    let (mut sim, server, client, server_peer, client_peer) =
        pair(seed, 50_000, LossRecovery::DEFAULT);
    set_timeout(&mut sim, server, server_peer, [u32::MAX; 3]);
    set_timeout(&mut sim, client, client_peer, [32, 1000, 2000]);
    for number in 0..10 {
        send_numbered(&mut sim, client, client_peer, number);
    }
    // Out, but not yet acknowledged.
    sim.step();
    if let Some(ms) = hold {
        let now = sim.now;
        sim.host(client).hold_timeouts(now, ms);
    }
    for number in 10..20 {
        send_numbered(&mut sim, client, client_peer, number);
    }
    sim.stalled[client] = true;
    sim.run_for(stall);
    sim.stalled[client] = false;
    sim.run_for(3000);
    if sim.state(client, client_peer) == ENET_PEER_STATE_CONNECTED {
        for number in 20..30 {
            send_numbered(&mut sim, client, client_peer, number);
        }
    }
    sim.run_for(3000);
    let kept = sim.state(client, client_peer) == ENET_PEER_STATE_CONNECTED
        && sim.disconnects(client).is_empty();
    (kept, numbers_on(&sim.received(server), 0))
}

#[test]
fn a_hold_keeps_the_peers_of_a_program_that_stalls() {
    // Without a hold, a five-second stall ends the peer on the first pass
    // after it, before the acknowledgements waiting for it are read.
    let (kept, _) = stall_client(5, 5000, None);
    assert!(!kept, "the stall alone should time the peer out");
    // With a hold longer than the stall, and with one that ran out during
    // it: the peer stays and the stream completes in order.
    for hold in [10_000, 3000] {
        let (kept, numbers) = stall_client(6, 5000, Some(hold));
        assert!(kept, "hold of {hold} ms: the peer was lost");
        assert_eq!(numbers, (0..30).collect::<Vec<_>>(), "hold of {hold} ms");
    }
}

#[test]
fn a_hold_resends_as_always_and_after_it_a_silent_peer_times_out() {
    let (mut sim, server, client, _, client_peer) = pair(7, 70_000, LossRecovery::STOCK);
    set_timeout(&mut sim, client, client_peer, [32, 1000, 2000]);
    sim.down[server] = true;
    let now = sim.now;
    sim.host(client).hold_timeouts(now, 20_000);
    assert_eq!(sim.host(client).timeouts_held_for(), Some(20_000));
    send_numbered(&mut sim, client, client_peer, 1);
    let sent_before = sim.datagrams_sent;
    // Ten times the peer's maximum: held, and resent all along.
    sim.run_for(19_000);
    assert_eq!(sim.state(client, client_peer), ENET_PEER_STATE_CONNECTED);
    assert!(sim.datagrams_sent - sent_before >= 5, "resends went on");
    // The hold ends at 20 s; the clocks restart there, and a peer that
    // stays silent is given up on within a timeout of that, not at once.
    sim.run_for(1100);
    assert_eq!(sim.host(client).timeouts_held_for(), None);
    assert_eq!(sim.state(client, client_peer), ENET_PEER_STATE_CONNECTED);
    let ended = sim.run_until(40_000, |s| {
        s.state(client, client_peer) == ENET_PEER_STATE_DISCONNECTED
    });
    assert!(ended, "a silent peer outlived the hold");
    assert_eq!(sim.disconnects(client), vec![0]);
}

#[test]
fn ending_a_hold_with_zero_restarts_the_clocks_at_once() {
    let (mut sim, server, client, server_peer, client_peer) = pair(8, 90_000, LossRecovery::FAST);
    set_timeout(&mut sim, server, server_peer, [u32::MAX; 3]);
    set_timeout(&mut sim, client, client_peer, [32, 1000, 2000]);
    let now = sim.now;
    sim.host(client).hold_timeouts(now, u32::MAX);
    assert_eq!(sim.host(client).timeouts_held_for(), Some(u32::MAX));
    send_numbered(&mut sim, client, client_peer, 1);
    sim.step();
    sim.down[server] = true;
    sim.stalled[client] = true;
    sim.run_for(10_000);
    // The program is back and ends the hold before servicing: its peer
    // has a full timeout from here; the link is back too.
    sim.down[server] = false;
    let now = sim.now;
    sim.host(client).hold_timeouts(now, 0);
    assert_eq!(sim.host(client).timeouts_held_for(), None);
    sim.stalled[client] = false;
    send_numbered(&mut sim, client, client_peer, 2);
    sim.run_for(3000);
    assert_eq!(sim.state(client, client_peer), ENET_PEER_STATE_CONNECTED);
    assert_eq!(numbers_on(&sim.received(server), 0), vec![1, 2]);
}
