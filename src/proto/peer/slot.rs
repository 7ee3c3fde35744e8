//! A peer's engine state beside its public `ENetPeer`: the slot
//! ([`PeerSlot`]) with its channels' receive state and its command queues
//! (allocated while it has traffic), and the sizes and limits every
//! per-peer operation shares. The operations themselves, which need the
//! host, are in `peer_ops.rs`.

use crate::proto::state::channel_id::ChannelId;
use std::collections::VecDeque;

use crate::abi::*;
use crate::mem::channels::ChannelArray;
use crate::mem::heap::QueueSetAlive;
use crate::mem::{CBox, PacketRef};
use crate::proto::state::channel::{Incoming, IncomingChannel, IncomingChannels, NOTHING_HELD};
use crate::proto::state::command::{Acknowledgement, OutgoingCommand};
use crate::proto::state::queue::OutgoingQueue;
use crate::proto::state::recovery::{CongestionWindow, LossRecovery};
use crate::proto::state::sent::SentQueue;
use crate::proto::state::sequence::{ReliableSequence, UnreliableSequence};
use crate::proto::state::unreliable_group::UnreliableGroup;
use crate::time::{time_difference, time_less};

pub(crate) const NEEDS_DISPATCH: u16 = ENetPeerFlag::ENET_PEER_FLAG_NEEDS_DISPATCH as u16;

/// A received packet waiting for `enet_peer_receive` or an event.
#[derive(Debug)]
pub struct Delivery {
    pub channel_id: ChannelId,
    pub packet: PacketRef,
}

/// A peer's private state, beside its public `ENetPeer`. It stays small
/// (every slot of the host has one, used or not): what only traffic needs
/// lives in a [`PeerQueues`] allocated while the peer has traffic, and the
/// host keeps, beside the slots, what few peers have: a loss recovery of
/// their own, and payload bytes sent again.
#[derive(Default)]
pub struct PeerSlot {
    /// The array `peer->channels` points at.
    pub channels: Option<ChannelArray>,
    /// The command queues and the channels' ordering state, while there is
    /// anything to queue or hold.
    pub(crate) queues: Option<Box<PeerQueues>>,
    /// The peer's only command, kept here instead of in a queue set: a
    /// control command (such as a handshake's VERIFY_CONNECT, or a
    /// BANDWIDTH_LIMIT) queued while the peer has no set, or the only one
    /// in flight (a handshake's, a ping) waiting for its acknowledgement.
    /// A burst of connects has thousands of handshakes waiting at once,
    /// the bandwidth throttle queues a command to every peer at once, and
    /// a set costs four times what the command does. Never beside a set:
    /// making one takes the command into its outgoing or sent queue
    /// ([`PeerSlot::queues`], [`PeerSlot::ready_queues`]).
    parked: Option<Box<Parked>>,
}

/// A peer's command queues, and what else only a peer with traffic needs.
#[derive(Default)]
pub struct PeerQueues {
    /// Ordering and reassembly state of each channel.
    pub incoming: IncomingChannels,
    /// Commands its channels hold out of order or half reassembled (each
    /// costs memory, so far fewer than 2^32).
    pub(crate) held_commands: u32,
    /// When the peer last queued, received or had acknowledged a payload
    /// (service time, ms; 0 in a set made for anything else, such as an
    /// acknowledgement to a ping, which reads as idle once the host's
    /// service time has passed a second, so the set may go again as soon as
    /// it is empty).
    pub last_traffic: u32,
    /// Whether the peer queued a payload since the set was made: a
    /// sending peer keeps its set (and the storage of its queues) for its
    /// next send, where one that only receives gives it up as soon as it
    /// is blank (see [`SpareQueues`]).
    pub(crate) sends_payloads: bool,
    /// Commands waiting to be sent, in order.
    pub outgoing: OutgoingQueue,
    /// The peer's send backlog, which its send limit bounds: the payload
    /// bytes of the commands queued and not yet gone, an unreliable one
    /// when it is sent (or dropped by the throttle), a reliable one when
    /// it is acknowledged (a fragment counts its share of its packet).
    /// Counted where a send queues its packet and where each command
    /// goes, never as it moves between the queues in between.
    pub(crate) backlog: usize,
    /// Reliable commands sent and waiting for their acknowledgement.
    pub sent_reliable: SentQueue,
    pub acknowledgements: VecDeque<Acknowledgement>,
    /// Acknowledgements just sent that go again in a datagram of their own
    /// (when the loss recovery repeats them); emptied by the same send.
    pub repeated_acknowledgements: Vec<Acknowledgement>,
    /// Received packets ready for the program.
    pub dispatched: VecDeque<Delivery>,
    /// The reliable-data window, when congestion control is on. It lives
    /// with the queues, so a peer idle long enough to give them back starts
    /// again from the initial window, as TCP does after idling.
    pub congestion: CongestionWindow,
    /// Counts the set, so the heap's pages are given back once many peers
    /// have given theirs back ([`crate::mem::heap`]).
    _alive: QueueSetAlive,
}

impl PeerQueues {
    fn is_empty(&self) -> bool {
        self.outgoing.is_empty()
            && self.sent_reliable.is_empty()
            && self.acknowledgements.is_empty()
            && self.dispatched.is_empty()
            && self.held_commands == 0
    }

    /// Whether the set is a receiving peer's with nothing left to do, and
    /// giving it up now to make it anew later would make no difference:
    /// no payload queued since it was made, nothing owed, held or waiting
    /// for the program, and a congestion window that has learnt nothing.
    fn is_blank(&self) -> bool {
        self.sent_reliable.is_empty() && self.is_blank_but_in_flight()
    }

    /// [`PeerQueues::is_blank`], but for the commands in flight.
    fn is_blank_but_in_flight(&self) -> bool {
        !self.sends_payloads
            && self.outgoing.is_empty()
            && self.acknowledgements.is_empty()
            && self.dispatched.is_empty()
            && self.held_commands == 0
            && self.repeated_acknowledgements.is_empty()
            && self.backlog == 0
            && !self.incoming.is_allocated()
            && self.congestion.is_initial()
    }

    /// Makes a blank set as a new one is, keeping the storage of its
    /// queues where it is small.
    fn recycle(&mut self) {
        self.last_traffic = 0;
        // Its own commands (a ping, the handshake's) are rare: a spare
        // keeps no storage for them.
        self.outgoing.release_storage_if_empty();
        self.sent_reliable.release_storage_if_empty();
        release_if_over(&mut self.acknowledgements, SPARE_STORAGE);
        release_if_over(&mut self.dispatched, SPARE_STORAGE);
        if self.repeated_acknowledgements.capacity() > SPARE_STORAGE {
            self.repeated_acknowledgements = Vec::new();
        }
    }

    /// Releases everything the channels hold and forgets their ordering
    /// state (sized for the channel count it was made for); returns the
    /// bytes that were waiting.
    pub(crate) fn drop_held(&mut self) -> usize {
        self.held_commands = 0;
        std::mem::take(&mut self.incoming)
            .into_iter()
            .map(IncomingChannel::clear)
            .sum()
    }
}

/// A command parked outside a queue set. It counts as a set for the
/// heap's give-back ([`crate::mem::heap`]): a burst of connects stands in
/// for thousands of sets with these, and the holes they leave once the
/// handshakes are done are as many.
struct Parked {
    command: OutgoingCommand,
    _alive: QueueSetAlive,
}

impl Parked {
    #[inline(never)]
    fn new(command: OutgoingCommand) -> Box<Parked> {
        Box::new(Parked {
            command,
            _alive: QueueSetAlive::default(),
        })
    }

    /// Whether the command waits to be sent, rather than for its
    /// acknowledgement. Only a command never sent is parked queued (one
    /// sent again waits in a set's outgoing queue), so its send attempts
    /// tell.
    fn is_queued(&self) -> bool {
        self.command.send_attempts == 0
    }

    /// The command, if it is in flight.
    fn in_flight(&self) -> Option<&OutgoingCommand> {
        (!self.is_queued()).then_some(&self.command)
    }
}

/// A new set, for a peer that has none when there is no spare.
// Out of line: the two ways a set is made share it.
#[inline(never)]
fn new_set() -> Box<PeerQueues> {
    Box::default()
}

/// `queues`, made for a peer that had none, with the command the peer had
/// `parked` (if any) back where it was: queued, or in flight.
// Out of line: the two ways a set is made share it.
#[inline(never)]
fn with_parked(mut queues: Box<PeerQueues>, parked: &mut Option<Box<Parked>>) -> Box<PeerQueues> {
    if let Some(parked) = parked.take() {
        if parked.is_queued() {
            queues.outgoing.push_back(parked.command);
        } else {
            queues.sent_reliable.push(parked.command);
        }
    }
    queues
}

/// Frees an empty deque's storage.
fn release_if_empty<T>(queue: &mut VecDeque<T>) {
    release_if_over(queue, 0);
}

/// Frees an empty deque's storage if it holds more than `most` items.
fn release_if_over<T>(queue: &mut VecDeque<T>, most: usize) {
    if queue.is_empty() && queue.capacity() > most {
        *queue = VecDeque::new();
    }
}

/// Queue sets that peers gave up as soon as they were blank, kept for the
/// next peer that needs one. A peer that only receives (a game server's
/// player sending its input) needs a set from each message's arrival to
/// the moment its acknowledgement is sent and the program has taken the
/// packet; kept until a second without payloads, as every other set is,
/// thousands of such peers would each hold one all the time. Given up at
/// once, they hold only as many as are busy at the same moment, and
/// taking a spare costs no allocation (its queues keep their storage).
// Boxes, not sets by value: a spare moves into a slot (which holds a box)
// and back without a copy or an allocation.
#[allow(clippy::vec_box)]
#[derive(Default)]
pub struct SpareQueues(Vec<Box<PeerQueues>>);

/// How many spare sets a host keeps; more are freed.
const SPARE_SETS: usize = 16;

/// The most items a spare set's queues keep room for: a set that held a
/// big transfer gives that storage back.
const SPARE_STORAGE: usize = 32;

impl SpareQueues {
    #[inline(never)]
    fn take(&mut self) -> Box<PeerQueues> {
        self.0.pop().unwrap_or_else(new_set)
    }

    fn give(&mut self, mut queues: Box<PeerQueues>) {
        if self.0.len() < SPARE_SETS {
            queues.recycle();
            self.0.push(queues);
        }
    }

    /// How many sets are kept (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

/// How long a peer must go without payloads before its empty queues give
/// their storage back: long enough that steady traffic never pays for
/// allocating them again, short enough that thousands of idle peers (which
/// only ping) hold next to nothing.
pub(crate) const IDLE_RELEASE_MS: u32 = 1000;

impl PeerSlot {
    /// The queues, allocated first if the peer has none (with its parked
    /// command in them).
    // Always inlined: called on every path of a message, where most calls
    // find a set.
    #[inline(always)]
    pub(crate) fn queues(&mut self) -> &mut PeerQueues {
        self.queues_and_channels().0
    }

    /// [`PeerSlot::queues`] and the channels, borrowed apart, for a step
    /// that works on both at once.
    #[inline(always)]
    pub(crate) fn queues_and_channels(&mut self) -> (&mut PeerQueues, &mut Option<ChannelArray>) {
        if self.queues.is_none() {
            self.make_queues();
        }
        (
            self.queues.get_or_insert_with(Box::default),
            &mut self.channels,
        )
    }

    // Out of line: most calls find a set, and each call site stays small.
    #[cold]
    #[inline(never)]
    fn make_queues(&mut self) {
        self.queues = Some(with_parked(new_set(), &mut self.parked));
    }

    /// Gives the peer a set from `spares` (or a new one) if it has none:
    /// done where a datagram from the peer arrives, before its commands
    /// queue acknowledgements or packets, or take an acknowledged command
    /// out of the sent queue.
    #[inline(always)]
    pub(crate) fn ready_queues(&mut self, spares: &mut SpareQueues) {
        if self.queues.is_none() {
            self.queues = Some(with_parked(spares.take(), &mut self.parked));
        }
    }

    /// Queues a numbered `command` to be sent: parked if the peer has no
    /// set and nothing parked, and it is a control command (no packet).
    #[inline(always)]
    pub(crate) fn queue_outgoing(&mut self, command: OutgoingCommand) {
        match self.queues.as_deref_mut() {
            Some(queues) => queues.outgoing.push_back(command),
            None => self.queue_without_set(command),
        }
    }

    #[cold]
    #[inline(never)]
    fn queue_without_set(&mut self, command: OutgoingCommand) {
        if self.parked.is_none() && command.packet.is_none() && command.send_attempts == 0 {
            self.parked = Some(Parked::new(command));
        } else {
            self.queues().outgoing.push_back(command);
        }
    }

    /// Gives the peer its set back if its command is parked: done before
    /// its commands are looked at for sending (a parked one waits to be
    /// sent, or is due for its retransmission). Whether one was parked.
    #[inline(always)]
    pub(crate) fn unpark(&mut self, spares: &mut SpareQueues) -> bool {
        let parked = self.parked.is_some();
        if parked {
            self.unpark_into(spares);
        }
        parked
    }

    #[cold]
    #[inline(never)]
    fn unpark_into(&mut self, spares: &mut SpareQueues) {
        self.ready_queues(spares);
    }

    /// Parks the only command in flight (a handshake's, or a ping) and
    /// gives the set to `spares`, if the set holds nothing else and has
    /// learnt nothing: made again when the command's acknowledgement (or
    /// anything else) arrives, the set is as it was.
    // Out of line: called after the datagrams of pings and handshakes.
    #[cold]
    #[inline(never)]
    pub(crate) fn park_lone_command(&mut self, spares: &mut SpareQueues) {
        // Never beside a set, so nothing is parked where there is one.
        let (Some(queues), None) = (self.queues.as_deref_mut(), &self.parked) else {
            return;
        };
        if !queues.is_blank_but_in_flight() {
            return;
        }
        let Some(command) = queues.sent_reliable.take_lone() else {
            return;
        };
        self.parked = Some(Parked::new(command));
        if let Some(queues) = self.queues.take() {
            spares.give(queues);
        }
    }

    /// The parked command, if it is in flight.
    fn parked_in_flight(&self) -> Option<&OutgoingCommand> {
        self.parked.as_deref()?.in_flight()
    }

    /// Takes the parked command away (a reset).
    pub(crate) fn take_parked(&mut self) -> Option<OutgoingCommand> {
        self.parked.take().map(|parked| parked.command)
    }

    /// Reliable commands in flight.
    pub(crate) fn in_flight(&self) -> usize {
        match &self.queues {
            Some(queues) => queues.sent_reliable.len(),
            None => usize::from(self.parked_in_flight().is_some()),
        }
    }

    /// The command parked to be sent, if any (it has no packet).
    pub(crate) fn parked_queued(&self) -> Option<&OutgoingCommand> {
        self.parked
            .as_deref()
            .filter(|parked| parked.is_queued())
            .map(|parked| &parked.command)
    }

    /// Channel `id` of the peer's `count` channels.
    pub(crate) fn channel(&mut self, count: usize, id: ChannelId) -> Option<&mut ENetChannel> {
        channel_in(&mut self.channels, count, id)
    }

    /// Takes the queues away (a reset), leaving the peer none.
    pub(crate) fn take_queues(&mut self) -> Option<Box<PeerQueues>> {
        self.queues.take()
    }

    /// The queues, if the peer has any.
    pub(crate) fn queues_if_any(&mut self) -> Option<&mut PeerQueues> {
        self.queues.as_deref_mut()
    }

    pub(crate) fn outgoing_is_empty(&self) -> bool {
        match &self.queues {
            Some(queues) => queues.outgoing.is_empty(),
            None => self.parked_queued().is_none(),
        }
    }

    pub(crate) fn sent_reliable_is_empty(&self) -> bool {
        match &self.queues {
            Some(queues) => queues.sent_reliable.is_empty(),
            None => self.parked_in_flight().is_none(),
        }
    }

    pub(crate) fn acknowledgements_is_empty(&self) -> bool {
        self.queues
            .as_ref()
            .is_none_or(|q| q.acknowledgements.is_empty())
    }

    /// Commands in flight whose copy is marked to be sent.
    pub(crate) fn copies_pending(&self) -> usize {
        self.queues
            .as_ref()
            .map_or(0, |q| q.sent_reliable.copies_pending())
    }

    /// Whether acknowledgements just sent wait to be sent again.
    pub(crate) fn has_repeated_acknowledgements(&self) -> bool {
        self.queues
            .as_ref()
            .is_some_and(|q| !q.repeated_acknowledgements.is_empty())
    }

    /// Whether the last send pass left queued commands for want of pacing
    /// tokens alone.
    pub(crate) fn held_back_by_pacing(&self) -> bool {
        self.queues
            .as_ref()
            .is_some_and(|q| q.congestion.paced && !q.outgoing.is_empty())
    }

    /// Channel `index`'s ordering state, `None` while the peer holds
    /// nothing. The held count answers for every channel at once, so a
    /// peer whose traffic arrives in order never looks a channel up.
    pub(crate) fn holding(&self, channel: ChannelId) -> Option<&IncomingChannel> {
        match self.queues.as_deref() {
            Some(queues) if queues.held_commands != 0 => Some(&queues.incoming[channel]),
            _ => None,
        }
    }

    /// Channel `index`'s ordering state (an empty one while the peer holds
    /// nothing).
    pub(crate) fn incoming(&self, channel: ChannelId) -> &IncomingChannel {
        self.holding(channel).unwrap_or(NOTHING_HELD)
    }

    /// Channel `index`'s ordering state, if the peer has any.
    pub(crate) fn incoming_mut(&mut self, channel: ChannelId) -> Option<&mut IncomingChannel> {
        self.queues.as_deref_mut()?.incoming.get_mut(channel)
    }

    pub(crate) fn dispatched_is_empty(&self) -> bool {
        self.queues.as_ref().is_none_or(|q| q.dispatched.is_empty())
    }

    /// Gives the queue set to `spares` if it is blank (see
    /// [`SpareQueues`]).
    // The first tests inline: a sending peer fails them at once, and so
    // does one that just received (it owes an acknowledgement).
    #[inline(always)]
    pub(crate) fn release_if_blank(&mut self, spares: &mut SpareQueues) {
        if self
            .queues
            .as_deref()
            .is_some_and(|queues| !queues.sends_payloads && queues.acknowledgements.is_empty())
        {
            self.release_if_blank_receiver(spares);
        }
    }

    #[inline(never)]
    fn release_if_blank_receiver(&mut self, spares: &mut SpareQueues) {
        if self.queues.as_deref().is_some_and(PeerQueues::is_blank) {
            if let Some(queues) = self.queues.take() {
                spares.give(queues);
            }
        }
    }

    /// Gives back the storage of the queues that the send pass emptied:
    /// outgoing commands and acknowledgements.
    #[cold]
    pub(crate) fn release_sent_storage(&mut self) {
        if let Some(queues) = self.queues.as_deref_mut() {
            queues.outgoing.release_storage_if_empty();
            release_if_empty(&mut queues.acknowledgements);
        }
    }

    /// If the peer has gone [`IDLE_RELEASE_MS`] without payloads, gives
    /// back its channels' ordering state if nothing is held, the storage of
    /// its empty queues, and the queues themselves once all are empty; they
    /// are allocated again when used.
    pub(crate) fn release_if_idle(&mut self, now: u32) {
        let Some(queues) = self.queues.as_deref_mut() else {
            return;
        };
        if time_difference(now, queues.last_traffic) < IDLE_RELEASE_MS {
            return;
        }
        queues.incoming.release_if_empty();
        // Still sending what was queued long ago (a big transfer queued
        // at once): busy, whatever the time of the last `send`.
        if !queues.outgoing.is_empty() {
            return;
        }
        if queues.is_empty() {
            debug_assert_eq!(queues.backlog, 0, "send backlog out of step");
            self.queues = None;
            return;
        }
        queues.outgoing.release_storage_if_empty();
        queues.sent_reliable.release_storage_if_empty();
        release_if_empty(&mut queues.acknowledgements);
        release_if_empty(&mut queues.dispatched);
    }
}

/// The last command object each internal queue export handed to the
/// program, kept valid until the next call or the peer's reset (stock's
/// pointer is valid until the command is sent or delivered).
#[derive(Default)]
pub struct Receipts {
    pub outgoing: Option<CBox<ENetOutgoingCommand>>,
    pub incoming: Option<CBox<ENetIncomingCommand>>,
    pub acknowledgement: Option<CBox<ENetAcknowledgement>>,
}

/// Why `enet_peer_send` refused a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendError {
    NotConnected,
    BadChannel,
    TooLarge,
    TooManyFragments,
    /// The peer's send backlog is at or over its send limit
    /// (`enet_rs_peer_set_send_limit`).
    OverSendLimit,
}

/// What a held (received, not yet deliverable) command costs against the
/// peer's waiting-data budget besides its bytes: about what stock's
/// `ENetIncomingCommand` takes.
const HELD_COMMAND_COST: usize = core::mem::size_of::<ENetIncomingCommand>();

/// One peer, borrowed whole: the public struct C code sees and the
/// engine's slot beside it. Logic that concerns a single peer (its
/// channels' held commands, numbering and queueing its commands and
/// acknowledgements, its delivery queue, its round-trip and loss
/// estimates, its packet throttle) works on this view, not on the host and
/// a slot index; the host lends it with `Host::with_peer` and keeps
/// what spans peers (the send schedule, the dispatch queue).
pub struct PeerMut<'a> {
    pub public: &'a mut ENetPeer,
    pub slot: &'a mut PeerSlot,
    /// How it recovers lost reliable commands: its own setting, or else
    /// its host's.
    pub recovery: &'a LossRecovery,
}

impl<'a> PeerMut<'a> {
    /// Channel `id`, if the peer has that many.
    pub(crate) fn channel(&mut self, id: ChannelId) -> Option<&mut ENetChannel> {
        self.slot.channel(self.public.channelCount, id)
    }

    /// Commands the peer's channels hold out of order or half reassembled:
    /// a counter kept by the `hold_*`/`unhold_*` functions below, the only
    /// code that changes the held maps (debug builds check it against a
    /// count of the maps).
    pub(crate) fn held_commands(&self) -> usize {
        let Some(queues) = self.slot.queues.as_deref() else {
            return 0;
        };
        let held = queues.held_commands as usize;
        debug_assert_eq!(
            held,
            queues
                .incoming
                .iter()
                .map(IncomingChannel::count)
                .sum::<usize>(),
            "held-command counter out of step"
        );
        held
    }

    /// Holds a reliable command under its sequence number.
    pub(crate) fn hold_reliable(
        &mut self,
        channel: ChannelId,
        sequence: ReliableSequence,
        incoming: Incoming,
    ) {
        let Some((held, held_commands)) = self.channel_to_hold_in(channel) else {
            return incoming.release();
        };
        match held.insert_reliable(sequence, incoming) {
            None => *held_commands += 1,
            Some(replaced) => replaced.release(),
        }
    }

    /// Channel `channel`'s ordering state and the peer's count of held
    /// commands, the queue set and the channels' states made first if the
    /// peer has none; `None`, with nothing made, for a channel the peer
    /// does not have.
    fn channel_to_hold_in(
        &mut self,
        channel: ChannelId,
    ) -> Option<(&mut IncomingChannel, &mut u32)> {
        let count = self.public.channelCount;
        if channel.index() >= count {
            return None;
        }
        let queues = self.slot.queues();
        let held = queues.incoming.get_or_make(channel, count)?;
        Some((held, &mut queues.held_commands))
    }

    /// Takes the reliable command held under `sequence`.
    pub(crate) fn unhold_reliable(
        &mut self,
        channel: ChannelId,
        sequence: ReliableSequence,
    ) -> Option<Incoming> {
        let queues = self.slot.queues.as_deref_mut()?;
        let incoming = queues
            .incoming
            .get_mut(channel)?
            .remove_reliable(sequence)?;
        queues.held_commands -= 1;
        Some(incoming)
    }

    /// Holds an unreliable command under the reliable number it follows and
    /// its own.
    pub(crate) fn hold_unreliable(
        &mut self,
        channel: ChannelId,
        sequence: ReliableSequence,
        unreliable: UnreliableSequence,
        incoming: Incoming,
    ) {
        let Some((held, held_commands)) = self.channel_to_hold_in(channel) else {
            return incoming.release();
        };
        match held.insert_unreliable(sequence, unreliable, incoming) {
            None => *held_commands += 1,
            Some(replaced) => replaced.release(),
        }
    }

    /// Takes the unreliable command held under `sequence` and `unreliable`.
    pub(crate) fn unhold_unreliable(
        &mut self,
        channel: ChannelId,
        sequence: ReliableSequence,
        unreliable: UnreliableSequence,
    ) -> Option<Incoming> {
        let queues = self.slot.queues.as_deref_mut()?;
        let incoming = queues
            .incoming
            .get_mut(channel)?
            .remove_unreliable(sequence, unreliable)?;
        queues.held_commands -= 1;
        Some(incoming)
    }

    /// Takes every unreliable command held under `sequence`.
    pub(crate) fn unhold_unreliable_group(
        &mut self,
        channel: ChannelId,
        sequence: ReliableSequence,
    ) -> Option<UnreliableGroup<Incoming>> {
        let queues = self.slot.queues.as_deref_mut()?;
        let group = queues
            .incoming
            .get_mut(channel)?
            .remove_unreliable_group(sequence)?;
        // A group's keys are u16s, so its length fits.
        queues.held_commands -= group.len() as u32;
        Some(group)
    }

    /// Whether the waiting-data budget `limit` (the host's
    /// `maximumWaitingData`) admits another command. Stock counts only
    /// packet bytes, so a peer could pin memory with many empty commands
    /// held out of order; each held command also costs a fixed overhead
    /// here (not shown in `totalWaitingData`).
    pub(crate) fn waiting_room(&self, limit: usize) -> bool {
        let held = self.held_commands().saturating_mul(HELD_COMMAND_COST);
        self.public.totalWaitingData.saturating_add(held) < limit
    }

    /// When the retransmission timeout (stock's check, which may give up
    /// on the peer) is next due: the earliest deadline of any command in
    /// flight when each command has its own and stock's bookkeeping is
    /// given up, otherwise, as stock, the oldest command's (`nextTimeout`).
    /// `None` with nothing in flight.
    pub(crate) fn timeout_deadline(&self) -> Option<u32> {
        let recovery = self.recovery;
        let own_deadlines = recovery.per_command_deadlines && !recovery.keep_stock_timeouts;
        let Some(queues) = self.slot.queues.as_deref() else {
            // A parked command is due when it would be in a sent queue.
            let parked = self.slot.parked_in_flight()?;
            return Some(if own_deadlines {
                parked.due
            } else {
                self.public.nextTimeout
            });
        };
        let sent = &queues.sent_reliable;
        if own_deadlines {
            sent.earliest_deadline()
        } else {
            (!sent.is_empty()).then_some(self.public.nextTimeout)
        }
    }

    /// When a copy of a command in flight is next due for its own deadline
    /// (only while copies stand in for per-command deadlines).
    pub(crate) fn copy_deadline(&self) -> Option<u32> {
        let recovery = self.recovery;
        if !(recovery.per_command_deadlines && recovery.keep_stock_timeouts) {
            return None;
        }
        match self.slot.queues.as_deref() {
            Some(queues) => queues.sent_reliable.earliest_deadline(),
            None => self.slot.parked_in_flight().map(|parked| parked.due),
        }
    }

    /// Whether the retransmission timeout is due at `now`.
    pub(crate) fn timeouts_due(&self, now: u32) -> bool {
        self.timeout_deadline()
            .is_some_and(|deadline| !time_less(now, deadline))
    }

    /// Whether copies of commands in flight wait to be sent at `now`:
    /// marked by an early resend, or due on their own deadline.
    pub(crate) fn copies_due(&self, now: u32) -> bool {
        self.slot.copies_pending() > 0
            || self
                .copy_deadline()
                .is_some_and(|deadline| !time_less(now, deadline))
    }

    /// `enet_peer_receive`: the next received packet, with its channel.
    pub fn receive(&mut self) -> Option<(u8, PacketRef)> {
        let delivery = self.slot.queues_if_any()?.dispatched.pop_front()?;
        let peer = &mut *self.public;
        peer.totalWaitingData = peer.totalWaitingData.saturating_sub(delivery.packet.len());
        Some((delivery.channel_id.wire(), delivery.packet))
    }

    /// `enet_peer_timeout` (each 0 restores its default).
    pub fn set_timeout(&mut self, limit: u32, minimum: u32, maximum: u32) {
        let peer = &mut *self.public;
        peer.timeoutLimit = if limit != 0 {
            limit
        } else {
            ENET_PEER_TIMEOUT_LIMIT
        };
        peer.timeoutMinimum = if minimum != 0 {
            minimum
        } else {
            ENET_PEER_TIMEOUT_MINIMUM
        };
        peer.timeoutMaximum = if maximum != 0 {
            maximum
        } else {
            ENET_PEER_TIMEOUT_MAXIMUM
        };
    }

    /// Releases a held packet that will never be delivered: its bytes no
    /// longer wait.
    pub(crate) fn drop_held(&mut self, incoming: Incoming) {
        self.public.totalWaitingData = self
            .public
            .totalWaitingData
            .saturating_sub(incoming.waiting_len());
        incoming.release();
    }
}

/// Channel `id` of a peer's `count` channels in `channels` (for code that
/// holds the slot's other fields borrowed at the same time).
pub(crate) fn channel_in(
    channels: &mut Option<ChannelArray>,
    count: usize,
    id: ChannelId,
) -> Option<&mut ENetChannel> {
    channels
        .as_mut()?
        .get_mut(id.index())
        .filter(|_| id.index() < count)
}

/// The reliable data stock lets a peer have in flight: its window scaled by
/// its packet throttle (the congestion window never goes below it).
pub(crate) fn stock_window(peer: &ENetPeer) -> u32 {
    peer.packetThrottle.wrapping_mul(peer.windowSize) / ENET_PEER_PACKET_THROTTLE_SCALE
}

/// The window size for a bandwidth in bytes per second (0 = unlimited).
pub(crate) fn window_size_for(bandwidth: u32) -> u32 {
    if bandwidth == 0 {
        return ENET_PROTOCOL_MAXIMUM_WINDOW_SIZE;
    }
    ((bandwidth / ENET_PEER_WINDOW_SIZE_SCALE) * ENET_PROTOCOL_MINIMUM_WINDOW_SIZE).clamp(
        ENET_PROTOCOL_MINIMUM_WINDOW_SIZE,
        ENET_PROTOCOL_MAXIMUM_WINDOW_SIZE,
    )
}

/// A channel as a fresh connection starts it.
pub(crate) fn blank_channel() -> ENetChannel {
    ENetChannel {
        outgoingReliableSequenceNumber: 0,
        outgoingUnreliableSequenceNumber: 0,
        usedReliableWindows: 0,
        reliableWindows: [0; ENET_PEER_RELIABLE_WINDOWS as usize],
        incomingReliableSequenceNumber: 0,
        incomingUnreliableSequenceNumber: 0,
        incomingReliableCommands: ENetList {
            sentinel: ENetListNode::NULL,
        },
        incomingUnreliableCommands: ENetList {
            sentinel: ENetListNode::NULL,
        },
    }
}

/// A peer outside any host, for unit tests of its view.
#[cfg(test)]
pub(crate) struct LonePeer {
    pub(crate) public: ENetPeer,
    pub(crate) slot: PeerSlot,
}

#[cfg(test)]
impl LonePeer {
    /// A blank, disconnected peer with the default loss recovery.
    pub(crate) fn new() -> LonePeer {
        LonePeer {
            public: crate::proto::host::engine::blank_peer(),
            slot: PeerSlot::default(),
        }
    }

    pub(crate) fn view(&mut self) -> PeerMut<'_> {
        PeerMut {
            public: &mut self.public,
            slot: &mut self.slot,
            recovery: &LossRecovery::DEFAULT,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::state::command::{OutgoingBody, OutgoingCommand};
    use crate::wire::command::CommandFlags;

    /// Every peer slot of a host has one, used or not: 4000 slots at 32
    /// bytes are 125 KiB. Growing it is a choice to make knowingly (the
    /// parked command took the place of the resend counts, which went to a
    /// table of the host's).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_peer_slot_stays_small() {
        assert_eq!(core::mem::size_of::<PeerSlot>(), 32);
    }

    /// A slot whose set holds `command` in flight, sent at `sent_time`
    /// with a timeout of 500 ms.
    fn in_flight(command: OutgoingCommand, sent_time: u32) -> PeerSlot {
        let mut slot = PeerSlot::default();
        let mut command = command;
        command.reliable_sequence_number = ReliableSequence::new(1);
        command.sent_time = sent_time;
        command.round_trip_timeout = 500;
        command.send_attempts = 1;
        slot.queues().sent_reliable.push(command);
        slot
    }

    #[test]
    fn a_lone_command_in_flight_parks_and_comes_back_with_a_set() {
        let mut spares = SpareQueues::default();
        let mut slot = in_flight(ping(), 1000);
        slot.park_lone_command(&mut spares);
        assert!(slot.queues.is_none(), "the set went");
        assert_eq!(spares.len(), 1, "to the spares");
        // Still in flight, and due when it was.
        assert!(!slot.sent_reliable_is_empty());
        assert_eq!(slot.in_flight(), 1);
        let mut public = crate::proto::host::engine::blank_peer();
        public.nextTimeout = 1500;
        let recovery = LossRecovery::DEFAULT;
        let view = PeerMut {
            public: &mut public,
            slot: &mut slot,
            recovery: &recovery,
        };
        assert_eq!(view.timeout_deadline(), Some(1500));
        assert!(!view.timeouts_due(1499) && view.timeouts_due(1500));
        // A datagram from the peer: a set, the command in its sent queue
        // as it was.
        slot.ready_queues(&mut spares);
        assert_eq!(spares.len(), 0);
        let sent = &mut slot.queues().sent_reliable;
        assert_eq!(sent.len(), 1);
        let command = sent
            .remove(ChannelId::CONNECTION, ReliableSequence::new(1))
            .expect("the parked command");
        assert_eq!(
            (command.sent_time, command.round_trip_timeout, command.due),
            (1000, 500, 1500)
        );
        assert_eq!(command.send_attempts, 1);
        command.discard();
        // Anything else that makes a set brings it back too.
        let mut slot = in_flight(ping(), 1000);
        slot.park_lone_command(&mut spares);
        assert_eq!(slot.queues().sent_reliable.len(), 1);
        assert_eq!(slot.take_parked().map(|_| ()), None, "never beside a set");
        // And a reset takes it.
        let mut slot = in_flight(ping(), 1000);
        slot.park_lone_command(&mut spares);
        slot.take_parked().expect("parked").discard();
        assert!(slot.sent_reliable_is_empty());
    }

    #[test]
    fn a_control_command_queued_without_a_set_is_parked_until_one_is_made() {
        let mut spares = SpareQueues::default();
        let numbered = |sequence| {
            let mut command = ping();
            command.reliable_sequence_number = ReliableSequence::new(sequence);
            command
        };
        let mut slot = PeerSlot::default();
        slot.queue_outgoing(numbered(1));
        assert!(slot.queues.is_none(), "parked");
        assert!(!slot.outgoing_is_empty() && slot.sent_reliable_is_empty());
        assert_eq!(slot.in_flight(), 0);
        // Sending it makes a set, with the command first in its queue.
        assert!(slot.unpark(&mut spares), "it was parked");
        assert!(slot.parked_queued().is_none());
        let queues = slot.queues();
        assert_eq!(queues.outgoing.len(), 1);
        queues.outgoing.remove(0).unwrap().discard();
        // A second command queued behind a parked one follows it.
        let mut slot = PeerSlot::default();
        slot.queue_outgoing(numbered(1));
        slot.queue_outgoing(numbered(2));
        let queues = slot.queues_if_any().expect("made by the second");
        let order: Vec<u16> = (0..2)
            .map(|_| {
                let command = queues.outgoing.remove(0).unwrap();
                let sequence = command.reliable_sequence_number.get();
                command.discard();
                sequence
            })
            .collect();
        assert_eq!(order, [1, 2]);
        // A command with a packet always goes in a set.
        let mut with_packet = numbered(1);
        with_packet.packet = Some(
            crate::mem::PacketRef::new_with_data(b"data", crate::mem::PacketFlags::NONE).unwrap(),
        );
        let mut slot = PeerSlot::default();
        slot.queue_outgoing(with_packet);
        assert!(slot.queues.is_some());
        slot.queues().outgoing.remove(0).unwrap().discard();
        // A reset takes a parked one.
        let mut slot = PeerSlot::default();
        slot.queue_outgoing(numbered(1));
        slot.take_parked().expect("parked").discard();
        assert!(slot.outgoing_is_empty());
    }

    #[test]
    fn only_a_lone_command_in_an_otherwise_blank_set_parks() {
        let mut spares = SpareQueues::default();
        // Something else queued.
        let mut slot = in_flight(ping(), 0);
        slot.queues().outgoing.push_back(ping());
        slot.park_lone_command(&mut spares);
        assert!(slot.queues.is_some());
        // An acknowledgement owed.
        let mut slot = in_flight(ping(), 0);
        slot.queues().acknowledgements.push_back(acknowledgement());
        slot.park_lone_command(&mut spares);
        assert!(slot.queues.is_some());
        // Two in flight.
        let mut slot = in_flight(ping(), 0);
        let mut second = ping();
        second.reliable_sequence_number = ReliableSequence::new(2);
        slot.queues().sent_reliable.push(second);
        slot.park_lone_command(&mut spares);
        assert!(slot.queues.is_some());
        // A command with a packet.
        let mut with_packet = ping();
        with_packet.packet = Some(
            crate::mem::PacketRef::new_with_data(b"data", crate::mem::PacketFlags::NONE).unwrap(),
        );
        let mut slot = in_flight(with_packet, 0);
        slot.park_lone_command(&mut spares);
        assert!(slot.queues.is_some());
        slot.queues()
            .sent_reliable
            .drain()
            .for_each(OutgoingCommand::discard);
        // A congestion window that learnt something.
        let mut slot = in_flight(ping(), 0);
        slot.queues().congestion.on_acknowledged(1000, 1400);
        slot.park_lone_command(&mut spares);
        assert!(slot.queues.is_some());
        assert_eq!(spares.len(), 0);
    }

    fn ping() -> OutgoingCommand {
        OutgoingCommand::new(
            CommandFlags::ACKNOWLEDGE,
            ChannelId::CONNECTION,
            OutgoingBody::Ping,
        )
    }

    fn has_ordering_state(slot: &PeerSlot) -> bool {
        slot.queues
            .as_ref()
            .is_some_and(|queues| queues.incoming.is_allocated())
    }

    #[test]
    fn channels_have_ordering_state_only_while_they_hold_commands() {
        let mut peer = LonePeer::new();
        peer.public.channelCount = 2;
        let mut view = peer.view();
        let (three, five) = (ReliableSequence::new(3), ReliableSequence::new(5));
        let first = UnreliableSequence::new(1);
        let command = || {
            let packet =
                crate::mem::PacketRef::new_with_data(b"held", crate::mem::PacketFlags::NONE)
                    .unwrap();
            Incoming::whole(crate::wire::command::number::SEND_RELIABLE, packet)
        };
        assert!(!has_ordering_state(view.slot));
        assert!(!view.slot.incoming(ChannelId::from(1)).holds_reliable(five));
        view.hold_reliable(ChannelId::from(2), five, command());
        view.hold_unreliable(ChannelId::from(2), three, first, command());
        assert!(
            view.slot.queues.is_none(),
            "channel 2 of 2 does not exist: nothing is made for it"
        );
        view.hold_reliable(ChannelId::from(1), five, command());
        view.hold_unreliable(ChannelId::from(0), three, first, command());
        assert!(has_ordering_state(view.slot));
        assert!(view.slot.incoming(ChannelId::from(1)).holds_reliable(five));
        assert_eq!(view.held_commands(), 2);
        view.unhold_reliable(ChannelId::from(1), five)
            .unwrap()
            .release();
        view.slot.release_if_idle(IDLE_RELEASE_MS);
        assert!(has_ordering_state(view.slot), "channel 0 still holds one");
        view.unhold_unreliable(ChannelId::from(0), three, first)
            .unwrap()
            .release();
        assert_eq!(view.held_commands(), 0);
        assert!(
            view.slot.holding(ChannelId::from(0)).is_none(),
            "nothing held: no channel is looked up"
        );
        assert!(view.unhold_reliable(ChannelId::from(1), five).is_none());
        // Kept while the peer is busy, freed once it is idle.
        view.slot.queues().last_traffic = 500;
        view.slot.release_if_idle(IDLE_RELEASE_MS);
        assert!(has_ordering_state(view.slot));
        view.slot.release_if_idle(500 + IDLE_RELEASE_MS);
        assert!(!has_ordering_state(view.slot));
    }

    #[test]
    fn idle_peers_give_their_queues_back_and_busy_ones_keep_them() {
        let mut slot = PeerSlot::default();
        slot.queues().outgoing.push_back(ping());
        let mut in_flight = ping();
        in_flight.reliable_sequence_number = ReliableSequence::new(1);
        slot.queues().sent_reliable.push(in_flight);
        slot.queues()
            .sent_reliable
            .remove(ChannelId::CONNECTION, ReliableSequence::new(1))
            .unwrap()
            .discard();
        // A second after the last `send`, but commands still wait: busy,
        // so not even the empty sent queue gives its room back.
        slot.release_if_idle(IDLE_RELEASE_MS);
        assert!(!slot.outgoing_is_empty());
        assert!(slot.queues().sent_reliable.storage() > 0);
        // Everything sent and acknowledged, but traffic was recent: kept.
        slot.queues().outgoing.remove(0).unwrap().discard();
        slot.queues().last_traffic = 500;
        slot.release_if_idle(IDLE_RELEASE_MS);
        assert!(slot.queues.is_some());
        // Idle for a second with nothing queued: released.
        slot.release_if_idle(500 + IDLE_RELEASE_MS);
        assert!(slot.queues.is_none());
        assert!(slot.outgoing_is_empty() && slot.sent_reliable_is_empty());
    }

    fn acknowledgement() -> Acknowledgement {
        Acknowledgement {
            channel_id: ChannelId::from(0),
            reliable_sequence_number: ReliableSequence::new(1),
            sent_time: 0,
            command_number: crate::wire::command::number::SEND_RELIABLE,
        }
    }

    #[test]
    fn a_receiving_peer_gives_its_set_to_the_spares_once_blank() {
        let mut spares = SpareQueues::default();
        let mut slot = PeerSlot::default();
        slot.ready_queues(&mut spares);
        let queues = slot.queues();
        queues.last_traffic = 500;
        queues.acknowledgements.push_back(acknowledgement());
        // An acknowledgement still owed: kept, whatever the time.
        slot.release_if_blank(&mut spares);
        assert!(slot.queues.is_some());
        assert_eq!(spares.len(), 0);
        // Sent: the set is blank and goes at once, storage and all.
        slot.queues().acknowledgements.pop_front();
        slot.release_if_blank(&mut spares);
        assert!(slot.queues.is_none());
        assert_eq!(spares.len(), 1);
        // The next peer heard from takes it, blank and as new, with the
        // room its acknowledgements had.
        let mut other = PeerSlot::default();
        other.ready_queues(&mut spares);
        assert_eq!(spares.len(), 0);
        let queues = other.queues();
        assert!(queues.is_blank());
        assert_eq!(queues.last_traffic, 0, "reads as a new set");
        assert!(queues.acknowledgements.capacity() > 0);
    }

    #[test]
    fn a_sending_peer_keeps_its_set() {
        let mut spares = SpareQueues::default();
        let mut slot = PeerSlot::default();
        let queues = slot.queues();
        queues.last_traffic = 500;
        queues.sends_payloads = true;
        slot.release_if_blank(&mut spares);
        assert!(slot.queues.is_some(), "kept for the next send");
        // Until it is idle for a second, as before.
        slot.release_if_idle(500 + IDLE_RELEASE_MS);
        assert!(slot.queues.is_none());
        assert_eq!(spares.len(), 0);
    }

    #[test]
    fn a_set_holding_commands_or_learnt_congestion_is_not_blank() {
        let mut queues = PeerQueues::default();
        assert!(queues.is_blank());
        queues.outgoing.push_back(ping());
        assert!(!queues.is_blank(), "a command waits");
        queues.outgoing.remove(0).unwrap().discard();
        assert!(queues.is_blank());
        queues.congestion.on_acknowledged(1000, 1400);
        assert!(!queues.is_blank(), "its congestion window grew");
    }

    #[test]
    fn spares_are_bounded_and_give_no_big_storage_back_out() {
        let mut spares = SpareQueues::default();
        for _ in 0..SPARE_SETS + 5 {
            let mut queues = Box::<PeerQueues>::default();
            queues.dispatched.reserve_exact(SPARE_STORAGE + 1);
            queues.outgoing.push_back(ping());
            queues.outgoing.remove(0).unwrap().discard();
            spares.give(queues);
        }
        assert_eq!(spares.len(), SPARE_SETS);
        let queues = spares.take();
        assert_eq!(queues.dispatched.capacity(), 0, "a big queue's room went");
        assert!(queues.outgoing.is_empty());
    }
}
