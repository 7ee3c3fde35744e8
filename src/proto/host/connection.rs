//! Connection set-up and tear-down (stock `enet_host_connect` and the
//! CONNECT, VERIFY_CONNECT and DISCONNECT handlers), and the state changes
//! that produce CONNECT and DISCONNECT events.

use crate::proto::state::channel_id::ChannelId;
use crate::proto::state::peer_end::PeerEnd;
use crate::proto::state::sequence::ReliableSequence;
use std::net::SocketAddr;

use super::engine::Host;
use super::transition::StateChange;
use crate::abi::*;
use crate::proto::peer::slot::window_size_for;
use crate::proto::state::command::OutgoingBody;
use crate::proto::state::event::EventSlot;
use crate::proto::state::peer_index::PeerIndex;
use crate::wire::command::{CommandFlags, ConnectFields, ConnectId};

use ENetPeerState::*;

const SESSION_VALUES: u8 = 4;

/// ENet 1.3.18's MTU rules, which the build follows when it identifies as
/// 1.3.18 (docs/packaging.md, "Release identities"): a peer that connects
/// starts from its host's MTU as it is then (1.3.17's keeps the one it
/// took when it was last reset), and a server caps a client's offer at its
/// own host's MTU (1.3.17's takes the offer), so that 1.3.18's lower
/// default holds in both directions of a connection with a 1.3.17 peer.
const MTU_RULES_1_3_18: bool = cfg!(feature = "identity-1-3-18");

impl Host {
    /// Reserves `bytes` of every datagram for a layer below the engine (an
    /// encrypted host's record framing): from now on a peer is given at
    /// most the host's MTU less that, and says so in its CONNECT or
    /// VERIFY_CONNECT, so that what reaches the wire stays within the MTU
    /// the program set. Idle slots take the lowered MTU at once, as a
    /// reset would give them.
    pub fn set_datagram_overhead(&mut self, bytes: u32) {
        self.engine.datagram_overhead = bytes;
        if let Some(table) = self.engine.path.as_deref_mut() {
            table.set_overhead(bytes);
        }
        if let Some(ceiling) = self.mtu_ceiling() {
            for peer in self.engine.peers.iter_mut() {
                if peer.state == ENET_PEER_STATE_DISCONNECTED {
                    peer.mtu = peer.mtu.min(ceiling);
                }
            }
        }
    }

    /// The largest MTU a peer may have on a host with a datagram overhead
    /// (never below ENet's minimum, which every peer must accept); `None`
    /// on a plain host, where stock's rules alone decide.
    pub(in crate::proto::host) fn mtu_ceiling(&self) -> Option<u32> {
        let overhead = self.engine.datagram_overhead;
        (overhead != 0).then(|| {
            self.public
                .mtu
                .saturating_sub(overhead)
                .max(ENET_PROTOCOL_MINIMUM_MTU)
        })
    }
}

/// Which slots the half-open queue counts as half-open
/// ([`crate::proto::state::half_open::HalfOpen`]): those whose peer an
/// incoming CONNECT made and that still wait for the acknowledgement of
/// our VERIFY_CONNECT.
fn half_open_in(peers: &[ENetPeer]) -> impl Fn(PeerIndex) -> bool + '_ {
    move |slot| peers[slot].state == ENET_PEER_STATE_ACKNOWLEDGING_CONNECT
}

/// Turns the host's counter (`randomSeed`) into an unpredictable number:
/// the host's generator, which connect ids and `enet_host_random` draw
/// from, as in ENet 1.3.18.
///
/// Stock 1.3.17 sends the bare counter as the connect id, which is
/// predictable; 1.3.18 mixes it with Mulberry32, which is not one-to-one,
/// so two connects of one host can get the same id. A server then takes
/// the second for a retransmission of the first and ignores it, and that
/// client never connects (with the counter stepping by one, about 2 % of
/// seeds give dozens of repeats within 1000 connects). This mixer
/// (murmur3's 32-bit finaliser) is a bijection: every step is an
/// invertible xor-shift or a multiplication by an odd constant, so its
/// numbers never repeat within 2^32 draws of a host.
fn mix_connect_id(counter: u32) -> u32 {
    let mut z = counter;
    z ^= z >> 16;
    z = z.wrapping_mul(0x85EB_CA6B);
    z ^= z >> 13;
    z = z.wrapping_mul(0xC2B2_AE35);
    z ^ (z >> 16)
}

/// The next session id after `requested` (or after `ours` if the peer sent
/// 0xFF for "none yet"), never equal to `ours`.
fn next_session_id(requested: u8, ours: u8) -> u8 {
    let base = if requested == 0xFF { ours } else { requested };
    let mut session = base.wrapping_add(1) % SESSION_VALUES;
    if session == ours {
        session = session.wrapping_add(1) % SESSION_VALUES;
    }
    session
}

impl Host {
    /// The transport lost the connection to `endpoint` (its encrypted
    /// session failed or closed): every peer there that is not already
    /// gone is disconnected as a timeout would, its DISCONNECT event queued.
    pub fn lose_endpoint(&mut self, endpoint: SocketAddr) {
        for index in PeerIndex::all(self.engine.peers.len()) {
            let state = self.engine.peers[index].state;
            let gone = matches!(state, ENET_PEER_STATE_DISCONNECTED | ENET_PEER_STATE_ZOMBIE);
            if !gone && self.peer_endpoint(index) == endpoint {
                self.record_end(index, PeerEnd::EncryptionFailed);
                let change = self.peer_view(index).connection_lost_later();
                self.apply_quiet(index, change);
            }
        }
    }

    /// `enet_host_random` (ENet 1.3.18): the host's next pseudo-random
    /// number, from the same generator as its connect ids. It steps
    /// `randomSeed` by one and mixes it, so it repeats only after 2^32
    /// draws.
    pub fn random(&mut self) -> u32 {
        self.public.randomSeed = self.public.randomSeed.wrapping_add(1);
        mix_connect_id(self.public.randomSeed)
    }

    /// `enet_host_connect`: starts connecting a free peer slot to `address`.
    pub fn connect(
        &mut self,
        address: ENetAddress,
        channel_count: usize,
        data: u32,
    ) -> Option<PeerIndex> {
        self.connect_endpoint(address.into(), channel_count, data)
    }

    /// Starts connecting a free peer slot to `endpoint`, IPv4 or IPv6.
    pub fn connect_endpoint(
        &mut self,
        endpoint: SocketAddr,
        channel_count: usize,
        data: u32,
    ) -> Option<PeerIndex> {
        let channel_count = channel_count.clamp(
            ENET_PROTOCOL_MINIMUM_CHANNEL_COUNT as usize,
            ENET_PROTOCOL_MAXIMUM_CHANNEL_COUNT as usize,
        );
        let index = self
            .engine
            .peers
            .iter()
            .position(|peer| peer.state == ENET_PEER_STATE_DISCONNECTED)
            .and_then(|slot| PeerIndex::checked(slot, self.engine.peers.len()))?;
        if !self.allocate_channels(index, channel_count) {
            return None;
        }
        let connect_id = self.random();
        let outgoing_bandwidth = self.public.outgoingBandwidth;
        let incoming_bandwidth = self.public.incomingBandwidth;
        let host_mtu = self.public.mtu;
        let mtu_ceiling = self.mtu_ceiling();
        self.forget_end(index);
        self.set_peer_endpoint(index, endpoint);
        self.apply_quiet(index, StateChange::enter(ENET_PEER_STATE_CONNECTING));
        let peer = &mut self.engine.peers[index];
        peer.connectID = connect_id;
        if MTU_RULES_1_3_18 {
            peer.mtu = host_mtu;
        }
        if let Some(ceiling) = mtu_ceiling {
            peer.mtu = peer.mtu.min(ceiling);
        }
        peer.windowSize = window_size_for(outgoing_bandwidth);
        let fields = ConnectFields {
            outgoing_peer_id: peer.incomingPeerID,
            incoming_session_id: peer.incomingSessionID,
            outgoing_session_id: peer.outgoingSessionID,
            mtu: peer.mtu,
            window_size: peer.windowSize,
            channel_count: channel_count as u32,
            incoming_bandwidth,
            outgoing_bandwidth,
            packet_throttle_interval: peer.packetThrottleInterval,
            packet_throttle_acceleration: peer.packetThrottleAcceleration,
            packet_throttle_deceleration: peer.packetThrottleDeceleration,
            connect_id: ConnectId::from_native(connect_id),
        };
        self.with_peer_rarely(index, |peer, _| {
            peer.queue_control(
                CommandFlags::ACKNOWLEDGE,
                OutgoingBody::Connect {
                    fields: Box::new(fields),
                    data,
                },
            )
        });
        Some(index)
    }

    /// A CONNECT from `from`: takes a free slot (or, when none is free, the
    /// oldest half-open peer's) and answers VERIFY_CONNECT. `None` refuses
    /// it (which stops the datagram, as stock).
    pub(crate) fn handle_connect(
        &mut self,
        from: SocketAddr,
        connect: &ConnectFields,
        data: u32,
    ) -> Option<PeerIndex> {
        let requested_channels = connect.channel_count as usize;
        if !(ENET_PROTOCOL_MINIMUM_CHANNEL_COUNT as usize
            ..=ENET_PROTOCOL_MAXIMUM_CHANNEL_COUNT as usize)
            .contains(&requested_channels)
        {
            return self.refuse_connect();
        }
        let connect_id = connect.connect_id.to_native();
        let mut free = None;
        let mut duplicates = 0usize;
        for (index, peer) in PeerIndex::all(self.engine.peers.len()).zip(self.engine.peers.iter()) {
            if peer.state == ENET_PEER_STATE_DISCONNECTED {
                free.get_or_insert(index);
            } else if peer.state != ENET_PEER_STATE_CONNECTING && self.peer_has_ip(index, &from) {
                if self.peer_endpoint(index).port() == from.port() && peer.connectID == connect_id {
                    return None; // a retransmitted CONNECT of a connection we have
                }
                duplicates += 1;
            }
        }
        if duplicates >= self.public.duplicatePeers {
            return self.refuse_connect();
        }
        let index = match free.or_else(|| self.evict_oldest_half_open()) {
            Some(index) => index,
            None => return self.refuse_connect(),
        };
        let channel_count = requested_channels.min(self.public.channelLimit);
        if !self.allocate_channels(index, channel_count) {
            return self.refuse_connect();
        }
        let host_incoming = self.public.incomingBandwidth;
        let host_outgoing = self.public.outgoingBandwidth;
        let host_mtu = self.public.mtu;
        let mtu_ceiling = self.mtu_ceiling();
        self.forget_end(index);
        self.set_peer_endpoint(index, from);
        self.apply_quiet(
            index,
            StateChange::enter(ENET_PEER_STATE_ACKNOWLEDGING_CONNECT),
        );
        let peer = &mut self.engine.peers[index];
        peer.connectID = connect_id;
        peer.outgoingPeerID = connect.outgoing_peer_id;
        peer.incomingBandwidth = connect.incoming_bandwidth;
        peer.outgoingBandwidth = connect.outgoing_bandwidth;
        peer.packetThrottleInterval = connect.packet_throttle_interval;
        peer.packetThrottleAcceleration = connect.packet_throttle_acceleration;
        peer.packetThrottleDeceleration = connect.packet_throttle_deceleration;
        peer.eventData = data;

        let incoming_session = next_session_id(connect.incoming_session_id, peer.outgoingSessionID);
        peer.outgoingSessionID = incoming_session;
        let outgoing_session = next_session_id(connect.outgoing_session_id, peer.incomingSessionID);
        peer.incomingSessionID = outgoing_session;

        let offered_mtu = connect
            .mtu
            .clamp(ENET_PROTOCOL_MINIMUM_MTU, ENET_PROTOCOL_MAXIMUM_MTU);
        peer.mtu = if MTU_RULES_1_3_18 {
            offered_mtu.min(host_mtu)
        } else {
            offered_mtu
        };
        if let Some(ceiling) = mtu_ceiling {
            peer.mtu = peer.mtu.min(ceiling);
        }
        peer.windowSize = match (host_outgoing, peer.incomingBandwidth) {
            (0, 0) => ENET_PROTOCOL_MAXIMUM_WINDOW_SIZE,
            (0, bandwidth) | (bandwidth, 0) => window_size_for(bandwidth),
            (ours, theirs) => window_size_for(ours.min(theirs)),
        };
        let mut window_size = if host_incoming == 0 {
            ENET_PROTOCOL_MAXIMUM_WINDOW_SIZE
        } else {
            (host_incoming / ENET_PEER_WINDOW_SIZE_SCALE) * ENET_PROTOCOL_MINIMUM_WINDOW_SIZE
        };
        window_size = window_size.min(connect.window_size).clamp(
            ENET_PROTOCOL_MINIMUM_WINDOW_SIZE,
            ENET_PROTOCOL_MAXIMUM_WINDOW_SIZE,
        );

        let verify = ConnectFields {
            outgoing_peer_id: peer.incomingPeerID,
            incoming_session_id: incoming_session,
            outgoing_session_id: outgoing_session,
            mtu: peer.mtu,
            window_size,
            channel_count: channel_count as u32,
            incoming_bandwidth: host_incoming,
            outgoing_bandwidth: host_outgoing,
            packet_throttle_interval: peer.packetThrottleInterval,
            packet_throttle_acceleration: peer.packetThrottleAcceleration,
            packet_throttle_deceleration: peer.packetThrottleDeceleration,
            connect_id: connect.connect_id,
        };
        self.with_peer_rarely(index, |peer, _| {
            peer.queue_control(
                CommandFlags::ACKNOWLEDGE,
                OutgoingBody::VerifyConnect(Box::new(verify)),
            )
        });
        let is_half_open = half_open_in(&self.engine.peers);
        self.engine.half_open.admit(index, is_half_open);
        self.engine.counters.connects_accepted += 1;
        Some(index)
    }

    /// Lets the half-open queue drop the handshakes that ended since and
    /// give back their storage
    /// ([`crate::proto::state::half_open::HalfOpen::tidy`]): once a second.
    pub(crate) fn tidy_half_open(&mut self) {
        let is_half_open = half_open_in(&self.engine.peers);
        self.engine.half_open.tidy(is_half_open);
    }

    /// Counts a refused CONNECT; `None`, the refusal.
    fn refuse_connect(&mut self) -> Option<PeerIndex> {
        self.engine.counters.connects_refused += 1;
        None
    }

    /// Every slot is taken: resets the oldest half-open peer (one an
    /// incoming CONNECT created and whose handshake has not completed, so
    /// the program never saw it) without an event, and returns its slot.
    /// `None` if there is none; the CONNECT is then ignored, as stock does.
    fn evict_oldest_half_open(&mut self) -> Option<PeerIndex> {
        let is_half_open = half_open_in(&self.engine.peers);
        let index = self.engine.half_open.oldest(is_half_open)?;
        self.record_end(index, PeerEnd::HalfOpenEvicted);
        self.reset_peer(index);
        self.engine.counters.connects_evicted += 1;
        Some(index)
    }

    /// A VERIFY_CONNECT answering our CONNECT.
    pub(crate) fn handle_verify_connect(
        &mut self,
        index: PeerIndex,
        verify: &ConnectFields,
        events: &mut EventSlot,
    ) -> Result<(), ()> {
        let peer = &self.engine.peers[index];
        if peer.state != ENET_PEER_STATE_CONNECTING {
            return Ok(());
        }
        let channel_count = verify.channel_count as usize;
        if !(ENET_PROTOCOL_MINIMUM_CHANNEL_COUNT as usize
            ..=ENET_PROTOCOL_MAXIMUM_CHANNEL_COUNT as usize)
            .contains(&channel_count)
            || verify.packet_throttle_interval != peer.packetThrottleInterval
            || verify.packet_throttle_acceleration != peer.packetThrottleAcceleration
            || verify.packet_throttle_deceleration != peer.packetThrottleDeceleration
            || verify.connect_id.to_native() != peer.connectID
        {
            self.record_end(index, PeerEnd::ConnectRefused { data: 0 });
            let change = self.peer_view(index).handshake_refused();
            self.apply_quiet(index, change);
            return Err(());
        }
        self.remove_sent_reliable(index, ReliableSequence::new(1), ChannelId::CONNECTION, None);
        let peer = &mut self.engine.peers[index];
        if channel_count < peer.channelCount {
            peer.channelCount = channel_count;
        }
        peer.outgoingPeerID = verify.outgoing_peer_id;
        peer.incomingSessionID = verify.incoming_session_id;
        peer.outgoingSessionID = verify.outgoing_session_id;
        let mtu = verify
            .mtu
            .clamp(ENET_PROTOCOL_MINIMUM_MTU, ENET_PROTOCOL_MAXIMUM_MTU);
        peer.mtu = peer.mtu.min(mtu);
        let window_size = verify.window_size.clamp(
            ENET_PROTOCOL_MINIMUM_WINDOW_SIZE,
            ENET_PROTOCOL_MAXIMUM_WINDOW_SIZE,
        );
        peer.windowSize = peer.windowSize.min(window_size);
        peer.incomingBandwidth = verify.incoming_bandwidth;
        peer.outgoingBandwidth = verify.outgoing_bandwidth;
        let change = self.peer_view(index).handshake_completed(events.wanted);
        self.apply_into(index, change, events);
        Ok(())
    }

    /// A DISCONNECT from the peer: its queues go, and the state machine
    /// takes the step the peer decides (`remote_disconnect`).
    pub(crate) fn handle_disconnect(&mut self, index: PeerIndex, flags: CommandFlags, data: u32) {
        let acknowledged = flags.contains(CommandFlags::ACKNOWLEDGE);
        let Some(change) = self.peer_view(index).remote_disconnect(acknowledged, data) else {
            return;
        };
        self.record_remote_disconnect(index, data);
        self.reset_queues(index);
        self.apply_quiet(index, change);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_skip_our_own() {
        assert_eq!(next_session_id(0xFF, 0xFF), 0); // 0xFF + 1 wraps to 0
        assert_eq!(next_session_id(0, 1), 2);
        assert_eq!(next_session_id(3, 0), 1);
        assert_eq!(next_session_id(2, 3), 0);
    }

    /// A client's CONNECT asking for one channel.
    fn one_channel_connect() -> ConnectFields {
        ConnectFields {
            mtu: 1400,
            window_size: 65536,
            channel_count: 1,
            ..ConnectFields::default()
        }
    }

    #[test]
    fn an_evicted_half_open_peer_records_why_and_its_newcomer_starts_clean() {
        use crate::proto::host::engine::HostSettings;
        let mut host = Host::create(HostSettings::for_tests(1)).expect("host");
        let connect = one_channel_connect();
        let first: SocketAddr = "10.0.0.1:4000".parse().unwrap();
        let second: SocketAddr = "10.0.0.2:4000".parse().unwrap();
        let slot = host
            .handle_connect(first, &connect, 0)
            .expect("a free slot");
        assert_eq!(host.peer_end(slot), None);
        // What a CONNECT finding no free slot does first.
        assert_eq!(host.evict_oldest_half_open(), Some(slot));
        assert_eq!(host.peer_end(slot), Some(PeerEnd::HalfOpenEvicted));
        // The CONNECT that evicted it takes the slot, which starts clean.
        let third: SocketAddr = "10.0.0.3:4000".parse().unwrap();
        assert_eq!(host.handle_connect(second, &connect, 0), Some(slot));
        assert_eq!(host.peer_end(slot), None);
        assert_eq!(host.handle_connect(third, &connect, 0), Some(slot));
        assert_eq!(host.peer_end(slot), None, "evicted, then taken at once");
    }

    /// What a send pass of `host` at `now` puts on the wire: the sent
    /// datagrams, each from its first command on (the datagram header
    /// holds the send time).
    fn send_pass(host: &mut Host, now: u32) -> Vec<Vec<u8>> {
        use crate::proto::host::codec::NoCodec;
        use crate::proto::host::outgoing::{Grouping, Transmitted};
        let mut sent = Vec::new();
        let mut transmit =
            |_: &SocketAddr, buffer: &mut Vec<u8>, range: core::ops::Range<usize>, _: Grouping| {
                // Peer ID and flags (2), sent time (2): then the commands.
                sent.push(buffer[range.start + 4..range.end].to_vec());
                Transmitted::Sent(range.len())
            };
        let mut events = EventSlot::wanted();
        host.send_outgoing(now, true, &mut NoCodec, &mut transmit, &mut events)
            .expect("sent");
        sent
    }

    #[test]
    fn a_handshake_waits_for_its_acknowledgement_without_a_queue_set() {
        use crate::proto::host::engine::HostSettings;
        let mut host = Host::create(HostSettings::for_tests(2)).expect("host");
        let connect = one_channel_connect();
        let client = |number: u8| SocketAddr::from(([10, 0, 0, number], 4000));
        let handshake = |host: &mut Host, number: u8, now: u32| {
            let slot = host
                .handle_connect(client(number), &connect, 0)
                .expect("a slot");
            assert!(host.engine.slots[slot].queues.is_none(), "queued, parked");
            assert_eq!(host.peer_counters(slot).queued_commands, 1);
            host.reschedule(slot, now);
            let sent = send_pass(host, now);
            assert_eq!(sent.len(), 1, "the VERIFY_CONNECT");
            assert!(host.engine.slots[slot].queues.is_none(), "parked");
            assert_eq!(host.peer_counters(slot).in_flight_commands, 1);
            (slot, sent)
        };
        let (slot, first) = handshake(&mut host, 1, 0);
        // Sent again on its timeout, the same command, in a set again:
        // its congestion window has learnt of the loss, which a parked
        // command would forget.
        let timeout = host.engine.peers[slot].nextTimeout;
        assert!(send_pass(&mut host, timeout - 1).is_empty());
        assert_eq!(send_pass(&mut host, timeout), first);
        assert!(host.engine.slots[slot].queues.is_some(), "kept");
        assert_eq!(host.peer_counters(slot).in_flight_commands, 1);
        assert_eq!(
            host.engine.peers[slot].state,
            ENET_PEER_STATE_ACKNOWLEDGING_CONNECT
        );
        host.reset_peer(slot);
        // A reset takes a parked command with it.
        let mut now = timeout;
        let (slot, _) = handshake(&mut host, 2, now);
        host.reset_peer(slot);
        assert_eq!(host.peer_counters(slot).in_flight_commands, 0);
        assert!(send_pass(&mut host, now + 10_000).is_empty());
        // A parked command's acknowledgement finds it in flight.
        now += 10_000;
        let (slot, _) = handshake(&mut host, 3, now);
        // What a datagram from the peer does first.
        let engine = &mut host.engine;
        engine.slots[slot].ready_queues(&mut engine.spare_queues);
        let number =
            host.remove_sent_reliable(slot, ReliableSequence::new(1), ChannelId::CONNECTION, None);
        assert_eq!(number, Some(crate::wire::command::number::VERIFY_CONNECT));
        assert_eq!(host.peer_counters(slot).in_flight_commands, 0);
        host.reset_peer(slot);
        // One never acknowledged ends the handshake on its timeouts, as in
        // a set.
        let (slot, _) = handshake(&mut host, 4, now);
        let (start, mut resent) = (now, 0);
        while host.engine.peers[slot].state == ENET_PEER_STATE_ACKNOWLEDGING_CONNECT {
            now += 100;
            resent += send_pass(&mut host, now).len();
            assert!(now - start < 60_000, "never timed out");
        }
        assert!(resent > 3, "{resent} sent again");
        assert_eq!(host.peer_counters(slot).in_flight_commands, 0);
    }

    #[test]
    fn connect_ids_are_mixed() {
        assert_ne!(mix_connect_id(1), 2);
        assert_ne!(mix_connect_id(1), mix_connect_id(2));
    }

    #[test]
    fn connect_ids_of_one_host_never_repeat() {
        // The seeds include the wrap and counters Mulberry32 repeated ids
        // for dozens of times within 1000 connects.
        for start in [0u32, 0xFFFF_FF00, 0x5EED_0000, 0x9E37_79B9, 0x2545_F491] {
            let ids: std::collections::HashSet<u32> = (0..200_000u32)
                .map(|step| mix_connect_id(start.wrapping_add(step)))
                .collect();
            assert_eq!(ids.len(), 200_000, "repeats from counter {start:#x}");
        }
    }
}
