//! Two engine hosts joined by an in-process link with a virtual clock, as
//! `tests/engine/sim/mod.rs` drives them, but stepped by the fuzz input: which
//! host runs, which datagrams arrive, what time it is. Only the public
//! `enet::proto` API is used. After every step [`Pair::check`] asserts the
//! engine's invariants; every event passes through [`Pair::record`], which
//! checks it too.

use std::cell::RefCell;

use enet::abi::ENetPeerState::{self, *};
use enet::abi::{ENetAddress, ENetBuffer, ENetPeer};
use enet::mem::{CBox, PacketRef};
use enet::proto::{Event, EventSlot, Host, HostSettings, PeerIndex, WireCodec};
use enet::wire::checksum::{self, enet_crc32};
use enet::wire::header::NO_PEER_ID;
use enet::wire::range_coder::RangeCoder;
use enet::wire::{ConnectId, Datagram};

pub struct Side {
    pub host: CBox<Host>,
    pub address: ENetAddress,
    pub codec: WireCodec,
    /// Per peer slot: a CONNECT event was reported and no DISCONNECT since.
    pub connected: Vec<bool>,
    /// Received packets: (peer, channel, bytes).
    pub received: Vec<(PeerIndex, u8, Vec<u8>)>,
    /// Events reported, all kinds.
    pub events: usize,
}

/// A datagram on its way: sender index, receiver index, bytes.
pub struct InFlight {
    pub from: usize,
    pub to: usize,
    pub bytes: Vec<u8>,
}

pub struct Pair {
    pub now: u32,
    pub sides: [Side; 2],
    pub in_flight: Vec<InFlight>,
    /// Decompresses sent datagrams for [`Pair::check_sent`].
    check_coder: RefCell<RangeCoder>,
}

/// Stands in `host->checksum` so the engine knows a checksum is in use;
/// never called (the [`WireCodec`] computes checksums).
extern "C" fn checksum_placeholder(_buffers: *const ENetBuffer, _count: usize) -> u32 {
    0
}

/// The host a stranger sends from.
pub const STRANGER: ENetAddress = ENetAddress {
    host: 0x0909_0909,
    port: 9999,
};

/// Largest datagram a host accepts (ENET_PROTOCOL_MAXIMUM_MTU).
const MAXIMUM_MTU: usize = 4096;

pub fn is_connected(state: ENetPeerState) -> bool {
    state == ENET_PEER_STATE_CONNECTED || state == ENET_PEER_STATE_DISCONNECT_LATER
}

fn address(index: usize) -> ENetAddress {
    ENetAddress {
        host: u32::from_be_bytes([10, 0, 0, index as u8 + 1]).to_be(),
        port: 7000 + index as u16,
    }
}

impl Pair {
    /// Host 0 (the server, `server_peers` slots, `channel_limit`) and host
    /// 1 (the client, 2 slots), both with the same codec.
    pub fn new(
        now: u32,
        server_peers: usize,
        channel_limit: usize,
        bandwidth: (u32, u32),
        checksum: bool,
        compress: bool,
    ) -> Pair {
        let side = |index: usize, peer_count: usize, channel_limit: usize| {
            let address = address(index);
            let host = Host::create(HostSettings {
                address,
                socket: -1,
                peer_count,
                channel_limit,
                incoming_bandwidth: bandwidth.0,
                outgoing_bandwidth: bandwidth.1,
                random_seed: 0x1234_5678 + index as u32,
                now,
            })
            .expect("host");
            let mut host = host;
            if checksum {
                // As the C driver: the engine sizes fragments by whether
                // `host->checksum` is set; the codec does the checksums.
                host.public.checksum = Some(checksum_placeholder);
            }
            Side {
                host,
                address,
                codec: WireCodec::new(checksum, compress),
                connected: vec![false; peer_count],
                received: Vec::new(),
                events: 0,
            }
        };
        Pair {
            now,
            sides: [side(0, server_peers, channel_limit), side(1, 2, 0)],
            in_flight: Vec::new(),
            check_coder: RefCell::new(RangeCoder::new()),
        }
    }

    pub fn address(&self, index: usize) -> ENetAddress {
        self.sides[index].address
    }

    /// Connects the client (host 1) to the server on a perfect link;
    /// returns (client peer, server peer). Panics if that fails: a clean
    /// handshake always completes.
    pub fn handshake(&mut self, channels: usize, data: u32) -> (PeerIndex, PeerIndex) {
        let server_address = self.address(0);
        let client_peer = self.sides[1]
            .host
            .connect(server_address, channels, data)
            .expect("a free client slot");
        for _ in 0..64 {
            self.step_all(0);
            self.now = self.now.wrapping_add(1);
            if self.sides[1].connected[client_peer.get()] {
                if let Some(server_peer) = self.sides[0].connected.iter().position(|&c| c) {
                    let server_peer = self.sides[0].host.slot(server_peer).expect("a server slot");
                    return (client_peer, server_peer);
                }
            }
        }
        panic!("the handshake did not complete on a perfect link");
    }

    /// Both hosts service once; every datagram in flight is delivered
    /// except those whose bit in `drop_mask` (by order, cycling) is set.
    pub fn step_all(&mut self, drop_mask: u32) {
        for index in 0..2 {
            self.service(index, true);
        }
        self.deliver(drop_mask);
        for index in 0..2 {
            self.dispatch_all(index);
        }
    }

    /// A send pass (as `enet_host_service`/`enet_host_flush`), repeated
    /// while it reports events; datagrams go in flight after checks.
    pub fn service(&mut self, index: usize, check_timeouts: bool) {
        let now = self.now;
        for _ in 0..64 {
            let side = &mut self.sides[index];
            let mut out: Vec<(ENetAddress, Vec<u8>)> = Vec::new();
            // Takes each datagram's buffer, as the socket transport does,
            // and leaves a short one of stale bytes in its place: the
            // builder must work in whatever buffer it is given.
            let mut transmit = |to: &std::net::SocketAddr,
                                buffer: &mut Vec<u8>,
                                range: std::ops::Range<usize>,
                                _: enet::proto::Grouping| {
                let taken = std::mem::replace(buffer, vec![0xEE; 24]);
                let Some(bytes) = taken.get(range) else {
                    return enet::proto::Transmitted::Failed;
                };
                out.push((enet::proto::host::endpoint::enet_view(to), bytes.to_vec()));
                enet::proto::Transmitted::Sent(bytes.len())
            };
            let mut events = EventSlot::wanted();
            side.host
                .send_outgoing(
                    now,
                    check_timeouts,
                    &mut side.codec,
                    &mut transmit,
                    &mut events,
                )
                .expect("a transmit that never fails");
            for (to, bytes) in out {
                self.check_sent(index, &to, &bytes);
                let to_index = (0..2).find(|&i| self.sides[i].address == to);
                if let Some(to) = to_index {
                    self.in_flight.push(InFlight {
                        from: index,
                        to,
                        bytes,
                    });
                }
            }
            match events.event {
                Some(event) => self.record(index, event),
                None => return,
            }
        }
    }

    /// Delivers (or drops) everything in flight, in order.
    pub fn deliver(&mut self, drop_mask: u32) {
        let in_flight = std::mem::take(&mut self.in_flight);
        for (n, datagram) in in_flight.into_iter().enumerate() {
            if drop_mask & (1 << (n % 32)) != 0 {
                continue;
            }
            let from = self.address(datagram.from);
            self.receive(datagram.to, from, &datagram.bytes);
        }
    }

    /// One datagram into host `index` from `from`.
    pub fn receive(&mut self, index: usize, from: ENetAddress, bytes: &[u8]) {
        let now = self.now;
        let side = &mut self.sides[index];
        let mut events = EventSlot::wanted();
        let _ = side
            .host
            .receive_datagram(now, from.into(), bytes, &mut side.codec, &mut events);
        if let Some(event) = events.event {
            self.record(index, event);
        }
    }

    /// `enet_host_check_events` until nothing is left.
    pub fn dispatch_all(&mut self, index: usize) {
        for _ in 0..100_000 {
            match self.sides[index].host.dispatch() {
                Some(event) => self.record(index, event),
                None => return,
            }
        }
        panic!("dispatch never ran dry");
    }

    /// `enet_peer_receive` until the peer's queue is empty, checking the
    /// waiting-data count drops by exactly each packet's length.
    pub fn drain(&mut self, index: usize, peer: PeerIndex) {
        for _ in 0..100_000 {
            let before = self.sides[index].host.peer(peer).totalWaitingData;
            let Some((channel, packet)) = self.sides[index]
                .host
                .with_peer(peer, |view, _| view.receive())
            else {
                return;
            };
            let after = self.sides[index].host.peer(peer).totalWaitingData;
            assert!(
                before >= packet.len() && after == before - packet.len(),
                "totalWaitingData {before} -> {after} on receiving {} bytes",
                packet.len()
            );
            self.check_packet(index, peer, channel, &packet);
            let data = packet.data().to_vec();
            packet.release();
            self.sides[index].received.push((peer, channel, data));
        }
        panic!("receive never ran dry");
    }

    /// Checks an event and records it; releases a received packet.
    pub fn record(&mut self, index: usize, event: Event) {
        let side = &mut self.sides[index];
        side.events += 1;
        let peer_count = side.host.peer_count();
        let peer = event.peer();
        assert!(
            peer.get() < peer_count,
            "event for peer {peer} of {peer_count}"
        );
        let state = side.host.peer(peer).state;
        match event {
            Event::Connect { .. } => {
                assert_eq!(state, ENET_PEER_STATE_CONNECTED, "CONNECT event state");
                assert!(
                    !side.connected[peer.get()],
                    "second CONNECT event without a DISCONNECT"
                );
                side.connected[peer.get()] = true;
            }
            Event::Disconnect { .. } => {
                assert_eq!(
                    state, ENET_PEER_STATE_DISCONNECTED,
                    "DISCONNECT event state"
                );
                side.connected[peer.get()] = false;
            }
            Event::Receive {
                channel_id, packet, ..
            } => {
                assert!(
                    side.connected[peer.get()],
                    "RECEIVE event on a peer never reported connected"
                );
                self.check_packet(index, peer, channel_id, &packet);
                let data = packet.data().to_vec();
                packet.release();
                self.sides[index].received.push((peer, channel_id, data));
            }
        }
    }

    fn check_packet(&self, index: usize, peer: PeerIndex, channel: u8, packet: &PacketRef) {
        let host = &self.sides[index].host;
        let p = host.peer(peer);
        assert!(
            usize::from(channel) < p.channelCount,
            "packet on channel {channel} of {}",
            p.channelCount
        );
        assert!(packet.len() <= host.public.maximumPacketSize);
        assert_eq!(packet.data().len(), packet.len());
        assert!(
            packet.reference_count() <= 1,
            "a delivered packet still queued elsewhere"
        );
    }

    /// A datagram a host sends is well formed: it parses, decompresses,
    /// passes its own checksum, holds 1 to 32 whole commands, fits 4096
    /// bytes and the receiving peer's MTU.
    fn check_sent(&self, index: usize, to: &ENetAddress, bytes: &[u8]) {
        assert!(
            bytes.len() <= MAXIMUM_MTU,
            "datagram of {} bytes",
            bytes.len()
        );
        let side = &self.sides[index];
        let datagram = Datagram::parse(bytes, side.codec.checksum).expect("sent datagram parses");
        let header = *datagram.header();
        // Zeroed only for a compressed datagram: a 4 KiB buffer per sent
        // datagram was a tenth of the instructions of a replay of the
        // `engine` corpus.
        let mut plain = Vec::new();
        let body: &[u8] = if header.compressed {
            assert!(
                side.codec.coder.is_some(),
                "compressed without a compressor"
            );
            plain.resize(MAXIMUM_MTU, 0);
            let len = self
                .check_coder
                .borrow_mut()
                .decompress(datagram.body(), &mut plain);
            assert!(len > 0, "sent datagram does not decompress");
            &plain[..len]
        } else {
            datagram.body()
        };
        // The peer it goes to: one with that address and this peer id (a
        // fuzzed CONNECT can make several); one of them must fit. The
        // header holds the id's low 12 bits: a fuzzed CONNECT may claim an
        // id above them.
        let candidates: Vec<&ENetPeer> = side
            .host
            .peer_indices()
            .map(|i| side.host.peer(i))
            .filter(|p| {
                p.address == *to
                    && p.state != ENET_PEER_STATE_DISCONNECTED
                    && (header.peer_id == NO_PEER_ID || p.outgoingPeerID & 0x0FFF == header.peer_id)
            })
            .collect();
        if !candidates.is_empty() {
            // Stock counts a 4-byte header against the MTU and not the
            // checksum slot, so with a checksum it may exceed it by 4.
            let slack = if side.codec.checksum { 4 } else { 0 };
            assert!(
                candidates
                    .iter()
                    .any(|p| bytes.len() <= p.mtu as usize + slack),
                "datagram of {} bytes over the peer's MTU",
                bytes.len()
            );
            if side.codec.checksum {
                assert!(
                    candidates.iter().any(|p| {
                        // Seeded by the peer's own id, as stock does: 0
                        // unless it is a real one (below NO_PEER_ID).
                        let seed =
                            checksum::seed(p.outgoingPeerID, ConnectId::from_native(p.connectID));
                        checksum::verify(&header, body, seed, enet_crc32).is_ok()
                    }),
                    "sent datagram fails its own checksum: {header:?}"
                );
            }
        }
        let mut count = 0;
        for command in enet::wire::Commands::new(body) {
            command.expect("sent datagram holds a malformed command");
            count += 1;
        }
        assert!((1..=32).contains(&count), "{count} commands in a datagram");
    }

    /// The host invariants, after every step.
    pub fn check(&mut self) {
        for side in &mut self.sides {
            let host = &side.host;
            let mut connected = 0;
            let mut limited = 0;
            for index in host.peer_indices() {
                let peer = host.peer(index);
                assert_eq!(peer.incomingPeerID, index.peer_id());
                if is_connected(peer.state) {
                    connected += 1;
                    if peer.incomingBandwidth != 0 {
                        limited += 1;
                    }
                }
                match peer.state {
                    ENET_PEER_STATE_DISCONNECTED => {
                        assert_eq!(peer.channelCount, 0, "disconnected peer keeps channels");
                        assert_eq!(peer.totalWaitingData, 0, "disconnected peer waits for data");
                        assert_eq!(peer.reliableDataInTransit, 0);
                    }
                    _ => {
                        // Disconnecting drops the channels (as stock's
                        // enet_peer_reset_queues does); before, they exist.
                        let keeps_channels = !matches!(
                            peer.state,
                            ENET_PEER_STATE_DISCONNECTING
                                | ENET_PEER_STATE_ACKNOWLEDGING_DISCONNECT
                                | ENET_PEER_STATE_ZOMBIE
                        );
                        assert!(
                            (1..=255).contains(&peer.channelCount) || !keeps_channels,
                            "{} channels in state {:?}",
                            peer.channelCount,
                            peer.state
                        );
                        assert!((576..=4096).contains(&peer.mtu), "peer MTU {}", peer.mtu);
                        assert!(
                            (4096..=65536).contains(&peer.windowSize),
                            "window {}",
                            peer.windowSize
                        );
                        // outgoingPeerID is whatever the remote CONNECT or
                        // VERIFY_CONNECT said (stock checks none of its 16
                        // bits); the header keeps only 12 of them.
                    }
                }
                if is_connected(peer.state) {
                    assert!(
                        peer.packetThrottle <= peer.packetThrottleLimit,
                        "throttle {} over its limit {}",
                        peer.packetThrottle,
                        peer.packetThrottleLimit
                    );
                }
                if side.connected[index.get()] {
                    // Reported connected: still in a state that can send
                    // and receive, or on its way out with an event to come.
                    assert!(
                        peer.state != ENET_PEER_STATE_CONNECTING
                            && peer.state != ENET_PEER_STATE_ACKNOWLEDGING_CONNECT
                            && peer.state != ENET_PEER_STATE_CONNECTION_PENDING
                            && peer.state != ENET_PEER_STATE_CONNECTION_SUCCEEDED,
                        "reported connected peer in state {:?}",
                        peer.state
                    );
                }
            }
            assert_eq!(host.public.connectedPeers, connected, "connectedPeers");
            assert_eq!(
                host.public.bandwidthLimitedPeers, limited,
                "bandwidthLimitedPeers"
            );
        }
    }
}
