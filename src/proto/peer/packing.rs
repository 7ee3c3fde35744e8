//! Packing one peer's datagram, on its [`PeerMut`] view: the
//! acknowledgements it owes, then its queued commands in order while they
//! fit, within the reliable windows and the in-flight limit (stock
//! `enet_protocol_send_acknowledgements` and
//! `enet_protocol_check_outgoing_commands`). The datagram builder and the
//! list of unreliable commands awaiting the send are the host's, lent for
//! the pass; finishing and sending the datagram is the host's too.

use super::slot::{channel_in, stock_window, PeerMut};
use crate::abi::*;
use crate::proto::state::command::{number, OutgoingCommand};
use crate::proto::state::queue::is_windowed;
use crate::proto::state::sequence::{FREE_WINDOWS, WINDOWS, WINDOW_SIZE};
use crate::wire::builder::DatagramBuilder;

/// Windows that must be free ahead of a new one before the sender starts it.
const FREE_WINDOWS_AHEAD: u32 = FREE_WINDOWS as u32 + 2;

/// What [`PeerMut::pack_acknowledgements`] did.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct PackedAcknowledgements {
    /// Some had to wait for the next datagram.
    pub left_over: bool,
    /// The acknowledgement of a DISCONNECT went in: the peer is done.
    pub disconnect_acknowledged: bool,
}

/// What [`PeerMut::pack_outgoing`] did.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Packed {
    /// No reliable command was sent or held back, so a ping may follow.
    pub can_ping: bool,
    /// The datagram filled up with commands left over.
    pub full: bool,
}

impl PeerMut<'_> {
    /// Packs owed acknowledgements into `builder`.
    pub(crate) fn pack_acknowledgements(
        &mut self,
        builder: &mut DatagramBuilder,
    ) -> PackedAcknowledgements {
        let mut packed = PackedAcknowledgements::default();
        let repeat = self.recovery.repeat_acknowledgements;
        // Looked up once for the whole run: a peer without its queue set
        // owes nothing.
        let Some(queues) = self.slot.queues_if_any() else {
            return packed;
        };
        while let Some(acknowledgement) = queues.acknowledgements.front().copied() {
            // `push` checks the room itself and writes nothing without it.
            let (header, command) = acknowledgement.wire();
            if builder.push(&header, &command).is_err() {
                packed.left_over = true;
                break;
            }
            queues.acknowledgements.pop_front();
            if acknowledgement.command_number == number::DISCONNECT {
                // The peer is done once this one is sent: nothing to repeat.
                packed.disconnect_acknowledged = true;
            } else if repeat {
                queues.repeated_acknowledgements.push(acknowledgement);
            }
        }
        packed
    }

    /// Packs the acknowledgements just sent once more, into a datagram of
    /// their own; those that do not fit are not repeated.
    pub(crate) fn pack_repeated_acknowledgements(&mut self, builder: &mut DatagramBuilder) {
        let Some(queues) = self.slot.queues_if_any() else {
            return;
        };
        for acknowledgement in queues.repeated_acknowledgements.drain(..) {
            let (header, command) = acknowledgement.wire();
            if builder.push(&header, &command).is_err() {
                break;
            }
        }
    }

    /// Packs queued commands in order while they fit into `builder`,
    /// within the reliable windows and the in-flight limit; unreliable
    /// commands with a payload go to `sent_unreliable` until the datagram
    /// has gone.
    pub(crate) fn pack_outgoing(
        &mut self,
        now: u32,
        builder: &mut DatagramBuilder,
        sent_unreliable: &mut Vec<OutgoingCommand>,
    ) -> Packed {
        let mut window_exceeded = false;
        let mut window_wrap = false;
        let mut can_ping = true;
        let mut full = false;
        let mut position = 0;
        // Commands ahead that the in-flight window cannot hold back: once
        // the window is full and none remain, the rest would all be skipped.
        // The set (made now if the peer has none, with its parked command
        // in it), the channels and the public peer, each borrowed once for
        // the whole pass rather than looked up again at every step.
        let recovery = *self.recovery;
        let peer = &mut *self.public;
        let (queues, channels) = self.slot.queues_and_channels();
        let channel_count = peer.channelCount;
        let mut unwindowed_ahead = queues.outgoing.unwindowed();
        // The in-flight limit: stock's window scaled by the packet
        // throttle, or the congestion window when that is on.
        let congestion_window = recovery
            .congestion_control
            .then_some(queues.congestion.window);
        // With a congestion window, reliable data is also paced.
        let (rtt, mtu) = (peer.roundTripTime, peer.mtu);
        let mut pacing = recovery.congestion_control.then(|| {
            let congestion = &mut queues.congestion;
            congestion.paced = false;
            congestion.tokens(now, rtt, mtu)
        });
        let pacing_at_start = pacing;
        while let Some(command) = queues.outgoing.get(position) {
            if window_exceeded && unwindowed_ahead == 0 {
                break;
            }
            if !is_windowed(command) {
                unwindowed_ahead -= 1;
            }
            let reliable = command.is_reliable();
            let reliable_window = command.reliable_sequence_number.window();
            let channel_id = command.channel_id;
            let has_packet = command.packet.is_some();
            let fragment_length = u32::from(command.fragment_length);
            let first_send = command.send_attempts < 1;
            let starts_window = command.reliable_sequence_number.starts_window();
            let wire_len = command.fixed_len() + usize::from(command.fragment_length);
            if reliable {
                let channel_state = channel_in(channels, channel_count, channel_id)
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
                    if !window_exceeded {
                        let stock = stock_window(peer);
                        let window = congestion_window.map_or(stock, |window| window.max(stock));
                        if peer.reliableDataInTransit + fragment_length > window.max(peer.mtu) {
                            window_exceeded = true;
                        } else if pacing.is_some_and(|tokens| fragment_length > tokens) {
                            // In the window but over the pace: the rest
                            // goes in a later pass (the peer is woken for
                            // it), as if the window were full now.
                            window_exceeded = true;
                            queues.congestion.paced = true;
                        }
                    }
                    if window_exceeded {
                        position += 1;
                        continue;
                    }
                }
                can_ping = false;
            }
            if !builder.fits(wire_len) {
                full = true;
                break;
            }
            let Some(mut command) = queues.outgoing.remove(position) else {
                break;
            };
            if reliable {
                if first_send {
                    if let Some(channel) = channel_in(channels, channel_count, channel_id) {
                        channel.usedReliableWindows |= 1 << reliable_window;
                        channel.reliableWindows[usize::from(reliable_window)] += 1;
                    }
                }
                // Both stop at their largest rather than wrap: a command
                // resent forever (a peer that never times out) would
                // otherwise come back as a first send, and a limit of
                // `u32::MAX` times the timeout as a small one.
                command.send_attempts = command.send_attempts.saturating_add(1);
                if command.round_trip_timeout == 0 {
                    command.round_trip_timeout =
                        recovery.first_timeout(peer.roundTripTime, peer.roundTripTimeVariance);
                    command.round_trip_timeout_limit =
                        peer.timeoutLimit.saturating_mul(command.round_trip_timeout);
                }
                if queues.sent_reliable.is_empty() {
                    peer.nextTimeout = now.wrapping_add(command.round_trip_timeout);
                }
                command.sent_time = now;
                peer.reliableDataInTransit += fragment_length;
                if let Some(tokens) = pacing.as_mut() {
                    *tokens = tokens.saturating_sub(fragment_length);
                }
                // It fits: `builder.fits(wire_len)` was checked above.
                let _ = builder.push(&command.header(), &command.wire());
                queues.sent_reliable.push(command);
            } else {
                if has_packet && command.fragment_offset == 0 {
                    peer.packetThrottleCounter = (peer.packetThrottleCounter
                        + ENET_PEER_PACKET_THROTTLE_COUNTER)
                        % ENET_PEER_PACKET_THROTTLE_SCALE;
                    if peer.packetThrottleCounter > peer.packetThrottle {
                        // Throttled: drop this packet, all its fragments.
                        let (reliable_sequence, unreliable_sequence) = (
                            command.reliable_sequence_number,
                            command.unreliable_sequence_number,
                        );
                        let mut dropped = usize::from(command.fragment_length);
                        command.discard();
                        while queues.outgoing.get(position).is_some_and(|next| {
                            next.reliable_sequence_number == reliable_sequence
                                && next.unreliable_sequence_number == unreliable_sequence
                        }) {
                            if let Some(fragment) = queues.outgoing.remove(position) {
                                dropped += usize::from(fragment.fragment_length);
                                fragment.discard();
                            }
                        }
                        queues.backlog = queues.backlog.saturating_sub(dropped);
                        continue;
                    }
                }
                // It fits: `builder.fits(wire_len)` was checked above.
                let _ = builder.push(&command.header(), &command.wire());
                if has_packet {
                    sent_unreliable.push(command);
                }
            }
            peer.packetsSent = peer.packetsSent.wrapping_add(1);
        }
        if let (Some(had), Some(left)) = (pacing_at_start, pacing) {
            queues.congestion.spend(had.saturating_sub(left));
        }
        Packed { can_ping, full }
    }
}
