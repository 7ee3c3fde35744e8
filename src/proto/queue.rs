//! A peer's queue of commands waiting to be sent.
//!
//! Besides the commands in order, it counts those the in-flight window
//! never holds back (unreliable ones, and reliable ones without payload),
//! so a send pass that finds the window full can stop scanning as soon as
//! only window-bound commands remain, instead of walking a long queue of
//! reliable data on every call as stock does.

use std::collections::VecDeque;

use super::command::OutgoingCommand;

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
        self.commands.push_back(command);
    }

    pub fn push_front(&mut self, command: OutgoingCommand) {
        self.unwindowed += usize::from(!is_windowed(&command));
        self.commands.push_front(command);
    }

    pub fn remove(&mut self, position: usize) -> Option<OutgoingCommand> {
        let command = self.commands.remove(position)?;
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
