//! A channel's receive-side state: the commands it holds until they can
//! be delivered ([`IncomingChannel`]), keyed by their sequence numbers
//! (`sequence.rs`, which also has the receive window), and what queueing
//! a command did. The sequencing itself, which needs the peer and the
//! host, is in `peer/ordering.rs` and `host/delivery.rs`.

use std::collections::BTreeMap;

use super::channel_id::ChannelId;
use super::reassembly::Reassembly;
use super::sequence::{ReliableSequence, UnreliableSequence};
use super::sequence_map::SequenceMap;
use super::unreliable_group::UnreliableGroup;
use crate::mem::PacketRef;

/// A received command held until it can be delivered.
#[derive(Debug)]
pub struct Incoming {
    pub command_number: u8,
    /// Reliable sequence numbers it occupies (a fragmented packet takes
    /// one per fragment).
    pub(crate) span: u16,
    pub(crate) held: Held,
}

/// What a held command holds.
#[derive(Debug)]
pub(crate) enum Held {
    /// A whole packet, ready once its turn comes.
    Packet(PacketRef),
    /// A fragmented packet still missing fragments (boxed: it is larger
    /// than everything else a held command needs).
    Fragments(Box<Reassembly>),
}

impl Incoming {
    pub(crate) fn whole(command_number: u8, packet: PacketRef) -> Self {
        Incoming {
            command_number,
            span: 1,
            held: Held::Packet(packet),
        }
    }

    pub(crate) fn is_complete(&self) -> bool {
        matches!(self.held, Held::Packet(_))
    }

    pub(crate) fn sequence_span(&self) -> u16 {
        self.span
    }

    /// What it counts in the peer's `totalWaitingData`: the packet's bytes,
    /// or for a reassembly the length it claims (as stock, which allocates
    /// that much at the first fragment).
    pub(crate) fn waiting_len(&self) -> usize {
        match &self.held {
            Held::Packet(packet) => packet.len(),
            Held::Fragments(reassembly) => reassembly.total() as usize,
        }
    }

    /// Gives up what it holds.
    pub(crate) fn release(self) {
        if let Held::Packet(packet) = self.held {
            packet.release();
        }
    }
}

/// The ordering state of one channel beside its public `ENetChannel`.
///
/// In-order traffic never enters these maps: a reliable packet that is
/// next in sequence while nothing is held, and an unreliable one for the
/// current reliable number, are delivered at once. The maps hold only what
/// arrived early or half reassembled, keyed by raw sequence number (exact
/// look-ups only, so wrap-around needs no ordering), without hashing. They
/// are allocated while something is held, so an idle channel costs one
/// pointer.
#[derive(Debug, Default)]
pub struct IncomingChannel {
    held: Option<Box<HeldMaps>>,
}

#[derive(Debug, Default)]
struct HeldMaps {
    /// Reliable commands ahead of the next expected, by sequence number
    /// (a fragmented packet by its first fragment's), in a ring indexed by
    /// sequence number: they cluster ahead of the gap they wait behind.
    reliable: SequenceMap<Incoming>,
    /// Unreliable commands by the reliable sequence number they follow,
    /// then by unreliable sequence number: partial fragments of the current
    /// one, and anything for reliable numbers not reached yet.
    unreliable: BTreeMap<u16, UnreliableGroup<Incoming>>,
}

/// The ordering state of each of a peer's channels. Allocated when one of
/// them first holds a command and freed when the peer goes idle with none
/// holding anything (`PeerSlot::release_if_idle`), so a peer whose traffic
/// arrived in order (most of thousands of idle peers) costs one pointer in
/// its queue set and no allocation, and a busy one does not allocate it per
/// message. It lives in the queue set, which only a peer with traffic has,
/// so its two words cost nothing per idle peer, and a held command's
/// look-up takes one step.
#[derive(Debug, Default)]
pub struct IncomingChannels(Option<Box<[IncomingChannel]>>);

/// What a channel of a peer without ordering state reads as.
pub(crate) const NOTHING_HELD: &IncomingChannel = &IncomingChannel { held: None };

impl core::ops::Index<ChannelId> for IncomingChannels {
    type Output = IncomingChannel;

    /// Channel `channel`'s state (an empty one while the peer has none).
    fn index(&self, channel: ChannelId) -> &IncomingChannel {
        match &self.0 {
            Some(channels) => &channels[channel.index()],
            None => NOTHING_HELD,
        }
    }
}

impl IncomingChannels {
    /// Channel `channel`'s state, if the peer has any: what a command taken
    /// out of a channel is looked up in.
    pub(crate) fn get_mut(&mut self, channel: ChannelId) -> Option<&mut IncomingChannel> {
        self.0.as_deref_mut()?.get_mut(channel.index())
    }

    /// Channel `channel`'s state among the peer's `count` channels, made
    /// for all of them first if the peer has none: what a command is held
    /// in.
    pub(crate) fn get_or_make(
        &mut self,
        channel: ChannelId,
        count: usize,
    ) -> Option<&mut IncomingChannel> {
        let index = channel.index();
        if index >= count {
            return None;
        }
        self.0
            .get_or_insert_with(|| (0..count).map(|_| IncomingChannel::default()).collect())
            .get_mut(index)
    }

    /// Frees the state once no channel holds anything.
    pub(crate) fn release_if_empty(&mut self) {
        if self
            .0
            .as_deref()
            .is_some_and(|channels| channels.iter().all(|channel| channel.held.is_none()))
        {
            self.0 = None;
        }
    }

    /// Whether the state is allocated.
    pub(crate) fn is_allocated(&self) -> bool {
        self.0.is_some()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &IncomingChannel> {
        self.0.iter().flat_map(|channels| channels.iter())
    }
}

impl IntoIterator for IncomingChannels {
    type Item = IncomingChannel;
    type IntoIter = std::iter::Flatten<std::option::IntoIter<std::vec::IntoIter<IncomingChannel>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.0
            .map(|channels| channels.into_vec().into_iter())
            .into_iter()
            .flatten()
    }
}

impl IncomingChannel {
    /// Releases everything held; returns the bytes that were waiting.
    pub fn clear(self) -> usize {
        let Some(maps) = self.held else {
            return 0;
        };
        let mut waiting = 0;
        let held = maps.reliable.into_values().chain(
            maps.unreliable
                .into_values()
                .flat_map(UnreliableGroup::into_values),
        );
        for incoming in held {
            waiting += incoming.waiting_len();
            incoming.release();
        }
        waiting
    }

    /// Commands held, counted in the maps.
    pub(crate) fn count(&self) -> usize {
        self.held.as_ref().map_or(0, |maps| {
            maps.reliable.len()
                + maps
                    .unreliable
                    .values()
                    .map(UnreliableGroup::len)
                    .sum::<usize>()
        })
    }

    fn maps_or_new(&mut self) -> &mut HeldMaps {
        self.held.get_or_insert_with(Box::default)
    }

    /// Frees the maps once nothing is held.
    fn release_if_empty(&mut self) {
        if self
            .held
            .as_ref()
            .is_some_and(|maps| maps.reliable.is_empty() && maps.unreliable.is_empty())
        {
            self.held = None;
        }
    }

    pub(crate) fn holds_reliable(&self, sequence: ReliableSequence) -> bool {
        self.held
            .as_ref()
            .is_some_and(|maps| maps.reliable.contains(sequence.get()))
    }

    pub(crate) fn holds_no_reliable(&self) -> bool {
        self.held
            .as_ref()
            .is_none_or(|maps| maps.reliable.is_empty())
    }

    pub(crate) fn reliable_is_complete(&self, sequence: ReliableSequence) -> bool {
        self.held.as_ref().is_some_and(|maps| {
            maps.reliable
                .get(sequence.get())
                .is_some_and(Incoming::is_complete)
        })
    }

    /// The sequence numbers reliable commands are held under.
    pub(crate) fn reliable_sequences(&self) -> impl Iterator<Item = ReliableSequence> + '_ {
        self.held
            .iter()
            .flat_map(|maps| maps.reliable.keys().map(ReliableSequence::new))
    }

    pub(crate) fn holds_unreliable(
        &self,
        sequence: ReliableSequence,
        unreliable: UnreliableSequence,
    ) -> bool {
        self.held.as_ref().is_some_and(|maps| {
            maps.unreliable
                .get(&sequence.get())
                .is_some_and(|group| group.contains_key(&unreliable))
        })
    }

    pub(crate) fn holds_no_unreliable(&self) -> bool {
        self.held
            .as_ref()
            .is_none_or(|maps| maps.unreliable.is_empty())
    }

    /// The reliable numbers unreliable commands are held under.
    pub(crate) fn unreliable_sequences(&self) -> impl Iterator<Item = ReliableSequence> + '_ {
        self.held
            .iter()
            .flat_map(|maps| maps.unreliable.keys().copied().map(ReliableSequence::new))
    }

    pub(crate) fn reliable_mut(&mut self, sequence: ReliableSequence) -> Option<&mut Incoming> {
        self.held.as_mut()?.reliable.get_mut(sequence.get())
    }

    pub(crate) fn unreliable_mut(
        &mut self,
        sequence: ReliableSequence,
        unreliable: UnreliableSequence,
    ) -> Option<&mut Incoming> {
        self.held
            .as_mut()?
            .unreliable
            .get_mut(&sequence.get())?
            .get_mut(&unreliable)
    }

    /// Holds a reliable command; the one it replaced, if any.
    pub(crate) fn insert_reliable(
        &mut self,
        sequence: ReliableSequence,
        incoming: Incoming,
    ) -> Option<Incoming> {
        self.maps_or_new().reliable.insert(sequence.get(), incoming)
    }

    pub(crate) fn remove_reliable(&mut self, sequence: ReliableSequence) -> Option<Incoming> {
        let removed = self.held.as_mut()?.reliable.remove(sequence.get());
        self.release_if_empty();
        removed
    }

    /// Holds an unreliable command; the one it replaced, if any.
    pub(crate) fn insert_unreliable(
        &mut self,
        sequence: ReliableSequence,
        unreliable: UnreliableSequence,
        incoming: Incoming,
    ) -> Option<Incoming> {
        self.maps_or_new()
            .unreliable
            .entry(sequence.get())
            .or_default()
            .insert(unreliable, incoming)
    }

    pub(crate) fn remove_unreliable(
        &mut self,
        sequence: ReliableSequence,
        unreliable: UnreliableSequence,
    ) -> Option<Incoming> {
        let maps = self.held.as_mut()?;
        let group = maps.unreliable.get_mut(&sequence.get())?;
        let removed = group.remove(&unreliable);
        if group.is_empty() {
            maps.unreliable.remove(&sequence.get());
        }
        self.release_if_empty();
        removed
    }

    pub(crate) fn remove_unreliable_group(
        &mut self,
        sequence: ReliableSequence,
    ) -> Option<UnreliableGroup<Incoming>> {
        let removed = self.held.as_mut()?.unreliable.remove(&sequence.get());
        self.release_if_empty();
        removed
    }
}

/// What queueing a received command did (stock returns the command, a
/// dummy for "dropped on purpose", or NULL for an error that stops the
/// rest of the datagram).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    Accepted,
    Discarded,
    Error,
}

impl Queued {
    /// What the command handler reports: only an error stops the rest of
    /// the datagram (a discard is silent and still acknowledged).
    pub(crate) fn into_result(self) -> Result<(), ()> {
        match self {
            Queued::Error => Err(()),
            Queued::Accepted | Queued::Discarded => Ok(()),
        }
    }
}

/// The sequencing of a received payload command.
#[derive(Debug, Clone, Copy)]
pub enum Sequencing {
    Reliable {
        sequence: ReliableSequence,
    },
    Unreliable {
        sequence: ReliableSequence,
        unreliable: UnreliableSequence,
    },
    Unsequenced,
}

/// A fragment's fields, validated against the datagram already.
#[derive(Debug, Clone, Copy)]
pub struct FragmentInfo {
    pub start: u16,
    pub count: u32,
    pub number: u32,
    pub total: u32,
    pub offset: u32,
}
