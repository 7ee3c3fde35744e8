//! How a peer recovers lost reliable commands ([`LossRecovery`]), and the
//! congestion window that paces its reliable data when it opts in
//! ([`CongestionWindow`]).
//!
//! Stock ENet retransmits only when the oldest command in flight times out
//! and doubles the timeout each time; its in-flight limit is the fixed
//! 64 KiB window. Every option here is on the sender's side and leaves the
//! wire format alone: a stock receiver acknowledges every reliable command
//! on its own, so it cannot tell.

use std::collections::BTreeMap;

use super::peer_index::PeerIndex;
use crate::abi::*;
use crate::time::TIME_OVERFLOW;

/// Timeout growth per retransmission, in percent, that stock uses (×2).
pub const STOCK_BACKOFF_PERCENT: u16 = 200;

/// The longest retransmission timeout, in ms: just under a day, the
/// longest wait ENet's wrapping clock reads as ahead. Timeouts stop
/// growing here rather than wrap (stock's doubling wraps, after about
/// thirty doublings, to 0) or reach a deadline the clock reads as past,
/// which would have the peer's timer due on every pass.
pub const LONGEST_TIMEOUT: u32 = TIME_OVERFLOW - 1;

/// Loss-recovery settings of a peer (a host holds the ones its new peers
/// start with).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LossRecovery {
    /// Each reliable command is retransmitted when its own timeout passes.
    /// Stock looks only when the oldest command's timeout passes, so a
    /// command sent later, with a shorter timeout than one retransmitted
    /// before it, waits behind that one.
    pub per_command_deadlines: bool,
    /// Resend a reliable command once this many commands sent after it have
    /// been acknowledged (0: only on timeout, as stock).
    pub fast_resend: u16,
    /// Keep stock's timeout bookkeeping untouched: the two options above
    /// send extra copies of a command that stays in flight as stock has
    /// it, so a silent peer is dropped exactly when stock drops it and
    /// `enet_peer_timeout` keeps its meaning. Off, they send the command
    /// itself again, with a fresh timeout.
    pub keep_stock_timeouts: bool,
    /// Timeout growth per retransmission in percent (200: doubling, as
    /// stock; 150: KCP's gentler ×1.5). At least 100.
    pub backoff_percent: u16,
    /// Lowest first retransmission timeout in milliseconds (0: none, as
    /// stock, whose timeout is the round-trip time plus four variances).
    pub minimum_timeout: u32,
    /// Pace reliable data by a congestion window that grows past stock's
    /// fixed 64 KiB per round trip while acknowledgements keep coming and
    /// halves on loss, instead of by that fixed window.
    pub congestion_control: bool,
    /// While no more than this many reliable commands are in flight, a
    /// timeout does not grow for the first [`THIN_STREAM_LINEAR_RESENDS`]
    /// resends of a command (0: off). A thin stream, such as a game's
    /// state updates, cannot congest a path, and backing off only delays
    /// it (Linux's thin-stream linear timeouts).
    pub thin_stream_commands: u16,
    /// Send each acknowledgement twice, the second time in a datagram of
    /// its own right after the first. ENet acknowledges every reliable
    /// command by itself, with no cumulative acknowledgement to stand in
    /// for a lost one, so each lost acknowledgement costs a resend; sent
    /// twice, one is lost about as often as the path loses two datagrams.
    /// Any ENet peer takes a repeated acknowledgement as a duplicate.
    pub repeat_acknowledgements: bool,
}

/// Resends of a command that keep its timeout in a thin stream.
pub const THIN_STREAM_LINEAR_RESENDS: u16 = 6;

impl LossRecovery {
    /// Stock ENet 1.3.17's behaviour, exactly.
    pub const STOCK: LossRecovery = LossRecovery {
        per_command_deadlines: false,
        fast_resend: 0,
        keep_stock_timeouts: true,
        backoff_percent: STOCK_BACKOFF_PERCENT,
        minimum_timeout: 0,
        congestion_control: false,
        thin_stream_commands: 0,
        repeat_acknowledgements: false,
    };

    /// What a host does unless told otherwise: stock's timeouts, exactly,
    /// plus extra copies of a reliable command when its own deadline
    /// passes while it waits behind an older one, and once three commands
    /// sent after it are acknowledged.
    pub const DEFAULT: LossRecovery = LossRecovery {
        per_command_deadlines: true,
        fast_resend: 3,
        ..LossRecovery::STOCK
    };

    /// Everything on, stock's timeouts given up: each command resent on its
    /// own deadline, early resend after two, ×1.5 backoff (none in a thin
    /// stream of up to four commands in flight), KCP's no-delay minimum
    /// timeout of 30 ms, the congestion window, and acknowledgements sent
    /// twice.
    pub const FAST: LossRecovery = LossRecovery {
        per_command_deadlines: true,
        fast_resend: 2,
        keep_stock_timeouts: false,
        backoff_percent: 150,
        minimum_timeout: 30,
        congestion_control: true,
        thin_stream_commands: 4,
        repeat_acknowledgements: true,
    };

    /// The settings with out-of-range values brought into range.
    pub fn sanitized(mut self) -> LossRecovery {
        self.backoff_percent = self.backoff_percent.max(100);
        self
    }

    /// The first retransmission timeout for a peer's round-trip estimate,
    /// at most [`LONGEST_TIMEOUT`].
    pub fn first_timeout(&self, round_trip_time: u32, variance: u32) -> u32 {
        // In 64 bits nothing overflows (one `lea`), and one bound saturates.
        let timeout = u64::from(round_trip_time) + 4 * u64::from(variance);
        timeout
            .max(u64::from(self.minimum_timeout))
            .min(u64::from(LONGEST_TIMEOUT)) as u32
    }

    /// The timeout of a command resent for the `resends`th time, with
    /// `in_flight` reliable commands in flight: unchanged in a thin stream's
    /// first resends, else [`LossRecovery::backed_off`].
    pub fn after_resend(&self, timeout: u32, resends: u16, in_flight: usize) -> u32 {
        let thin = self.thin_stream_commands > 0
            && in_flight <= usize::from(self.thin_stream_commands)
            && resends <= THIN_STREAM_LINEAR_RESENDS;
        if thin {
            timeout
        } else {
            self.backed_off(timeout)
        }
    }

    /// The timeout after one more retransmission, at most
    /// [`LONGEST_TIMEOUT`].
    pub fn backed_off(&self, timeout: u32) -> u32 {
        if self.backoff_percent == STOCK_BACKOFF_PERCENT {
            // Stock's doubling, stopped at the longest timeout instead of
            // wrapping.
            return timeout.saturating_mul(2).min(LONGEST_TIMEOUT);
        }
        let grown = u64::from(timeout) * u64::from(self.backoff_percent) / 100;
        // Never stuck: a 1 ms timeout grows too.
        let grown = grown.max(u64::from(timeout) + 1);
        grown.min(u64::from(LONGEST_TIMEOUT)) as u32
    }
}

impl Default for LossRecovery {
    fn default() -> Self {
        LossRecovery::DEFAULT
    }
}

/// The loss recovery of a host's peers: the host's setting, and the few
/// peers with one of their own (by slot, until the slot is reset). Kept
/// beside the slots rather than in each: thousands of slots would each
/// carry a pointer for the one setting nearly all of them share.
#[derive(Debug, Default)]
pub(crate) struct RecoveryTable {
    host: LossRecovery,
    own: BTreeMap<PeerIndex, LossRecovery>,
}

impl RecoveryTable {
    /// The loss recovery of the peer in slot `index`.
    #[inline]
    pub(crate) fn of(&self, index: PeerIndex) -> &LossRecovery {
        // Most hosts give no peer its own: an empty map answers at once.
        if self.own.is_empty() {
            return &self.host;
        }
        self.own.get(&index).unwrap_or(&self.host)
    }

    /// The host's setting, which every peer without its own follows.
    pub(crate) fn host(&self) -> &LossRecovery {
        &self.host
    }

    /// Gives every peer `recovery` (brought into range), replacing any of
    /// their own.
    pub(crate) fn set_host(&mut self, recovery: LossRecovery) {
        self.own.clear();
        self.host = recovery.sanitized();
    }

    /// Gives the peer in slot `index` its own `recovery` (brought into
    /// range).
    pub(crate) fn set_own(&mut self, index: PeerIndex, recovery: LossRecovery) {
        self.own.insert(index, recovery.sanitized());
    }

    /// Forgets the own setting of the peer in slot `index` (its reset).
    pub(crate) fn forget(&mut self, index: PeerIndex) {
        self.own.remove(&index);
    }
}

/// What a peer's loss recovery did, counted as it happens: each
/// retransmission is either early or on a timeout, so their total is not
/// stored (see [`RecoveryStats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RecoveryCounts {
    retransmitted_bytes: u64,
    resends: ResendCounts,
}

/// The part of a peer's [`RecoveryCounts`] that its slot keeps: how many
/// commands went again, early or on a timeout. 32 bits each, so the slot
/// stays at 32 bytes; they stop at `u32::MAX` (49 days of 1000
/// retransmissions a second on one connection) rather than wrap. The
/// bytes are the host's to keep ([`RetransmittedBytes`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ResendCounts {
    fast_retransmits: u32,
    timeouts: u32,
}

impl ResendCounts {
    /// Adds `other`'s counts to these.
    pub(crate) fn add(&mut self, other: ResendCounts) {
        self.fast_retransmits = self.fast_retransmits.saturating_add(other.fast_retransmits);
        self.timeouts = self.timeouts.saturating_add(other.timeouts);
    }
}

impl RecoveryCounts {
    /// The counts of a peer whose slot keeps `resends` and whose
    /// retransmissions carried `retransmitted_bytes`.
    pub(crate) fn new(resends: ResendCounts, retransmitted_bytes: u64) -> RecoveryCounts {
        RecoveryCounts {
            retransmitted_bytes,
            resends,
        }
    }

    /// Counts one more retransmission of `bytes` payload bytes, sent early
    /// or on a timeout.
    pub(crate) fn count(&mut self, bytes: u16, early: bool) {
        self.retransmitted_bytes += u64::from(bytes);
        let count = if early {
            &mut self.resends.fast_retransmits
        } else {
            &mut self.resends.timeouts
        };
        *count = count.saturating_add(1);
    }

    /// The resend counts and the bytes they carried.
    pub(crate) fn split(self) -> (ResendCounts, u64) {
        (self.resends, self.retransmitted_bytes)
    }

    /// The counters as the API reports them.
    pub(crate) fn stats(&self) -> RecoveryStats {
        let fast_retransmits = u64::from(self.resends.fast_retransmits);
        let timeouts = u64::from(self.resends.timeouts);
        RecoveryStats {
            retransmitted_commands: fast_retransmits + timeouts,
            retransmitted_bytes: self.retransmitted_bytes,
            fast_retransmits,
            timeouts,
        }
    }
}

/// The payload bytes each peer's retransmissions carried since its slot
/// was reset, for the peers whose retransmissions carried any. Kept here
/// rather than in each slot: a burst of connects retransmits to most of a
/// host's peers, but CONNECTs and their answers carry no payload, so a
/// peer that only connected and pings has no entry.
#[derive(Debug, Default)]
pub(crate) struct RetransmittedBytes(BTreeMap<PeerIndex, u64>);

impl RetransmittedBytes {
    /// Adds `bytes` to those of the peer in slot `index`.
    #[inline(always)]
    pub(crate) fn add(&mut self, index: PeerIndex, bytes: u64) {
        if bytes > 0 {
            self.add_some(index, bytes);
        }
    }

    // Out of line: the map's insertion is large, and resends of the
    // handshakes and pings, which count no bytes, never run it.
    #[cold]
    #[inline(never)]
    fn add_some(&mut self, index: PeerIndex, bytes: u64) {
        let total = self.0.entry(index).or_default();
        *total = total.saturating_add(bytes);
    }

    /// Those of the peer in slot `index`.
    pub(crate) fn of(&self, index: PeerIndex) -> u64 {
        self.0.get(&index).copied().unwrap_or(0)
    }

    /// Forgets those of the peer in slot `index` (its reset).
    pub(crate) fn clear(&mut self, index: PeerIndex) {
        self.0.remove(&index);
    }
}

/// Counters of a peer's loss recovery, since it connected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecoveryStats {
    /// Reliable commands sent again, for any reason.
    pub retransmitted_commands: u64,
    /// Payload bytes of those commands.
    pub retransmitted_bytes: u64,
    /// Of the retransmissions, those sent early (before their timeout).
    pub fast_retransmits: u64,
    /// Of the retransmissions, those sent on a timeout.
    pub timeouts: u64,
}

/// Smallest congestion window, in datagrams of the peer's MTU.
const MINIMUM_WINDOW_DATAGRAMS: u32 = 4;
/// Largest congestion window in bytes: far beyond any bandwidth-delay
/// product a game sees, and within what the reliable sequence windows let
/// a sender have in flight.
const MAXIMUM_WINDOW: u32 = 16 << 20;

/// A reliable-data congestion window (additive increase, multiplicative
/// decrease, as TCP Reno): it starts at stock's fixed window, doubles every
/// round trip while no loss is seen (slow start), then grows by one
/// datagram per round trip; a loss halves it, once per round trip, down to
/// no less than stock's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CongestionWindow {
    /// Bytes of reliable data allowed in flight.
    pub window: u32,
    /// Above this the window grows by one datagram per round trip.
    threshold: u32,
    /// Bytes acknowledged towards the next one-datagram step.
    acknowledged: u32,
    /// Losses of commands sent before this service time belong to the loss
    /// already answered.
    recovery_until: Option<u32>,
    /// When the last loss was seen (service time), answered or not.
    last_loss: Option<u32>,
    /// Reliable bytes that may leave now: the window is paced out over the
    /// round trip instead of leaving in one burst that overruns the
    /// buffers on the way (a token bucket).
    tokens: u32,
    /// When the bucket was last filled (service time).
    filled_at: Option<u32>,
    /// The last send pass stopped for want of tokens: the peer needs
    /// another pass shortly, though nothing else is due.
    pub paced: bool,
}

impl Default for CongestionWindow {
    fn default() -> Self {
        CongestionWindow {
            window: ENET_PROTOCOL_MAXIMUM_WINDOW_SIZE,
            threshold: MAXIMUM_WINDOW,
            acknowledged: 0,
            recovery_until: None,
            last_loss: None,
            tokens: 0,
            filled_at: None,
            paced: false,
        }
    }
}

impl CongestionWindow {
    /// Whether the window is as a new one starts: nothing sent through it
    /// or learnt, so forgetting it loses nothing.
    pub fn is_initial(&self) -> bool {
        *self == CongestionWindow::default()
    }

    /// The reliable bytes that may leave at service time `now`, for a
    /// round trip of `round_trip_time` ms: the bucket fills at 1.25 windows
    /// per round trip and holds at most half a window (at least 16
    /// datagrams), so a program that services the host only now and then
    /// still sends most of a window per pass.
    pub fn tokens(&mut self, now: u32, round_trip_time: u32, mtu: u32) -> u32 {
        let cap = (self.window / 2).max(mtu.saturating_mul(16));
        let elapsed = match self.filled_at {
            Some(then) => u64::from(crate::time::time_difference(now, then)),
            None => u64::MAX,
        };
        let rate = u64::from(self.window) * 5 / 4 / u64::from(round_trip_time.max(1));
        let refill = elapsed.saturating_mul(rate);
        self.tokens = u64::from(self.tokens)
            .saturating_add(refill)
            .min(u64::from(cap)) as u32;
        self.filled_at = Some(now);
        self.tokens
    }

    /// `bytes` of reliable data left.
    pub fn spend(&mut self, bytes: u32) {
        self.tokens = self.tokens.saturating_sub(bytes);
    }

    /// `bytes` of reliable data were acknowledged.
    pub fn on_acknowledged(&mut self, bytes: u32, mtu: u32) {
        if self.window < self.threshold {
            self.window = self.window.saturating_add(bytes).min(MAXIMUM_WINDOW);
            return;
        }
        self.acknowledged = self.acknowledged.saturating_add(bytes);
        if self.acknowledged >= self.window {
            self.acknowledged -= self.window;
            self.window = self.window.saturating_add(mtu).min(MAXIMUM_WINDOW);
        }
    }

    /// A command sent at `sent_time` was lost (it timed out or was resent
    /// early); `now` is the service time. Halves the window unless this
    /// loss belongs to one already answered, but not below `floor`: the
    /// window stock would allow the peer now. Random loss then costs no
    /// more than on stock, while flows sharing a bottleneck still back
    /// off from whatever they grew to beyond it.
    pub fn on_loss(&mut self, sent_time: u32, now: u32, mtu: u32, floor: u32) {
        self.last_loss = Some(now);
        if let Some(until) = self.recovery_until {
            if crate::time::time_less(sent_time, until) {
                return;
            }
        }
        let minimum = mtu.saturating_mul(MINIMUM_WINDOW_DATAGRAMS).max(floor);
        self.window = (self.window / 2).max(minimum);
        self.threshold = self.window;
        self.acknowledged = 0;
        self.recovery_until = Some(now);
    }

    /// Whether no loss was seen in the `quiet` ms before service time
    /// `now`.
    pub fn quiet_for(&self, now: u32, quiet: u32) -> bool {
        self.last_loss
            .is_none_or(|then| crate::time::time_difference(now, then) >= quiet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stock_settings_keep_stock_arithmetic() {
        let stock = LossRecovery::STOCK;
        assert_eq!(stock.first_timeout(500, 0), 500);
        assert_eq!(stock.first_timeout(40, 5), 60);
        assert_eq!(stock.backed_off(60), 120);
        assert_eq!(
            stock.backed_off(0x9000_0000),
            LONGEST_TIMEOUT,
            "stops, stock wraps"
        );
        assert_eq!(stock.backed_off(LONGEST_TIMEOUT / 2 + 1), LONGEST_TIMEOUT);
        assert_eq!(stock.backed_off(LONGEST_TIMEOUT / 2), LONGEST_TIMEOUT - 1);
        let fast = LossRecovery::FAST;
        assert_eq!(fast.first_timeout(2, 1), 30, "KCP's no-delay minimum");
        assert_eq!(fast.backed_off(60), 90);
        assert_eq!(fast.backed_off(1), 2, "always grows");
        assert_eq!(fast.backed_off(u32::MAX), LONGEST_TIMEOUT);
        assert_eq!(fast.backed_off(LONGEST_TIMEOUT), LONGEST_TIMEOUT);
        // Nothing in the first timeout wraps either.
        assert_eq!(stock.first_timeout(u32::MAX, u32::MAX), LONGEST_TIMEOUT);
        assert_eq!(stock.first_timeout(1, 0x4000_0000), LONGEST_TIMEOUT);
        let patient = LossRecovery {
            minimum_timeout: u32::MAX,
            ..LossRecovery::STOCK
        };
        assert_eq!(patient.first_timeout(40, 5), LONGEST_TIMEOUT);
        let odd = LossRecovery {
            backoff_percent: 10,
            ..LossRecovery::FAST
        }
        .sanitized();
        assert_eq!(odd.backoff_percent, 100);
        assert_eq!(odd.backed_off(50), 51);
    }

    #[test]
    fn the_bucket_paces_a_window_over_the_round_trip() {
        let mtu = 1400;
        let mut window = CongestionWindow::default();
        // A first pass may send half a window at once.
        assert_eq!(window.tokens(1000, 40, mtu), window.window / 2);
        window.spend(window.window / 2);
        assert_eq!(window.tokens(1000, 40, mtu), 0);
        // 1 ms later: 1.25 windows per 40 ms.
        let per_ms = window.window * 5 / 4 / 40;
        assert_eq!(window.tokens(1001, 40, mtu), per_ms);
        // A long pause fills it no further than half a window.
        assert_eq!(window.tokens(5000, 40, mtu), window.window / 2);
    }

    #[test]
    fn the_window_grows_without_loss_and_halves_once_per_loss_event() {
        let mtu = 1400;
        let mut window = CongestionWindow::default();
        let start = window.window;
        // A round trip's worth acknowledged: slow start doubles it.
        window.on_acknowledged(start, mtu);
        assert_eq!(window.window, 2 * start);
        window.on_loss(100, 200, mtu, 0);
        assert_eq!(window.window, start);
        // More losses from before the answer do not halve it again.
        window.on_loss(150, 210, mtu, 0);
        assert_eq!(window.window, start);
        // Congestion avoidance: one datagram per window acknowledged.
        window.on_acknowledged(start, mtu);
        assert_eq!(window.window, start + mtu);
        // A loss of something sent after the answer is a new event.
        window.on_loss(250, 300, mtu, 0);
        assert_eq!(window.window, (start + mtu) / 2);
        for _ in 0..40 {
            window.on_loss(window.recovery_until.unwrap(), 1000, mtu, 0);
        }
        assert_eq!(window.window, 4 * mtu, "never below four datagrams");
        // Nor below the floor (stock's window).
        window.on_acknowledged(1 << 20, mtu);
        window.on_loss(2000, 2000, mtu, 20_000);
        assert_eq!(window.window, 20_000);
    }

    #[test]
    fn a_peers_own_setting_lasts_until_forgotten_or_replaced() {
        let [first, second] = [0, 1].map(PeerIndex::for_tests);
        let mut table = RecoveryTable::default();
        assert_eq!(*table.of(first), LossRecovery::DEFAULT);
        table.set_host(LossRecovery::FAST);
        table.set_own(
            first,
            LossRecovery {
                backoff_percent: 20,
                ..LossRecovery::STOCK
            },
        );
        assert_eq!(table.of(first).backoff_percent, 100, "brought into range");
        assert_eq!(*table.of(second), LossRecovery::FAST);
        assert_eq!(*table.host(), LossRecovery::FAST);
        table.forget(first);
        assert_eq!(*table.of(first), LossRecovery::FAST);
        table.set_own(second, LossRecovery::STOCK);
        assert_eq!(*table.of(second), LossRecovery::STOCK);
        table.set_host(LossRecovery::DEFAULT);
        assert_eq!(*table.of(second), LossRecovery::DEFAULT, "replaced");
    }

    #[test]
    fn only_retransmitted_payload_makes_an_entry() {
        let [first, second] = [0, 1].map(PeerIndex::for_tests);
        let mut bytes = RetransmittedBytes::default();
        bytes.add(first, 0);
        assert!(bytes.0.is_empty(), "a CONNECT sent again carries none");
        bytes.add(first, 100);
        bytes.add(first, 20);
        bytes.add(second, u64::MAX);
        bytes.add(second, 1);
        assert_eq!((bytes.of(first), bytes.of(second)), (120, u64::MAX));
        bytes.clear(first);
        assert_eq!(bytes.of(first), 0);
        assert_eq!(bytes.0.len(), 1);
    }

    #[test]
    fn counts_report_their_total() {
        let mut counts = RecoveryCounts::default();
        counts.count(100, true);
        counts.count(20, false);
        counts.count(3, false);
        let stats = counts.stats();
        assert_eq!(stats.retransmitted_commands, 3);
        assert_eq!(stats.retransmitted_bytes, 123);
        assert_eq!(stats.fast_retransmits, 1);
        assert_eq!(stats.timeouts, 2);
    }

    #[test]
    fn counts_stop_at_their_largest_rather_than_wrap() {
        let mut counts = RecoveryCounts::default();
        counts.resends.timeouts = u32::MAX - 1;
        counts.count(1, false);
        counts.count(1, false);
        counts.count(1, true);
        let stats = counts.stats();
        assert_eq!(stats.timeouts, u64::from(u32::MAX));
        assert_eq!(stats.retransmitted_commands, u64::from(u32::MAX) + 1);
        assert_eq!(stats.retransmitted_bytes, 3);
        // Added to what a slot kept, they stop there too.
        let (resends, _) = counts.split();
        let mut kept = resends;
        kept.add(resends);
        assert_eq!(kept.timeouts, u32::MAX);
        assert_eq!(kept.fast_retransmits, 2);
    }
}
