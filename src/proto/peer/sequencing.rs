//! Numbering and queueing on one peer's view: an outgoing command gets its
//! channel's sequence numbers (stock `enet_peer_setup_outgoing_command`), a
//! received reliable command gets its acknowledgement queued, and a
//! received packet goes to the peer's delivery queue. What that means for
//! the host (the send schedule, the dispatch queue) is returned as a
//! [`Wake`].

use super::send::{Delivered, PeerEffect, Wake};
use super::slot::{Delivery, PeerMut};
use crate::abi::ENetPeerState::*;
use crate::mem::PacketRef;
use crate::proto::state::channel_id::ChannelId;
use crate::proto::state::command::{number, Acknowledgement, OutgoingCommand};
use crate::proto::state::queue::push_to_peer_queue;
use crate::proto::state::sequence::{ReliableSequence, UnreliableSequence};
use crate::wire::command::{CommandFlags, CommandHeader};
use crate::wire::size;

/// Whether an acknowledgement was queued: if so, the host's send pass
/// must visit the peer to send it. Its caller gets the answer.
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owed {
    queued: bool,
}

impl PeerEffect for Owed {
    type Answer = bool;
    #[inline(always)]
    fn split(self) -> (bool, Wake, Delivered) {
        (self.queued, Wake { visit: self.queued }, Delivered::NONE)
    }
}

impl PeerMut<'_> {
    /// Numbers `command` and appends it to the peer's outgoing queue;
    /// `false` (the command discarded) if its channel does not exist.
    pub(crate) fn number_and_queue(&mut self, mut command: OutgoingCommand) -> bool {
        let fixed = command.fixed_len() as u32;
        let channel_id = command.channel_id;
        let peer = &mut *self.public;
        peer.outgoingDataTotal = peer
            .outgoingDataTotal
            .wrapping_add(fixed + u32::from(command.fragment_length));
        if channel_id == ChannelId::CONNECTION {
            let sequence = ReliableSequence::new(peer.outgoingReliableSequenceNumber).next();
            peer.outgoingReliableSequenceNumber = sequence.get();
            command.reliable_sequence_number = sequence;
            command.unreliable_sequence_number = UnreliableSequence::new(0);
        } else if command.is_reliable() {
            let Some(channel) = self.channel(channel_id) else {
                command.discard();
                return false;
            };
            let sequence = ReliableSequence::new(channel.outgoingReliableSequenceNumber).next();
            channel.outgoingReliableSequenceNumber = sequence.get();
            channel.outgoingUnreliableSequenceNumber = 0;
            command.reliable_sequence_number = sequence;
            command.unreliable_sequence_number = UnreliableSequence::new(0);
        } else if command.flags.contains(CommandFlags::UNSEQUENCED) {
            let peer = &mut *self.public;
            peer.outgoingUnsequencedGroup = peer.outgoingUnsequencedGroup.wrapping_add(1);
            command.reliable_sequence_number = ReliableSequence::new(0);
            command.unreliable_sequence_number = UnreliableSequence::new(0);
            command.unsequenced_group = peer.outgoingUnsequencedGroup;
        } else {
            let first_fragment = command.fragment_offset == 0;
            let Some(channel) = self.channel(channel_id) else {
                command.discard();
                return false;
            };
            let mut unreliable = UnreliableSequence::new(channel.outgoingUnreliableSequenceNumber);
            if first_fragment {
                unreliable = unreliable.next();
                channel.outgoingUnreliableSequenceNumber = unreliable.get();
            }
            command.reliable_sequence_number =
                ReliableSequence::new(channel.outgoingReliableSequenceNumber);
            command.unreliable_sequence_number = unreliable;
        }
        command.send_attempts = 0;
        command.sent_time = 0;
        command.round_trip_timeout = 0;
        command.round_trip_timeout_limit = 0;
        self.slot.queue_outgoing(command);
        true
    }

    /// The acknowledgement a received reliable command earns, by the
    /// peer's state: none while it connects, disconnects or is gone, only
    /// the DISCONNECT's while it acknowledges one.
    #[inline(always)]
    pub(crate) fn acknowledge_received(
        &mut self,
        header: &CommandHeader,
        command_number: u8,
        sent_time: u16,
    ) -> Owed {
        match self.public.state {
            ENET_PEER_STATE_DISCONNECTING
            | ENET_PEER_STATE_ACKNOWLEDGING_CONNECT
            | ENET_PEER_STATE_DISCONNECTED
            | ENET_PEER_STATE_ZOMBIE => Owed { queued: false },
            ENET_PEER_STATE_ACKNOWLEDGING_DISCONNECT if command_number != number::DISCONNECT => {
                Owed { queued: false }
            }
            _ => self.queue_acknowledgement(header, command_number, sent_time),
        }
    }

    /// `enet_peer_queue_acknowledgement`: owes the peer the acknowledgement
    /// of a received reliable command, unless its sequence number lies in
    /// the guard windows just past the receive window (as stock: an
    /// acknowledgement the sender could not match, so it retries).
    // Always inlined, as `Host::with_peer` is: in the receive loop, where
    // every reliable command earns one, the acknowledgement goes on the
    // queue without a call.
    #[inline(always)]
    pub(crate) fn queue_acknowledgement(
        &mut self,
        header: &CommandHeader,
        command_number: u8,
        sent_time: u16,
    ) -> Owed {
        let channel_id = ChannelId::from(header.channel_id);
        let reliable_sequence_number = ReliableSequence::new(header.reliable_sequence_number);
        if let Some(channel) = self.channel(channel_id) {
            let current = ReliableSequence::new(channel.incomingReliableSequenceNumber);
            if reliable_sequence_number.in_guard_windows(current) {
                return Owed { queued: false };
            }
        }
        let peer = &mut *self.public;
        peer.outgoingDataTotal = peer
            .outgoingDataTotal
            .wrapping_add(size::ACKNOWLEDGE as u32);
        push_to_peer_queue(
            &mut self.slot.queues().acknowledgements,
            Acknowledgement {
                channel_id,
                reliable_sequence_number,
                sent_time,
                command_number,
            },
        );
        Owed { queued: true }
    }

    /// Puts a received packet on the peer's delivery queue at service time
    /// `now`.
    pub(crate) fn deliver(&mut self, channel_id: ChannelId, packet: PacketRef, now: u32) {
        let queues = self.slot.queues();
        queues.last_traffic = now;
        push_to_peer_queue(&mut queues.dispatched, Delivery { channel_id, packet });
    }
}
