//! Why a peer's connection ended, kept from the moment the engine ends it
//! until the slot is given another connection, so the program can ask
//! during the DISCONNECT event (and after it). Nothing here is touched
//! while a connection runs: a peer's end is written once, when it ends.

use super::peer_index::PeerIndex;

/// Why a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerEnd {
    /// The remote end sent a DISCONNECT carrying `data`.
    RemoteDisconnect { data: u32 },
    /// The remote end stopped acknowledging: a reliable command ran out of
    /// retransmissions (also while our own DISCONNECT waited for its
    /// acknowledgement).
    Timeout,
    /// Our own disconnect finished: the remote end acknowledged our
    /// DISCONNECT, or `enet_peer_disconnect_now` (or a disconnect of a peer
    /// not yet connected) dropped the peer at once.
    LocalDisconnect,
    /// The program reset the peer (`enet_peer_reset`).
    LocalReset,
    /// Our connect never completed: the server's VERIFY_CONNECT did not
    /// match our CONNECT (`data` 0), or the server sent a DISCONNECT
    /// carrying `data` before the program saw the connection.
    ConnectRefused { data: u32 },
    /// Our connect never completed: nothing answered it.
    ConnectUnanswered,
    /// The encrypted session with the peer's address failed or closed;
    /// the DTLS layer keeps the reason.
    EncryptionFailed,
    /// A reliable fragment reassembly of the peer was dropped to keep the
    /// host within its reassembly budget, so its channel could never move
    /// on.
    ReassemblyBudget,
    /// A half-open peer (a CONNECT not yet acknowledged) whose slot a
    /// newer CONNECT took when every slot was in use.
    HalfOpenEvicted,
}

impl PeerEnd {
    /// Whether this end is a time-out (of a connection or of our connect),
    /// as hosts that report time-outs as their own event type see it.
    pub fn is_timeout(self) -> bool {
        matches!(self, PeerEnd::Timeout | PeerEnd::ConnectUnanswered)
    }
}

/// Each slot's last end, and how time-outs are reported. No memory until
/// a peer first ends, and so none for a host whose peers never do. A
/// plain table by slot rather than a map: what a connect does here (forget
/// its slot's entry) stays a few inlined instructions, with no generic
/// map code among the functions a host runs in common use.
#[derive(Debug, Default)]
pub(in crate::proto) struct PeerEnds {
    /// By slot; empty until the first end is recorded.
    ends: Vec<Option<PeerEnd>>,
    /// The program asked for time-outs as `ENET_EVENT_TYPE_DISCONNECT_TIMEOUT`.
    pub(in crate::proto) timeout_events: bool,
}

impl PeerEnds {
    /// Records `end` for `index`. With `first_wins`, an end already
    /// recorded for a connection still ending stays (what ends a peer whose
    /// DISCONNECT event is pending does not change why it ended). In line,
    /// a store: the engine records from the middle of its receive path,
    /// where a call would cost more code than the store.
    #[inline]
    pub(in crate::proto) fn record(&mut self, index: PeerIndex, end: PeerEnd, first_wins: bool) {
        match self.ends.get_mut(index.get()) {
            Some(entry) => {
                if !(first_wins && entry.is_some()) {
                    *entry = Some(end);
                }
            }
            None => self.record_growing(index, end),
        }
    }

    /// [`PeerEnds::record`] for a slot past the table's end: the table
    /// grows to take it (the first end a host records allocates it).
    #[cold]
    #[inline(never)]
    fn record_growing(&mut self, index: PeerIndex, end: PeerEnd) {
        self.ends.resize(index.get() + 1, None);
        self.ends[index.get()] = Some(end);
    }

    /// The last end of `index`'s connection, if it ended and the slot has
    /// not connected again.
    pub(in crate::proto) fn of(&self, index: PeerIndex) -> Option<PeerEnd> {
        self.ends.get(index.get()).copied().flatten()
    }

    /// The slot starts a new connection: its last end is forgotten.
    #[inline]
    pub(in crate::proto) fn forget(&mut self, index: PeerIndex) {
        if let Some(entry) = self.ends.get_mut(index.get()) {
            *entry = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_end_stays_only_when_asked() {
        let mut ends = PeerEnds::default();
        let slot = PeerIndex::for_tests(2);
        assert_eq!(ends.of(slot), None);
        ends.forget(slot); // nothing to forget, nothing allocated
        ends.record(slot, PeerEnd::RemoteDisconnect { data: 5 }, true);
        ends.record(slot, PeerEnd::Timeout, true);
        assert_eq!(ends.of(slot), Some(PeerEnd::RemoteDisconnect { data: 5 }));
        ends.record(slot, PeerEnd::LocalReset, false);
        assert_eq!(ends.of(slot), Some(PeerEnd::LocalReset));
        assert_eq!(ends.of(PeerIndex::for_tests(1)), None);
        ends.forget(slot);
        assert_eq!(ends.of(slot), None);
    }

    #[test]
    fn only_the_two_time_outs_are_time_outs() {
        assert!(PeerEnd::Timeout.is_timeout());
        assert!(PeerEnd::ConnectUnanswered.is_timeout());
        assert!(!PeerEnd::RemoteDisconnect { data: 0 }.is_timeout());
        assert!(!PeerEnd::EncryptionFailed.is_timeout());
    }
}
