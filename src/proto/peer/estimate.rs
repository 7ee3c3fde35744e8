//! A peer's estimates, updated from samples with stock's arithmetic on the
//! public fields: the round-trip time and its variance, the packet loss
//! ratio, and the packet throttle that follows the round-trip time.

use super::slot::PeerMut;
use crate::abi::*;
use crate::time::time_difference;

impl PeerMut<'_> {
    /// Adapts the packet throttle to a round-trip sample: faster than the
    /// last interval's best opens it, much slower closes it. Returns 1, -1
    /// or 0 as it opened, closed or stayed.
    pub fn throttle(&mut self, round_trip_time: u32) -> i32 {
        let peer = &mut *self.public;
        if peer.lastRoundTripTime <= peer.lastRoundTripTimeVariance {
            peer.packetThrottle = peer.packetThrottleLimit;
        } else if round_trip_time <= peer.lastRoundTripTime {
            // Wrapping u32 arithmetic, as stock: the acceleration comes from
            // the peer unchecked.
            peer.packetThrottle = peer
                .packetThrottle
                .wrapping_add(peer.packetThrottleAcceleration)
                .min(peer.packetThrottleLimit);
            return 1;
        } else if round_trip_time
            > peer
                .lastRoundTripTime
                .wrapping_add(peer.lastRoundTripTimeVariance.wrapping_mul(2))
        {
            peer.packetThrottle = peer
                .packetThrottle
                .saturating_sub(peer.packetThrottleDeceleration);
            return -1;
        }
        0
    }

    /// Folds a round-trip sample into the peer's estimate and throttle.
    pub(crate) fn update_round_trip_time(&mut self, round_trip_time: u32, now: u32) {
        if self.public.lastReceiveTime > 0 {
            self.throttle(round_trip_time);
            let peer = &mut *self.public;
            peer.roundTripTimeVariance -= peer.roundTripTimeVariance / 4;
            if round_trip_time >= peer.roundTripTime {
                let difference = round_trip_time - peer.roundTripTime;
                peer.roundTripTimeVariance += difference / 4;
                peer.roundTripTime += difference / 8;
            } else {
                let difference = peer.roundTripTime - round_trip_time;
                peer.roundTripTimeVariance += difference / 4;
                peer.roundTripTime -= difference / 8;
            }
        } else {
            let peer = &mut *self.public;
            peer.roundTripTime = round_trip_time;
            peer.roundTripTimeVariance = round_trip_time.div_ceil(2);
        }
        let peer = &mut *self.public;
        peer.lowestRoundTripTime = peer.lowestRoundTripTime.min(peer.roundTripTime);
        peer.highestRoundTripTimeVariance = peer
            .highestRoundTripTimeVariance
            .max(peer.roundTripTimeVariance);
        if peer.packetThrottleEpoch == 0
            || time_difference(now, peer.packetThrottleEpoch) >= peer.packetThrottleInterval
        {
            peer.lastRoundTripTime = peer.lowestRoundTripTime;
            peer.lastRoundTripTimeVariance = peer.highestRoundTripTimeVariance.max(1);
            peer.lowestRoundTripTime = peer.roundTripTime;
            peer.highestRoundTripTimeVariance = peer.roundTripTimeVariance;
            peer.packetThrottleEpoch = now;
        }
        peer.lastReceiveTime = now.max(1);
        peer.earliestTimeout = 0;
    }

    /// Every 10 s of sending, folds the loss ratio into `packetLoss`.
    pub(crate) fn update_packet_loss(&mut self, now: u32) {
        let peer = &mut *self.public;
        if peer.packetLossEpoch == 0 {
            peer.packetLossEpoch = now;
        } else if time_difference(now, peer.packetLossEpoch) >= ENET_PEER_PACKET_LOSS_INTERVAL
            && peer.packetsSent > 0
        {
            let packet_loss = (u64::from(peer.packetsLost) * u64::from(ENET_PEER_PACKET_LOSS_SCALE)
                / u64::from(peer.packetsSent)) as u32;
            peer.packetLossVariance =
                (peer.packetLossVariance * 3 + packet_loss.abs_diff(peer.packetLoss)) / 4;
            peer.packetLoss = (peer.packetLoss * 7 + packet_loss) / 8;
            peer.packetLossEpoch = now;
            peer.packetsSent = 0;
            peer.packetsLost = 0;
        }
    }
}
