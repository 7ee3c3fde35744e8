//! Turning queued peer state into events (stock
//! `enet_protocol_dispatch_incoming_commands`).

use super::event::Event;
use super::host::Host;
use super::peer::NEEDS_DISPATCH;
use crate::abi::ENetPeerState::*;

impl Host {
    /// The next queued event: a completed connect, a disconnect, or a
    /// received packet (one per call; a peer with more is queued again).
    pub fn dispatch(&mut self) -> Option<Event> {
        while let Some(index) = self.engine.dispatch_queue.pop_front() {
            self.engine.peers[index].flags &= !NEEDS_DISPATCH;
            match self.engine.peers[index].state {
                ENET_PEER_STATE_CONNECTION_PENDING | ENET_PEER_STATE_CONNECTION_SUCCEEDED => {
                    self.change_state(index, ENET_PEER_STATE_CONNECTED);
                    // Connected now: its ping timer starts with the next pass.
                    self.engine.schedule.mark_ready(index);
                    return Some(Event::Connect {
                        peer: index,
                        data: self.engine.peers[index].eventData,
                    });
                }
                ENET_PEER_STATE_ZOMBIE => {
                    self.public.recalculateBandwidthLimits = 1;
                    let data = self.engine.peers[index].eventData;
                    self.reset_peer(index);
                    return Some(Event::Disconnect { peer: index, data });
                }
                ENET_PEER_STATE_CONNECTED => {
                    let Some((channel_id, packet)) = self.peer_view(index).receive() else {
                        continue;
                    };
                    if !self.engine.slots[index].dispatched_is_empty() {
                        self.mark_dispatch(index);
                    }
                    return Some(Event::Receive {
                        peer: index,
                        channel_id,
                        packet,
                    });
                }
                _ => {}
            }
        }
        None
    }
}
