//! A peer's reliable commands in flight ([`SentQueue`]): kept in the order
//! they were (re)sent, which the retransmission timeout walks, and found by
//! channel and sequence number in constant time when their
//! acknowledgement arrives, in whatever order that is.
//!
//! Commands stay where they were put. An acknowledged or timed-out command
//! leaves a hole, and the front moves past holes as it reaches them, so
//! removing a command from the middle shifts nothing. Acknowledgements
//! mostly arrive in the order their commands went out and match the front.
//! The first one that does not builds an index: per channel, a ring of the
//! send positions of its commands in flight, indexed by sequence number,
//! kept up to date from then on until the queue empties. A ring entry is
//! only a hint: a look-up checks that the command at that position is the
//! one asked for, so entries left behind by removed commands need no
//! cleaning.

use super::channel_id::ChannelId;
use super::sequence::ReliableSequence;
use std::collections::VecDeque;

use super::command::{Acknowledged, OutgoingCommand};
use super::queue::room_for_one;
use crate::time::{time_less, TIME_OVERFLOW};

/// How long a copied command waits before its next copy, in ms. A timeout
/// that backs off by doubling, as stock's does (wrapping), reaches 0
/// after about thirty doublings, and past `2^32 - TIME_OVERFLOW` it reads
/// as a time already passed: either would make the copy due again at
/// once, and a send pass that packs due copies while it has more to send
/// would never end. At least 1 ms, so a pass sends each copy once; under a
/// day, the longest delay ENet's clock comparisons read as ahead (the
/// backoff of copies stops there too: see `PeerMut::pack_copies`).
pub(crate) const COPY_DELAY: std::ops::RangeInclusive<u32> = 1..=TIME_OVERFLOW - 1;

/// Ring length a channel starts with: a handful of commands in flight.
const FIRST_RING_LEN: usize = 8;

/// Send positions of one channel's commands in flight, by sequence number
/// modulo the ring length (a power of two, grown whenever two commands in
/// flight would share an entry).
#[derive(Debug, Default)]
struct PositionRing {
    positions: Box<[u32]>,
}

impl PositionRing {
    fn entry(&self, sequence: ReliableSequence) -> Option<u32> {
        let mask = self.positions.len().checked_sub(1)?;
        Some(self.positions[usize::from(sequence.get()) & mask])
    }

    fn set(&mut self, sequence: ReliableSequence, position: u32) {
        let mask = self.positions.len() - 1;
        self.positions[usize::from(sequence.get()) & mask] = position;
    }
}

#[derive(Debug, Default)]
pub struct SentQueue {
    /// Commands in the order they were sent; `None` where one has left.
    /// The front is never a hole.
    slots: VecDeque<Option<OutgoingCommand>>,
    /// Send position of `slots[0]`. Positions count every command ever
    /// pushed (wrapping), so a position names one command for as long as
    /// it is in the queue.
    head: u32,
    /// Commands in the queue (slots that are not holes).
    live: usize,
    /// Position rings by channel: the connection channel (255) first, then
    /// channel `n` at `n + 1`, so a peer that only pings has one.
    rings: Vec<PositionRing>,
    /// Whether the rings hold every command in the queue (the index is
    /// built on the first acknowledgement that does not match the front).
    indexed: bool,
    /// No later than the retransmission deadline of any command in the
    /// queue (exact while `deadlines_in_order`).
    earliest_deadline: u32,
    /// Whether deadlines never decrease in send order, so that the front's
    /// is the earliest. A command sent after one whose timeout grew by a
    /// retransmission can be due before it.
    deadlines_in_order: bool,
    /// The deadline of the command sent last.
    last_deadline: u32,
    /// Commands whose copy waits to be packed.
    copies_pending: usize,
}

/// What becomes of a command that later acknowledgements passed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassedOver {
    /// It is taken out, to be sent again.
    Take,
    /// It stays in flight and a copy of it is sent.
    Copy,
}

fn ring_index(channel_id: ChannelId) -> usize {
    if channel_id == ChannelId::CONNECTION {
        0
    } else {
        channel_id.index() + 1
    }
}

impl SentQueue {
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Commands in flight.
    pub fn len(&self) -> usize {
        self.live
    }

    /// The oldest command in flight.
    pub fn front(&self) -> Option<&OutgoingCommand> {
        self.slots.front().and_then(Option::as_ref)
    }

    /// The earliest time a command in the queue may be due for
    /// retransmission: exact while deadlines follow send order (the usual
    /// case), otherwise possibly early (a command that was due first may
    /// have been acknowledged since), until [`SentQueue::refresh_deadlines`]
    /// looks at every command again.
    pub fn earliest_deadline(&self) -> Option<u32> {
        if self.deadlines_in_order {
            return self.front().map(|command| command.due);
        }
        (self.live > 0).then_some(self.earliest_deadline)
    }

    /// Makes [`SentQueue::earliest_deadline`] exact again, looking at every
    /// command (after a retransmission pass, which looked at them anyway).
    pub fn refresh_deadlines(&mut self) {
        let mut deadlines = self.slots.iter().flatten().map(|command| command.due);
        let Some(first) = deadlines.next() else {
            return;
        };
        let (mut earliest, mut previous, mut in_order) = (first, first, true);
        for due in deadlines {
            in_order &= !time_less(due, previous);
            if time_less(due, earliest) {
                earliest = due;
            }
            previous = due;
        }
        self.earliest_deadline = earliest;
        self.deadlines_in_order = in_order;
    }

    /// Counts an acknowledgement of the command at `acknowledged` (a send
    /// position) against the commands sent before it, up to `reach` of
    /// them from the oldest. Those that `threshold` later acknowledgements
    /// have now passed over were most likely lost: they are taken out and
    /// handed to `taken`, or marked for a copy, as `what` says. KCP's fast
    /// resend; the reach bounds the work per acknowledgement.
    pub fn pass_over(
        &mut self,
        acknowledged: u32,
        threshold: u8,
        reach: usize,
        what: PassedOver,
        mut taken: impl FnMut(OutgoingCommand),
    ) {
        // An acknowledged command at or behind the head (it was the
        // oldest) was sent before everything left.
        if acknowledged.wrapping_sub(self.head) as i32 <= 0 {
            return;
        }
        let mut cursor = self.cursor();
        let mut looked = 0;
        while looked < reach && cursor.peek().is_some() {
            // Sent before the acknowledged command: a signed distance, as
            // taking the oldest moves the head past `acknowledged`.
            if acknowledged.wrapping_sub(cursor.position) as i32 <= 0 {
                break;
            }
            looked += 1;
            let Some(command) = cursor.peek_mut() else {
                break;
            };
            // A copy in flight is passed over only by commands sent after
            // it: without this, every later acknowledgement of a busy
            // stream counted again, and a lost command drew a copy every
            // `threshold` acknowledgements until its copy's came back.
            let before_copy =
                command.copies > 0 && (acknowledged.wrapping_sub(command.copy_position) as i32) < 0;
            if command.copy_pending || before_copy {
                cursor.skip();
                continue;
            }
            command.passed_over = command.passed_over.saturating_add(1);
            if command.passed_over < threshold {
                cursor.skip();
                continue;
            }
            match what {
                PassedOver::Copy => {
                    command.passed_over = 0;
                    command.copy_pending = true;
                    cursor.queue.copies_pending += 1;
                    cursor.skip();
                }
                PassedOver::Take => {
                    if let Some(command) = cursor.take() {
                        taken(command);
                    }
                }
            }
        }
    }

    /// Commands whose copy is marked to be sent.
    pub fn copies_pending(&self) -> usize {
        self.copies_pending
    }

    /// Hands `pack` each command whose copy is marked, or (with
    /// `deadlines`) whose deadline has come at `now`, in send order, until
    /// `pack` says the datagram is full (it returns false). A command
    /// packed counts as copied once more and is next due `timeout(command)`
    /// after `now`, kept within [`COPY_DELAY`].
    pub fn copies_due(
        &mut self,
        now: u32,
        deadlines: bool,
        mut pack: impl FnMut(&OutgoingCommand) -> bool,
        timeout: impl Fn(&OutgoingCommand) -> u32,
    ) {
        let next_position = self.head.wrapping_add(self.slots.len() as u32);
        let mut cursor = self.cursor();
        while let Some(command) = cursor.peek_mut() {
            let due = deadlines && !time_less(now, command.due);
            if !(command.copy_pending || due) {
                cursor.skip();
                continue;
            }
            if !pack(command) {
                break;
            }
            command.copies = command.copies.saturating_add(1);
            command.copy_position = next_position;
            let delay = timeout(command).clamp(*COPY_DELAY.start(), *COPY_DELAY.end());
            command.due = now.wrapping_add(delay);
            command.passed_over = 0;
            if command.copy_pending {
                command.copy_pending = false;
                cursor.queue.copies_pending -= 1;
            }
            cursor.skip();
        }
        self.refresh_deadlines();
    }

    /// Counts every command in the queue as sent at `now`: each is next
    /// due its own timeout after it.
    pub fn restart_clocks(&mut self, now: u32) {
        for command in self.slots.iter_mut().flatten() {
            command.sent_time = now;
            command.due = now.wrapping_add(command.round_trip_timeout);
            self.last_deadline = command.due;
        }
        self.refresh_deadlines();
    }

    /// Appends a command just sent; it is due for retransmission when its
    /// timeout has passed.
    // Always inlined: the send pass's call is every reliable command's,
    // and a parked command's return (the other call) is rare.
    #[inline(always)]
    pub fn push(&mut self, mut command: OutgoingCommand) {
        let due = command.sent_time.wrapping_add(command.round_trip_timeout);
        command.due = due;
        command.copies = 0;
        command.copy_pending = false;
        let position = self.head.wrapping_add(self.slots.len() as u32);
        let (channel_id, sequence) = (command.channel_id, command.reliable_sequence_number);
        if self.live == 0 {
            self.earliest_deadline = due;
            self.deadlines_in_order = true;
        } else {
            self.deadlines_in_order &= !time_less(due, self.last_deadline);
            if time_less(due, self.earliest_deadline) {
                self.earliest_deadline = due;
            }
        }
        self.last_deadline = due;
        room_for_one(&mut self.slots);
        self.slots.push_back(Some(command));
        self.live += 1;
        if self.indexed {
            self.index(channel_id, sequence, position);
        }
    }

    /// Files every command in the queue in its channel's ring.
    fn build_index(&mut self) {
        for offset in 0..self.slots.len() {
            if let Some(command) = &self.slots[offset] {
                let (channel_id, sequence) = (command.channel_id, command.reliable_sequence_number);
                let position = self.head.wrapping_add(offset as u32);
                self.index(channel_id, sequence, position);
            }
        }
        self.indexed = true;
    }

    /// The command at `position`, if it is still in the queue.
    fn at(&self, position: u32) -> Option<&OutgoingCommand> {
        let offset = position.wrapping_sub(self.head) as usize;
        self.slots.get(offset)?.as_ref()
    }

    /// The position of the command in flight on `channel_id` with
    /// `sequence`.
    fn find(&self, channel_id: ChannelId, sequence: ReliableSequence) -> Option<u32> {
        let position = self.rings.get(ring_index(channel_id))?.entry(sequence)?;
        self.at(position)
            .filter(|command| {
                command.channel_id == channel_id && command.reliable_sequence_number == sequence
            })
            .map(|_| position)
    }

    /// Records `position` under the command's channel and sequence number,
    /// growing that channel's ring while another command in flight holds
    /// the entry.
    fn index(&mut self, channel_id: ChannelId, sequence: ReliableSequence, position: u32) {
        let ring_at = ring_index(channel_id);
        if self.rings.len() <= ring_at {
            self.rings.resize_with(ring_at + 1, PositionRing::default);
        }
        loop {
            let ring = &self.rings[ring_at];
            let mask = ring.positions.len().wrapping_sub(1);
            // Held by another command of the channel in flight whose number
            // falls on the same entry (an entry that names anything else is
            // stale, and free).
            let occupied = ring
                .entry(sequence)
                .and_then(|held| self.at(held))
                .is_some_and(|other| {
                    let theirs = other.reliable_sequence_number;
                    other.channel_id == channel_id
                        && theirs != sequence
                        && usize::from(theirs.get()) & mask == usize::from(sequence.get()) & mask
                });
            if !ring.positions.is_empty() && !occupied {
                break;
            }
            self.grow_ring(channel_id);
        }
        self.rings[ring_at].set(sequence, position);
    }

    /// Doubles a channel's ring (or creates it) and files its commands in
    /// flight again. Sequence numbers in flight on one channel span less
    /// than 2^16, so this ends by 65536 entries at the latest.
    fn grow_ring(&mut self, channel_id: ChannelId) {
        let ring_at = ring_index(channel_id);
        let length = (self.rings[ring_at].positions.len() * 2).max(FIRST_RING_LEN);
        // Filled with the position just behind the head, which names no
        // command in the queue.
        let mut ring = PositionRing {
            positions: vec![self.head.wrapping_sub(1); length].into_boxed_slice(),
        };
        for (offset, command) in self.slots.iter().enumerate() {
            if let Some(command) = command.as_ref().filter(|c| c.channel_id == channel_id) {
                let position = self.head.wrapping_add(offset as u32);
                ring.set(command.reliable_sequence_number, position);
            }
        }
        self.rings[ring_at] = ring;
    }

    /// Takes the command at `position` out, leaving a hole.
    #[inline]
    fn take(&mut self, position: u32) -> Option<OutgoingCommand> {
        self.take_with(position, Option::take)
    }

    /// Empties the slot at `position` with `take`, which leaves it `None`
    /// and returns what it took out; the holes at the front go.
    #[inline]
    fn take_with<R>(
        &mut self,
        position: u32,
        take: impl FnOnce(&mut Option<OutgoingCommand>) -> Option<R>,
    ) -> Option<R> {
        let offset = position.wrapping_sub(self.head) as usize;
        let slot = self.slots.get_mut(offset)?;
        let copy_pending = slot.as_ref()?.copy_pending;
        let taken = take(slot)?;
        debug_assert!(slot.is_none());
        self.live -= 1;
        if copy_pending {
            self.copies_pending -= 1;
        }
        while self.slots.front().is_some_and(Option::is_none) {
            self.slots.pop_front();
            self.head = self.head.wrapping_add(1);
        }
        if self.live == 0 {
            // The rings' entries go stale, and stale entries are harmless.
            self.indexed = false;
        }
        Some(taken)
    }

    /// The send position of the command on `channel_id` with `sequence`,
    /// in constant time (amortised over the index's one-off build).
    #[inline]
    fn position_of(&mut self, channel_id: ChannelId, sequence: ReliableSequence) -> Option<u32> {
        let front_matches = self.front().is_some_and(|front| {
            front.channel_id == channel_id && front.reliable_sequence_number == sequence
        });
        if front_matches {
            return Some(self.head);
        }
        if !self.indexed && self.live > 0 {
            self.build_index();
        }
        self.find(channel_id, sequence)
    }

    /// Takes out the command on `channel_id` with `sequence` (its
    /// acknowledgement arrived), with the send position it had.
    #[cfg(test)]
    pub fn remove_with_position(
        &mut self,
        channel_id: ChannelId,
        sequence: ReliableSequence,
    ) -> Option<(OutgoingCommand, u32)> {
        let position = self.position_of(channel_id, sequence)?;
        self.take(position).map(|command| (command, position))
    }

    /// [`SentQueue::remove_with_position`] for an acknowledgement: only
    /// what it needs of the command comes out (the command itself is
    /// dropped where it lies, not moved), with the send position it had.
    pub fn acknowledge(
        &mut self,
        channel_id: ChannelId,
        sequence: ReliableSequence,
    ) -> Option<(Acknowledged, u32)> {
        let position = self.position_of(channel_id, sequence)?;
        let acknowledged = self.take_with(position, |slot| {
            let acknowledged = slot.as_mut()?.take_acknowledged();
            *slot = None;
            Some(acknowledged)
        })?;
        Some((acknowledged, position))
    }

    /// [`SentQueue::remove_with_position`] without the position.
    #[cfg(test)]
    pub fn remove(
        &mut self,
        channel_id: ChannelId,
        sequence: ReliableSequence,
    ) -> Option<OutgoingCommand> {
        self.remove_with_position(channel_id, sequence)
            .map(|(command, _)| command)
    }

    /// A cursor over the commands in send order, for taking some out on
    /// the way (the retransmission timeout).
    pub fn cursor(&mut self) -> SentCursor<'_> {
        SentCursor {
            position: self.head,
            queue: self,
        }
    }

    /// Takes the queue's one command out, if it holds one alone, without
    /// a packet or copies out: a handshake's or a ping's, say, which
    /// [`SentQueue::push`] puts back as it was (its position aside, which
    /// only orders it among others).
    pub fn take_lone(&mut self) -> Option<OutgoingCommand> {
        let lone = self.live == 1
            && self.front().is_some_and(|command| {
                command.packet.is_none() && command.copies == 0 && !command.copy_pending
            });
        if !lone {
            return None;
        }
        self.take(self.head)
    }

    /// Takes every command out, in send order.
    pub fn drain(&mut self) -> impl Iterator<Item = OutgoingCommand> + '_ {
        self.live = 0;
        self.copies_pending = 0;
        self.indexed = false;
        self.head = self.head.wrapping_add(self.slots.len() as u32);
        self.slots.drain(..).flatten()
    }

    /// Gives back the storage of an empty queue.
    pub fn release_storage_if_empty(&mut self) {
        if self.live == 0 && (self.slots.capacity() > 0 || !self.rings.is_empty()) {
            *self = SentQueue {
                head: self.head,
                ..SentQueue::default()
            };
        }
    }

    /// Bytes of storage held (for memory tests).
    #[cfg(test)]
    pub(crate) fn storage(&self) -> usize {
        self.slots.capacity() + self.rings.iter().map(|r| r.positions.len()).sum::<usize>()
    }
}

/// Walks a [`SentQueue`] in send order; see [`SentQueue::cursor`].
pub struct SentCursor<'a> {
    queue: &'a mut SentQueue,
    position: u32,
}

impl SentCursor<'_> {
    /// The next command in flight, without moving past it.
    pub fn peek(&mut self) -> Option<&OutgoingCommand> {
        // Positions behind the head were popped (their commands left).
        if self.position.wrapping_sub(self.queue.head) as usize > self.queue.slots.len() {
            self.position = self.queue.head;
        }
        while self.position.wrapping_sub(self.queue.head) < self.queue.slots.len() as u32 {
            if self.queue.at(self.position).is_some() {
                return self.queue.at(self.position);
            }
            self.position = self.position.wrapping_add(1);
        }
        None
    }

    /// The next command in flight, to change it in place.
    fn peek_mut(&mut self) -> Option<&mut OutgoingCommand> {
        self.peek()?;
        let offset = self.position.wrapping_sub(self.queue.head) as usize;
        self.queue.slots.get_mut(offset)?.as_mut()
    }

    /// Moves past the command [`SentCursor::peek`] returned.
    pub fn skip(&mut self) {
        self.position = self.position.wrapping_add(1);
    }

    /// Takes out the command [`SentCursor::peek`] returned and moves past it.
    pub fn take(&mut self) -> Option<OutgoingCommand> {
        self.peek()?;
        let command = self.queue.take(self.position);
        self.position = self.position.wrapping_add(1);
        command
    }

    /// Whether the command [`SentCursor::peek`] returned is the oldest in
    /// flight.
    pub fn at_front(&self) -> bool {
        self.position == self.queue.head && !self.queue.slots.is_empty()
    }

    /// The oldest command still in flight.
    pub fn front(&self) -> Option<&OutgoingCommand> {
        self.queue.front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::state::command::OutgoingBody;
    use crate::wire::command::CommandFlags;

    fn reliable(channel_id: ChannelId, sequence: u16) -> OutgoingCommand {
        let mut command =
            OutgoingCommand::new(CommandFlags::ACKNOWLEDGE, channel_id, OutgoingBody::Ping);
        command.reliable_sequence_number = seq(sequence);
        command
    }

    fn seq(raw: u16) -> ReliableSequence {
        ReliableSequence::new(raw)
    }

    fn keys(queue: &mut SentQueue) -> Vec<(u8, u16)> {
        let mut cursor = queue.cursor();
        let mut keys = Vec::new();
        while let Some(command) = cursor.peek() {
            keys.push((
                command.channel_id.wire(),
                command.reliable_sequence_number.get(),
            ));
            cursor.skip();
        }
        keys
    }

    /// How many commands `copies_due` packs at `now` when every copy's
    /// delay comes out as `timeout`.
    fn copies_at(queue: &mut SentQueue, now: u32, timeout: u32) -> usize {
        let mut packed = 0;
        queue.copies_due(
            now,
            true,
            |_| {
                packed += 1;
                true
            },
            |_| timeout,
        );
        packed
    }

    #[test]
    fn a_copy_is_never_due_again_at_once_whatever_its_timeout() {
        // Timeouts doubled until they wrapped to 0, or into the range
        // ENet's clock reads as the past.
        for timeout in [0, u32::MAX - 5, 1 << 31] {
            let mut queue = SentQueue::default();
            let mut command = reliable(ChannelId::from(0), 1);
            command.sent_time = 1000;
            command.round_trip_timeout = 0;
            queue.push(command);
            let now = 1000;
            let packed: usize = (0..3).map(|_| copies_at(&mut queue, now, timeout)).sum();
            assert_eq!(packed, 1, "timeout {timeout}: copied once at {now}");
            assert_eq!(
                copies_at(&mut queue, now + TIME_OVERFLOW, timeout),
                1,
                "timeout {timeout}: due again within a day"
            );
            while let Some(command) = queue.remove(ChannelId::from(0), seq(1)) {
                command.discard();
            }
        }
    }

    #[test]
    fn acknowledgements_in_any_order_find_their_command() {
        let mut queue = SentQueue::default();
        for sequence in 1..=300u16 {
            queue.push(reliable(ChannelId::from(0), sequence));
            queue.push(reliable(ChannelId::CONNECTION, sequence));
        }
        assert_eq!(queue.len(), 600);
        // Every third acknowledged first, out of order, then the rest.
        for sequence in (1..=300u16).rev().filter(|s| s % 3 == 0) {
            let command = queue
                .remove(ChannelId::from(0), seq(sequence))
                .expect("in flight");
            assert_eq!(command.reliable_sequence_number.get(), sequence);
            command.discard();
        }
        assert!(
            queue.remove(ChannelId::from(0), seq(3)).is_none(),
            "acknowledged twice"
        );
        assert!(
            queue.remove(ChannelId::from(1), seq(1)).is_none(),
            "other channel"
        );
        assert_eq!(queue.front().unwrap().reliable_sequence_number.get(), 1);
        for sequence in 1..=300u16 {
            if sequence % 3 != 0 {
                queue
                    .remove(ChannelId::from(0), seq(sequence))
                    .expect("in flight")
                    .discard();
            }
            queue
                .remove(ChannelId::CONNECTION, seq(sequence))
                .expect("in flight")
                .discard();
        }
        assert!(queue.is_empty() && queue.front().is_none());
        assert!(queue.slots.is_empty(), "holes are gone with the commands");
    }

    #[test]
    fn sequence_numbers_wrap_and_resent_commands_are_found_again() {
        let mut queue = SentQueue::default();
        for sequence in 65530..=65535u16 {
            queue.push(reliable(ChannelId::from(2), sequence));
        }
        for sequence in 0..10u16 {
            queue.push(reliable(ChannelId::from(2), sequence));
        }
        // An acknowledgement out of order builds the index; what follows
        // must keep it whole.
        queue
            .remove(ChannelId::from(2), seq(3))
            .expect("in flight")
            .discard();
        assert!(queue.indexed);
        // The timeout resends 65531: it leaves and goes in at the back.
        let mut cursor = queue.cursor();
        cursor.skip();
        let resent = cursor.take().unwrap();
        assert_eq!(resent.reliable_sequence_number.get(), 65531);
        queue.push(resent);
        let order = keys(&mut queue);
        assert_eq!(order.first(), Some(&(2, 65530)));
        assert_eq!(order.last(), Some(&(2, 65531)));
        assert_eq!(order.len(), 15);
        for sequence in (65530..=65535u16).chain(0..10).filter(|&s| s != 3).rev() {
            queue
                .remove(ChannelId::from(2), seq(sequence))
                .expect("in flight")
                .discard();
        }
        assert!(queue.is_empty());
    }

    #[test]
    fn a_wide_window_grows_the_ring_and_an_empty_queue_gives_it_back() {
        let mut queue = SentQueue::default();
        // A window spanning thousands of numbers, acknowledged backwards.
        for sequence in 0..5000u16 {
            queue.push(reliable(ChannelId::from(0), sequence.wrapping_mul(7)));
        }
        for sequence in (0..5000u16).rev() {
            let number = sequence.wrapping_mul(7);
            let command = queue
                .remove(ChannelId::from(0), seq(number))
                .expect("in flight");
            assert_eq!(command.reliable_sequence_number.get(), number);
            command.discard();
        }
        assert!(queue.is_empty());
        assert!(queue.storage() > 0);
        queue.release_storage_if_empty();
        assert_eq!(queue.storage(), 0);
        // Positions keep counting after a release.
        queue.push(reliable(ChannelId::from(0), 1));
        assert!(queue.remove(ChannelId::from(0), seq(1)).is_some_and(|c| {
            c.discard();
            true
        }));
    }

    #[test]
    fn a_cursor_takes_commands_out_on_the_way_without_losing_its_place() {
        let mut queue = SentQueue::default();
        for sequence in 1..=6u16 {
            queue.push(reliable(ChannelId::from(0), sequence));
        }
        queue.remove(ChannelId::from(0), seq(2)).unwrap().discard();
        let mut taken = Vec::new();
        let mut cursor = queue.cursor();
        while let Some(command) = cursor.peek() {
            if command.reliable_sequence_number.get() % 2 == 1 {
                taken.push(cursor.take().unwrap().reliable_sequence_number.get());
            } else {
                cursor.skip();
            }
        }
        assert_eq!(taken, [1, 3, 5]);
        assert_eq!(keys(&mut queue), [(0, 4), (0, 6)]);
        for command in queue.drain() {
            command.discard();
        }
        assert!(queue.is_empty() && queue.front().is_none());
    }

    #[test]
    fn only_commands_sent_before_the_acknowledged_one_are_passed_over() {
        let mut queue = SentQueue::default();
        for sequence in 1..=10u16 {
            queue.push(reliable(ChannelId::from(0), sequence));
        }
        let passed = |queue: &mut SentQueue, sequence: u16| {
            let mut cursor = queue.cursor();
            while let Some(command) = cursor.peek() {
                if command.reliable_sequence_number == seq(sequence) {
                    return Some(command.passed_over);
                }
                cursor.skip();
            }
            None
        };
        // Sequence 2 acknowledged: 1 was sent before it.
        let (command, position) = queue
            .remove_with_position(ChannelId::from(0), seq(2))
            .unwrap();
        command.discard();
        let mut taken = Vec::new();
        queue.pass_over(position, 2, 64, PassedOver::Take, |c| taken.push(c));
        assert!(taken.is_empty());
        assert_eq!(passed(&mut queue, 1), Some(1));
        assert_eq!(passed(&mut queue, 3), Some(0));
        // Sequence 3 acknowledged: 1 is passed over twice and goes; taking
        // it moves the head past 3's position, and nothing after 3 counts.
        let (command, position) = queue
            .remove_with_position(ChannelId::from(0), seq(3))
            .unwrap();
        command.discard();
        queue.pass_over(position, 2, 64, PassedOver::Take, |c| taken.push(c));
        assert_eq!(
            taken
                .iter()
                .map(|c| c.reliable_sequence_number.get())
                .collect::<Vec<_>>(),
            [1]
        );
        for sequence in 4..=10 {
            assert_eq!(passed(&mut queue, sequence), Some(0), "sequence {sequence}");
        }
        // Marking for a copy leaves the command in flight, counted.
        let (command, position) = queue
            .remove_with_position(ChannelId::from(0), seq(6))
            .unwrap();
        command.discard();
        queue.pass_over(position, 1, 64, PassedOver::Copy, |c| taken.push(c));
        assert_eq!(taken.len(), 1);
        assert_eq!(queue.copies_pending(), 2, "4 and 5");
        for command in taken.into_iter().chain(queue.drain()) {
            command.discard();
        }
        assert_eq!(queue.copies_pending(), 0);
    }
}
