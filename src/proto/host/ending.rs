//! Recording why a peer's connection ended ([`PeerEnd`]). Each place that
//! ends a peer records its reason just before it takes the step (the step
//! may reset the slot at once), and a new connection in the slot forgets
//! it. Nothing here runs while a connection is up. From the receive path
//! recording is a store in line (a call there costs more code than the
//! store); from the send pass, the reassembly eviction and the program's
//! own calls it is a cold call, which costs less code there.

use super::engine::Host;
use crate::abi::ENetPeerState::*;
use crate::proto::state::peer_end::PeerEnd;
use crate::proto::state::peer_index::PeerIndex;

impl Host {
    /// Records why the engine ends `index`'s connection. A connection
    /// that already ended keeps its first reason: a pending DISCONNECT
    /// event reports why the connection ended, not what happened to the
    /// slot afterwards.
    #[inline]
    pub(in crate::proto::host) fn record_end(&mut self, index: PeerIndex, end: PeerEnd) {
        self.engine.ends.record(index, end, true);
    }

    /// Records a time-out of `index`: of our connect if it was still
    /// waiting for an answer, else of the connection. Out of line: the
    /// send pass it is called from is smaller with a call.
    #[cold]
    #[inline(never)]
    pub(in crate::proto::host) fn record_timeout(&mut self, index: PeerIndex) {
        let end = if self.engine.peers[index].state == ENET_PEER_STATE_CONNECTING {
            PeerEnd::ConnectUnanswered
        } else {
            PeerEnd::Timeout
        };
        self.record_end(index, end);
    }

    /// Records a DISCONNECT from the remote end carrying `data`: a refusal
    /// if the program never saw the connection complete (our connect
    /// still waiting, or completed but not yet reported).
    #[inline]
    pub(in crate::proto::host) fn record_remote_disconnect(&mut self, index: PeerIndex, data: u32) {
        let end = match self.engine.peers[index].state {
            ENET_PEER_STATE_CONNECTING | ENET_PEER_STATE_CONNECTION_SUCCEEDED => {
                PeerEnd::ConnectRefused { data }
            }
            _ => PeerEnd::RemoteDisconnect { data },
        };
        self.record_end(index, end);
    }

    /// Records that a reassembly the peer needed was evicted. Out of line,
    /// as [`Host::record_timeout`].
    #[cold]
    #[inline(never)]
    pub(in crate::proto::host) fn record_reassembly_eviction(&mut self, index: PeerIndex) {
        self.record_end(index, PeerEnd::ReassemblyBudget);
    }

    /// Records an end the program asked for: it replaces any reason the
    /// engine recorded, since no DISCONNECT event will report that one
    /// now. A slot with no connection has nothing to end.
    #[cold]
    #[inline(never)]
    pub(in crate::proto::host) fn record_local_end(&mut self, index: PeerIndex, end: PeerEnd) {
        if self.engine.peers[index].state != ENET_PEER_STATE_DISCONNECTED {
            self.engine.ends.record(index, end, false);
        }
    }

    /// The slot starts a new connection: the last one's end is forgotten.
    pub(in crate::proto::host) fn forget_end(&mut self, index: PeerIndex) {
        self.engine.ends.forget(index);
    }

    /// `enet_peer_reset` as the program calls it: [`Host::reset_peer`],
    /// recorded as the connection's end if it had one.
    pub fn reset_by_program(&mut self, index: PeerIndex) {
        self.record_local_end(index, PeerEnd::LocalReset);
        self.reset_peer(index);
    }

    /// Why the last connection of slot `index` ended; `None` while the
    /// slot's connection goes on, or if it never had one since the slot
    /// last connected. It is recorded when the connection ends, so it is
    /// there during the DISCONNECT event, and stays until the slot
    /// connects again.
    pub fn peer_end(&self, index: PeerIndex) -> Option<PeerEnd> {
        self.engine.ends.of(index)
    }

    /// Whether DISCONNECT events of time-outs are to be reported as
    /// `ENET_EVENT_TYPE_DISCONNECT_TIMEOUT` (a driver's choice; the engine's
    /// events are the same either way).
    pub fn set_timeout_events(&mut self, on: bool) {
        self.engine.ends.timeout_events = on;
    }

    pub fn timeout_events(&self) -> bool {
        self.engine.ends.timeout_events
    }

    /// Whether the DISCONNECT event of slot `index` just taken is to be
    /// reported as a time-out of its own type: the host asked for that
    /// and the connection timed out.
    #[inline]
    pub fn reports_timeout_event(&self, index: PeerIndex) -> bool {
        self.engine.ends.timeout_events && self.ended_by_timeout(index)
    }

    #[cold]
    #[inline(never)]
    fn ended_by_timeout(&self, index: PeerIndex) -> bool {
        self.peer_end(index).is_some_and(PeerEnd::is_timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::host::engine::HostSettings;

    #[test]
    fn the_program_ends_only_a_connection_that_exists() {
        let mut host = Host::create(HostSettings::for_tests(2)).expect("host");
        let slot = PeerIndex::for_tests(0);
        host.reset_by_program(slot);
        assert_eq!(host.peer_end(slot), None, "a free slot has nothing to end");
        host.engine.peers[slot].state = ENET_PEER_STATE_ZOMBIE;
        host.record_end(slot, PeerEnd::Timeout);
        host.record_end(slot, PeerEnd::ReassemblyBudget);
        assert_eq!(host.peer_end(slot), Some(PeerEnd::Timeout), "first wins");
        host.reset_by_program(slot);
        assert_eq!(host.peer_end(slot), Some(PeerEnd::LocalReset));
        // After the reset the slot is free: another reset changes nothing.
        host.reset_by_program(slot);
        assert_eq!(host.peer_end(slot), Some(PeerEnd::LocalReset));
        host.forget_end(slot);
        assert_eq!(host.peer_end(slot), None);
    }

    #[test]
    fn only_time_outs_become_their_own_event_type_and_only_when_asked() {
        let mut host = Host::create(HostSettings::for_tests(2)).expect("host");
        let [timed_out, left] = [0, 1].map(PeerIndex::for_tests);
        host.engine.peers[timed_out].state = ENET_PEER_STATE_CONNECTING;
        host.record_timeout(timed_out);
        assert_eq!(host.peer_end(timed_out), Some(PeerEnd::ConnectUnanswered));
        host.record_remote_disconnect(left, 3);
        assert_eq!(
            host.peer_end(left),
            Some(PeerEnd::RemoteDisconnect { data: 3 })
        );
        assert!(!host.reports_timeout_event(timed_out), "off by default");
        host.set_timeout_events(true);
        assert!(host.reports_timeout_event(timed_out));
        assert!(!host.reports_timeout_event(left));
    }
}
