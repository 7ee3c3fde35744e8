//! The three ways a program ends a connection (stock
//! `enet_peer_disconnect`, `_now` and `_later`), what each leaves its
//! caller to do ([`DisconnectEffect`]), and doing it
//! ([`Host::finish_disconnect`]), so that every driver ends a connection
//! the same way.

use super::engine::Host;
use super::service::{Hooks, ServiceFailed, Transport};
use super::transition::StateChange;
use crate::abi::ENetPeerState::*;
use crate::proto::state::command::OutgoingBody;
use crate::proto::state::connected::counts_as_connected;
use crate::proto::state::peer_end::PeerEnd;
use crate::proto::state::peer_index::PeerIndex;
use crate::wire::command::CommandFlags;

/// What a disconnect call leaves to be done once it returns. Stock does
/// it inside the call, but sending needs the transport, which the engine
/// does not hold: the caller hands it to [`Host::finish_disconnect`].
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DisconnectEffect {
    /// Nothing: the protocol finishes the disconnect from here (an
    /// acknowledgement, then an event), or the peer was gone already.
    Done,
    /// Reset the peer now, with nothing to send first.
    Reset,
    /// Send the DISCONNECT just queued (a flush of the host), then reset
    /// the peer: no acknowledgement will be waited for.
    FlushThenReset,
}

impl DisconnectEffect {
    /// Whether the peer's slot is reset (its handles go stale).
    pub fn resets(self) -> bool {
        self != DisconnectEffect::Done
    }
}

impl Host {
    /// `enet_peer_disconnect`: a graceful disconnect. A peer that was not
    /// connected yet is told once, unreliably, and reset.
    pub fn disconnect(&mut self, index: PeerIndex, data: u32) -> DisconnectEffect {
        let state = self.engine.peers[index].state;
        if matches!(
            state,
            ENET_PEER_STATE_DISCONNECTING
                | ENET_PEER_STATE_DISCONNECTED
                | ENET_PEER_STATE_ACKNOWLEDGING_DISCONNECT
                | ENET_PEER_STATE_ZOMBIE
        ) {
            return DisconnectEffect::Done;
        }
        if counts_as_connected(state) {
            self.disconnect_connected(index, data);
            return DisconnectEffect::Done;
        }
        self.record_local_end(index, PeerEnd::LocalDisconnect);
        self.queue_disconnect(index, CommandFlags::UNSEQUENCED, data);
        DisconnectEffect::FlushThenReset
    }

    /// The graceful disconnect of a connected peer (CONNECTED or
    /// DISCONNECT_LATER): the DISCONNECT goes reliably, and the protocol
    /// finishes from there (its acknowledgement, then an event), so it
    /// leaves the caller nothing to do.
    fn disconnect_connected(&mut self, index: PeerIndex, data: u32) {
        debug_assert!(counts_as_connected(self.engine.peers[index].state));
        self.queue_disconnect(index, CommandFlags::ACKNOWLEDGE, data);
        self.apply_quiet(index, StateChange::enter(ENET_PEER_STATE_DISCONNECTING));
    }

    /// Drops what the peer had queued and queues its DISCONNECT carrying
    /// `data`: reliably (`ACKNOWLEDGE`) for a connected peer, which waits
    /// for the acknowledgement, or once (`UNSEQUENCED`) before a reset.
    fn queue_disconnect(&mut self, index: PeerIndex, flags: CommandFlags, data: u32) {
        self.reset_queues(index);
        self.with_peer_rarely(index, |peer, _| {
            peer.queue_control(flags, OutgoingBody::Disconnect { data })
        });
    }

    /// A peer in DISCONNECT_LATER whose queues have drained: the graceful
    /// disconnect it was waiting for, with the data it was given.
    pub(crate) fn disconnect_drained(&mut self, index: PeerIndex) {
        let data = self.engine.peers[index].eventData;
        self.disconnect_connected(index, data);
    }

    /// `enet_peer_disconnect_now`: tells the peer once, unreliably, and
    /// resets it, with no event. A disconnected peer is left as it is; one
    /// already disconnecting (or a zombie) is reset without a word.
    pub fn disconnect_now(&mut self, index: PeerIndex, data: u32) -> DisconnectEffect {
        let state = self.engine.peers[index].state;
        if state == ENET_PEER_STATE_DISCONNECTED {
            return DisconnectEffect::Done;
        }
        // Every way on from here resets the peer.
        self.record_local_end(index, PeerEnd::LocalDisconnect);
        if state == ENET_PEER_STATE_ZOMBIE || state == ENET_PEER_STATE_DISCONNECTING {
            return DisconnectEffect::Reset;
        }
        self.queue_disconnect(index, CommandFlags::UNSEQUENCED, data);
        DisconnectEffect::FlushThenReset
    }

    /// `enet_peer_disconnect_later`: disconnects once everything queued has
    /// been sent and acknowledged; until then the peer is in
    /// DISCONNECT_LATER. Otherwise as [`Host::disconnect`].
    pub fn disconnect_later(&mut self, index: PeerIndex, data: u32) -> DisconnectEffect {
        let state = self.engine.peers[index].state;
        if counts_as_connected(state) && self.has_outgoing_commands(index) {
            self.apply_quiet(index, StateChange::enter(ENET_PEER_STATE_DISCONNECT_LATER));
            self.engine.peers[index].eventData = data;
            DisconnectEffect::Done
        } else {
            self.disconnect(index, data)
        }
    }

    /// Does what a disconnect call left to do, through `transport`: sends
    /// what is queued (as `enet_host_flush`), then resets the peer. The
    /// peer is reset even if the send failed, as stock, which ignores the
    /// flush's result; the failure is still returned.
    pub fn finish_disconnect(
        &mut self,
        index: PeerIndex,
        effect: DisconnectEffect,
        transport: &mut impl Transport,
        hooks: &mut impl Hooks,
    ) -> Result<(), ServiceFailed> {
        self.finish_disconnect_with(index, effect, |host| host.flush(transport, hooks))
    }

    /// [`Host::finish_disconnect`] while other threads' requests are being
    /// applied: the flush leaves the requests not yet applied for later,
    /// so they keep their order.
    pub(crate) fn finish_disconnect_queued(
        &mut self,
        index: PeerIndex,
        effect: DisconnectEffect,
        transport: &mut impl Transport,
        hooks: &mut impl Hooks,
    ) -> Result<(), ServiceFailed> {
        self.finish_disconnect_with(index, effect, |host| host.flush_queued(transport, hooks))
    }

    fn finish_disconnect_with(
        &mut self,
        index: PeerIndex,
        effect: DisconnectEffect,
        flush: impl FnOnce(&mut Host) -> Result<(), ServiceFailed>,
    ) -> Result<(), ServiceFailed> {
        let flushed = match effect {
            DisconnectEffect::Done => return Ok(()),
            DisconnectEffect::Reset => Ok(()),
            DisconnectEffect::FlushThenReset => flush(self),
        };
        self.reset_peer(index);
        flushed
    }
}
