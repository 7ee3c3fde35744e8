//! Protocol commands: a 4-byte command header, a fixed-size body, and for
//! the `SEND_*` commands a payload of `dataLength` bytes.
//!
//! The command header is in [`super::command_header`]; the bodies start at
//! offset 4 and are laid out in `mod field`, with the sizes of
//! [`super::command_size`].
//!
//! Multi-byte fields are big-endian, except `connectID`, which ENet copies
//! as raw bytes (see [`ConnectId`]).
//!
//! No-panic contract: [`Command::parse`] accepts any bytes and returns
//! either a command whose payload borrows from them or a [`DropReason`];
//! [`Command::emit`] writes nothing and returns 0 when the output is too
//! short or a payload is longer than a `u16` length can say.

pub use super::command_header::{number, CommandFlags, CommandHeader, COMMAND_HEADER_LEN};
use super::field::{
    read_array, read_u16, read_u32, read_u8, write_bytes, write_u16, write_u32, write_u8, Field,
};
use super::{command_size, DropReason};

/// Field offsets of the bodies, each relative to the start of its command
/// (the command header's are in `super::command_header`).
mod field {
    use super::Field;

    pub mod acknowledge {
        use super::Field;
        pub const RECEIVED_RELIABLE_SEQUENCE_NUMBER: Field = 4..6;
        pub const RECEIVED_SENT_TIME: Field = 6..8;
    }
    /// CONNECT; VERIFY_CONNECT is the same without `DATA`.
    pub mod connect {
        use super::Field;
        pub const OUTGOING_PEER_ID: Field = 4..6;
        pub const INCOMING_SESSION_ID: usize = 6;
        pub const OUTGOING_SESSION_ID: usize = 7;
        pub const MTU: Field = 8..12;
        pub const WINDOW_SIZE: Field = 12..16;
        pub const CHANNEL_COUNT: Field = 16..20;
        pub const INCOMING_BANDWIDTH: Field = 20..24;
        pub const OUTGOING_BANDWIDTH: Field = 24..28;
        pub const PACKET_THROTTLE_INTERVAL: Field = 28..32;
        pub const PACKET_THROTTLE_ACCELERATION: Field = 32..36;
        pub const PACKET_THROTTLE_DECELERATION: Field = 36..40;
        pub const CONNECT_ID: Field = 40..44;
        pub const DATA: Field = 44..48;
    }
    pub mod disconnect {
        use super::Field;
        pub const DATA: Field = 4..8;
    }
    pub mod send_reliable {
        use super::Field;
        pub const DATA_LENGTH: Field = 4..6;
    }
    /// SEND_UNRELIABLE (unreliableSequenceNumber) and SEND_UNSEQUENCED
    /// (unsequencedGroup) share this shape.
    pub mod send_unreliable {
        use super::Field;
        pub const SEQUENCE: Field = 4..6;
        pub const DATA_LENGTH: Field = 6..8;
    }
    /// SEND_FRAGMENT and SEND_UNRELIABLE_FRAGMENT.
    pub mod send_fragment {
        use super::Field;
        pub const START_SEQUENCE_NUMBER: Field = 4..6;
        pub const DATA_LENGTH: Field = 6..8;
        pub const FRAGMENT_COUNT: Field = 8..12;
        pub const FRAGMENT_NUMBER: Field = 12..16;
        pub const TOTAL_LENGTH: Field = 16..20;
        pub const FRAGMENT_OFFSET: Field = 20..24;
    }
    pub mod bandwidth_limit {
        use super::Field;
        pub const INCOMING_BANDWIDTH: Field = 4..8;
        pub const OUTGOING_BANDWIDTH: Field = 8..12;
    }
    pub mod throttle_configure {
        use super::Field;
        pub const PACKET_THROTTLE_INTERVAL: Field = 4..8;
        pub const PACKET_THROTTLE_ACCELERATION: Field = 8..12;
        pub const PACKET_THROTTLE_DECELERATION: Field = 12..16;
    }
}

/// A `connectID`: ENet copies it between `peer->connectID` (a native
/// `u32`) and the wire without byte-swapping, so on the wire it is the
/// memory image of that `u32`. Keeping it as bytes makes that explicit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ConnectId(pub [u8; 4]);

impl ConnectId {
    /// The wire bytes of `peer->connectID` as this machine stores it.
    pub fn from_native(value: u32) -> Self {
        ConnectId(value.to_ne_bytes())
    }

    /// The value to store in `peer->connectID` on this machine.
    pub fn to_native(self) -> u32 {
        u32::from_ne_bytes(self.0)
    }
}

/// The body shared by CONNECT and VERIFY_CONNECT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ConnectFields {
    /// The sender's index for this peer: the receiver puts it in the peer
    /// id of every datagram it sends back.
    pub outgoing_peer_id: u16,
    pub incoming_session_id: u8,
    pub outgoing_session_id: u8,
    pub mtu: u32,
    pub window_size: u32,
    pub channel_count: u32,
    pub incoming_bandwidth: u32,
    pub outgoing_bandwidth: u32,
    pub packet_throttle_interval: u32,
    pub packet_throttle_acceleration: u32,
    pub packet_throttle_deceleration: u32,
    pub connect_id: ConnectId,
}

/// The body of SEND_FRAGMENT and SEND_UNRELIABLE_FRAGMENT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Fragment<'a> {
    /// Reliable (SEND_FRAGMENT) or unreliable sequence number of the first
    /// fragment of the packet.
    pub start_sequence_number: u16,
    pub fragment_count: u32,
    pub fragment_number: u32,
    pub total_length: u32,
    pub fragment_offset: u32,
    pub data: &'a [u8],
}

/// One command, with its fields in host order and its payload borrowed from
/// the datagram. Values are as on the wire, unvalidated: range checks
/// (channel count, fragment bounds, ...) belong to the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command<'a> {
    Acknowledge {
        received_reliable_sequence_number: u16,
        /// The sentTime of the datagram that carried the acknowledged command.
        received_sent_time: u16,
    },
    Connect {
        fields: ConnectFields,
        /// The `data` argument of `enet_host_connect`.
        data: u32,
    },
    VerifyConnect(ConnectFields),
    Disconnect {
        data: u32,
    },
    Ping,
    SendReliable {
        data: &'a [u8],
    },
    SendUnreliable {
        unreliable_sequence_number: u16,
        data: &'a [u8],
    },
    SendFragment(Fragment<'a>),
    SendUnsequenced {
        unsequenced_group: u16,
        data: &'a [u8],
    },
    BandwidthLimit {
        incoming_bandwidth: u32,
        outgoing_bandwidth: u32,
    },
    ThrottleConfigure {
        packet_throttle_interval: u32,
        packet_throttle_acceleration: u32,
        packet_throttle_deceleration: u32,
    },
    SendUnreliableFragment(Fragment<'a>),
}

/// An ACKNOWLEDGE as every ENet sends one: no flags on its command byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Acknowledgement {
    pub channel_id: u8,
    pub received_reliable_sequence_number: u16,
    /// The sentTime of the datagram that carried the acknowledged command.
    pub received_sent_time: u16,
}

impl Acknowledgement {
    /// Bytes an acknowledgement takes.
    pub const LEN: usize = super::size::ACKNOWLEDGE;

    /// The acknowledgement whose bytes are `fixed`, if it is a flagless
    /// ACKNOWLEDGE: the fields [`Command::parse`] would give, read without
    /// building a [`Command`]. `None` for any other command, which
    /// `Command::parse` reads.
    #[inline(always)]
    pub fn from_plain(fixed: &[u8; Self::LEN]) -> Option<Acknowledgement> {
        (fixed[0] == number::ACKNOWLEDGE).then(|| Self::read(fixed))
    }

    /// The fields of the ACKNOWLEDGE whose bytes are `fixed`, whatever its
    /// flags (the one place that knows their offsets).
    #[inline(always)]
    fn read(fixed: &[u8; Self::LEN]) -> Acknowledgement {
        Acknowledgement {
            channel_id: fixed[1],
            received_reliable_sequence_number: u16::from_be_bytes([fixed[4], fixed[5]]),
            received_sent_time: u16::from_be_bytes([fixed[6], fixed[7]]),
        }
    }
}

/// A field read from a slice whose length was already checked cannot fail;
/// if it somehow does, the command is reported as truncated.
fn need<T>(value: Option<T>) -> Result<T, DropReason> {
    value.ok_or(DropReason::TruncatedCommand)
}

impl<'a> Command<'a> {
    /// Parses the command at the start of `bytes` (the rest of a datagram).
    /// Returns its header, the command and the number of bytes it takes,
    /// payload included.
    ///
    /// The checks, in stock ENet's order: a command header must fit
    /// ([`DropReason::TruncatedCommand`]); the number must name a command
    /// ([`DropReason::UnknownCommand`]); its fixed size must fit
    /// ([`DropReason::TruncatedCommand`]); its payload must fit
    /// ([`DropReason::PayloadOutOfBounds`]).
    ///
    /// Always inlined, so ordinary traffic is read straight into the
    /// caller's loop rather than returned through memory; any other
    /// command takes a call to the rest of the parser.
    #[inline(always)]
    pub fn parse(bytes: &'a [u8]) -> Result<(CommandHeader, Command<'a>, usize), DropReason> {
        match Self::parse_traffic(bytes) {
            Some(parsed) => Ok(parsed),
            None => Self::parse_other(bytes),
        }
    }

    /// The commands [`Command::parse_traffic`] leaves: fragments at fixed
    /// offsets like it, anything else through the general parser. A call
    /// of its own, so the receive loop that inlines `parse` stays small.
    #[inline(never)]
    fn parse_other(bytes: &'a [u8]) -> Result<(CommandHeader, Command<'a>, usize), DropReason> {
        match Self::parse_fragment(bytes) {
            Some(parsed) => Ok(parsed),
            None => Self::parse_any(bytes),
        }
    }

    /// SEND_FRAGMENT and SEND_UNRELIABLE_FRAGMENT, read as
    /// [`Command::parse_traffic`] reads its commands; `None` for any other
    /// command or one that does not fit.
    #[inline]
    fn parse_fragment(bytes: &'a [u8]) -> Option<(CommandHeader, Command<'a>, usize)> {
        use super::size::SEND_FRAGMENT as SEND_FRAGMENT_LEN;
        let fixed = bytes.first_chunk::<SEND_FRAGMENT_LEN>()?;
        let (header, command_number) =
            CommandHeader::from_fixed(bytes.first_chunk::<COMMAND_HEADER_LEN>()?);
        if command_number != number::SEND_FRAGMENT
            && command_number != number::SEND_UNRELIABLE_FRAGMENT
        {
            return None;
        }
        let be16 = |at: usize| u16::from_be_bytes([fixed[at], fixed[at + 1]]);
        let be32 = |at: usize| {
            u32::from_be_bytes([fixed[at], fixed[at + 1], fixed[at + 2], fixed[at + 3]])
        };
        let end = SEND_FRAGMENT_LEN + usize::from(be16(6));
        let fragment = Fragment {
            start_sequence_number: be16(4),
            fragment_count: be32(8),
            fragment_number: be32(12),
            total_length: be32(16),
            fragment_offset: be32(20),
            data: bytes.get(SEND_FRAGMENT_LEN..end)?,
        };
        let command = if command_number == number::SEND_FRAGMENT {
            Command::SendFragment(fragment)
        } else {
            Command::SendUnreliableFragment(fragment)
        };
        Some((header, command, end))
    }

    /// The commands of ordinary traffic (acknowledgements, reliable and
    /// unreliable sends), read at fixed offsets from arrays whose length
    /// the compiler knows, so no field needs a bounds check of its own.
    /// `None` for any other command, or for one that does not fit, which
    /// [`Command::parse_any`] then parses or refuses with the right reason.
    #[inline]
    fn parse_traffic(bytes: &'a [u8]) -> Option<(CommandHeader, Command<'a>, usize)> {
        use super::size::{
            ACKNOWLEDGE as ACKNOWLEDGE_LEN, SEND_RELIABLE as SEND_RELIABLE_LEN,
            SEND_UNRELIABLE as SEND_UNRELIABLE_LEN,
        };
        let (header, command_number) =
            CommandHeader::from_fixed(bytes.first_chunk::<COMMAND_HEADER_LEN>()?);
        let be16 = |high: u8, low: u8| u16::from_be_bytes([high, low]);
        match command_number {
            number::ACKNOWLEDGE => {
                let read = Acknowledgement::read(bytes.first_chunk::<ACKNOWLEDGE_LEN>()?);
                let command = Command::Acknowledge {
                    received_reliable_sequence_number: read.received_reliable_sequence_number,
                    received_sent_time: read.received_sent_time,
                };
                Some((header, command, ACKNOWLEDGE_LEN))
            }
            number::SEND_RELIABLE => {
                let fixed = bytes.first_chunk::<SEND_RELIABLE_LEN>()?;
                let end = SEND_RELIABLE_LEN + usize::from(be16(fixed[4], fixed[5]));
                let data = bytes.get(SEND_RELIABLE_LEN..end)?;
                Some((header, Command::SendReliable { data }, end))
            }
            number::SEND_UNRELIABLE => {
                let fixed = bytes.first_chunk::<SEND_UNRELIABLE_LEN>()?;
                let end = SEND_UNRELIABLE_LEN + usize::from(be16(fixed[6], fixed[7]));
                let data = bytes.get(SEND_UNRELIABLE_LEN..end)?;
                let command = Command::SendUnreliable {
                    unreliable_sequence_number: be16(fixed[4], fixed[5]),
                    data,
                };
                Some((header, command, end))
            }
            _ => None,
        }
    }

    /// Any command, field by field, with every check in stock's order.
    /// Kept out of line, so the fragment path beside it stays small.
    #[inline(never)]
    pub(super) fn parse_any(
        bytes: &'a [u8],
    ) -> Result<(CommandHeader, Command<'a>, usize), DropReason> {
        let (header, command_number) =
            CommandHeader::parse(bytes).ok_or(DropReason::TruncatedCommand)?;
        let size = command_size(command_number);
        if size == 0 {
            return Err(DropReason::UnknownCommand);
        }
        let fixed = need(bytes.get(..size))?;

        let u16_at = |at: Field| need(read_u16(fixed, at));
        let u32_at = |at: Field| need(read_u32(fixed, at));
        let payload = |length: Field| -> Result<&'a [u8], DropReason> {
            let length = usize::from(u16_at(length)?);
            bytes
                .get(size..size + length)
                .ok_or(DropReason::PayloadOutOfBounds)
        };
        let fragment = || -> Result<Fragment<'a>, DropReason> {
            use field::send_fragment as f;
            Ok(Fragment {
                start_sequence_number: u16_at(f::START_SEQUENCE_NUMBER)?,
                fragment_count: u32_at(f::FRAGMENT_COUNT)?,
                fragment_number: u32_at(f::FRAGMENT_NUMBER)?,
                total_length: u32_at(f::TOTAL_LENGTH)?,
                fragment_offset: u32_at(f::FRAGMENT_OFFSET)?,
                data: payload(f::DATA_LENGTH)?,
            })
        };
        let connect_fields = || -> Result<ConnectFields, DropReason> {
            use field::connect as f;
            Ok(ConnectFields {
                outgoing_peer_id: u16_at(f::OUTGOING_PEER_ID)?,
                incoming_session_id: need(read_u8(fixed, f::INCOMING_SESSION_ID))?,
                outgoing_session_id: need(read_u8(fixed, f::OUTGOING_SESSION_ID))?,
                mtu: u32_at(f::MTU)?,
                window_size: u32_at(f::WINDOW_SIZE)?,
                channel_count: u32_at(f::CHANNEL_COUNT)?,
                incoming_bandwidth: u32_at(f::INCOMING_BANDWIDTH)?,
                outgoing_bandwidth: u32_at(f::OUTGOING_BANDWIDTH)?,
                packet_throttle_interval: u32_at(f::PACKET_THROTTLE_INTERVAL)?,
                packet_throttle_acceleration: u32_at(f::PACKET_THROTTLE_ACCELERATION)?,
                packet_throttle_deceleration: u32_at(f::PACKET_THROTTLE_DECELERATION)?,
                connect_id: ConnectId(need(read_array(fixed, f::CONNECT_ID))?),
            })
        };

        let command = match command_number {
            number::ACKNOWLEDGE => Command::Acknowledge {
                received_reliable_sequence_number: u16_at(
                    field::acknowledge::RECEIVED_RELIABLE_SEQUENCE_NUMBER,
                )?,
                received_sent_time: u16_at(field::acknowledge::RECEIVED_SENT_TIME)?,
            },
            number::CONNECT => Command::Connect {
                fields: connect_fields()?,
                data: u32_at(field::connect::DATA)?,
            },
            number::VERIFY_CONNECT => Command::VerifyConnect(connect_fields()?),
            number::DISCONNECT => Command::Disconnect {
                data: u32_at(field::disconnect::DATA)?,
            },
            number::PING => Command::Ping,
            number::SEND_RELIABLE => Command::SendReliable {
                data: payload(field::send_reliable::DATA_LENGTH)?,
            },
            number::SEND_UNRELIABLE => Command::SendUnreliable {
                unreliable_sequence_number: u16_at(field::send_unreliable::SEQUENCE)?,
                data: payload(field::send_unreliable::DATA_LENGTH)?,
            },
            number::SEND_FRAGMENT => Command::SendFragment(fragment()?),
            number::SEND_UNSEQUENCED => Command::SendUnsequenced {
                unsequenced_group: u16_at(field::send_unreliable::SEQUENCE)?,
                data: payload(field::send_unreliable::DATA_LENGTH)?,
            },
            number::BANDWIDTH_LIMIT => Command::BandwidthLimit {
                incoming_bandwidth: u32_at(field::bandwidth_limit::INCOMING_BANDWIDTH)?,
                outgoing_bandwidth: u32_at(field::bandwidth_limit::OUTGOING_BANDWIDTH)?,
            },
            number::THROTTLE_CONFIGURE => {
                use field::throttle_configure as f;
                Command::ThrottleConfigure {
                    packet_throttle_interval: u32_at(f::PACKET_THROTTLE_INTERVAL)?,
                    packet_throttle_acceleration: u32_at(f::PACKET_THROTTLE_ACCELERATION)?,
                    packet_throttle_deceleration: u32_at(f::PACKET_THROTTLE_DECELERATION)?,
                }
            }
            number::SEND_UNRELIABLE_FRAGMENT => Command::SendUnreliableFragment(fragment()?),
            // command_size() is 0 for every other number, handled above.
            _ => return Err(DropReason::UnknownCommand),
        };
        let consumed = size + command.payload().map_or(0, <[u8]>::len);
        Ok((header, command, consumed))
    }

    /// The command number (low nibble of the command byte).
    pub fn number(&self) -> u8 {
        match self {
            Command::Acknowledge { .. } => number::ACKNOWLEDGE,
            Command::Connect { .. } => number::CONNECT,
            Command::VerifyConnect(_) => number::VERIFY_CONNECT,
            Command::Disconnect { .. } => number::DISCONNECT,
            Command::Ping => number::PING,
            Command::SendReliable { .. } => number::SEND_RELIABLE,
            Command::SendUnreliable { .. } => number::SEND_UNRELIABLE,
            Command::SendFragment(_) => number::SEND_FRAGMENT,
            Command::SendUnsequenced { .. } => number::SEND_UNSEQUENCED,
            Command::BandwidthLimit { .. } => number::BANDWIDTH_LIMIT,
            Command::ThrottleConfigure { .. } => number::THROTTLE_CONFIGURE,
            Command::SendUnreliableFragment(_) => number::SEND_UNRELIABLE_FRAGMENT,
        }
    }

    /// The payload of a `SEND_*` command; `None` for the others.
    pub fn payload(&self) -> Option<&'a [u8]> {
        match *self {
            Command::SendReliable { data }
            | Command::SendUnreliable { data, .. }
            | Command::SendUnsequenced { data, .. } => Some(data),
            Command::SendFragment(fragment) | Command::SendUnreliableFragment(fragment) => {
                Some(fragment.data)
            }
            _ => None,
        }
    }

    /// Size of the header and fixed body (`enet_protocol_command_size`).
    pub fn fixed_len(&self) -> usize {
        command_size(self.number())
    }

    /// Size on the wire: header, fixed body and payload.
    pub fn wire_len(&self) -> usize {
        self.fixed_len() + self.payload().map_or(0, <[u8]>::len)
    }

    /// Writes the command to the start of `out` and returns
    /// [`wire_len`](Self::wire_len); returns 0 and writes nothing if `out`
    /// is too short or the payload is longer than `u16::MAX` bytes.
    // Always inlined, like `DatagramBuilder::push` that calls it: a
    // command of ordinary traffic is then written without a call.
    #[inline(always)]
    pub fn emit(&self, header: &CommandHeader, out: &mut [u8]) -> usize {
        if let Some(len) = self.emit_traffic(header, out) {
            return len;
        }
        let len = self.wire_len();
        let payload_fits = self
            .payload()
            .is_none_or(|data| data.len() <= usize::from(u16::MAX));
        if out.len() < len || !payload_fits {
            return 0;
        }
        self.write(header, out).map_or(0, |()| len)
    }

    /// Emits the commands of ordinary traffic (acknowledgements, reliable,
    /// unreliable and unsequenced sends) as whole arrays whose length the
    /// compiler knows, the mirror of [`Command::parse_traffic`]: one bounds
    /// check per command rather than one per field. `None`, with nothing
    /// written, for any other command or one that does not fit, which the
    /// general encoder then writes or refuses.
    #[inline]
    fn emit_traffic(&self, header: &CommandHeader, out: &mut [u8]) -> Option<usize> {
        use super::size::{
            ACKNOWLEDGE as ACKNOWLEDGE_LEN, SEND_RELIABLE as SEND_RELIABLE_LEN,
            SEND_UNRELIABLE as SEND_UNRELIABLE_LEN,
        };
        let sequence = header.reliable_sequence_number.to_be_bytes();
        let command_byte = |number: u8| header.flags.bits() | number;
        match *self {
            Command::Acknowledge {
                received_reliable_sequence_number,
                received_sent_time,
            } => {
                let fixed = out.first_chunk_mut::<ACKNOWLEDGE_LEN>()?;
                let received = received_reliable_sequence_number.to_be_bytes();
                let sent_time = received_sent_time.to_be_bytes();
                *fixed = [
                    command_byte(number::ACKNOWLEDGE),
                    header.channel_id,
                    sequence[0],
                    sequence[1],
                    received[0],
                    received[1],
                    sent_time[0],
                    sent_time[1],
                ];
                Some(ACKNOWLEDGE_LEN)
            }
            Command::SendReliable { data } => {
                let length = u16::try_from(data.len()).ok()?.to_be_bytes();
                let (fixed, rest) = out.split_first_chunk_mut::<SEND_RELIABLE_LEN>()?;
                let body = rest.get_mut(..data.len())?;
                *fixed = [
                    command_byte(number::SEND_RELIABLE),
                    header.channel_id,
                    sequence[0],
                    sequence[1],
                    length[0],
                    length[1],
                ];
                body.copy_from_slice(data);
                Some(SEND_RELIABLE_LEN + data.len())
            }
            Command::SendUnreliable {
                unreliable_sequence_number: group_or_sequence,
                data,
            }
            | Command::SendUnsequenced {
                unsequenced_group: group_or_sequence,
                data,
            } => {
                let number = if matches!(self, Command::SendUnreliable { .. }) {
                    number::SEND_UNRELIABLE
                } else {
                    number::SEND_UNSEQUENCED
                };
                let length = u16::try_from(data.len()).ok()?.to_be_bytes();
                let (fixed, rest) = out.split_first_chunk_mut::<SEND_UNRELIABLE_LEN>()?;
                let body = rest.get_mut(..data.len())?;
                let group_or_sequence = group_or_sequence.to_be_bytes();
                *fixed = [
                    command_byte(number),
                    header.channel_id,
                    sequence[0],
                    sequence[1],
                    group_or_sequence[0],
                    group_or_sequence[1],
                    length[0],
                    length[1],
                ];
                body.copy_from_slice(data);
                Some(SEND_UNRELIABLE_LEN + data.len())
            }
            _ => None,
        }
    }

    fn write(&self, header: &CommandHeader, out: &mut [u8]) -> Option<()> {
        header.emit(self.number(), out)?;

        let fixed = self.fixed_len();
        let payload = |out: &mut [u8], length: Field, data: &[u8]| -> Option<()> {
            write_u16(out, length, u16::try_from(data.len()).ok()?)?;
            write_bytes(out, fixed..fixed + data.len(), data)
        };
        let fragment = |out: &mut [u8], fragment: &Fragment<'_>| -> Option<()> {
            use field::send_fragment as f;
            write_u16(
                out,
                f::START_SEQUENCE_NUMBER,
                fragment.start_sequence_number,
            )?;
            write_u32(out, f::FRAGMENT_COUNT, fragment.fragment_count)?;
            write_u32(out, f::FRAGMENT_NUMBER, fragment.fragment_number)?;
            write_u32(out, f::TOTAL_LENGTH, fragment.total_length)?;
            write_u32(out, f::FRAGMENT_OFFSET, fragment.fragment_offset)?;
            payload(out, f::DATA_LENGTH, fragment.data)
        };
        let connect_fields = |out: &mut [u8], fields: &ConnectFields| -> Option<()> {
            use field::connect as f;
            write_u16(out, f::OUTGOING_PEER_ID, fields.outgoing_peer_id)?;
            write_u8(out, f::INCOMING_SESSION_ID, fields.incoming_session_id)?;
            write_u8(out, f::OUTGOING_SESSION_ID, fields.outgoing_session_id)?;
            write_u32(out, f::MTU, fields.mtu)?;
            write_u32(out, f::WINDOW_SIZE, fields.window_size)?;
            write_u32(out, f::CHANNEL_COUNT, fields.channel_count)?;
            write_u32(out, f::INCOMING_BANDWIDTH, fields.incoming_bandwidth)?;
            write_u32(out, f::OUTGOING_BANDWIDTH, fields.outgoing_bandwidth)?;
            write_u32(
                out,
                f::PACKET_THROTTLE_INTERVAL,
                fields.packet_throttle_interval,
            )?;
            write_u32(
                out,
                f::PACKET_THROTTLE_ACCELERATION,
                fields.packet_throttle_acceleration,
            )?;
            write_u32(
                out,
                f::PACKET_THROTTLE_DECELERATION,
                fields.packet_throttle_deceleration,
            )?;
            write_bytes(out, f::CONNECT_ID, &fields.connect_id.0)
        };

        match self {
            Command::Acknowledge {
                received_reliable_sequence_number,
                received_sent_time,
            } => {
                use field::acknowledge as f;
                write_u16(
                    out,
                    f::RECEIVED_RELIABLE_SEQUENCE_NUMBER,
                    *received_reliable_sequence_number,
                )?;
                write_u16(out, f::RECEIVED_SENT_TIME, *received_sent_time)
            }
            Command::Connect { fields, data } => {
                connect_fields(out, fields)?;
                write_u32(out, field::connect::DATA, *data)
            }
            Command::VerifyConnect(fields) => connect_fields(out, fields),
            Command::Disconnect { data } => write_u32(out, field::disconnect::DATA, *data),
            Command::Ping => Some(()),
            Command::SendReliable { data } => payload(out, field::send_reliable::DATA_LENGTH, data),
            Command::SendUnreliable {
                unreliable_sequence_number: sequence,
                data,
            }
            | Command::SendUnsequenced {
                unsequenced_group: sequence,
                data,
            } => {
                use field::send_unreliable as f;
                write_u16(out, f::SEQUENCE, *sequence)?;
                payload(out, f::DATA_LENGTH, data)
            }
            Command::SendFragment(f) | Command::SendUnreliableFragment(f) => fragment(out, f),
            Command::BandwidthLimit {
                incoming_bandwidth,
                outgoing_bandwidth,
            } => {
                use field::bandwidth_limit as f;
                write_u32(out, f::INCOMING_BANDWIDTH, *incoming_bandwidth)?;
                write_u32(out, f::OUTGOING_BANDWIDTH, *outgoing_bandwidth)
            }
            Command::ThrottleConfigure {
                packet_throttle_interval,
                packet_throttle_acceleration,
                packet_throttle_deceleration,
            } => {
                use field::throttle_configure as f;
                write_u32(out, f::PACKET_THROTTLE_INTERVAL, *packet_throttle_interval)?;
                write_u32(
                    out,
                    f::PACKET_THROTTLE_ACCELERATION,
                    *packet_throttle_acceleration,
                )?;
                write_u32(
                    out,
                    f::PACKET_THROTTLE_DECELERATION,
                    *packet_throttle_deceleration,
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flagless acknowledgement read on its own has the fields the
    /// general parser gives it; a flagged one, and any other command, is
    /// left to the general parser.
    #[test]
    fn plain_acknowledgement_reads_as_the_general_parser_does() {
        let acknowledgement = Command::Acknowledge {
            received_reliable_sequence_number: 0xA1B2,
            received_sent_time: 0xC3D4,
        };
        let ping = Command::Ping;
        let reliable = Command::SendReliable { data: &[7; 4] };
        for flags in [
            CommandFlags::NONE,
            CommandFlags::ACKNOWLEDGE,
            CommandFlags::UNSEQUENCED,
        ] {
            let header = CommandHeader {
                flags,
                channel_id: 0xFE,
                reliable_sequence_number: 0x0102,
            };
            for command in [acknowledgement, ping, reliable] {
                let mut bytes = vec![0u8; Acknowledgement::LEN.max(command.wire_len())];
                assert_eq!(command.emit(&header, &mut bytes), command.wire_len());
                let fixed = bytes.first_chunk::<{ Acknowledgement::LEN }>().unwrap();
                let plain = Acknowledgement::from_plain(fixed);
                match (Command::parse(&bytes), plain) {
                    (
                        Ok((
                            parsed_header,
                            Command::Acknowledge {
                                received_reliable_sequence_number,
                                received_sent_time,
                            },
                            Acknowledgement::LEN,
                        )),
                        Some(plain),
                    ) if flags == CommandFlags::NONE => assert_eq!(
                        plain,
                        Acknowledgement {
                            channel_id: parsed_header.channel_id,
                            received_reliable_sequence_number,
                            received_sent_time,
                        }
                    ),
                    (_, None) if flags != CommandFlags::NONE || command != acknowledgement => {}
                    other => panic!("{command:?} with {flags:?}: {other:?}"),
                }
            }
        }
    }

    /// Fragments read at fixed offsets come out as the general parser
    /// reads them, whole or cut short anywhere.
    #[test]
    fn fragment_reader_matches_general_parser() {
        let data = [0x5Au8; 40];
        let fragment = Fragment {
            start_sequence_number: 0x0A0B,
            fragment_count: 0x0102_0304,
            fragment_number: 0x0506_0708,
            total_length: 0x090A_0B0C,
            fragment_offset: 0x0D0E_0F10,
            data: &data,
        };
        let header = CommandHeader {
            flags: CommandFlags::ACKNOWLEDGE,
            channel_id: 3,
            reliable_sequence_number: 0xBEEF,
        };
        for command in [
            Command::SendFragment(fragment),
            Command::SendUnreliableFragment(fragment),
        ] {
            let mut bytes = vec![0u8; command.wire_len() + 3];
            assert!(command.write(&header, &mut bytes).is_some());
            for end in 0..=bytes.len() {
                let cut = &bytes[..end];
                assert_eq!(Command::parse(cut), Command::parse_any(cut), "{end} bytes");
            }
            let (parsed_header, parsed, consumed) = Command::parse(&bytes).unwrap();
            assert_eq!(
                (parsed_header, parsed, consumed),
                (header, command, command.wire_len())
            );
        }
    }

    /// The traffic encoder writes what the general one writes, and nothing
    /// where the command does not fit.
    #[test]
    fn traffic_encoder_matches_general_encoder() {
        let data = [0xA5u8; 70];
        let commands = [
            Command::Acknowledge {
                received_reliable_sequence_number: 0x1234,
                received_sent_time: 0xFEDC,
            },
            Command::SendReliable { data: &data },
            Command::SendReliable { data: &[] },
            Command::SendUnreliable {
                unreliable_sequence_number: 0x0102,
                data: &data[..3],
            },
            Command::SendUnsequenced {
                unsequenced_group: 0x8001,
                data: &data,
            },
        ];
        for flags in [
            CommandFlags::NONE,
            CommandFlags::ACKNOWLEDGE,
            CommandFlags::UNSEQUENCED,
        ] {
            let header = CommandHeader {
                flags,
                channel_id: 7,
                reliable_sequence_number: 0xBEEF,
            };
            for command in &commands {
                let len = command.wire_len();
                for room in [0, len - 1, len, len + 5] {
                    let mut fast = vec![0x11u8; room];
                    let mut general = vec![0x11u8; room];
                    let written = command.emit_traffic(&header, &mut fast);
                    let general_ok = room >= len && command.write(&header, &mut general).is_some();
                    assert_eq!(written, general_ok.then_some(len), "{command:?} in {room}");
                    assert_eq!(fast, general, "{command:?} in {room}");
                }
            }
        }
    }
}
