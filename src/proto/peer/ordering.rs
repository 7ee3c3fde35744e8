//! Receive-side ordering on one peer's view (stock
//! `enet_peer_queue_incoming_command` for whole packets, and the two
//! dispatch functions): what a received packet does to its channel's
//! sequence, what becomes deliverable, what is dropped as passed.
//!
//! Delivery rules, as stock: reliable packets in sequence order, exactly
//! once; unreliable packets only for the reliable sequence number they were
//! sent after, in order, never older than one already delivered;
//! unsequenced packets at once, duplicates suppressed by the peer's window.
//!
//! Each operation returns whether it put anything on the peer's delivery
//! queue ([`Delivered`]): queueing the peer for dispatch is the host's,
//! which `Host::with_peer` does. Fragmented packets need the host-wide
//! reassembly budget and are the host's (`delivery.rs`): it asks here
//! where a fragment goes on its channel ([`FragmentPlace`]) and comes back
//! here once a packet is complete.

use crate::proto::state::channel_id::ChannelId;
use std::collections::BTreeMap;

use super::send::{Delivered, PeerEffect, Wake};
use super::slot::PeerMut;
use crate::abi::*;
use crate::mem::PacketFlags;
use crate::mem::PacketRef;
use crate::proto::state::channel::{Held, Incoming, Queued, Sequencing};
use crate::proto::state::command::number;
use crate::proto::state::sequence::{ReliableSequence, UnreliableSequence};

/// What a received payload command did: its caller's answer, and whether
/// packets went on the delivery queue (the host's event dispatch must pick
/// the peer up).
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Received {
    queued: Queued,
    delivered: bool,
}

impl PeerEffect for Received {
    type Answer = Queued;
    #[inline(always)]
    fn split(self) -> (Queued, Wake, Delivered) {
        let delivered = Delivered {
            any: self.delivered,
        };
        (self.queued, Wake::NOTHING, delivered)
    }
}

impl Received {
    fn new(queued: Queued) -> Self {
        Received {
            queued,
            delivered: false,
        }
    }
}

/// Where a received fragment goes on its channel: into a packet already
/// held there, into a new one the host starts (within its reassembly
/// budget), or nowhere (the command is refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FragmentPlace {
    Joins,
    Starts,
    Refused,
}

impl PeerMut<'_> {
    /// The packet for a received command, within the waiting-data budget
    /// `limit` (the host's `maximumWaitingData`).
    // Always inlined into the queueing of a received command, once per
    // message: the packet is made without a call of its own.
    #[inline(always)]
    pub(crate) fn new_incoming_packet(
        &mut self,
        limit: usize,
        data: &[u8],
        flags: PacketFlags,
    ) -> Option<PacketRef> {
        if !self.waiting_room(limit) {
            return None;
        }
        self.make_incoming_packet(data, flags)
    }

    /// The packet for a received command the budget already admitted.
    #[inline(always)]
    fn make_incoming_packet(&mut self, data: &[u8], flags: PacketFlags) -> Option<PacketRef> {
        let packet = PacketRef::new_with_data(data, flags)?;
        self.public.totalWaitingData += packet.len();
        Some(packet)
    }

    /// A reliable command `sequence` that the full waiting-data budget
    /// `limit` refused: queued anyway if it is next in order on the
    /// channel and the channel holds commands (which only it, and the
    /// reliable ones after it, can release), within twice the budget; else
    /// refused.
    ///
    /// Refusing it would keep them, and itself however often it is resent,
    /// waiting for good. That is what an unreliable flood that outruns its
    /// receiver does: the receiver's socket drops the datagram of one of
    /// the reliable commands a sender makes of every 65536th unreliable
    /// message (and maybe of the next ones too), the unreliable messages
    /// sent after them are held until they fill the budget, and then the
    /// resent reliable commands are refused for want of room. Queued, it
    /// is delivered at once (it is next in order), so what it adds leaves
    /// as soon as the program takes its events.
    #[cold]
    #[inline(never)]
    fn over_budget_reliable(
        &mut self,
        channel_id: ChannelId,
        sequence: ReliableSequence,
        data: &[u8],
        limit: usize,
        now: u32,
    ) -> Received {
        let Some(channel) = self.channel(channel_id) else {
            return Received::new(Queued::Error);
        };
        let current = ReliableSequence::new(channel.incomingReliableSequenceNumber);
        let Some(held) = self.slot.holding(channel_id) else {
            return Received::new(Queued::Error);
        };
        let in_order = held.holds_no_reliable();
        let holds_any = !in_order || !held.holds_no_unreliable();
        if sequence != current.next() || !holds_any || !self.waiting_room(limit.saturating_mul(2)) {
            return Received::new(Queued::Error);
        }
        let Some(packet) = self.make_incoming_packet(data, PacketFlags::RELIABLE) else {
            return Received::new(Queued::Error);
        };
        if in_order {
            self.deliver(channel_id, packet, now);
            self.reliable_advanced(channel_id, sequence, false, now);
            return Received {
                queued: Queued::Accepted,
                delivered: true,
            };
        }
        let whole = Incoming::whole(number::SEND_RELIABLE, packet);
        self.hold_reliable(channel_id, sequence, whole);
        Received {
            queued: Queued::Accepted,
            delivered: self.deliver_next_reliable(channel_id, now),
        }
    }

    /// Queues a received SEND_RELIABLE, SEND_UNRELIABLE or SEND_UNSEQUENCED
    /// at service time `now`, within the waiting-data budget `limit`.
    pub(crate) fn queue_incoming(
        &mut self,
        channel_id: ChannelId,
        sequencing: Sequencing,
        data: &[u8],
        limit: usize,
        now: u32,
    ) -> Received {
        if self.public.state == ENetPeerState::ENET_PEER_STATE_DISCONNECT_LATER {
            return Received::new(Queued::Discarded);
        }
        let Some(channel) = self.channel(channel_id) else {
            return Received::new(Queued::Error);
        };
        let current = ReliableSequence::new(channel.incomingReliableSequenceNumber);
        let current_unreliable = UnreliableSequence::new(channel.incomingUnreliableSequenceNumber);
        let held = self.slot.holding(channel_id);
        match sequencing {
            Sequencing::Reliable { sequence } => {
                if !sequence.in_receive_window(current)
                    || sequence == current
                    || held.is_some_and(|held| held.holds_reliable(sequence))
                {
                    return Received::new(Queued::Discarded);
                }
                let in_order =
                    sequence == current.next() && held.is_none_or(|held| held.holds_no_reliable());
                if !self.waiting_room(limit) {
                    return self.over_budget_reliable(channel_id, sequence, data, limit, now);
                }
                let Some(packet) = self.make_incoming_packet(data, PacketFlags::RELIABLE) else {
                    return Received::new(Queued::Error);
                };
                if in_order {
                    // The common case: next in sequence, nothing held before
                    // or after it, so it goes straight to the program.
                    self.deliver(channel_id, packet, now);
                    self.reliable_advanced(channel_id, sequence, false, now);
                    return Received {
                        queued: Queued::Accepted,
                        delivered: true,
                    };
                }
                let whole = Incoming::whole(number::SEND_RELIABLE, packet);
                self.hold_reliable(channel_id, sequence, whole);
                Received {
                    queued: Queued::Accepted,
                    delivered: self.deliver_next_reliable(channel_id, now),
                }
            }
            Sequencing::Unreliable {
                sequence,
                unreliable,
            } => {
                if !sequence.in_receive_window(current)
                    || (sequence == current && unreliable <= current_unreliable)
                    || held.is_some_and(|held| held.holds_unreliable(sequence, unreliable))
                {
                    return Received::new(Queued::Discarded);
                }
                let Some(packet) = self.new_incoming_packet(limit, data, PacketFlags::NONE) else {
                    return Received::new(Queued::Error);
                };
                if sequence != current {
                    let whole = Incoming::whole(number::SEND_UNRELIABLE, packet);
                    self.hold_unreliable(channel_id, sequence, unreliable, whole);
                    return Received::new(Queued::Accepted);
                }
                if let Some(channel) = self.channel(channel_id) {
                    channel.incomingUnreliableSequenceNumber = unreliable.get();
                }
                self.deliver(channel_id, packet, now);
                Received {
                    queued: Queued::Accepted,
                    delivered: true,
                }
            }
            Sequencing::Unsequenced => {
                let Some(packet) = self.new_incoming_packet(limit, data, PacketFlags::UNSEQUENCED)
                else {
                    return Received::new(Queued::Error);
                };
                self.deliver(channel_id, packet, now);
                Received {
                    queued: Queued::Accepted,
                    delivered: true,
                }
            }
        }
    }

    /// Where a reliable fragment of the packet numbered `first` goes. A
    /// new packet is refused while the peer disconnects once its queues
    /// drain, and under the number the channel has delivered already.
    pub(crate) fn place_reliable_fragment(
        &mut self,
        channel_id: ChannelId,
        first: ReliableSequence,
    ) -> FragmentPlace {
        let Some(channel) = self.channel(channel_id) else {
            return FragmentPlace::Refused;
        };
        let current = ReliableSequence::new(channel.incomingReliableSequenceNumber);
        if self.slot.incoming(channel_id).holds_reliable(first) {
            FragmentPlace::Joins
        } else if self.public.state == ENetPeerState::ENET_PEER_STATE_DISCONNECT_LATER
            || first == current
        {
            FragmentPlace::Refused
        } else {
            FragmentPlace::Starts
        }
    }

    /// Where an unreliable fragment of the packet numbered `first`, sent
    /// after reliable number `sequence`, goes. A new packet is refused
    /// while the peer disconnects once its queues drain.
    pub(crate) fn place_unreliable_fragment(
        &mut self,
        channel_id: ChannelId,
        sequence: ReliableSequence,
        first: UnreliableSequence,
    ) -> FragmentPlace {
        if self.channel(channel_id).is_none() {
            FragmentPlace::Refused
        } else if self
            .slot
            .incoming(channel_id)
            .holds_unreliable(sequence, first)
        {
            FragmentPlace::Joins
        } else if self.public.state == ENetPeerState::ENET_PEER_STATE_DISCONNECT_LATER {
            FragmentPlace::Refused
        } else {
            FragmentPlace::Starts
        }
    }

    /// Delivers every reliable packet of the channel that is next in
    /// sequence and complete, at service time `now` (the host's step once
    /// a fragmented one is complete).
    pub(crate) fn dispatch_reliable(&mut self, channel_id: ChannelId, now: u32) -> Delivered {
        Delivered {
            any: self.deliver_next_reliable(channel_id, now),
        }
    }

    /// Delivers every reliable packet that is next in sequence and
    /// complete; whether there was one.
    fn deliver_next_reliable(&mut self, channel_id: ChannelId, now: u32) -> bool {
        let mut advanced = false;
        loop {
            let Some(channel) = self.channel(channel_id) else {
                return advanced;
            };
            let next = ReliableSequence::new(channel.incomingReliableSequenceNumber).next();
            if !self.slot.incoming(channel_id).reliable_is_complete(next) {
                return advanced;
            }
            let Some(incoming) = self.unhold_reliable(channel_id, next) else {
                return advanced;
            };
            let span = incoming.sequence_span();
            if let Held::Packet(packet) = incoming.held {
                self.deliver(channel_id, packet, now);
            }
            advanced = true;
            // The channel advances one reliable packet at a time, so the
            // unreliable packets sent between this one and the next go out
            // before the next: advancing past both at once would leave them
            // under a passed number, dropped.
            self.reliable_advanced(channel_id, next.plus(span.wrapping_sub(1)), span > 1, now);
        }
    }

    /// After reliable delivery moved the channel to `current` (stored
    /// here): the unreliable sequence starts over, and what was held under
    /// numbers now passed is dropped. `skipped_sequences` says a fragmented
    /// packet took several numbers at once, so reliable commands may be
    /// held under numbers now behind us (only a broken sender puts them
    /// there). Whether unreliable packets were delivered.
    // Always inlined: an in-order reliable packet advances the channel on
    // every message; the rare clean-up of passed numbers stays a call.
    #[inline(always)]
    fn reliable_advanced(
        &mut self,
        channel_id: ChannelId,
        current: ReliableSequence,
        skipped_sequences: bool,
        now: u32,
    ) -> bool {
        let Some(channel) = self.channel(channel_id) else {
            return false;
        };
        channel.incomingReliableSequenceNumber = current.get();
        channel.incomingUnreliableSequenceNumber = 0;
        if skipped_sequences {
            self.drop_passed_reliable(channel_id, current);
        }
        self.release_unreliable_after_advance(channel_id, current, now)
    }

    /// Drops the reliable commands held under numbers the channel's
    /// sequence `current` has now passed.
    #[cold]
    #[inline(never)]
    fn drop_passed_reliable(&mut self, channel_id: ChannelId, current: ReliableSequence) {
        let stale: Vec<ReliableSequence> = self
            .slot
            .incoming(channel_id)
            .reliable_sequences()
            .filter(|&sequence| sequence == current || !sequence.in_receive_window(current))
            .collect();
        for sequence in stale {
            if let Some(incoming) = self.unhold_reliable(channel_id, sequence) {
                self.drop_held(incoming);
            }
        }
    }

    /// After the reliable sequence reached `current`: deliver what was held
    /// for it, drop what was held for numbers now passed.
    fn release_unreliable_after_advance(
        &mut self,
        channel_id: ChannelId,
        current: ReliableSequence,
        now: u32,
    ) -> bool {
        let Some(held) = self.slot.holding(channel_id) else {
            return false;
        };
        if held.holds_no_unreliable() {
            return false;
        }
        let passed: Vec<ReliableSequence> = held
            .unreliable_sequences()
            .filter(|&sequence| sequence != current && !sequence.in_receive_window(current))
            .collect();
        for sequence in passed {
            if let Some(held) = self.unhold_unreliable_group(channel_id, sequence) {
                for incoming in held.into_values() {
                    self.drop_held(incoming);
                }
            }
        }
        self.deliver_held_unreliable(channel_id, now)
    }

    /// Once an unreliable packet sent after reliable number `sequence` is
    /// complete: if that is the channel's current number, delivers the
    /// complete unreliable packets held for it, at service time `now`.
    pub(crate) fn unreliable_completed(
        &mut self,
        channel_id: ChannelId,
        sequence: ReliableSequence,
        now: u32,
    ) -> Delivered {
        let current = self
            .channel(channel_id)
            .map(|channel| ReliableSequence::new(channel.incomingReliableSequenceNumber));
        Delivered {
            any: current == Some(sequence) && self.deliver_held_unreliable(channel_id, now),
        }
    }

    /// Delivers, in order, the complete unreliable packets held for the
    /// current reliable sequence number; drops any older than one already
    /// delivered. Whether there was one to deliver.
    fn deliver_held_unreliable(&mut self, channel_id: ChannelId, now: u32) -> bool {
        let Some(channel) = self.channel(channel_id) else {
            return false;
        };
        let current = ReliableSequence::new(channel.incomingReliableSequenceNumber);
        let mut last_delivered = UnreliableSequence::new(channel.incomingUnreliableSequenceNumber);
        let Some(held) = self.unhold_unreliable_group(channel_id, current) else {
            return false;
        };
        let mut delivered = false;
        let mut kept = BTreeMap::new();
        for (unreliable, incoming) in held.into_iter() {
            if !incoming.is_complete() {
                kept.insert(unreliable, incoming);
            } else if unreliable > last_delivered {
                last_delivered = unreliable;
                if let Held::Packet(packet) = incoming.held {
                    self.deliver(channel_id, packet, now);
                    delivered = true;
                }
            } else {
                self.drop_held(incoming);
            }
        }
        // Partial packets older than what was just delivered can only ever
        // arrive stale: drop them now rather than hold their memory.
        let (stale, kept): (BTreeMap<_, _>, BTreeMap<_, _>) = kept
            .into_iter()
            .partition(|(unreliable, _)| *unreliable <= last_delivered);
        for incoming in stale.into_values() {
            self.drop_held(incoming);
        }
        if let Some(channel) = self.channel(channel_id) {
            channel.incomingUnreliableSequenceNumber = last_delivered.get();
        }
        for (unreliable, incoming) in kept {
            self.hold_unreliable(channel_id, current, unreliable, incoming);
        }
        delivered
    }
}
