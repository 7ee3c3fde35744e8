//! Turning queued peer state into events (stock
//! `enet_protocol_dispatch_incoming_commands`).

use super::engine::Host;
use crate::abi::ENetPeerState::*;
use crate::proto::peer::slot::NEEDS_DISPATCH;
use crate::proto::state::event::Event;
use crate::proto::state::peer_index::PeerIndex;

impl Host {
    /// The next queued event: a completed connect, a disconnect, or a
    /// received packet (one per call; a peer with more is queued again).
    // Always inlined: most calls on a busy host come from
    // `enet_host_service` for the next of a datagram's packets, and the
    // event is then built where the driver reads it.
    #[inline(always)]
    pub fn dispatch(&mut self) -> Option<Event> {
        while let Some(&index) = self.engine.dispatch_queue.front() {
            if self.engine.peers[index].state == ENET_PEER_STATE_CONNECTED {
                if let Some(event) = self.dispatch_received(index) {
                    return Some(event);
                }
            }
            self.engine.dispatch_queue.pop_front();
            self.engine.peers[index].flags &= !NEEDS_DISPATCH;
            if let Some(event) = self.dispatch_state_change(index) {
                return Some(event);
            }
        }
        None
    }

    /// The next packet of the connected peer at the front of the dispatch
    /// queue, if it has one. A peer with more goes to the back of the
    /// queue, still flagged; taking it off and queueing it again, as the
    /// general path does, would come to the same when it is alone there,
    /// so it then simply stays.
    fn dispatch_received(&mut self, index: PeerIndex) -> Option<Event> {
        let (channel_id, packet) = self.peer_view(index).receive()?;
        if self.engine.slots[index].dispatched_is_empty() {
            self.drained(index);
        } else if self.engine.dispatch_queue.len() > 1 {
            self.engine.dispatch_queue.pop_front();
            self.engine.dispatch_queue.push_back(index);
        }
        Some(Event::Receive {
            peer: index,
            channel_id,
            packet,
        })
    }

    /// Takes the peer whose last packet went to the program off the
    /// dispatch queue, and gives its queue set to the spares if it has
    /// nothing else to do (see `SpareQueues`).
    // Out of line: the call keeps `dispatch_received` a leaf function.
    #[inline(never)]
    fn drained(&mut self, index: PeerIndex) {
        let engine = &mut self.engine;
        engine.dispatch_queue.pop_front();
        engine.peers[index].flags &= !NEEDS_DISPATCH;
        engine.slots[index].release_if_blank(&mut engine.spare_queues);
    }

    /// The event of a peer taken off the dispatch queue for a change of
    /// state (a connect completed, a disconnect); `None` for any other.
    #[cold]
    #[inline(never)]
    fn dispatch_state_change(&mut self, index: PeerIndex) -> Option<Event> {
        let change = self.peer_view(index).dispatched()?;
        let event = self.apply_report(index, change);
        if matches!(event, Event::Connect { .. }) {
            // Connected now: its ping timer starts with the next pass.
            self.engine.schedule.mark_ready(index);
        }
        Some(event)
    }
}
