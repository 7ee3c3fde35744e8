//! The host's counters (`enet_rs_host_get_stats`) on the simulated
//! network: each kind of bad datagram the engine can tell from the others
//! raises its own drop counter by one and no other, a good connection
//! counts its datagrams without drops, and connects are counted accepted,
//! refused and evicted.

use enet::abi::ENetAddress;
use enet::proto::state::counters::HostCounters;
use enet::wire::header::{FLAG_COMPRESSED, FLAG_SENT_TIME, NO_PEER_ID};
use enet::wire::{
    Command, CommandFlags, CommandHeader, ConnectFields, ConnectId, DatagramBuilder, DropReason,
    Envelope,
};

use enet::proto::WireCodec;

use crate::sim::forge::{fragment_on, Forger};
use crate::sim::{connect, Sim};

/// Command numbers and flags, as the wire has them.
const PING: u8 = 5;
const SEND_RELIABLE: u8 = 6;
const ACKNOWLEDGE: u8 = 0x80;

/// A server with three slots and one connected client: the client's
/// connection is the one forged datagrams pretend to belong to.
struct Setup {
    sim: Sim,
    server: usize,
    client: usize,
    /// What the server knows the client as: the peer id and session the
    /// client puts in its datagrams.
    peer_id: u16,
    session: u8,
}

fn setup(seed: u64) -> Setup {
    let mut sim = Sim::new(seed, 50_000);
    let server = sim.add_host(3, 2);
    let client = sim.add_host(1, 2);
    let (client_peer, _) = connect(&mut sim, client, server, 2, 0);
    let peer = sim.host(client).peer(client_peer);
    let (peer_id, session) = (peer.outgoingPeerID, peer.outgoingSessionID);
    Setup {
        sim,
        server,
        client,
        peer_id,
        session,
    }
}

/// A datagram header: the peer id word, then a sent time if given.
fn header(peer_id: u16, session: u8, sent_time: Option<u16>) -> Vec<u8> {
    let mut word = peer_id | (u16::from(session) << 12);
    if sent_time.is_some() {
        word |= FLAG_SENT_TIME;
    }
    let mut bytes = word.to_be_bytes().to_vec();
    if let Some(time) = sent_time {
        bytes.extend_from_slice(&time.to_be_bytes());
    }
    bytes
}

impl Setup {
    fn from(&self) -> ENetAddress {
        crate::sim::address_of(self.client)
    }

    /// The client's header with a sent time, then `body`.
    fn as_client(&self, body: &[u8]) -> Vec<u8> {
        let mut bytes = header(self.peer_id, self.session, Some(1));
        bytes.extend_from_slice(body);
        bytes
    }

    fn counters(&mut self) -> HostCounters {
        *self.sim.host(self.server).counters()
    }

    /// Delivers `bytes` from `from` to the server and returns which drop
    /// counters moved, and by how much (every other count of the host is
    /// left to the caller).
    fn deliver(&mut self, from: ENetAddress, bytes: Vec<u8>) -> Vec<(DropReason, u64)> {
        let before = self.counters();
        self.sim.inject(from, self.server, bytes);
        self.sim.run_for(50);
        let after = self.counters();
        DropReason::ALL
            .iter()
            .filter_map(|&reason| {
                let moved = after.drops_for(reason) - before.drops_for(reason);
                (moved != 0).then_some((reason, moved))
            })
            .collect()
    }
}

#[test]
fn each_bad_datagram_raises_its_own_drop_counter_by_one() {
    let mut s = setup(71);
    let ping = [PING | ACKNOWLEDGE, 0xFF, 0, 9];
    let from = s.from();
    let elsewhere = ENetAddress {
        host: 0x0100_007F,
        port: 1,
    };
    let (peer_id, session) = (s.peer_id, s.session);
    let with_ping = |mut bytes: Vec<u8>| {
        bytes.extend_from_slice(&ping);
        bytes
    };
    let mut compressed = with_ping(header(peer_id, session, Some(1)));
    compressed[0] |= (FLAG_COMPRESSED >> 8) as u8;
    let cases: Vec<(DropReason, ENetAddress, Vec<u8>)> = vec![
        (DropReason::Truncated, from, vec![0x80]),
        (
            DropReason::BadPeerId,
            from,
            with_ping(header(77, session, Some(1))),
        ),
        // Slot 2 of the server is free.
        (
            DropReason::PeerNotConnected,
            from,
            with_ping(header(2, 0, Some(1))),
        ),
        (DropReason::AddressMismatch, elsewhere, s.as_client(&ping)),
        (
            DropReason::SessionMismatch,
            from,
            with_ping(header(peer_id, (session + 1) % 4, Some(1))),
        ),
        (DropReason::NoDecompressor, from, compressed),
        (DropReason::TruncatedCommand, from, s.as_client(&[PING])),
        (
            DropReason::UnknownCommand,
            from,
            s.as_client(&[13, 0, 0, 1]),
        ),
        (
            DropReason::PayloadOutOfBounds,
            from,
            s.as_client(&[SEND_RELIABLE | ACKNOWLEDGE, 0, 0, 1, 0, 100, 7]),
        ),
        (
            DropReason::NoPeerForCommand,
            from,
            with_ping(header(NO_PEER_ID, 0, Some(1))),
        ),
        (
            DropReason::MissingSentTime,
            from,
            with_ping(header(peer_id, session, None)),
        ),
        // Channel 9 of a connection with two.
        (
            DropReason::CommandRejected,
            from,
            s.as_client(&[SEND_RELIABLE | ACKNOWLEDGE, 9, 0, 1, 0, 1, 7]),
        ),
    ];
    for (reason, from, bytes) in cases {
        let before = s.counters();
        assert_eq!(
            s.deliver(from, bytes.clone()),
            vec![(reason, 1)],
            "{reason}"
        );
        let after = s.counters();
        assert!(after.datagrams_in > before.datagrams_in, "{reason}");
        assert!(
            after.bytes_in >= before.bytes_in + bytes.len() as u64,
            "{reason}"
        );
    }
    // The connection still counts no drop of its own.
    let quiet = s.counters();
    s.sim.run_for(2000);
    let later = s.counters();
    assert_eq!(quiet.drops, later.drops);
    assert!(later.datagrams_in > quiet.datagrams_in, "pings arrive");
    assert!(
        later.datagrams_out > quiet.datagrams_out,
        "and are answered"
    );
}

#[test]
fn a_compressed_datagram_that_does_not_decompress_is_counted() {
    // A server with the range coder (as `enet_host_compress_with_range_coder`).
    let mut sim = Sim::new(73, 50_000);
    let server = sim.add_host_with(2, 2, 0, 0, Box::new(WireCodec::new(false, true)));
    let client = sim.add_host_with(1, 2, 0, 0, Box::new(WireCodec::new(false, true)));
    let (client_peer, _) = connect(&mut sim, client, server, 2, 0);
    let peer = sim.host(client).peer(client_peer);
    let (peer_id, session) = (peer.outgoingPeerID, peer.outgoingSessionID);
    let mut s = Setup {
        sim,
        server,
        client,
        peer_id,
        session,
    };
    let from = s.from();
    // The compressed flag and nothing to decompress (a range coder reads
    // most other bytes as some commands, which their own checks drop).
    let mut bytes = header(peer_id, session, Some(1));
    bytes[0] |= (FLAG_COMPRESSED >> 8) as u8;
    assert_eq!(
        s.deliver(from, bytes),
        vec![(DropReason::DecompressionFailed, 1)]
    );
    // The connection itself, compressed both ways, goes on without a drop.
    let quiet = s.counters();
    s.sim.run_for(2000);
    assert_eq!(quiet.drops, s.counters().drops);
}

#[test]
fn a_good_connection_counts_its_traffic_and_no_drops() {
    let mut s = setup(72);
    s.sim.run_for(3000);
    let server = s.counters();
    let client = *s.sim.host(s.client).counters();
    assert_eq!(server.drops, [0; DropReason::ALL.len()]);
    assert_eq!(client.drops, [0; DropReason::ALL.len()]);
    // Nothing lost on the simulated link: what one sent the other got.
    assert_eq!(server.datagrams_in, client.datagrams_out);
    assert_eq!(server.bytes_in, client.bytes_out);
    assert!(server.datagrams_out > 0 && server.bytes_out > server.datagrams_out);
    assert_eq!(server.connects_accepted, 1);
    assert_eq!((server.connects_refused, server.connects_evicted), (0, 0));
    assert_eq!(client.connects_accepted, 0, "the client connected out");
}

/// A CONNECT as `enet_host_connect` sends it, asking for `channels`.
fn connect_datagram(connect_id: u32, channels: u32) -> Vec<u8> {
    let header = CommandHeader {
        flags: CommandFlags::ACKNOWLEDGE,
        channel_id: 0xFF,
        reliable_sequence_number: 1,
    };
    let fields = ConnectFields {
        outgoing_peer_id: 0,
        incoming_session_id: 0xFF,
        outgoing_session_id: 0xFF,
        mtu: 1400,
        window_size: 65536,
        channel_count: channels,
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
    builder.finish(Envelope::plain(NO_PEER_ID, 0, 1))
}

fn spoofed(index: u8) -> ENetAddress {
    ENetAddress {
        host: u32::from_be_bytes([198, 18, 0, index]).to_be(),
        port: 40_000 + u16::from(index),
    }
}

#[test]
fn connects_are_counted_accepted_refused_and_evicted() {
    let mut s = setup(73);
    let start = s.counters();
    assert_eq!(start.connects_accepted, 1);
    // One refused for its channel count: a refused CONNECT also stops its
    // datagram, with no peer for the command.
    assert_eq!(
        s.deliver(spoofed(1), connect_datagram(11, 0)),
        vec![(DropReason::NoPeerForCommand, 1)]
    );
    assert_eq!(s.counters().connects_refused, 1);
    // Two spoofed CONNECTs fill the server's free slots; they never
    // answer, so a third evicts the oldest of them.
    for (index, id) in [(2, 12), (3, 13), (4, 14)] {
        assert_eq!(s.deliver(spoofed(index), connect_datagram(id, 2)), vec![]);
    }
    let end = s.counters();
    assert_eq!(end.connects_accepted, 1 + 3);
    assert_eq!(end.connects_refused, 1);
    assert_eq!(end.connects_evicted, 1);
}

/// A datagram with fragment 0 of a `total`-byte packet on channel 0, in
/// 1000-byte fragments, forged as `forger`'s connection.
fn first_fragment(forger: &Forger, reliable: bool, start: u16, total: u32) -> Vec<u8> {
    let data = vec![start as u8; 1000];
    let sequence = if reliable { start } else { 0 };
    forger.datagram(&[fragment_on(
        0,
        reliable,
        start,
        sequence,
        total.div_ceil(1000),
        0,
        total,
        0,
        &data,
    )])
}

#[test]
fn reassembly_evictions_and_refusals_are_counted() {
    let mut sim = Sim::new(74, 10_000);
    let server = sim.add_host(2, 4);
    let mut forgers = Vec::new();
    for _ in 0..2 {
        let client = sim.add_host(1, 4);
        let (client_peer, _) = connect(&mut sim, client, server, 4, 0);
        forgers.push(Forger::for_connection(&mut sim, client, client_peer));
    }
    let (a, b) = (&forgers[0], &forgers[1]);
    sim.inject(a.from, server, first_fragment(a, true, 1, 5000));
    sim.run_for(20);
    let one = sim.host(server).reassembly_held();
    assert!(one > 0);
    // Room for one: B's unreliable reassembly evicts A's reliable one, and
    // A's peer is disconnected for it.
    sim.host(server).set_reassembly_budget(Some(one + 500));
    sim.inject(b.from, server, first_fragment(b, false, 1, 5000));
    sim.run_for(20);
    let counters = *sim.host(server).counters();
    assert_eq!(counters.reassemblies_evicted, 1);
    assert_eq!(counters.reassembly_peers_lost, 1);
    assert_eq!(counters.fragments_over_budget, 0);
    // No room at all: B's next packet evicts B's older reassembly (an
    // unreliable one: its peer stays), still does not fit, and is refused.
    sim.host(server).set_reassembly_budget(Some(10));
    let before = counters.drops_for(DropReason::CommandRejected);
    sim.inject(b.from, server, first_fragment(b, false, 2, 5000));
    sim.run_for(20);
    let counters = *sim.host(server).counters();
    assert_eq!(counters.reassemblies_evicted, 2);
    assert_eq!(counters.reassembly_peers_lost, 1);
    assert_eq!(counters.fragments_over_budget, 1);
    assert_eq!(
        counters.drops_for(DropReason::CommandRejected),
        before + 1,
        "the refused fragment stops its datagram"
    );
}
