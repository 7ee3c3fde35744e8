//! Path MTU discovery for one peer, in the spirit of RFC 8899
//! (datagram packetization-layer PMTU discovery): the largest ENet
//! datagram the path is known to carry, and the search for a larger one.
//!
//! ENet fixes a packet's fragments when it is queued, and a fragment cut
//! for a datagram the path drops never arrives. So a peer starts at a size
//! almost every path carries ([`BASE`]) and only ever grows its datagrams
//! after a probe of the larger size was acknowledged; losing datagrams is
//! never how it finds the limit. The search is a bisection between the
//! largest size acknowledged and the smallest size that failed, and starts
//! again, from the size it holds, every [`RESEARCH_AFTER`] ms and a while
//! after the size was lowered.
//!
//! Sizes are ENet datagram bytes as the datagram builder counts them (the
//! 4-byte header included, a checksum not), the unit of `peer->mtu`. On a
//! host whose datagrams grow on the way out (encryption's records), a
//! search starts that much below [`BASE`] ([`PathTable::base`]), so that
//! what the path carries is still a [`BASE`]-byte datagram. This
//! module decides; sending probes and reading acknowledgements is the
//! host's (`proto/host/path_mtu.rs`).

use std::collections::BTreeMap;

use super::peer_index::{PeerIndex, SlotVec};
use crate::time::time_less;

/// Where a peer's search starts: 1200 bytes of UDP payload, which fits an
/// IPv6 minimum link (1280) with its headers and most tunnels.
pub const BASE: u32 = 1200;
/// ENet's minimum MTU (every peer must take datagrams this large).
pub const FLOOR: u32 = 576;
/// Probes of one size that must go unanswered before the size counts as
/// too large (one lost probe may be ordinary loss).
const MAX_PROBES: u8 = 3;
/// The search stops when the sizes known to pass and to fail are this
/// close.
const GRANULARITY: u32 = 32;
/// How long a finished search rests before it tries the peer's MTU again
/// (ms): a path can change.
pub const RESEARCH_AFTER: u32 = 600_000;
/// How long after a lowering the search starts again (ms).
pub const RESEARCH_AFTER_LOWERING: u32 = 5_000;
/// The least time a probe is given to be acknowledged (ms).
const PROBE_TIMEOUT_MIN: u32 = 200;

/// Every peer's search, while a host discovers path MTUs (by slot; an
/// entry of an earlier connection in the slot is replaced when met).
pub struct PathTable {
    pub searches: BTreeMap<PeerIndex, PathSearch>,
    /// Where each search starts: [`BASE`] less what the host adds to each
    /// datagram on the way out, never below [`FLOOR`].
    base: u32,
    /// Each slot's connection id and path size, copied from its search
    /// ([`PathTable::sync`]) so that a send reads it with plain loads.
    sizes: SlotVec<(u32, u32)>,
    /// Bytes that fill probes: not compressible, so a compressing host's
    /// probes are as large on the wire as asked.
    pub padding: Vec<u8>,
}

impl PathTable {
    /// An empty table for a host of `peer_count` slots whose datagrams
    /// grow by `overhead` bytes on the way out, with padding for the
    /// largest datagram ENet sends.
    pub fn new(peer_count: usize, overhead: u32) -> PathTable {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let padding = (0..crate::abi::ENET_PROTOCOL_MAXIMUM_MTU)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 32) as u8
            })
            .collect();
        let base = base_for(overhead);
        PathTable {
            searches: BTreeMap::new(),
            base,
            sizes: SlotVec::filled(peer_count, (0, base)),
            padding,
        }
    }

    /// The path size of the connection `connect_id` in slot `index`:
    /// [`PathTable::base`] until its search started.
    #[inline]
    pub fn size(&self, index: PeerIndex, connect_id: u32) -> u32 {
        size_for(self.sizes[index], connect_id, self.base)
    }

    /// The path size of the connection `connect_id` in slot `index`, as
    /// [`PathTable::size`] (`None` for a slot the host does not have). It
    /// cannot panic, so where the caller drops it, it costs nothing.
    #[inline]
    pub fn slot_size(&self, index: PeerIndex, connect_id: u32) -> Option<u32> {
        let slot = *self.sizes.get(index)?;
        Some(size_for(slot, connect_id, self.base))
    }

    /// Where a search starts on this host: [`BASE`] less the host's
    /// datagram overhead.
    pub fn base(&self) -> u32 {
        self.base
    }

    /// The host's datagrams now grow by `overhead` bytes on the way out:
    /// searches started from now on start lower (or higher).
    pub fn set_overhead(&mut self, overhead: u32) {
        self.base = base_for(overhead);
    }

    /// Copies the size of the search in slot `index` to where
    /// [`PathTable::size`] reads it; call it after changing the search.
    pub fn sync(&mut self, index: PeerIndex) {
        if let Some(search) = self.searches.get(&index) {
            self.sizes[index] = (search.connect_id, search.size);
        }
    }

    /// The search of the connection `connect_id` in slot `index`, if one
    /// started.
    pub fn search(&self, index: PeerIndex, connect_id: u32) -> Option<&PathSearch> {
        self.searches
            .get(&index)
            .filter(|search| search.connect_id == connect_id)
    }
}

/// The path size a slot's `(connection id, size)` gives the connection
/// `connect_id`: its own, or `base` if it belongs to an earlier one.
#[inline]
fn size_for((id, size): (u32, u32), connect_id: u32, base: u32) -> u32 {
    if id == connect_id {
        size
    } else {
        base
    }
}

/// Where a search starts on a host whose datagrams grow by `overhead`
/// bytes on the way out.
fn base_for(overhead: u32) -> u32 {
    BASE.saturating_sub(overhead).max(FLOOR)
}

/// A probe in flight: its size and the sequence number of the PING it
/// carries on the connection channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub size: u32,
    pub sequence: u16,
    /// Service time after which it counts as lost.
    pub deadline: u32,
}

/// One peer's path size and search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathSearch {
    /// The connection it belongs to (`peer->connectID`): a slot reused for
    /// another connection starts a new search.
    pub connect_id: u32,
    /// The largest size acknowledged: what the peer's datagrams and new
    /// fragments are cut to.
    size: u32,
    /// The peer's MTU: never probed beyond.
    ceiling: u32,
    /// The smallest size that failed; `ceiling + 1` while none has.
    too_big: u32,
    /// Unanswered probes of the current candidate size.
    failures: u8,
    probe: Option<Probe>,
    /// No probe before this service time.
    rest_until: u32,
}

impl PathSearch {
    /// A search for a peer of MTU `mtu`, connected under `connect_id`,
    /// starting at `base` (or the MTU, if smaller) with a probe due at
    /// once.
    pub fn new(mtu: u32, connect_id: u32, now: u32, base: u32) -> PathSearch {
        let mtu = mtu.max(FLOOR);
        PathSearch {
            connect_id,
            size: base.min(mtu),
            ceiling: mtu,
            too_big: mtu + 1,
            failures: 0,
            probe: None,
            rest_until: now,
        }
    }

    /// The size the peer's datagrams and new fragments are cut to.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// The probe in flight, if any.
    #[cfg(test)]
    pub fn probe(&self) -> Option<Probe> {
        self.probe
    }

    /// When the search next has something to do: its probe's deadline, or
    /// the end of its rest; `None` once it holds the peer's MTU.
    pub fn next_wake(&self) -> Option<u32> {
        if let Some(probe) = self.probe {
            return Some(probe.deadline);
        }
        if self.too_big - self.size <= GRANULARITY && self.too_big > self.ceiling {
            return None;
        }
        Some(self.rest_until)
    }

    /// The size to probe now, if a probe is due at `now`: none while one
    /// is in flight or the search rests. A search that finished and rested
    /// long enough starts again with the ceiling.
    pub fn probe_due(&mut self, now: u32) -> Option<u32> {
        if self.probe.is_some() || time_less(now, self.rest_until) {
            return None;
        }
        if self.too_big - self.size <= GRANULARITY {
            // Done: rest, then look again from what the path carries now.
            if self.too_big <= self.ceiling {
                self.too_big = self.ceiling + 1;
                self.failures = 0;
                self.rest_until = now.wrapping_add(RESEARCH_AFTER);
                return None;
            }
            return None;
        }
        Some(if self.too_big > self.ceiling {
            // Most paths carry the peer's MTU: try it first.
            self.ceiling
        } else {
            self.size + (self.too_big - self.size) / 2
        })
    }

    /// A probe of `size`, carrying the PING numbered `sequence`, left at
    /// `now`; it is given `timeout` ms (at least [`PROBE_TIMEOUT_MIN`]).
    pub fn probe_sent(&mut self, size: u32, sequence: u16, now: u32, timeout: u32) {
        self.probe = Some(Probe {
            size,
            sequence,
            deadline: now.wrapping_add(timeout.max(PROBE_TIMEOUT_MIN)),
        });
    }

    /// The acknowledgement of the PING numbered `sequence` arrived: true if
    /// it was the probe's, whose size the path then carries.
    pub fn acknowledged(&mut self, sequence: u16) -> bool {
        match self.probe {
            Some(probe) if probe.sequence == sequence => {
                self.probe = None;
                self.failures = 0;
                if probe.size > self.size {
                    self.size = probe.size;
                }
                true
            }
            _ => false,
        }
    }

    /// Counts the probe in flight as lost if its time ran out by `now`:
    /// after [`MAX_PROBES`] of one size, that size is too large. True if it
    /// ran out.
    pub fn expire_probe(&mut self, now: u32) -> bool {
        let Some(probe) = self.probe else {
            return false;
        };
        if time_less(now, probe.deadline) {
            return false;
        }
        self.probe = None;
        self.failures += 1;
        if self.failures >= MAX_PROBES {
            self.failures = 0;
            self.too_big = self.too_big.min(probe.size);
        }
        true
    }

    /// The path no longer carries datagrams of `failed` bytes (the system
    /// refused one, or they vanish while small ones arrive): the size drops
    /// to `to` (at least [`FLOOR`]) if it was larger, any probe is
    /// forgotten, and the search starts again after
    /// [`RESEARCH_AFTER_LOWERING`]. True if the size dropped.
    pub fn lower(&mut self, failed: u32, to: u32, now: u32) -> bool {
        let to = to.max(FLOOR).min(self.ceiling);
        self.too_big = self.too_big.min(failed.max(to + 1));
        self.probe = None;
        self.failures = 0;
        self.rest_until = now.wrapping_add(RESEARCH_AFTER_LOWERING);
        if to < self.size {
            self.size = to;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::ENET_PROTOCOL_MAXIMUM_MTU;

    /// Runs the search against a path that carries `path` bytes, every
    /// probe answered or lost at once; returns the sizes probed.
    fn search(search: &mut PathSearch, path: u32, mut now: u32) -> (Vec<u32>, u32) {
        let mut probed = Vec::new();
        let mut sequence = 0u16;
        while let Some(size) = search.probe_due(now) {
            probed.push(size);
            sequence = sequence.wrapping_add(1);
            search.probe_sent(size, sequence, now, 0);
            if size <= path {
                assert!(search.acknowledged(sequence));
            } else {
                now = now.wrapping_add(PROBE_TIMEOUT_MIN);
                assert!(search.expire_probe(now));
            }
            assert!(probed.len() < 64, "the search ends");
        }
        (probed, now)
    }

    #[test]
    fn a_clean_path_takes_the_mtu_with_one_probe() {
        let mut s = PathSearch::new(1400, 7, 0, BASE);
        assert_eq!(s.size(), BASE);
        assert_eq!(s.next_wake(), Some(0));
        let (probed, _) = search(&mut s, 1400, 0);
        assert_eq!(probed, [1400]);
        assert_eq!(s.size(), 1400);
        assert_eq!(s.next_wake(), None, "nothing left to find");
    }

    #[test]
    fn a_black_hole_at_1252_is_found_by_bisection_without_going_over() {
        // 1280-byte IPv4 path: 1252 bytes of UDP payload.
        let mut s = PathSearch::new(1400, 7, 0, BASE);
        let (probed, _) = search(&mut s, 1252, 0);
        assert_eq!(&probed[..3], [1400, 1400, 1400], "three tries per size");
        assert!(
            s.size() <= 1252 && s.size() > 1252 - GRANULARITY,
            "{}",
            s.size()
        );
        assert!(probed.iter().filter(|&&size| size <= 1252).count() >= 1);
    }

    #[test]
    fn an_ordinary_loss_is_not_a_too_large_size() {
        let mut s = PathSearch::new(1400, 7, 0, BASE);
        let size = s.probe_due(0).unwrap();
        s.probe_sent(size, 1, 0, 50);
        assert_eq!(s.next_wake(), Some(200));
        assert!(!s.expire_probe(199), "not before its time");
        assert!(s.expire_probe(200));
        // The next probe is the same size, and it gets through.
        assert_eq!(s.probe_due(200), Some(1400));
        s.probe_sent(1400, 2, 200, 50);
        assert!(
            !s.acknowledged(1),
            "the lost probe's number no longer counts"
        );
        assert!(s.acknowledged(2));
        assert_eq!(s.size(), 1400);
    }

    #[test]
    fn a_finished_search_rests_then_tries_the_mtu_again() {
        let mut s = PathSearch::new(1400, 7, 0, BASE);
        let (_, now) = search(&mut s, 1252, 0);
        let found = s.size();
        assert_eq!(s.probe_due(now), None);
        assert_eq!(s.next_wake(), Some(now + RESEARCH_AFTER));
        assert_eq!(s.probe_due(now + RESEARCH_AFTER - 1), None);
        let later = now + RESEARCH_AFTER;
        // The path grew meanwhile.
        let (probed, _) = search(&mut s, 1400, later);
        assert_eq!(probed, [1400]);
        assert!(s.size() > found);
    }

    #[test]
    fn lowering_drops_the_size_and_searches_again_later() {
        let mut s = PathSearch::new(1400, 7, 0, BASE);
        search(&mut s, 1400, 0);
        s.probe_sent(1400, 9, 10, 0);
        assert!(s.lower(1400, BASE, 10));
        assert_eq!(s.size(), BASE);
        assert_eq!(s.probe(), None, "a probe in flight is forgotten");
        assert!(!s.acknowledged(9));
        assert_eq!(s.probe_due(10 + RESEARCH_AFTER_LOWERING - 1), None);
        let (probed, _) = search(&mut s, 1300, 10 + RESEARCH_AFTER_LOWERING);
        assert!(probed.iter().all(|&size| size < 1400), "{probed:?}");
        assert!(s.size() <= 1300 && s.size() > 1300 - GRANULARITY);
        // Never below ENet's minimum, nor raised by a lowering.
        assert!(s.lower(600, 100, 0));
        assert_eq!(s.size(), FLOOR);
        assert!(!s.lower(2000, 1000, 0));
    }

    #[test]
    fn the_table_gives_each_connection_its_own_size() {
        let mut table = PathTable::new(2, 0);
        let slot = PeerIndex::for_tests(1);
        assert_eq!(table.size(slot, 7), BASE, "no search yet");
        let mut search = PathSearch::new(1400, 7, 0, BASE);
        search.probe_sent(1400, 1, 0, 0);
        assert!(search.acknowledged(1));
        table.searches.insert(slot, search);
        assert_eq!(table.size(slot, 7), BASE, "not copied before sync");
        table.sync(slot);
        assert_eq!(table.size(slot, 7), 1400);
        assert_eq!(table.size(slot, 8), BASE, "another connection in the slot");
        assert_eq!(table.size(PeerIndex::for_tests(0), 7), BASE);
        assert_eq!(table.padding.len(), ENET_PROTOCOL_MAXIMUM_MTU as usize);
    }

    #[test]
    fn a_host_with_an_overhead_starts_its_searches_that_much_lower() {
        let mut table = PathTable::new(1, 37);
        let slot = PeerIndex::for_tests(0);
        assert_eq!(table.base(), BASE - 37);
        assert_eq!(table.size(slot, 7), BASE - 37, "no search yet");
        table.set_overhead(0);
        assert_eq!(table.base(), BASE);
        table.set_overhead(1000);
        assert_eq!(table.base(), FLOOR, "never below ENet's minimum");
    }

    #[test]
    fn a_small_mtu_starts_and_stays_at_it() {
        let mut s = PathSearch::new(1000, 7, 0, BASE);
        assert_eq!(s.size(), 1000);
        assert_eq!(s.probe_due(0), None);
        let s = PathSearch::new(100, 7, 0, BASE);
        assert_eq!(s.size(), FLOOR);
    }
}
