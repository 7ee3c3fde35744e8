//! What a host counts about its traffic, for `enet_rs_host_get_stats`.
//!
//! Plain integers the engine adds to where it already handles a datagram
//! or a connect: no atomics (a host is used by one thread at a time) and
//! no work at all until a program reads them.

use crate::wire::DropReason;

/// The engine's own counters of one host, since it was created. They wrap
/// at 2^64, which no host reaches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HostCounters {
    /// Datagrams the engine was handed (after the transport's decryption
    /// and conditioner), and their bytes.
    pub datagrams_in: u64,
    pub bytes_in: u64,
    /// Datagrams the engine sent, and their bytes (before encryption).
    pub datagrams_out: u64,
    pub bytes_out: u64,
    /// Received datagrams dropped, or cut short, by [`DropReason`]: each
    /// datagram counts once, under the reason it stopped at.
    pub drops: [u64; DropReason::ALL.len()],
    /// Received datagrams the program's intercept callback consumed.
    pub intercepted: u64,
    /// Incoming CONNECTs given a peer slot.
    pub connects_accepted: u64,
    /// Incoming CONNECTs refused: a channel count out of range, too many
    /// peers from one address, no slot free and none half-open to take,
    /// or no memory for the channels. A CONNECT repeated for a connection
    /// the host already has is no refusal.
    pub connects_refused: u64,
    /// Half-open peers reset to free their slot for a newer CONNECT (a
    /// flood of CONNECTs, or clients that never finish the handshake).
    pub connects_evicted: u64,
    /// Incomplete fragment reassemblies dropped to make room within the
    /// host's reassembly budget.
    pub reassemblies_evicted: u64,
    /// Of those, reliable ones, whose peer was disconnected for it.
    pub reassembly_peers_lost: u64,
    /// Fragments refused because the budget had no room even after
    /// evicting every other reassembly.
    pub fragments_over_budget: u64,
}

impl HostCounters {
    /// Counts a received datagram of `length` bytes.
    #[inline(always)]
    pub fn received(&mut self, length: usize) {
        self.datagrams_in = self.datagrams_in.wrapping_add(1);
        self.bytes_in = self.bytes_in.wrapping_add(length as u64);
    }

    /// Counts a sent datagram of `length` bytes.
    #[inline(always)]
    pub fn sent(&mut self, length: usize) {
        self.datagrams_out = self.datagrams_out.wrapping_add(1);
        self.bytes_out = self.bytes_out.wrapping_add(length as u64);
    }

    /// Counts a received datagram dropped (or cut short) for `reason`.
    #[inline(always)]
    pub fn dropped(&mut self, reason: DropReason) {
        let count = &mut self.drops[reason.index()];
        *count = count.wrapping_add(1);
    }

    /// How many datagrams were dropped for `reason`.
    pub fn drops_for(&self, reason: DropReason) -> u64 {
        self.drops[reason.index()]
    }
}

/// What one peer has queued and in flight, and how its link fares, as
/// `enet_rs_peer_get_counters` reports it. Read from the peer's own state
/// when asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PeerCounters {
    /// Commands waiting to be sent (payloads, acknowledgements excepted),
    /// and the payload bytes they carry.
    pub queued_commands: u64,
    pub queued_bytes: u64,
    /// Reliable commands sent and not yet acknowledged, and the bytes
    /// stock counts in transit for them (`reliableDataInTransit`).
    pub in_flight_commands: u64,
    pub in_flight_bytes: u64,
    /// The loss recovery's counts (`enet_rs_peer_get_stats`).
    pub recovery: crate::proto::state::recovery::RecoveryStats,
    /// The congestion window in bytes (0 without congestion control).
    pub congestion_window: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_has_its_own_counter() {
        let mut counters = HostCounters::default();
        for (times, reason) in DropReason::ALL.iter().enumerate() {
            for _ in 0..times {
                counters.dropped(*reason);
            }
        }
        for (times, reason) in DropReason::ALL.iter().enumerate() {
            assert_eq!(counters.drops_for(*reason), times as u64, "{reason}");
        }
    }

    #[test]
    fn traffic_counts_datagrams_and_bytes() {
        let mut counters = HostCounters::default();
        counters.received(100);
        counters.received(28);
        counters.sent(60);
        assert_eq!((counters.datagrams_in, counters.bytes_in), (2, 128));
        assert_eq!((counters.datagrams_out, counters.bytes_out), (1, 60));
    }
}
