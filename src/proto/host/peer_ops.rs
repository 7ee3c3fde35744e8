//! Per-peer operations (stock `peer.c`): queueing and sequencing outgoing
//! commands, sending packets (with fragmentation), receiving, and the
//! per-peer tunables. Resetting a peer is in `peer_reset.rs`, ending a
//! connection in `disconnect.rs`.

use super::engine::{clear_list, Host};
use crate::abi::*;
use crate::mem::PacketFlags;
use crate::mem::{CSlice, PacketView};
use crate::proto::peer::slot::{blank_channel, Receipts, SendError};
use crate::proto::state::command::{
    FragmentFields, OutgoingBody, OutgoingCommand, CONNECTION_CHANNEL,
};
use crate::proto::state::connected::counts_as_connected;
use crate::proto::state::peer_index::PeerIndex;
use crate::wire::command::CommandFlags;
use crate::wire::header::{CHECKSUM_LEN, SENT_TIME_HEADER_LEN};
use crate::wire::size;

use ENetPeerState::*;

/// The datagram header and command that come before each fragment's bytes.
const FRAGMENT_OVERHEAD: u32 = (SENT_TIME_HEADER_LEN + size::SEND_FRAGMENT) as u32;

impl Host {
    /// Gives the peer `count` fresh channels; false if allocation fails.
    pub(crate) fn allocate_channels(&mut self, index: PeerIndex, count: usize) -> bool {
        let Some(mut channels) = CSlice::new_with(count, |_| blank_channel()) else {
            return false;
        };
        for channel in channels.iter_mut() {
            clear_list(&mut channel.incomingReliableCommands);
            clear_list(&mut channel.incomingUnreliableCommands);
        }
        let peer = &mut self.engine.peers[index];
        peer.channels = channels.as_mut_ptr();
        peer.channelCount = count;
        let slot = &mut self.engine.slots[index];
        slot.channels = Some(channels);
        if let Some(queues) = slot.queues_if_any() {
            // A new connection: nothing can be waiting on the reset peer.
            queues.drop_held();
        }
        true
    }

    pub(crate) fn channel_mut(
        &mut self,
        index: PeerIndex,
        channel_id: u8,
    ) -> Option<&mut ENetChannel> {
        // The slot and the channel count alone, without a whole view.
        let count = self.engine.peers[index].channelCount;
        self.engine.slots[index].channel(count, channel_id)
    }

    /// `enet_peer_on_connect`: counts the peer as connected.
    pub fn on_connect(&mut self, index: PeerIndex) {
        let peer = &self.engine.peers[index];
        if !counts_as_connected(peer.state) {
            if peer.incomingBandwidth != 0 {
                self.public.bandwidthLimitedPeers += 1;
            }
            self.engine.connected.insert(index);
            self.public.connectedPeers = self.engine.connected.len();
        }
    }

    /// `enet_peer_on_disconnect`: stops counting the peer as connected.
    pub fn on_disconnect(&mut self, index: PeerIndex) {
        let peer = &self.engine.peers[index];
        if counts_as_connected(peer.state) {
            if peer.incomingBandwidth != 0 {
                self.public.bandwidthLimitedPeers =
                    self.public.bandwidthLimitedPeers.saturating_sub(1);
            }
            self.engine.connected.remove(index);
            self.public.connectedPeers = self.engine.connected.len();
        }
    }

    /// `enet_peer_setup_outgoing_command`: numbers the command and queues it.
    pub(crate) fn setup_outgoing(&mut self, index: PeerIndex, command: OutgoingCommand) {
        if self.peer_view(index).number_and_queue(command) {
            self.engine.schedule.mark_ready(index);
        }
    }

    /// Queues a connection-level (channel 0xFF) command.
    pub(crate) fn queue_control(
        &mut self,
        index: PeerIndex,
        flags: CommandFlags,
        body: OutgoingBody,
    ) {
        self.setup_outgoing(index, OutgoingCommand::new(flags, CONNECTION_CHANNEL, body));
    }

    /// `enet_peer_send`. On success the queued commands hold references to
    /// `packet`; on failure nothing is kept (the caller still owns it).
    // Always inlined: `enet_peer_send` is a thin shell around it, and
    // the checks fold into that one call.
    #[inline(always)]
    pub fn send<'p>(
        &mut self,
        index: PeerIndex,
        channel_id: u8,
        packet: impl Into<PacketView<'p>>,
    ) -> Result<(), SendError> {
        let packet = packet.into();
        let peer = &self.engine.peers[index];
        if peer.state != ENET_PEER_STATE_CONNECTED {
            return Err(SendError::NotConnected);
        }
        if usize::from(channel_id) >= peer.channelCount {
            return Err(SendError::BadChannel);
        }
        let length = packet.len();
        if length > self.public.maximumPacketSize {
            return Err(SendError::TooLarge);
        }
        let mut fragment_length = peer.mtu.saturating_sub(FRAGMENT_OVERHEAD);
        if self.public.checksum.is_some() {
            fragment_length = fragment_length.saturating_sub(CHECKSUM_LEN as u32);
        }
        let fragment_length = fragment_length.max(1) as usize;
        let flags = packet.flags();
        let channel = self
            .channel_mut(index, channel_id)
            .ok_or(SendError::BadChannel)?;

        if length > fragment_length {
            let fragment_count = length.div_ceil(fragment_length);
            if fragment_count > ENET_PROTOCOL_MAXIMUM_FRAGMENT_COUNT as usize {
                return Err(SendError::TooManyFragments);
            }
            let unreliable = flags & (PacketFlags::RELIABLE | PacketFlags::UNRELIABLE_FRAGMENT)
                == PacketFlags::UNRELIABLE_FRAGMENT
                && channel.outgoingUnreliableSequenceNumber < 0xFFFF;
            let (command_flags, start) = if unreliable {
                (
                    CommandFlags::NONE,
                    channel.outgoingUnreliableSequenceNumber.wrapping_add(1),
                )
            } else {
                (
                    CommandFlags::ACKNOWLEDGE,
                    channel.outgoingReliableSequenceNumber.wrapping_add(1),
                )
            };
            for fragment_number in 0..fragment_count {
                let offset = fragment_number * fragment_length;
                let this_length = fragment_length.min(length - offset);
                let fields = FragmentFields {
                    start_sequence_number: start,
                    fragment_count: fragment_count as u32,
                    fragment_number: fragment_number as u32,
                    total_length: length as u32,
                };
                let body = if unreliable {
                    OutgoingBody::SendUnreliableFragment(fields)
                } else {
                    OutgoingBody::SendFragment(fields)
                };
                let command = OutgoingCommand::new(command_flags, channel_id, body).with_payload(
                    packet.retain(),
                    offset as u32,
                    this_length as u16,
                );
                self.setup_outgoing(index, command);
            }
            self.stamp_traffic(index);
            return Ok(());
        }

        let (command_flags, body) = if flags & (PacketFlags::RELIABLE | PacketFlags::UNSEQUENCED)
            == PacketFlags::UNSEQUENCED
        {
            (CommandFlags::UNSEQUENCED, OutgoingBody::SendUnsequenced)
        } else if flags.contains(PacketFlags::RELIABLE)
            || channel.outgoingUnreliableSequenceNumber == u16::MAX
        {
            (CommandFlags::ACKNOWLEDGE, OutgoingBody::SendReliable)
        } else {
            (CommandFlags::NONE, OutgoingBody::SendUnreliable)
        };
        let command = OutgoingCommand::new(command_flags, channel_id, body).with_payload(
            packet.retain(),
            0,
            length as u16,
        );
        self.setup_outgoing(index, command);
        self.stamp_traffic(index);
        Ok(())
    }

    /// Notes that the peer in slot `index` just queued a payload, which
    /// keeps its queues (made by the queueing) from being given back.
    fn stamp_traffic(&mut self, index: PeerIndex) {
        if let Some(queues) = self.engine.slots[index].queues_if_any() {
            queues.last_traffic = self.public.serviceTime;
        }
    }

    /// `enet_peer_ping`.
    pub fn ping(&mut self, index: PeerIndex) {
        if self.engine.peers[index].state != ENET_PEER_STATE_CONNECTED {
            return;
        }
        self.queue_control(index, CommandFlags::ACKNOWLEDGE, OutgoingBody::Ping);
    }

    /// `enet_peer_ping_interval` (0 restores the default).
    pub fn set_ping_interval(&mut self, index: PeerIndex, interval: u32) {
        self.engine.peers[index].pingInterval = if interval != 0 {
            interval
        } else {
            ENET_PEER_PING_INTERVAL
        };
        self.engine.schedule.mark_ready(index);
    }

    /// `enet_peer_throttle_configure`: sets the throttle and tells the peer.
    pub fn throttle_configure(
        &mut self,
        index: PeerIndex,
        interval: u32,
        acceleration: u32,
        deceleration: u32,
    ) {
        let peer = &mut self.engine.peers[index];
        peer.packetThrottleInterval = interval;
        peer.packetThrottleAcceleration = acceleration;
        peer.packetThrottleDeceleration = deceleration;
        self.queue_control(
            index,
            CommandFlags::ACKNOWLEDGE,
            OutgoingBody::ThrottleConfigure {
                interval,
                acceleration,
                deceleration,
            },
        );
    }

    /// `enet_peer_queue_acknowledgement`: owes the peer an acknowledgement
    /// unless the command lies in the two windows just past the usable
    /// range (stock leaves those unacknowledged so the sender retries).
    // Always inlined into the receive loop, where every reliable command
    // earns one (the other callers are off the message path).
    #[inline(always)]
    pub(crate) fn queue_acknowledgement(
        &mut self,
        index: PeerIndex,
        channel_id: u8,
        reliable_sequence_number: u16,
        command_number: u8,
        sent_time: u16,
    ) -> bool {
        let queued = self.peer_view(index).queue_acknowledgement(
            channel_id,
            reliable_sequence_number,
            command_number,
            sent_time,
        );
        if queued {
            self.engine.schedule.mark_ready(index);
        }
        queued
    }

    /// Where the internal queue exports keep the objects they return.
    pub fn receipts_mut(&mut self, index: PeerIndex) -> &mut Receipts {
        self.engine.receipts.entry(index).or_default()
    }

    /// Whether the peer still has commands queued or unacknowledged
    /// (1.3.18's `enet_peer_has_outgoing_commands`).
    pub fn has_outgoing_commands(&self, index: PeerIndex) -> bool {
        let slot = &self.engine.slots[index];
        !(slot.outgoing_is_empty() && slot.sent_reliable_is_empty())
    }
}
