//! Bytes on the wire. Everything here treats its input as untrusted and
//! never panics on it: malformed input yields an error or a zero length.
//!
//! - [`header`]: the datagram header (peer id, session, flags, sentTime,
//!   checksum slot);
//! - [`command_header`]: the 4-byte header of every command (number, flags,
//!   channel, reliable sequence number);
//! - [`command`]: the 12 commands, parsed to [`Command`] and emitted back;
//! - [`datagram`]: a received datagram and the iterator over its commands;
//! - [`checksum`]: the optional checksum rule, with [`crc32`];
//! - [`builder`]: packing commands into a datagram within the MTU;
//! - [`DropReason`]: why input was dropped, for the engine and counters.
//!
//! No-panic contract: parsers take any bytes and return a value or a
//! [`DropReason`]; emitters write nothing and return 0 when the output is
//! too short. No code here indexes untrusted bytes directly: reads and writes
//! go through the checked helpers of `field`.
//!
//! Parsing untrusted bytes is safe Rust only: `unsafe` belongs to the
//! `ffi`, `net` and `mem` glue, so the compiler refuses one here.
#![forbid(unsafe_code)]

pub mod builder;
pub mod checksum;
pub mod command;
pub mod command_header;
pub mod crc32;
pub mod datagram;
mod drop_reason;
mod field;
pub mod header;
pub mod range_coder;
#[cfg(test)]
mod test_suite;

pub use builder::{DatagramBuilder, Envelope, Full};
pub use command::{Command, CommandFlags, CommandHeader, ConnectFields, ConnectId, Fragment};
pub use datagram::{Commands, Datagram};
pub use drop_reason::DropReason;
pub use header::DatagramHeader;

/// Fixed sizes (header and body, not payload) of the commands whose size
/// other code needs by name.
pub mod size {
    pub const ACKNOWLEDGE: usize = 8;
    pub const PING: usize = 4;
    pub const SEND_RELIABLE: usize = 6;
    pub const SEND_UNRELIABLE: usize = 8;
    /// SEND_FRAGMENT and SEND_UNRELIABLE_FRAGMENT.
    pub const SEND_FRAGMENT: usize = 24;
}

/// Fixed size of each command (header and body, not payload), indexed by
/// command number; 0 marks numbers that name no command.
const COMMAND_SIZES: [usize; 16] = [
    0,
    size::ACKNOWLEDGE,
    48,
    44,
    8,
    size::PING,
    size::SEND_RELIABLE,
    size::SEND_UNRELIABLE,
    size::SEND_FRAGMENT,
    8,
    12,
    16,
    size::SEND_FRAGMENT,
    0,
    0,
    0,
];

/// The size of the command whose first byte is `command_byte` (flags are
/// ignored); 0 if the low nibble names no command.
pub fn command_size(command_byte: u8) -> usize {
    COMMAND_SIZES[usize::from(command_byte & 0x0F)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_sizes_match_the_protocol_structs() {
        use crate::abi::*;
        use core::mem::size_of;
        assert_eq!(command_size(1 | 0x80), size_of::<ENetProtocolAcknowledge>());
        assert_eq!(command_size(2), size_of::<ENetProtocolConnect>());
        assert_eq!(command_size(3), size_of::<ENetProtocolVerifyConnect>());
        assert_eq!(command_size(4), size_of::<ENetProtocolDisconnect>());
        assert_eq!(command_size(5), size_of::<ENetProtocolPing>());
        assert_eq!(command_size(6), size_of::<ENetProtocolSendReliable>());
        assert_eq!(command_size(7), size_of::<ENetProtocolSendUnreliable>());
        assert_eq!(command_size(8), size_of::<ENetProtocolSendFragment>());
        assert_eq!(
            command_size(9 | 0x40),
            size_of::<ENetProtocolSendUnsequenced>()
        );
        assert_eq!(command_size(10), size_of::<ENetProtocolBandwidthLimit>());
        assert_eq!(command_size(11), size_of::<ENetProtocolThrottleConfigure>());
        assert_eq!(command_size(12), size_of::<ENetProtocolSendFragment>());
        for number in [0u8, 13, 14, 15, 0xFF] {
            assert_eq!(command_size(number), 0);
        }
    }
}
