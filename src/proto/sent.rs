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

use std::collections::VecDeque;

use super::command::{OutgoingCommand, CONNECTION_CHANNEL};
use super::queue::room_for_one;

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
    fn entry(&self, sequence: u16) -> Option<u32> {
        let mask = self.positions.len().checked_sub(1)?;
        Some(self.positions[usize::from(sequence) & mask])
    }

    fn set(&mut self, sequence: u16, position: u32) {
        let mask = self.positions.len() - 1;
        self.positions[usize::from(sequence) & mask] = position;
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
}

fn ring_index(channel_id: u8) -> usize {
    if channel_id == CONNECTION_CHANNEL {
        0
    } else {
        usize::from(channel_id) + 1
    }
}

impl SentQueue {
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.live
    }

    /// The oldest command in flight.
    pub fn front(&self) -> Option<&OutgoingCommand> {
        self.slots.front().and_then(Option::as_ref)
    }

    /// Appends a command just sent.
    pub fn push(&mut self, command: OutgoingCommand) {
        let position = self.head.wrapping_add(self.slots.len() as u32);
        let (channel_id, sequence) = (command.channel_id, command.reliable_sequence_number);
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
    fn find(&self, channel_id: u8, sequence: u16) -> Option<u32> {
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
    fn index(&mut self, channel_id: u8, sequence: u16, position: u32) {
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
                        && usize::from(theirs) & mask == usize::from(sequence) & mask
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
    fn grow_ring(&mut self, channel_id: u8) {
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
        let offset = position.wrapping_sub(self.head) as usize;
        let command = if offset == 0 {
            // The front: taken with the slot, not moved out of it first.
            let command = self.slots.pop_front()??;
            self.head = self.head.wrapping_add(1);
            command
        } else {
            self.slots.get_mut(offset)?.take()?
        };
        self.live -= 1;
        while self.slots.front().is_some_and(Option::is_none) {
            self.slots.pop_front();
            self.head = self.head.wrapping_add(1);
        }
        if self.live == 0 {
            // The rings' entries go stale, and stale entries are harmless.
            self.indexed = false;
        }
        Some(command)
    }

    /// Takes out the command on `channel_id` with `sequence` (its
    /// acknowledgement arrived), in constant time (amortised over the
    /// index's one-off build).
    pub fn remove(&mut self, channel_id: u8, sequence: u16) -> Option<OutgoingCommand> {
        let front_matches = self.front().is_some_and(|front| {
            front.channel_id == channel_id && front.reliable_sequence_number == sequence
        });
        if front_matches {
            return self.take(self.head);
        }
        if !self.indexed && self.live > 0 {
            self.build_index();
        }
        let position = self.find(channel_id, sequence)?;
        self.take(position)
    }

    /// A cursor over the commands in send order, for taking some out on
    /// the way (the retransmission timeout).
    pub fn cursor(&mut self) -> SentCursor<'_> {
        SentCursor {
            position: self.head,
            queue: self,
        }
    }

    /// Takes every command out, in send order.
    pub fn drain(&mut self) -> impl Iterator<Item = OutgoingCommand> + '_ {
        self.live = 0;
        self.indexed = false;
        self.head = self.head.wrapping_add(self.slots.len() as u32);
        self.slots.drain(..).flatten()
    }

    /// Gives back the storage of an empty queue.
    pub fn release_storage_if_empty(&mut self) {
        if self.live == 0 {
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
    use crate::proto::command::OutgoingBody;
    use crate::wire::command::CommandFlags;

    fn reliable(channel_id: u8, sequence: u16) -> OutgoingCommand {
        let mut command =
            OutgoingCommand::new(CommandFlags::ACKNOWLEDGE, channel_id, OutgoingBody::Ping);
        command.reliable_sequence_number = sequence;
        command
    }

    fn keys(queue: &mut SentQueue) -> Vec<(u8, u16)> {
        let mut cursor = queue.cursor();
        let mut keys = Vec::new();
        while let Some(command) = cursor.peek() {
            keys.push((command.channel_id, command.reliable_sequence_number));
            cursor.skip();
        }
        keys
    }

    #[test]
    fn acknowledgements_in_any_order_find_their_command() {
        let mut queue = SentQueue::default();
        for sequence in 1..=300u16 {
            queue.push(reliable(0, sequence));
            queue.push(reliable(CONNECTION_CHANNEL, sequence));
        }
        assert_eq!(queue.len(), 600);
        // Every third acknowledged first, out of order, then the rest.
        for sequence in (1..=300u16).rev().filter(|s| s % 3 == 0) {
            let command = queue.remove(0, sequence).expect("in flight");
            assert_eq!(command.reliable_sequence_number, sequence);
            command.discard();
        }
        assert!(queue.remove(0, 3).is_none(), "acknowledged twice");
        assert!(queue.remove(1, 1).is_none(), "other channel");
        assert_eq!(queue.front().unwrap().reliable_sequence_number, 1);
        for sequence in 1..=300u16 {
            if sequence % 3 != 0 {
                queue.remove(0, sequence).expect("in flight").discard();
            }
            queue
                .remove(CONNECTION_CHANNEL, sequence)
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
            queue.push(reliable(2, sequence));
        }
        for sequence in 0..10u16 {
            queue.push(reliable(2, sequence));
        }
        // An acknowledgement out of order builds the index; what follows
        // must keep it whole.
        queue.remove(2, 3).expect("in flight").discard();
        assert!(queue.indexed);
        // The timeout resends 65531: it leaves and goes in at the back.
        let mut cursor = queue.cursor();
        cursor.skip();
        let resent = cursor.take().unwrap();
        assert_eq!(resent.reliable_sequence_number, 65531);
        queue.push(resent);
        let order = keys(&mut queue);
        assert_eq!(order.first(), Some(&(2, 65530)));
        assert_eq!(order.last(), Some(&(2, 65531)));
        assert_eq!(order.len(), 15);
        for sequence in (65530..=65535u16).chain(0..10).filter(|&s| s != 3).rev() {
            queue.remove(2, sequence).expect("in flight").discard();
        }
        assert!(queue.is_empty());
    }

    #[test]
    fn a_wide_window_grows_the_ring_and_an_empty_queue_gives_it_back() {
        let mut queue = SentQueue::default();
        // A window spanning thousands of numbers, acknowledged backwards.
        for sequence in 0..5000u16 {
            queue.push(reliable(0, sequence.wrapping_mul(7)));
        }
        for sequence in (0..5000u16).rev() {
            let number = sequence.wrapping_mul(7);
            let command = queue.remove(0, number).expect("in flight");
            assert_eq!(command.reliable_sequence_number, number);
            command.discard();
        }
        assert!(queue.is_empty());
        assert!(queue.storage() > 0);
        queue.release_storage_if_empty();
        assert_eq!(queue.storage(), 0);
        // Positions keep counting after a release.
        queue.push(reliable(0, 1));
        assert!(queue.remove(0, 1).is_some_and(|c| {
            c.discard();
            true
        }));
    }

    #[test]
    fn a_cursor_takes_commands_out_on_the_way_without_losing_its_place() {
        let mut queue = SentQueue::default();
        for sequence in 1..=6u16 {
            queue.push(reliable(0, sequence));
        }
        queue.remove(0, 2).unwrap().discard();
        let mut taken = Vec::new();
        let mut cursor = queue.cursor();
        while let Some(command) = cursor.peek() {
            if command.reliable_sequence_number % 2 == 1 {
                taken.push(cursor.take().unwrap().reliable_sequence_number);
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
}
