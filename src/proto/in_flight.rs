//! One peer's reliable commands in flight, on its [`PeerMut`] view: an
//! acknowledgement takes its command out (stock
//! `enet_protocol_remove_sent_reliable_command`), and the retransmission
//! timeout sends timed-out commands again or gives up on the peer (stock
//! `enet_protocol_check_timeouts`). Reporting a lost peer is the host's.

use super::command::OutgoingCommand;
use super::peer::PeerMut;
use crate::abi::*;
use crate::time::{time_difference, time_less};
use crate::wire::command::CommandFlags;

const WINDOW_SIZE: u16 = ENET_PEER_RELIABLE_WINDOW_SIZE as u16;

/// The peer stayed silent past its timeout limits: the host disconnects it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TimedOut;

impl PeerMut<'_> {
    /// Takes the reliable command on `channel_id` with `sequence` out of
    /// the sent queue (or, if the acknowledgement beat our own bookkeeping,
    /// out of the send queue), at service time `now`; its command number.
    pub(crate) fn acknowledge(&mut self, channel_id: u8, sequence: u16, now: u32) -> Option<u8> {
        let queues = self.slot.queues_if_any()?;
        let (command, was_sent) = match queues.sent_reliable.remove(channel_id, sequence) {
            Some(command) => (command, true),
            None => {
                let matches = |command: &OutgoingCommand| {
                    command.reliable_sequence_number == sequence && command.channel_id == channel_id
                };
                let mut found = None;
                for (position, command) in queues.outgoing.iter().enumerate() {
                    if !command.flags.contains(CommandFlags::ACKNOWLEDGE) {
                        continue;
                    }
                    if command.send_attempts < 1 {
                        return None;
                    }
                    if matches(command) {
                        found = Some(position);
                        break;
                    }
                }
                (queues.outgoing.remove(found?)?, false)
            }
        };
        let reliable_window = usize::from(sequence / WINDOW_SIZE);
        if let Some(channel) = self.channel(channel_id) {
            if channel.reliableWindows[reliable_window] > 0 {
                channel.reliableWindows[reliable_window] -= 1;
                if channel.reliableWindows[reliable_window] == 0 {
                    channel.usedReliableWindows &= !(1 << reliable_window);
                }
            }
        }
        let command_number = command.number();
        let peer = &mut *self.public;
        if command.packet.is_some() && was_sent {
            peer.reliableDataInTransit = peer
                .reliableDataInTransit
                .saturating_sub(u32::from(command.fragment_length));
        }
        command.complete();
        match self
            .slot
            .queues_if_any()
            .and_then(|queues| queues.sent_reliable.front())
        {
            Some(front) => {
                peer.nextTimeout = front.sent_time.wrapping_add(front.round_trip_timeout);
            }
            // Nothing left in flight, as when an idle peer's ping is
            // acknowledged: its queues need not stay allocated until the
            // next ping.
            None => self.slot.release_if_idle(now),
        }
        Some(command_number)
    }

    /// Moves timed-out reliable commands back to the front of the send
    /// queue (in the order they were sent) with a doubled timeout, or finds
    /// the peer lost. Works in place: nothing is allocated, and commands
    /// that have not timed out stay put.
    pub(crate) fn check_timeouts(&mut self, now: u32) -> Result<(), TimedOut> {
        let peer = &mut *self.public;
        let queues = self.slot.queues();
        let mut cursor = queues.sent_reliable.cursor();
        let mut moved = 0;
        while let Some(command) = cursor.peek() {
            if time_difference(now, command.sent_time) < command.round_trip_timeout {
                cursor.skip();
                continue;
            }
            let (sent_time, timeout, limit) = (
                command.sent_time,
                command.round_trip_timeout,
                command.round_trip_timeout_limit,
            );
            if peer.earliestTimeout == 0 || time_less(sent_time, peer.earliestTimeout) {
                peer.earliestTimeout = sent_time;
            }
            let waited = time_difference(now, peer.earliestTimeout);
            if peer.earliestTimeout != 0
                && (waited >= peer.timeoutMaximum
                    || (timeout >= limit && waited >= peer.timeoutMinimum))
            {
                // This command and the rest stay where they are; those
                // already moved stay queued for resending (as stock).
                return Err(TimedOut);
            }
            let was_front = cursor.at_front();
            let Some(mut command) = cursor.take() else {
                break;
            };
            if command.packet.is_some() {
                peer.reliableDataInTransit = peer
                    .reliableDataInTransit
                    .saturating_sub(u32::from(command.fragment_length));
            }
            peer.packetsLost = peer.packetsLost.wrapping_add(1);
            command.round_trip_timeout = command.round_trip_timeout.wrapping_mul(2);
            if was_front {
                if let Some(next) = cursor.front() {
                    peer.nextTimeout = next.sent_time.wrapping_add(next.round_trip_timeout);
                }
            }
            queues.outgoing.insert(moved, command);
            moved += 1;
        }
        Ok(())
    }
}
