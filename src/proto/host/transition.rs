//! The steps of a peer's connection state machine that reach beyond the
//! peer. Peer logic decides each step on the peer's [`PeerMut`] view,
//! reading and writing only that peer, and returns it as a
//! [`StateChange`]; [`Host::apply`] carries it out. That is the one place
//! that enters a state, moves the host's connection counts, queues a peer
//! for dispatch and resets a slot for the state machine, so a decision
//! can be tested on a peer alone and the host's books cannot drift from
//! its peers' states.

use super::engine::Host;
use crate::abi::ENetPeerState::{self, *};
use crate::proto::peer::slot::PeerMut;
use crate::proto::state::connected::counts_as_connected;
use crate::proto::state::event::{Event, EventSlot};
use crate::proto::state::peer_index::PeerIndex;

/// Where a peer's connection goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transition {
    /// Enter the state, without telling the program.
    Enter(ENetPeerState),
    /// Enter the state and queue the peer for dispatch: a later
    /// [`Host::dispatch`] reports it (a completed connect, or a zombie's
    /// disconnect).
    Announce(ENetPeerState),
    /// Enter CONNECTED and report the CONNECT now, with the peer's event
    /// data.
    ReportConnect,
    /// Report a DISCONNECT carrying `data` now, and reset the slot.
    ReportDisconnect { data: u32 },
    /// Reset the slot, without telling the program.
    Reset,
}

/// A step of the state machine, for [`Host::apply`].
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StateChange {
    pub(crate) transition: Transition,
    /// The set of peers sharing the host's bandwidth changed: the next
    /// throttle pass recomputes their limits (stock's
    /// `recalculateBandwidthLimits`).
    pub(crate) rebalance: bool,
}

impl StateChange {
    /// Enters `state`, with nothing else to do.
    pub(crate) fn enter(state: ENetPeerState) -> Self {
        StateChange {
            transition: Transition::Enter(state),
            rebalance: false,
        }
    }

    /// Enters `state` and queues the peer for dispatch.
    pub(crate) fn announce(state: ENetPeerState) -> Self {
        StateChange {
            transition: Transition::Announce(state),
            rebalance: false,
        }
    }
}

impl PeerMut<'_> {
    /// The handshake completed: the server's VERIFY_CONNECT was accepted,
    /// or the acknowledgement of ours arrived. Reported at once when the
    /// caller can take an event (`report_now`), else queued.
    pub(crate) fn handshake_completed(&self, report_now: bool) -> StateChange {
        let transition = if report_now {
            Transition::ReportConnect
        } else if self.public.state == ENET_PEER_STATE_CONNECTING {
            Transition::Announce(ENET_PEER_STATE_CONNECTION_SUCCEEDED)
        } else {
            Transition::Announce(ENET_PEER_STATE_CONNECTION_PENDING)
        };
        StateChange {
            transition,
            rebalance: true,
        }
    }

    /// The server's VERIFY_CONNECT does not match our CONNECT: the
    /// connection fails, reported by a later dispatch.
    pub(crate) fn handshake_refused(&mut self) -> StateChange {
        self.public.eventData = 0;
        StateChange::announce(ENET_PEER_STATE_ZOMBIE)
    }

    /// The connection is gone from our side: it timed out, the
    /// acknowledgement of our DISCONNECT arrived, its encrypted session
    /// ended, or a reassembly it needs was dropped. A peer the program
    /// never saw connect is reset quietly; any other gets a DISCONNECT
    /// with data 0, at once when the caller can take an event
    /// (`report_now`), else from a later dispatch.
    pub(crate) fn connection_lost(&mut self, report_now: bool) -> StateChange {
        let state = self.public.state;
        let rebalance = state as u32 >= ENET_PEER_STATE_CONNECTION_PENDING as u32;
        let never_seen = state != ENET_PEER_STATE_CONNECTING
            && (state as u32) < ENET_PEER_STATE_CONNECTION_SUCCEEDED as u32;
        let transition = if never_seen {
            Transition::Reset
        } else if report_now {
            Transition::ReportDisconnect { data: 0 }
        } else {
            self.public.eventData = 0;
            Transition::Announce(ENET_PEER_STATE_ZOMBIE)
        };
        StateChange {
            transition,
            rebalance,
        }
    }

    /// A DISCONNECT from the remote end, sent reliably if `acknowledged`,
    /// carrying `data`. `None` if the peer is gone or going already. The
    /// caller drops the peer's queues before applying the step.
    pub(crate) fn remote_disconnect(
        &mut self,
        acknowledged: bool,
        data: u32,
    ) -> Option<StateChange> {
        let state = self.public.state;
        let change = match state {
            ENET_PEER_STATE_DISCONNECTED
            | ENET_PEER_STATE_ZOMBIE
            | ENET_PEER_STATE_ACKNOWLEDGING_DISCONNECT => return None,
            ENET_PEER_STATE_CONNECTED | ENET_PEER_STATE_DISCONNECT_LATER if acknowledged => {
                // The DISCONNECT event follows once our acknowledgement of
                // it is sent.
                StateChange::enter(ENET_PEER_STATE_ACKNOWLEDGING_DISCONNECT)
            }
            ENET_PEER_STATE_CONNECTED
            | ENET_PEER_STATE_DISCONNECT_LATER
            | ENET_PEER_STATE_CONNECTION_SUCCEEDED
            | ENET_PEER_STATE_DISCONNECTING
            | ENET_PEER_STATE_CONNECTING => StateChange::announce(ENET_PEER_STATE_ZOMBIE),
            // Half-way through the handshake, the program never saw it.
            _ => StateChange {
                transition: Transition::Reset,
                rebalance: state == ENET_PEER_STATE_CONNECTION_PENDING,
            },
        };
        if change.transition != Transition::Reset {
            self.public.eventData = data;
        }
        Some(change)
    }

    /// What a peer taken off the dispatch queue reports: a connect that
    /// completed while no event could be taken, or a zombie's disconnect.
    /// `None` for a peer in any other state.
    pub(crate) fn dispatched(&self) -> Option<StateChange> {
        match self.public.state {
            ENET_PEER_STATE_CONNECTION_PENDING | ENET_PEER_STATE_CONNECTION_SUCCEEDED => {
                Some(StateChange {
                    transition: Transition::ReportConnect,
                    rebalance: false,
                })
            }
            ENET_PEER_STATE_ZOMBIE => Some(StateChange {
                transition: Transition::ReportDisconnect {
                    data: self.public.eventData,
                },
                rebalance: true,
            }),
            _ => None,
        }
    }
}

impl Host {
    /// Carries out a step of the peer's state machine; the event it
    /// reports now, if any.
    pub(crate) fn apply(&mut self, index: PeerIndex, change: StateChange) -> Option<Event> {
        if change.rebalance {
            self.public.recalculateBandwidthLimits = 1;
        }
        match change.transition {
            Transition::Enter(state) => {
                self.change_state(index, state);
                None
            }
            Transition::Announce(state) => {
                self.change_state(index, state);
                self.mark_dispatch(index);
                None
            }
            Transition::ReportConnect => {
                self.change_state(index, ENET_PEER_STATE_CONNECTED);
                Some(Event::Connect {
                    peer: index,
                    data: self.engine.peers[index].eventData,
                })
            }
            Transition::ReportDisconnect { data } => {
                self.reset_peer(index);
                Some(Event::Disconnect { peer: index, data })
            }
            Transition::Reset => {
                self.reset_peer(index);
                None
            }
        }
    }

    /// [`Host::apply`] where an event may be reported now: into `events`.
    pub(crate) fn apply_into(
        &mut self,
        index: PeerIndex,
        change: StateChange,
        events: &mut EventSlot,
    ) {
        if let Some(event) = self.apply(index, change) {
            debug_assert!(events.wanted, "an event reported where none can be taken");
            events.event = Some(event);
        }
    }

    /// Puts the peer in `state`, counting it in or out of the host's
    /// connected peers.
    fn change_state(&mut self, index: PeerIndex, state: ENetPeerState) {
        if counts_as_connected(state) {
            self.on_connect(index);
        } else {
            self.on_disconnect(index);
        }
        self.engine.peers[index].state = state;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::peer::slot::LonePeer;

    /// Runs `decide` on a peer in `state` with event data 7; the step and
    /// the event data after it.
    fn decide<T>(state: ENetPeerState, decide: impl FnOnce(&mut PeerMut<'_>) -> T) -> (T, u32) {
        let mut peer = LonePeer::new();
        peer.public.state = state;
        peer.public.eventData = 7;
        let step = decide(&mut peer.view());
        (step, peer.public.eventData)
    }

    const ALL_STATES: [ENetPeerState; 10] = [
        ENET_PEER_STATE_DISCONNECTED,
        ENET_PEER_STATE_CONNECTING,
        ENET_PEER_STATE_ACKNOWLEDGING_CONNECT,
        ENET_PEER_STATE_CONNECTION_PENDING,
        ENET_PEER_STATE_CONNECTION_SUCCEEDED,
        ENET_PEER_STATE_CONNECTED,
        ENET_PEER_STATE_DISCONNECT_LATER,
        ENET_PEER_STATE_DISCONNECTING,
        ENET_PEER_STATE_ACKNOWLEDGING_DISCONNECT,
        ENET_PEER_STATE_ZOMBIE,
    ];

    #[test]
    fn a_completed_handshake_is_reported_now_or_queued_by_side() {
        let (now, _) = decide(ENET_PEER_STATE_CONNECTING, |peer| {
            peer.handshake_completed(true)
        });
        assert_eq!(now.transition, Transition::ReportConnect);
        assert!(now.rebalance);
        let (client, _) = decide(ENET_PEER_STATE_CONNECTING, |peer| {
            peer.handshake_completed(false)
        });
        assert_eq!(
            client.transition,
            Transition::Announce(ENET_PEER_STATE_CONNECTION_SUCCEEDED)
        );
        let (server, _) = decide(ENET_PEER_STATE_ACKNOWLEDGING_CONNECT, |peer| {
            peer.handshake_completed(false)
        });
        assert_eq!(
            server.transition,
            Transition::Announce(ENET_PEER_STATE_CONNECTION_PENDING)
        );
    }

    #[test]
    fn a_lost_connection_is_silent_only_for_peers_the_program_never_saw() {
        for state in ALL_STATES {
            let (queued, data) = decide(state, |peer| peer.connection_lost(false));
            let (now, _) = decide(state, |peer| peer.connection_lost(true));
            let seen = state == ENET_PEER_STATE_CONNECTING
                || state as u32 >= ENET_PEER_STATE_CONNECTION_SUCCEEDED as u32;
            if seen {
                assert_eq!(
                    queued.transition,
                    Transition::Announce(ENET_PEER_STATE_ZOMBIE),
                    "{state:?}"
                );
                assert_eq!(data, 0, "{state:?}: a timeout's DISCONNECT carries 0");
                assert_eq!(now.transition, Transition::ReportDisconnect { data: 0 });
            } else {
                assert_eq!(queued.transition, Transition::Reset, "{state:?}");
                assert_eq!(now.transition, Transition::Reset, "{state:?}");
            }
            let rebalance = state as u32 >= ENET_PEER_STATE_CONNECTION_PENDING as u32;
            assert_eq!(queued.rebalance, rebalance, "{state:?}");
        }
    }

    #[test]
    fn a_remote_disconnect_follows_the_peer_state() {
        for state in ALL_STATES {
            for acknowledged in [false, true] {
                let (step, data) = decide(state, |peer| peer.remote_disconnect(acknowledged, 99));
                let expected = match state {
                    ENET_PEER_STATE_DISCONNECTED
                    | ENET_PEER_STATE_ZOMBIE
                    | ENET_PEER_STATE_ACKNOWLEDGING_DISCONNECT => None,
                    ENET_PEER_STATE_CONNECTED | ENET_PEER_STATE_DISCONNECT_LATER
                        if acknowledged =>
                    {
                        Some(Transition::Enter(ENET_PEER_STATE_ACKNOWLEDGING_DISCONNECT))
                    }
                    ENET_PEER_STATE_ACKNOWLEDGING_CONNECT | ENET_PEER_STATE_CONNECTION_PENDING => {
                        Some(Transition::Reset)
                    }
                    _ => Some(Transition::Announce(ENET_PEER_STATE_ZOMBIE)),
                };
                assert_eq!(step.map(|s| s.transition), expected, "{state:?}");
                let keeps_data = matches!(
                    expected,
                    Some(Transition::Enter(_) | Transition::Announce(_))
                );
                assert_eq!(data, if keeps_data { 99 } else { 7 }, "{state:?}");
                assert_eq!(
                    step.is_some_and(|s| s.rebalance),
                    state == ENET_PEER_STATE_CONNECTION_PENDING,
                    "{state:?}"
                );
            }
        }
    }

    #[test]
    fn dispatch_reports_only_queued_connects_and_zombies() {
        for state in ALL_STATES {
            let (step, _) = decide(state, |peer| peer.dispatched());
            let expected = match state {
                ENET_PEER_STATE_CONNECTION_PENDING | ENET_PEER_STATE_CONNECTION_SUCCEEDED => {
                    Some(Transition::ReportConnect)
                }
                ENET_PEER_STATE_ZOMBIE => Some(Transition::ReportDisconnect { data: 7 }),
                _ => None,
            };
            assert_eq!(step.map(|s| s.transition), expected, "{state:?}");
        }
    }
}
