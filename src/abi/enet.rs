//! `enet/enet.h`: the public structs, enums and constants.
//!
//! Field names, order and types follow ENet 1.3.17 exactly; programs read
//! (and sometimes write) these fields directly, so every field here is the
//! one home of its value.

use core::ffi::{c_int, c_void};

use super::list::{ENetList, ENetListNode};
use super::protocol::{
    ENetProtocol, ENET_PROTOCOL_MAXIMUM_MTU, ENET_PROTOCOL_MAXIMUM_PACKET_COMMANDS,
};
use super::types::{enet_uint16, enet_uint32, enet_uint8};
use super::{ENetBuffer, ENetSocket};

pub const ENET_VERSION_MAJOR: u32 = 1;
pub const ENET_VERSION_MINOR: u32 = 3;
// The release this library identifies as. Debian ships 1.3.17, the
// default; the `identity-1-3-18` feature makes a library for distributions
// that ship upstream's 1.3.18, whose layout and wire are 1.3.17's: only
// this number and ENET_HOST_DEFAULT_MTU differ. gen-headers evaluates the
// feature for each header set (include/enet, include/1.3.18/enet).
#[cfg(not(feature = "identity-1-3-18"))]
pub const ENET_VERSION_PATCH: u32 = 17;
#[cfg(feature = "identity-1-3-18")]
pub const ENET_VERSION_PATCH: u32 = 18;
/// `ENET_VERSION_CREATE(1, 3, ENET_VERSION_PATCH)`: 0x10311 (1.3.17), or
/// 0x10312 with the `identity-1-3-18` feature.
pub const ENET_VERSION: ENetVersion =
    (ENET_VERSION_MAJOR << 16) | (ENET_VERSION_MINOR << 8) | ENET_VERSION_PATCH;

/// A packed major/minor/patch version number.
pub type ENetVersion = enet_uint32;

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ENetSocketType {
    ENET_SOCKET_TYPE_STREAM = 1,
    ENET_SOCKET_TYPE_DATAGRAM = 2,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ENetSocketWait {
    ENET_SOCKET_WAIT_NONE = 0,
    ENET_SOCKET_WAIT_SEND = 1 << 0,
    ENET_SOCKET_WAIT_RECEIVE = 1 << 1,
    ENET_SOCKET_WAIT_INTERRUPT = 1 << 2,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ENetSocketOption {
    ENET_SOCKOPT_NONBLOCK = 1,
    ENET_SOCKOPT_BROADCAST = 2,
    ENET_SOCKOPT_RCVBUF = 3,
    ENET_SOCKOPT_SNDBUF = 4,
    ENET_SOCKOPT_REUSEADDR = 5,
    ENET_SOCKOPT_RCVTIMEO = 6,
    ENET_SOCKOPT_SNDTIMEO = 7,
    ENET_SOCKOPT_ERROR = 8,
    ENET_SOCKOPT_NODELAY = 9,
    /// The IP time to live (hop limit on IPv6 sockets): ENet 1.3.18's
    /// addition, which 1.3.17 refuses.
    ENET_SOCKOPT_TTL = 10,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ENetSocketShutdown {
    ENET_SOCKET_SHUTDOWN_READ = 0,
    ENET_SOCKET_SHUTDOWN_WRITE = 1,
    ENET_SOCKET_SHUTDOWN_READ_WRITE = 2,
}

pub const ENET_HOST_ANY: u32 = 0;
pub const ENET_HOST_BROADCAST: u32 = 0xFFFF_FFFF;
pub const ENET_PORT_ANY: u32 = 0;

/// An IPv4 address: `host` in network byte order, `port` in host byte order.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ENetAddress {
    pub host: enet_uint32,
    pub port: enet_uint16,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ENetPacketFlag {
    ENET_PACKET_FLAG_RELIABLE = 1 << 0,
    ENET_PACKET_FLAG_UNSEQUENCED = 1 << 1,
    ENET_PACKET_FLAG_NO_ALLOCATE = 1 << 2,
    ENET_PACKET_FLAG_UNRELIABLE_FRAGMENT = 1 << 3,
    ENET_PACKET_FLAG_SENT = 1 << 8,
}

/// Called just before a packet is freed.
pub type ENetPacketFreeCallback = Option<unsafe extern "C" fn(packet: *mut ENetPacket)>;

/// A packet: reference-counted data that is queued to, or received from, peers.
#[repr(C)]
#[derive(Debug)]
pub struct ENetPacket {
    pub referenceCount: usize,
    pub flags: enet_uint32,
    pub data: *mut enet_uint8,
    pub dataLength: usize,
    pub freeCallback: ENetPacketFreeCallback,
    pub userData: *mut c_void,
}

#[repr(C)]
pub struct ENetAcknowledgement {
    pub acknowledgementList: ENetListNode,
    pub sentTime: enet_uint32,
    pub command: ENetProtocol,
}

#[repr(C)]
pub struct ENetOutgoingCommand {
    pub outgoingCommandList: ENetListNode,
    pub reliableSequenceNumber: enet_uint16,
    pub unreliableSequenceNumber: enet_uint16,
    pub sentTime: enet_uint32,
    pub roundTripTimeout: enet_uint32,
    pub roundTripTimeoutLimit: enet_uint32,
    pub fragmentOffset: enet_uint32,
    pub fragmentLength: enet_uint16,
    pub sendAttempts: enet_uint16,
    pub command: ENetProtocol,
    pub packet: *mut ENetPacket,
}

#[repr(C)]
pub struct ENetIncomingCommand {
    pub incomingCommandList: ENetListNode,
    pub reliableSequenceNumber: enet_uint16,
    pub unreliableSequenceNumber: enet_uint16,
    pub command: ENetProtocol,
    pub fragmentCount: enet_uint32,
    pub fragmentsRemaining: enet_uint32,
    pub fragments: *mut enet_uint32,
    pub packet: *mut ENetPacket,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ENetPeerState {
    ENET_PEER_STATE_DISCONNECTED = 0,
    ENET_PEER_STATE_CONNECTING = 1,
    ENET_PEER_STATE_ACKNOWLEDGING_CONNECT = 2,
    ENET_PEER_STATE_CONNECTION_PENDING = 3,
    ENET_PEER_STATE_CONNECTION_SUCCEEDED = 4,
    ENET_PEER_STATE_CONNECTED = 5,
    ENET_PEER_STATE_DISCONNECT_LATER = 6,
    ENET_PEER_STATE_DISCONNECTING = 7,
    ENET_PEER_STATE_ACKNOWLEDGING_DISCONNECT = 8,
    ENET_PEER_STATE_ZOMBIE = 9,
}

/// `1 + 2 * ENET_PROTOCOL_MAXIMUM_PACKET_COMMANDS`: a header buffer plus a
/// command and a payload buffer per command.
pub const ENET_BUFFER_MAXIMUM: u32 = 1 + 2 * ENET_PROTOCOL_MAXIMUM_PACKET_COMMANDS;

pub const ENET_HOST_RECEIVE_BUFFER_SIZE: u32 = 256 * 1024;
pub const ENET_HOST_SEND_BUFFER_SIZE: u32 = 256 * 1024;
pub const ENET_HOST_BANDWIDTH_THROTTLE_INTERVAL: u32 = 1000;
// A new host's MTU, where each of its connections starts (a server then
// takes the client's offer, or under 1.3.18's rules caps it at its own;
// a client takes the server's answer if smaller): 1.3.17's 1400 by
// default. Upstream 1.3.18 lowered it to 1392 so that datagrams
// pass some VPNs; its identity takes that value. Plain comments here, not
// docs: cbindgen would copy docs into enet.h.
#[cfg(not(feature = "identity-1-3-18"))]
pub const ENET_HOST_DEFAULT_MTU: u32 = 1400;
#[cfg(feature = "identity-1-3-18")]
pub const ENET_HOST_DEFAULT_MTU: u32 = 1392;
pub const ENET_HOST_DEFAULT_MAXIMUM_PACKET_SIZE: u32 = 32 * 1024 * 1024;
pub const ENET_HOST_DEFAULT_MAXIMUM_WAITING_DATA: u32 = 32 * 1024 * 1024;
pub const ENET_PEER_DEFAULT_ROUND_TRIP_TIME: u32 = 500;
pub const ENET_PEER_DEFAULT_PACKET_THROTTLE: u32 = 32;
pub const ENET_PEER_PACKET_THROTTLE_SCALE: u32 = 32;
pub const ENET_PEER_PACKET_THROTTLE_COUNTER: u32 = 7;
pub const ENET_PEER_PACKET_THROTTLE_ACCELERATION: u32 = 2;
pub const ENET_PEER_PACKET_THROTTLE_DECELERATION: u32 = 2;
pub const ENET_PEER_PACKET_THROTTLE_INTERVAL: u32 = 5000;
pub const ENET_PEER_PACKET_LOSS_SCALE: u32 = 1 << 16;
pub const ENET_PEER_PACKET_LOSS_INTERVAL: u32 = 10000;
pub const ENET_PEER_WINDOW_SIZE_SCALE: u32 = 64 * 1024;
pub const ENET_PEER_TIMEOUT_LIMIT: u32 = 32;
pub const ENET_PEER_TIMEOUT_MINIMUM: u32 = 5000;
pub const ENET_PEER_TIMEOUT_MAXIMUM: u32 = 30000;
pub const ENET_PEER_PING_INTERVAL: u32 = 500;
pub const ENET_PEER_UNSEQUENCED_WINDOWS: u32 = 64;
pub const ENET_PEER_UNSEQUENCED_WINDOW_SIZE: u32 = 1024;
pub const ENET_PEER_FREE_UNSEQUENCED_WINDOWS: u32 = 32;
pub const ENET_PEER_RELIABLE_WINDOWS: u32 = 16;
pub const ENET_PEER_RELIABLE_WINDOW_SIZE: u32 = 0x1000;
pub const ENET_PEER_FREE_RELIABLE_WINDOWS: u32 = 8;

/// `ENET_PEER_UNSEQUENCED_WINDOW_SIZE / 32`: the 32-bit words of a peer's
/// unsequenced-window bitmap. Named so the header generator (which reads
/// array lengths as a literal or a name) can spell the length as stock does.
const UNSEQUENCED_WINDOW_WORDS: u32 = ENET_PEER_UNSEQUENCED_WINDOW_SIZE / 32;

/// Per-channel sequencing state.
#[repr(C)]
pub struct ENetChannel {
    pub outgoingReliableSequenceNumber: enet_uint16,
    pub outgoingUnreliableSequenceNumber: enet_uint16,
    pub usedReliableWindows: enet_uint16,
    pub reliableWindows: [enet_uint16; ENET_PEER_RELIABLE_WINDOWS as usize],
    pub incomingReliableSequenceNumber: enet_uint16,
    pub incomingUnreliableSequenceNumber: enet_uint16,
    pub incomingReliableCommands: ENetList,
    pub incomingUnreliableCommands: ENetList,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ENetPeerFlag {
    ENET_PEER_FLAG_NEEDS_DISPATCH = 1 << 0,
}

/// A remote end of a connection, one slot of `host->peers`.
#[repr(C)]
pub struct ENetPeer {
    pub dispatchList: ENetListNode,
    pub host: *mut ENetHost,
    pub outgoingPeerID: enet_uint16,
    pub incomingPeerID: enet_uint16,
    pub connectID: enet_uint32,
    pub outgoingSessionID: enet_uint8,
    pub incomingSessionID: enet_uint8,
    pub address: ENetAddress,
    pub data: *mut c_void,
    pub state: ENetPeerState,
    pub channels: *mut ENetChannel,
    pub channelCount: usize,
    pub incomingBandwidth: enet_uint32,
    pub outgoingBandwidth: enet_uint32,
    pub incomingBandwidthThrottleEpoch: enet_uint32,
    pub outgoingBandwidthThrottleEpoch: enet_uint32,
    pub incomingDataTotal: enet_uint32,
    pub outgoingDataTotal: enet_uint32,
    pub lastSendTime: enet_uint32,
    pub lastReceiveTime: enet_uint32,
    pub nextTimeout: enet_uint32,
    pub earliestTimeout: enet_uint32,
    pub packetLossEpoch: enet_uint32,
    pub packetsSent: enet_uint32,
    pub packetsLost: enet_uint32,
    pub packetLoss: enet_uint32,
    pub packetLossVariance: enet_uint32,
    pub packetThrottle: enet_uint32,
    pub packetThrottleLimit: enet_uint32,
    pub packetThrottleCounter: enet_uint32,
    pub packetThrottleEpoch: enet_uint32,
    pub packetThrottleAcceleration: enet_uint32,
    pub packetThrottleDeceleration: enet_uint32,
    pub packetThrottleInterval: enet_uint32,
    pub pingInterval: enet_uint32,
    pub timeoutLimit: enet_uint32,
    pub timeoutMinimum: enet_uint32,
    pub timeoutMaximum: enet_uint32,
    pub lastRoundTripTime: enet_uint32,
    pub lowestRoundTripTime: enet_uint32,
    pub lastRoundTripTimeVariance: enet_uint32,
    pub highestRoundTripTimeVariance: enet_uint32,
    pub roundTripTime: enet_uint32,
    pub roundTripTimeVariance: enet_uint32,
    pub mtu: enet_uint32,
    pub windowSize: enet_uint32,
    pub reliableDataInTransit: enet_uint32,
    pub outgoingReliableSequenceNumber: enet_uint16,
    pub acknowledgements: ENetList,
    pub sentReliableCommands: ENetList,
    pub sentUnreliableCommands: ENetList,
    pub outgoingCommands: ENetList,
    pub dispatchedCommands: ENetList,
    pub flags: enet_uint16,
    pub reserved: enet_uint16,
    pub incomingUnsequencedGroup: enet_uint16,
    pub outgoingUnsequencedGroup: enet_uint16,
    pub unsequencedWindow: [enet_uint32; UNSEQUENCED_WINDOW_WORDS as usize],
    pub eventData: enet_uint32,
    pub totalWaitingData: usize,
}

/// A pluggable datagram compressor.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ENetCompressor {
    pub context: *mut c_void,
    pub compress: Option<
        unsafe extern "C" fn(
            context: *mut c_void,
            inBuffers: *const ENetBuffer,
            inBufferCount: usize,
            inLimit: usize,
            outData: *mut enet_uint8,
            outLimit: usize,
        ) -> usize,
    >,
    pub decompress: Option<
        unsafe extern "C" fn(
            context: *mut c_void,
            inData: *const enet_uint8,
            inLimit: usize,
            outData: *mut enet_uint8,
            outLimit: usize,
        ) -> usize,
    >,
    pub destroy: Option<unsafe extern "C" fn(context: *mut c_void)>,
}

/// Computes a datagram checksum over `bufferCount` buffers.
pub type ENetChecksumCallback =
    Option<unsafe extern "C" fn(buffers: *const ENetBuffer, bufferCount: usize) -> enet_uint32>;

/// Sees every received datagram first: 1 consumed, 0 continue, -1 error.
pub type ENetInterceptCallback =
    Option<unsafe extern "C" fn(host: *mut ENetHost, event: *mut ENetEvent) -> c_int>;

/// A local endpoint and its peers.
#[repr(C)]
pub struct ENetHost {
    pub socket: ENetSocket,
    pub address: ENetAddress,
    pub incomingBandwidth: enet_uint32,
    pub outgoingBandwidth: enet_uint32,
    pub bandwidthThrottleEpoch: enet_uint32,
    pub mtu: enet_uint32,
    pub randomSeed: enet_uint32,
    pub recalculateBandwidthLimits: c_int,
    pub peers: *mut ENetPeer,
    pub peerCount: usize,
    pub channelLimit: usize,
    pub serviceTime: enet_uint32,
    pub dispatchQueue: ENetList,
    pub continueSending: c_int,
    pub packetSize: usize,
    pub headerFlags: enet_uint16,
    pub commands: [ENetProtocol; ENET_PROTOCOL_MAXIMUM_PACKET_COMMANDS as usize],
    pub commandCount: usize,
    pub buffers: [ENetBuffer; ENET_BUFFER_MAXIMUM as usize],
    pub bufferCount: usize,
    pub checksum: ENetChecksumCallback,
    pub compressor: ENetCompressor,
    pub packetData: [[enet_uint8; ENET_PROTOCOL_MAXIMUM_MTU as usize]; 2],
    pub receivedAddress: ENetAddress,
    pub receivedData: *mut enet_uint8,
    pub receivedDataLength: usize,
    pub totalSentData: enet_uint32,
    pub totalSentPackets: enet_uint32,
    pub totalReceivedData: enet_uint32,
    pub totalReceivedPackets: enet_uint32,
    pub intercept: ENetInterceptCallback,
    pub connectedPeers: usize,
    pub bandwidthLimitedPeers: usize,
    pub duplicatePeers: usize,
    pub maximumPacketSize: usize,
    pub maximumWaitingData: usize,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ENetEventType {
    ENET_EVENT_TYPE_NONE = 0,
    ENET_EVENT_TYPE_CONNECT = 1,
    ENET_EVENT_TYPE_DISCONNECT = 2,
    ENET_EVENT_TYPE_RECEIVE = 3,
}

/// What `enet_host_service` reports.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ENetEvent {
    pub r#type: ENetEventType,
    pub peer: *mut ENetPeer,
    pub channelID: enet_uint8,
    pub data: enet_uint32,
    pub packet: *mut ENetPacket,
}

/// An `ENetSocketType` as C code passes it. Entry points take the raw
/// `int` so that an out-of-range value is an error, not undefined
/// behaviour; the header still spells the parameter `ENetSocketType`.
pub type ENetSocketTypeValue = c_int;
/// An `ENetSocketOption` as C code passes it (see [`ENetSocketTypeValue`]).
pub type ENetSocketOptionValue = c_int;
/// An `ENetSocketShutdown` as C code passes it (see [`ENetSocketTypeValue`]).
pub type ENetSocketShutdownValue = c_int;
