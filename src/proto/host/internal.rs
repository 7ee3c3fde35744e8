//! What stock's internal peer exports (`enet_peer_queue_outgoing_command`,
//! `enet_peer_queue_acknowledgement`, `enet_peer_queue_incoming_command`)
//! do, on the engine's own queues: a program that queues a protocol
//! command by hand gets it sequenced and sent (or delivered) as stock
//! would.

use super::engine::Host;
use crate::mem::PacketRef;
use crate::proto::state::channel::{Queued, Sequencing};
use crate::proto::state::channel_id::ChannelId;
use crate::proto::state::command::{number, FragmentFields, OutgoingBody, OutgoingCommand};
use crate::proto::state::peer_index::PeerIndex;
use crate::proto::state::sequence::{ReliableSequence, UnreliableSequence};
use crate::wire::command::{Command, CommandHeader};

impl OutgoingBody {
    /// The queueable form of a parsed command; `None` for ACKNOWLEDGE
    /// (acknowledgements are owed, not queued).
    pub fn from_wire(command: &Command<'_>) -> Option<OutgoingBody> {
        let fragment = |fragment: &crate::wire::command::Fragment<'_>| FragmentFields {
            start_sequence_number: fragment.start_sequence_number,
            fragment_count: fragment.fragment_count,
            fragment_number: fragment.fragment_number,
            total_length: fragment.total_length,
        };
        Some(match command {
            Command::Acknowledge { .. } => return None,
            Command::Connect { fields, data } => OutgoingBody::Connect {
                fields: Box::new(*fields),
                data: *data,
            },
            Command::VerifyConnect(fields) => OutgoingBody::VerifyConnect(Box::new(*fields)),
            Command::Disconnect { data } => OutgoingBody::Disconnect { data: *data },
            Command::Ping => OutgoingBody::Ping,
            Command::SendReliable { .. } => OutgoingBody::SendReliable,
            Command::SendUnreliable { .. } => OutgoingBody::SendUnreliable,
            Command::SendUnsequenced { .. } => OutgoingBody::SendUnsequenced,
            Command::SendFragment(fields) => OutgoingBody::SendFragment(fragment(fields)),
            Command::SendUnreliableFragment(fields) => {
                OutgoingBody::SendUnreliableFragment(fragment(fields))
            }
            Command::BandwidthLimit {
                incoming_bandwidth,
                outgoing_bandwidth,
            } => OutgoingBody::BandwidthLimit {
                incoming: *incoming_bandwidth,
                outgoing: *outgoing_bandwidth,
            },
            Command::ThrottleConfigure {
                packet_throttle_interval,
                packet_throttle_acceleration,
                packet_throttle_deceleration,
            } => OutgoingBody::ThrottleConfigure {
                interval: *packet_throttle_interval,
                acceleration: *packet_throttle_acceleration,
                deceleration: *packet_throttle_deceleration,
            },
        })
    }
}

/// The sequence numbers a queued command was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sequenced {
    pub reliable_sequence_number: u16,
    pub unreliable_sequence_number: u16,
    pub unsequenced_group: u16,
}

impl Host {
    /// Queues a hand-built command, with `length` bytes of `packet` from
    /// `offset` as its payload. `packet` is a reference the command takes
    /// over. Returns the numbers it was given, or `None` if it cannot be
    /// queued (an ACKNOWLEDGE, a channel the peer does not have).
    pub fn queue_command(
        &mut self,
        index: PeerIndex,
        header: &CommandHeader,
        command: &Command<'_>,
        packet: Option<PacketRef>,
        offset: u32,
        length: u16,
    ) -> Option<Sequenced> {
        let body = OutgoingBody::from_wire(command);
        let channel_known = ChannelId::from(header.channel_id).is_connection()
            || usize::from(header.channel_id) < self.peer(index).channelCount;
        let Some(body) = body.filter(|_| channel_known) else {
            if let Some(packet) = packet {
                packet.release();
            }
            return None;
        };
        let mut queued = OutgoingCommand::new(header.flags, header.channel_id.into(), body);
        if let Some(packet) = packet {
            queued = queued.with_payload(packet, offset, length);
        }
        let payload = usize::from(queued.fragment_length);
        let before = self.engine.slots[index].queues().outgoing.len();
        self.with_peer_rarely(index, |peer, _| peer.setup_outgoing(queued));
        let queues = self.engine.slots[index].queues();
        if queues.outgoing.len() == before {
            return None;
        }
        // Counted in the send backlog as a send's commands are, so that
        // its acknowledgement (or its sending) takes as much off.
        queues.backlog += payload;
        queues.outgoing.back().map(|command| Sequenced {
            reliable_sequence_number: command.reliable_sequence_number.get(),
            unreliable_sequence_number: command.unreliable_sequence_number.get(),
            unsequenced_group: command.unsequenced_group,
        })
    }

    /// Owes the peer an acknowledgement of `header`; false where stock's
    /// window rule withholds it.
    pub fn acknowledge(
        &mut self,
        index: PeerIndex,
        header: &CommandHeader,
        command_number: u8,
        sent_time: u16,
    ) -> bool {
        self.with_peer(index, |peer, _| {
            peer.queue_acknowledgement(header, command_number, sent_time)
        })
    }

    /// Takes a received payload command as if it had arrived: `Accepted`
    /// (queued or delivered), `Discarded` (a duplicate, out of window), or
    /// `Error`. Fragment starts are not accepted here: the engine
    /// reassembles from the fragments themselves.
    pub fn inject_incoming(
        &mut self,
        index: PeerIndex,
        command_number: u8,
        channel_id: u8,
        reliable_sequence_number: u16,
        unreliable_sequence_number: u16,
        data: &[u8],
    ) -> Queued {
        let sequencing = match command_number {
            number::SEND_RELIABLE => Sequencing::Reliable {
                sequence: ReliableSequence::new(reliable_sequence_number),
            },
            number::SEND_UNRELIABLE => Sequencing::Unreliable {
                sequence: ReliableSequence::new(reliable_sequence_number),
                unreliable: UnreliableSequence::new(unreliable_sequence_number),
            },
            number::SEND_UNSEQUENCED => Sequencing::Unsequenced,
            _ => return Queued::Error,
        };
        let channel_id = ChannelId::from(channel_id);
        if channel_id.index() >= self.peer(index).channelCount {
            return Queued::Error;
        }
        self.queue_incoming(index, channel_id, sequencing, data)
    }
}
