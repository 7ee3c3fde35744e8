//! Resetting a peer's slot (stock `enet_peer_reset` and
//! `enet_peer_reset_queues`). What belongs to the peer (its fields, queues
//! and channels) is reset on its view; the host then settles its own
//! books: the connection counts, the dispatch queue, the handles'
//! generation and the send schedule.

use super::engine::Host;
use crate::abi::*;
use crate::proto::peer::slot::{PeerMut, NEEDS_DISPATCH};
use crate::proto::state::peer_index::PeerIndex;
use crate::proto::state::recovery::ResendCounts;

use ENetPeerState::*;

/// A peer that was waiting in the host's dispatch queue when its queues
/// were dropped: the host must take it out.
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LeftDispatchQueue(pub(crate) bool);

impl PeerMut<'_> {
    /// Back to DISCONNECTED with every default, for a host whose MTU is
    /// `mtu` (the host forgets any loss recovery of the peer's own).
    ///
    /// The flags (NEEDS_DISPATCH among them) are cleared before the queues
    /// go, as stock does, so a peer waiting for dispatch stays in the
    /// host's queue; dispatch passes over it, since a DISCONNECTED peer
    /// reports nothing.
    pub(crate) fn reset(&mut self, mtu: u32) {
        let peer = &mut *self.public;
        peer.outgoingPeerID = ENET_PROTOCOL_MAXIMUM_PEER_ID as u16;
        peer.connectID = 0;
        peer.state = ENET_PEER_STATE_DISCONNECTED;
        peer.incomingBandwidth = 0;
        peer.outgoingBandwidth = 0;
        peer.incomingBandwidthThrottleEpoch = 0;
        peer.outgoingBandwidthThrottleEpoch = 0;
        peer.incomingDataTotal = 0;
        peer.outgoingDataTotal = 0;
        peer.lastSendTime = 0;
        peer.lastReceiveTime = 0;
        peer.nextTimeout = 0;
        peer.earliestTimeout = 0;
        peer.packetLossEpoch = 0;
        peer.packetsSent = 0;
        peer.packetsLost = 0;
        peer.packetLoss = 0;
        peer.packetLossVariance = 0;
        peer.packetThrottle = ENET_PEER_DEFAULT_PACKET_THROTTLE;
        peer.packetThrottleLimit = ENET_PEER_PACKET_THROTTLE_SCALE;
        peer.packetThrottleCounter = 0;
        peer.packetThrottleEpoch = 0;
        peer.packetThrottleAcceleration = ENET_PEER_PACKET_THROTTLE_ACCELERATION;
        peer.packetThrottleDeceleration = ENET_PEER_PACKET_THROTTLE_DECELERATION;
        peer.packetThrottleInterval = ENET_PEER_PACKET_THROTTLE_INTERVAL;
        peer.pingInterval = ENET_PEER_PING_INTERVAL;
        peer.timeoutLimit = ENET_PEER_TIMEOUT_LIMIT;
        peer.timeoutMinimum = ENET_PEER_TIMEOUT_MINIMUM;
        peer.timeoutMaximum = ENET_PEER_TIMEOUT_MAXIMUM;
        peer.lastRoundTripTime = ENET_PEER_DEFAULT_ROUND_TRIP_TIME;
        peer.lowestRoundTripTime = ENET_PEER_DEFAULT_ROUND_TRIP_TIME;
        peer.lastRoundTripTimeVariance = 0;
        peer.highestRoundTripTimeVariance = 0;
        peer.roundTripTime = ENET_PEER_DEFAULT_ROUND_TRIP_TIME;
        peer.roundTripTimeVariance = 0;
        peer.mtu = mtu;
        peer.reliableDataInTransit = 0;
        peer.outgoingReliableSequenceNumber = 0;
        peer.windowSize = ENET_PROTOCOL_MAXIMUM_WINDOW_SIZE;
        peer.incomingUnsequencedGroup = 0;
        peer.outgoingUnsequencedGroup = 0;
        peer.eventData = 0;
        peer.totalWaitingData = 0;
        peer.flags = 0;
        peer.unsequencedWindow = [0; (ENET_PEER_UNSEQUENCED_WINDOW_SIZE / 32) as usize];
        let left = self.drop_queues();
        debug_assert_eq!(left, LeftDispatchQueue(false), "flags cleared above");
    }

    /// Drops every queued command and packet and the channels, taking
    /// what was waiting off the peer's waiting-data count.
    pub(crate) fn drop_queues(&mut self) -> LeftDispatchQueue {
        let peer = &mut *self.public;
        let was_queued = peer.flags & NEEDS_DISPATCH != 0;
        peer.flags &= !NEEDS_DISPATCH;
        let slot = &mut *self.slot;
        let mut dropped_waiting = 0;
        if let Some(command) = slot.take_parked() {
            command.discard();
        }
        if let Some(mut queues) = slot.take_queues() {
            for command in queues
                .sent_reliable
                .drain()
                .chain(queues.outgoing.take_all())
            {
                command.discard();
            }
            for delivery in queues.dispatched.drain(..) {
                dropped_waiting += delivery.packet.len();
                delivery.packet.release();
            }
            dropped_waiting += queues.drop_held();
        }
        peer.totalWaitingData = peer.totalWaitingData.saturating_sub(dropped_waiting);
        slot.channels = None;
        peer.channels = core::ptr::null_mut();
        peer.channelCount = 0;
        LeftDispatchQueue(was_queued)
    }
}

impl Host {
    /// `enet_peer_reset`: back to DISCONNECTED with defaults, no notice to
    /// the remote end.
    pub fn reset_peer(&mut self, index: PeerIndex) {
        self.on_disconnect(index);
        let mtu = self
            .mtu_ceiling()
            .map_or(self.public.mtu, |ceiling| ceiling.min(self.public.mtu));
        self.peer_view(index).reset(mtu);
        self.engine.recovery.forget(index);
        self.engine.resends[index] = ResendCounts::default();
        self.engine.retransmitted_bytes.clear(index);
        self.engine.send_limits.forget(index);
        self.engine.receipts.remove(&index);
        self.next_generation(index);
        self.engine.schedule.cancel_timers(index);
    }

    /// `enet_peer_reset_queues`: drops every queued command and packet and
    /// the channels.
    pub fn reset_queues(&mut self, index: PeerIndex) {
        if let LeftDispatchQueue(true) = self.peer_view(index).drop_queues() {
            self.engine.dispatch_queue.retain(|&queued| queued != index);
        }
        self.engine.receipts.remove(&index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::channels::ChannelArray;
    use crate::proto::host::engine::HostSettings;
    use crate::proto::peer::slot::blank_channel;
    use crate::proto::peer::slot::LonePeer;
    use crate::proto::state::recovery::LossRecovery;

    #[test]
    fn dropping_queues_reports_a_peer_waiting_for_dispatch() {
        let mut peer = LonePeer::new();
        peer.public.flags = NEEDS_DISPATCH;
        peer.public.channelCount = 3;
        let mut view = peer.view();
        view.slot.channels = ChannelArray::new(3, blank_channel);
        assert_eq!(view.drop_queues(), LeftDispatchQueue(true));
        assert!(view.slot.channels.is_none(), "channels freed");
        assert_eq!(view.drop_queues(), LeftDispatchQueue(false));
        assert_eq!(peer.public.flags & NEEDS_DISPATCH, 0);
        assert_eq!(peer.public.channelCount, 0);
        assert!(peer.public.channels.is_null());
    }

    #[test]
    fn a_reset_peer_is_disconnected_with_the_host_defaults() {
        let mut peer = LonePeer::new();
        peer.public.state = ENET_PEER_STATE_ZOMBIE;
        peer.public.flags = NEEDS_DISPATCH;
        peer.public.eventData = 9;
        peer.public.packetThrottle = 3;
        peer.public.mtu = 576;
        peer.view().reset(1400);
        let public = &peer.public;
        assert_eq!(public.state, ENET_PEER_STATE_DISCONNECTED);
        assert_eq!(public.flags, 0);
        assert_eq!(public.eventData, 0);
        assert_eq!(public.packetThrottle, ENET_PEER_DEFAULT_PACKET_THROTTLE);
        assert_eq!(public.mtu, 1400);
    }

    #[test]
    fn a_peers_own_loss_recovery_lasts_until_its_reset() {
        let mut host = Host::create(HostSettings::for_tests(2)).expect("host");
        let [first, second] = [0, 1].map(PeerIndex::for_tests);
        let host_wide = LossRecovery {
            fast_resend: 2,
            ..LossRecovery::default()
        };
        let own = LossRecovery {
            fast_resend: 5,
            ..LossRecovery::default()
        };
        host.set_loss_recovery(host_wide);
        host.set_peer_loss_recovery(first, own);
        assert_eq!(host.peer_loss_recovery(first), own.sanitized());
        assert_eq!(host.peer_view(first).recovery, &own.sanitized());
        assert_eq!(host.peer_loss_recovery(second), host_wide.sanitized());
        assert_eq!(host.peer_view(second).recovery, &host_wide.sanitized());
        host.reset_peer(first);
        assert_eq!(host.peer_loss_recovery(first), host_wide.sanitized());
        // A host-wide setting replaces every peer's own.
        host.set_peer_loss_recovery(second, own);
        host.set_loss_recovery(LossRecovery::default());
        assert_eq!(host.peer_loss_recovery(second), LossRecovery::default());
    }

    #[test]
    fn a_reset_forgets_what_the_loss_recovery_did() {
        use crate::proto::state::recovery::{RecoveryCounts, RecoveryStats};
        let mut host = Host::create(HostSettings::for_tests(2)).expect("host");
        let [first, second] = [0, 1].map(PeerIndex::for_tests);
        let mut resent = RecoveryCounts::default();
        resent.count(100, true);
        resent.count(0, false);
        host.engine.record(first, resent);
        host.engine.record(second, resent);
        host.engine.record(first, RecoveryCounts::default());
        let (stats, _) = host.peer_recovery_stats(first);
        assert_eq!(stats.retransmitted_bytes, 100);
        assert_eq!((stats.fast_retransmits, stats.timeouts), (1, 1));
        host.reset_peer(first);
        assert_eq!(host.peer_recovery_stats(first).0, RecoveryStats::default());
        assert_eq!(
            host.peer_recovery_stats(second).0,
            stats,
            "another peer's stay"
        );
    }
}
