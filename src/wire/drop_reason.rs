//! Why a datagram, or the rest of one, was not processed.
//!
//! Stock ENet drops bad input silently (`return 0` or `break`). We keep its
//! decisions but name each one, so tests can assert *why* something was
//! ignored and the engine can keep per-reason counters.

use core::fmt;

/// The reason a received datagram was dropped, or why processing of its
/// commands stopped early (commands before the stop were still processed, as
/// in stock ENet).
///
/// The wire layer reports the reasons it can see from bytes alone; the ones
/// marked "(engine)" need host or peer state and are reported by the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropReason {
    // --- The whole datagram ---
    /// Shorter than its header: 2 bytes, 4 with the SENT_TIME flag, 4 more
    /// when the host uses a checksum.
    Truncated,
    /// (engine) The peer id names no slot of the host (it is `>= peerCount`
    /// and not the "no peer yet" id 0xFFF).
    BadPeerId,
    /// (engine) The addressed peer slot is disconnected or a zombie.
    PeerNotConnected,
    /// (engine) The source address is not the peer's address.
    AddressMismatch,
    /// (engine) The session bits differ from the peer's incoming session id.
    SessionMismatch,
    /// (engine) The COMPRESSED flag is set but the host has no decompressor.
    NoDecompressor,
    /// (engine) The decompressor failed or its output did not fit.
    DecompressionFailed,
    /// The checksum slot does not match the checksum of the datagram.
    BadChecksum,

    // --- Stops inside the command loop ---
    /// Fewer bytes left than a command header, or than the fixed size of the
    /// command it names.
    TruncatedCommand,
    /// A command number of 0 or 13..=15 (no such command, size 0).
    UnknownCommand,
    /// A `dataLength` that runs past the end of the datagram.
    PayloadOutOfBounds,
    /// (engine) A `dataLength` above the host's `maximumPacketSize`.
    PayloadTooLarge,
    /// (engine) A command other than CONNECT in a datagram addressed to the
    /// "no peer yet" id.
    NoPeerForCommand,
    /// (engine) An ACKNOWLEDGE-flagged command in a datagram without a
    /// sentTime: stock stops after processing it, since it has no time to
    /// put in the acknowledgement.
    MissingSentTime,
    /// (engine) A command handler refused the command (wrong channel, wrong
    /// peer state, out-of-window, failed allocation, ...).
    CommandRejected,
}

impl DropReason {
    /// Every reason, in declaration order (`ALL[r.index()] == r`).
    pub const ALL: [DropReason; 15] = [
        DropReason::Truncated,
        DropReason::BadPeerId,
        DropReason::PeerNotConnected,
        DropReason::AddressMismatch,
        DropReason::SessionMismatch,
        DropReason::NoDecompressor,
        DropReason::DecompressionFailed,
        DropReason::BadChecksum,
        DropReason::TruncatedCommand,
        DropReason::UnknownCommand,
        DropReason::PayloadOutOfBounds,
        DropReason::PayloadTooLarge,
        DropReason::NoPeerForCommand,
        DropReason::MissingSentTime,
        DropReason::CommandRejected,
    ];

    /// A dense index, for an array of counters.
    pub fn index(self) -> usize {
        self as usize
    }

    /// A short stable name, for logs and counter dumps.
    pub fn name(self) -> &'static str {
        match self {
            DropReason::Truncated => "truncated",
            DropReason::BadPeerId => "bad-peer-id",
            DropReason::PeerNotConnected => "peer-not-connected",
            DropReason::AddressMismatch => "address-mismatch",
            DropReason::SessionMismatch => "session-mismatch",
            DropReason::NoDecompressor => "no-decompressor",
            DropReason::DecompressionFailed => "decompression-failed",
            DropReason::BadChecksum => "bad-checksum",
            DropReason::TruncatedCommand => "truncated-command",
            DropReason::UnknownCommand => "unknown-command",
            DropReason::PayloadOutOfBounds => "payload-out-of-bounds",
            DropReason::PayloadTooLarge => "payload-too-large",
            DropReason::NoPeerForCommand => "no-peer-for-command",
            DropReason::MissingSentTime => "missing-sent-time",
            DropReason::CommandRejected => "command-rejected",
        }
    }
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_each_reason_at_its_index_with_a_unique_name() {
        for (position, reason) in DropReason::ALL.iter().enumerate() {
            assert_eq!(reason.index(), position);
        }
        let mut names: Vec<_> = DropReason::ALL.iter().map(|r| r.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DropReason::ALL.len());
    }
}
