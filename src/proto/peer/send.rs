//! What a program asks of one peer on the sending side (stock `peer.c`):
//! sending a packet, with fragmentation; a ping; the ping interval and the
//! throttle's settings; the peer's send backlog, which its send limit
//! bounds. Each works on the peer's [`PeerMut`] view and
//! returns a [`Wake`]: whether the host's send pass must now visit the
//! peer, which only the host can arrange. A caller reaches them through
//! `Host::with_peer`, which lends the view and carries out the wake.

use super::slot::{PeerMut, PeerSlot, SendError};
use crate::abi::*;
use crate::mem::PacketFlags;
use crate::mem::{PacketRef, PacketView};
use crate::proto::state::channel_id::ChannelId;
use crate::proto::state::command::{FragmentFields, OutgoingBody, OutgoingCommand};
use crate::proto::state::path_search::PathTable;
use crate::proto::state::peer_index::PeerIndex;
use crate::proto::state::send_limit::SendLimits;
use crate::proto::state::sequence::{ReliableSequence, UnreliableSequence};
use crate::wire::command::CommandFlags;
use crate::wire::header::{CHECKSUM_LEN, SENT_TIME_HEADER_LEN};
use crate::wire::size;

/// The datagram header and command that come before each fragment's bytes.
const FRAGMENT_OVERHEAD: u32 = (SENT_TIME_HEADER_LEN + size::SEND_FRAGMENT) as u32;

/// Whether the host's send pass must visit the peer: it queued something
/// (or its timers changed). The host marks it in its send schedule.
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wake {
    pub(crate) visit: bool,
}

impl Wake {
    pub(crate) const NOTHING: Wake = Wake { visit: false };
    pub(crate) const VISIT: Wake = Wake { visit: true };
}

/// Whether packets went on the peer's delivery queue: the host's event
/// dispatch must pick the peer up, which only the host can arrange.
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivered {
    pub(crate) any: bool,
}

impl Delivered {
    pub(crate) const NONE: Delivered = Delivered { any: false };
}

/// What a single-peer operation returns to the host that lent it the
/// peer: the answer its caller gets, and what only the host can carry
/// out: a [`Wake`] for its send pass, [`Delivered`] for its event
/// dispatch. `Host::with_peer` splits it and carries out both.
pub trait PeerEffect {
    /// What the caller gets once the host has carried out the rest.
    type Answer;
    /// The caller's answer, the wake and the deliveries.
    fn split(self) -> (Self::Answer, Wake, Delivered);
}

impl PeerEffect for Wake {
    type Answer = ();
    #[inline(always)]
    fn split(self) -> ((), Wake, Delivered) {
        ((), self, Delivered::NONE)
    }
}

/// An operation that may refuse: on refusal nothing was queued.
impl<E> PeerEffect for Result<Wake, E> {
    type Answer = Result<(), E>;
    #[inline(always)]
    fn split(self) -> (Result<(), E>, Wake, Delivered) {
        match self {
            Ok(wake) => (Ok(()), wake, Delivered::NONE),
            Err(error) => (Err(error), Wake::NOTHING, Delivered::NONE),
        }
    }
}

/// Packets delivered (a completed fragmented packet let its channel move
/// on): the host queues the peer for dispatch.
impl PeerEffect for Delivered {
    type Answer = ();
    #[inline(always)]
    fn split(self) -> ((), Wake, Delivered) {
        ((), Wake::NOTHING, self)
    }
}

/// Steps that leave the host nothing to do answer with a plain value: a
/// setting of the peer's own (`PeerMut::set_timeout`), a throttle
/// sample's verdict (`PeerMut::throttle`), a received packet taken off
/// the delivery queue (`PeerMut::receive`). A step that wakes returns a
/// `#[must_use]` [`Wake`], so a closure cannot turn one into `()` unseen.
macro_rules! leaves_host_nothing {
    ($($answer:ty),*) => {$(
        impl PeerEffect for $answer {
            type Answer = $answer;
            #[inline(always)]
            fn split(self) -> ($answer, Wake, Delivered) {
                (self, Wake::NOTHING, Delivered::NONE)
            }
        }
    )*};
}
leaves_host_nothing!((), i32, Option<(u8, PacketRef)>);

/// What the host's settings and clock say about a packet it sends now:
/// the largest it takes (`maximumPacketSize`), whether its datagrams carry
/// a checksum (which leaves each fragment 4 bytes less), its service
/// time, and where the host keeps what its opt-in extensions ask of a
/// send to the peer (`SendExtras`). `Host::with_peer` lends them with
/// the peer.
#[derive(Clone, Copy)]
pub struct SendTerms<'a> {
    pub(crate) maximum_packet_size: usize,
    pub(crate) checksum: bool,
    pub(crate) now: u32,
    pub(crate) extras: SendExtras<'a>,
}

/// Where the host keeps the peer's send limit and, when it discovers path
/// MTUs, its path size. Lent as places rather than values: only a send
/// reads them, and only after its own checks, so every other step that
/// borrows the peer, and a send on a host with neither extension, never
/// loads them.
#[derive(Clone, Copy)]
pub struct SendExtras<'a> {
    pub(crate) index: PeerIndex,
    pub(crate) limits: &'a SendLimits,
    pub(crate) path: &'a Option<Box<PathTable>>,
}

impl SendExtras<'_> {
    /// The send backlog at which the peer refuses a send, in bytes; 0 for
    /// none.
    #[inline(always)]
    fn send_limit(&self) -> usize {
        self.limits.of(self.index)
    }

    /// The size the peer's fragments are cut to when the host discovers
    /// path MTUs (see `proto/state/path_search.rs`); `None`: the peer's
    /// MTU decides.
    #[inline(always)]
    fn path_size(&self, connect_id: u32) -> Option<u32> {
        self.path.as_deref()?.slot_size(self.index, connect_id)
    }
}

/// The payload bytes a send limit counts for a peer: those of the
/// commands queued for it and not yet gone, an unreliable one when it is
/// sent (or dropped by the throttle), a reliable one when it is
/// acknowledged. A fragment counts its share of its packet; a reliable
/// command sent again counts once.
pub(crate) fn send_backlog(slot: &PeerSlot) -> usize {
    slot.queues.as_deref().map_or(0, |queues| queues.backlog)
}

impl PeerMut<'_> {
    /// `enet_peer_setup_outgoing_command`: numbers the command and queues it.
    pub(crate) fn setup_outgoing(&mut self, command: OutgoingCommand) -> Wake {
        Wake {
            visit: self.number_and_queue(command),
        }
    }

    /// Queues a connection-level (channel 0xFF) command.
    pub(crate) fn queue_control(&mut self, flags: CommandFlags, body: OutgoingBody) -> Wake {
        self.setup_outgoing(OutgoingCommand::new(flags, ChannelId::CONNECTION, body))
    }

    /// `enet_peer_send` on the host's `terms`. On success the queued
    /// commands hold references to `packet`; on failure nothing is kept
    /// (the caller still owns it). Besides stock's refusals, a peer with a
    /// send limit refuses while its [`send_backlog`](Self::send_backlog) is at or over it:
    /// checked before queueing, so the packet that crosses the limit is
    /// taken, and a packet larger than the limit goes once the backlog has
    /// drained below it.
    // Always inlined: `enet_peer_send` is a thin shell around it, and
    // the checks fold into that one call.
    #[inline(always)]
    pub fn send<'p>(
        &mut self,
        channel_id: ChannelId,
        packet: impl Into<PacketView<'p>>,
        terms: SendTerms<'_>,
    ) -> Result<Wake, SendError> {
        let packet = packet.into();
        let peer = &*self.public;
        if peer.state != ENetPeerState::ENET_PEER_STATE_CONNECTED {
            return Err(SendError::NotConnected);
        }
        if channel_id.index() >= peer.channelCount {
            return Err(SendError::BadChannel);
        }
        let length = packet.len();
        if length > terms.maximum_packet_size {
            return Err(SendError::TooLarge);
        }
        // With no limit set (the default) this is all a send pays.
        let send_limit = terms.extras.send_limit();
        if send_limit != 0 && self.send_backlog() >= send_limit {
            return Err(SendError::OverSendLimit);
        }
        let mtu = match terms.extras.path_size(peer.connectID) {
            Some(size) => peer.mtu.min(size),
            None => peer.mtu,
        };
        let mut fragment_length = mtu.saturating_sub(FRAGMENT_OVERHEAD);
        if terms.checksum {
            fragment_length = fragment_length.saturating_sub(CHECKSUM_LEN as u32);
        }
        let fragment_length = fragment_length.max(1) as usize;
        let flags = packet.flags();
        let channel = self.channel(channel_id).ok_or(SendError::BadChannel)?;

        if length > fragment_length {
            let fragment_count = length.div_ceil(fragment_length);
            if fragment_count > ENET_PROTOCOL_MAXIMUM_FRAGMENT_COUNT as usize {
                return Err(SendError::TooManyFragments);
            }
            let unreliable = flags & (PacketFlags::RELIABLE | PacketFlags::UNRELIABLE_FRAGMENT)
                == PacketFlags::UNRELIABLE_FRAGMENT
                && channel.outgoingUnreliableSequenceNumber < 0xFFFF;
            let (command_flags, start) = if unreliable {
                (
                    CommandFlags::NONE,
                    UnreliableSequence::new(channel.outgoingUnreliableSequenceNumber)
                        .next()
                        .get(),
                )
            } else {
                (
                    CommandFlags::ACKNOWLEDGE,
                    ReliableSequence::new(channel.outgoingReliableSequenceNumber)
                        .next()
                        .get(),
                )
            };
            let mut wake = Wake::NOTHING;
            for fragment_number in 0..fragment_count {
                let offset = fragment_number * fragment_length;
                let this_length = fragment_length.min(length - offset);
                let fields = FragmentFields {
                    start_sequence_number: start,
                    fragment_count: fragment_count as u32,
                    fragment_number: fragment_number as u32,
                    total_length: length as u32,
                };
                let body = if unreliable {
                    OutgoingBody::SendUnreliableFragment(fields)
                } else {
                    OutgoingBody::SendFragment(fields)
                };
                let command = OutgoingCommand::new(command_flags, channel_id, body).with_payload(
                    packet.retain(),
                    offset as u32,
                    this_length as u16,
                );
                wake.visit |= self.setup_outgoing(command).visit;
            }
            self.note_queued(length, terms.now);
            return Ok(wake);
        }

        let (command_flags, body) = if flags & (PacketFlags::RELIABLE | PacketFlags::UNSEQUENCED)
            == PacketFlags::UNSEQUENCED
        {
            (CommandFlags::UNSEQUENCED, OutgoingBody::SendUnsequenced)
        } else if flags.contains(PacketFlags::RELIABLE)
            || channel.outgoingUnreliableSequenceNumber == u16::MAX
        {
            (CommandFlags::ACKNOWLEDGE, OutgoingBody::SendReliable)
        } else {
            (CommandFlags::NONE, OutgoingBody::SendUnreliable)
        };
        let command = OutgoingCommand::new(command_flags, channel_id, body).with_payload(
            packet.retain(),
            0,
            length as u16,
        );
        let wake = self.setup_outgoing(command);
        self.note_queued(length, terms.now);
        Ok(wake)
    }

    /// The peer's send backlog: the payload bytes of the commands queued
    /// for it and not yet gone, which its send limit bounds.
    pub fn send_backlog(&self) -> usize {
        send_backlog(self.slot)
    }

    /// Notes that the peer just queued a payload of `length` bytes at
    /// `now`: its send backlog grows (once per packet, here rather than
    /// per fragment queued), and its queues (made by the queueing) are
    /// kept from being given back.
    fn note_queued(&mut self, length: usize, now: u32) {
        if let Some(queues) = self.slot.queues_if_any() {
            queues.backlog += length;
            queues.last_traffic = now;
            queues.sends_payloads = true;
        }
    }

    /// `enet_peer_ping`: a PING, if the peer is connected.
    pub fn ping(&mut self) -> Wake {
        if self.public.state != ENetPeerState::ENET_PEER_STATE_CONNECTED {
            return Wake::NOTHING;
        }
        self.queue_control(CommandFlags::ACKNOWLEDGE, OutgoingBody::Ping)
    }

    /// `enet_peer_ping_interval` (0 restores the default). The peer's ping
    /// timer changes, so the send pass visits it.
    pub fn set_ping_interval(&mut self, interval: u32) -> Wake {
        self.public.pingInterval = if interval != 0 {
            interval
        } else {
            ENET_PEER_PING_INTERVAL
        };
        Wake::VISIT
    }

    /// `enet_peer_throttle_configure`: sets the throttle and tells the peer.
    pub fn throttle_configure(
        &mut self,
        interval: u32,
        acceleration: u32,
        deceleration: u32,
    ) -> Wake {
        let peer = &mut *self.public;
        peer.packetThrottleInterval = interval;
        peer.packetThrottleAcceleration = acceleration;
        peer.packetThrottleDeceleration = deceleration;
        self.queue_control(
            CommandFlags::ACKNOWLEDGE,
            OutgoingBody::ThrottleConfigure {
                interval,
                acceleration,
                deceleration,
            },
        )
    }
}
