//! Received payloads on the host's side: whole packets are sequenced on
//! the peer's view (`ordering.rs`), which says whether it delivered any
//! (`Host::with_peer` then queues the peer for dispatch); fragmented
//! packets are reassembled here, since their memory counts against a
//! host-wide budget whose eviction may reach other peers.

use super::engine::Host;
use crate::abi::*;
use crate::mem::PacketFlags;
use crate::proto::peer::ordering::FragmentPlace;
use crate::proto::peer::slot::{PeerSlot, NEEDS_DISPATCH};
use crate::proto::state::channel::{
    FragmentInfo, Held, Incoming, IncomingChannel, Queued, Sequencing,
};
use crate::proto::state::channel_id::ChannelId;
use crate::proto::state::command::number;
use crate::proto::state::peer_index::{PeerIndex, SlotVec};
use crate::proto::state::reassembly::{Budget, HeldKey, Locator, Reassembly};
use crate::proto::state::sequence::{ReliableSequence, UnreliableSequence};

/// Whether a peer in `state` still takes commands.
fn receiving_state(state: ENetPeerState) -> bool {
    state != ENetPeerState::ENET_PEER_STATE_DISCONNECTED
        && state != ENetPeerState::ENET_PEER_STATE_ZOMBIE
}

/// The ordering state of the channel `locator` points into.
fn incoming_channel_in(
    slots: &mut SlotVec<PeerSlot>,
    locator: Locator,
) -> Option<&mut IncomingChannel> {
    slots.get_mut(locator.peer)?.incoming_mut(locator.channel)
}

/// The held command at `locator`.
fn held_in(slots: &mut SlotVec<PeerSlot>, locator: Locator) -> Option<&mut Incoming> {
    let channel = incoming_channel_in(slots, locator)?;
    match locator.key {
        HeldKey::Reliable { start } => channel.reliable_mut(start),
        HeldKey::Unreliable { sequence, start } => channel.unreliable_mut(sequence, start),
    }
}

impl Host {
    /// Queues the peer for event dispatch (stock's NEEDS_DISPATCH flag).
    pub(crate) fn mark_dispatch(&mut self, index: PeerIndex) {
        let peer = &mut self.engine.peers[index];
        if peer.flags & NEEDS_DISPATCH == 0 {
            peer.flags |= NEEDS_DISPATCH;
            self.engine.dispatch_queue.push_back(index);
        }
    }

    /// Whether the peer's waiting-data budget admits another command.
    fn waiting_room(&mut self, index: PeerIndex) -> bool {
        let limit = self.public.maximumWaitingData;
        self.peer_view(index).waiting_room(limit)
    }
    /// The held command a fragmented packet is reassembled in, within the
    /// peer's waiting-data budget (charged the claimed length, as stock)
    /// and the host's reassembly budget (charged what is really held,
    /// after evicting staler reassemblies if need be). `None` refuses the
    /// fragment.
    fn start_reassembly(
        &mut self,
        locator: Locator,
        command_number: u8,
        fragment: &FragmentInfo,
        first_length: usize,
    ) -> Option<Incoming> {
        let index = locator.peer;
        if !self.waiting_room(index)
            || !self.make_reassembly_room(Budget::first_fragment_cost(first_length), locator)
            || !self.still_receiving(index, locator.channel)
        {
            return None;
        }
        self.engine.peers[index].totalWaitingData += fragment.total as usize;
        let mut reassembly = Reassembly::new(
            &self.engine.reassembly,
            locator,
            fragment.count,
            fragment.total,
        );
        let limit = self.engine.reassembly.limit(self.public.maximumPacketSize);
        if self
            .engine
            .reassembly
            .allows_direct(fragment.count, fragment.total, limit)
        {
            reassembly.fill_directly();
        }
        Some(Incoming {
            command_number,
            span: fragment.count as u16,
            held: Held::Fragments(Box::new(reassembly)),
        })
    }

    /// Whether the peer can still take commands on the channel after an
    /// eviction (which may have reset it).
    fn still_receiving(&mut self, index: PeerIndex, channel_id: ChannelId) -> bool {
        receiving_state(self.engine.peers[index].state)
            && self.channel_mut(index, channel_id).is_some()
    }

    /// Evicts the stalest reassemblies other than `current` until `cost`
    /// more bytes fit in the host's reassembly budget. `false` if they
    /// cannot.
    fn make_reassembly_room(&mut self, cost: usize, current: Locator) -> bool {
        let limit = self.engine.reassembly.limit(self.public.maximumPacketSize);
        while !self.engine.reassembly.fits(cost, limit) {
            let Some(stalest) = self.engine.reassembly.stalest_except(current) else {
                self.engine.counters.fragments_over_budget += 1;
                return false;
            };
            if !self.evict_reassembly(stalest) {
                return false;
            }
        }
        true
    }

    /// Drops the reassembly at `locator`. Its fragments were acknowledged,
    /// so a reliable sender will never send them again and that channel
    /// could never move on: the peer is disconnected as on a timeout (a
    /// DISCONNECT event if the program saw it connect, else a silent
    /// reset). An unreliable reassembly is only dropped.
    fn evict_reassembly(&mut self, locator: Locator) -> bool {
        let Some(incoming) = self.take_held(locator) else {
            return false;
        };
        self.peer_view(locator.peer).drop_held(incoming);
        self.engine.counters.reassemblies_evicted += 1;
        if matches!(locator.key, HeldKey::Reliable { .. }) {
            self.engine.counters.reassembly_peers_lost += 1;
            self.record_reassembly_eviction(locator.peer);
            let change = self.peer_view(locator.peer).connection_lost_later();
            self.apply_quiet(locator.peer, change);
        }
        true
    }

    /// Removes the held command at `locator` from its channel.
    fn take_held(&mut self, locator: Locator) -> Option<Incoming> {
        let channel = locator.channel;
        match locator.key {
            HeldKey::Reliable { start } => {
                self.peer_view(locator.peer).unhold_reliable(channel, start)
            }
            HeldKey::Unreliable { sequence, start } => self
                .peer_view(locator.peer)
                .unhold_unreliable(channel, sequence, start),
        }
    }

    /// The held command at `locator`.
    fn held_mut(&mut self, locator: Locator) -> Option<&mut Incoming> {
        held_in(&mut self.engine.slots, locator)
    }

    /// The reassembly held at `locator`.
    fn reassembly_mut(&mut self, locator: Locator) -> Option<&mut Reassembly> {
        match &mut self.held_mut(locator)?.held {
            Held::Fragments(reassembly) => Some(reassembly),
            Held::Packet(_) => None,
        }
    }

    /// Records one fragment of the packet held at `locator`, making room
    /// for its bytes in the host's budget first. `Ok(true)` when the packet
    /// just became complete (it is then a whole packet with `flags`);
    /// `Err` when the fragment contradicts the packet or cannot be held.
    fn add_fragment(
        &mut self,
        locator: Locator,
        command_number: u8,
        flags: PacketFlags,
        fragment: FragmentInfo,
        data: &[u8],
    ) -> Result<bool, ()> {
        let length = u32::try_from(data.len()).map_err(|_| ())?;
        let limit = self.engine.reassembly.limit(self.public.maximumPacketSize);
        let incoming = held_in(&mut self.engine.slots, locator).ok_or(())?;
        if incoming.command_number != command_number
            || incoming.waiting_len() != fragment.total as usize
            || incoming.span != fragment.count as u16
        {
            return Err(());
        }
        let reassembly = match &mut incoming.held {
            // Complete already: a late duplicate.
            Held::Packet(_) => return Ok(false),
            Held::Fragments(reassembly) => reassembly,
        };
        if reassembly.count() != fragment.count {
            return Err(());
        }
        let implied = reassembly
            .check(fragment.number, fragment.offset, length)
            .map_err(|_| ())?;
        if reassembly.has(fragment.number) {
            return Ok(false);
        }
        let cost = reassembly.cost_of_accepting(data.len());
        // Most fragments fit as they are (once the packet is allocated
        // they cost nothing): only the others may evict, which can reach
        // this very peer, so the reassembly is looked up again after.
        let reassembly = if self.engine.reassembly.fits(cost, limit) {
            if !receiving_state(self.engine.peers[locator.peer].state) {
                return Err(());
            }
            reassembly
        } else {
            if !self.make_reassembly_room(cost, locator)
                || !self.still_receiving(locator.peer, locator.channel)
            {
                return Err(());
            }
            self.reassembly_mut(locator).ok_or(())?
        };
        reassembly
            .keep(fragment.number, implied, data)
            .map_err(|_| ())?;
        if !reassembly.is_complete() {
            return Ok(false);
        }
        let incoming = self.take_held(locator).ok_or(())?;
        let Incoming {
            command_number,
            span,
            held: Held::Fragments(reassembly),
        } = incoming
        else {
            return Err(());
        };
        let Some(packet) = reassembly.assemble(flags) else {
            let peer = &mut self.engine.peers[locator.peer];
            peer.totalWaitingData = peer
                .totalWaitingData
                .saturating_sub(fragment.total as usize);
            return Err(());
        };
        let whole = Incoming {
            command_number,
            span,
            held: Held::Packet(packet),
        };
        let channel = locator.channel;
        match locator.key {
            HeldKey::Reliable { start } => self
                .peer_view(locator.peer)
                .hold_reliable(channel, start, whole),
            HeldKey::Unreliable { sequence, start } => {
                self.peer_view(locator.peer)
                    .hold_unreliable(channel, sequence, start, whole);
            }
        }
        Ok(true)
    }

    /// Queues a received SEND_RELIABLE, SEND_UNRELIABLE or SEND_UNSEQUENCED
    /// (see [`PeerMut::queue_incoming`]) within the host's waiting-data
    /// budget.
    // One out-of-line function the three callers share, not a `with_peer`
    // at each: folded into the receive loop, the queueing costs 20 to 30
    // more instructions per message (bench/callgrind.sh).
    pub(crate) fn queue_incoming(
        &mut self,
        index: PeerIndex,
        channel_id: ChannelId,
        sequencing: Sequencing,
        data: &[u8],
    ) -> Queued {
        let limit = self.public.maximumWaitingData;
        self.with_peer(index, |peer, terms| {
            peer.queue_incoming(channel_id, sequencing, data, limit, terms.now)
        })
    }

    /// Handles a reliable fragment whose fields were checked for bounds and
    /// whose first sequence number the caller found inside the window (it
    /// must decide that before validating fields, as stock does).
    pub(crate) fn queue_reliable_fragment(
        &mut self,
        index: PeerIndex,
        channel_id: ChannelId,
        fragment: FragmentInfo,
        data: &[u8],
    ) -> Queued {
        let first = ReliableSequence::new(fragment.start);
        let locator = Locator {
            peer: index,
            channel: channel_id,
            key: HeldKey::Reliable { start: first },
        };
        let place = self
            .peer_view(index)
            .place_reliable_fragment(channel_id, first);
        if place == FragmentPlace::Refused {
            return Queued::Error;
        }
        if place == FragmentPlace::Starts {
            let Some(start) =
                self.start_reassembly(locator, number::SEND_FRAGMENT, &fragment, data.len())
            else {
                return Queued::Error;
            };
            self.peer_view(index)
                .hold_reliable(channel_id, first, start);
        }
        match self.add_fragment(
            locator,
            number::SEND_FRAGMENT,
            PacketFlags::RELIABLE,
            fragment,
            data,
        ) {
            Err(()) => Queued::Error,
            Ok(false) => Queued::Accepted,
            Ok(true) => {
                self.with_peer_rarely(index, |peer, terms| {
                    peer.dispatch_reliable(channel_id, terms.now)
                });
                Queued::Accepted
            }
        }
    }

    /// Handles an unreliable fragment whose fields were checked for bounds
    /// and which the caller found neither outside the window nor older than
    /// what was delivered (decided before validating fields, as stock does).
    pub(crate) fn queue_unreliable_fragment(
        &mut self,
        index: PeerIndex,
        channel_id: ChannelId,
        sequence: ReliableSequence,
        fragment: FragmentInfo,
        data: &[u8],
    ) -> Queued {
        let first = UnreliableSequence::new(fragment.start);
        let locator = Locator {
            peer: index,
            channel: channel_id,
            key: HeldKey::Unreliable {
                sequence,
                start: first,
            },
        };
        let place = self
            .peer_view(index)
            .place_unreliable_fragment(channel_id, sequence, first);
        if place == FragmentPlace::Refused {
            return Queued::Error;
        }
        if place == FragmentPlace::Starts {
            let Some(start) = self.start_reassembly(
                locator,
                number::SEND_UNRELIABLE_FRAGMENT,
                &fragment,
                data.len(),
            ) else {
                return Queued::Error;
            };
            self.peer_view(index)
                .hold_unreliable(channel_id, sequence, first, start);
        }
        let added = self.add_fragment(
            locator,
            number::SEND_UNRELIABLE_FRAGMENT,
            PacketFlags::UNRELIABLE_FRAGMENT,
            fragment,
            data,
        );
        match added {
            Err(()) => Queued::Error,
            Ok(false) => Queued::Accepted,
            Ok(true) => {
                self.with_peer_rarely(index, |peer, terms| {
                    peer.unreliable_completed(channel_id, sequence, terms.now)
                });
                Queued::Accepted
            }
        }
    }
}
