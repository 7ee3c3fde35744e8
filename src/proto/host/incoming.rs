//! Receiving a datagram (stock `enet_protocol_handle_incoming_commands` and
//! the command handlers that do not set up or tear down connections).

use crate::proto::state::channel_id::ChannelId;
use crate::proto::state::connected::counts_as_connected;
use crate::proto::state::peer_end::PeerEnd;
use crate::proto::state::sequence::{ReliableSequence, UnreliableSequence};
use std::net::SocketAddr;

use super::codec::Codec;
use super::engine::Host;
use crate::abi::*;
use crate::proto::peer::slot::window_size_for;
use crate::proto::state::channel::{FragmentInfo, Queued, Sequencing};
use crate::proto::state::command::number;
use crate::proto::state::event::EventSlot;
use crate::proto::state::peer_index::PeerIndex;
use crate::time::time_less;
use crate::wire::checksum;
use crate::wire::command::{
    Acknowledgement, Command, CommandFlags, CommandHeader, ConnectId, Fragment,
};
use crate::wire::header::{DatagramHeader, NO_PEER_ID};
use crate::wire::DropReason;

use ENetPeerState::*;

/// The largest datagram ENet handles (`ENET_PROTOCOL_MAXIMUM_MTU`); the
/// decompressed form must fit it too.
const MAXIMUM_DATAGRAM: usize = ENET_PROTOCOL_MAXIMUM_MTU as usize;

impl Host {
    /// Handles one received datagram from `from` at time `now`. Events that
    /// complete "now" go into `events`. An `Err` names why the datagram (or
    /// the rest of it) was dropped; that is no failure of the host.
    pub fn receive_datagram(
        &mut self,
        now: u32,
        from: SocketAddr,
        datagram: &[u8],
        codec: &mut dyn Codec,
        events: &mut EventSlot,
    ) -> Result<(), DropReason> {
        let result = self.receive_datagram_deferring(now, from, datagram, codec, events);
        self.reschedule_deferred(now);
        result
    }

    /// [`Host::receive_datagram`], leaving the peer's reschedule for later
    /// while the datagrams that follow come from the same peer: a run of
    /// them (a burst of fragments, a batch of acknowledgements) sets its
    /// timers once. A datagram from another peer reschedules the deferred
    /// one first; the caller reschedules the last with
    /// [`Host::reschedule_deferred`] before anything reads the schedule or
    /// the program runs.
    pub(crate) fn receive_datagram_deferring(
        &mut self,
        now: u32,
        from: SocketAddr,
        datagram: &[u8],
        codec: &mut dyn Codec,
        events: &mut EventSlot,
    ) -> Result<(), DropReason> {
        self.public.serviceTime = now;
        let mut peer = None;
        let result = self.handle_datagram(from, datagram, codec, events, &mut peer);
        // Acknowledgements move the peer's retransmission and ping
        // deadlines; its timer must follow before the schedule is read.
        if let Some(index) = peer {
            match self.engine.deferred_reschedule.replace(index) {
                Some(previous) if previous != index => self.reschedule(previous, now),
                _ => {}
            }
        }
        result
    }

    /// Reschedules the peer whose reschedule was left for later, if any,
    /// at `now`. The reschedule reads only the peer's state as it is by
    /// then, so one after a run of datagrams does what one after each
    /// would have.
    // Out of line: bench/callgrind.sh counts it with the receiving stage.
    #[inline(never)]
    pub(crate) fn reschedule_deferred(&mut self, now: u32) {
        if let Some(index) = self.engine.deferred_reschedule.take() {
            self.reschedule(index, now);
        }
    }

    /// A datagram from the peer in slot `index` arrived from `from`: the
    /// peer's address follows it, and the peer gets a queue set for the
    /// acknowledgements and packets its commands may queue, from the
    /// spares if there is one.
    // Out of line, as the one call it wraps was: the datagram's handler
    // stays as it was compiled.
    #[inline(never)]
    fn heard_from(&mut self, index: PeerIndex, from: SocketAddr) {
        let engine = &mut self.engine;
        engine.slots[index].ready_queues(&mut engine.spare_queues);
        self.set_peer_endpoint(index, from);
    }

    /// [`Host::receive_datagram`]; `peer` learns which peer it concerned.
    fn handle_datagram(
        &mut self,
        from: SocketAddr,
        datagram: &[u8],
        codec: &mut dyn Codec,
        events: &mut EventSlot,
        peer: &mut Option<PeerIndex>,
    ) -> Result<(), DropReason> {
        let (header, header_len) = DatagramHeader::parse(datagram, codec.has_checksum())?;
        let peer_index = self.datagram_peer(&header, from)?;
        *peer = peer_index;

        let mut decompressed = Vec::new();
        let body = match datagram.get(header_len..) {
            Some(body) if header.compressed => {
                if !codec.has_compressor() {
                    return Err(DropReason::NoDecompressor);
                }
                let limit = MAXIMUM_DATAGRAM - header_len;
                decompressed.resize(limit, 0);
                let length = codec.decompress(body, &mut decompressed);
                if length == 0 || length > limit {
                    return Err(DropReason::DecompressionFailed);
                }
                decompressed.truncate(length);
                &decompressed[..]
            }
            Some(body) => body,
            None => return Err(DropReason::Truncated),
        };

        if header.checksum.is_some() {
            let connect_id = peer_index.map_or(0, |index| self.engine.peers[index].connectID);
            checksum::verify(&header, body, ConnectId::from_native(connect_id), |parts| {
                codec.checksum(parts)
            })?;
        }

        if let Some(index) = peer_index {
            self.heard_from(index, from);
            let peer = &mut self.engine.peers[index];
            peer.incomingDataTotal = peer
                .incomingDataTotal
                .wrapping_add((header_len + body.len()) as u32);
        }

        let mut peer_index = peer_index;
        // The commands, parsed one after another until the body ends or
        // one fails (the `Commands` iterator's walk, without wrapping each
        // command in an `Option` of a `Result` to unwrap again here).
        let mut rest = body;
        while !rest.is_empty() {
            // An acknowledgement, half of all commands in reliable
            // traffic, goes straight to its handler: the general parse and
            // dispatch below would make the same call, with its fields
            // first built into a `Command` and matched again (about 50
            // instructions a reliable message, bench/callgrind-lines.sh).
            let fixed = rest.first_chunk::<{ Acknowledgement::LEN }>();
            if let (Some(index), Some(acknowledgement)) =
                (peer_index, fixed.and_then(Acknowledgement::from_plain))
            {
                rest = rest.get(Acknowledgement::LEN..).unwrap_or(&[]);
                self.handle_acknowledge(
                    index,
                    ChannelId::from(acknowledgement.channel_id),
                    ReliableSequence::new(acknowledgement.received_reliable_sequence_number),
                    acknowledgement.received_sent_time,
                    events,
                )
                .map_err(|()| DropReason::CommandRejected)?;
                continue;
            }
            let (command_header, command, consumed) = Command::parse(rest)?;
            rest = rest.get(consumed..).unwrap_or(&[]);
            let Some(index) = peer_index.or_else(|| {
                // Only CONNECT may come before the sender has a peer here.
                match command {
                    Command::Connect { fields, data } => self.handle_connect(from, &fields, data),
                    _ => None,
                }
            }) else {
                return Err(DropReason::NoPeerForCommand);
            };
            if peer_index.is_none() {
                peer_index = Some(index);
                *peer = peer_index;
            } else {
                self.handle_command(index, &command_header, &command, events)
                    .map_err(|()| DropReason::CommandRejected)?;
            }
            if command_header.flags.contains(CommandFlags::ACKNOWLEDGE) {
                let Some(sent_time) = header.sent_time else {
                    return Err(DropReason::MissingSentTime);
                };
                let command_number = command.number();
                // The closure inlined too, as `with_peer` is: every
                // reliable command earns an acknowledgement.
                self.with_peer(
                    index,
                    #[inline(always)]
                    |peer, _| peer.acknowledge_received(&command_header, command_number, sent_time),
                );
            }
        }
        Ok(())
    }

    /// The peer a datagram is addressed to, if it may be processed.
    fn datagram_peer(
        &self,
        header: &DatagramHeader,
        from: SocketAddr,
    ) -> Result<Option<PeerIndex>, DropReason> {
        if header.peer_id == NO_PEER_ID {
            return Ok(None);
        }
        let index = PeerIndex::from_peer_id(header.peer_id, self.engine.peers.len())
            .ok_or(DropReason::BadPeerId)?;
        let peer = &self.engine.peers[index];
        if peer.state == ENET_PEER_STATE_DISCONNECTED || peer.state == ENET_PEER_STATE_ZOMBIE {
            return Err(DropReason::PeerNotConnected);
        }
        if !self.peer_matches(index, &from) {
            return Err(DropReason::AddressMismatch);
        }
        if peer.outgoingPeerID < NO_PEER_ID && header.session_id != peer.incomingSessionID {
            return Err(DropReason::SessionMismatch);
        }
        Ok(Some(index))
    }

    fn handle_command(
        &mut self,
        index: PeerIndex,
        header: &CommandHeader,
        command: &Command<'_>,
        events: &mut EventSlot,
    ) -> Result<(), ()> {
        let state = self.engine.peers[index].state;
        match *command {
            Command::Acknowledge {
                received_reliable_sequence_number,
                received_sent_time,
            } => self.handle_acknowledge(
                index,
                header.channel_id.into(),
                ReliableSequence::new(received_reliable_sequence_number),
                received_sent_time,
                events,
            ),
            Command::Connect { .. } => Err(()),
            Command::VerifyConnect(fields) => self.handle_verify_connect(index, &fields, events),
            Command::Disconnect { data } => {
                self.handle_disconnect(index, header.flags, data);
                Ok(())
            }
            Command::Ping => counts_as_connected(state).then_some(()).ok_or(()),
            Command::SendReliable { data } => self.handle_payload(
                index,
                header,
                Sequencing::Reliable {
                    sequence: ReliableSequence::new(header.reliable_sequence_number),
                },
                data,
            ),
            Command::SendUnreliable {
                unreliable_sequence_number,
                data,
            } => self.handle_payload(
                index,
                header,
                Sequencing::Unreliable {
                    sequence: ReliableSequence::new(header.reliable_sequence_number),
                    unreliable: UnreliableSequence::new(unreliable_sequence_number),
                },
                data,
            ),
            Command::SendUnsequenced {
                unsequenced_group,
                data,
            } => self.handle_unsequenced(index, header, unsequenced_group, data),
            Command::SendFragment(fragment) => self.handle_fragment(index, header, &fragment, true),
            Command::SendUnreliableFragment(fragment) => {
                self.handle_fragment(index, header, &fragment, false)
            }
            Command::BandwidthLimit {
                incoming_bandwidth,
                outgoing_bandwidth,
            } => self.handle_bandwidth_limit(index, incoming_bandwidth, outgoing_bandwidth),
            Command::ThrottleConfigure {
                packet_throttle_interval,
                packet_throttle_acceleration,
                packet_throttle_deceleration,
            } => {
                if !counts_as_connected(state) {
                    return Err(());
                }
                let peer = &mut self.engine.peers[index];
                peer.packetThrottleInterval = packet_throttle_interval;
                peer.packetThrottleAcceleration = packet_throttle_acceleration;
                peer.packetThrottleDeceleration = packet_throttle_deceleration;
                Ok(())
            }
        }
    }

    /// Checks common to every payload command: a channel that exists, a
    /// connected peer, a payload within the host's packet size limit.
    fn payload_allowed(&self, index: PeerIndex, header: &CommandHeader, length: usize) -> bool {
        let peer = &self.engine.peers[index];
        usize::from(header.channel_id) < peer.channelCount
            && counts_as_connected(peer.state)
            && length <= self.public.maximumPacketSize
    }

    fn handle_payload(
        &mut self,
        index: PeerIndex,
        header: &CommandHeader,
        sequencing: Sequencing,
        data: &[u8],
    ) -> Result<(), ()> {
        if !self.payload_allowed(index, header, data.len()) {
            return Err(());
        }
        self.queue_incoming(index, header.channel_id.into(), sequencing, data)
            .into_result()
    }

    fn handle_unsequenced(
        &mut self,
        index: PeerIndex,
        header: &CommandHeader,
        group: u16,
        data: &[u8],
    ) -> Result<(), ()> {
        if !self.payload_allowed(index, header, data.len()) {
            return Err(());
        }
        let window_size = ENET_PEER_UNSEQUENCED_WINDOW_SIZE;
        let peer = &mut self.engine.peers[index];
        let base = u32::from(peer.incomingUnsequencedGroup);
        let bit = u32::from(group) % window_size;
        let mut group = u32::from(group);
        if group < base {
            group += 0x10000;
        }
        if group >= base + ENET_PEER_FREE_UNSEQUENCED_WINDOWS * window_size {
            return Ok(());
        }
        let group = group & 0xFFFF;
        let (word, mask) = ((bit / 32) as usize, 1u32 << (bit % 32));
        if group - bit != base {
            peer.incomingUnsequencedGroup = (group - bit) as u16;
            peer.unsequencedWindow = [0; (ENET_PEER_UNSEQUENCED_WINDOW_SIZE / 32) as usize];
        } else if peer.unsequencedWindow[word] & mask != 0 {
            return Ok(());
        }
        if self.queue_incoming(
            index,
            header.channel_id.into(),
            Sequencing::Unsequenced,
            data,
        ) == Queued::Error
        {
            return Err(());
        }
        self.engine.peers[index].unsequencedWindow[word] |= mask;
        Ok(())
    }

    fn handle_fragment(
        &mut self,
        index: PeerIndex,
        header: &CommandHeader,
        fragment: &Fragment<'_>,
        reliable: bool,
    ) -> Result<(), ()> {
        let length = fragment.data.len();
        if !self.payload_allowed(index, header, length) {
            return Err(());
        }
        if reliable {
            self.engine.fragment_bytes_unacknowledged += length;
        }
        let Some(channel) = self.channel_mut(index, header.channel_id.into()) else {
            return Err(());
        };
        let current = ReliableSequence::new(channel.incomingReliableSequenceNumber);
        let sequence = ReliableSequence::new(header.reliable_sequence_number);
        let window_sequence = if reliable {
            ReliableSequence::new(fragment.start_sequence_number)
        } else {
            sequence
        };
        if !window_sequence.in_receive_window(current) {
            return Ok(());
        }
        if !reliable
            && sequence == current
            && UnreliableSequence::new(fragment.start_sequence_number)
                <= UnreliableSequence::new(channel.incomingUnreliableSequenceNumber)
        {
            return Ok(());
        }
        let total = fragment.total_length;
        let count = fragment.fragment_count;
        let valid = count <= ENET_PROTOCOL_MAXIMUM_FRAGMENT_COUNT
            && fragment.fragment_number < count
            && (total as usize) <= self.public.maximumPacketSize
            && fragment.fragment_offset < total
            && length as u32 <= total - fragment.fragment_offset
            // Adopted from later ENet: no empty fragments, no more
            // fragments than bytes.
            && length > 0
            && total >= count;
        if !valid {
            return Err(());
        }
        let info = FragmentInfo {
            start: fragment.start_sequence_number,
            count,
            number: fragment.fragment_number,
            total,
            offset: fragment.fragment_offset,
        };
        let queued = if reliable {
            self.queue_reliable_fragment(index, header.channel_id.into(), info, fragment.data)
        } else {
            self.queue_unreliable_fragment(
                index,
                header.channel_id.into(),
                sequence,
                info,
                fragment.data,
            )
        };
        queued.into_result()
    }

    fn handle_bandwidth_limit(
        &mut self,
        index: PeerIndex,
        incoming: u32,
        outgoing: u32,
    ) -> Result<(), ()> {
        if !counts_as_connected(self.engine.peers[index].state) {
            return Err(());
        }
        if self.engine.peers[index].incomingBandwidth != 0 {
            self.public.bandwidthLimitedPeers = self.public.bandwidthLimitedPeers.saturating_sub(1);
        }
        let host_outgoing = self.public.outgoingBandwidth;
        let peer = &mut self.engine.peers[index];
        peer.incomingBandwidth = incoming;
        peer.outgoingBandwidth = outgoing;
        if incoming != 0 {
            self.public.bandwidthLimitedPeers += 1;
        }
        peer.windowSize = match (incoming, host_outgoing) {
            (0, 0) => ENET_PROTOCOL_MAXIMUM_WINDOW_SIZE,
            (0, bandwidth) | (bandwidth, 0) => window_size_for(bandwidth),
            (theirs, ours) => window_size_for(theirs.min(ours)),
        };
        Ok(())
    }

    /// An ACKNOWLEDGE: a round-trip sample, then the acknowledged command
    /// leaves the sent queue, which may complete a connect or disconnect.
    // Always inlined: the receive loop calls it twice (a plain
    // acknowledgement, any other through the general dispatch), and out of
    // line the call costs about 40 instructions a reliable message more.
    #[inline(always)]
    fn handle_acknowledge(
        &mut self,
        index: PeerIndex,
        channel_id: ChannelId,
        received_sequence: ReliableSequence,
        received_sent_time: u16,
        events: &mut EventSlot,
    ) -> Result<(), ()> {
        let state = self.engine.peers[index].state;
        if state == ENET_PEER_STATE_DISCONNECTED || state == ENET_PEER_STATE_ZOMBIE {
            return Ok(());
        }
        let now = self.public.serviceTime;
        // Widen the 16-bit echo of our send time with our clock's high bits.
        let mut sent_time = u32::from(received_sent_time) | (now & 0xFFFF_0000);
        if (sent_time & 0x8000) > (now & 0x8000) {
            sent_time = sent_time.wrapping_sub(0x10000);
        }
        if time_less(now, sent_time) {
            return Ok(());
        }
        // The round trip is sampled, then the command taken out.
        let command_number =
            self.remove_sent_reliable(index, received_sequence, channel_id, Some(sent_time));
        // A path probe's PING is never kept for retransmission: its
        // acknowledgement matches nothing sent.
        if command_number.is_none()
            && self.engine.path.is_some()
            && self.path_probe_acknowledged(index, channel_id, received_sequence)
        {
            return Ok(());
        }
        match self.engine.peers[index].state {
            ENET_PEER_STATE_ACKNOWLEDGING_CONNECT => {
                if command_number != Some(number::VERIFY_CONNECT) {
                    return Err(());
                }
                let change = self.peer_view(index).handshake_completed(events.wanted);
                self.apply_into(index, change, events);
            }
            ENET_PEER_STATE_DISCONNECTING => {
                if command_number != Some(number::DISCONNECT) {
                    return Err(());
                }
                self.record_end(index, PeerEnd::LocalDisconnect);
                let change = self.peer_view(index).connection_lost(events.wanted);
                self.apply_into(index, change, events);
            }
            ENET_PEER_STATE_DISCONNECT_LATER => {
                let slot = &self.engine.slots[index];
                if slot.outgoing_is_empty() && slot.sent_reliable_is_empty() {
                    self.disconnect_drained(index);
                }
            }
            _ => {}
        }
        Ok(())
    }
}
