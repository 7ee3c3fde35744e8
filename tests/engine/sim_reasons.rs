//! Why a connection ended ([`PeerEnd`]) on the simulated network: each
//! way a peer ends records its reason by the time the DISCONNECT event is
//! reported, the reason stays until the slot connects again, and only
//! time-outs count as time-outs for a host that reports them as their own
//! event type.

use std::collections::VecDeque;

use enet::abi::ENetPeerState::*;
use enet::mem::{PacketFlags, PacketRef};
use enet::proto::{ChannelId, CodecOnly, DisconnectEffect, NoCodec, PeerEnd, PeerIndex};
use enet::wire::command::{Command, CommandFlags, CommandHeader, ConnectFields, ConnectId};

use crate::sim::forge::{fragment_on, Forger};
use crate::sim::{address_of, connect, Seen, Sim, SimTransport};

/// The peer of each DISCONNECT event `host` reported, in order.
fn disconnected(sim: &Sim, host: usize) -> Vec<PeerIndex> {
    sim.hosts[host]
        .seen
        .iter()
        .filter_map(|seen| match seen {
            Seen::Disconnect { peer, .. } => Some(*peer),
            _ => None,
        })
        .collect()
}

/// Steps until `host` reports one more DISCONNECT than it had, within
/// `limit` ms; that event's peer.
fn next_disconnect(sim: &mut Sim, host: usize, limit: u32) -> PeerIndex {
    let before = disconnected(sim, host).len();
    assert!(
        sim.run_until(limit, |s| disconnected(s, host).len() > before),
        "no DISCONNECT within {limit} ms"
    );
    disconnected(sim, host)[before]
}

/// A client connected to a server with one slot each.
fn pair(seed: u64) -> (Sim, usize, usize, PeerIndex, PeerIndex) {
    let mut sim = Sim::new(seed, 1_000);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, server_peer) = connect(&mut sim, client, server, 1, 0);
    (sim, server, client, client_peer, server_peer)
}

/// Forges datagrams from `server` to `client`'s peer `client_peer`, as
/// the server's end of that connection would send them.
fn server_forger(sim: &Sim, server: usize, client_peer: PeerIndex) -> Forger {
    Forger {
        from: sim.hosts[server].address,
        peer_id: client_peer.peer_id(),
        session: 0,
    }
}

#[test]
fn a_graceful_disconnect_is_remote_with_its_data_on_one_side_and_local_on_the_other() {
    let (mut sim, server, client, client_peer, server_peer) = pair(61);
    assert_eq!(sim.host(client).peer_end(client_peer), None, "still up");
    assert_eq!(
        sim.host(server).disconnect(server_peer, 0xBEEF),
        DisconnectEffect::Done
    );
    assert_eq!(next_disconnect(&mut sim, client, 5_000), client_peer);
    assert_eq!(sim.disconnects(client), vec![0xBEEF]);
    assert_eq!(
        sim.host(client).peer_end(client_peer),
        Some(PeerEnd::RemoteDisconnect { data: 0xBEEF })
    );
    assert_eq!(next_disconnect(&mut sim, server, 5_000), server_peer);
    assert_eq!(
        sim.host(server).peer_end(server_peer),
        Some(PeerEnd::LocalDisconnect)
    );
    // Neither is a time-out, even for a host that reports those apart.
    sim.host(client).set_timeout_events(true);
    assert!(!sim.host(client).reports_timeout_event(client_peer));
    // The reason stays while the slot is free, and goes when it connects.
    sim.run_for(2_000);
    assert_eq!(
        sim.host(client).peer_end(client_peer),
        Some(PeerEnd::RemoteDisconnect { data: 0xBEEF })
    );
    let (again, _) = connect(&mut sim, client, server, 1, 0);
    assert_eq!(again, client_peer, "the same slot");
    assert_eq!(sim.host(client).peer_end(client_peer), None);
    assert_eq!(sim.host(server).peer_end(server_peer), None);
}

#[test]
fn a_dead_peer_is_a_time_out_on_both_kinds_of_traffic() {
    let (mut sim, server, client, client_peer, server_peer) = pair(62);
    sim.host(client).set_timeout_events(true);
    // The server's traffic is cut while the client has a reliable packet
    // in flight; the server itself only pings.
    sim.down[server] = true;
    let packet = PacketRef::new_with_data(b"anyone?", PacketFlags::RELIABLE).unwrap();
    sim.host(client)
        .with_peer(client_peer, |view, terms| {
            view.send(ChannelId::from(0), &packet, terms)
        })
        .expect("send");
    let _ = packet.hand_to_program();
    assert_eq!(next_disconnect(&mut sim, client, 40_000), client_peer);
    assert_eq!(sim.disconnects(client), vec![0], "a time-out carries 0");
    assert_eq!(
        sim.host(client).peer_end(client_peer),
        Some(PeerEnd::Timeout)
    );
    assert!(sim.host(client).reports_timeout_event(client_peer));
    // The server, cut off too, hears nothing but its own pings go
    // unanswered.
    if disconnected(&sim, server).is_empty() {
        next_disconnect(&mut sim, server, 40_000);
    }
    assert_eq!(disconnected(&sim, server), vec![server_peer]);
    assert_eq!(
        sim.host(server).peer_end(server_peer),
        Some(PeerEnd::Timeout)
    );
    assert!(
        !sim.host(server).reports_timeout_event(server_peer),
        "the server did not ask for time-out events"
    );
}

#[test]
fn a_connect_nothing_answers_is_unanswered() {
    let mut sim = Sim::new(63, 500);
    let client = sim.add_host(1, 1);
    sim.host(client).set_timeout_events(true);
    let peer = sim.host(client).connect(address_of(9), 1, 0).unwrap();
    sim.host(client)
        .with_peer(peer, |view, _| view.set_timeout(0, 300, 600));
    assert_eq!(next_disconnect(&mut sim, client, 5_000), peer);
    assert_eq!(
        sim.host(client).peer_end(peer),
        Some(PeerEnd::ConnectUnanswered)
    );
    assert!(sim.host(client).reports_timeout_event(peer));
}

#[test]
fn a_disconnect_before_the_connection_completed_refuses_the_connect() {
    let mut sim = Sim::new(64, 500);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    sim.down[server] = true; // nothing real answers; the forger does
    let server_address = sim.hosts[server].address;
    let peer = sim.host(client).connect(server_address, 1, 0).unwrap();
    sim.run_for(5);
    assert_eq!(sim.state(client, peer), ENET_PEER_STATE_CONNECTING);
    let forger = server_forger(&sim, server, peer);
    let header = CommandHeader {
        flags: CommandFlags::NONE,
        channel_id: 0xFF,
        reliable_sequence_number: 0,
    };
    let refusal = forger.datagram(&[(header, Command::Disconnect { data: 77 })]);
    forger.inject(&mut sim, client, &refusal).expect("taken");
    assert_eq!(next_disconnect(&mut sim, client, 100), peer);
    assert_eq!(sim.disconnects(client), vec![77]);
    assert_eq!(
        sim.host(client).peer_end(peer),
        Some(PeerEnd::ConnectRefused { data: 77 })
    );
    sim.host(client).set_timeout_events(true);
    assert!(!sim.host(client).reports_timeout_event(peer));
}

#[test]
fn a_verify_connect_that_does_not_match_refuses_the_connect() {
    let mut sim = Sim::new(65, 500);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    sim.down[server] = true;
    let server_address = sim.hosts[server].address;
    let peer = sim.host(client).connect(server_address, 1, 0).unwrap();
    sim.run_for(5);
    let ours = sim.host(client).peer(peer);
    let throttle = (
        ours.packetThrottleInterval,
        ours.packetThrottleAcceleration,
        ours.packetThrottleDeceleration,
    );
    let wrong_id = ours.connectID.wrapping_add(1);
    let forger = server_forger(&sim, server, peer);
    let header = CommandHeader {
        flags: CommandFlags::ACKNOWLEDGE,
        channel_id: 0xFF,
        reliable_sequence_number: 1,
    };
    let verify = ConnectFields {
        outgoing_peer_id: 0,
        incoming_session_id: 0,
        outgoing_session_id: 0,
        mtu: 1400,
        window_size: 65536,
        channel_count: 1,
        incoming_bandwidth: 0,
        outgoing_bandwidth: 0,
        packet_throttle_interval: throttle.0,
        packet_throttle_acceleration: throttle.1,
        packet_throttle_deceleration: throttle.2,
        connect_id: ConnectId::from_native(wrong_id),
    };
    let datagram = forger.datagram(&[(header, Command::VerifyConnect(verify))]);
    let _ = forger.inject(&mut sim, client, &datagram);
    assert_eq!(next_disconnect(&mut sim, client, 100), peer);
    assert_eq!(sim.disconnects(client), vec![0]);
    assert_eq!(
        sim.host(client).peer_end(peer),
        Some(PeerEnd::ConnectRefused { data: 0 })
    );
}

#[test]
fn disconnect_now_and_reset_are_ends_of_our_own() {
    let (mut sim, server, client, client_peer, server_peer) = pair(66);
    let effect = sim.host(client).disconnect_now(client_peer, 31);
    assert_eq!(effect, DisconnectEffect::FlushThenReset);
    // What enet_peer_disconnect_now does next: flush, then reset.
    let mut outbox = Vec::new();
    let mut transport = SimTransport {
        now: sim.now,
        due: VecDeque::new(),
        outbox: &mut outbox,
    };
    let mut codec = NoCodec;
    sim.host(client)
        .finish_disconnect(
            client_peer,
            effect,
            &mut transport,
            &mut CodecOnly(&mut codec),
        )
        .expect("flushed");
    assert_eq!(sim.state(client, client_peer), ENET_PEER_STATE_DISCONNECTED);
    assert_eq!(
        sim.host(client).peer_end(client_peer),
        Some(PeerEnd::LocalDisconnect)
    );
    let from = sim.hosts[client].address;
    for (_, bytes) in outbox {
        sim.inject(from, server, bytes);
    }
    assert_eq!(next_disconnect(&mut sim, server, 1_000), server_peer);
    assert_eq!(
        sim.host(server).peer_end(server_peer),
        Some(PeerEnd::RemoteDisconnect { data: 31 })
    );

    // The program resets a connected peer: a local reset. A reset of the
    // free slot afterwards ends nothing, so the reason stays.
    let (client_peer, _) = connect(&mut sim, client, server, 1, 0);
    assert_eq!(sim.host(client).peer_end(client_peer), None);
    sim.host(client).reset_by_program(client_peer);
    assert_eq!(
        sim.host(client).peer_end(client_peer),
        Some(PeerEnd::LocalReset)
    );
    sim.host(client).reset_by_program(client_peer);
    assert_eq!(
        sim.host(client).peer_end(client_peer),
        Some(PeerEnd::LocalReset)
    );
}

#[test]
fn a_reset_before_the_pending_event_replaces_the_engines_reason() {
    let (mut sim, server, client, client_peer, server_peer) = pair(67);
    // The server's DISCONNECT reaches the client, but the client program
    // resets the peer before the event is dispatched: no event will say
    // why, and the reason is the program's own.
    let forger = server_forger(&sim, server, client_peer);
    let session = sim.host(client).peer(client_peer).incomingSessionID;
    let forger = Forger { session, ..forger };
    let header = CommandHeader {
        flags: CommandFlags::NONE,
        channel_id: 0xFF,
        reliable_sequence_number: 0,
    };
    let bytes = forger.datagram(&[(header, Command::Disconnect { data: 5 })]);
    let mut events = enet::proto::EventSlot::unwanted();
    let now = sim.now;
    sim.host(client)
        .receive_datagram(now, forger.from.into(), &bytes, &mut NoCodec, &mut events)
        .expect("taken");
    assert_eq!(sim.state(client, client_peer), ENET_PEER_STATE_ZOMBIE);
    assert_eq!(
        sim.host(client).peer_end(client_peer),
        Some(PeerEnd::RemoteDisconnect { data: 5 })
    );
    sim.host(client).reset_by_program(client_peer);
    assert_eq!(
        sim.host(client).peer_end(client_peer),
        Some(PeerEnd::LocalReset)
    );
    sim.run_for(50);
    assert!(
        disconnected(&sim, client).is_empty(),
        "no event after a reset"
    );
    let _ = server_peer;
}

#[test]
fn an_evicted_reliable_reassembly_ends_its_peer_with_the_budget() {
    let mut sim = Sim::new(68, 1_000);
    let server = sim.add_host(2, 1);
    let mut forgers = Vec::new();
    let mut server_peers = Vec::new();
    for _ in 0..2 {
        let client = sim.add_host(1, 1);
        let (client_peer, server_peer) = connect(&mut sim, client, server, 1, 0);
        forgers.push(Forger::for_connection(&mut sim, client, client_peer));
        server_peers.push(server_peer);
    }
    // The first fragment of a 5000-byte reliable packet from each client;
    // the budget holds one, so the second evicts the first.
    let piece = [7u8; 1000];
    let first = |reliable: bool| fragment_on(0, reliable, 1, 1, 5, 0, 5000, 0, &piece);
    let datagram = forgers[0].datagram(&[first(true)]);
    forgers[0]
        .inject(&mut sim, server, &datagram)
        .expect("taken");
    let one = sim.host(server).reassembly_held();
    sim.host(server).set_reassembly_budget(Some(one + 500));
    let datagram = forgers[1].datagram(&[first(false)]);
    forgers[1]
        .inject(&mut sim, server, &datagram)
        .expect("taken");
    assert_eq!(next_disconnect(&mut sim, server, 50), server_peers[0]);
    assert_eq!(
        sim.host(server).peer_end(server_peers[0]),
        Some(PeerEnd::ReassemblyBudget)
    );
    assert_eq!(sim.host(server).peer_end(server_peers[1]), None, "still up");
}

#[test]
fn a_lost_encrypted_session_ends_its_peer_as_an_encryption_failure() {
    let (mut sim, server, client, client_peer, _) = pair(69);
    let server_address = sim.hosts[server].address;
    // What the DTLS transport reports when the session with an address
    // fails or closes.
    sim.host(client).lose_endpoint(server_address.into());
    assert_eq!(next_disconnect(&mut sim, client, 10), client_peer);
    assert_eq!(
        sim.host(client).peer_end(client_peer),
        Some(PeerEnd::EncryptionFailed)
    );
}
