//! The service loop: the order in which `enet_host_service` runs the
//! engine's phases (dispatch, throttle pass, send, receive, send,
//! dispatch, then wait), `enet_host_flush`'s send-only pass, and
//! `enet_host_broadcast`.
//!
//! The loop is the engine's, so every driver runs the same one: the C
//! driver over a socket and the system clock, the simulator over virtual
//! links and virtual time. The outside world comes in through two traits,
//! in the manner of a sans-IO protocol: a [`Transport`] (clock, datagrams
//! in and out, waiting) and [`Hooks`] (the program's checksum, compressor
//! and intercept callbacks).

use std::net::SocketAddr;
use std::ops::Range;

use super::codec::Codec;
use super::endpoint::enet_view;
use super::engine::Host;
use super::outgoing::{Grouping, Transmitted};
use crate::abi::*;
use crate::mem::{PacketRef, PacketView};
use crate::proto::state::channel_id::ChannelId;
use crate::proto::state::event::{Event, EventSlot};
use crate::proto::state::handle::Request;
use crate::proto::state::peer_index::PeerIndex;
use crate::time::{time_difference, time_greater_equal};
use crate::wire::DropReason;

/// Datagrams handled per receive phase, as stock.
const RECEIVES_PER_PHASE: usize = 256;

/// Bytes of reliable fragments after which a receive phase stops to send
/// their acknowledgements before it reads on: a quarter of the largest
/// window a sender may have in flight. A large message's sender is bound
/// by that window, so acknowledgements that wait for the end of a long
/// receive phase stall it while the receiver works through what it sent
/// (an encrypted receiver, which opens each record, for longer). A pass
/// of whole messages never stops early, so their cost is stock's: one
/// send pass after the receive phase.
const EARLY_ACKNOWLEDGEMENT_BYTES: usize = ENET_PROTOCOL_MAXIMUM_WINDOW_SIZE as usize / 4;

/// The socket, the wait or the program's intercept failed: the service
/// call returns -1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServiceFailed;

/// Where the engine's datagrams come from and go to, and its clock.
pub trait Transport {
    /// The clock, in milliseconds.
    fn now(&mut self) -> u32;
    /// Hands the next received datagram to `handle` and returns what it
    /// returned, or `None` when nothing is waiting. The bytes are lent
    /// mutably, so a transport that decrypts can do it where they lie.
    fn receive<R>(
        &mut self,
        handle: impl FnOnce(SocketAddr, &mut [u8]) -> R,
    ) -> Result<Option<R>, ServiceFailed>;
    /// Queues a datagram for sending, and says what became of it.
    /// `grouping`: how it may leave in one segmented send with the
    /// datagrams queued before it.
    fn transmit(&mut self, to: &SocketAddr, bytes: &[u8], grouping: Grouping) -> Transmitted;
    /// [`Transport::transmit`] for the datagram at `range` of `buffer`, a
    /// buffer the transport may keep: one that holds datagrams until it
    /// flushes takes `buffer` itself and leaves another (of any length) in
    /// its place, instead of copying the bytes. One that frames datagrams
    /// may write into the room the engine keeps before `range` (see
    /// `DatagramBuilder::finish_for_transmit`) and cut or grow the buffer
    /// after it. A range outside the buffer fails.
    fn transmit_buffer(
        &mut self,
        to: &SocketAddr,
        buffer: &mut Vec<u8>,
        range: Range<usize>,
        grouping: Grouping,
    ) -> Transmitted {
        self.transmit_range(to, buffer, range, grouping)
    }
    /// [`Transport::transmit`] of a copy of the datagram at `range` of
    /// `buffer`: what [`Transport::transmit_buffer`] does where the
    /// transport cannot keep the buffer. A range outside the buffer fails.
    fn transmit_range(
        &mut self,
        to: &SocketAddr,
        buffer: &[u8],
        range: Range<usize>,
        grouping: Grouping,
    ) -> Transmitted {
        match buffer.get(range) {
            Some(bytes) => self.transmit(to, bytes, grouping),
            None => Transmitted::Failed,
        }
    }
    /// Sends what [`Transport::transmit`] queued.
    fn flush(&mut self) -> Result<(), ServiceFailed>;
    /// Waits up to `ms` for a datagram. `false` when a signal cut the wait
    /// short, so the caller waits again for what is left.
    fn wait(&mut self, ms: u32) -> Result<bool, ServiceFailed>;
    /// Moves into `into` the remote endpoints the transport lost since the
    /// last call (an encrypted session that failed or closed): the engine
    /// disconnects their peers as if they had timed out. A plain socket
    /// loses none.
    fn take_lost(&mut self, _into: &mut Vec<SocketAddr>) {}
    /// Moves into `into` the destinations and lengths of datagrams the
    /// system refused as too large since the last call (don't-fragment
    /// set, for path MTU discovery); a plain socket without it refuses
    /// none.
    fn take_too_big(&mut self, _into: &mut Vec<(SocketAddr, usize)>) {}
}

/// What the program hooked into its host.
pub trait Hooks {
    /// The checksum and compressor to use now (the program may change
    /// them between calls).
    fn codec(&mut self, host: &ENetHost) -> &mut dyn Codec;
    /// The program's intercept callback, shown each received datagram
    /// before the engine parses it.
    fn intercept(&mut self, _host: &mut Host, _datagram: &[u8]) -> Intercept {
        Intercept::Pass
    }
    /// Whether the program's event holds an event its intercept put there.
    fn intercepted_event(&self) -> bool {
        false
    }
    /// Moves what other threads asked of the host since the last call into
    /// `into` (see `request.rs`).
    fn take_requests(&mut self, _into: &mut Vec<Request>) {}
    /// The calls the program made on the host from inside its callbacks
    /// since the last call, if any (see `request.rs`).
    fn take_callback_calls(&mut self) -> Option<Vec<CallbackCall>> {
        None
    }
}

/// A call a program made on a host from inside one of that host's own
/// callbacks (intercept, checksum, compressor, a packet's free callback),
/// while the engine was in the middle of a step. The driver queues it and
/// the engine applies it at its next safe point (`apply_callback_calls`
/// in `request.rs`), with stock's effect and the same checks a direct call
/// would make.
#[derive(Debug)]
pub enum CallbackCall {
    /// `enet_peer_send`; the packet reference is the call's own.
    Send {
        peer: PeerIndex,
        channel_id: u8,
        packet: PacketRef,
    },
    /// `enet_host_broadcast`; the packet reference is the call's own.
    Broadcast { channel_id: u8, packet: PacketRef },
    /// `enet_peer_disconnect`, `_now` or `_later`.
    Disconnect {
        peer: PeerIndex,
        data: u32,
        when: DisconnectWhen,
    },
    /// `enet_peer_reset`.
    Reset { peer: PeerIndex },
}

/// Which disconnect call a [`CallbackCall::Disconnect`] stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DisconnectWhen {
    /// `enet_peer_disconnect`.
    Asked,
    /// `enet_peer_disconnect_now`.
    Now,
    /// `enet_peer_disconnect_later`.
    Later,
}

/// Hooks of a host with no callbacks, using one codec.
pub struct CodecOnly<'a>(pub &'a mut dyn Codec);

impl Hooks for CodecOnly<'_> {
    fn codec(&mut self, _host: &ENetHost) -> &mut dyn Codec {
        self.0
    }
}

/// The intercept's verdict on a datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intercept {
    /// The engine handles the datagram.
    Pass,
    /// The program handled it; the engine ignores it.
    Consumed,
    /// The program reported an error: the service call fails.
    Failed,
}

/// How a service call ended.
#[derive(Debug)]
pub enum Serviced {
    /// Nothing to report before the deadline.
    Idle,
    /// An event of the engine's.
    Event(Event),
    /// The intercept put an event in the program's event itself.
    InterceptedEvent,
}

/// How one phase ended.
enum Phase {
    Continue,
    Done(Serviced),
}

impl Host {
    /// `enet_host_service`: reports the first event found, or waits on the
    /// transport until something arrives, the engine's next deadline, or
    /// `timeout` ms have passed. `want_event` is whether the program passed
    /// an event to fill; without one, events stay queued for dispatch.
    pub fn service(
        &mut self,
        transport: &mut impl Transport,
        hooks: &mut impl Hooks,
        want_event: bool,
        timeout: u32,
    ) -> Result<Serviced, ServiceFailed> {
        if want_event {
            if let Some(event) = self.dispatch() {
                return Ok(Serviced::Event(event));
            }
        }
        let mut now = transport.now();
        self.public.serviceTime = now;
        let deadline = now.wrapping_add(timeout);
        loop {
            self.apply_requests(transport, hooks)?;
            self.apply_callback_calls(transport, hooks)?;
            self.drop_lost_endpoints(transport);
            // Stock's two checks: this one, then the pass's own (which
            // differ when the clock was set back by less than a second).
            if time_difference(now, self.public.bandwidthThrottleEpoch)
                >= ENET_HOST_BANDWIDTH_THROTTLE_INTERVAL
            {
                self.bandwidth_throttle(now);
                // The packet pool gives back what no packet needed in the
                // last second (once a second for all hosts).
                crate::mem::pool::decay(now);
                // So do the lists a burst of connects grew.
                self.release_drained_dispatch_queue();
                self.tidy_half_open();
            }
            if let Phase::Done(serviced) =
                self.send_phase(transport, hooks, now, true, want_event)?
            {
                return Ok(serviced);
            }
            // Calls from the checksum, compressor or free callbacks of that
            // pass: before anything else happens.
            self.apply_callback_calls(transport, hooks)?;
            if let Phase::Done(serviced) = self.receive_phase(transport, hooks, now, want_event)? {
                return Ok(serviced);
            }
            if let Phase::Done(serviced) =
                self.send_phase(transport, hooks, now, true, want_event)?
            {
                return Ok(serviced);
            }
            if want_event {
                if let Some(event) = self.dispatch() {
                    return Ok(Serviced::Event(event));
                }
            }
            if time_greater_equal(self.public.serviceTime, deadline) {
                return Ok(Serviced::Idle);
            }
            // Wait for a datagram, the caller's deadline, or the engine's.
            loop {
                now = transport.now();
                self.public.serviceTime = now;
                if time_greater_equal(now, deadline) {
                    return Ok(Serviced::Idle);
                }
                let caller_wait = time_difference(deadline, now);
                let engine_wait = self.next_deadline(now).unwrap_or(u32::MAX);
                if transport.wait(caller_wait.min(engine_wait.max(1)))? {
                    break;
                }
            }
            now = transport.now();
            self.public.serviceTime = now;
        }
    }

    /// Disconnects the peers at the endpoints the transport lost, as a
    /// timeout does: a connecting or connected peer's DISCONNECT event is
    /// queued for dispatch, a half-open one is reset silently.
    fn drop_lost_endpoints(&mut self, transport: &mut impl Transport) {
        let mut lost = Vec::new();
        transport.take_lost(&mut lost);
        for endpoint in lost {
            self.lose_endpoint(endpoint);
        }
    }

    /// `enet_host_flush`: one send pass, without timeouts, receiving or
    /// waiting; events it causes stay queued.
    pub fn flush(
        &mut self,
        transport: &mut impl Transport,
        hooks: &mut impl Hooks,
    ) -> Result<(), ServiceFailed> {
        self.apply_requests(transport, hooks)?;
        self.flush_queued(transport, hooks)
    }

    /// The send pass of [`Host::flush`], leaving other threads' requests
    /// for later.
    pub(crate) fn flush_queued(
        &mut self,
        transport: &mut impl Transport,
        hooks: &mut impl Hooks,
    ) -> Result<(), ServiceFailed> {
        let now = transport.now();
        self.public.serviceTime = now;
        self.send_phase(transport, hooks, now, false, false)
            .map(|_| ())
    }

    /// `enet_host_broadcast`: queues `packet` to every connected peer on
    /// `channel_id`. Whether any peer took it.
    pub fn broadcast(&mut self, channel_id: u8, packet: PacketView) -> bool {
        for index in self.peers_in_state_connected() {
            // A peer that cannot take it (too big for its channel count or
            // its waiting data) is skipped, as stock's broadcast skips it.
            let _ = self.with_peer(index, |peer, terms| {
                peer.send(ChannelId::from(channel_id), packet, terms)
            });
        }
        packet.reference_count() != 0
    }

    /// Sends what the engine has for every peer that needs it.
    ///
    /// Most passes of a host called in a loop have no peer to visit: those
    /// end here, with the transport's flush, and leave the pass itself
    /// (and its set-up, about two hundred instructions) alone.
    #[inline(always)]
    fn send_phase(
        &mut self,
        transport: &mut impl Transport,
        hooks: &mut impl Hooks,
        now: u32,
        check_timeouts: bool,
        want_event: bool,
    ) -> Result<Phase, ServiceFailed> {
        self.engine.fragment_bytes_unacknowledged = 0;
        if self.pass_would_be_empty(now) {
            self.end_empty_pass(now);
            transport.flush()?;
            return Ok(Phase::Continue);
        }
        self.send_pass(transport, hooks, now, check_timeouts, want_event)
    }

    /// [`Host::send_phase`] with a peer to visit.
    #[inline(never)]
    fn send_pass(
        &mut self,
        transport: &mut impl Transport,
        hooks: &mut impl Hooks,
        now: u32,
        check_timeouts: bool,
        want_event: bool,
    ) -> Result<Phase, ServiceFailed> {
        let mut slot = if want_event {
            EventSlot::wanted()
        } else {
            EventSlot::unwanted()
        };
        let codec = hooks.codec(&self.public);
        let mut transmit =
            |to: &SocketAddr, buffer: &mut Vec<u8>, range: Range<usize>, grouping: Grouping| {
                transport.transmit_buffer(to, buffer, range, grouping)
            };
        let sent = self.send_outgoing(now, check_timeouts, codec, &mut transmit, &mut slot);
        transport.flush()?;
        if self.engine.path.is_some() {
            self.note_too_big(transport, now);
        }
        if sent.is_err() {
            return Err(ServiceFailed);
        }
        Ok(match slot.event {
            Some(event) if want_event => Phase::Done(Serviced::Event(event)),
            _ => Phase::Continue,
        })
    }

    /// Reads and handles up to 256 datagrams.
    fn receive_phase(
        &mut self,
        transport: &mut impl Transport,
        hooks: &mut impl Hooks,
        now: u32,
        want_event: bool,
    ) -> Result<Phase, ServiceFailed> {
        let phase = self.receive_datagrams(transport, hooks, now, want_event);
        // Before the send pass reads the schedule, or the program runs.
        self.reschedule_deferred(now);
        phase
    }

    /// [`Host::receive_phase`]'s loop, leaving the last peer's reschedule
    /// for later.
    fn receive_datagrams(
        &mut self,
        transport: &mut impl Transport,
        hooks: &mut impl Hooks,
        now: u32,
        want_event: bool,
    ) -> Result<Phase, ServiceFailed> {
        for _ in 0..RECEIVES_PER_PHASE {
            let handled = transport
                .receive(|from, bytes| self.handle_received(hooks, now, from, bytes, want_event))?;
            // Calls the intercept or the checksum made on this datagram, as
            // soon as the transport is free again.
            self.apply_callback_calls(transport, hooks)?;
            match handled {
                None => return Ok(Phase::Continue),
                Some(phase) => {
                    if let Phase::Done(serviced) = phase? {
                        return Ok(Phase::Done(serviced));
                    }
                }
            }
            // Only while nothing received waits for the program: as after
            // stock's receive phase, no acknowledgement leaves before the
            // packets it covers can be handed over, so a reply it prompts
            // (a DISCONNECT once everything is acknowledged, which resets
            // the peer's queues) finds them delivered.
            if self.engine.fragment_bytes_unacknowledged >= EARLY_ACKNOWLEDGEMENT_BYTES
                && self.engine.dispatch_queue.is_empty()
            {
                // What `enet_host_flush` would send: no timeouts checked,
                // and any event stays queued for dispatch. Then the calls
                // its checksum, compressor or free callbacks made, as
                // after the service loop's own send passes.
                self.reschedule_deferred(now);
                self.send_phase(transport, hooks, now, false, false)?;
                self.apply_callback_calls(transport, hooks)?;
            }
        }
        Ok(Phase::Continue)
    }

    /// One received datagram: the host's receive fields, the intercept,
    /// then the engine.
    fn handle_received(
        &mut self,
        hooks: &mut impl Hooks,
        now: u32,
        from: SocketAddr,
        bytes: &[u8],
        want_event: bool,
    ) -> Result<Phase, ServiceFailed> {
        let length = bytes.len();
        self.public.receivedAddress = enet_view(&from);
        self.public.receivedDataLength = length;
        self.public.totalReceivedData = self.public.totalReceivedData.wrapping_add(length as u32);
        self.public.totalReceivedPackets = self.public.totalReceivedPackets.wrapping_add(1);
        self.engine.counters.received(length);
        self.public.receivedData = self.public.packetData[0].as_mut_ptr();

        match hooks.intercept(self, bytes) {
            Intercept::Pass => {}
            Intercept::Consumed => {
                self.engine.counters.intercepted += 1;
                if want_event && hooks.intercepted_event() {
                    return Ok(Phase::Done(Serviced::InterceptedEvent));
                }
                return Ok(Phase::Continue);
            }
            Intercept::Failed => return Err(ServiceFailed),
        }

        let mut slot = if want_event {
            EventSlot::wanted()
        } else {
            EventSlot::unwanted()
        };
        let codec = hooks.codec(&self.public);
        let result = self.receive_datagram_deferring(now, from, bytes, codec, &mut slot);
        // A dropped datagram is no failure of the host; it is counted.
        if let Err(reason) = result {
            self.engine.counters.dropped(reason);
        }
        if want_event {
            if let Some(event) = slot.event {
                return Ok(Phase::Done(Serviced::Event(event)));
            }
            // Stock reports an event the intercept left in place once the
            // datagram got as far as its commands.
            if hooks.intercepted_event() && reached_commands(&result) {
                return Ok(Phase::Done(Serviced::InterceptedEvent));
            }
        }
        Ok(Phase::Continue)
    }
}

/// Whether a datagram passed the header, peer and checksum checks.
fn reached_commands(result: &Result<(), DropReason>) -> bool {
    match result {
        Ok(()) => true,
        Err(reason) => matches!(
            reason,
            DropReason::TruncatedCommand
                | DropReason::UnknownCommand
                | DropReason::PayloadOutOfBounds
                | DropReason::PayloadTooLarge
                | DropReason::NoPeerForCommand
                | DropReason::MissingSentTime
                | DropReason::CommandRejected
        ),
    }
}
