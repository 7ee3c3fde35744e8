//! The packet throttle (stock `enet_peer_throttle`) and the host bandwidth
//! throttle (`enet_host_bandwidth_throttle`), which shares the host's
//! outgoing bandwidth among connected peers once a second.
//!
//! The arithmetic is stock's: `u32` that wraps. Budgets above ~4.29 MB/s
//! wrap in stock too, and programs see the throttle limits that result.

use super::engine::Host;
use crate::abi::*;
use crate::proto::state::command::OutgoingBody;
use crate::proto::state::connected::counts_as_connected;
use crate::proto::state::peer_index::PeerIndex;
use crate::wire::command::CommandFlags;

impl Host {
    /// Slots of the peers in state CONNECTED or DISCONNECT_LATER: those
    /// stock's bandwidth throttle shares the host's bandwidth among (a
    /// peer still flushing before its disconnect keeps its share), unlike
    /// broadcast's `Host::peers_in_state_connected`.
    fn peers_connected_or_disconnect_later(&self) -> Vec<PeerIndex> {
        self.engine
            .connected
            .iter()
            .filter(|&index| counts_as_connected(self.engine.peers[index].state))
            .collect()
    }

    /// Once per `ENET_HOST_BANDWIDTH_THROTTLE_INTERVAL`: sets each connected
    /// peer's throttle limit from the host's outgoing bandwidth, and when
    /// limits changed tells every peer its share of our incoming bandwidth.
    pub fn bandwidth_throttle(&mut self, now: u32) {
        let elapsed = now.wrapping_sub(self.public.bandwidthThrottleEpoch);
        if elapsed < ENET_HOST_BANDWIDTH_THROTTLE_INTERVAL {
            return;
        }
        self.public.bandwidthThrottleEpoch = now;
        let mut peers_remaining = self.public.connectedPeers as u32;
        if peers_remaining == 0 {
            return;
        }
        let connected = self.peers_connected_or_disconnect_later();
        let mut data_total: u32 = !0;
        let mut bandwidth: u32 = !0;
        let mut needs_adjustment = self.public.bandwidthLimitedPeers > 0;

        if self.public.outgoingBandwidth != 0 {
            data_total = 0;
            bandwidth = self.public.outgoingBandwidth.wrapping_mul(elapsed) / 1000;
            for &index in &connected {
                data_total = data_total.wrapping_add(self.engine.peers[index].outgoingDataTotal);
            }
        }

        let throttle_for = |bandwidth: u32, data_total: u32| {
            if data_total <= bandwidth {
                ENET_PEER_PACKET_THROTTLE_SCALE
            } else {
                bandwidth.wrapping_mul(ENET_PEER_PACKET_THROTTLE_SCALE) / data_total
            }
        };

        while peers_remaining > 0 && needs_adjustment {
            needs_adjustment = false;
            let throttle = throttle_for(bandwidth, data_total);
            for &index in &connected {
                let peer = &mut self.engine.peers[index];
                if peer.incomingBandwidth == 0 || peer.outgoingBandwidthThrottleEpoch == now {
                    continue;
                }
                let peer_bandwidth = peer.incomingBandwidth.wrapping_mul(elapsed) / 1000;
                if throttle.wrapping_mul(peer.outgoingDataTotal) / ENET_PEER_PACKET_THROTTLE_SCALE
                    <= peer_bandwidth
                {
                    continue;
                }
                // outgoingDataTotal is non-zero here: a zero total passed the
                // test above.
                peer.packetThrottleLimit = peer_bandwidth
                    .wrapping_mul(ENET_PEER_PACKET_THROTTLE_SCALE)
                    .checked_div(peer.outgoingDataTotal)
                    .unwrap_or(ENET_PEER_PACKET_THROTTLE_SCALE)
                    .max(1);
                peer.packetThrottle = peer.packetThrottle.min(peer.packetThrottleLimit);
                peer.outgoingBandwidthThrottleEpoch = now;
                peer.incomingDataTotal = 0;
                peer.outgoingDataTotal = 0;
                needs_adjustment = true;
                peers_remaining = peers_remaining.saturating_sub(1);
                bandwidth = bandwidth.wrapping_sub(peer_bandwidth);
                data_total = data_total.wrapping_sub(peer_bandwidth);
            }
        }

        if peers_remaining > 0 {
            let throttle = throttle_for(bandwidth, data_total);
            for &index in &connected {
                let peer = &mut self.engine.peers[index];
                if peer.outgoingBandwidthThrottleEpoch == now {
                    continue;
                }
                peer.packetThrottleLimit = throttle;
                peer.packetThrottle = peer.packetThrottle.min(peer.packetThrottleLimit);
                peer.incomingDataTotal = 0;
                peer.outgoingDataTotal = 0;
            }
        }

        if self.public.recalculateBandwidthLimits != 0 {
            self.public.recalculateBandwidthLimits = 0;
            let mut peers_remaining = self.public.connectedPeers as u32;
            let mut bandwidth = self.public.incomingBandwidth;
            let mut bandwidth_limit = 0;
            let mut needs_adjustment = true;
            if bandwidth != 0 {
                while peers_remaining > 0 && needs_adjustment {
                    needs_adjustment = false;
                    bandwidth_limit = bandwidth / peers_remaining;
                    for &index in &connected {
                        let peer = &mut self.engine.peers[index];
                        if peer.incomingBandwidthThrottleEpoch == now {
                            continue;
                        }
                        if peer.outgoingBandwidth > 0 && peer.outgoingBandwidth >= bandwidth_limit {
                            continue;
                        }
                        peer.incomingBandwidthThrottleEpoch = now;
                        needs_adjustment = true;
                        peers_remaining = peers_remaining.saturating_sub(1);
                        bandwidth = bandwidth.wrapping_sub(peer.outgoingBandwidth);
                    }
                }
            }
            let host_outgoing = self.public.outgoingBandwidth;
            for &index in &connected {
                let peer = &self.engine.peers[index];
                let incoming = if peer.incomingBandwidthThrottleEpoch == now {
                    peer.outgoingBandwidth
                } else {
                    bandwidth_limit
                };
                self.with_peer_rarely(index, |peer, _| {
                    peer.queue_control(
                        CommandFlags::ACKNOWLEDGE,
                        OutgoingBody::BandwidthLimit {
                            incoming,
                            outgoing: host_outgoing,
                        },
                    )
                });
            }
        }
    }
}
