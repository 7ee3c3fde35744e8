//! Fragment reassembly memory: it follows the bytes received, not the
//! length claimed, and all incomplete reassemblies of all peers share one
//! host-wide budget in which the stalest is evicted.

use enet::abi::ENetPeerState;
use enet::mem::{PacketFlags, PacketRef};
use enet::proto::DisconnectEffect;
use enet::proto::{ChannelId, PeerIndex};

use crate::sim::forge::{fragment_on, Forger};
use crate::sim::{connect, Seen, Sim};

const CLAIM: u32 = 32 << 20;
const PIECE: u32 = 1000;
const PIECES: u32 = CLAIM.div_ceil(PIECE);

/// A server and `attackers` connected clients, each forged as itself.
fn setup(attackers: usize) -> (Sim, usize, Vec<Forger>, Vec<PeerIndex>) {
    let mut sim = Sim::new(7, 10_000);
    let server = sim.add_host(attackers + 1, 4);
    let mut forgers = Vec::new();
    let mut server_peers = Vec::new();
    for _ in 0..attackers {
        let client = sim.add_host(1, 4);
        let (client_peer, server_peer) = connect(&mut sim, client, server, 4, 0);
        forgers.push(Forger::for_connection(&mut sim, client, client_peer));
        server_peers.push(server_peer);
    }
    (sim, server, forgers, server_peers)
}

/// Fragment `number` of a claimed 32 MiB unreliable packet on `channel`.
fn claim_piece(
    sim: &mut Sim,
    server: usize,
    forger: &Forger,
    channel: u8,
    start: u16,
    number: u32,
) {
    let data = [number as u8; PIECE as usize];
    let datagram = forger.datagram(&[fragment_on(
        channel,
        false,
        start,
        0,
        PIECES,
        number,
        CLAIM,
        number * PIECE,
        &data,
    )]);
    let _ = forger.inject(sim, server, &datagram);
}

/// Fragment `number` of a `total`-byte packet in 1000-byte fragments.
fn piece_of(
    sim: &mut Sim,
    server: usize,
    forger: &Forger,
    reliable: bool,
    start: u16,
    total: u32,
    number: u32,
) {
    let count = total.div_ceil(PIECE);
    let length = PIECE.min(total - number * PIECE) as usize;
    let data = vec![start as u8 ^ number as u8; length];
    let sequence = if reliable { start + number as u16 } else { 0 };
    let datagram = forger.datagram(&[fragment_on(
        0,
        reliable,
        start,
        sequence,
        count,
        number,
        total,
        number * PIECE,
        &data,
    )]);
    let _ = forger.inject(sim, server, &datagram);
}

#[test]
fn memory_follows_the_bytes_received_not_the_length_claimed() {
    let (mut sim, server, forgers, server_peers) = setup(1);
    for number in 0..10 {
        claim_piece(&mut sim, server, &forgers[0], 0, 1, number * 97);
    }
    let held = sim.host(server).reassembly_held();
    assert!(held >= 10 * PIECE as usize, "{held}");
    assert!(
        held < 12_000,
        "10 fragments of a 32 MiB claim hold {held} bytes"
    );
    // The peer's waiting-data count still charges the claim, as stock.
    assert_eq!(
        sim.host(server).peer(server_peers[0]).totalWaitingData,
        CLAIM as usize
    );
}

#[test]
fn sixteen_attackers_on_three_channels_stay_within_the_budget() {
    let (mut sim, server, forgers, server_peers) = setup(16);
    let budget = 2 << 20;
    sim.host(server).set_reassembly_budget(Some(budget));
    let mut peak = 0;
    for number in 0..150 {
        for forger in &forgers {
            for channel in 0..3u8 {
                claim_piece(&mut sim, server, forger, channel, 1, number);
                let held = sim.host(server).reassembly_held();
                assert!(held <= budget, "{held} > {budget}");
                peak = peak.max(held);
            }
        }
    }
    // 16 peers sent 2.4 MB of fragments, more than the budget: it was
    // reached, and the stalest reassemblies made way (each peer's next
    // fragment starts its reassembly again).
    assert!(16 * 150 * PIECE as usize > budget);
    assert!(peak > budget - 64 * 1024, "peak {peak}");
    // Unreliable reassemblies are only dropped: every peer is still there.
    sim.run_for(100);
    for &peer in &server_peers {
        assert_eq!(
            sim.state(server, peer),
            ENetPeerState::ENET_PEER_STATE_CONNECTED
        );
    }
    // Every byte is given back as the peers go.
    for &peer in &server_peers {
        assert_eq!(
            sim.host(server).disconnect_now(peer, 0),
            DisconnectEffect::FlushThenReset
        );
    }
    assert_eq!(sim.host(server).reassembly_held(), 0);
    assert_eq!(sim.host(server).reassemblies(), 0);
}

#[test]
fn the_stalest_reassembly_is_evicted() {
    let (mut sim, server, forgers, _) = setup(4);
    let (a, b, c, d) = (&forgers[0], &forgers[1], &forgers[2], &forgers[3]);
    piece_of(&mut sim, server, a, false, 1, 3000, 0);
    let one = sim.host(server).reassembly_held();
    piece_of(&mut sim, server, b, false, 1, 3000, 0);
    piece_of(&mut sim, server, c, false, 1, 3000, 0);
    piece_of(&mut sim, server, a, false, 1, 3000, 1);
    let fragment = sim.host(server).reassembly_held() - 3 * one;
    // Room for exactly what is held: D's first fragment must evict one,
    // and B's is the stalest (A moved on after C).
    sim.host(server)
        .set_reassembly_budget(Some(3 * one + fragment));
    piece_of(&mut sim, server, d, false, 1, 3000, 0);
    assert_eq!(sim.host(server).reassemblies(), 3);
    sim.host(server).set_reassembly_budget(None);
    for number in 1..3 {
        for forger in [b, c, d] {
            piece_of(&mut sim, server, forger, false, 1, 3000, number);
        }
    }
    piece_of(&mut sim, server, a, false, 1, 3000, 2);
    sim.run_for(50);
    let delivered: Vec<u8> = sim
        .received(server)
        .iter()
        .map(|(_, data)| data[0])
        .collect();
    // A, C and D complete; B lost its first fragment and never will.
    assert_eq!(sim.received(server).len(), 3, "{delivered:?}");
    assert!(sim
        .received(server)
        .iter()
        .all(|(_, data)| data.len() == 3000));
    assert_eq!(sim.host(server).reassemblies(), 1);
}

#[test]
fn an_evicted_reliable_reassembly_disconnects_its_peer() {
    let (mut sim, server, forgers, server_peers) = setup(2);
    // Reliable fragments are acknowledged as they arrive; once evicted the
    // sender will never resend them, so that channel could never move on.
    piece_of(&mut sim, server, &forgers[0], true, 1, 5000, 0);
    let one = sim.host(server).reassembly_held();
    sim.host(server).set_reassembly_budget(Some(one + 500));
    piece_of(&mut sim, server, &forgers[1], false, 1, 5000, 0);
    assert_eq!(sim.host(server).reassemblies(), 1);
    sim.run_for(50);
    let disconnected: Vec<PeerIndex> = sim.hosts[server]
        .seen
        .iter()
        .filter_map(|seen| match seen {
            Seen::Disconnect { peer, .. } => Some(*peer),
            _ => None,
        })
        .collect();
    assert_eq!(disconnected, vec![server_peers[0]]);
    assert_eq!(
        sim.state(server, server_peers[0]),
        ENetPeerState::ENET_PEER_STATE_DISCONNECTED
    );
    assert_eq!(
        sim.state(server, server_peers[1]),
        ENetPeerState::ENET_PEER_STATE_CONNECTED
    );
}

#[test]
fn a_legit_large_packet_gets_through_stale_attack_reassemblies() {
    let (mut sim, server, forgers, _) = setup(7);
    let budget = 8 << 20;
    sim.host(server).set_reassembly_budget(Some(budget));
    // Seven attackers each hold about 1 MiB, then go quiet.
    for number in 0..1000 {
        for forger in &forgers {
            claim_piece(&mut sim, server, forger, 1, 1, number);
        }
    }
    assert!(sim.host(server).reassembly_held() > 7 << 20);
    let legit = sim.add_host(1, 4);
    let (legit_peer, _) = connect(&mut sim, legit, server, 4, 0);
    let payload: Vec<u8> = (0..4u32 << 20).map(|i| (i % 251) as u8).collect();
    let packet = PacketRef::new_with_data(&payload, PacketFlags::RELIABLE).unwrap();
    sim.host(legit)
        .with_peer(legit_peer, |peer, terms| {
            peer.send(ChannelId::from(2), &packet, terms)
        })
        .expect("send");
    let _ = packet.hand_to_program();
    assert!(
        sim.run_until(60_000, |s| s
            .received(server)
            .iter()
            .any(|(channel, data)| *channel == 2 && data.len() == payload.len())),
        "the legit packet did not arrive"
    );
    let received = sim.received(server);
    let (_, data) = received.iter().find(|(channel, _)| *channel == 2).unwrap();
    assert!(data == &payload, "the legit packet arrived altered");
    assert!(sim.host(server).reassembly_held() <= budget);
}
