//! Turning queued peer state into events (stock
//! `enet_protocol_dispatch_incoming_commands`).

use super::engine::Host;
use crate::abi::ENetPeerState::*;
use crate::proto::peer::slot::NEEDS_DISPATCH;
use crate::proto::state::event::Event;
use crate::proto::state::peer_index::PeerIndex;
use crate::proto::state::scratch;

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

    /// Gives back the dispatch queue's storage once it is empty
    /// ([`scratch::release_if_drained`]). A burst of connects queues
    /// thousands of peers' events at once, and the queue would otherwise
    /// keep a place for each of them for good; called once a second, so
    /// a queue that a steady load fills again is not made over and over.
    pub(crate) fn release_drained_dispatch_queue(&mut self) {
        scratch::release_if_drained(&mut self.engine.dispatch_queue);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::host::engine::HostSettings;

    #[test]
    fn a_burst_grown_dispatch_queue_gives_back_its_storage_once_drained() {
        let peers = 4000;
        let mut host = Host::create(HostSettings::for_tests(peers)).expect("host");
        for slot in 0..peers {
            host.engine
                .dispatch_queue
                .push_back(PeerIndex::for_tests(slot));
        }
        // Events still to report: the queue keeps its places.
        host.engine.dispatch_queue.drain(..peers - 100);
        host.release_drained_dispatch_queue();
        assert!(host.engine.dispatch_queue.capacity() >= peers);
        assert_eq!(host.engine.dispatch_queue.len(), 100);
        assert_eq!(
            host.engine.dispatch_queue.front(),
            Some(&PeerIndex::for_tests(peers - 100))
        );
        // All reported: the storage goes.
        host.engine.dispatch_queue.clear();
        host.release_drained_dispatch_queue();
        assert!(
            host.engine.dispatch_queue.capacity() <= 128,
            "{}",
            host.engine.dispatch_queue.capacity()
        );
    }
}
