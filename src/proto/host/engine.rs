//! The host: the public `ENetHost` and the engine state beside it, in one
//! allocation so that the `ENetHost *` C code holds leads back to both.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddrV6;

use crate::abi::*;
use crate::mem::{CBox, CSlice};
use crate::proto::peer::slot::{PeerMut, PeerSlot, Receipts, SpareQueues};
use crate::proto::state::connected::ConnectedSet;
use crate::proto::state::half_open::HalfOpen;
use crate::proto::state::peer_index::{PeerIndex, SlotVec};
use crate::proto::state::reassembly::Budget;
use crate::proto::state::recovery::{
    LossRecovery, RecoveryCounts, RecoveryStats, RecoveryTable, ResendCounts, RetransmittedBytes,
};
use crate::proto::state::schedule::Schedule;
use crate::wire::builder::DatagramBuilder;

/// What `enet_host_create` was asked for, after the socket is set up.
#[derive(Debug, Clone, Copy)]
pub struct HostSettings {
    /// The bound address (or the requested one if it could not be read).
    pub address: ENetAddress,
    pub socket: ENetSocket,
    pub peer_count: usize,
    /// 0 means the maximum, 255.
    pub channel_limit: usize,
    pub incoming_bandwidth: u32,
    pub outgoing_bandwidth: u32,
    /// Seeds `randomSeed`, from which connect ids are drawn.
    pub random_seed: u32,
    /// The engine clock at creation.
    pub now: u32,
}

#[cfg(test)]
impl HostSettings {
    /// A host on no socket with `peer_count` slots and one channel, for
    /// unit tests that drive the engine directly.
    pub(crate) fn for_tests(peer_count: usize) -> HostSettings {
        HostSettings {
            address: ENetAddress::default(),
            socket: crate::abi::ENET_SOCKET_NULL,
            peer_count,
            channel_limit: 1,
            incoming_bandwidth: 0,
            outgoing_bandwidth: 0,
            random_seed: 1,
            now: 0,
        }
    }
}

/// A host. `public` must stay the first field: C code holds a pointer to
/// it, and the driver turns that pointer back into the whole `Host`.
#[repr(C)]
pub struct Host {
    pub public: ENetHost,
    pub(crate) engine: Engine,
}

/// The engine's state beside the public `ENetHost`: private to the host
/// wing, which keeps its invariants (the connected set agrees with
/// `connectedPeers`, each per-slot table has one entry per peer).
pub(crate) struct Engine {
    /// The peer array C code sees as `host->peers`.
    pub(in crate::proto::host) peers: CSlice<ENetPeer>,
    /// Private state of each peer, by slot.
    pub(in crate::proto::host) slots: SlotVec<PeerSlot>,
    /// Queue sets peers gave up, for the next that needs one.
    pub(in crate::proto::host) spare_queues: SpareQueues,
    /// Peers with an event to report, in order (stock's `dispatchQueue`).
    pub(in crate::proto::host) dispatch_queue: VecDeque<PeerIndex>,
    pub(in crate::proto::host) schedule: Schedule,
    /// The peer whose reschedule the datagrams received last left for
    /// later (`Host::receive_datagram_deferring`), if any.
    pub(in crate::proto::host) deferred_reschedule: Option<PeerIndex>,
    /// The datagram being packed.
    pub(in crate::proto::host) builder: DatagramBuilder,
    /// Unreliable commands in the datagram being packed (one datagram is
    /// built at a time, so one list serves every peer).
    pub(in crate::proto::host) sent_unreliable: Vec<crate::proto::state::command::OutgoingCommand>,
    /// Peers visited by the current send pass, and its rounds (kept to
    /// reuse their memory).
    pub(in crate::proto::host) due: Vec<PeerIndex>,
    pub(in crate::proto::host) round: Vec<PeerIndex>,
    pub(in crate::proto::host) again: Vec<PeerIndex>,
    /// Peers currently connected, by slot, for the bandwidth throttle.
    pub(in crate::proto::host) connected: ConnectedSet,
    /// Half-open peers (incoming CONNECTs not yet acknowledged), oldest
    /// first: a CONNECT finding no free slot evicts the oldest.
    pub(in crate::proto::host) half_open: HalfOpen,
    /// What all incomplete fragment reassemblies hold, host-wide.
    pub(in crate::proto::host) reassembly: Budget,
    /// Each peer's loss recovery: the host's, or its own.
    pub(in crate::proto::host) recovery: RecoveryTable,
    /// How many commands each peer's loss recovery sent again since its
    /// slot was last reset. A table of its own, not a box a peer gets at
    /// its first retransmission: a burst of connects retransmits to most
    /// of its peers, and thousands of small boxes made then would stay
    /// scattered among the handshakes' freed queues, keeping the C heap
    /// from giving those pages back.
    pub(in crate::proto::host) resends: SlotVec<ResendCounts>,
    /// The payload bytes each peer's retransmissions carried since its
    /// slot was last reset.
    pub(in crate::proto::host) retransmitted_bytes: RetransmittedBytes,
    /// The program's hold on timeouts, if any (`hold.rs`).
    pub(in crate::proto::host) hold: crate::proto::state::hold::TimeoutHold,
    /// Each peer's send limit, until its slot is reset.
    pub(in crate::proto::host) send_limits: crate::proto::state::send_limit::SendLimits,
    /// The objects the internal `enet_peer_queue_*` exports last returned,
    /// by slot, until the peer's reset: programs rarely call them, so the
    /// few peers that have any keep them here rather than each slot.
    pub(in crate::proto::host) receipts: BTreeMap<PeerIndex, Receipts>,
    /// The IPv6 address of each peer that has one, by slot; an IPv4 peer's
    /// is `ENetPeer::address`, as in stock (see `endpoint.rs`). Kept here
    /// rather than in each slot: most hosts have no IPv6 peer at all. Like
    /// `ENetPeer::address`, an entry outlives the peer's reset, until the
    /// slot is given another address.
    pub(in crate::proto::host) ipv6_endpoints: BTreeMap<PeerIndex, SocketAddrV6>,
    /// Each slot's generation (see `request.rs`), made when the first
    /// handle is taken: before that no handle can go stale, and most
    /// programs never take one.
    pub(in crate::proto::host) generations:
        std::cell::OnceCell<crate::proto::state::handle::Generations>,
    /// Requests from other threads being applied (kept to reuse memory).
    pub(in crate::proto::host) requests: Vec<crate::proto::state::handle::Request>,
    /// Bytes a layer below the engine adds to each datagram (an encrypted
    /// host's record framing), taken off the MTU a peer is given so that
    /// what reaches the wire stays within the MTU the program set. 0 for
    /// a plain host, whose MTU rules are stock's.
    pub(in crate::proto::host) datagram_overhead: u32,
    /// Bytes of reliable fragments received since the last send pass:
    /// their acknowledgements are pending (see `receive_phase`).
    pub(in crate::proto::host) fragment_bytes_unacknowledged: usize,
    /// What the host counted of its traffic (`counters.rs`).
    pub(in crate::proto::host) counters: crate::proto::state::counters::HostCounters,
    /// Why each ended slot's connection ended (see `ending.rs`).
    pub(in crate::proto::host) ends: crate::proto::state::peer_end::PeerEnds,
    /// Path MTU discovery, while the host has it on (see `path_mtu.rs`).
    pub(in crate::proto::host) path: Option<Box<crate::proto::state::path_search::PathTable>>,
}

impl Engine {
    /// The peer in slot `index`, borrowed whole.
    // Always inlined, as it was before the view looked up its loss
    // recovery: an outlined copy costs a call on every path that takes a
    // view, and lies outside the hot text's idle tier when only a rare path
    // (a timeout) calls it.
    #[inline(always)]
    pub(in crate::proto::host) fn peer_view(&mut self, index: PeerIndex) -> PeerMut<'_> {
        PeerMut {
            public: &mut self.peers[index],
            slot: &mut self.slots[index],
            recovery: self.recovery.of(index),
        }
    }

    /// The peer in slot `index` with what a send pass lends it: the
    /// datagram being packed and the unreliable commands it carries.
    #[inline(always)]
    pub(in crate::proto::host) fn packing(
        &mut self,
        index: PeerIndex,
    ) -> (
        PeerMut<'_>,
        &mut DatagramBuilder,
        &mut Vec<crate::proto::state::command::OutgoingCommand>,
    ) {
        let peer = PeerMut {
            public: &mut self.peers[index],
            slot: &mut self.slots[index],
            recovery: self.recovery.of(index),
        };
        (peer, &mut self.builder, &mut self.sent_unreliable)
    }

    /// Adds `resent`, what the loss recovery of the peer in slot `index`
    /// just sent again, to its counts.
    // Always inlined: called at every acknowledgement, where a call's
    // prologue would cost more than the check.
    #[inline(always)]
    pub(in crate::proto::host) fn record(&mut self, index: PeerIndex, resent: RecoveryCounts) {
        // Most passes send nothing again, and cost no more than this check.
        if resent != RecoveryCounts::default() {
            let (resends, bytes) = resent.split();
            self.resends[index].add(resends);
            self.retransmitted_bytes.add(index, bytes);
        }
    }
}

/// The engine's per-peer arrays are indexed by slot.
impl core::ops::Index<PeerIndex> for [ENetPeer] {
    type Output = ENetPeer;
    fn index(&self, index: PeerIndex) -> &ENetPeer {
        &self[index.get()]
    }
}

impl core::ops::IndexMut<PeerIndex> for [ENetPeer] {
    fn index_mut(&mut self, index: PeerIndex) -> &mut ENetPeer {
        &mut self[index.get()]
    }
}

/// Points an `ENetList` at itself: a valid empty list.
pub(crate) fn clear_list(list: &mut ENetList) {
    let sentinel: *mut ENetListNode = &mut list.sentinel;
    list.sentinel.next = sentinel;
    list.sentinel.previous = sentinel;
}

const EMPTY_LIST: ENetList = ENetList {
    sentinel: ENetListNode::NULL,
};

pub(crate) fn blank_peer() -> ENetPeer {
    ENetPeer {
        dispatchList: ENetListNode::NULL,
        host: core::ptr::null_mut(),
        outgoingPeerID: 0,
        incomingPeerID: 0,
        connectID: 0,
        outgoingSessionID: 0,
        incomingSessionID: 0,
        address: ENetAddress::default(),
        data: core::ptr::null_mut(),
        state: ENetPeerState::ENET_PEER_STATE_DISCONNECTED,
        channels: core::ptr::null_mut(),
        channelCount: 0,
        incomingBandwidth: 0,
        outgoingBandwidth: 0,
        incomingBandwidthThrottleEpoch: 0,
        outgoingBandwidthThrottleEpoch: 0,
        incomingDataTotal: 0,
        outgoingDataTotal: 0,
        lastSendTime: 0,
        lastReceiveTime: 0,
        nextTimeout: 0,
        earliestTimeout: 0,
        packetLossEpoch: 0,
        packetsSent: 0,
        packetsLost: 0,
        packetLoss: 0,
        packetLossVariance: 0,
        packetThrottle: 0,
        packetThrottleLimit: 0,
        packetThrottleCounter: 0,
        packetThrottleEpoch: 0,
        packetThrottleAcceleration: 0,
        packetThrottleDeceleration: 0,
        packetThrottleInterval: 0,
        pingInterval: 0,
        timeoutLimit: 0,
        timeoutMinimum: 0,
        timeoutMaximum: 0,
        lastRoundTripTime: 0,
        lowestRoundTripTime: 0,
        lastRoundTripTimeVariance: 0,
        highestRoundTripTimeVariance: 0,
        roundTripTime: 0,
        roundTripTimeVariance: 0,
        mtu: 0,
        windowSize: 0,
        reliableDataInTransit: 0,
        outgoingReliableSequenceNumber: 0,
        acknowledgements: EMPTY_LIST,
        sentReliableCommands: EMPTY_LIST,
        sentUnreliableCommands: EMPTY_LIST,
        outgoingCommands: EMPTY_LIST,
        dispatchedCommands: EMPTY_LIST,
        flags: 0,
        reserved: 0,
        incomingUnsequencedGroup: 0,
        outgoingUnsequencedGroup: 0,
        unsequencedWindow: [0; (ENET_PEER_UNSEQUENCED_WINDOW_SIZE / 32) as usize],
        eventData: 0,
        totalWaitingData: 0,
    }
}

/// A new host's public part: zero everywhere but the fields
/// [`set_up_public`] sets (its lists point at themselves once the host is
/// attached).
fn blank_host(settings: &HostSettings) -> ENetHost {
    let mut public = ENetHost {
        socket: 0,
        address: ENetAddress::default(),
        incomingBandwidth: 0,
        outgoingBandwidth: 0,
        bandwidthThrottleEpoch: 0,
        mtu: 0,
        randomSeed: 0,
        recalculateBandwidthLimits: 0,
        peers: core::ptr::null_mut(),
        peerCount: 0,
        channelLimit: 0,
        serviceTime: 0,
        dispatchQueue: EMPTY_LIST,
        continueSending: 0,
        packetSize: 0,
        headerFlags: 0,
        commands: [ENetProtocol::ZERO; ENET_PROTOCOL_MAXIMUM_PACKET_COMMANDS as usize],
        commandCount: 0,
        buffers: [ENetBuffer {
            data: core::ptr::null_mut(),
            dataLength: 0,
        }; ENET_BUFFER_MAXIMUM as usize],
        bufferCount: 0,
        checksum: None,
        compressor: ENetCompressor {
            context: core::ptr::null_mut(),
            compress: None,
            decompress: None,
            destroy: None,
        },
        packetData: [[0; ENET_PROTOCOL_MAXIMUM_MTU as usize]; 2],
        receivedAddress: ENetAddress::default(),
        receivedData: core::ptr::null_mut(),
        receivedDataLength: 0,
        totalSentData: 0,
        totalSentPackets: 0,
        totalReceivedData: 0,
        totalReceivedPackets: 0,
        intercept: None,
        connectedPeers: 0,
        bandwidthLimitedPeers: 0,
        duplicatePeers: 0,
        maximumPacketSize: 0,
        maximumWaitingData: 0,
    };
    set_up_public(&mut public, settings);
    public
}

/// Sets the fields of a new host's public part that do not start at zero.
/// The C layer makes a host in its heap place, zeroed, and calls this
/// rather than copying in a [`blank_host`]: the part is 11 KiB, and each
/// copy of it on the stack left pages there resident for good.
pub(crate) fn set_up_public(public: &mut ENetHost, settings: &HostSettings) {
    public.socket = settings.socket;
    public.address = settings.address;
    public.incomingBandwidth = settings.incoming_bandwidth;
    public.outgoingBandwidth = settings.outgoing_bandwidth;
    public.mtu = ENET_HOST_DEFAULT_MTU;
    public.randomSeed = settings.random_seed.rotate_left(16);
    public.peerCount = settings.peer_count;
    public.channelLimit = match settings.channel_limit {
        0 => ENET_PROTOCOL_MAXIMUM_CHANNEL_COUNT as usize,
        limit => limit.clamp(
            ENET_PROTOCOL_MINIMUM_CHANNEL_COUNT as usize,
            ENET_PROTOCOL_MAXIMUM_CHANNEL_COUNT as usize,
        ),
    };
    public.duplicatePeers = ENET_PROTOCOL_MAXIMUM_PEER_ID as usize;
    public.maximumPacketSize = ENET_HOST_DEFAULT_MAXIMUM_PACKET_SIZE as usize;
    public.maximumWaitingData = ENET_HOST_DEFAULT_MAXIMUM_WAITING_DATA as usize;
}

impl Engine {
    /// The private state of a new host with `settings`; `None` for more
    /// than 4095 peers or when allocation fails.
    pub(crate) fn new(settings: &HostSettings) -> Option<Engine> {
        if settings.peer_count > ENET_PROTOCOL_MAXIMUM_PEER_ID as usize {
            return None;
        }
        Some(Engine {
            peers: CSlice::new_with(settings.peer_count, |_| blank_peer())?,
            slots: SlotVec::from_fn(settings.peer_count, |_| PeerSlot::default()),
            spare_queues: SpareQueues::default(),
            dispatch_queue: VecDeque::new(),
            schedule: Schedule::new(settings.peer_count, settings.now),
            builder: DatagramBuilder::new(ENET_HOST_DEFAULT_MTU),
            sent_unreliable: Vec::new(),
            deferred_reschedule: None,
            due: Vec::new(),
            round: Vec::new(),
            again: Vec::new(),
            connected: ConnectedSet::new(settings.peer_count),
            half_open: HalfOpen::new(settings.peer_count),
            reassembly: Budget::default(),
            recovery: RecoveryTable::default(),
            resends: SlotVec::filled(settings.peer_count, ResendCounts::default()),
            retransmitted_bytes: RetransmittedBytes::default(),
            hold: Default::default(),
            send_limits: Default::default(),
            receipts: BTreeMap::new(),
            ipv6_endpoints: BTreeMap::new(),
            generations: std::cell::OnceCell::new(),
            datagram_overhead: 0,
            path: None,
            requests: Vec::new(),
            fragment_bytes_unacknowledged: 0,
            counters: Default::default(),
            ends: Default::default(),
        })
    }
}

impl Host {
    /// A host with `peer_count` peer slots, not yet usable: it must first
    /// be put where it will stay and [`Host::attach`]ed, since its peers
    /// point back at it. `None` for more than 4095 peers or when
    /// allocation fails.
    pub fn new(settings: HostSettings) -> Option<Host> {
        let engine = Engine::new(&settings)?;
        Some(Host {
            public: blank_host(&settings),
            engine,
        })
    }

    /// Points the host's public fields and its peers at their final
    /// places and resets every peer. Call once, after the host was moved
    /// to the memory it will live in.
    pub fn attach(&mut self) {
        let host_pointer: *mut ENetHost = &mut self.public;
        self.public.peers = self.engine.peers.as_mut_ptr();
        clear_list(&mut self.public.dispatchQueue);
        for (index, peer) in
            PeerIndex::all(self.engine.peers.len()).zip(self.engine.peers.iter_mut())
        {
            peer.host = host_pointer;
            peer.incomingPeerID = index.peer_id();
            peer.outgoingSessionID = 0xFF;
            peer.incomingSessionID = 0xFF;
            clear_list(&mut peer.acknowledgements);
            clear_list(&mut peer.sentReliableCommands);
            clear_list(&mut peer.sentUnreliableCommands);
            clear_list(&mut peer.outgoingCommands);
            clear_list(&mut peer.dispatchedCommands);
        }
        for index in PeerIndex::all(self.engine.peers.len()) {
            self.reset_peer(index);
        }
    }

    /// [`Host::new`] in hook-allocated memory, attached.
    pub fn create(settings: HostSettings) -> Option<CBox<Host>> {
        let mut host = CBox::new(Host::new(settings)?)?;
        host.attach();
        Some(host)
    }

    /// Resets every peer (releasing every queued packet); the host itself
    /// is freed when its box is dropped.
    pub fn shut_down(&mut self) {
        for index in PeerIndex::all(self.engine.peers.len()) {
            self.reset_peer(index);
        }
    }

    pub fn peer_count(&self) -> usize {
        self.engine.peers.len()
    }

    /// Every peer slot of this host, in order.
    pub fn peer_indices(&self) -> impl DoubleEndedIterator<Item = PeerIndex> + Clone {
        self.engine.slots.indices()
    }

    /// The slot numbered `slot`, if this host has it.
    pub fn slot(&self, slot: usize) -> Option<PeerIndex> {
        PeerIndex::checked(slot, self.peer_count())
    }

    pub fn peer(&self, index: PeerIndex) -> &ENetPeer {
        &self.engine.peers[index]
    }

    pub fn peer_mut(&mut self, index: PeerIndex) -> &mut ENetPeer {
        &mut self.engine.peers[index]
    }

    /// The peer in slot `index`, borrowed whole (see [`PeerMut`]), for the
    /// host's own steps. Code outside the host goes through
    /// [`Host::with_peer`], which carries out what a step returns.
    #[inline(always)]
    pub(in crate::proto::host) fn peer_view(&mut self, index: PeerIndex) -> PeerMut<'_> {
        self.engine.peer_view(index)
    }

    /// The slot of the peer at `pointer`, if it is one of this host's.
    pub fn peer_index(&self, pointer: *const ENetPeer) -> Option<PeerIndex> {
        let base = self.engine.peers.as_ptr() as usize;
        let offset = (pointer as usize).checked_sub(base)?;
        let size = core::mem::size_of::<ENetPeer>();
        let index = offset / size;
        if offset % size != 0 {
            return None;
        }
        PeerIndex::checked(index, self.engine.peers.len())
    }

    /// Pointer to the peer in slot `index`, as C code sees it.
    pub fn peer_pointer(&mut self, index: PeerIndex) -> *mut ENetPeer {
        &mut self.engine.peers[index]
    }

    /// Slots of the peers in state CONNECTED, and only that state: a peer
    /// in DISCONNECT_LATER is not a broadcast target (stock
    /// `enet_host_broadcast`). The throttle's count differs, see
    /// `peers_connected_or_disconnect_later`.
    pub fn peers_in_state_connected(&self) -> Vec<PeerIndex> {
        self.engine
            .connected
            .iter()
            .filter(|&index| {
                self.engine.peers[index].state == ENetPeerState::ENET_PEER_STATE_CONNECTED
            })
            .collect()
    }

    /// Bytes all incomplete fragment reassemblies of all peers hold.
    pub fn reassembly_held(&self) -> usize {
        self.engine.reassembly.held()
    }

    /// Incomplete fragment reassemblies, all peers together.
    pub fn reassemblies(&self) -> usize {
        self.engine.reassembly.reassemblies()
    }

    /// The host-wide limit on [`Host::reassembly_held`] now.
    pub fn reassembly_limit(&self) -> usize {
        self.engine.reassembly.limit(self.public.maximumPacketSize)
    }

    /// Fixes the reassembly limit in bytes, or with `None` returns to the
    /// default: the larger of 64 MiB and twice `maximumPacketSize`.
    pub fn set_reassembly_budget(&mut self, limit: Option<usize>) {
        self.engine.reassembly.set_fixed_limit(limit);
    }

    /// Milliseconds from `now` until the engine next needs to run (a
    /// retransmission, a ping, or, while peers are connected, the
    /// once-a-second bandwidth throttle pass, which resets the peers' data
    /// totals and sends pending BANDWIDTH_LIMITs), `None` if nothing is
    /// due. Queued events do not count: a caller that wants them
    /// dispatches before waiting.
    pub fn next_deadline(&mut self, now: u32) -> Option<u32> {
        let timers = self.engine.schedule.time_until_next(now);
        if self.public.connectedPeers == 0 {
            return timers;
        }
        let since = now.wrapping_sub(self.public.bandwidthThrottleEpoch);
        let throttle = ENET_HOST_BANDWIDTH_THROTTLE_INTERVAL.saturating_sub(since);
        Some(timers.map_or(throttle, |timers| timers.min(throttle)))
    }

    /// Sets the loss recovery of every peer of the host, now and after
    /// each reset (a peer's own setting lasts until its slot is reset).
    pub fn set_loss_recovery(&mut self, recovery: LossRecovery) {
        self.engine.recovery.set_host(recovery);
    }

    /// The loss recovery the host gives its peers.
    pub fn loss_recovery(&self) -> LossRecovery {
        *self.engine.recovery.host()
    }

    /// Sets the loss recovery of the peer in slot `index`, until its slot is
    /// reset.
    pub fn set_peer_loss_recovery(&mut self, index: PeerIndex, recovery: LossRecovery) {
        self.engine.recovery.set_own(index, recovery);
    }

    /// The loss recovery of the peer in slot `index`.
    pub fn peer_loss_recovery(&self, index: PeerIndex) -> LossRecovery {
        *self.engine.recovery.of(index)
    }

    /// What the loss recovery of the peer in slot `index` did since its
    /// slot was last reset, and its congestion window in bytes (0 while it
    /// has none: congestion control off, or idle).
    pub fn peer_recovery_stats(&self, index: PeerIndex) -> (RecoveryStats, u32) {
        let slot = &self.engine.slots[index];
        let bytes = self.engine.retransmitted_bytes.of(index);
        let stats = RecoveryCounts::new(self.engine.resends[index], bytes).stats();
        let window = match &slot.queues {
            Some(queues) if self.engine.recovery.of(index).congestion_control => {
                queues.congestion.window
            }
            _ => 0,
        };
        (stats, window)
    }

    /// `enet_host_channel_limit`.
    pub fn set_channel_limit(&mut self, channel_limit: usize) {
        self.public.channelLimit = match channel_limit {
            0 => ENET_PROTOCOL_MAXIMUM_CHANNEL_COUNT as usize,
            limit => limit.clamp(
                ENET_PROTOCOL_MINIMUM_CHANNEL_COUNT as usize,
                ENET_PROTOCOL_MAXIMUM_CHANNEL_COUNT as usize,
            ),
        };
    }

    /// `enet_host_bandwidth_limit`.
    pub fn set_bandwidth_limit(&mut self, incoming: u32, outgoing: u32) {
        self.public.incomingBandwidth = incoming;
        self.public.outgoingBandwidth = outgoing;
        self.public.recalculateBandwidthLimits = 1;
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        self.shut_down();
    }
}
