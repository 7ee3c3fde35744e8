//! One peer's reliable commands in flight, on its [`PeerMut`] view: an
//! acknowledgement takes its command out (stock
//! `enet_protocol_remove_sent_reliable_command`) and may show commands
//! sent before it lost (an early resend), and the retransmission timeout
//! sends timed-out commands again or gives up on the peer (stock
//! `enet_protocol_check_timeouts`), each as the peer's [`LossRecovery`]
//! settings say. Reporting a lost peer is the host's.

use super::slot::{channel_in, stock_window, PeerMut, PeerQueues, PeerSlot};
use crate::abi::*;
use crate::proto::state::channel_id::ChannelId;
use crate::proto::state::command::OutgoingCommand;
use crate::proto::state::recovery::{CongestionWindow, RecoveryCounts};
use crate::proto::state::sent::{PassedOver, COPY_DELAY};
use crate::proto::state::sequence::ReliableSequence;
use crate::time::{time_difference, time_less, TIME_OVERFLOW};
use crate::wire::builder::DatagramBuilder;
use crate::wire::command::CommandFlags;

/// Commands from the oldest in flight that one acknowledgement counts as
/// passed over: enough for the datagrams a loss burst takes, and a bound
/// on the work per acknowledgement.
const PASSED_OVER_REACH: usize = 64;

/// Why a reliable command goes out again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resend {
    Timeout,
    Early,
}

/// Takes a command in flight back for sending again: it no longer counts
/// in flight, it counts as lost (stock counts a timeout so), and the
/// congestion window answers the loss.
fn retransmit(
    peer: &mut ENetPeer,
    congestion: &mut CongestionWindow,
    stats: &mut RecoveryCounts,
    command: &mut OutgoingCommand,
    why: Resend,
    now: u32,
) {
    if command.packet.is_some() {
        peer.reliableDataInTransit = peer
            .reliableDataInTransit
            .saturating_sub(u32::from(command.fragment_length));
    }
    peer.packetsLost = peer.packetsLost.wrapping_add(1);
    command.passed_over = 0;
    congestion.on_loss(command.sent_time, now, peer.mtu, stock_window(peer));
    count_resend(stats, command, why);
}

/// Counts one more resend of `command` in the peer's statistics.
fn count_resend(stats: &mut RecoveryCounts, command: &OutgoingCommand, why: Resend) {
    stats.count(command.fragment_length, why == Resend::Early);
}

/// The peer stayed silent past its timeout limits: the host disconnects it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TimedOut;

/// Whether a wait of `waited` ms has reached a timeout `limit`. ENet's
/// clock measures waits only up to a day, so a limit of a day or more
/// (`enet_peer_timeout` with `UINT32_MAX`, say) is never reached. Stock
/// compares anyway, and reads a wait of just over a day as close to 2^32
/// ms, so its limits between a day and 48.7 days end the peer after a day.
fn reached(waited: u32, limit: u32) -> bool {
    limit < TIME_OVERFLOW && waited >= limit
}

impl PeerMut<'_> {
    /// Takes the reliable command on `channel_id` with `sequence` out of
    /// the sent queue (or, if the acknowledgement beat our own bookkeeping,
    /// out of the send queue), at service time `now`; its command number.
    /// `acknowledged_send` is the send time the acknowledgement echoes,
    /// when it has one. Commands this sends again early are counted in
    /// `resent`, for the host to add to the peer's counts.
    pub(crate) fn acknowledge(
        &mut self,
        channel_id: ChannelId,
        sequence: ReliableSequence,
        now: u32,
        acknowledged_send: Option<u32>,
        resent: &mut RecoveryCounts,
    ) -> Option<u8> {
        // The set, the channels and the public peer, each borrowed once
        // until the early resend below needs the whole view.
        let recovery = *self.recovery;
        let peer = &mut *self.public;
        let PeerSlot {
            channels, queues, ..
        } = &mut *self.slot;
        let queues = queues.as_deref_mut()?;
        let (command, sent_at) = match queues.sent_reliable.acknowledge(channel_id, sequence) {
            Some((command, position)) => (command, Some(position)),
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
                (queues.outgoing.remove(found?)?.take_acknowledged(), None)
            }
        };
        // A command without a packet has no length, and counted nothing.
        // Exact, so never below zero (debug builds check it).
        queues.backlog -= usize::from(command.fragment_length);
        let reliable_window = usize::from(sequence.window());
        if let Some(channel) = channel_in(channels, peer.channelCount, channel_id) {
            if channel.reliableWindows[reliable_window] > 0 {
                channel.reliableWindows[reliable_window] -= 1;
                if channel.reliableWindows[reliable_window] == 0 {
                    channel.usedReliableWindows &= !(1 << reliable_window);
                }
            }
        }
        let command_number = command.number;
        if command.packet.is_some() && sent_at.is_some() {
            // A payload delivered is traffic: a transfer queued long ago
            // and acknowledged only now has kept the peer busy, and its
            // queues (with the congestion window) stay until it has gone
            // as long without payloads as an idle peer must.
            queues.last_traffic = now;
            let length = u32::from(command.fragment_length);
            peer.reliableDataInTransit = peer.reliableDataInTransit.saturating_sub(length);
            if recovery.congestion_control {
                queues.congestion.on_acknowledged(length, peer.mtu);
            }
        }
        // Only an acknowledgement of the command's latest transmission
        // says that the commands sent before it at its place in the queue
        // were passed over. One of an earlier transmission (or of a copy)
        // arriving after a retransmission moved the command to the back
        // would otherwise pass over everything in flight in between, and
        // on a busy stream draw dozens of needless copies.
        let latest = acknowledged_send.is_none_or(|sent| sent == command.sent_time);
        command.complete();
        if let (Some(position), threshold @ 1.., true) = (sent_at, recovery.fast_resend, latest) {
            self.resend_passed_over(position, threshold, now, resent);
        }
        let peer = &mut *self.public;
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

    /// Sends again the commands that `threshold` acknowledgements of
    /// commands sent after them have passed over, the acknowledged one
    /// being at send position `acknowledged`: ahead of everything queued,
    /// or as copies while they stay in flight, as the settings say; each
    /// counted in `resent`.
    fn resend_passed_over(
        &mut self,
        acknowledged: u32,
        threshold: u16,
        now: u32,
        resent: &mut RecoveryCounts,
    ) {
        let threshold = u8::try_from(threshold).unwrap_or(u8::MAX);
        let what = if self.recovery.keep_stock_timeouts {
            PassedOver::Copy
        } else {
            PassedOver::Take
        };
        let peer = &mut *self.public;
        let Some(queues) = self.slot.queues.as_deref_mut() else {
            return;
        };
        let PeerQueues {
            sent_reliable,
            outgoing,
            congestion,
            ..
        } = queues;
        let mut moved = 0;
        sent_reliable.pass_over(
            acknowledged,
            threshold,
            PASSED_OVER_REACH,
            what,
            |mut command| {
                retransmit(peer, congestion, resent, &mut command, Resend::Early, now);
                outgoing.insert(moved, command);
                moved += 1;
            },
        );
    }

    /// Packs copies of commands in flight that are marked for one (passed
    /// over) or whose own deadline has come, leaving them in flight with
    /// stock's bookkeeping untouched; each command's copies back off as its
    /// timeout would, each counted in `resent`. True if the datagram filled
    /// up with copies left over.
    // Out of line: copies go only after a loss or a reordering (a command
    // passed over, or past its own deadline), and in line they made the send
    // pass, which every visit to a peer runs, a third larger.
    #[inline(never)]
    pub(crate) fn pack_copies(
        &mut self,
        builder: &mut DatagramBuilder,
        now: u32,
        resent: &mut RecoveryCounts,
    ) -> bool {
        let recovery = *self.recovery;
        let Some(queues) = self.slot.queues.as_deref_mut() else {
            return false;
        };
        let mut full = false;
        let in_flight = queues.sent_reliable.len();
        queues.sent_reliable.copies_due(
            now,
            recovery.per_command_deadlines,
            |command| {
                let wire_len = command.fixed_len() + usize::from(command.fragment_length);
                if !builder.fits(wire_len)
                    || builder.push(&command.header(), &command.wire()).is_err()
                {
                    full = true;
                    return false;
                }
                // Marked by an early resend, or due on its own deadline.
                let why = if command.copy_pending {
                    Resend::Early
                } else {
                    Resend::Timeout
                };
                count_resend(resent, command, why);
                true
            },
            |command| {
                // Backed off as the command's timeout would be, but held
                // under the longest copy delay at each step, so the
                // doubling never wraps to a delay of 0.
                let longest = *COPY_DELAY.end();
                (1..=command.copies).fold(
                    command.round_trip_timeout.min(longest),
                    |timeout, copy| {
                        recovery
                            .after_resend(timeout, u16::from(copy), in_flight)
                            .min(longest)
                    },
                )
            },
        );
        full
    }

    /// Moves timed-out reliable commands back to the front of the send
    /// queue (in the order they were sent) with a doubled timeout, or finds
    /// the peer lost, unless `held` (the host holds timeouts: the commands
    /// are resent all the same). Works in place: nothing is allocated, and
    /// commands that have not timed out stay put. Each command moved is
    /// counted in `resent`.
    pub(crate) fn check_timeouts(
        &mut self,
        now: u32,
        held: bool,
        resent: &mut RecoveryCounts,
    ) -> Result<(), TimedOut> {
        let recovery = *self.recovery;
        let peer = &mut *self.public;
        let Some(queues) = self.slot.queues.as_deref_mut() else {
            return Ok(());
        };
        let PeerQueues {
            sent_reliable,
            outgoing,
            congestion,
            ..
        } = queues;
        let in_flight = sent_reliable.len();
        let mut cursor = sent_reliable.cursor();
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
                && !held
                && (reached(waited, peer.timeoutMaximum)
                    || (timeout >= limit && reached(waited, peer.timeoutMinimum)))
            {
                // This command and the rest stay where they are; those
                // already moved stay queued for resending (as stock).
                return Err(TimedOut);
            }
            let was_front = cursor.at_front();
            let Some(mut command) = cursor.take() else {
                break;
            };
            retransmit(peer, congestion, resent, &mut command, Resend::Timeout, now);
            command.round_trip_timeout =
                recovery.after_resend(command.round_trip_timeout, command.send_attempts, in_flight);
            if was_front {
                if let Some(next) = cursor.front() {
                    peer.nextTimeout = next.sent_time.wrapping_add(next.round_trip_timeout);
                }
            }
            outgoing.insert(moved, command);
            moved += 1;
        }
        sent_reliable.refresh_deadlines();
        Ok(())
    }

    /// Restarts the timeout clock of every command in flight at `now`, as
    /// if each had just been sent: the end of a hold on timeouts, so that
    /// a wait the hold covered ends no peer. Each is next resent after its
    /// own timeout, the peer is given up on only after a full timeout
    /// from now. Round-trip samples are not affected: they come from the
    /// send times acknowledgements echo.
    pub(crate) fn restart_timeouts(&mut self, now: u32) {
        let Some(queues) = self.slot.queues.as_deref_mut() else {
            return;
        };
        let sent = &mut queues.sent_reliable;
        sent.restart_clocks(now);
        let peer = &mut *self.public;
        peer.earliestTimeout = 0;
        if let Some(front) = sent.front() {
            peer.nextTimeout = now.wrapping_add(front.round_trip_timeout);
        }
    }
}
