//! Spoofed CONNECT floods on the simulated network: CONNECTs from many
//! addresses that never answer VERIFY_CONNECT fill every peer slot, and a
//! CONNECT finding no free slot takes the slot of the oldest half-open peer
//! (never a connected one, never one the program is connecting), silently.

use std::collections::HashMap;

use enet::abi::ENetAddress;
use enet::abi::ENetPeerState::{self, *};
use enet::proto::PeerIndex;
use enet::wire::header::NO_PEER_ID;
use enet::wire::{
    Command, CommandFlags, CommandHeader, ConnectFields, ConnectId, DatagramBuilder, Envelope,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::sim::{self, address_of, Seen, Sim};

/// A CONNECT datagram as `enet_host_connect` sends it (see the captured
/// one in the wire traces), with the given ids.
fn connect_datagram(outgoing_peer_id: u16, connect_id: u32, sent_time: u16) -> Vec<u8> {
    let header = CommandHeader {
        flags: CommandFlags::ACKNOWLEDGE,
        channel_id: 0xFF,
        reliable_sequence_number: 1,
    };
    let fields = ConnectFields {
        outgoing_peer_id,
        incoming_session_id: 0xFF,
        outgoing_session_id: 0xFF,
        mtu: 1400,
        window_size: 65536,
        channel_count: 2,
        incoming_bandwidth: 0,
        outgoing_bandwidth: 0,
        packet_throttle_interval: 5000,
        packet_throttle_acceleration: 2,
        packet_throttle_deceleration: 2,
        connect_id: ConnectId::from_native(connect_id),
    };
    let mut builder = DatagramBuilder::new(1400);
    builder
        .push(&header, &Command::Connect { fields, data: 0 })
        .expect("a CONNECT fits");
    builder.finish(Envelope::plain(NO_PEER_ID, 0, sent_time))
}

fn spoofed_address(index: usize) -> ENetAddress {
    ENetAddress {
        host: u32::from_be_bytes([198, 18, (index >> 8) as u8, index as u8]).to_be(),
        port: 40_000 + (index % 1000) as u16,
    }
}

fn same(a: ENetAddress, b: ENetAddress) -> bool {
    a.host == b.host && a.port == b.port
}

/// Spoofed CONNECTs, `per_ms` every virtual millisecond, from `sources`
/// addresses in turn, with random connect ids; nothing ever answers.
struct Flood {
    sources: Vec<ENetAddress>,
    per_ms: usize,
    next: usize,
    rng: StdRng,
    sent: usize,
    /// Datagrams the server sent to each spoofed address.
    replies: HashMap<(u32, u16), usize>,
}

impl Flood {
    fn new(sources: usize, per_ms: usize, seed: u64) -> Self {
        Flood {
            sources: (0..sources).map(spoofed_address).collect(),
            per_ms,
            next: 0,
            rng: StdRng::seed_from_u64(seed),
            sent: 0,
            replies: HashMap::new(),
        }
    }

    /// Sends this millisecond's CONNECTs, runs the simulation one step and
    /// swallows what went to spoofed addresses.
    fn step(&mut self, sim: &mut Sim, server: usize) {
        for _ in 0..self.per_ms {
            let from = self.sources[self.next % self.sources.len()];
            self.next += 1;
            let bytes =
                connect_datagram(self.rng.gen_range(0..4095), self.rng.gen(), self.rng.gen());
            sim.inject(from, server, bytes);
            self.sent += 1;
        }
        sim.step();
        self.swallow(sim);
    }

    fn swallow(&mut self, sim: &mut Sim) {
        for (to, _) in sim.take_unrouted() {
            *self.replies.entry((to.host, to.port)).or_default() += 1;
        }
    }

    /// Steps until `done` holds or `limit_ms` passed; whether it held.
    fn run_until(
        &mut self,
        sim: &mut Sim,
        server: usize,
        limit_ms: u32,
        mut done: impl FnMut(&Sim) -> bool,
    ) -> bool {
        for _ in 0..limit_ms {
            if done(sim) {
                return true;
            }
            self.step(sim, server);
        }
        done(sim)
    }

    fn run_for(&mut self, sim: &mut Sim, server: usize, ms: u32) {
        for _ in 0..ms {
            self.step(sim, server);
        }
    }
}

fn states(sim: &mut Sim, host: usize) -> Vec<ENetPeerState> {
    sim.slots(host)
        .into_iter()
        .map(|index| sim.state(host, index))
        .collect()
}

fn count(states: &[ENetPeerState], state: ENetPeerState) -> usize {
    states.iter().filter(|&&s| s == state).count()
}

fn disconnect_events(sim: &Sim, host: usize) -> usize {
    sim.hosts[host]
        .seen
        .iter()
        .filter(|seen| matches!(seen, Seen::Disconnect { .. }))
        .count()
}

/// `host->connectedPeers` agrees with the peer states.
fn assert_connected_count_consistent(sim: &mut Sim, host: usize) {
    let states = states(sim, host);
    let connected = count(&states, ENET_PEER_STATE_CONNECTED)
        + count(&states, ENET_PEER_STATE_DISCONNECT_LATER);
    assert_eq!(sim.host(host).public.connectedPeers, connected);
}

#[test]
fn legit_clients_connect_promptly_through_a_flood_that_fills_every_slot() {
    let mut sim = Sim::new(41, 1_000);
    let server = sim.add_host(256, 2);
    let client = sim.add_host(18, 2);
    let server_address = sim.hosts[server].address;
    // 5 spoofed CONNECTs per ms = 5000/s, from 200 addresses.
    let mut flood = Flood::new(200, 5, 7);
    flood.run_for(&mut sim, server, 300);
    let held = states(&mut sim, server);
    assert_eq!(count(&held, ENET_PEER_STATE_ACKNOWLEDGING_CONNECT), 256);

    let mut times = Vec::new();
    for attempt in 0..18u32 {
        let before_client = sim.connects(client);
        let before_server = sim.connects(server);
        let start = sim.now;
        let peer = sim
            .host(client)
            .connect(server_address, 2, attempt)
            .expect("client slot");
        let done = flood.run_until(&mut sim, server, 3_000, |s| {
            s.connects(client) > before_client && s.connects(server) > before_server
        });
        assert!(done, "attempt {attempt} did not connect");
        assert_eq!(sim.state(client, peer), ENET_PEER_STATE_CONNECTED);
        times.push(sim.now.wrapping_sub(start));
        flood.run_for(&mut sim, server, 100);
    }
    // Two link latencies (5 ms each) and a service step or two.
    assert!(times.iter().all(|&t| t <= 30), "connect times {times:?}");

    // The server saw the 18 legit connects, with their data, and nothing
    // else: no event for any of the thousands of evicted half-open peers.
    let connect_data: Vec<u32> = sim.hosts[server]
        .seen
        .iter()
        .filter_map(|seen| match seen {
            Seen::Connect { data, .. } => Some(*data),
            _ => None,
        })
        .collect();
    assert_eq!(connect_data, (0..18).collect::<Vec<u32>>());
    assert_eq!(sim.hosts[server].seen.len(), 18);
    assert!(flood.sent > 10 * 256);

    // Evicting never touched the connected peers: all 18 still up on both
    // sides, the rest of the slots held by half-open peers.
    let held = states(&mut sim, server);
    assert_eq!(count(&held, ENET_PEER_STATE_CONNECTED), 18);
    assert_eq!(
        count(&held, ENET_PEER_STATE_ACKNOWLEDGING_CONNECT),
        256 - 18
    );
    assert_connected_count_consistent(&mut sim, server);
    assert_eq!(sim.host(client).public.connectedPeers, 18);
    assert_eq!(disconnect_events(&sim, client), 0);

    // The flood stops: the remaining half-open peers time out silently and
    // the connected ones stay.
    sim.run_for(40_000);
    flood.swallow(&mut sim);
    let held = states(&mut sim, server);
    assert_eq!(count(&held, ENET_PEER_STATE_CONNECTED), 18);
    assert_eq!(count(&held, ENET_PEER_STATE_DISCONNECTED), 256 - 18);
    assert_connected_count_consistent(&mut sim, server);
    assert_eq!(sim.hosts[server].seen.len(), 18);
    assert_eq!(disconnect_events(&sim, client), 0);
}

#[test]
fn peers_the_program_connects_are_never_evicted() {
    let mut sim = Sim::new(42, 0);
    let server = sim.add_host(8, 2);
    let client = sim.add_host(1, 2);
    // Two slots the server's program is connecting itself, to nobody.
    let outgoing: Vec<PeerIndex> = (0..2)
        .map(|i| {
            sim.host(server)
                .connect(address_of(20 + i), 2, 0)
                .expect("slot")
        })
        .collect();
    let (_, legit) = sim::connect(&mut sim, client, server, 2, 0);
    let mut flood = Flood::new(50, 3, 8);
    for _ in 0..2_000 {
        flood.step(&mut sim, server);
        for &peer in &outgoing {
            assert_eq!(sim.state(server, peer), ENET_PEER_STATE_CONNECTING);
        }
        assert_eq!(sim.state(server, legit), ENET_PEER_STATE_CONNECTED);
    }
    let held = states(&mut sim, server);
    assert_eq!(count(&held, ENET_PEER_STATE_ACKNOWLEDGING_CONNECT), 5);
    assert_connected_count_consistent(&mut sim, server);
    assert_eq!(sim.host(server).public.connectedPeers, 1);
    assert_eq!(disconnect_events(&sim, server), 0);
    assert_eq!(disconnect_events(&sim, client), 0);
}

#[test]
fn an_evicted_peer_is_reset_silently_and_its_slot_reused_cleanly() {
    let mut sim = Sim::new(43, 5_000);
    let server = sim.add_host(4, 2);
    let sources: Vec<ENetAddress> = (0..5).map(spoofed_address).collect();
    let mut flood = Flood::new(1, 0, 9);
    for (i, &from) in sources[..4].iter().enumerate() {
        sim.inject(from, server, connect_datagram(i as u16, 100 + i as u32, 1));
        flood.step(&mut sim, server);
    }
    flood.run_for(&mut sim, server, 20);
    let first_slot = sim
        .slots(server)
        .into_iter()
        .find(|&i| same(sim.host(server).peer(i).address, sources[0]))
        .expect("first CONNECT has a slot");
    assert_eq!(flood.replies[&(sources[0].host, sources[0].port)], 1);

    // A fifth CONNECT: the oldest half-open peer (the first) gives way.
    sim.inject(sources[4], server, connect_datagram(4, 104, 1));
    flood.run_for(&mut sim, server, 20);
    let peer = sim.host(server).peer(first_slot);
    assert!(same(peer.address, sources[4]));
    assert_eq!(peer.state, ENET_PEER_STATE_ACKNOWLEDGING_CONNECT);
    assert_eq!(peer.connectID, 104);
    assert_eq!(peer.outgoingPeerID, 4);
    assert_eq!(flood.replies[&(sources[4].host, sources[4].port)], 1);
    assert!(sim.hosts[server].seen.is_empty());

    // Nothing more goes to the evicted address (its VERIFY_CONNECT is not
    // retransmitted); the others get their retransmissions until their
    // handshakes time out, silently, as in stock.
    flood.run_for(&mut sim, server, 40_000);
    assert_eq!(flood.replies[&(sources[0].host, sources[0].port)], 1);
    for from in &sources[1..] {
        assert!(flood.replies[&(from.host, from.port)] > 3);
    }
    assert!(sim.hosts[server].seen.is_empty());
    let held = states(&mut sim, server);
    assert_eq!(count(&held, ENET_PEER_STATE_DISCONNECTED), 4);
    assert_eq!(sim.host(server).public.connectedPeers, 0);
    let now = sim.now;
    assert_eq!(sim.host(server).next_deadline(now), None);

    // A late answer to the evicted handshake (an ACK of VERIFY_CONNECT
    // from the first address, to the slot it was given) is dropped by the
    // address check and connects nobody.
    let late_ack = {
        let header = CommandHeader {
            flags: CommandFlags::NONE,
            channel_id: 0xFF,
            reliable_sequence_number: 1,
        };
        let mut builder = DatagramBuilder::new(1400);
        builder
            .push(
                &header,
                &Command::Acknowledge {
                    received_reliable_sequence_number: 1,
                    received_sent_time: 0,
                },
            )
            .unwrap();
        builder.finish(Envelope::plain(first_slot.peer_id(), 0, 0))
    };
    sim.inject(sources[0], server, late_ack);
    flood.run_for(&mut sim, server, 20);
    assert!(sim.hosts[server].seen.is_empty());

    // The slots work as new: a real client connects into them.
    let client = sim.add_host(4, 2);
    for _ in 0..4 {
        sim::connect(&mut sim, client, server, 2, 0);
    }
    assert_eq!(sim.host(server).public.connectedPeers, 4);
    assert_connected_count_consistent(&mut sim, server);
}

#[test]
fn a_full_host_without_half_open_peers_ignores_a_connect_as_stock() {
    let mut sim = Sim::new(44, 0);
    let server = sim.add_host(3, 2);
    let client = sim.add_host(2, 2);
    let late = sim.add_host(1, 2);
    let server_address = sim.hosts[server].address;
    sim::connect(&mut sim, client, server, 2, 0);
    sim::connect(&mut sim, client, server, 2, 0);
    // The third slot: the server's program connecting to nobody.
    let outgoing = sim.host(server).connect(address_of(30), 2, 0).unwrap();
    let before = states(&mut sim, server);

    let mut flood = Flood::new(20, 2, 10);
    flood.run_for(&mut sim, server, 1_000);
    let peer = sim.host(late).connect(server_address, 2, 0).unwrap();
    flood.run_for(&mut sim, server, 2_000);

    assert_eq!(states(&mut sim, server), before);
    assert_eq!(sim.state(server, outgoing), ENET_PEER_STATE_CONNECTING);
    assert_eq!(sim.state(late, peer), ENET_PEER_STATE_CONNECTING);
    assert_eq!(sim.connects(late), 0);
    assert_eq!(sim.connects(server), 2);
    // No spoofed address got anything back (only the server's own
    // CONNECTs to nobody went out).
    for from in &flood.sources {
        assert!(!flood.replies.contains_key(&(from.host, from.port)));
    }
    assert!(flood.replies[&(address_of(30).host, address_of(30).port)] > 0);
    assert_connected_count_consistent(&mut sim, server);
}

#[test]
fn duplicate_peer_limits_and_retransmitted_connects_still_apply_when_full() {
    let mut sim = Sim::new(45, 0);
    let server = sim.add_host(4, 2);
    sim.host(server).public.duplicatePeers = 2;
    let one_host = |port: u16| ENetAddress {
        host: u32::from_be_bytes([198, 18, 0, 1]).to_be(),
        port,
    };
    // Four half-open peers from four other hosts fill the slots.
    let mut flood = Flood::new(4, 0, 11);
    for i in 0..4 {
        sim.inject(
            spoofed_address(100 + i),
            server,
            connect_datagram(0, 200 + i as u32, 1),
        );
    }
    flood.run_for(&mut sim, server, 10);
    // Two CONNECTs from one host evict the two oldest; a third from the
    // same host is over `duplicatePeers` and is ignored, evicting nobody.
    for port in 0..3 {
        sim.inject(
            one_host(1000 + port),
            server,
            connect_datagram(0, 300 + u32::from(port), 1),
        );
        flood.run_for(&mut sim, server, 10);
    }
    let from_one_host = sim
        .slots(server)
        .into_iter()
        .filter(|&i| sim.host(server).peer(i).address.host == one_host(0).host)
        .count();
    assert_eq!(from_one_host, 2);
    assert!(!flood.replies.contains_key(&(one_host(1002).host, 1002)));
    let held = states(&mut sim, server);
    assert_eq!(count(&held, ENET_PEER_STATE_ACKNOWLEDGING_CONNECT), 4);

    // A retransmitted CONNECT (same address, same connect id) of a
    // handshake we hold is ignored too: it does not evict anything.
    let addresses: Vec<ENetAddress> = sim
        .slots(server)
        .into_iter()
        .map(|i| sim.host(server).peer(i).address)
        .collect();
    sim.inject(one_host(1000), server, connect_datagram(0, 300, 1));
    flood.run_for(&mut sim, server, 10);
    let after: Vec<ENetAddress> = sim
        .slots(server)
        .into_iter()
        .map(|i| sim.host(server).peer(i).address)
        .collect();
    assert!(addresses.iter().zip(&after).all(|(a, b)| same(*a, *b)));
    assert!(sim.hosts[server].seen.is_empty());
}

#[test]
fn a_handshake_slower_than_the_flood_is_evicted_and_the_client_times_out() {
    // 64 slots, 5 CONNECTs per ms: a half-open peer lasts ~13 ms, less
    // than this link's 200 ms round trip.
    let mut sim = Sim::new(46, 0);
    sim.link.latency = 100;
    let server = sim.add_host(64, 2);
    let client = sim.add_host(1, 2);
    let server_address = sim.hosts[server].address;
    let mut flood = Flood::new(200, 5, 12);
    flood.run_for(&mut sim, server, 200);
    let peer = sim.host(client).connect(server_address, 2, 0).unwrap();
    // The client gets VERIFY_CONNECT and reports CONNECT; its acknowledgement
    // finds its slot taken by a newer CONNECT and is dropped.
    assert!(flood.run_until(&mut sim, server, 1_000, |s| s.connects(client) == 1));
    flood.run_for(&mut sim, server, 500);
    assert_eq!(sim.connects(server), 0);
    assert!(
        flood.run_until(&mut sim, server, 40_000, |s| disconnect_events(s, client)
            == 1)
    );
    assert_eq!(sim.state(client, peer), ENET_PEER_STATE_DISCONNECTED);
    assert!(sim.hosts[server].seen.is_empty());
    assert_connected_count_consistent(&mut sim, server);
}
