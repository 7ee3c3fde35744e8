//! The host's side of per-peer operations (stock `peer.c`): the logic
//! lives on the peer's view (`proto/peer/send.rs`, `sequencing.rs`,
//! `ordering.rs`), and the host carries out what it returns (the send
//! schedule, the dispatch queue, the connected count, channel memory).
//! Sending, pings, the throttle's settings, acknowledgements and the
//! delivery of received packets have no method here: [`Host::with_peer`]
//! lends the view to any of them and carries out the [`Wake`] and
//! [`Delivered`] they return. Resetting a peer is in `peer_reset.rs`,
//! ending a connection in `disconnect.rs`.
//!
//! [`Delivered`]: crate::proto::peer::Delivered
use super::engine::{clear_list, Host};
use crate::abi::*;
use crate::mem::channels::ChannelArray;
use crate::proto::peer::send::{PeerEffect, SendExtras, SendTerms, Wake};
use crate::proto::peer::slot::{blank_channel, PeerMut, Receipts};
use crate::proto::state::channel_id::ChannelId;
use crate::proto::state::connected::counts_as_connected;
use crate::proto::state::peer_index::PeerIndex;

impl Host {
    /// Gives the peer `count` fresh channels; false if allocation fails.
    pub(crate) fn allocate_channels(&mut self, index: PeerIndex, count: usize) -> bool {
        let Some(mut channels) = ChannelArray::new(count, blank_channel) else {
            return false;
        };
        for channel in channels.iter_mut() {
            clear_list(&mut channel.incomingReliableCommands);
            clear_list(&mut channel.incomingUnreliableCommands);
        }
        let peer = &mut self.engine.peers[index];
        peer.channels = channels.as_mut_ptr();
        peer.channelCount = count;
        let slot = &mut self.engine.slots[index];
        slot.channels = Some(channels);
        if let Some(queues) = slot.queues_if_any() {
            // A new connection: nothing can be waiting on the reset peer.
            queues.drop_held();
        }
        true
    }

    pub(crate) fn channel_mut(
        &mut self,
        index: PeerIndex,
        channel_id: ChannelId,
    ) -> Option<&mut ENetChannel> {
        // The slot and the channel count alone, without a whole view.
        let count = self.engine.peers[index].channelCount;
        self.engine.slots[index].channel(count, channel_id)
    }

    /// `enet_peer_on_connect`: counts the peer as connected.
    pub fn on_connect(&mut self, index: PeerIndex) {
        let peer = &self.engine.peers[index];
        if !counts_as_connected(peer.state) {
            if peer.incomingBandwidth != 0 {
                self.public.bandwidthLimitedPeers += 1;
            }
            self.engine.connected.insert(index);
            self.public.connectedPeers = self.engine.connected.len();
        }
    }

    /// `enet_peer_on_disconnect`: stops counting the peer as connected.
    pub fn on_disconnect(&mut self, index: PeerIndex) {
        let peer = &self.engine.peers[index];
        if counts_as_connected(peer.state) {
            if peer.incomingBandwidth != 0 {
                self.public.bandwidthLimitedPeers =
                    self.public.bandwidthLimitedPeers.saturating_sub(1);
            }
            self.engine.connected.remove(index);
            self.public.connectedPeers = self.engine.connected.len();
        }
    }

    /// Marks the peer for the send pass if a step on it asks so.
    #[inline(always)]
    pub(crate) fn wake(&mut self, index: PeerIndex, wake: Wake) {
        if wake.visit {
            self.engine.schedule.mark_ready(index);
        }
    }

    /// Lends the peer in slot `index` to `op`, an operation on that one
    /// peer (`PeerMut::send`, `ping`, `set_ping_interval`,
    /// `throttle_configure`, `queue_acknowledgement`, `receive`, ...), with
    /// the host's [`SendTerms`]; carries out the [`Wake`] and
    /// [`Delivered`] it returns (the one place they are) and gives back the
    /// rest of its answer:
    ///
    /// ```text
    /// host.with_peer(index, |peer, terms| peer.send(channel, packet, terms))?;
    /// host.with_peer(index, |peer, _| peer.ping());
    /// ```
    ///
    /// [`Delivered`]: crate::proto::peer::Delivered
    // Always inlined: `enet_peer_send` runs through it, and the one slot
    // look-up and the wake fold into that call. A caller on a message
    // path marks its closure `#[inline(always)]` too (a closure is only a
    // candidate for inlining, and the send it wraps is large).
    #[inline(always)]
    pub fn with_peer<E: PeerEffect>(
        &mut self,
        index: PeerIndex,
        op: impl FnOnce(&mut PeerMut<'_>, SendTerms<'_>) -> E,
    ) -> E::Answer {
        let engine = &mut self.engine;
        let terms = SendTerms {
            maximum_packet_size: self.public.maximumPacketSize,
            checksum: self.public.checksum.is_some(),
            now: self.public.serviceTime,
            extras: SendExtras {
                index,
                limits: &engine.send_limits,
                path: &engine.path,
            },
        };
        let mut view = PeerMut {
            public: &mut engine.peers[index],
            slot: &mut engine.slots[index],
            recovery: engine.recovery.of(index),
        };
        let (answer, wake, delivered) = op(&mut view, terms).split();
        self.wake(index, wake);
        if delivered.any {
            self.mark_dispatch(index);
        }
        answer
    }

    /// [`Host::with_peer`] for the host's own rare steps on one peer (a
    /// ping from the send pass, a connect, an answer, a disconnect, a
    /// bandwidth limit): the same, kept out of line, so the loops that
    /// take such a step now and then keep the code of their common case
    /// compact.
    #[inline(never)]
    pub(in crate::proto::host) fn with_peer_rarely<E: PeerEffect>(
        &mut self,
        index: PeerIndex,
        op: impl FnOnce(&mut PeerMut<'_>, SendTerms<'_>) -> E,
    ) -> E::Answer {
        self.with_peer(index, op)
    }

    /// Where the internal queue exports keep the objects they return.
    pub fn receipts_mut(&mut self, index: PeerIndex) -> &mut Receipts {
        self.engine.receipts.entry(index).or_default()
    }

    /// Whether the peer still has commands queued or unacknowledged
    /// (1.3.18's `enet_peer_has_outgoing_commands`).
    pub fn has_outgoing_commands(&self, index: PeerIndex) -> bool {
        let slot = &self.engine.slots[index];
        !(slot.outgoing_is_empty() && slot.sent_reliable_is_empty())
    }
}
