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

/// A step that reports nothing now: its effects, if the program is to
/// hear of them, come from a later dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quiet {
    /// Enter the state, without telling the program.
    Enter(ENetPeerState),
    /// Enter the state and queue the peer for dispatch: a later
    /// [`Host::dispatch`] reports it (a completed connect, or a zombie's
    /// disconnect).
    Announce(ENetPeerState),
    /// Reset the slot, without telling the program.
    Reset,
}

/// A step that reports an event now: applying it gives the event, so it
/// cannot be taken where no event can be handed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Report {
    /// Enter CONNECTED and report the CONNECT, with the peer's event data.
    Connect,
    /// Report a DISCONNECT carrying `data`, and reset the slot.
    Disconnect { data: u32 },
}

/// Where a peer's connection goes, when the caller can take an event now
/// and the peer's state decides whether it reports one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transition {
    Quiet(Quiet),
    Report(Report),
}

/// A step of the state machine: [`Host::apply_quiet`] carries out a
/// [`Quiet`] one and returns nothing, [`Host::apply_report`] a [`Report`]
/// one and returns its event, and [`Host::apply_into`] either kind into
/// the caller's event slot.
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StateChange<T = Transition> {
    pub(crate) transition: T,
    /// The set of peers sharing the host's bandwidth changed: the next
    /// throttle pass recomputes their limits (stock's
    /// `recalculateBandwidthLimits`).
    pub(crate) rebalance: bool,
}

impl StateChange<Quiet> {
    /// Enters `state`, with nothing else to do.
    pub(crate) fn enter(state: ENetPeerState) -> Self {
        StateChange {
            transition: Quiet::Enter(state),
            rebalance: false,
        }
    }

    /// Enters `state` and queues the peer for dispatch.
    pub(crate) fn announce(state: ENetPeerState) -> Self {
        StateChange {
            transition: Quiet::Announce(state),
            rebalance: false,
        }
    }
}

impl From<StateChange<Quiet>> for StateChange {
    fn from(change: StateChange<Quiet>) -> StateChange {
        StateChange {
            transition: Transition::Quiet(change.transition),
            rebalance: change.rebalance,
        }
    }
}

impl From<StateChange<Report>> for StateChange {
    fn from(change: StateChange<Report>) -> StateChange {
        StateChange {
            transition: Transition::Report(change.transition),
            rebalance: change.rebalance,
        }
    }
}

impl PeerMut<'_> {
    /// The handshake completed: the server's VERIFY_CONNECT was accepted,
    /// or the acknowledgement of ours arrived. Reported at once when the
    /// caller can take an event (`report_now`), else queued.
    pub(crate) fn handshake_completed(&self, report_now: bool) -> StateChange {
        if report_now {
            return StateChange {
                transition: Report::Connect,
                rebalance: true,
            }
            .into();
        }
        let announced = if self.public.state == ENET_PEER_STATE_CONNECTING {
            ENET_PEER_STATE_CONNECTION_SUCCEEDED
        } else {
            ENET_PEER_STATE_CONNECTION_PENDING
        };
        StateChange {
            transition: Quiet::Announce(announced),
            rebalance: true,
        }
        .into()
    }

    /// The server's VERIFY_CONNECT does not match our CONNECT: the
    /// connection fails, reported by a later dispatch.
    pub(crate) fn handshake_refused(&mut self) -> StateChange<Quiet> {
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
        if report_now && self.was_seen() {
            return StateChange {
                transition: Report::Disconnect { data: 0 },
                rebalance: lost_share(state),
            }
            .into();
        }
        self.connection_lost_later().into()
    }

    /// [`PeerMut::connection_lost`] where no event can be taken now: a
    /// peer the program saw becomes a zombie, reported by a later
    /// dispatch.
    pub(crate) fn connection_lost_later(&mut self) -> StateChange<Quiet> {
        let state = self.public.state;
        let transition = if self.was_seen() {
            self.public.eventData = 0;
            Quiet::Announce(ENET_PEER_STATE_ZOMBIE)
        } else {
            Quiet::Reset
        };
        StateChange {
            transition,
            rebalance: lost_share(state),
        }
    }

    /// Whether the program saw this connection: a connect it made, or one
    /// whose handshake completed.
    fn was_seen(&self) -> bool {
        let state = self.public.state;
        state == ENET_PEER_STATE_CONNECTING
            || state as u32 >= ENET_PEER_STATE_CONNECTION_SUCCEEDED as u32
    }

    /// A DISCONNECT from the remote end, sent reliably if `acknowledged`,
    /// carrying `data`. `None` if the peer is gone or going already. The
    /// caller drops the peer's queues before applying the step.
    pub(crate) fn remote_disconnect(
        &mut self,
        acknowledged: bool,
        data: u32,
    ) -> Option<StateChange<Quiet>> {
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
                transition: Quiet::Reset,
                rebalance: state == ENET_PEER_STATE_CONNECTION_PENDING,
            },
        };
        if change.transition != Quiet::Reset {
            self.public.eventData = data;
        }
        Some(change)
    }

    /// What a peer taken off the dispatch queue reports: a connect that
    /// completed while no event could be taken, or a zombie's disconnect.
    /// `None` for a peer in any other state.
    pub(crate) fn dispatched(&self) -> Option<StateChange<Report>> {
        match self.public.state {
            ENET_PEER_STATE_CONNECTION_PENDING | ENET_PEER_STATE_CONNECTION_SUCCEEDED => {
                Some(StateChange {
                    transition: Report::Connect,
                    rebalance: false,
                })
            }
            ENET_PEER_STATE_ZOMBIE => Some(StateChange {
                transition: Report::Disconnect {
                    data: self.public.eventData,
                },
                rebalance: true,
            }),
            _ => None,
        }
    }
}

/// Whether a peer leaving `state` gives up a share of the host's
/// bandwidth: it had one from CONNECTION_PENDING on.
fn lost_share(state: ENetPeerState) -> bool {
    state as u32 >= ENET_PEER_STATE_CONNECTION_PENDING as u32
}

impl Host {
    /// Carries out a step that reports nothing now.
    pub(crate) fn apply_quiet(&mut self, index: PeerIndex, change: StateChange<Quiet>) {
        if change.rebalance {
            self.public.recalculateBandwidthLimits = 1;
        }
        match change.transition {
            Quiet::Enter(state) => self.change_state(index, state),
            Quiet::Announce(state) => {
                self.change_state(index, state);
                self.mark_dispatch(index);
            }
            Quiet::Reset => self.reset_peer(index),
        }
    }

    /// Carries out a step that reports now; its event.
    #[must_use]
    pub(crate) fn apply_report(&mut self, index: PeerIndex, change: StateChange<Report>) -> Event {
        if change.rebalance {
            self.public.recalculateBandwidthLimits = 1;
        }
        match change.transition {
            Report::Connect => {
                self.change_state(index, ENET_PEER_STATE_CONNECTED);
                Event::Connect {
                    peer: index,
                    data: self.engine.peers[index].eventData,
                }
            }
            Report::Disconnect { data } => {
                self.reset_peer(index);
                Event::Disconnect { peer: index, data }
            }
        }
    }

    /// Carries out a step decided where an event may be reported now
    /// (`events.wanted`): a reported one goes into `events`.
    pub(crate) fn apply_into(
        &mut self,
        index: PeerIndex,
        change: StateChange,
        events: &mut EventSlot,
    ) {
        let StateChange {
            transition,
            rebalance,
        } = change;
        match transition {
            Transition::Quiet(transition) => self.apply_quiet(
                index,
                StateChange {
                    transition,
                    rebalance,
                },
            ),
            Transition::Report(transition) => {
                debug_assert!(events.wanted, "an event reported where none can be taken");
                let event = self.apply_report(
                    index,
                    StateChange {
                        transition,
                        rebalance,
                    },
                );
                events.event = Some(event);
            }
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
    use crate::proto::state::connected::ALL_STATES;

    /// Runs `decide` on a peer in `state` with event data 7; the step and
    /// the event data after it.
    fn decide<T>(state: ENetPeerState, decide: impl FnOnce(&mut PeerMut<'_>) -> T) -> (T, u32) {
        let mut peer = LonePeer::new();
        peer.public.state = state;
        peer.public.eventData = 7;
        let step = decide(&mut peer.view());
        (step, peer.public.eventData)
    }

    #[test]
    fn a_completed_handshake_is_reported_now_or_queued_by_side() {
        let (now, _) = decide(ENET_PEER_STATE_CONNECTING, |peer| {
            peer.handshake_completed(true)
        });
        assert_eq!(now.transition, Transition::Report(Report::Connect));
        assert!(now.rebalance);
        let (client, _) = decide(ENET_PEER_STATE_CONNECTING, |peer| {
            peer.handshake_completed(false)
        });
        assert_eq!(
            client.transition,
            Transition::Quiet(Quiet::Announce(ENET_PEER_STATE_CONNECTION_SUCCEEDED))
        );
        let (server, _) = decide(ENET_PEER_STATE_ACKNOWLEDGING_CONNECT, |peer| {
            peer.handshake_completed(false)
        });
        assert_eq!(
            server.transition,
            Transition::Quiet(Quiet::Announce(ENET_PEER_STATE_CONNECTION_PENDING))
        );
    }

    #[test]
    fn a_lost_connection_is_silent_only_for_peers_the_program_never_saw() {
        for state in ALL_STATES {
            let (queued, data) = decide(state, |peer| peer.connection_lost_later());
            let (now, _) = decide(state, |peer| peer.connection_lost(true));
            let seen = state == ENET_PEER_STATE_CONNECTING
                || state as u32 >= ENET_PEER_STATE_CONNECTION_SUCCEEDED as u32;
            if seen {
                assert_eq!(
                    queued.transition,
                    Quiet::Announce(ENET_PEER_STATE_ZOMBIE),
                    "{state:?}"
                );
                assert_eq!(data, 0, "{state:?}: a timeout's DISCONNECT carries 0");
                assert_eq!(
                    now.transition,
                    Transition::Report(Report::Disconnect { data: 0 })
                );
            } else {
                assert_eq!(queued.transition, Quiet::Reset, "{state:?}");
                assert_eq!(now.transition, Transition::Quiet(Quiet::Reset), "{state:?}");
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
                        Some(Quiet::Enter(ENET_PEER_STATE_ACKNOWLEDGING_DISCONNECT))
                    }
                    ENET_PEER_STATE_ACKNOWLEDGING_CONNECT | ENET_PEER_STATE_CONNECTION_PENDING => {
                        Some(Quiet::Reset)
                    }
                    _ => Some(Quiet::Announce(ENET_PEER_STATE_ZOMBIE)),
                };
                assert_eq!(step.map(|s| s.transition), expected, "{state:?}");
                let keeps_data = matches!(expected, Some(Quiet::Enter(_) | Quiet::Announce(_)));
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
                    Some(Report::Connect)
                }
                ENET_PEER_STATE_ZOMBIE => Some(Report::Disconnect { data: 7 }),
                _ => None,
            };
            assert_eq!(step.map(|s| s.transition), expected, "{state:?}");
        }
    }
}
