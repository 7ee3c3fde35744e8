//! Commands as the engine queues them: outgoing ones waiting to be sent or
//! acknowledged, and the acknowledgements it owes.

use super::channel_id::ChannelId;
use super::sequence::{ReliableSequence, UnreliableSequence};
use crate::mem::PacketRef;
pub use crate::wire::command::number;
use crate::wire::command::{Command, CommandFlags, CommandHeader, ConnectFields, Fragment};
use crate::wire::command_size;

/// The fields of a fragment command other than its bytes, which stay in the
/// packet until the datagram is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FragmentFields {
    pub start_sequence_number: u16,
    pub fragment_count: u32,
    pub fragment_number: u32,
    pub total_length: u32,
}

/// What an outgoing command says, apart from its header and payload.
///
/// The handshake's fields are boxed: sent once or twice per connection,
/// they would otherwise set the size of every queued command (about 100
/// bytes instead of 72), which moves from queue to queue on every
/// reliable message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutgoingBody {
    Connect {
        fields: Box<ConnectFields>,
        data: u32,
    },
    VerifyConnect(Box<ConnectFields>),
    Disconnect {
        data: u32,
    },
    Ping,
    SendReliable,
    SendUnreliable,
    SendUnsequenced,
    SendFragment(FragmentFields),
    SendUnreliableFragment(FragmentFields),
    BandwidthLimit {
        incoming: u32,
        outgoing: u32,
    },
    ThrottleConfigure {
        interval: u32,
        acceleration: u32,
        deceleration: u32,
    },
}

impl OutgoingBody {
    pub fn number(&self) -> u8 {
        match self {
            OutgoingBody::Connect { .. } => number::CONNECT,
            OutgoingBody::VerifyConnect(_) => number::VERIFY_CONNECT,
            OutgoingBody::Disconnect { .. } => number::DISCONNECT,
            OutgoingBody::Ping => number::PING,
            OutgoingBody::SendReliable => number::SEND_RELIABLE,
            OutgoingBody::SendUnreliable => number::SEND_UNRELIABLE,
            OutgoingBody::SendUnsequenced => number::SEND_UNSEQUENCED,
            OutgoingBody::SendFragment(_) => number::SEND_FRAGMENT,
            OutgoingBody::SendUnreliableFragment(_) => number::SEND_UNRELIABLE_FRAGMENT,
            OutgoingBody::BandwidthLimit { .. } => number::BANDWIDTH_LIMIT,
            OutgoingBody::ThrottleConfigure { .. } => number::THROTTLE_CONFIGURE,
        }
    }
}

/// A command queued for a peer (stock's `ENetOutgoingCommand`).
#[derive(Debug)]
pub struct OutgoingCommand {
    pub flags: CommandFlags,
    pub channel_id: ChannelId,
    pub body: OutgoingBody,
    pub reliable_sequence_number: ReliableSequence,
    pub unreliable_sequence_number: UnreliableSequence,
    /// For unsequenced sends: the peer's group number at queue time.
    pub unsequenced_group: u16,
    pub sent_time: u32,
    pub round_trip_timeout: u32,
    pub round_trip_timeout_limit: u32,
    pub fragment_offset: u32,
    pub fragment_length: u16,
    pub send_attempts: u16,
    /// Acknowledgements of commands sent after this one, since it was last
    /// sent (for an early resend).
    pub passed_over: u8,
    /// Extra copies sent while it stays in flight (loss recovery that
    /// keeps stock's timeouts resends copies rather than the command).
    pub copies: u8,
    /// Whether a copy waits to be packed.
    pub copy_pending: bool,
    /// The sent queue's next position when the last copy went out: only
    /// acknowledgements of commands sent after it (at this position or
    /// later) count as passing the copy over.
    pub copy_position: u32,
    /// When the command is next due for retransmission while in flight:
    /// its send time plus its timeout, or for copies the last copy's time
    /// plus the copies' timeout.
    pub due: u32,
    pub packet: Option<PacketRef>,
}

impl OutgoingCommand {
    /// A command not yet sequenced; `proto::peer` numbers it.
    pub fn new(flags: CommandFlags, channel_id: ChannelId, body: OutgoingBody) -> Self {
        OutgoingCommand {
            flags,
            channel_id,
            body,
            reliable_sequence_number: ReliableSequence::new(0),
            unreliable_sequence_number: UnreliableSequence::new(0),
            unsequenced_group: 0,
            sent_time: 0,
            round_trip_timeout: 0,
            round_trip_timeout_limit: 0,
            passed_over: 0,
            copies: 0,
            copy_pending: false,
            copy_position: 0,
            due: 0,
            fragment_offset: 0,
            fragment_length: 0,
            send_attempts: 0,
            packet: None,
        }
    }

    /// With a payload: `length` bytes of `packet` from `offset`.
    pub fn with_payload(mut self, packet: PacketRef, offset: u32, length: u16) -> Self {
        self.packet = Some(packet);
        self.fragment_offset = offset;
        self.fragment_length = length;
        self
    }

    pub fn number(&self) -> u8 {
        self.body.number()
    }

    pub fn is_reliable(&self) -> bool {
        self.flags.contains(CommandFlags::ACKNOWLEDGE)
    }

    /// Header and fixed fields, without payload.
    pub fn fixed_len(&self) -> usize {
        command_size(self.number())
    }

    /// The payload this command carries (a slice of its packet).
    pub fn payload(&self) -> &[u8] {
        let Some(packet) = &self.packet else {
            return &[];
        };
        let start = self.fragment_offset as usize;
        let end = start + usize::from(self.fragment_length);
        packet.data().get(start..end).unwrap_or(&[])
    }

    /// The header this command goes out with.
    pub fn header(&self) -> CommandHeader {
        CommandHeader {
            flags: self.flags,
            channel_id: self.channel_id.wire(),
            reliable_sequence_number: self.reliable_sequence_number.get(),
        }
    }

    /// The command as the wire layer emits it.
    pub fn wire(&self) -> Command<'_> {
        let fragment = |fields: &FragmentFields| Fragment {
            start_sequence_number: fields.start_sequence_number,
            fragment_count: fields.fragment_count,
            fragment_number: fields.fragment_number,
            total_length: fields.total_length,
            fragment_offset: self.fragment_offset,
            data: self.payload(),
        };
        match &self.body {
            OutgoingBody::Connect { fields, data } => Command::Connect {
                fields: **fields,
                data: *data,
            },
            OutgoingBody::VerifyConnect(fields) => Command::VerifyConnect(**fields),
            OutgoingBody::Disconnect { data } => Command::Disconnect { data: *data },
            OutgoingBody::Ping => Command::Ping,
            OutgoingBody::SendReliable => Command::SendReliable {
                data: self.payload(),
            },
            OutgoingBody::SendUnreliable => Command::SendUnreliable {
                unreliable_sequence_number: self.unreliable_sequence_number.get(),
                data: self.payload(),
            },
            OutgoingBody::SendUnsequenced => Command::SendUnsequenced {
                unsequenced_group: self.unsequenced_group,
                data: self.payload(),
            },
            OutgoingBody::SendFragment(fields) => Command::SendFragment(fragment(fields)),
            OutgoingBody::SendUnreliableFragment(fields) => {
                Command::SendUnreliableFragment(fragment(fields))
            }
            OutgoingBody::BandwidthLimit { incoming, outgoing } => Command::BandwidthLimit {
                incoming_bandwidth: *incoming,
                outgoing_bandwidth: *outgoing,
            },
            OutgoingBody::ThrottleConfigure {
                interval,
                acceleration,
                deceleration,
            } => Command::ThrottleConfigure {
                packet_throttle_interval: *interval,
                packet_throttle_acceleration: *acceleration,
                packet_throttle_deceleration: *deceleration,
            },
        }
    }

    /// Drops the command unsent (reset, throttled): its packet reference
    /// goes without marking the packet sent.
    pub fn discard(self) {
        if let Some(packet) = self.packet {
            packet.release();
        }
    }

    /// Drops the command once it has done its work (acknowledged, or sent
    /// if unreliable): the last reference marks the packet sent.
    pub fn complete(self) {
        if let Some(packet) = self.packet {
            packet.release_as_sent();
        }
    }

    /// Takes out what its acknowledgement needs, the packet included: the
    /// command is left without one, to be dropped where it lies.
    pub fn take_acknowledged(&mut self) -> Acknowledged {
        Acknowledged {
            number: self.number(),
            fragment_length: self.fragment_length,
            sent_time: self.sent_time,
            packet: self.packet.take(),
        }
    }
}

/// What an acknowledgement needs of the reliable command it acknowledges,
/// a fraction of the command's size.
#[derive(Debug)]
pub struct Acknowledged {
    pub number: u8,
    pub fragment_length: u16,
    pub sent_time: u32,
    pub packet: Option<PacketRef>,
}

impl Acknowledged {
    /// The command's work is done: as [`OutgoingCommand::complete`].
    pub fn complete(self) {
        if let Some(packet) = self.packet {
            packet.release_as_sent();
        }
    }
}

/// An acknowledgement owed to the peer (stock's `ENetAcknowledgement`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Acknowledgement {
    pub channel_id: ChannelId,
    pub reliable_sequence_number: ReliableSequence,
    /// The sentTime of the datagram that carried the acknowledged command.
    pub sent_time: u16,
    /// The acknowledged command's number (acknowledging a DISCONNECT ends
    /// the connection once sent).
    pub command_number: u8,
}

impl Acknowledgement {
    pub fn wire(&self) -> (CommandHeader, Command<'static>) {
        (
            CommandHeader {
                flags: CommandFlags::NONE,
                channel_id: self.channel_id.wire(),
                reliable_sequence_number: self.reliable_sequence_number.get(),
            },
            Command::Acknowledge {
                received_reliable_sequence_number: self.reliable_sequence_number.get(),
                received_sent_time: self.sent_time,
            },
        )
    }
}
