//! Reading what a host and its peers counted (`enet_rs_host_get_stats`,
//! `enet_rs_peer_get_counters`): the host's running totals, and a peer's
//! queues summed up when asked, so the send and receive paths pay nothing
//! for a program that never asks.

use super::engine::Host;
use crate::proto::state::counters::{HostCounters, PeerCounters};
use crate::proto::state::peer_index::PeerIndex;

impl Host {
    /// What the host counted since it was created.
    pub fn counters(&self) -> &HostCounters {
        &self.engine.counters
    }

    /// What the peer in slot `index` has queued and in flight.
    pub fn peer_counters(&self, index: PeerIndex) -> PeerCounters {
        let (recovery, congestion_window) = self.peer_recovery_stats(index);
        let mut counters = PeerCounters {
            in_flight_bytes: u64::from(self.engine.peers[index].reliableDataInTransit),
            recovery,
            congestion_window,
            ..PeerCounters::default()
        };
        let slot = &self.engine.slots[index];
        if let Some(queues) = &slot.queues {
            for command in queues.outgoing.iter() {
                counters.queued_commands += 1;
                if command.packet.is_some() {
                    counters.queued_bytes += u64::from(command.fragment_length);
                }
            }
        }
        // Parked only without a packet: no bytes.
        counters.queued_commands += u64::from(slot.parked_queued().is_some());
        counters.in_flight_commands = slot.in_flight() as u64;
        counters
    }
}
