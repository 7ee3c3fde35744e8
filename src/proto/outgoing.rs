//! Sending (stock `enet_protocol_send_outgoing_commands` and helpers):
//! acknowledgements first, then retransmission timeouts, then queued
//! commands within the reliable windows and the in-flight limit, then a
//! ping if the link has been quiet; each datagram goes out with the host's
//! checksum and compressor applied.

use std::cell::RefCell;

use super::codec::Codec;
use super::command::number;
use super::event::EventSlot;
use super::host::Host;
use super::queue::is_windowed;
use crate::abi::*;
use crate::time::{time_difference, time_greater_equal, time_less, TIME_OVERFLOW};
use crate::wire::builder::Envelope;
use crate::wire::command::{CommandFlags, ConnectId};

use ENetPeerState::*;

const WINDOW_SIZE: u16 = ENET_PEER_RELIABLE_WINDOW_SIZE as u16;
const WINDOWS: u16 = ENET_PEER_RELIABLE_WINDOWS as u16;
/// Windows that must be free ahead of a new one before the sender starts it.
const FREE_WINDOWS_AHEAD: u32 = ENET_PEER_FREE_RELIABLE_WINDOWS + 2;
const ACKNOWLEDGE_LEN: usize = 8;
const PING_LEN: usize = 4;

/// Sends a datagram to an address; the bytes sent, or a negative error.
/// The flag says whether the datagram is paced by the peer's reliable
/// window (it carries no unreliable payload), so it may leave in one burst
/// with others (see [`super::Transport::transmit`]).
pub type Transmit<'a> = dyn FnMut(&ENetAddress, &[u8], bool) -> isize + 'a;

/// The socket refused a datagram (`enet_host_service` then returns -1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendFailed;

impl Host {
    /// One send pass over every peer that needs it. `check_timeouts` is
    /// false for `enet_host_flush`. Stops early, leaving the rest for the
    /// next pass, when a timeout produces an event in `events`.
    pub fn send_outgoing(
        &mut self,
        now: u32,
        check_timeouts: bool,
        codec: &mut dyn Codec,
        transmit: &mut Transmit<'_>,
        events: &mut EventSlot,
    ) -> Result<(), SendFailed> {
        self.public.serviceTime = now;
        let mut due = std::mem::take(&mut self.engine.due);
        self.engine.schedule.take_due(now, &mut due);
        // Rounds of one datagram per peer, as stock's passes over its peers:
        // a peer with more to send goes round again.
        let mut round = std::mem::take(&mut self.engine.round);
        let mut again = std::mem::take(&mut self.engine.again);
        round.clear();
        round.extend_from_slice(&due);
        again.clear();
        let mut result = Ok(());
        'rounds: while !round.is_empty() {
            for (position, &index) in round.iter().enumerate() {
                let outcome =
                    self.send_datagram(index, now, check_timeouts, codec, transmit, events);
                let stop = match outcome {
                    Err(failed) => {
                        result = Err(failed);
                        true
                    }
                    Ok(more) => {
                        if more {
                            again.push(index);
                        }
                        events.has_event()
                    }
                };
                if stop {
                    // The rest waits for the next pass.
                    for &later in round[position + 1..].iter().chain(&again) {
                        self.engine.schedule.mark_ready(later);
                    }
                    break 'rounds;
                }
            }
            round.clear();
            std::mem::swap(&mut round, &mut again);
        }
        for &index in &due {
            self.reschedule(index, now);
        }
        self.engine.due = due;
        self.engine.round = round;
        self.engine.again = again;
        result
    }

    /// Sets the peer's next visit: at once if it has queued work, else at
    /// its retransmission timeout or its next ping.
    pub(crate) fn reschedule(&mut self, index: usize, now: u32) {
        self.engine.slots[index].release_if_idle(now);
        let peer = &self.engine.peers[index];
        let slot = &self.engine.slots[index];
        if peer.state == ENET_PEER_STATE_DISCONNECTED || peer.state == ENET_PEER_STATE_ZOMBIE {
            self.engine.schedule.cancel_timer(index);
            return;
        }
        if !slot.acknowledgements_is_empty() || !slot.outgoing_is_empty() {
            self.engine.schedule.mark_ready(index);
        }
        let deadline = if !slot.sent_reliable_is_empty() {
            Some(peer.nextTimeout)
        } else if peer.state == ENET_PEER_STATE_CONNECTED {
            // Stock pings once the distance to the last acknowledgement
            // (either way round, so a clock set back pings at once) reaches
            // the interval; an interval of a day or more never does.
            let since = time_difference(now, peer.lastReceiveTime);
            if peer.pingInterval >= TIME_OVERFLOW {
                None
            } else if since >= peer.pingInterval {
                Some(now)
            } else {
                Some(now.wrapping_add(peer.pingInterval - since))
            }
        } else {
            None
        };
        match deadline {
            // A deadline already passed (and not served this pass) would
            // spin; look again a millisecond later.
            Some(deadline) if time_less(deadline, now.wrapping_add(1)) => self
                .engine
                .schedule
                .set_timer(index, now, now.wrapping_add(1)),
            Some(deadline) => self.engine.schedule.set_timer(index, now, deadline),
            None => self.engine.schedule.cancel_timer(index),
        }
    }

    /// Sends the peer one datagram of what it may be sent now; `Ok(true)`
    /// if more is waiting that did not fit.
    fn send_datagram(
        &mut self,
        index: usize,
        now: u32,
        check_timeouts: bool,
        codec: &mut dyn Codec,
        transmit: &mut Transmit<'_>,
        events: &mut EventSlot,
    ) -> Result<bool, SendFailed> {
        let state = self.engine.peers[index].state;
        if state == ENET_PEER_STATE_DISCONNECTED || state == ENET_PEER_STATE_ZOMBIE {
            return Ok(false);
        }
        let mtu = self.engine.peers[index].mtu;
        self.engine.builder.restart(mtu);
        let mut continue_sending = false;

        if !self.engine.slots[index].acknowledgements_is_empty() {
            continue_sending |= self.pack_acknowledgements(index);
        }
        if check_timeouts
            && !self.engine.slots[index].sent_reliable_is_empty()
            && time_greater_equal(now, self.engine.peers[index].nextTimeout)
            && self.check_timeouts(index, now, events)
        {
            return Ok(false);
        }
        let can_ping = if self.engine.slots[index].outgoing_is_empty() {
            true
        } else {
            let (can_ping, full) = self.pack_outgoing(index, now);
            continue_sending |= full;
            can_ping
        };
        let peer = &self.engine.peers[index];
        if can_ping
            && self.engine.slots[index].sent_reliable_is_empty()
            && time_difference(now, peer.lastReceiveTime) >= peer.pingInterval
            && self.engine.builder.remaining() >= PING_LEN
        {
            self.ping(index);
            let (_, full) = self.pack_outgoing(index, now);
            continue_sending |= full;
        }
        if self.engine.builder.is_empty() {
            return Ok(false);
        }
        self.peer_view(index).update_packet_loss(now);
        let sent = self.transmit_datagram(index, now, codec, transmit);
        self.complete_sent_unreliable(index);
        let sent = sent?;
        self.public.totalSentData = self.public.totalSentData.wrapping_add(sent as u32);
        self.public.totalSentPackets = self.public.totalSentPackets.wrapping_add(1);
        Ok(continue_sending)
    }

    /// Packs owed acknowledgements; true if some had to wait for the next
    /// datagram.
    fn pack_acknowledgements(&mut self, index: usize) -> bool {
        while let Some(acknowledgement) = self.engine.slots[index]
            .queues()
            .acknowledgements
            .front()
            .copied()
        {
            if !self.engine.builder.fits(ACKNOWLEDGE_LEN) {
                return true;
            }
            let (header, command) = acknowledgement.wire();
            if self.engine.builder.push(&header, &command).is_err() {
                return true;
            }
            self.engine.slots[index]
                .queues()
                .acknowledgements
                .pop_front();
            if acknowledgement.command_number == number::DISCONNECT {
                self.dispatch_state(index, ENET_PEER_STATE_ZOMBIE);
            }
        }
        false
    }

    /// Moves timed-out reliable commands back to the front of the queue
    /// (in the order they were sent) with a doubled timeout, or gives up on
    /// the peer. True if the peer was disconnected. Works in place: nothing
    /// is allocated, and commands that have not timed out stay put.
    fn check_timeouts(&mut self, index: usize, now: u32, events: &mut EventSlot) -> bool {
        let peer = &mut self.engine.peers[index];
        let queues = self.engine.slots[index].queues();
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
                self.notify_disconnect(index, events);
                return true;
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
        false
    }

    /// Packs queued commands in order while they fit. Returns whether a
    /// ping may follow (no reliable command was sent or held back) and
    /// whether the datagram filled up with commands left over.
    fn pack_outgoing(&mut self, index: usize, now: u32) -> (bool, bool) {
        let mut window_exceeded = false;
        let mut window_wrap = false;
        let mut can_ping = true;
        let mut full = false;
        let mut position = 0;
        // Commands ahead that the in-flight window cannot hold back: once
        // the window is full and none remain, the rest would all be skipped.
        let mut unwindowed_ahead = self.engine.slots[index].queues().outgoing.unwindowed();
        while position < self.engine.slots[index].queues().outgoing.len() {
            if window_exceeded && unwindowed_ahead == 0 {
                break;
            }
            let command = &self.engine.slots[index].queues().outgoing[position];
            if !is_windowed(command) {
                unwindowed_ahead -= 1;
            }
            let reliable = command.is_reliable();
            let reliable_window = command.reliable_sequence_number / WINDOW_SIZE;
            let channel_id = command.channel_id;
            let has_packet = command.packet.is_some();
            let fragment_length = u32::from(command.fragment_length);
            let first_send = command.send_attempts < 1;
            let starts_window = command.reliable_sequence_number % WINDOW_SIZE == 0;
            let wire_len = command.fixed_len() + usize::from(command.fragment_length);
            if reliable {
                let channel_state = self
                    .channel_mut(index, channel_id)
                    .map(|channel| (channel.reliableWindows, channel.usedReliableWindows));
                if let Some((windows, used)) = channel_state {
                    if !window_wrap && first_send && starts_window {
                        let previous =
                            windows[usize::from((reliable_window + WINDOWS - 1) % WINDOWS)];
                        let ahead = (1u32 << FREE_WINDOWS_AHEAD) - 1;
                        let ahead_mask =
                            (ahead << reliable_window) | (ahead >> (WINDOWS - reliable_window));
                        if previous >= WINDOW_SIZE || u32::from(used) & ahead_mask != 0 {
                            window_wrap = true;
                        }
                    }
                    if window_wrap {
                        position += 1;
                        continue;
                    }
                }
                if has_packet {
                    let peer = &self.engine.peers[index];
                    if !window_exceeded {
                        let window = peer.packetThrottle.wrapping_mul(peer.windowSize)
                            / ENET_PEER_PACKET_THROTTLE_SCALE;
                        if peer.reliableDataInTransit + fragment_length > window.max(peer.mtu) {
                            window_exceeded = true;
                        }
                    }
                    if window_exceeded {
                        position += 1;
                        continue;
                    }
                }
                can_ping = false;
            }
            if !self.engine.builder.fits(wire_len) {
                full = true;
                break;
            }
            let Some(mut command) = self.engine.slots[index].queues().outgoing.remove(position)
            else {
                break;
            };
            if reliable {
                if first_send {
                    if let Some(channel) = self.channel_mut(index, channel_id) {
                        channel.usedReliableWindows |= 1 << reliable_window;
                        channel.reliableWindows[usize::from(reliable_window)] += 1;
                    }
                }
                command.send_attempts = command.send_attempts.wrapping_add(1);
                let peer = &mut self.engine.peers[index];
                if command.round_trip_timeout == 0 {
                    command.round_trip_timeout =
                        peer.roundTripTime + 4 * peer.roundTripTimeVariance;
                    command.round_trip_timeout_limit =
                        peer.timeoutLimit.wrapping_mul(command.round_trip_timeout);
                }
                if self.engine.slots[index].sent_reliable_is_empty() {
                    peer.nextTimeout = now.wrapping_add(command.round_trip_timeout);
                }
                command.sent_time = now;
                peer.reliableDataInTransit += fragment_length;
                let _ = self.engine.builder.push(&command.header(), &command.wire());
                self.engine.slots[index]
                    .queues()
                    .sent_reliable
                    .push(command);
            } else {
                if has_packet && command.fragment_offset == 0 {
                    let peer = &mut self.engine.peers[index];
                    peer.packetThrottleCounter = (peer.packetThrottleCounter
                        + ENET_PEER_PACKET_THROTTLE_COUNTER)
                        % ENET_PEER_PACKET_THROTTLE_SCALE;
                    if peer.packetThrottleCounter > peer.packetThrottle {
                        // Throttled: drop this packet, all its fragments.
                        let (reliable_sequence, unreliable_sequence) = (
                            command.reliable_sequence_number,
                            command.unreliable_sequence_number,
                        );
                        command.discard();
                        let outgoing = &mut self.engine.slots[index].queues().outgoing;
                        while outgoing.get(position).is_some_and(|next| {
                            next.reliable_sequence_number == reliable_sequence
                                && next.unreliable_sequence_number == unreliable_sequence
                        }) {
                            if let Some(fragment) = outgoing.remove(position) {
                                fragment.discard();
                            }
                        }
                        continue;
                    }
                }
                let _ = self.engine.builder.push(&command.header(), &command.wire());
                if has_packet {
                    self.engine.sent_unreliable.push(command);
                }
            }
            let peer = &mut self.engine.peers[index];
            peer.packetsSent = peer.packetsSent.wrapping_add(1);
        }
        let peer = &self.engine.peers[index];
        let slot = &self.engine.slots[index];
        if peer.state == ENET_PEER_STATE_DISCONNECT_LATER
            && slot.outgoing_is_empty()
            && slot.sent_reliable_is_empty()
            && self.engine.sent_unreliable.is_empty()
        {
            let data = peer.eventData;
            let _ = self.disconnect(index, data);
        }
        (can_ping, full)
    }

    /// Finishes the packed datagram (header, compression, checksum) and
    /// hands it to `transmit`.
    fn transmit_datagram(
        &mut self,
        index: usize,
        now: u32,
        codec: &mut dyn Codec,
        transmit: &mut Transmit<'_>,
    ) -> Result<usize, SendFailed> {
        let peer = &mut self.engine.peers[index];
        peer.lastSendTime = now;
        let address = peer.address;
        let has_checksum = codec.has_checksum();
        let has_compressor = codec.has_compressor();
        let codec = RefCell::new(codec);
        let mut checksum = |parts: &[&[u8]]| codec.borrow_mut().checksum(parts);
        let mut compress = |input: &[u8], out: &mut [u8]| codec.borrow_mut().compress(input, out);
        let envelope = Envelope {
            peer_id: peer.outgoingPeerID,
            session_id: peer.outgoingSessionID,
            sent_time: (now & 0xFFFF) as u16,
            connect_id: ConnectId::from_native(peer.connectID),
            checksum: if has_checksum {
                Some(&mut checksum)
            } else {
                None
            },
            compressor: if has_compressor {
                Some(&mut compress)
            } else {
                None
            },
        };
        let windowed = self.engine.sent_unreliable.is_empty();
        let datagram = self.engine.builder.finish_in_place(envelope);
        let sent = transmit(&address, datagram, windowed);
        usize::try_from(sent).map_err(|_| SendFailed)
    }

    /// Unreliable commands are done once sent: release their packets.
    fn complete_sent_unreliable(&mut self, index: usize) {
        if self.engine.sent_unreliable.is_empty() {
            return;
        }
        for command in self.engine.sent_unreliable.drain(..) {
            command.complete();
        }
        let peer = &self.engine.peers[index];
        let slot = &self.engine.slots[index];
        if peer.state == ENET_PEER_STATE_DISCONNECT_LATER
            && slot.outgoing_is_empty()
            && slot.sent_reliable_is_empty()
        {
            let data = peer.eventData;
            let _ = self.disconnect(index, data);
        }
    }

    /// Takes the acknowledged reliable command out of the sent queue (or,
    /// if the acknowledgement beat our own bookkeeping, out of the send
    /// queue); returns its command number.
    pub(crate) fn remove_sent_reliable(
        &mut self,
        index: usize,
        sequence: u16,
        channel_id: u8,
    ) -> Option<u8> {
        let slot = self.engine.slots[index].queues_if_any()?;
        let matches = |command: &super::command::OutgoingCommand| {
            command.reliable_sequence_number == sequence && command.channel_id == channel_id
        };
        let (command, was_sent) =
            if let Some(command) = slot.sent_reliable.remove(channel_id, sequence) {
                (command, true)
            } else {
                let mut found = None;
                for (position, command) in slot.outgoing.iter().enumerate() {
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
                (slot.outgoing.remove(found?)?, false)
            };
        let reliable_window = usize::from(sequence / WINDOW_SIZE);
        if let Some(channel) = self.channel_mut(index, channel_id) {
            if channel.reliableWindows[reliable_window] > 0 {
                channel.reliableWindows[reliable_window] -= 1;
                if channel.reliableWindows[reliable_window] == 0 {
                    channel.usedReliableWindows &= !(1 << reliable_window);
                }
            }
        }
        let command_number = command.number();
        let peer = &mut self.engine.peers[index];
        if command.packet.is_some() && was_sent {
            peer.reliableDataInTransit = peer
                .reliableDataInTransit
                .saturating_sub(u32::from(command.fragment_length));
        }
        command.complete();
        let slot = &mut self.engine.slots[index];
        match slot
            .queues_if_any()
            .and_then(|queues| queues.sent_reliable.front())
        {
            Some(front) => {
                peer.nextTimeout = front.sent_time.wrapping_add(front.round_trip_timeout);
            }
            // Nothing left in flight, as when an idle peer's ping is
            // acknowledged: its queues need not stay allocated until the
            // next ping.
            None => slot.release_if_idle(self.public.serviceTime),
        }
        Some(command_number)
    }
}
