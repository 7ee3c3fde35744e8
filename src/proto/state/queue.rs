//! A peer's queue of commands waiting to be sent.
//!
//! Besides the commands in order, it counts those the in-flight window
//! never holds back (unreliable ones, and reliable ones without payload),
//! so a send pass that finds the window full can stop scanning as soon as
//! only window-bound commands remain, instead of walking a long queue of
//! reliable data on every call as stock does.

use std::collections::VecDeque;

use super::command::OutgoingCommand;

/// Appends to a per-peer queue. An empty queue first gets room for just
/// one item (not the four a first push would allocate): most peers hold
/// one command at a time (a handshake, a ping), and thousands of them
/// would otherwise pin three times the memory they use.
pub(crate) fn push_to_peer_queue<T>(queue: &mut VecDeque<T>, item: T) {
    room_for_one(queue);
    queue.push_back(item);
}

/// Gives an unallocated per-peer queue room for one item (see
/// [`push_to_peer_queue`]); does nothing to one that has room already.
pub(crate) fn room_for_one<T>(queue: &mut VecDeque<T>) {
    if queue.capacity() == 0 {
        queue.reserve_exact(1);
    }
}

#[derive(Debug, Default)]
pub struct OutgoingQueue {
    commands: VecDeque<OutgoingCommand>,
    unwindowed: usize,
}

/// Whether the reliable in-flight window can hold `command` back.
pub fn is_windowed(command: &OutgoingCommand) -> bool {
    command.is_reliable() && command.packet.is_some()
}

impl OutgoingQueue {
    pub fn push_back(&mut self, command: OutgoingCommand) {
        self.unwindowed += usize::from(!is_windowed(&command));
        push_to_peer_queue(&mut self.commands, command);
    }

    /// Puts `command` at `position` (at most the length), ahead of the
    /// commands from there on.
    pub fn insert(&mut self, position: usize, command: OutgoingCommand) {
        self.unwindowed += usize::from(!is_windowed(&command));
        room_for_one(&mut self.commands);
        self.commands.insert(position, command);
    }

    // Always inlined: the command (72 bytes) then moves straight
    // from the ring to where the caller puts it, instead of being copied
    // through a return slot first (about 35 instructions a message).
    #[inline(always)]
    pub fn remove(&mut self, position: usize) -> Option<OutgoingCommand> {
        // Sends take from the front almost always; `pop_front` skips the
        // general removal's shifting.
        let command = if position == 0 {
            self.commands.pop_front()?
        } else {
            self.commands.remove(position)?
        };
        self.unwindowed -= usize::from(!is_windowed(&command));
        Some(command)
    }

    /// Takes every command out.
    pub fn take_all(&mut self) -> VecDeque<OutgoingCommand> {
        self.unwindowed = 0;
        std::mem::take(&mut self.commands)
    }

    pub fn get(&self, position: usize) -> Option<&OutgoingCommand> {
        self.commands.get(position)
    }

    pub fn back(&self) -> Option<&OutgoingCommand> {
        self.commands.back()
    }

    pub fn iter(&self) -> impl Iterator<Item = &OutgoingCommand> {
        self.commands.iter()
    }

    pub fn len(&self) -> usize {
        self.commands.len()
    }

    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// Frees the queue's storage if it is empty (it allocates again on use).
    pub fn release_storage_if_empty(&mut self) {
        if self.commands.is_empty() && self.commands.capacity() > 0 {
            self.commands = VecDeque::new();
        }
    }

    /// Commands the in-flight window never holds back.
    pub fn unwindowed(&self) -> usize {
        self.unwindowed
    }
}

impl core::ops::Index<usize> for OutgoingQueue {
    type Output = OutgoingCommand;
    fn index(&self, position: usize) -> &OutgoingCommand {
        &self.commands[position]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::PacketRef;
    use crate::proto::state::channel_id::ChannelId;
    use crate::proto::state::command::OutgoingBody;
    use crate::wire::command::CommandFlags;

    fn command(reliable: bool, payload: bool) -> OutgoingCommand {
        let flags = if reliable {
            CommandFlags::ACKNOWLEDGE
        } else {
            CommandFlags::NONE
        };
        let body = if reliable {
            OutgoingBody::SendReliable
        } else {
            OutgoingBody::SendUnreliable
        };
        let command = OutgoingCommand::new(flags, ChannelId::from(0), body);
        if payload {
            command.with_payload(
                PacketRef::new_with_data(b"x", crate::mem::PacketFlags::NONE).unwrap(),
                0,
                1,
            )
        } else {
            command
        }
    }

    #[test]
    fn counts_what_the_window_cannot_hold_back() {
        let mut queue = OutgoingQueue::default();
        queue.push_back(command(true, true));
        queue.push_back(command(false, true));
        queue.insert(0, command(true, false));
        assert_eq!(queue.unwindowed(), 2);
        let removed = queue.remove(1).unwrap();
        assert!(is_windowed(&removed));
        removed.discard();
        assert_eq!(queue.unwindowed(), 2);
        queue.remove(0).unwrap().discard();
        assert_eq!(queue.unwindowed(), 1);
        for left in queue.take_all() {
            left.discard();
        }
        assert_eq!(queue.unwindowed(), 0);
        assert!(queue.is_empty());
    }
}
