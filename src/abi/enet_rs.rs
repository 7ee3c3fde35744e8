//! The C types of enet-rs's extensions (`enet/enet_rs.h`): what stock ENet
//! 1.3.17 has no type for. None of them appears in a stock struct.

/// The extension set this library offers; `enet_rs_version()` returns the
/// same number at run time. 1: loss recovery settings and statistics.
/// 2: IPv6 and dual-stack hosts, hosts sharing a port, and thread-safe
/// sending. 3: encrypted hosts (DTLS). 4: the network conditioner.
pub const ENET_RS_VERSION: u32 = 4;

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

// ---- wait handle ----

/// What `enet_rs_host_next_deadline_ms` returns for a host with no timer
/// armed: wait on the host's handle without a timeout.
pub const ENET_RS_NO_DEADLINE: u32 = u32::MAX;
