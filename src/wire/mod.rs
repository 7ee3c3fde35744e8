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
/// other code needs by name: the sizes of the packed `abi` command structs,
/// which are the wire layout.
pub mod size {
    use crate::abi::{
        ENetProtocolAcknowledge, ENetProtocolPing, ENetProtocolSendFragment,
        ENetProtocolSendReliable, ENetProtocolSendUnreliable,
    };
    use core::mem::size_of;

    pub const ACKNOWLEDGE: usize = size_of::<ENetProtocolAcknowledge>();
    pub const PING: usize = size_of::<ENetProtocolPing>();
    pub const SEND_RELIABLE: usize = size_of::<ENetProtocolSendReliable>();
    pub const SEND_UNRELIABLE: usize = size_of::<ENetProtocolSendUnreliable>();
    /// SEND_FRAGMENT and SEND_UNRELIABLE_FRAGMENT.
    pub const SEND_FRAGMENT: usize = size_of::<ENetProtocolSendFragment>();
}

/// Fixed size of each command (header and body, not payload), indexed by
/// command number: the size of its packed `abi` struct. 0 marks numbers
/// that name no command.
static COMMAND_SIZES: [usize; 16] = {
    use crate::abi::*;
    use command_header::number;
    use core::mem::size_of;

    let mut sizes = [0; 16];
    sizes[number::ACKNOWLEDGE as usize] = size::ACKNOWLEDGE;
    sizes[number::CONNECT as usize] = size_of::<ENetProtocolConnect>();
    sizes[number::VERIFY_CONNECT as usize] = size_of::<ENetProtocolVerifyConnect>();
    sizes[number::DISCONNECT as usize] = size_of::<ENetProtocolDisconnect>();
    sizes[number::PING as usize] = size::PING;
    sizes[number::SEND_RELIABLE as usize] = size::SEND_RELIABLE;
    sizes[number::SEND_UNRELIABLE as usize] = size::SEND_UNRELIABLE;
    sizes[number::SEND_FRAGMENT as usize] = size::SEND_FRAGMENT;
    sizes[number::SEND_UNSEQUENCED as usize] = size_of::<ENetProtocolSendUnsequenced>();
    sizes[number::BANDWIDTH_LIMIT as usize] = size_of::<ENetProtocolBandwidthLimit>();
    sizes[number::THROTTLE_CONFIGURE as usize] = size_of::<ENetProtocolThrottleConfigure>();
    sizes[number::SEND_UNRELIABLE_FRAGMENT as usize] = size::SEND_FRAGMENT;
    sizes
};

/// The size of the command whose first byte is `command_byte` (flags are
/// ignored); 0 if the low nibble names no command.
pub fn command_size(command_byte: u8) -> usize {
    COMMAND_SIZES[usize::from(command_byte & command_header::number::MASK)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte counts of ENet 1.3.17's wire format (its command table),
    /// written out here so that a change to an `abi` struct cannot move a
    /// command's size unnoticed.
    #[test]
    fn command_sizes_are_the_wire_formats() {
        let wire_format = [
            (1 | 0x80, 8), // ACKNOWLEDGE
            (2, 48),       // CONNECT
            (3, 44),       // VERIFY_CONNECT
            (4, 8),        // DISCONNECT
            (5, 4),        // PING
            (6, 6),        // SEND_RELIABLE
            (7, 8),        // SEND_UNRELIABLE
            (8, 24),       // SEND_FRAGMENT
            (9 | 0x40, 8), // SEND_UNSEQUENCED
            (10, 12),      // BANDWIDTH_LIMIT
            (11, 16),      // THROTTLE_CONFIGURE
            (12, 24),      // SEND_UNRELIABLE_FRAGMENT
        ];
        for (command_byte, bytes) in wire_format {
            assert_eq!(
                command_size(command_byte),
                bytes,
                "command {command_byte:#04x}"
            );
        }
        for number in [0u8, 13, 14, 15, 0xFF] {
            assert_eq!(command_size(number), 0);
        }
        assert_eq!(
            (size::ACKNOWLEDGE, size::PING, size::SEND_RELIABLE),
            (8, 4, 6)
        );
        assert_eq!((size::SEND_UNRELIABLE, size::SEND_FRAGMENT), (8, 24));
    }

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
