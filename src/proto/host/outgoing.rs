//! The host's send pass (stock `enet_protocol_send_outgoing_commands`):
//! for each peer due, acknowledgements first, then retransmission
//! timeouts, then queued commands, then a ping if the link has been quiet;
//! each datagram goes out with the host's checksum and compressor applied.
//! What goes into one peer's datagram is decided on its peer view
//! (`packing.rs`, `in_flight.rs`); this module schedules peers, finishes
//! datagrams and applies what the peer's state changes mean to the host.

use crate::proto::state::channel_id::ChannelId;
use crate::proto::state::sequence::ReliableSequence;
use std::cell::RefCell;
use std::net::SocketAddr;
use std::ops::Range;

use super::codec::Codec;
use super::engine::Host;
use super::transition::StateChange;
use crate::abi::*;
use crate::proto::peer::in_flight::TimedOut;
use crate::proto::state::event::EventSlot;
use crate::proto::state::peer_index::PeerIndex;
use crate::proto::state::recovery::{CongestionWindow, LossRecovery, RecoveryCounts};
use crate::proto::state::schedule::{Timer, TimerTable};
use crate::proto::state::scratch;
use crate::time::{time_difference, time_less, TIME_OVERFLOW};
use crate::wire::builder::Envelope;
use crate::wire::command::ConnectId;
use crate::wire::size;

use ENetPeerState::*;

/// When a connected peer with nothing in flight next pings: once the time
/// since its last acknowledgement (either way round, so a clock set back
/// pings at once) reaches the interval, as stock; an interval of a day or
/// more never does.
fn ping_deadline(peer: &ENetPeer, now: u32) -> Option<u32> {
    let since = time_difference(now, peer.lastReceiveTime);
    if peer.pingInterval >= TIME_OVERFLOW {
        None
    } else if since >= peer.pingInterval {
        Some(now)
    } else {
        Some(now.wrapping_add(peer.pingInterval - since))
    }
}

/// The earlier of two optional deadlines.
fn earliest(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if time_less(b, a) { b } else { a }),
        (a, None) => a,
        (None, b) => b,
    }
}

/// How a datagram may leave together with the equal-size datagrams to the
/// same peer queued just before it, as one segmented send (where the
/// system offers segmentation offload). The wire is the same either way;
/// what changes is how fast a burst can reach the receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouping {
    /// No unreliable payload: the peer's reliable window paces it, so runs
    /// as long as the system allows.
    Windowed,
    /// Unreliable payload to a peer with no recent loss and its throttle
    /// up: runs of at most [`Grouping::UNPACED_RUN`].
    Unpaced,
    /// Unreliable payload to a peer that lost a packet lately or whose
    /// throttle is down: one datagram per message, as stock sends every
    /// datagram.
    Alone,
}

impl Grouping {
    /// The longest run of unreliable datagrams. Nothing paces them, so a
    /// run is a burst the receiver's socket must hold at once; short runs
    /// keep those bursts small. It is not what keeps a fast sender from
    /// outrunning its receiver: the pause after a loss (`Grouping::of`)
    /// does that. Measured on loopback, 64-byte messages, two cores:
    /// - runs of 8 take a sender from 4.4 M to 8.8 M messages/s;
    /// - without the pause, runs of 12 or more outran the receiver. Its
    ///   socket dropped whole runs, one with a reliable command in it held
    ///   up the channel's unreliable traffic until the resend, and
    ///   delivery fell below 0.4 M/s in most runs;
    /// - with the pause, runs of 16 and 64 measured as runs of 8.
    pub const UNPACED_RUN: usize = 8;

    /// The longest run for this datagram, given the system's own limit.
    pub fn longest_run(self, system_limit: usize) -> usize {
        match self {
            Grouping::Windowed => system_limit,
            Grouping::Unpaced => system_limit.min(Self::UNPACED_RUN),
            Grouping::Alone => 1,
        }
    }

    /// Least time unreliable datagrams leave alone after a loss (ms).
    const PAUSE_AFTER_LOSS_MIN: u32 = 50;

    /// How a datagram to `peer` is grouped at service time `now`:
    /// `unreliable` says it carries an unreliable payload, `recovery` is
    /// the peer's loss recovery and `congestion` its loss answer (absent
    /// while it has no queues). Its unreliable datagrams leave alone for
    /// two of its first retransmission timeouts (at least
    /// [`Self::PAUSE_AFTER_LOSS_MIN`]) after any loss, which lets a receiver
    /// that fell behind catch up and the resend through, and while its
    /// packet throttle is down.
    pub(crate) fn of(
        peer: &ENetPeer,
        recovery: &LossRecovery,
        congestion: Option<&CongestionWindow>,
        unreliable: bool,
        now: u32,
    ) -> Grouping {
        if !unreliable {
            return Grouping::Windowed;
        }
        let timeout = recovery.first_timeout(peer.roundTripTime, peer.roundTripTimeVariance);
        let pause = timeout.saturating_mul(2).max(Self::PAUSE_AFTER_LOSS_MIN);
        if peer.packetThrottle >= peer.packetThrottleLimit
            && congestion.is_none_or(|window| window.quiet_for(now, pause))
        {
            Grouping::Unpaced
        } else {
            Grouping::Alone
        }
    }
}

/// What became of a datagram handed to a transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transmitted {
    /// Sent, or queued to be sent, whole: its length in bytes. A datagram
    /// the transport drops on purpose as lost counts as sent too, as one
    /// the network loses would.
    Sent(usize),
    /// The socket could not take it now and it is gone: it counts as a
    /// datagram of 0 bytes, as stock counts a send that returned 0, and
    /// its reliable commands are resent on their timeouts.
    WouldBlock,
    /// The socket failed: the send pass stops and the service call
    /// returns -1.
    Failed,
}

/// Sends the datagram at a range of a buffer to an address, grouped as its
/// [`Grouping`] allows; it may take the buffer, leaving another in its
/// place (see [`super::Transport::transmit_buffer`]).
pub type Transmit<'a> =
    dyn FnMut(&SocketAddr, &mut Vec<u8>, Range<usize>, Grouping) -> Transmitted + 'a;

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
        if self.engine.hold.is_set() {
            self.count_down_hold(now);
        }
        let mut due = std::mem::take(&mut self.engine.due);
        self.engine.schedule.take_due(now, &mut due);
        if self.engine.path.is_some() {
            self.probe_paths(&due, now, codec, transmit);
        }
        let mut result = Ok(());
        // Most passes of a host called in a loop visit no one: they skip
        // the rounds' lists altogether.
        if !due.is_empty() {
            // Rounds of one datagram per peer, as stock's passes over its
            // peers: a peer with more to send goes round again.
            let mut round = std::mem::take(&mut self.engine.round);
            let mut again = std::mem::take(&mut self.engine.again);
            round.clear();
            round.extend_from_slice(&due);
            again.clear();
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
            self.engine.round = round;
            self.engine.again = again;
        }
        // Rounds never hold more than the pass's due peers.
        let visited = due.len();
        for list in [&mut due, &mut self.engine.round, &mut self.engine.again] {
            scratch::fit_to_use(list, visited);
        }
        self.engine.due = due;
        self.engine.schedule.pass_ended();
        result
    }

    /// Whether a send pass at `now` would visit no peer and change
    /// nothing but its bookkeeping ([`Host::end_empty_pass`]): no timeout
    /// hold to count down, no path to probe, no peer due, and the pass's
    /// lists at their kept size (so there is nothing to give back).
    #[inline]
    pub(crate) fn pass_would_be_empty(&mut self, now: u32) -> bool {
        let engine = &mut self.engine;
        !engine.hold.is_set()
            && engine.path.is_none()
            && scratch::fits_unused(&engine.due)
            && scratch::fits_unused(&engine.round)
            && scratch::fits_unused(&engine.again)
            && engine.schedule.nothing_due(now)
    }

    /// What [`Host::send_outgoing`] leaves of a pass that visits no one.
    #[inline]
    pub(crate) fn end_empty_pass(&mut self, now: u32) {
        self.public.serviceTime = now;
        self.engine.schedule.pass_ended();
    }

    /// Sets the peer's next visit: at once if it has queued work, and at
    /// the earliest of its deadlines (see [`Timer`]).
    pub(crate) fn reschedule(&mut self, index: PeerIndex, now: u32) {
        let engine = &mut self.engine;
        let slot = &mut engine.slots[index];
        slot.release_if_blank(&mut engine.spare_queues);
        slot.release_if_idle(now);
        let peer = &self.engine.peers[index];
        if peer.state == ENET_PEER_STATE_DISCONNECTED || peer.state == ENET_PEER_STATE_ZOMBIE {
            self.engine.schedule.cancel_timers(index);
            return;
        }
        if peer.state == ENET_PEER_STATE_ACKNOWLEDGING_CONNECT {
            self.engine.slots[index].release_sent_storage();
        }
        let slot = &self.engine.slots[index];
        let paced = slot.held_back_by_pacing();
        if !slot.acknowledgements_is_empty()
            || !slot.outgoing_is_empty()
            || slot.copies_pending() > 0
        {
            self.engine.schedule.mark_ready(index);
        }
        let view = self.engine.peer_view(index);
        let mut timers = TimerTable::default();
        timers.set(Timer::Retransmission, view.timeout_deadline());
        timers.set(Timer::LossProbe, view.copy_deadline());
        let in_flight = !timers.is_empty();
        let peer = &self.engine.peers[index];
        if !in_flight && peer.state == ENET_PEER_STATE_CONNECTED {
            let mut ping = ping_deadline(peer, now);
            if self.engine.path.is_some() {
                // A path search's probe or deadline due sooner visits
                // sooner; the ping itself still waits for its interval.
                ping = earliest(ping, self.path_wake(index, now));
            }
            timers.set(Timer::Ping, ping);
        }
        if paced {
            timers.set(Timer::Pacing, Some(now.wrapping_add(1)));
        }
        self.engine.schedule.set_timers(index, now, timers);
    }

    /// Sends the peer one datagram of what it may be sent now; `Ok(true)`
    /// if more is waiting that did not fit.
    fn send_datagram(
        &mut self,
        index: PeerIndex,
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
        // The path size, when the host discovers it, is only loads.
        let mtu = self.engine.peers[index].mtu.min(self.path_limit(index));
        self.engine.builder.restart(mtu);
        let mut continue_sending = false;

        if !self.engine.slots[index].acknowledgements_is_empty() {
            continue_sending |= self.pack_acknowledgements(index);
        }
        if check_timeouts
            && self.peer_view(index).timeouts_due(now)
            && self.check_timeouts(index, now, events)
        {
            return Ok(false);
        }
        if self.peer_view(index).copies_due(now) {
            let engine = &mut self.engine;
            engine.slots[index].unpark(&mut engine.spare_queues);
            let (mut peer, builder, _) = self.engine.packing(index);
            let mut resent = RecoveryCounts::default();
            continue_sending |= peer.pack_copies(builder, now, &mut resent);
            self.engine.record(index, resent);
        }
        let mut was_parked = false;
        let can_ping = if self.engine.slots[index].outgoing_is_empty() {
            true
        } else {
            // A command queued without a set is sent from one.
            let engine = &mut self.engine;
            was_parked = engine.slots[index].unpark(&mut engine.spare_queues);
            let (mut can_ping, mut full) = self.pack_outgoing(index, now);
            if full && self.engine.builder.is_empty() && self.engine.path.is_some() {
                // Only below the MTU can a command not fit an empty datagram.
                (can_ping, full) = self.pack_oversized(index, now);
            }
            continue_sending |= full;
            can_ping
        };
        let peer = &self.engine.peers[index];
        let mut pinged = false;
        if can_ping
            && self.engine.slots[index].sent_reliable_is_empty()
            && time_difference(now, peer.lastReceiveTime) >= peer.pingInterval
            && self.engine.builder.remaining() >= size::PING
        {
            self.with_peer_rarely(index, |peer, _| peer.ping());
            // Parked, if the peer has no set: sent from a spare one.
            let engine = &mut self.engine;
            engine.slots[index].unpark(&mut engine.spare_queues);
            let (_, full) = self.pack_outgoing(index, now);
            continue_sending |= full;
            pinged = true;
        }
        if self.engine.builder.is_empty() {
            return Ok(false);
        }
        self.peer_view(index).update_packet_loss(now);
        let sent = self.transmit_datagram(index, now, codec, transmit);
        self.complete_sent_unreliable(index);
        self.count_sent(sent?);
        if self.engine.slots[index].has_repeated_acknowledgements() {
            self.engine.builder.restart(mtu);
            let (mut peer, builder, _) = self.engine.packing(index);
            peer.pack_repeated_acknowledgements(builder);
            if !self.engine.builder.is_empty() {
                let sent = self.transmit_datagram(index, now, codec, transmit)?;
                self.count_sent(sent);
            }
        }
        // A ping, a handshake's command or one that was parked, sent and
        // waiting alone for its acknowledgement, needs no set: a burst of
        // connects, the pings of thousands of peers that went quiet
        // together, or the bandwidth throttle's command to each peer, would
        // hold a set for each peer at once.
        if pinged
            || was_parked
            || state == ENET_PEER_STATE_ACKNOWLEDGING_CONNECT
            || state == ENET_PEER_STATE_CONNECTING
        {
            let engine = &mut self.engine;
            engine.slots[index].park_lone_command(&mut engine.spare_queues);
        }
        Ok(continue_sending)
    }

    /// Counts a datagram of `bytes` sent in the host's totals.
    pub(in crate::proto::host) fn count_sent(&mut self, bytes: usize) {
        self.public.totalSentData = self.public.totalSentData.wrapping_add(bytes as u32);
        self.public.totalSentPackets = self.public.totalSentPackets.wrapping_add(1);
        self.engine.counters.sent(bytes);
    }

    /// Packs owed acknowledgements; true if some had to wait for the next
    /// datagram.
    fn pack_acknowledgements(&mut self, index: PeerIndex) -> bool {
        let (mut peer, builder, _) = self.engine.packing(index);
        let packed = peer.pack_acknowledgements(builder);
        if packed.disconnect_acknowledged {
            self.apply_quiet(index, StateChange::announce(ENET_PEER_STATE_ZOMBIE));
        }
        packed.left_over
    }
    /// Resends timed-out reliable commands, or gives up on the peer (see
    /// [`PeerMut::check_timeouts`]). True if the peer was disconnected.
    fn check_timeouts(&mut self, index: PeerIndex, now: u32, events: &mut EventSlot) -> bool {
        // A parked command in flight is due: back in a set, where the
        // timeouts are checked.
        let engine = &mut self.engine;
        engine.slots[index].unpark(&mut engine.spare_queues);
        let mut resent = RecoveryCounts::default();
        let held = self.timeouts_held();
        let checked = self.peer_view(index).check_timeouts(now, held, &mut resent);
        self.engine.record(index, resent);
        match checked {
            Ok(()) => {
                if self.engine.path.is_some() {
                    self.check_black_hole(index, now);
                }
                false
            }
            Err(TimedOut) => {
                self.record_timeout(index);
                let change = self.peer_view(index).connection_lost(events.wanted);
                self.apply_into(index, change, events);
                true
            }
        }
    }
    /// Packs queued commands in order while they fit (see
    /// [`PeerMut::pack_outgoing`]); a peer told to disconnect once all is
    /// sent disconnects when nothing is left. Returns whether a ping may
    /// follow and whether the datagram filled up with commands left over.
    fn pack_outgoing(&mut self, index: PeerIndex, now: u32) -> (bool, bool) {
        let (mut peer, builder, sent_unreliable) = self.engine.packing(index);
        let packed = peer.pack_outgoing(now, builder, sent_unreliable);
        let peer = &self.engine.peers[index];
        let slot = &self.engine.slots[index];
        if peer.state == ENET_PEER_STATE_DISCONNECT_LATER
            && slot.outgoing_is_empty()
            && slot.sent_reliable_is_empty()
            && self.engine.sent_unreliable.is_empty()
        {
            self.disconnect_drained(index);
        }
        (packed.can_ping, packed.full)
    }

    /// Packs again into a datagram let grow to the peer's MTU, after a
    /// queued command did not fit an empty datagram of its path size: it
    /// was cut for a larger one before the path size dropped, and must
    /// still leave.
    #[cold]
    #[inline(never)]
    fn pack_oversized(&mut self, index: PeerIndex, now: u32) -> (bool, bool) {
        let mtu = self.engine.peers[index].mtu;
        self.engine.builder.widen(mtu);
        self.pack_outgoing(index, now)
    }

    /// Finishes the packed datagram (header, compression, checksum) and
    /// hands it to `transmit`.
    // Always inlined: a path probe's send is a third caller, which must
    // not take it out of line from the send pass's two.
    #[inline(always)]
    pub(in crate::proto::host) fn transmit_datagram(
        &mut self,
        index: PeerIndex,
        now: u32,
        codec: &mut dyn Codec,
        transmit: &mut Transmit<'_>,
    ) -> Result<usize, SendFailed> {
        let address = self.peer_endpoint(index);
        let peer = &mut self.engine.peers[index];
        peer.lastSendTime = now;
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
        let unreliable = !self.engine.sent_unreliable.is_empty();
        let slot = &self.engine.slots[index];
        let congestion = slot.queues.as_deref().map(|queues| &queues.congestion);
        let recovery = self.engine.recovery.of(index);
        let grouping = Grouping::of(peer, recovery, congestion, unreliable, now);
        let (buffer, range) = self.engine.builder.finish_for_transmit(envelope);
        match transmit(&address, buffer, range, grouping) {
            Transmitted::Sent(bytes) => Ok(bytes),
            Transmitted::WouldBlock => Ok(0),
            Transmitted::Failed => Err(SendFailed),
        }
    }

    /// Unreliable commands are done once sent: release their packets, and
    /// take their bytes off the peer's send backlog.
    fn complete_sent_unreliable(&mut self, index: PeerIndex) {
        if self.engine.sent_unreliable.is_empty() {
            return;
        }
        let mut sent = 0;
        for command in self.engine.sent_unreliable.drain(..) {
            sent += usize::from(command.fragment_length);
            command.complete();
        }
        let slot = &mut self.engine.slots[index];
        if let Some(queues) = slot.queues_if_any() {
            queues.backlog = queues.backlog.saturating_sub(sent);
        }
        let peer = &self.engine.peers[index];
        if peer.state == ENET_PEER_STATE_DISCONNECT_LATER
            && slot.outgoing_is_empty()
            && slot.sent_reliable_is_empty()
        {
            self.disconnect_drained(index);
        }
    }

    /// Takes the acknowledged reliable command out of the sent queue (see
    /// [`PeerMut::acknowledge`]); returns its command number. With
    /// `acknowledged_send`, the send time an ACKNOWLEDGE echoed (widened to
    /// our clock), the round trip it measures is sampled first, on the same
    /// view of the peer.
    // Always inlined: the receive loop's acknowledgement calls it, where
    // a call of its own cost about 18 instructions a reliable message.
    #[inline(always)]
    pub(crate) fn remove_sent_reliable(
        &mut self,
        index: PeerIndex,
        sequence: ReliableSequence,
        channel_id: ChannelId,
        acknowledged_send: Option<u32>,
    ) -> Option<u8> {
        let now = self.public.serviceTime;
        let mut peer = self.peer_view(index);
        if let Some(sent) = acknowledged_send {
            peer.update_round_trip_time(time_difference(now, sent).max(1), now);
        }
        let mut resent = RecoveryCounts::default();
        let number = peer.acknowledge(channel_id, sequence, now, acknowledged_send, &mut resent);
        self.engine.record(index, resent);
        number
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::host::engine::blank_peer;

    fn connected_peer() -> ENetPeer {
        let mut peer = blank_peer();
        peer.packetThrottle = ENET_PEER_DEFAULT_PACKET_THROTTLE;
        peer.packetThrottleLimit = ENET_PEER_PACKET_THROTTLE_SCALE;
        peer.roundTripTime = 20;
        peer.roundTripTimeVariance = 5;
        peer
    }

    #[test]
    fn unreliable_datagrams_leave_alone_for_a_while_after_a_loss() {
        use Grouping::*;
        let peer = connected_peer();
        let mut window = CongestionWindow::default();
        let stock = LossRecovery::STOCK;
        let at = |peer: &ENetPeer, window: &CongestionWindow, unreliable, now| {
            Grouping::of(peer, &stock, Some(window), unreliable, now)
        };
        assert_eq!(at(&peer, &window, false, 1000), Windowed);
        assert_eq!(at(&peer, &window, true, 1000), Unpaced);
        assert_eq!(Grouping::of(&peer, &stock, None, true, 1000), Unpaced);
        window.on_loss(990, 1000, 1400, 0);
        // Two retransmission timeouts: 2 * (20 + 4 * 5) = 80 ms.
        let after_loss = [
            (false, 1001, Windowed),
            (true, 1001, Alone),
            (true, 1079, Alone),
        ];
        for (unreliable, now, grouping) in after_loss {
            assert_eq!(at(&peer, &window, unreliable, now), grouping, "at {now}");
        }
        assert_eq!(at(&peer, &window, true, 1080), Unpaced);
        // On a fast path the pause is still 50 ms.
        let mut fast = connected_peer();
        fast.roundTripTime = 1;
        fast.roundTripTimeVariance = 1;
        assert_eq!(at(&fast, &window, true, 1049), Alone);
        assert_eq!(at(&fast, &window, true, 1050), Unpaced);
        // The pause is two of the peer's own timeouts: fast mode's 30 ms
        // minimum makes it 60 ms.
        let fast_mode = LossRecovery::FAST;
        let of = |now| Grouping::of(&fast, &fast_mode, Some(&window), true, now);
        assert_eq!(of(1059), Alone);
        assert_eq!(of(1060), Unpaced);
    }

    #[test]
    fn a_lowered_throttle_keeps_unreliable_datagrams_apart() {
        let mut peer = connected_peer();
        peer.packetThrottle = ENET_PEER_PACKET_THROTTLE_SCALE - 2;
        let stock = LossRecovery::STOCK;
        assert_eq!(Grouping::of(&peer, &stock, None, true, 0), Grouping::Alone);
        assert_eq!(
            Grouping::of(&peer, &stock, None, false, 0),
            Grouping::Windowed
        );
    }

    #[test]
    fn runs_are_as_long_as_the_grouping_and_the_system_allow() {
        assert_eq!(Grouping::Windowed.longest_run(64), 64);
        assert_eq!(Grouping::Unpaced.longest_run(64), Grouping::UNPACED_RUN);
        assert_eq!(Grouping::Unpaced.longest_run(4), 4);
        assert_eq!(Grouping::Alone.longest_run(64), 1);
    }
}
