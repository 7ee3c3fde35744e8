//! Reassembly of fragmented packets, and the host-wide budget all
//! incomplete reassemblies share.
//!
//! Stock ENet allocates the whole `totalLength` a first fragment claims, so
//! a peer that never completes its packets pins that much memory per
//! packet, and many peers together pin many times `maximumWaitingData`.
//! Here a reassembly holds only the fragments that arrived until half the
//! claimed length has; only then is the packet itself allocated, and the
//! fragments are written straight into it (each byte copied once, never
//! zero-filled). Memory thus stays within twice the bytes received,
//! whatever length is claimed, and every incomplete reassembly of every
//! peer is charged to one [`Budget`]. A fragment that would take
//! the budget over its limit first evicts the stalest reassembly: the one
//! whose last fragment arrived longest ago.
//!
//! Holding fragments apart costs an allocation and a second copy for each
//! one of the first half. A packet of at most [`DIRECT_TOTAL`] bytes skips
//! that while the budget is at most half used: its packet is allocated at
//! the first fragment and filled in place. Such a claim pins little, and a
//! flood of them only fills the budget's first half, after which new
//! reassemblies hold fragments apart again and eviction works as before.

use super::channel_id::ChannelId;
use super::sequence::{ReliableSequence, UnreliableSequence};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use super::peer_index::PeerIndex;
use crate::mem::{ChunkedPacket, PacketFlags, PacketRef};

/// The budget when nothing else is asked for: enough for a legit packet of
/// `maximumPacketSize` (32 MiB by default) to complete while others wait.
pub const DEFAULT_BUDGET: usize = 64 << 20;

/// The largest packet whose reassembly may allocate it at the first
/// fragment (see the module's notes).
pub const DIRECT_TOTAL: usize = 64 << 10;

/// What one received fragment costs besides its bytes: its map entry and
/// the allocation holding it.
const FRAGMENT_COST: usize = 64;

/// What a reassembly costs before any fragment: itself and its age entry.
const REASSEMBLY_COST: usize = core::mem::size_of::<Reassembly>() + 64;

/// Where an incomplete reassembly is held, so the host can find and evict
/// it: the peer's slot, the channel, and its key in that channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Locator {
    pub peer: PeerIndex,
    pub channel: ChannelId,
    pub key: HeldKey,
}

/// A held fragmented packet's key inside its channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeldKey {
    /// By its first fragment's reliable sequence number.
    Reliable { start: ReliableSequence },
    /// By the reliable number it follows and its first fragment's
    /// unreliable sequence number.
    Unreliable {
        sequence: ReliableSequence,
        start: UnreliableSequence,
    },
}

/// The bytes all incomplete reassemblies hold, and their order of age.
#[derive(Debug, Default)]
struct Ledger {
    held: usize,
    last_tick: u64,
    /// Each live reassembly under the tick of its latest fragment.
    by_age: BTreeMap<u64, Locator>,
}

impl Ledger {
    fn retick(&mut self, old: Option<u64>, locator: Locator) -> u64 {
        if let Some(old) = old {
            self.by_age.remove(&old);
        }
        self.last_tick += 1;
        self.by_age.insert(self.last_tick, locator);
        self.last_tick
    }
}

/// The host-wide reassembly budget. Reassemblies keep a handle to it and
/// give back what they hold when dropped, on every path (completion, drop,
/// peer reset, host destruction), so the count is exact by construction.
#[derive(Debug, Default)]
pub struct Budget {
    ledger: Rc<RefCell<Ledger>>,
    /// A fixed limit (`ENET_RS_REASSEMBLY_BUDGET`), or `None` for the
    /// default, which follows `maximumPacketSize`.
    fixed_limit: Option<usize>,
}

impl Budget {
    /// Bytes currently held by incomplete reassemblies.
    pub fn held(&self) -> usize {
        self.ledger.borrow().held
    }

    /// Incomplete reassemblies alive.
    pub fn reassemblies(&self) -> usize {
        self.ledger.borrow().by_age.len()
    }

    pub fn set_fixed_limit(&mut self, limit: Option<usize>) {
        self.fixed_limit = limit;
    }

    /// The limit for a host whose `maximumPacketSize` is as given: the
    /// fixed one, or the larger of [`DEFAULT_BUDGET`] and twice the largest
    /// packet (read at each check, as programs may change that field).
    pub fn limit(&self, maximum_packet_size: usize) -> usize {
        self.fixed_limit
            .unwrap_or_else(|| DEFAULT_BUDGET.max(maximum_packet_size.saturating_mul(2)))
    }

    /// Whether `cost` more bytes fit under `limit`.
    pub(crate) fn fits(&self, cost: usize, limit: usize) -> bool {
        self.held().saturating_add(cost) <= limit
    }

    /// The stalest reassembly other than `except`.
    pub(crate) fn stalest_except(&self, except: Locator) -> Option<Locator> {
        self.ledger
            .borrow()
            .by_age
            .values()
            .copied()
            .find(|&locator| locator != except)
    }

    /// What a new reassembly and its first fragment of `length` cost.
    pub(crate) fn first_fragment_cost(length: usize) -> usize {
        REASSEMBLY_COST + Reassembly::fragment_cost(length)
    }

    /// Whether a packet of `total` bytes in `count` fragments may be
    /// allocated at its first fragment: it is small, and with it the
    /// budget stays within half of `limit`.
    pub(crate) fn allows_direct(&self, count: u32, total: u32, limit: usize) -> bool {
        let total = total as usize;
        total <= DIRECT_TOTAL
            && self.fits(
                REASSEMBLY_COST + total + ChunkedPacket::bookkeeping(count as usize),
                limit / 2,
            )
    }
}

/// Why a fragment was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FragmentError {
    /// Fields contradict each other or the packet's layout.
    Malformed,
}

/// One fragmented packet being reassembled.
///
/// Stock ENet counts fragments and delivers when the count is reached,
/// whatever bytes the fragments covered, so zero-length or short fragments
/// let it deliver bytes nobody sent. Here every fragment must sit where
/// ENet's sender puts it (fragment `n` at `n * L`, all of length `L` but
/// the last), so a complete set covers every byte exactly once.
#[derive(Debug)]
pub struct Reassembly {
    count: u32,
    total: u32,
    /// The common fragment length `L`, once a fragment has shown it.
    fragment_length: Option<u32>,
    /// The fragments received, by number, until half the packet arrived.
    fragments: BTreeMap<u32, Box<[u8]>>,
    /// Bytes in `fragments`.
    received: usize,
    /// The packet being filled, once half of it arrived (or from the
    /// first fragment, if `direct`).
    packet: Option<ChunkedPacket>,
    /// Whether the packet is allocated at the first fragment.
    direct: bool,
    /// Bytes charged to the budget.
    charged: usize,
    /// This reassembly's entry in the budget's age order.
    tick: u64,
    ledger: Rc<RefCell<Ledger>>,
}

impl Reassembly {
    pub(crate) fn new(budget: &Budget, locator: Locator, count: u32, total: u32) -> Self {
        let mut ledger = budget.ledger.borrow_mut();
        ledger.held += REASSEMBLY_COST;
        let tick = ledger.retick(None, locator);
        Reassembly {
            count,
            total,
            fragment_length: None,
            fragments: BTreeMap::new(),
            received: 0,
            packet: None,
            direct: false,
            charged: REASSEMBLY_COST,
            tick,
            ledger: Rc::clone(&budget.ledger),
        }
    }

    /// Allocates the packet at the first fragment instead of holding the
    /// fragments of its first half apart (see [`Budget::allows_direct`]).
    pub(crate) fn fill_directly(&mut self) {
        self.direct = true;
    }

    pub fn count(&self) -> u32 {
        self.count
    }

    pub fn total(&self) -> u32 {
        self.total
    }

    pub fn is_complete(&self) -> bool {
        match &self.packet {
            Some(packet) => packet.is_full(),
            None => self.fragments.len() as u64 == u64::from(self.count),
        }
    }

    /// Bytes this reassembly holds against the budget.
    pub fn charged(&self) -> usize {
        self.charged
    }

    /// What holding one more fragment of `length` bytes costs.
    pub(crate) fn fragment_cost(length: usize) -> usize {
        length + FRAGMENT_COST
    }

    /// Whether `received` bytes are enough to allocate the packet.
    fn half_arrived(&self, received: usize) -> bool {
        self.direct || received.saturating_mul(2) >= self.total as usize
    }

    /// What the reassembly holds once its packet is allocated.
    /// Saturating: on a 32-bit target a total near 4 GiB (a program may
    /// raise `maximumPacketSize` that far) would wrap the sum.
    fn filling_cost(&self) -> usize {
        REASSEMBLY_COST
            .saturating_add(self.total as usize)
            .saturating_add(ChunkedPacket::bookkeeping(self.count as usize))
    }

    /// What accepting a new fragment of `length` bytes adds to the budget:
    /// its bytes, or, when it completes the first half, the whole packet
    /// less the fragments it replaces.
    pub(crate) fn cost_of_accepting(&self, length: usize) -> usize {
        if self.packet.is_some() {
            0
        } else if self.half_arrived(self.received.saturating_add(length)) {
            self.filling_cost().saturating_sub(self.charged)
        } else {
            Self::fragment_cost(length)
        }
    }

    /// Whether fragment `number` already arrived.
    pub fn has(&self, number: u32) -> bool {
        match &self.packet {
            Some(packet) => packet.has(number as usize),
            None => self.fragments.contains_key(&number),
        }
    }

    /// The fragment length this fragment implies for the whole packet.
    fn implied_length(&self, number: u32, offset: u32, length: u32) -> Option<u32> {
        if self.count == 1 {
            return (offset == 0).then_some(length);
        }
        if number + 1 < self.count {
            return (u64::from(offset) == u64::from(number) * u64::from(length)).then_some(length);
        }
        let others = self.count - 1;
        (offset % others == 0).then_some(offset / others)
    }

    /// Checks fragment `number` against the layout; the fragment length
    /// `L` it implies.
    pub fn check(&self, number: u32, offset: u32, length: u32) -> Result<u32, FragmentError> {
        let implied = self
            .implied_length(number, offset, length)
            .ok_or(FragmentError::Malformed)?;
        let full = u64::from(implied);
        let last_start = u64::from(self.count - 1) * full;
        let last_length = u64::from(self.total)
            .checked_sub(last_start)
            .ok_or(FragmentError::Malformed)?;
        let layout_ok = number < self.count
            && implied > 0
            && last_length > 0
            && last_length <= full
            && (number + 1 < self.count || u64::from(length) == last_length)
            && self.fragment_length.is_none_or(|known| known == implied);
        if layout_ok {
            Ok(implied)
        } else {
            Err(FragmentError::Malformed)
        }
    }

    /// Checks fragment `number` and keeps its bytes. `Ok(true)` if it is
    /// new, `Ok(false)` if a duplicate (nothing is kept).
    pub fn accept(&mut self, number: u32, offset: u32, data: &[u8]) -> Result<bool, FragmentError> {
        let length = u32::try_from(data.len()).map_err(|_| FragmentError::Malformed)?;
        let implied = self.check(number, offset, length)?;
        if self.has(number) {
            return Ok(false);
        }
        self.keep(number, implied, data)?;
        Ok(true)
    }

    /// Keeps the bytes of fragment `number`, which [`Reassembly::check`]
    /// found to imply the fragment length `implied` and which did not
    /// arrive yet.
    pub(crate) fn keep(
        &mut self,
        number: u32,
        implied: u32,
        data: &[u8],
    ) -> Result<(), FragmentError> {
        self.fragment_length = Some(implied);
        if self.direct && self.packet.is_none() && self.fragments.is_empty() {
            self.start_packet(implied as usize);
        }
        if let Some(packet) = &mut self.packet {
            if !packet.write(number as usize, data) {
                return Err(FragmentError::Malformed);
            }
        } else {
            self.fragments.insert(number, data.into());
            self.received += data.len();
            self.recharge(self.charged + Self::fragment_cost(data.len()));
            if self.half_arrived(self.received) {
                self.start_packet(implied as usize);
            }
        }
        let mut ledger = self.ledger.borrow_mut();
        // Already the newest (one packet arriving at a time, the usual
        // case): moving it to the end of the age order would change nothing.
        if self.tick != ledger.last_tick {
            let locator = ledger.by_age.get(&self.tick).copied();
            if let Some(locator) = locator {
                self.tick = ledger.retick(Some(self.tick), locator);
            }
        }
        Ok(())
    }

    /// Charges `charged` bytes to the budget in place of what was.
    fn recharge(&mut self, charged: usize) {
        let mut ledger = self.ledger.borrow_mut();
        ledger.held = ledger.held - self.charged + charged;
        self.charged = charged;
    }

    /// Allocates the packet and moves the fragments held so far into it.
    /// If memory is short the fragments stay where they are.
    fn start_packet(&mut self, fragment_length: usize) {
        let Some(mut packet) =
            ChunkedPacket::new(self.total as usize, fragment_length, PacketFlags::NONE)
        else {
            return;
        };
        for (&number, bytes) in &self.fragments {
            // Each was checked against this layout when it arrived.
            let written = packet.write(number as usize, bytes);
            debug_assert!(written);
        }
        self.fragments.clear();
        self.received = 0;
        self.packet = Some(packet);
        self.recharge(self.filling_cost());
    }

    /// The complete packet with `flags`. `None` if memory is short (or,
    /// never for a complete set, if the fragments do not fill `total`
    /// bytes exactly).
    pub fn assemble(mut self, flags: PacketFlags) -> Option<PacketRef> {
        if let Some(packet) = self.packet.take() {
            return packet.finish(flags);
        }
        let parts = self.fragments.values().map(|fragment| &fragment[..]);
        PacketRef::new_from_parts(self.total as usize, flags, parts)
    }
}

impl Drop for Reassembly {
    fn drop(&mut self) {
        let mut ledger = self.ledger.borrow_mut();
        ledger.held -= self.charged;
        ledger.by_age.remove(&self.tick);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locator(start: u16) -> Locator {
        Locator {
            peer: PeerIndex::for_tests(0),
            channel: ChannelId::from(0),
            key: HeldKey::Reliable {
                start: ReliableSequence::new(start),
            },
        }
    }

    #[test]
    fn accepts_stock_layout_only() {
        let budget = Budget::default();
        // 3000 bytes in fragments of 1372: 1372, 1372, 256.
        let mut r = Reassembly::new(&budget, locator(1), 3, 3000);
        assert_eq!(r.accept(1, 1372, &[1; 1372]), Ok(true));
        assert_eq!(r.accept(1, 1372, &[1; 1372]), Ok(false));
        assert_eq!(r.accept(2, 2744, &[2; 255]), Err(FragmentError::Malformed));
        assert_eq!(r.accept(2, 2744, &[2; 256]), Ok(true));
        assert!(!r.is_complete());
        assert_eq!(r.accept(0, 0, &[0; 1372]), Ok(true));
        assert!(r.is_complete());
        let packet = r.assemble(PacketFlags::NONE).unwrap();
        assert_eq!(packet.len(), 3000);
        assert!(packet.data()[..1372].iter().all(|&b| b == 0));
        assert!(packet.data()[1372..2744].iter().all(|&b| b == 1));
        assert!(packet.data()[2744..].iter().all(|&b| b == 2));
        packet.release();
        assert_eq!(budget.held(), 0);
        assert_eq!(budget.reassemblies(), 0);
    }

    #[test]
    fn the_packet_is_allocated_once_half_arrived_and_filled_in_place() {
        let budget = Budget::default();
        // 10 fragments of 100 bytes: the packet is allocated at the 5th.
        let mut r = Reassembly::new(&budget, locator(1), 10, 1000);
        for number in [9u32, 0, 4, 7] {
            assert_eq!(
                r.accept(number, number * 100, &[number as u8; 100]),
                Ok(true)
            );
            assert!(r.packet.is_none());
        }
        assert_eq!(r.charged(), REASSEMBLY_COST + 4 * (100 + FRAGMENT_COST));
        assert_eq!(r.cost_of_accepting(100), r.filling_cost() - r.charged());
        assert_eq!(r.accept(2, 200, &[2; 100]), Ok(true));
        assert!(r.packet.is_some() && r.fragments.is_empty());
        assert_eq!(r.charged(), REASSEMBLY_COST + 1000 + 8);
        assert_eq!(budget.held(), r.charged());
        assert_eq!(r.cost_of_accepting(100), 0);
        assert_eq!(r.accept(2, 200, &[2; 100]), Ok(false), "a duplicate");
        assert_eq!(r.accept(3, 300, &[3; 99]), Err(FragmentError::Malformed));
        for number in [1u32, 3, 5, 6, 8] {
            assert!(!r.is_complete());
            assert_eq!(
                r.accept(number, number * 100, &[number as u8; 100]),
                Ok(true)
            );
        }
        assert!(r.is_complete());
        let packet = r.assemble(PacketFlags::from_bits_retain(7)).unwrap();
        assert_eq!(packet.flags().bits(), 7);
        for (number, chunk) in packet.data().chunks(100).enumerate() {
            assert!(chunk.iter().all(|&byte| byte == number as u8));
        }
        packet.release();
        assert_eq!(budget.held(), 0);
    }

    #[test]
    fn the_cost_of_a_4_gib_packet_saturates_instead_of_wrapping() {
        // On 32-bit targets the budget's sums would wrap past usize::MAX;
        // the largest total a header can claim must cost at least itself.
        let budget = Budget::default();
        let mut r = Reassembly::new(&budget, locator(1), u32::MAX, u32::MAX);
        assert!(r.cost_of_accepting(4096) >= 4096);
        r.fill_directly();
        assert!(r.cost_of_accepting(4096) >= u32::MAX as usize - REASSEMBLY_COST);
    }

    #[test]
    fn rejects_zero_length_overlap_and_short_totals() {
        let budget = Budget::default();
        let mut zero = Reassembly::new(&budget, locator(1), 2, 10);
        assert!(zero.accept(0, 0, &[]).is_err());
        let mut overlap = Reassembly::new(&budget, locator(2), 2, 10);
        assert!(overlap.accept(1, 3, &[0; 7]).is_err());
        let mut too_short = Reassembly::new(&budget, locator(3), 4, 3);
        assert!(too_short.accept(0, 0, &[0; 1]).is_err());
        let mut out_of_range = Reassembly::new(&budget, locator(4), 2, 10);
        assert!(out_of_range.accept(2, 10, &[0; 5]).is_err());
    }

    #[test]
    fn memory_follows_the_bytes_received_not_the_claim() {
        let budget = Budget::default();
        // A claim of 32 MiB in 1M fragments of 32 bytes; three arrive.
        let mut r = Reassembly::new(&budget, locator(1), 1 << 20, 32 << 20);
        for number in [0u32, 500_000, 1_000_000] {
            assert_eq!(r.accept(number, number * 32, &[7; 32]), Ok(true));
        }
        assert_eq!(budget.held(), REASSEMBLY_COST + 3 * (32 + FRAGMENT_COST));
        assert_eq!(r.charged(), budget.held());
        drop(r);
        assert_eq!(budget.held(), 0);
    }

    #[test]
    fn age_order_follows_the_latest_fragment() {
        let budget = Budget::default();
        let mut a = Reassembly::new(&budget, locator(1), 4, 40);
        let b = Reassembly::new(&budget, locator(2), 4, 40);
        assert_eq!(budget.stalest_except(locator(9)), Some(locator(1)));
        a.accept(0, 0, &[0; 10]).unwrap();
        assert_eq!(budget.stalest_except(locator(9)), Some(locator(2)));
        assert_eq!(budget.stalest_except(locator(2)), Some(locator(1)));
        drop(b);
        assert_eq!(budget.stalest_except(locator(1)), None);
    }

    #[test]
    fn a_direct_reassembly_fills_its_packet_from_the_first_fragment() {
        let budget = Budget::default();
        let limit = budget.limit(0);
        assert!(budget.allows_direct(3, 3000, limit));
        assert!(!budget.allows_direct(100, DIRECT_TOTAL as u32 + 1, limit));
        assert!(!budget.allows_direct(3, 3000, 2 * REASSEMBLY_COST + 3000));
        let mut r = Reassembly::new(&budget, locator(1), 3, 3000);
        r.fill_directly();
        assert_eq!(r.cost_of_accepting(1372), r.filling_cost() - r.charged());
        assert_eq!(r.accept(2, 2744, &[2; 256]), Ok(true));
        assert!(r.packet.is_some() && r.fragments.is_empty());
        assert_eq!(r.charged(), r.filling_cost());
        assert_eq!(budget.held(), r.charged());
        assert_eq!(r.accept(2, 2744, &[2; 256]), Ok(false), "a duplicate");
        assert_eq!(r.accept(1, 1372, &[1; 1372]), Ok(true));
        assert!(!r.is_complete());
        assert_eq!(r.accept(0, 0, &[0; 1372]), Ok(true));
        let packet = r.assemble(PacketFlags::NONE).unwrap();
        assert!(packet.data()[..1372].iter().all(|&b| b == 0));
        assert!(packet.data()[2744..].iter().all(|&b| b == 2));
        packet.release();
        assert_eq!(budget.held(), 0);
    }

    #[test]
    fn the_default_limit_follows_the_largest_packet() {
        let mut budget = Budget::default();
        assert_eq!(budget.limit(32 << 20), 64 << 20);
        assert_eq!(budget.limit(100 << 20), 200 << 20);
        budget.set_fixed_limit(Some(1000));
        assert_eq!(budget.limit(32 << 20), 1000);
    }
}
