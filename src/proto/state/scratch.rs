//! Storage of the lists the engine refills on every pass: the peers a
//! send pass visits and the peers ready to send. They keep their storage
//! from pass to pass, so steady traffic never allocates for them, but a
//! burst (thousands of peers connecting at once) grows each to a slot per
//! peer, and an idle host afterwards would hold all of it for good. So once
//! a pass needs far less than a list holds, the list gives back what lies
//! beyond twice the need.

use std::collections::VecDeque;

/// Entries every list may keep whatever its use: small lists never shrink.
const ALWAYS_KEPT: usize = 64;

/// The most storage [`fit_to_use`] leaves a list that a pass did not use.
const UNUSED_LIMIT: usize = 2 * ALWAYS_KEPT;

/// A list whose storage can be given back.
pub(crate) trait Storage {
    fn capacity(&self) -> usize;
    fn shrink_to(&mut self, capacity: usize);
}

impl<T> Storage for Vec<T> {
    fn capacity(&self) -> usize {
        Vec::capacity(self)
    }
    fn shrink_to(&mut self, capacity: usize) {
        Vec::shrink_to(self, capacity);
    }
}

impl<T> Storage for VecDeque<T> {
    fn capacity(&self) -> usize {
        VecDeque::capacity(self)
    }
    fn shrink_to(&mut self, capacity: usize) {
        VecDeque::shrink_to(self, capacity);
    }
}

/// Gives back `list`'s storage beyond twice `used`, the most a pass just
/// needed, once it holds more than four times that: a load that swings
/// within a factor of two never reallocates.
#[inline]
pub(crate) fn fit_to_use(list: &mut impl Storage, used: usize) {
    let keep = used.saturating_mul(2).max(ALWAYS_KEPT);
    if list.capacity() > keep.saturating_mul(2) {
        list.shrink_to(keep);
    }
}

/// Whether [`fit_to_use`] would leave `list` as it is after a pass that
/// used none of it.
#[inline]
pub(crate) fn fits_unused(list: &impl Storage) -> bool {
    list.capacity() <= UNUSED_LIMIT
}

/// Gives back the storage of an emptied `list` that holds more than
/// [`fit_to_use`] keeps for an unused one: for a list a burst filled and
/// that is looked at now and then rather than on every pass. Cheaper in
/// code than [`fit_to_use`], which can shrink a deque that still holds
/// entries.
pub(crate) fn release_if_drained<T>(list: &mut VecDeque<T>) {
    if list.is_empty() && list.capacity() > UNUSED_LIMIT {
        *list = VecDeque::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_grown_list_gives_back_what_later_passes_do_not_need() {
        let mut list: Vec<u64> = (0..4000).collect();
        list.clear();
        fit_to_use(&mut list, 4000);
        assert!(list.capacity() >= 4000, "a pass that used it all keeps it");
        fit_to_use(&mut list, 10);
        assert!(list.capacity() <= 2 * ALWAYS_KEPT, "{}", list.capacity());
    }

    #[test]
    fn a_load_within_a_factor_of_two_never_reallocates() {
        let mut list: Vec<u64> = Vec::with_capacity(1000);
        for used in [1000, 500, 300, 999, 260] {
            fit_to_use(&mut list, used);
            assert_eq!(list.capacity(), 1000, "after a pass using {used}");
        }
        fit_to_use(&mut list, 100);
        assert_eq!(list.capacity(), 200);
    }

    #[test]
    fn a_drained_list_gives_back_its_storage_and_a_busy_one_keeps_it() {
        let mut deque: VecDeque<u32> = (0..4000).collect();
        release_if_drained(&mut deque);
        assert!(deque.capacity() >= 4000, "still holding entries");
        deque.clear();
        release_if_drained(&mut deque);
        assert_eq!(deque.capacity(), 0);
        let mut small: VecDeque<u32> = VecDeque::with_capacity(ALWAYS_KEPT * 2);
        release_if_drained(&mut small);
        assert!(
            small.capacity() >= ALWAYS_KEPT * 2,
            "small lists keep theirs"
        );
    }

    #[test]
    fn small_lists_keep_their_storage() {
        let mut deque: VecDeque<u32> = VecDeque::with_capacity(ALWAYS_KEPT * 2);
        fit_to_use(&mut deque, 0);
        assert!(deque.capacity() >= ALWAYS_KEPT * 2);
    }
}
