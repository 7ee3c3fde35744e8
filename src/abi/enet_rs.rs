//! The C types of enet-rs's extensions (`enet/enet_rs.h`): what stock ENet
//! 1.3.17 has no type for. None of them appears in a stock struct.

/// The extension set this library offers; `enet_rs_version()` returns the
/// same number at run time. 1: loss recovery settings and statistics.
/// 2: IPv6 and dual-stack hosts, hosts sharing a port, and thread-safe
/// sending. 3: encrypted hosts (DTLS). 4: the network conditioner.
/// 5: what games ask for: disconnect reasons and the time-out event,
/// long and pausable timeouts, host and peer counters, a send limit,
/// path MTU discovery, and a wait handle with the next deadline.
pub const ENET_RS_VERSION: u32 = 5;

/// `ENetPeer::address.host` (and `ENetHost::receivedAddress.host`) of an
/// IPv6 peer: 0.0.0.0, with the peer's real port beside it. Old code can
/// read, print and compare it; `enet_rs_peer_get_address` gives the whole
/// address.
pub const ENET_RS_IPV6_PLACEHOLDER_HOST: u32 = 0;

/// The family of an `ENetRsAddress`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ENetRsAddressFamily {
    /// `host[0..4]` holds an IPv4 address.
    ENET_RS_ADDRESS_IPV4 = 4,
    /// `host` holds an IPv6 address (an IPv4-mapped one, `::ffff:a.b.c.d`,
    /// stands for that IPv4 address).
    ENET_RS_ADDRESS_IPV6 = 6,
}

/// An IPv4 or IPv6 address and port.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ENetRsAddress {
    /// The address in network byte order: an IPv4 one in the first four
    /// bytes (the rest zero), an IPv6 one in all sixteen.
    pub host: [u8; 16],
    /// In host byte order, as `ENetAddress::port`.
    pub port: u16,
    /// `ENET_RS_ADDRESS_IPV4` or `ENET_RS_ADDRESS_IPV6`.
    pub family: u16,
    /// An IPv6 link-local address's interface index (0: none).
    pub scopeId: u32,
}

/// A peer as other threads name it (`enet_rs_peer_handle`): its slot and
/// the slot's generation, so a handle of a peer that has left never
/// reaches the next peer in its slot.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ENetRsPeerHandle {
    /// The peer's slot in `host->peers`.
    pub index: u32,
    /// 0 names no peer.
    pub generation: u32,
}

/// `ENetRsHostOptions::flags`: an IPv6 host takes no IPv4 peers (without
/// it an IPv6 host is dual-stack).
pub const ENET_RS_HOST_IPV6_ONLY: u32 = 1;
/// `ENetRsHostOptions::flags`: the host's port may be shared with other
/// hosts that ask for it too (`SO_REUSEPORT`); the kernel spreads clients
/// over them by address, so each client stays with one host.
pub const ENET_RS_HOST_REUSE_PORT: u32 = 2;

/// How `enet_rs_host_create` makes a host.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ENetRsHostOptions {
    /// Where to bind: an IPv4 or IPv6 address (`::` is every address of
    /// both families). NULL binds `::` with a port the system picks, as a
    /// client does.
    pub address: *const ENetRsAddress,
    /// Peer slots, at most 4095.
    pub peerCount: usize,
    /// Channels per peer at most (0: the maximum), as `enet_host_create`.
    pub channelLimit: usize,
    /// Bytes per second (0: unlimited), as `enet_host_create`.
    pub incomingBandwidth: u32,
    /// Bytes per second (0: unlimited), as `enet_host_create`.
    pub outgoingBandwidth: u32,
    /// `ENET_RS_HOST_*` flags.
    pub flags: u32,
}

/// Ready-made loss-recovery settings (see `enet_rs_loss_recovery_preset`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ENetRsLossRecoveryMode {
    /// Stock ENet 1.3.17's retransmission, exactly.
    ENET_RS_LOSS_RECOVERY_STOCK = 0,
    /// A host's default: stock's timeouts (a silent peer is dropped when
    /// stock would drop it), plus extra copies of a reliable command when
    /// its own timeout passes while it waits behind an older one, and once
    /// three commands sent after it are acknowledged.
    ENET_RS_LOSS_RECOVERY_DEFAULT = 1,
    /// Everything on: each command resent on its own timeout and once two
    /// later ones are acknowledged, timeouts growing x1.5 from at least
    /// 30 ms (not growing for a thin stream's first six resends), a
    /// congestion window instead of the fixed 64 KiB one, and every
    /// acknowledgement sent twice. Timeouts are no longer stock's.
    ENET_RS_LOSS_RECOVERY_FAST = 2,
}

/// How a host's or a peer's reliable commands are recovered when lost.
/// Every field is a plain number; 0 turns a feature off.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ENetRsLossRecovery {
    /// Nonzero: each reliable command is retransmitted when its own timeout
    /// passes, not only when the oldest one's does.
    pub perCommandDeadlines: u32,
    /// Resend a reliable command once this many commands sent after it
    /// have been acknowledged (0: off; at most 255).
    pub fastResend: u32,
    /// Nonzero: the two options above send extra copies and leave stock's
    /// timeout bookkeeping (and so when a silent peer is dropped) alone.
    pub keepStockTimeouts: u32,
    /// Timeout growth per retransmission in percent: 200 doubles (stock),
    /// 150 is x1.5; values under 100 count as 100.
    pub backoffPercent: u32,
    /// Lowest first retransmission timeout in milliseconds (0: none).
    pub minimumTimeout: u32,
    /// Nonzero: a congestion window paces reliable data instead of stock's
    /// fixed window.
    pub congestionControl: u32,
    /// While no more than this many reliable commands are in flight, a
    /// timeout does not grow for a command's first six resends (0: off).
    pub thinStreamCommands: u32,
    /// Nonzero: each acknowledgement is sent twice, the second time in a
    /// datagram of its own, so a lost acknowledgement rarely costs a
    /// resend. A peer takes the second as a duplicate.
    pub repeatAcknowledgements: u32,
}

/// What a peer's loss recovery did since the peer was last reset.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ENetRsPeerStats {
    /// Reliable commands sent again (as themselves or as copies): the sum
    /// of the two counts below.
    pub retransmittedCommands: u64,
    /// Payload bytes of those.
    pub retransmittedBytes: u64,
    /// Of those, sent early, once later commands were acknowledged. Stops
    /// at 4294967295 (as does `timeouts`), while the bytes go on counting.
    pub fastRetransmits: u64,
    /// Of those, sent when a timeout passed.
    pub timeouts: u64,
    /// The congestion window in bytes (0 when congestion control is off or
    /// the peer has been idle).
    pub congestionWindow: u32,
}

/// How far a peer's encryption has got (`enet_rs_peer_get_dtls_state`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ENetRsDtlsState {
    /// The host does not encrypt, or has no session with the peer's
    /// address (yet, or any more).
    ENET_RS_DTLS_NONE = 0,
    /// The DTLS handshake is under way; ENet's own datagrams wait for it.
    ENET_RS_DTLS_HANDSHAKING = 1,
    /// The session is up: everything to and from the peer is encrypted.
    ENET_RS_DTLS_ESTABLISHED = 2,
    /// The handshake or the session failed (the reason says how), and the
    /// peer was disconnected.
    ENET_RS_DTLS_FAILED = 3,
}

/// What one direction of a host's network conditioner did, in datagrams
/// (`ENetRsNetsimStats`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ENetRsNetsimDirection {
    /// Datagrams that entered this direction.
    pub datagrams: u64,
    /// Copies that left it (sent, or handed to the host).
    pub released: u64,
    /// Lost to the loss setting (`loss`, `burst`).
    pub dropped: u64,
    /// Held for any time (`lag`, `jitter`, `reorder`, the rate cap's queue).
    pub delayed: u64,
    /// Sent twice (`dup`).
    pub duplicated: u64,
    /// Held back so later datagrams overtake them (`reorder`).
    pub reordered: u64,
    /// With one bit flipped (`corrupt`).
    pub corrupted: u64,
    /// Dropped at the rate cap's full queue (`rate`, `queue`).
    pub rateDropped: u64,
}

/// Both directions of a host's network conditioner
/// (`enet_rs_host_netsim_stats`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ENetRsNetsimStats {
    /// What the host sent.
    pub outgoing: ENetRsNetsimDirection,
    /// What the host received.
    pub incoming: ENetRsNetsimDirection,
}

// ---- host and peer counters ----

/// Why a received datagram was dropped, or cut short after some of its
/// commands: the index of its counter in `ENetRsHostStats::dropped`. Each
/// datagram counts once, under the reason it stopped at. Numbers are never
/// reused; a later version may add reasons below
/// `ENET_RS_DROP_REASON_SLOTS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ENetRsDropReason {
    /// Shorter than its header (2 bytes, 4 with a sent time, 4 more with a
    /// checksum).
    ENET_RS_DROP_TRUNCATED = 0,
    /// Its peer id names no slot of the host.
    ENET_RS_DROP_BAD_PEER_ID = 1,
    /// Its peer slot is not connected (free, or a zombie).
    ENET_RS_DROP_PEER_NOT_CONNECTED = 2,
    /// It came from another address than the peer's.
    ENET_RS_DROP_ADDRESS_MISMATCH = 3,
    /// Its session bits are not the peer's current session's.
    ENET_RS_DROP_SESSION_MISMATCH = 4,
    /// It is compressed and the host has no compressor.
    ENET_RS_DROP_NO_DECOMPRESSOR = 5,
    /// Its decompression failed or did not fit.
    ENET_RS_DROP_DECOMPRESSION_FAILED = 6,
    /// Its checksum is wrong (a host with a checksum callback).
    ENET_RS_DROP_BAD_CHECKSUM = 7,
    /// A command runs past the datagram's end.
    ENET_RS_DROP_TRUNCATED_COMMAND = 8,
    /// A command number no command has (0, 13 to 15).
    ENET_RS_DROP_UNKNOWN_COMMAND = 9,
    /// A command's payload length runs past the datagram's end.
    ENET_RS_DROP_PAYLOAD_OUT_OF_BOUNDS = 10,
    /// Kept for a payload above the host's `maximumPacketSize`; this
    /// version counts such a command as `ENET_RS_DROP_COMMAND_REJECTED`.
    ENET_RS_DROP_PAYLOAD_TOO_LARGE = 11,
    /// A command other than CONNECT from an address with no peer, or a
    /// CONNECT the host refused or already had.
    ENET_RS_DROP_NO_PEER_FOR_COMMAND = 12,
    /// A command to acknowledge in a datagram without a sent time.
    ENET_RS_DROP_MISSING_SENT_TIME = 13,
    /// A command the peer's state refused (wrong channel or state, out of
    /// the window, a payload above `maximumPacketSize`, a malformed
    /// fragment, no room in the waiting-data or reassembly budget).
    ENET_RS_DROP_COMMAND_REJECTED = 14,
    /// Longer than ENet's largest datagram (4096 bytes): skipped by the
    /// socket layer.
    ENET_RS_DROP_OVERSIZED = 15,
    /// It ended its address's DTLS session with an error.
    ENET_RS_DROP_DTLS_FAILED = 16,
    /// On an established DTLS session, it yielded nothing: a record that
    /// failed authentication or decryption, a replay, or no record at all.
    ENET_RS_DROP_DTLS_DISCARDED = 17,
    /// From an address with no DTLS session, and no ClientHello a server
    /// answers.
    ENET_RS_DROP_DTLS_NO_SESSION = 18,
}

/// How many reasons this version counts (the highest number plus one).
pub const ENET_RS_DROP_REASON_COUNT: u32 = 19;
/// The length of `ENetRsHostStats::dropped`: room for reasons to come.
pub const ENET_RS_DROP_REASON_SLOTS: usize = 32;

/// What a host counted since it was created (`enet_rs_host_get_stats`).
/// Set `size` to `sizeof(ENetRsHostStats)` before the call: a later
/// library fills only that much (and adds fields at the end only), and
/// sets `size` to what it filled. Every field is 64 or 32 bits wide, so
/// the layout is the same on every platform.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ENetRsHostStats {
    /// The caller's `sizeof(ENetRsHostStats)`; on return, the bytes filled.
    pub size: u64,
    /// ENet datagrams the protocol handled, and their bytes (decrypted, for
    /// an encrypted host; those dropped below the protocol, counted as
    /// `ENET_RS_DROP_OVERSIZED` and the `DTLS` reasons, are not in here).
    pub datagramsReceived: u64,
    pub bytesReceived: u64,
    /// ENet datagrams the host sent, and their bytes (before encryption).
    pub datagramsSent: u64,
    pub bytesSent: u64,
    /// Received datagrams the intercept callback consumed.
    pub datagramsIntercepted: u64,
    /// Incoming connects given a peer.
    pub connectsAccepted: u64,
    /// Incoming connects refused: bad channel count, `duplicatePeers`
    /// reached, no slot free, no memory.
    pub connectsRefused: u64,
    /// Half-open peers (connects whose handshake had not completed) reset
    /// to free their slot for a newer connect: a flood of connects.
    pub connectsEvicted: u64,
    /// Fragment reassemblies dropped to stay within the host's reassembly
    /// budget.
    pub reassembliesEvicted: u64,
    /// Of those, reliable ones, whose peer was disconnected for it.
    pub reassemblyPeersLost: u64,
    /// Fragments refused because the budget had no room even after
    /// evicting (each also stops its datagram as
    /// `ENET_RS_DROP_COMMAND_REJECTED`).
    pub fragmentsOverBudget: u64,
    /// DTLS sessions the host keeps now, handshaking or established.
    pub dtlsSessions: u64,
    /// Datagrams the network conditioner dropped, both directions (its
    /// loss and its rate cap; 0 without one). Its counts start again when
    /// it is replaced.
    pub netsimDropped: u64,
    /// Dropped datagrams, by `ENetRsDropReason`.
    pub dropped: [u64; ENET_RS_DROP_REASON_SLOTS],
}

/// `sizeof(ENetRsHostStats)` in its first version: the least `size`
/// `enet_rs_host_get_stats` takes.
pub const ENET_RS_HOST_STATS_SIZE_V1: usize = 368;

/// What a peer has queued and in flight, and how its link fares
/// (`enet_rs_peer_get_counters`). Set `size` to
/// `sizeof(ENetRsPeerCounters)` before the call, as for `ENetRsHostStats`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ENetRsPeerCounters {
    /// The caller's `sizeof(ENetRsPeerCounters)`; on return, the bytes
    /// filled.
    pub size: u64,
    /// Commands queued to send (pings and other control commands
    /// included, acknowledgements not), and the payload bytes they carry.
    pub queuedCommands: u64,
    pub queuedBytes: u64,
    /// Reliable commands sent and not yet acknowledged.
    pub inFlightCommands: u64,
    /// Their bytes, as the reliable window counts them
    /// (`reliableDataInTransit`).
    pub inFlightBytes: u64,
    /// Reliable commands sent again (as `enet_rs_peer_get_stats`
    /// counts them), and their payload bytes.
    pub resends: u64,
    pub resentBytes: u64,
    /// Of those, sent early on later acknowledgements, and on a timeout.
    pub fastRetransmits: u64,
    pub timeouts: u64,
    /// Smoothed round-trip time and its variance, in ms.
    pub roundTripTime: u32,
    pub roundTripTimeVariance: u32,
    /// The lowest round trip of the current throttle interval, in ms.
    pub lowestRoundTripTime: u32,
    /// Mean reliable-packet loss and its variance, scaled so that 65536
    /// is all (`packetLoss`, `packetLossVariance`).
    pub packetLoss: u32,
    pub packetLossVariance: u32,
    /// The throttle: unreliable packets sent out of 32.
    pub packetThrottle: u32,
    /// The congestion window in bytes (0 when congestion control is off).
    pub congestionWindow: u32,
    /// The peer's MTU.
    pub mtu: u32,
}

/// `sizeof(ENetRsPeerCounters)` in its first version: the least `size`
/// `enet_rs_peer_get_counters` takes.
pub const ENET_RS_PEER_COUNTERS_SIZE_V1: usize = 104;

const _: () = assert!(core::mem::size_of::<ENetRsHostStats>() == ENET_RS_HOST_STATS_SIZE_V1);
const _: () = assert!(core::mem::size_of::<ENetRsPeerCounters>() == ENET_RS_PEER_COUNTERS_SIZE_V1);
// ---- disconnect reasons ----

/// Why a peer's connection ended (`ENetRsDisconnectReason::kind`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ENetRsDisconnectKind {
    /// The remote end disconnected; `data` is what it passed to its
    /// disconnect call.
    ENET_RS_DISCONNECT_REMOTE = 1,
    /// The remote end stopped acknowledging (also while our own disconnect
    /// waited for its acknowledgement).
    ENET_RS_DISCONNECT_TIMEOUT = 2,
    /// Our own disconnect finished: the remote end acknowledged it, or
    /// `enet_peer_disconnect_now` (or a disconnect of a peer not yet
    /// connected) dropped the peer at once.
    ENET_RS_DISCONNECT_LOCAL = 3,
    /// The program called `enet_peer_reset`.
    ENET_RS_DISCONNECT_LOCAL_RESET = 4,
    /// Our connect was refused: the server's answer did not match it
    /// (`data` 0), or the server disconnected before the connection was
    /// reported (`data` is what it passed).
    ENET_RS_DISCONNECT_CONNECT_REFUSED = 5,
    /// Nothing answered our connect.
    ENET_RS_DISCONNECT_CONNECT_UNANSWERED = 6,
    /// The encrypted session failed or closed; the detail says why.
    ENET_RS_DISCONNECT_ENCRYPTION_FAILED = 7,
    /// A reliable fragment reassembly of the peer was dropped to keep the
    /// host within its reassembly budget.
    ENET_RS_DISCONNECT_REASSEMBLY_BUDGET = 8,
    /// A half-open peer (a connect not yet acknowledged) whose slot a newer
    /// connect took when every slot was in use. The program never saw this
    /// peer, and its slot holds the newcomer at once, so no call reports
    /// this kind today; it is reserved so the numbering stays.
    ENET_RS_DISCONNECT_HALF_OPEN_EVICTED = 9,
}

/// Why a peer's connection ended (`enet_rs_peer_get_disconnect_reason`).
/// The caller sets `size` to `sizeof (ENetRsDisconnectReason)`; fields
/// added in later versions go after these, and are filled only for a
/// caller whose `size` covers them (as `ENetRsHostStats`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ENetRsDisconnectReason {
    /// In: the size of the caller's struct. Out: the bytes filled.
    pub size: u64,
    /// An `ENetRsDisconnectKind`.
    pub kind: u32,
    /// For `ENET_RS_DISCONNECT_REMOTE` and `_CONNECT_REFUSED`, the data the
    /// remote end's DISCONNECT carried; 0 otherwise.
    pub data: u32,
}

/// The size of the first version of `ENetRsDisconnectReason`: the least
/// `size` `enet_rs_peer_get_disconnect_reason` accepts.
pub const ENET_RS_DISCONNECT_REASON_SIZE_V1: usize = 16;
const _: () =
    assert!(core::mem::size_of::<ENetRsDisconnectReason>() == ENET_RS_DISCONNECT_REASON_SIZE_V1);

/// `enet_rs_host_set_event_options` flag: a DISCONNECT that is a time-out
/// (of the connection, or of our connect that nothing answered) is
/// reported as `ENET_RS_EVENT_TYPE_DISCONNECT_TIMEOUT`.
pub const ENET_RS_EVENT_OPTION_TIMEOUT_EVENTS: u32 = 1;

/// The `ENetEvent::type` of a time-out with
/// `ENET_RS_EVENT_OPTION_TIMEOUT_EVENTS` on: zpl-c/enet's
/// `ENET_EVENT_TYPE_DISCONNECT_TIMEOUT`, numbered as there. A host without
/// the option never reports it.
pub const ENET_RS_EVENT_TYPE_DISCONNECT_TIMEOUT: u32 = 4;
// ---- wait handle ----

/// What `enet_rs_host_next_deadline_ms` returns for a host with no timer
/// armed: wait on the host's handle without a timeout.
pub const ENET_RS_NO_DEADLINE: u32 = u32::MAX;
