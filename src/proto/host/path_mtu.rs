//! Path MTU discovery on a host (opt-in, `enet_rs_host_set_path_mtu_discovery`):
//! each connected peer gets a path size ([`PathSearch`]) that caps its
//! datagrams and the fragments of what is queued for it from then on,
//! below the MTU negotiated with it, which stays as it is in `ENetPeer`.
//!
//! - **Probes.** A probe is a datagram of its own, exactly the size tried:
//!   a PING (reliable, so the peer acknowledges it) and a SEND_UNSEQUENCED
//!   on channel 0 whose bytes fill the rest. The padding's unsequenced
//!   group lies 0x8000 ahead of ours, where every receiver, stock ENet's
//!   and ours, ignores it without an error (a group 32 windows or more
//!   ahead of the receiver's is dropped before anything is delivered). The
//!   PING takes the next number of the connection channel but is not kept
//!   for retransmission: a lost probe costs no resend, no backed-off
//!   timeout and no counted loss, and an acknowledgement of its number is
//!   recognised here and goes no further.
//! - **Lowering.** A reliable command sent [`BLACK_HOLE_SENDS`] times
//!   without an acknowledgement while the peer is still heard from (its
//!   pings, its acknowledgements) means large datagrams vanish: the size
//!   drops to where searches start ([`PathTable::base`]). So does a
//!   datagram the system refuses as too large (EMSGSIZE, with
//!   don't-fragment set). Either way the search starts again a while
//!   later.
//!
//! A fragment keeps the size it was cut to: one cut larger than the path
//! now carries cannot reach the peer, and its packet is stuck until the
//! peer times out (as it would be without discovery).

use super::codec::Codec;
use super::engine::Host;
use super::outgoing::{SendFailed, Transmit};
use super::service::Transport;
use crate::abi::ENetPeerState::*;
use crate::abi::*;
use crate::proto::state::channel_id::ChannelId;
use crate::proto::state::path_search::{PathSearch, PathTable};
use crate::proto::state::peer_index::PeerIndex;
use crate::proto::state::sequence::ReliableSequence;
use crate::time::time_difference;
use crate::wire::command::{Command, CommandFlags, CommandHeader};
use crate::wire::header::CHECKSUM_LEN;

/// Sends of one reliable command, all unacknowledged, after which a peer
/// still heard from is taken to be behind a black hole.
const BLACK_HOLE_SENDS: u16 = 3;

/// How far ahead of our own unsequenced group the padding's lies: half
/// the group space, the farthest from any group a receiver has seen.
const PADDING_GROUP_AHEAD: u16 = 0x8000;

/// Whether a peer in this state has a path size: it exchanges data.
fn has_path(state: ENetPeerState) -> bool {
    matches!(
        state,
        ENET_PEER_STATE_CONNECTED | ENET_PEER_STATE_DISCONNECT_LATER
    )
}

impl Host {
    /// Turns path MTU discovery on or off. Off, every peer's datagrams and
    /// fragments are cut to its MTU again (what is queued keeps its cut).
    pub fn set_path_mtu_discovery(&mut self, on: bool) {
        match (on, self.engine.path.is_some()) {
            (true, false) => {
                let slots = self.public.peerCount;
                let overhead = self.engine.datagram_overhead;
                self.engine.path = Some(Box::new(PathTable::new(slots, overhead)));
            }
            (false, true) => self.engine.path = None,
            _ => {}
        }
    }

    /// Whether the host discovers path MTUs.
    pub fn path_mtu_discovery(&self) -> bool {
        self.engine.path.is_some()
    }

    /// The largest datagram the host now builds for the peer in slot
    /// `index`: its path size while discovery is on and it is connected,
    /// its MTU otherwise.
    pub fn peer_path_mtu(&self, index: PeerIndex) -> u32 {
        let mtu = self.engine.peers[index].mtu;
        if self.engine.path.is_some() {
            self.path_limit(index).min(mtu)
        } else {
            mtu
        }
    }

    /// The path size of the peer in slot `index` (`u32::MAX` when it has
    /// none): the size found, or the table's base until its search starts.
    // Inlined, and only loads: where the caller does not use it (a step
    // of `Host::with_peer` other than a send), it costs nothing.
    #[inline]
    pub(in crate::proto::host) fn path_limit(&self, index: PeerIndex) -> u32 {
        let peer = &self.engine.peers[index];
        match &self.engine.path {
            Some(table) if has_path(peer.state) => table.size(index, peer.connectID),
            _ => u32::MAX,
        }
    }

    /// When the peer's search next needs a visit from the send pass (a
    /// probe's deadline, the end of a rest), if the host discovers path
    /// MTUs and the peer is connected: at once while no search started.
    #[cold]
    #[inline(never)]
    pub(in crate::proto::host) fn path_wake(&self, index: PeerIndex, now: u32) -> Option<u32> {
        let peer = &self.engine.peers[index];
        let table = self.engine.path.as_deref()?;
        if peer.state != ENET_PEER_STATE_CONNECTED {
            return None;
        }
        match table.search(index, peer.connectID) {
            Some(search) => search.next_wake(),
            None => Some(now),
        }
    }

    /// At the start of a send pass over the peers `due`: sends each a
    /// probe if its search has one due at `now` (after counting a probe
    /// whose time ran out as lost). A probe the socket refused counts as
    /// lost; the pass's own datagrams report a failing socket.
    #[cold]
    #[inline(never)]
    pub(in crate::proto::host) fn probe_paths(
        &mut self,
        due: &[PeerIndex],
        now: u32,
        codec: &mut dyn Codec,
        transmit: &mut Transmit<'_>,
    ) {
        for &index in due {
            let _ = self.send_probe(index, now, codec, transmit);
        }
    }

    /// Sends the peer a probe if its search has one due at `now`, after
    /// counting a probe whose time ran out as lost.
    fn send_probe(
        &mut self,
        index: PeerIndex,
        now: u32,
        codec: &mut dyn Codec,
        transmit: &mut Transmit<'_>,
    ) -> Result<(), SendFailed> {
        let peer = &self.engine.peers[index];
        if peer.state != ENET_PEER_STATE_CONNECTED {
            return Ok(());
        }
        let timeout = self
            .engine
            .recovery
            .of(index)
            .first_timeout(peer.roundTripTime, peer.roundTripTimeVariance)
            .saturating_mul(2);
        let Some(search) = self.search_mut(index, now) else {
            return Ok(());
        };
        search.expire_probe(now);
        let Some(size) = search.probe_due(now) else {
            return Ok(());
        };
        let Some(table) = self.engine.path.as_deref_mut() else {
            return Ok(());
        };
        let Some(search) = table.searches.get_mut(&index) else {
            return Ok(());
        };
        let peer = &mut self.engine.peers[index];
        let sequence = ReliableSequence::new(peer.outgoingReliableSequenceNumber).next();
        peer.outgoingReliableSequenceNumber = sequence.get();
        peer.outgoingDataTotal = peer.outgoingDataTotal.wrapping_add(size);
        let group = peer
            .outgoingUnsequencedGroup
            .wrapping_add(PADDING_GROUP_AHEAD);
        let checksum = if codec.has_checksum() {
            CHECKSUM_LEN
        } else {
            0
        };
        let builder = &mut self.engine.builder;
        builder.restart(size);
        let ping = CommandHeader {
            flags: CommandFlags::ACKNOWLEDGE,
            channel_id: 0xFF,
            reliable_sequence_number: sequence.get(),
        };
        let padding_header = CommandHeader {
            flags: CommandFlags::UNSEQUENCED,
            channel_id: 0,
            reliable_sequence_number: 0,
        };
        let empty_padding = Command::SendUnsequenced {
            unsequenced_group: group,
            data: &[],
        };
        let room = builder
            .remaining()
            .saturating_sub(Command::Ping.wire_len() + empty_padding.wire_len() + checksum);
        let padding = Command::SendUnsequenced {
            unsequenced_group: group,
            data: &table.padding[..room.min(table.padding.len())],
        };
        if builder.push(&ping, &Command::Ping).is_err()
            || builder.push(&padding_header, &padding).is_err()
        {
            builder.clear();
            return Ok(());
        }
        search.probe_sent(size, sequence.get(), now, timeout);
        let sent = self.transmit_datagram(index, now, codec, transmit)?;
        self.count_sent(sent);
        Ok(())
    }

    /// The search of the peer in slot `index`'s connection, started at
    /// `now` if it has none yet (or one of an earlier connection).
    fn search_mut(&mut self, index: PeerIndex, now: u32) -> Option<&mut PathSearch> {
        let peer = &self.engine.peers[index];
        let (mtu, connect_id) = (peer.mtu, peer.connectID);
        let table = self.engine.path.as_deref_mut()?;
        let base = table.base();
        let search = table
            .searches
            .entry(index)
            .or_insert_with(|| PathSearch::new(mtu, connect_id, now, base));
        if search.connect_id != connect_id {
            *search = PathSearch::new(mtu, connect_id, now, base);
        }
        table.sync(index);
        table.searches.get_mut(&index)
    }

    /// An acknowledgement of `sequence` on `channel_id` that matched no
    /// command in flight came from the peer in slot `index`: true if it
    /// answered a probe (the path carries the probe's size).
    #[cold]
    #[inline(never)]
    pub(in crate::proto::host) fn path_probe_acknowledged(
        &mut self,
        index: PeerIndex,
        channel_id: ChannelId,
        sequence: ReliableSequence,
    ) -> bool {
        if channel_id != ChannelId::CONNECTION {
            return false;
        }
        let peer = &self.engine.peers[index];
        let connect_id = peer.connectID;
        let Some(table) = self.engine.path.as_deref_mut() else {
            return false;
        };
        match table.searches.get_mut(&index) {
            Some(search) if search.connect_id == connect_id => {
                let answered = search.acknowledged(sequence.get());
                table.sync(index);
                answered
            }
            _ => false,
        }
    }

    /// After the peer's retransmission timeouts at `now`: a reliable
    /// command sent [`BLACK_HOLE_SENDS`] times while the peer is still
    /// heard from (within two ping intervals) lowers its path size to
    /// where searches start ([`PathTable::base`]).
    #[cold]
    #[inline(never)]
    pub(in crate::proto::host) fn check_black_hole(&mut self, index: PeerIndex, now: u32) {
        let peer = &self.engine.peers[index];
        if !has_path(peer.state)
            || time_difference(now, peer.lastReceiveTime) > peer.pingInterval.saturating_mul(2)
        {
            return;
        }
        let connect_id = peer.connectID;
        let Some(queues) = self.engine.slots[index].queues.as_deref() else {
            return;
        };
        let stuck = queues
            .outgoing
            .get(0)
            .into_iter()
            .chain(queues.sent_reliable.front())
            .any(|command| command.is_reliable() && command.send_attempts >= BLACK_HOLE_SENDS);
        if !stuck {
            return;
        }
        let Some(table) = self.engine.path.as_deref_mut() else {
            return;
        };
        let base = table.base();
        if let Some(search) = table
            .searches
            .get_mut(&index)
            .filter(|search| search.connect_id == connect_id)
        {
            let size = search.size();
            if size > base {
                search.lower(size, base, now);
            }
        }
        table.sync(index);
    }

    /// Lowers the path size of each peer the system refused a datagram to
    /// as too large (don't-fragment set) since the last send pass.
    #[cold]
    #[inline(never)]
    pub(in crate::proto::host) fn note_too_big(
        &mut self,
        transport: &mut impl Transport,
        now: u32,
    ) {
        let mut refused = Vec::new();
        transport.take_too_big(&mut refused);
        // The system counts the datagram as it went out; the path size
        // counts it before the host's own overhead was added.
        let overhead = self.engine.datagram_overhead as usize;
        for (to, length) in refused {
            let peer = self
                .engine
                .connected
                .iter()
                .find(|&index| self.peer_endpoint(index) == to);
            if let Some(index) = peer {
                let size = u32::try_from(length.saturating_sub(overhead)).unwrap_or(u32::MAX);
                self.path_too_big(index, size, now);
            }
        }
    }

    /// The system refused a datagram of `size` bytes (ENet's count, before
    /// the host's datagram overhead) to the peer in slot `index` as too
    /// large for the path: its path size drops below it.
    pub fn path_too_big(&mut self, index: PeerIndex, size: u32, now: u32) {
        if !has_path(self.engine.peers[index].state) {
            return;
        }
        let Some(base) = self.engine.path.as_deref().map(PathTable::base) else {
            return;
        };
        let Some(search) = self.search_mut(index, now) else {
            return;
        };
        let to = if size > base { base } else { size - size / 8 };
        search.lower(size, to, now);
        if let Some(table) = self.engine.path.as_deref_mut() {
            table.sync(index);
        }
    }
}
