//! The host's side of per-peer operations (stock `peer.c`): the logic
//! lives on the peer's view (`proto/peer/send.rs`, `sequencing.rs`), and
//! these carry out what it returns for the host (the send schedule, the
//! connected count, channel memory). Resetting a peer is in
//! `peer_reset.rs`, ending a connection in `disconnect.rs`.
use super::engine::{clear_list, Host};
use crate::abi::*;
use crate::mem::{CSlice, PacketView};
use crate::proto::peer::send::{SendLimits, Wake};
use crate::proto::peer::slot::{blank_channel, Receipts, SendError};
use crate::proto::state::channel_id::ChannelId;
use crate::proto::state::command::{OutgoingBody, OutgoingCommand};
use crate::proto::state::connected::counts_as_connected;
use crate::proto::state::peer_index::PeerIndex;
use crate::proto::state::sequence::ReliableSequence;
use crate::wire::command::CommandFlags;

impl Host {
    /// Gives the peer `count` fresh channels; false if allocation fails.
    pub(crate) fn allocate_channels(&mut self, index: PeerIndex, count: usize) -> bool {
        let Some(mut channels) = CSlice::new_with(count, |_| blank_channel()) else {
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

    /// `enet_peer_setup_outgoing_command`: numbers the command and queues it.
    pub(crate) fn setup_outgoing(&mut self, index: PeerIndex, command: OutgoingCommand) {
        let wake = self.peer_view(index).setup_outgoing(command);
        self.wake(index, wake);
    }

    /// Queues a connection-level (channel 0xFF) command.
    pub(crate) fn queue_control(
        &mut self,
        index: PeerIndex,
        flags: CommandFlags,
        body: OutgoingBody,
    ) {
        let wake = self.peer_view(index).queue_control(flags, body);
        self.wake(index, wake);
    }

    /// `enet_peer_send` within the host's limits (the logic is
    /// `PeerMut::send`, in `peer/send.rs`).
    #[inline(always)]
    pub fn send<'p>(
        &mut self,
        index: PeerIndex,
        channel_id: u8,
        packet: impl Into<PacketView<'p>>,
    ) -> Result<(), SendError> {
        let limits = SendLimits {
            maximum_packet_size: self.public.maximumPacketSize,
            checksum: self.public.checksum.is_some(),
        };
        let now = self.public.serviceTime;
        let wake =
            self.peer_view(index)
                .send(ChannelId::from(channel_id), packet.into(), limits, now)?;
        self.wake(index, wake);
        Ok(())
    }

    /// `enet_peer_ping`.
    pub fn ping(&mut self, index: PeerIndex) {
        let wake = self.peer_view(index).ping();
        self.wake(index, wake);
    }

    /// `enet_peer_ping_interval` (0 restores the default).
    pub fn set_ping_interval(&mut self, index: PeerIndex, interval: u32) {
        let wake = self.peer_view(index).set_ping_interval(interval);
        self.wake(index, wake);
    }

    /// `enet_peer_throttle_configure`: sets the throttle and tells the peer.
    pub fn throttle_configure(
        &mut self,
        index: PeerIndex,
        interval: u32,
        acceleration: u32,
        deceleration: u32,
    ) {
        let wake = self
            .peer_view(index)
            .throttle_configure(interval, acceleration, deceleration);
        self.wake(index, wake);
    }

    /// `enet_peer_queue_acknowledgement`: owes the peer an acknowledgement
    /// unless the command lies in the two windows just past the usable
    /// range (stock leaves those unacknowledged so the sender retries).
    // Always inlined into the receive loop, where every reliable command
    // earns one (the other callers are off the message path).
    #[inline(always)]
    pub(crate) fn queue_acknowledgement(
        &mut self,
        index: PeerIndex,
        channel_id: ChannelId,
        reliable_sequence_number: ReliableSequence,
        command_number: u8,
        sent_time: u16,
    ) -> bool {
        let queued = self.peer_view(index).queue_acknowledgement(
            channel_id,
            reliable_sequence_number,
            command_number,
            sent_time,
        );
        if queued {
            self.engine.schedule.mark_ready(index);
        }
        queued
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
