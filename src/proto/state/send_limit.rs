//! Each peer's send limit (`enet_rs_peer_set_send_limit`): how many
//! payload bytes it may have queued and unacknowledged before a send to it
//! is refused. The count itself is the peer's (`PeerMut::send_backlog`);
//! this table only keeps the limits.
//!
//! Few programs set one, so the table is made at the first limit set. Until
//! then every peer reads "no limit" for one load and a branch, which is
//! all a send pays when no limit is set.

use super::peer_index::PeerIndex;

/// The send limit of each slot of a host, in bytes (0 = none).
#[derive(Debug, Default)]
pub(crate) struct SendLimits {
    /// By slot; `None` until a limit is first set.
    by_slot: Option<Box<[usize]>>,
}

impl SendLimits {
    /// The send limit of the peer in slot `index`; 0 for none.
    #[inline(always)]
    pub(crate) fn of(&self, index: PeerIndex) -> usize {
        match self.by_slot.as_deref() {
            None => 0,
            Some(limits) => look_up(limits, index),
        }
    }

    /// Sets the send limit of the peer in slot `index` of a host with
    /// `peer_count` slots (0 takes it away).
    pub(crate) fn set(&mut self, index: PeerIndex, peer_count: usize, bytes: usize) {
        if bytes == 0 && self.by_slot.is_none() {
            return;
        }
        let limits = self
            .by_slot
            .get_or_insert_with(|| vec![0; peer_count].into_boxed_slice());
        if let Some(limit) = limits.get_mut(index.get()) {
            *limit = bytes;
        }
    }

    /// Takes the limit of the peer in slot `index` away (its reset: the
    /// next connection in the slot is another peer).
    #[inline]
    pub(crate) fn forget(&mut self, index: PeerIndex) {
        if let Some(limit) = self
            .by_slot
            .as_deref_mut()
            .and_then(|limits| limits.get_mut(index.get()))
        {
            *limit = 0;
        }
    }
}

/// Slot `index`'s entry of a table that exists. Kept out of line and cold,
/// so that the compiler cannot compute it ahead of the check for a table:
/// a send on a host without limits then pays the one load and branch.
#[cold]
#[inline(never)]
fn look_up(limits: &[usize], index: PeerIndex) -> usize {
    limits.get(index.get()).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_table_until_a_limit_is_set_and_a_reset_takes_it_away() {
        let [first, second] = [0, 1].map(PeerIndex::for_tests);
        let mut limits = SendLimits::default();
        limits.set(first, 2, 0);
        assert!(
            limits.by_slot.is_none(),
            "taking away nothing makes nothing"
        );
        assert_eq!(limits.of(first), 0);
        limits.set(second, 2, 4096);
        assert_eq!((limits.of(first), limits.of(second)), (0, 4096));
        limits.forget(second);
        assert_eq!(limits.of(second), 0);
        limits.set(first, 2, 10);
        limits.set(first, 2, 0);
        assert_eq!(limits.of(first), 0);
    }
}
