//! A peer's slot in the host's peer array (`host->peers`), as a type of its
//! own so that a slot number cannot be mixed up with a channel, a count or
//! a byte length.
//!
//! It holds a `usize`, as the slot numbers it replaces did: a `u32` would
//! halve the ready list and the dispatch queue (hosts have at most
//! `ENET_PROTOCOL_MAXIMUM_PEER_ID`, 0xFFF, slots), but every function
//! indexing a peer array with one then widens it first, which costs the
//! send and receive paths about 1% more instructions (bench/callgrind.sh).
//! Those lists hold one entry per peer at most, so the memory is small
//! either way. The lists that hold more (the timer heap, the half-open
//! queue) keep a [`SlotEntry`]: a value and the slot in 8 bytes.
//!
//! An index comes only from where slots are known to exist: a per-slot
//! table ([`SlotVec`]), a host's own enumeration, or a number checked
//! against the host's peer count ([`PeerIndex::checked`],
//! [`PeerIndex::from_peer_id`]). So an index in hand names a real slot of
//! the host it came from.

use crate::abi::ENET_PROTOCOL_MAXIMUM_PEER_ID;

/// The slot of a peer in its host.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct PeerIndex(usize);

impl PeerIndex {
    /// The slot numbered `slot`, unchecked: only for this module's
    /// constructors, which know the slot exists.
    const fn new(slot: usize) -> PeerIndex {
        PeerIndex(slot)
    }

    /// The slot numbered `slot`, for unit tests that make a host of a
    /// known size.
    #[cfg(test)]
    pub(crate) const fn for_tests(slot: usize) -> PeerIndex {
        PeerIndex(slot)
    }

    /// The slot numbered `slot`, if a host with `peer_count` slots has it.
    pub fn checked(slot: usize, peer_count: usize) -> Option<PeerIndex> {
        (slot < peer_count).then_some(PeerIndex(slot))
    }

    /// The slot a peer id from the wire or from an `ENetPeer` field
    /// (`incomingPeerID`, `outgoingPeerID`) names, if a host with
    /// `peer_count` slots has it. The "no peer" id (0xFFF) is never a slot:
    /// a host has at most 0xFFF slots, numbered from 0.
    pub fn from_peer_id(id: u16, peer_count: usize) -> Option<PeerIndex> {
        PeerIndex::checked(usize::from(id), peer_count)
    }

    /// The slot number, for indexing per-slot tables.
    pub const fn get(self) -> usize {
        self.0
    }

    /// The slot number as a `u32` (what peer handles carry); fits because
    /// hosts have at most 0xFFF slots.
    pub const fn as_u32(self) -> u32 {
        self.0 as u32
    }

    /// The slot as the peer id written into `incomingPeerID`; fits because
    /// hosts have at most 0xFFF slots.
    pub const fn peer_id(self) -> u16 {
        self.0 as u16
    }

    /// Every slot of a host with `peer_count` slots, in order.
    pub(in crate::proto) fn all(
        peer_count: usize,
    ) -> impl DoubleEndedIterator<Item = PeerIndex> + Clone {
        (0..peer_count).map(PeerIndex::new)
    }
}

/// Bits of a [`SlotEntry`] that hold the slot: enough for every slot
/// number below `ENET_PROTOCOL_MAXIMUM_PEER_ID`, a host's most slots.
const SLOT_BITS: u32 = u32::BITS - ENET_PROTOCOL_MAXIMUM_PEER_ID.leading_zeros();

/// A value and a slot in one `u64`, the value above the slot, so entries
/// order by value, then by slot, and a list holding one per peer (the
/// schedule's timer heap, the half-open queue) takes 8 bytes an entry
/// rather than 16. Values must stay below 2^52: the values kept this way
/// (extended milliseconds, a count of connects) stay far below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct SlotEntry(u64);

impl SlotEntry {
    pub fn new(value: u64, slot: PeerIndex) -> SlotEntry {
        debug_assert!(slot.0 < 1 << SLOT_BITS && value < 1 << (u64::BITS - SLOT_BITS));
        SlotEntry(value << SLOT_BITS | slot.0 as u64)
    }

    pub fn value(self) -> u64 {
        self.0 >> SLOT_BITS
    }

    pub fn slot(self) -> PeerIndex {
        PeerIndex((self.0 & ((1 << SLOT_BITS) - 1)) as usize)
    }
}

/// The slot number, as logs and assertion messages show it.
impl core::fmt::Display for PeerIndex {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.0.fmt(f)
    }
}

/// A table with one `T` per peer slot, indexed by [`PeerIndex`] only.
///
/// The engine's per-slot state lives in these rather than in bare `Vec`s,
/// so that a slot number, a channel number and a count cannot be mixed up
/// when one is used to index, and so that the indices a loop visits come
/// from the table itself.
#[derive(Debug, Clone, Default)]
pub(crate) struct SlotVec<T> {
    items: Vec<T>,
}

impl<T> SlotVec<T> {
    /// `peer_count` slots, each made by `make` from its index.
    pub(crate) fn from_fn(peer_count: usize, make: impl FnMut(PeerIndex) -> T) -> SlotVec<T> {
        SlotVec {
            items: PeerIndex::all(peer_count).map(make).collect(),
        }
    }

    /// `peer_count` slots, each holding `value`. For a zero `value` of a
    /// plain type this is one zeroed allocation, as `vec![0; n]` is.
    pub(crate) fn filled(peer_count: usize, value: T) -> SlotVec<T>
    where
        T: Clone,
    {
        SlotVec {
            items: vec![value; peer_count],
        }
    }

    /// How many slots the table has.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Every slot's index, in order.
    pub(crate) fn indices(&self) -> impl DoubleEndedIterator<Item = PeerIndex> + Clone {
        PeerIndex::all(self.items.len())
    }

    /// The value of slot `index`, if the table has that slot.
    #[inline]
    pub(crate) fn get(&self, index: PeerIndex) -> Option<&T> {
        self.items.get(index.0)
    }

    /// The value of slot `index`, if the table has that slot.
    #[inline]
    pub(crate) fn get_mut(&mut self, index: PeerIndex) -> Option<&mut T> {
        self.items.get_mut(index.0)
    }

    /// Every slot's index with its value, in order.
    pub(crate) fn iter_enumerated(&self) -> impl Iterator<Item = (PeerIndex, &T)> {
        self.items
            .iter()
            .enumerate()
            .map(|(slot, item)| (PeerIndex::new(slot), item))
    }
}

impl<T> core::ops::Index<PeerIndex> for SlotVec<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, index: PeerIndex) -> &T {
        &self.items[index.0]
    }
}

impl<T> core::ops::IndexMut<PeerIndex> for SlotVec<T> {
    #[inline(always)]
    fn index_mut(&mut self, index: PeerIndex) -> &mut T {
        &mut self.items[index.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peer_ids_beyond_the_host_name_no_slot() {
        assert_eq!(PeerIndex::from_peer_id(0, 1), Some(PeerIndex::for_tests(0)));
        assert_eq!(PeerIndex::from_peer_id(1, 1), None);
        assert_eq!(PeerIndex::from_peer_id(0xFFF, 0xFFF), None);
        assert_eq!(
            PeerIndex::from_peer_id(0xFFE, 0xFFF).map(PeerIndex::get),
            Some(0xFFE)
        );
    }

    #[test]
    fn all_counts_every_slot_in_order() {
        let slots: Vec<usize> = PeerIndex::all(3).map(PeerIndex::get).collect();
        assert_eq!(slots, [0, 1, 2]);
    }

    #[test]
    fn a_filled_table_has_one_value_per_slot() {
        let mut table = SlotVec::filled(3, 7u8);
        assert_eq!(table.len(), 3);
        table[PeerIndex::for_tests(1)] = 9;
        let values: Vec<u8> = table.iter_enumerated().map(|(_, &value)| value).collect();
        assert_eq!(values, [7, 9, 7]);
        assert_eq!(table.get_mut(PeerIndex::for_tests(3)), None);
        assert_eq!(SlotVec::<u32>::filled(0, 0).len(), 0);
    }

    #[test]
    fn slot_entries_order_by_value_then_slot() {
        let last = PeerIndex::for_tests(ENET_PROTOCOL_MAXIMUM_PEER_ID as usize - 1);
        let far = 1u64 << 50;
        let entries = [
            SlotEntry::new(far, PeerIndex::for_tests(0)),
            SlotEntry::new(1 << 32, last),
            SlotEntry::new(far, last),
            SlotEntry::new(1 << 32, PeerIndex::for_tests(3)),
        ];
        for entry in entries {
            assert_eq!(SlotEntry::new(entry.value(), entry.slot()), entry);
        }
        let mut sorted = entries;
        sorted.sort();
        let order: Vec<_> = sorted.iter().map(|e| (e.value(), e.slot())).collect();
        assert_eq!(
            order,
            [
                (1 << 32, PeerIndex::for_tests(3)),
                (1 << 32, last),
                (far, PeerIndex::for_tests(0)),
                (far, last)
            ]
        );
        assert_eq!(core::mem::size_of::<SlotEntry>(), 8);
    }
}
