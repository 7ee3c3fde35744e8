//! Half-open connections in arrival order, so that a CONNECT finding every
//! peer slot taken can take the slot of the oldest one.
//!
//! A half-open peer is one an incoming CONNECT created and that still waits
//! for the acknowledgement of our VERIFY_CONNECT (state
//! ACKNOWLEDGING_CONNECT): the program has never seen it. Spoofed CONNECTs
//! never complete, and stock ENet keeps each for about 30 s, so a flood
//! holds every slot and legit clients are refused. Evicting the oldest
//! half-open peer instead bounds that: a legit handshake only has to finish
//! before `peerCount` newer CONNECTs arrive.
//!
//! The order is a FIFO of (slot, ticket). A slot's current ticket is the
//! one it got when its latest CONNECT was admitted; an entry whose ticket is
//! no longer current, or whose peer has left ACKNOWLEDGING_CONNECT (it
//! connected, timed out, was reset by the program), is stale and skipped
//! when it reaches the front. Stale entries are compacted away once they
//! outnumber the slots, so each CONNECT costs O(1) amortised.

use std::collections::VecDeque;

use super::peer_index::{PeerIndex, SlotEntry, SlotVec};
use super::scratch;

#[derive(Debug)]
pub(crate) struct HalfOpen {
    /// Each admission's ticket over its slot, oldest first.
    queue: VecDeque<SlotEntry>,
    /// Each slot's current ticket; 0 = none. A ticket only tells an entry
    /// from its slot's later ones (the queue's order is the age), so
    /// tickets wrap at 2^32, skipping 0. A ticket comes round again only
    /// after 2^32 - 1 admissions, and no entry stays that long: the queue
    /// never holds more than `2 * slots + 65` entries, so a stale one is
    /// compacted away or reaches the front within that many admissions.
    ticket: SlotVec<u32>,
    last_ticket: u32,
}

impl HalfOpen {
    pub(crate) fn new(peer_count: usize) -> Self {
        HalfOpen {
            queue: VecDeque::new(),
            ticket: SlotVec::filled(peer_count, 0),
            last_ticket: 0,
        }
    }

    /// Records that `slot` just became half-open. `is_half_open` tells
    /// which slots still are (used to drop stale entries).
    pub(crate) fn admit(&mut self, slot: PeerIndex, is_half_open: impl Fn(PeerIndex) -> bool) {
        let Some(current) = self.ticket.get_mut(slot) else {
            return;
        };
        self.last_ticket = self.last_ticket.checked_add(1).unwrap_or(1);
        *current = self.last_ticket;
        // Handshakes mostly complete in the order they began, so the
        // entries at the front are mostly stale by now: dropping them here
        // keeps the queue to the handshakes in progress, and a burst of
        // connects leaves behind only its last few.
        self.drop_stale_front(&is_half_open);
        let in_progress = self.queue.len();
        scratch::fit_to_use(&mut self.queue, in_progress);
        self.queue
            .push_back(SlotEntry::new(u64::from(self.last_ticket), slot));
        if self.queue.len() > 2 * self.ticket.len() + 64 {
            let ticket = &self.ticket;
            self.queue
                .retain(|&entry| is_live(ticket, entry, &is_half_open));
        }
    }

    /// Drops the stale entries in front of the oldest live one and gives
    /// back the storage the rest do not need, as an admission does. Done
    /// once a second: when a burst of connects admitted thousands of peers
    /// at once and all of them connected, no later admission comes to drop
    /// their entries, and the queue would keep them and their storage for
    /// good. (A handshake still in progress keeps the entries behind it
    /// until it ends, as it does for an admission.)
    pub(crate) fn tidy(&mut self, is_half_open: impl Fn(PeerIndex) -> bool) {
        self.drop_stale_front(&is_half_open);
        let in_progress = self.queue.len();
        scratch::fit_to_use(&mut self.queue, in_progress);
    }

    /// The slot of the oldest peer that is still half-open, dropping the
    /// stale entries in front of it. The caller resets that peer.
    pub(crate) fn oldest(&mut self, is_half_open: impl Fn(PeerIndex) -> bool) -> Option<PeerIndex> {
        self.drop_stale_front(&is_half_open);
        let slot = self.queue.pop_front()?.slot();
        self.ticket[slot] = 0;
        Some(slot)
    }

    /// Pops entries off the front until the oldest live one.
    fn drop_stale_front(&mut self, is_half_open: &impl Fn(PeerIndex) -> bool) {
        while let Some(&entry) = self.queue.front() {
            if is_live(&self.ticket, entry, is_half_open) {
                break;
            }
            self.queue.pop_front();
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.queue.len()
    }
}

/// Whether `entry` is its slot's current admission and the slot is still
/// half-open.
fn is_live(
    ticket: &SlotVec<u32>,
    entry: SlotEntry,
    is_half_open: &impl Fn(PeerIndex) -> bool,
) -> bool {
    u64::from(ticket[entry.slot()]) == entry.value() && is_half_open(entry.slot())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(number: usize) -> PeerIndex {
        PeerIndex::for_tests(number)
    }

    #[test]
    fn the_oldest_live_entry_comes_first() {
        let mut half_open = HalfOpen::new(4);
        let open = [true, true, false, true];
        for number in [3, 1, 2, 0] {
            half_open.admit(slot(number), |_| true);
        }
        // Slot 2 connected meanwhile: skipped.
        assert_eq!(half_open.oldest(|slot| open[slot.get()]), Some(slot(3)));
        assert_eq!(half_open.oldest(|slot| open[slot.get()]), Some(slot(1)));
        assert_eq!(half_open.oldest(|slot| open[slot.get()]), Some(slot(0)));
        assert_eq!(half_open.oldest(|slot| open[slot.get()]), None);
    }

    #[test]
    fn a_reused_slot_counts_from_its_latest_admission() {
        let mut half_open = HalfOpen::new(2);
        half_open.admit(slot(0), |_| true);
        half_open.admit(slot(1), |_| true);
        half_open.admit(slot(0), |_| true); // slot 0 was freed and taken again
        assert_eq!(half_open.oldest(|_| true), Some(slot(1)));
        assert_eq!(half_open.oldest(|_| true), Some(slot(0)));
        assert_eq!(half_open.oldest(|_| true), None);
    }

    #[test]
    fn stale_entries_do_not_pile_up() {
        let mut half_open = HalfOpen::new(8);
        // Every handshake completes: nothing is ever evicted.
        for round in 0..10_000 {
            half_open.admit(slot(round % 8), |_| false);
        }
        assert!(half_open.len() <= 2 * 8 + 64 + 1, "{}", half_open.len());
        assert_eq!(half_open.oldest(|_| false), None);
    }

    #[test]
    fn a_burst_of_completed_handshakes_leaves_no_storage_behind() {
        let slots = 4000;
        let mut half_open = HalfOpen::new(slots);
        // Each handshake completes before the next one begins.
        for number in 0..slots {
            half_open.admit(slot(number), |_| false);
            assert!(half_open.len() <= 1, "{} entries", half_open.len());
        }
        assert!(
            half_open.queue.capacity() <= 128,
            "{}",
            half_open.queue.capacity()
        );
        // Handshakes still in progress stay, oldest first.
        let open = |slot: PeerIndex| (3000..3010).contains(&slot.get());
        for number in 3000..3010 {
            half_open.admit(slot(number), open);
        }
        assert_eq!(half_open.oldest(open), Some(slot(3000)));
    }

    #[test]
    fn tidying_after_a_burst_drops_the_finished_handshakes_and_their_storage() {
        let slots = 4000;
        let mut half_open = HalfOpen::new(slots);
        // Every CONNECT of the burst arrives before any handshake ends.
        for number in 0..slots {
            half_open.admit(slot(number), |_| true);
        }
        assert_eq!(half_open.len(), slots);
        // All but one connected: the entries before it go.
        let open = |slot: PeerIndex| slot.get() == 2500;
        half_open.tidy(open);
        assert_eq!(half_open.len(), slots - 2500);
        assert_eq!(half_open.oldest(open), Some(slot(2500)));
        // The rest connected too: nothing is left, nor their storage.
        half_open.tidy(|_| false);
        assert_eq!(half_open.len(), 0);
        assert!(
            half_open.queue.capacity() <= 128,
            "{}",
            half_open.queue.capacity()
        );
    }

    #[test]
    fn tickets_wrap_past_zero_and_keep_their_order() {
        let mut half_open = HalfOpen::new(3);
        half_open.last_ticket = u32::MAX - 1;
        for number in [2, 0, 1] {
            half_open.admit(slot(number), |_| true);
        }
        // The tickets went MAX, then 1 and 2: 0 still means "none".
        assert_eq!(
            half_open
                .ticket
                .iter_enumerated()
                .map(|(_, &ticket)| ticket)
                .collect::<Vec<_>>(),
            [1, 2, u32::MAX]
        );
        assert_eq!(half_open.oldest(|_| true), Some(slot(2)));
        assert_eq!(half_open.oldest(|_| true), Some(slot(0)));
        assert_eq!(half_open.oldest(|_| true), Some(slot(1)));
        assert_eq!(half_open.oldest(|_| true), None);
    }

    #[test]
    fn out_of_range_slots_are_ignored() {
        let mut half_open = HalfOpen::new(1);
        half_open.admit(slot(5), |_| true);
        assert_eq!(half_open.oldest(|_| true), None);
    }
}
