//! The 4-byte header in front of every command.
//!
//! ```text
//! offset 0  u8     command: low nibble = number (1..=12), 0x80 ACKNOWLEDGE
//!                  (reliable), 0x40 UNSEQUENCED; bits 0x30 unused
//! offset 1  u8     channelID (0xFF for connection-level commands)
//! offset 2  u16 BE reliableSequenceNumber
//! ```

use super::field::{read_u16, read_u8, write_u16, write_u8, Field};
use crate::abi::ENetProtocolFlag;
use core::fmt;

/// Command numbers as the `u8` of a command byte's low nibble. The values
/// are `ENetProtocolCommand`'s (`abi`), the one place they are written.
pub mod number {
    use crate::abi::ENetProtocolCommand as C;

    pub const ACKNOWLEDGE: u8 = C::ENET_PROTOCOL_COMMAND_ACKNOWLEDGE as u8;
    pub const CONNECT: u8 = C::ENET_PROTOCOL_COMMAND_CONNECT as u8;
    pub const VERIFY_CONNECT: u8 = C::ENET_PROTOCOL_COMMAND_VERIFY_CONNECT as u8;
    pub const DISCONNECT: u8 = C::ENET_PROTOCOL_COMMAND_DISCONNECT as u8;
    pub const PING: u8 = C::ENET_PROTOCOL_COMMAND_PING as u8;
    pub const SEND_RELIABLE: u8 = C::ENET_PROTOCOL_COMMAND_SEND_RELIABLE as u8;
    pub const SEND_UNRELIABLE: u8 = C::ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE as u8;
    pub const SEND_FRAGMENT: u8 = C::ENET_PROTOCOL_COMMAND_SEND_FRAGMENT as u8;
    pub const SEND_UNSEQUENCED: u8 = C::ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED as u8;
    pub const BANDWIDTH_LIMIT: u8 = C::ENET_PROTOCOL_COMMAND_BANDWIDTH_LIMIT as u8;
    pub const THROTTLE_CONFIGURE: u8 = C::ENET_PROTOCOL_COMMAND_THROTTLE_CONFIGURE as u8;
    pub const SEND_UNRELIABLE_FRAGMENT: u8 =
        C::ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT as u8;
    /// One past the last command number.
    pub const COUNT: u8 = C::ENET_PROTOCOL_COMMAND_COUNT as u8;
    /// The bits of the command byte that hold the number.
    pub const MASK: u8 = C::ENET_PROTOCOL_COMMAND_MASK as u8;
}

mod field {
    use super::Field;
    pub const COMMAND: usize = 0;
    pub const CHANNEL_ID: usize = 1;
    pub const RELIABLE_SEQUENCE_NUMBER: Field = 2..4;
}

/// Size of the command header common to all commands.
pub const COMMAND_HEADER_LEN: usize = field::RELIABLE_SEQUENCE_NUMBER.end;

/// The flag bits of a command byte (its high nibble). The two unused bits
/// are kept too, so that emitting a parsed command reproduces its bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CommandFlags(u8);

impl CommandFlags {
    pub const NONE: CommandFlags = CommandFlags(0);
    /// The command is reliable: the receiver acknowledges it.
    pub const ACKNOWLEDGE: CommandFlags =
        CommandFlags(ENetProtocolFlag::ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE as u8);
    /// The command is unsequenced.
    pub const UNSEQUENCED: CommandFlags =
        CommandFlags(ENetProtocolFlag::ENET_PROTOCOL_COMMAND_FLAG_UNSEQUENCED as u8);

    /// The flags of a command byte (its number bits are dropped).
    pub fn from_bits(bits: u8) -> Self {
        CommandFlags(bits & !number::MASK)
    }

    pub fn bits(self) -> u8 {
        self.0
    }

    pub fn contains(self, other: CommandFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl core::ops::BitOr for CommandFlags {
    type Output = CommandFlags;
    fn bitor(self, other: CommandFlags) -> CommandFlags {
        CommandFlags(self.0 | other.0)
    }
}

impl fmt::Debug for CommandFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CommandFlags({:#04x}", self.0)?;
        if self.contains(Self::ACKNOWLEDGE) {
            f.write_str(" ACKNOWLEDGE")?;
        }
        if self.contains(Self::UNSEQUENCED) {
            f.write_str(" UNSEQUENCED")?;
        }
        f.write_str(")")
    }
}

/// The 4-byte header in front of every command, minus the command number
/// (which the [`Command`](super::Command) variant carries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CommandHeader {
    pub flags: CommandFlags,
    pub channel_id: u8,
    pub reliable_sequence_number: u16,
}

impl CommandHeader {
    /// Reads the command header at the start of `bytes`; returns it with the
    /// command number (not checked: that is the caller's), or `None` if
    /// fewer than [`COMMAND_HEADER_LEN`] bytes are given.
    pub fn parse(bytes: &[u8]) -> Option<(CommandHeader, u8)> {
        let command_byte = read_u8(bytes, field::COMMAND)?;
        let header = CommandHeader {
            flags: CommandFlags::from_bits(command_byte),
            channel_id: read_u8(bytes, field::CHANNEL_ID)?,
            reliable_sequence_number: read_u16(bytes, field::RELIABLE_SEQUENCE_NUMBER)?,
        };
        Some((header, command_byte & number::MASK))
    }

    /// The header and command number of a command whose first
    /// [`COMMAND_HEADER_LEN`] bytes are `head`: the fixed-offset read the
    /// fast parsers of ordinary traffic and fragments share.
    #[inline(always)]
    pub fn from_fixed(head: &[u8; COMMAND_HEADER_LEN]) -> (CommandHeader, u8) {
        let header = CommandHeader {
            flags: CommandFlags::from_bits(head[0]),
            channel_id: head[1],
            reliable_sequence_number: u16::from_be_bytes([head[2], head[3]]),
        };
        (header, head[0] & number::MASK)
    }

    /// Writes the header of a command numbered `command_number`; `None` if
    /// `out` is too short.
    pub fn emit(&self, command_number: u8, out: &mut [u8]) -> Option<()> {
        let command_byte = self.flags.bits() | (command_number & number::MASK);
        if out.len() < COMMAND_HEADER_LEN {
            return None;
        }
        write_u8(out, field::COMMAND, command_byte)?;
        write_u8(out, field::CHANNEL_ID, self.channel_id)?;
        write_u16(
            out,
            field::RELIABLE_SEQUENCE_NUMBER,
            self.reliable_sequence_number,
        )
    }
}
