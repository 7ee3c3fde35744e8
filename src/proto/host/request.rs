//! Work handed to a host from other threads: sends, broadcasts and
//! disconnects that a driver queues while its service thread runs, applied
//! by [`Host::service`] and [`Host::flush`] on that thread.
//!
//! A peer is named by a [`PeerHandle`]: its slot and the slot's
//! generation, which grows each time the slot is reset. A request for a
//! peer whose slot was reset since the handle was taken (the peer left,
//! and maybe another took its slot) is dropped, never applied to whoever
//! holds the slot now. Generations live in atomics so that other threads
//! can refuse a stale handle at once, before queueing anything.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::engine::Host;
pub use super::service::{CallbackCall, DisconnectWhen};
use super::service::{Hooks, ServiceFailed, Transport};
use crate::abi::ENetPeerState;
use crate::proto::state::channel_id::ChannelId;
pub use crate::proto::state::handle::{
    is_current, new_generations, Generations, PeerHandle, Request,
};
use crate::proto::state::peer_index::PeerIndex;

impl Host {
    /// The handle of the peer in slot `index` (generation 0 if the slot
    /// holds no connection).
    pub fn peer_handle(&self, index: PeerIndex) -> PeerHandle {
        let free = self.engine.peers[index].state == ENetPeerState::ENET_PEER_STATE_DISCONNECTED;
        PeerHandle {
            index: index.as_u32(),
            generation: if free {
                0
            } else {
                self.generation_table()[index.get()].load(Ordering::Relaxed)
            },
        }
    }

    /// The slot a handle names, if it is still that connection's (never
    /// before the first handle was taken).
    pub fn handle_index(&self, handle: PeerHandle) -> Option<PeerIndex> {
        let generations = self.engine.generations.get()?;
        if !is_current(generations, handle) {
            return None;
        }
        PeerIndex::checked(handle.index as usize, self.engine.peers.len())
    }

    /// Every slot's generation, for threads that check handles.
    pub fn generations(&self) -> Generations {
        Arc::clone(self.generation_table())
    }

    /// The generations, made on first use.
    fn generation_table(&self) -> &Generations {
        self.engine
            .generations
            .get_or_init(|| new_generations(self.engine.peers.len()))
    }

    /// A slot was reset: handles taken before no longer name it.
    pub(crate) fn next_generation(&mut self, index: PeerIndex) {
        let Some(generations) = self.engine.generations.get() else {
            return;
        };
        let generation = &generations[index.get()];
        let next = generation.load(Ordering::Relaxed).wrapping_add(1).max(1);
        generation.store(next, Ordering::Release);
    }

    /// Applies what other threads queued since the last look, in order.
    // Inline: on nearly every call nothing is queued, and the check is a
    // few instructions (a host no other thread sends through has no queue;
    // one that has reads a flag before it locks).
    #[inline(always)]
    pub(crate) fn apply_requests(
        &mut self,
        transport: &mut impl Transport,
        hooks: &mut impl Hooks,
    ) -> Result<(), ServiceFailed> {
        hooks.take_requests(&mut self.engine.requests);
        if self.engine.requests.is_empty() {
            return Ok(());
        }
        self.apply_taken_requests(transport, hooks)
    }

    /// [`Host::apply_requests`] once some were taken: applies them, and
    /// keeps the list's room for the next.
    #[inline(never)]
    fn apply_taken_requests(
        &mut self,
        transport: &mut impl Transport,
        hooks: &mut impl Hooks,
    ) -> Result<(), ServiceFailed> {
        let mut requests = std::mem::take(&mut self.engine.requests);
        for request in requests.drain(..) {
            match request {
                Request::Send {
                    peer,
                    channel_id,
                    packet,
                } => {
                    if let Some(index) = self.handle_index(peer) {
                        // The sending thread was answered when it queued
                        // the request; a send the peer refuses now only
                        // leaves the packet untaken, freed below.
                        let _ = self.with_peer(index, |peer, terms| {
                            peer.send(ChannelId::from(channel_id), packet.view(), terms)
                        });
                    }
                    // The request's reference goes: a packet no peer took
                    // is freed here.
                    packet.release();
                }
                Request::Broadcast { channel_id, packet } => {
                    self.broadcast(channel_id, packet.view());
                    packet.release();
                }
                Request::Disconnect { peer, data } => {
                    if let Some(index) = self.handle_index(peer) {
                        let effect = self.disconnect(index, data);
                        self.finish_disconnect_queued(index, effect, transport, hooks)?;
                    }
                }
            }
        }
        self.engine.requests = requests;
        Ok(())
    }

    /// Applies, in order, the calls the program made on this host from its
    /// callbacks since the last look (and any those calls' own callbacks
    /// make). A send or broadcast that fails here frees a packet no peer
    /// took, as the thread-safe sender's requests do.
    // Always inlined: the engine looks at every safe point, and nearly
    // always finds nothing, for the cost of the hooks' one check.
    #[inline(always)]
    pub(crate) fn apply_callback_calls(
        &mut self,
        transport: &mut impl Transport,
        hooks: &mut impl Hooks,
    ) -> Result<(), ServiceFailed> {
        match hooks.take_callback_calls() {
            None => Ok(()),
            Some(calls) => self.apply_taken_calls(calls, transport, hooks),
        }
    }

    /// [`Host::apply_callback_calls`] once there are calls: `calls`, then
    /// any the program makes meanwhile.
    #[cold]
    #[inline(never)]
    fn apply_taken_calls(
        &mut self,
        calls: Vec<CallbackCall>,
        transport: &mut impl Transport,
        hooks: &mut impl Hooks,
    ) -> Result<(), ServiceFailed> {
        // The calls find every peer's schedule up to date: a receive phase
        // may have left its last peer's reschedule for later (at the time
        // its datagrams set as the service time).
        self.reschedule_deferred(self.public.serviceTime);
        let mut next = Some(calls);
        while let Some(calls) = next.take() {
            for call in calls {
                match call {
                    CallbackCall::Send {
                        peer,
                        channel_id,
                        packet,
                    } => {
                        let _ = self.with_peer(peer, |view, terms| {
                            view.send(ChannelId::from(channel_id), packet.view(), terms)
                        });
                        packet.release();
                    }
                    CallbackCall::Broadcast { channel_id, packet } => {
                        self.broadcast(channel_id, packet.view());
                        packet.release();
                    }
                    CallbackCall::Disconnect { peer, data, when } => {
                        let effect = match when {
                            DisconnectWhen::Asked => self.disconnect(peer, data),
                            DisconnectWhen::Now => self.disconnect_now(peer, data),
                            DisconnectWhen::Later => self.disconnect_later(peer, data),
                        };
                        self.finish_disconnect_queued(peer, effect, transport, hooks)?;
                    }
                    CallbackCall::Reset { peer } => self.reset_by_program(peer),
                }
            }
            next = hooks.take_callback_calls();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::host::engine::HostSettings;

    #[test]
    fn generations_start_with_the_first_handle_and_go_stale_on_reset() {
        let mut host = Host::create(HostSettings::for_tests(2)).expect("host");
        let slot = PeerIndex::for_tests(1);
        let connected = ENetPeerState::ENET_PEER_STATE_CONNECTED;
        // A reset before any handle was taken needs no table.
        host.engine.peers[slot].state = connected;
        host.reset_peer(slot);
        assert!(host.engine.generations.get().is_none());
        let unseen = PeerHandle {
            index: slot.as_u32(),
            generation: 1,
        };
        assert_eq!(host.handle_index(unseen), None, "no handle was taken");
        // The slot's next connection: its handle names it until a reset.
        host.engine.peers[slot].state = connected;
        let handle = host.peer_handle(slot);
        assert_ne!(handle.generation, 0);
        assert_eq!(host.handle_index(handle), Some(slot));
        host.reset_peer(slot);
        host.engine.peers[slot].state = connected;
        assert_eq!(host.handle_index(handle), None);
        let next = host.peer_handle(slot);
        assert_ne!(next.generation, handle.generation);
        assert_eq!(host.handle_index(next), Some(slot));
        // A free slot's handle names nothing.
        let free = host.peer_handle(PeerIndex::for_tests(0));
        assert_eq!(free.generation, 0);
        assert_eq!(host.handle_index(free), None);
    }
}
