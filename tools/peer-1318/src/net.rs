//! The ENet 1.3.18 side of the peer: hosts, sockets, servicing and the
//! few things `peer.c` reads from ENet's structs, on rusty_enet's API.
//!
//! Where rusty_enet (0.4.1) offers something else than stock's C API:
//! * `Host::service` makes one pass (stock's `enet_host_service` with a
//!   timeout of 0); [`service`] repeats it, waiting on the socket with
//!   `poll` in between, until an event or the wait is over, as stock's
//!   timeout does.
//! * The socket is ours: rusty_enet takes any `std::net::UdpSocket`, so
//!   the peer sets the buffers stock's `enet_host_create` sets (256 KiB to
//!   send) and the 4 MiB receive buffer `peer.c` asks for on every host.
//! * The range coder and ENet's CRC32 are rusty_enet's own ports of
//!   stock's (`RangeCoder`, `crc32`), given in `HostSettings`.
//! * A received packet's flags and the host's `connectedPeers` counter
//!   have no accessor (and `Packet::kind` reports `Reliable` for every
//!   packet in 0.4.1: it sets, rather than clears, every bit but `SENT`
//!   before testing), but both structs' `Debug` output prints the field
//!   itself; [`packet_flags`] and [`connected_peers`] read it there, so
//!   the checks test the library's own values, not a guess.

use std::fmt::Debug;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use rusty_enet::{
    crc32, EventNoRef, Host, HostSettings, Packet, PacketKind, PeerID, PeerState, RangeCoder,
};
use socket2::{Domain, Protocol, Socket, Type};

use crate::msg::{self, Msg};
use crate::Options;

/// A host over a UDP socket.
pub type EnetHost = Host<UdpSocket>;

/// ENet's packet flag bits (enet.h), as a receiver finds them.
pub mod flag {
    pub const RELIABLE: u32 = 1;
    pub const UNSEQUENCED: u32 = 2;
    pub const UNRELIABLE_FRAGMENT: u32 = 8;
}

/// What stock's `enet_host_create` asks for the send buffer.
const SEND_BUFFER: usize = 256 * 1024;
/// What `peer.c` sets the receive buffer to on every host (the kernel caps
/// it at net.core.rmem_max): room for a 1 MiB burst of unreliable
/// fragments.
const RECEIVE_BUFFER: usize = 4 * 1024 * 1024;

/// Creates a host: a server bound to 127.0.0.1 (every address with
/// INTEROP_BIND_ANY=1) on a free port, or a client on 127.0.0.1.
pub fn make_host(o: &Options, server: bool, peers: usize, channels: usize) -> EnetHost {
    let bind_any = server && std::env::var("INTEROP_BIND_ANY").as_deref() == Ok("1");
    let ip = if bind_any {
        Ipv4Addr::UNSPECIFIED
    } else {
        Ipv4Addr::LOCALHOST
    };
    let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))
        .unwrap_or_else(|e| fail!("socket: {e}"));
    if let Err(e) = socket.set_send_buffer_size(SEND_BUFFER) {
        fail!("setting the send buffer: {e}");
    }
    if let Err(e) = socket.set_recv_buffer_size(RECEIVE_BUFFER) {
        fail!("setting the receive buffer: {e}");
    }
    if let Err(e) = socket.bind(&SocketAddr::V4(SocketAddrV4::new(ip, 0)).into()) {
        fail!("bind: {e}");
    }
    let limit = (o.bandwidth != 0).then_some(o.bandwidth);
    let settings = HostSettings {
        peer_limit: peers,
        channel_limit: channels,
        incoming_bandwidth_limit: limit,
        outgoing_bandwidth_limit: limit,
        compressor: if o.compress {
            Some(Box::new(RangeCoder::new()))
        } else {
            None
        },
        checksum: if o.checksum {
            Some(Box::new(crc32))
        } else {
            None
        },
        ..HostSettings::default()
    };
    Host::new(UdpSocket::from(socket), settings).unwrap_or_else(|e| fail!("Host::new: {e}"))
}

/// A server host; prints its `PORT` line.
pub fn start_server(o: &Options, peers: usize, channels: usize) -> EnetHost {
    let host = make_host(o, true, peers, channels);
    let port = match host.socket().local_addr() {
        Ok(address) => address.port(),
        Err(e) => fail!("local_addr: {e}"),
    };
    if port == 0 {
        fail!("server port is 0 after binding port 0");
    }
    crate::report::port_line(port);
    host
}

/// Connects a client host to the server on 127.0.0.1 at `--port`.
pub fn connect(host: &mut EnetHost, o: &Options, channels: usize, data: u32) -> PeerID {
    let address = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, o.port));
    match host.connect(address, channels, data) {
        Ok(peer) => peer.id(),
        Err(e) => fail!("Host::connect: {e}"),
    }
}

/// Services `host` until an event, or until `wait` has passed (stock's
/// `enet_host_service(host, &event, wait)`); a zero wait makes one pass.
pub fn service(host: &mut EnetHost, wait: Duration) -> Option<EventNoRef> {
    let until = Instant::now() + wait;
    loop {
        match host.service() {
            Ok(Some(event)) => return Some(event.no_ref()),
            Ok(None) => {}
            Err(e) => fail!("Host::service: {e}"),
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        wait_readable(host.socket(), left);
    }
}

/// Waits until the socket has a datagram or `left` has passed.
fn wait_readable(socket: &UdpSocket, left: Duration) {
    let mut fds = libc::pollfd {
        fd: socket.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = left.as_micros().div_ceil(1000).min(60_000) as libc::c_int;
    // SAFETY: `fds` is one valid, writable pollfd for the whole call and
    // the count passed is 1; the descriptor stays open (the host owns it).
    let r = unsafe { libc::poll(&mut fds, 1, ms) };
    if r < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
        fail!("poll: {}", std::io::Error::last_os_error());
    }
}

/// Keeps servicing for `ms` (acknowledgements still to go out); any event
/// now is a failure.
pub fn linger(host: &mut EnetHost, ms: u64) {
    let until = Instant::now() + Duration::from_millis(ms);
    while Instant::now() < until {
        if let Some(event) = service(host, Duration::from_millis(5)) {
            fail!(
                "unexpected event type {} after the scenario ended",
                event_type(&event)
            );
        }
    }
}

/// Stock's `ENetEventType` number of an event.
pub fn event_type(event: &EventNoRef) -> i32 {
    match event {
        EventNoRef::Connect { .. } => 1,
        EventNoRef::Disconnect { .. } => 2,
        EventNoRef::Receive { .. } => 3,
    }
}

/// Stock's `ENetPeerState` number (the same order in 1.3.17 and 1.3.18).
pub fn state_number(state: PeerState) -> i32 {
    match state {
        PeerState::Disconnected => 0,
        PeerState::Connecting => 1,
        PeerState::AcknowledgingConnect => 2,
        PeerState::ConnectionPending => 3,
        PeerState::ConnectionSucceeded => 4,
        PeerState::Connected => 5,
        PeerState::DisconnectLater => 6,
        PeerState::Disconnecting => 7,
        PeerState::AcknowledgingDisconnect => 8,
        PeerState::Zombie => 9,
    }
}

/// The value of `name` in a struct's `Debug` output (`{ name: N, ...` or
/// `..., name: N`).
fn debug_field(value: &dyn Debug, name: &str) -> Option<u32> {
    let text = format!("{value:?}");
    let rest = [format!("{{ {name}: "), format!(", {name}: ")]
        .iter()
        .find_map(|key| text.find(key.as_str()).map(|at| &text[at + key.len()..]))?;
    let digits = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    digits.parse().ok()
}

/// The host's `connectedPeers` counter.
pub fn connected_peers(host: &EnetHost) -> u32 {
    debug_field(host, "connectedPeers")
        .unwrap_or_else(|| fail!("no connectedPeers in rusty_enet's Debug output of Host"))
}

/// A packet's `flags` field.
pub fn packet_flags(packet: &Packet) -> u32 {
    debug_field(packet, "flags")
        .unwrap_or_else(|| fail!("no flags in rusty_enet's Debug output of Packet"))
}

/// A peer's `packetThrottle` (out of `PEER_PACKET_THROTTLE_SCALE`), for
/// diagnostics.
pub fn packet_throttle(host: &EnetHost, peer: PeerID) -> Option<u32> {
    debug_field(host.peer(peer), "packetThrottle")
}

/// Builds a message of `len` bytes and queues it to `peer` on `channel`.
pub fn send_message(host: &mut EnetHost, peer: PeerID, m: Msg, len: usize, kind: PacketKind) {
    send_packet(host, peer, m, Packet::new(msg::build(len, &m), kind));
}

/// Queues a built packet.
pub fn send_packet(host: &mut EnetHost, peer: PeerID, m: Msg, packet: Packet) {
    if let Err(e) = host.peer_mut(peer).send(m.channel, &packet) {
        fail!(
            "Peer::send(kind {} seq {}, {} bytes) failed: {e}",
            m.kind,
            m.seq,
            packet.data().len()
        );
    }
}

/// A message's identity.
pub fn msg(kind: u8, sender: u8, channel: u8, seq: u32) -> Msg {
    Msg {
        kind,
        sender,
        channel,
        seq,
    }
}

/// Checks every byte of a received packet.
pub fn expect_intact(packet: &Packet, channel: u8) -> Msg {
    msg::parse(packet.data(), channel).unwrap_or_else(|why| {
        fail!(
            "packet of {} bytes on channel {channel}: {why}",
            packet.data().len()
        )
    })
}

/// Checks a received packet's flags.
pub fn expect_flags(packet: &Packet, want: u32, what: &str) {
    let flags = packet_flags(packet);
    if flags != want {
        fail!("{what}: received flags 0x{flags:x}, expected 0x{want:x}");
    }
}

/// `--expect-lib`: peer.c checks which libenet is mapped; this peer runs
/// ENet 1.3.18's protocol code compiled in from rusty_enet and maps none.
/// `none` is the one value that can hold (and is checked); a path cannot,
/// so a driver that mixes up its sides fails here.
pub fn check_loaded_library(expected: Option<&str>) {
    let maps = std::fs::read_to_string("/proc/self/maps")
        .unwrap_or_else(|e| fail!("cannot read /proc/self/maps: {e}"));
    let mapped = maps
        .lines()
        .filter_map(|line| line.find('/').map(|at| &line[at..]))
        .find(|path| path.contains("libenet"));
    let version = rusty_enet::Version::current();
    note!(
        "ENet {}.{}.{} protocol code from rusty_enet (compiled in); libenet mapped from {}",
        version.major,
        version.minor,
        version.patch,
        mapped.unwrap_or("(nowhere)")
    );
    match (expected, mapped) {
        (None, _) | (Some("none"), None) => {}
        (Some("none"), Some(path)) => fail!("expected no libenet but {path} is mapped"),
        (Some(path), _) => fail!(
            "expected libenet {path}, but this peer runs rusty_enet and loads no libenet \
             (--expect-lib none)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flags reader sees what each kind of packet is created with
    /// (rusty_enet adds NO_ALLOCATE, 4, to every packet it wraps).
    #[test]
    fn packet_flags_reads_the_field() {
        let data = || vec![0u8; 4];
        assert_eq!(packet_flags(&Packet::reliable(data())), 4 | flag::RELIABLE);
        assert_eq!(packet_flags(&Packet::unreliable(data())), 4);
        assert_eq!(
            packet_flags(&Packet::unreliable_unsequenced(data())),
            4 | flag::UNSEQUENCED
        );
        assert_eq!(
            packet_flags(&Packet::always_unreliable(data())),
            4 | flag::UNRELIABLE_FRAGMENT
        );
    }

    #[test]
    fn connected_peers_reads_the_counter() {
        let o = Options::for_tests();
        let host = make_host(&o, true, 2, 1);
        assert_eq!(connected_peers(&host), 0);
        assert_eq!(state_number(host.peer(PeerID(1)).state()), 0);
    }

    #[test]
    fn debug_field_needs_the_whole_name() {
        #[derive(Debug)]
        #[allow(dead_code)]
        struct S {
            header_flags: u32,
            flags: u32,
        }
        let s = S {
            header_flags: 7,
            flags: 9,
        };
        assert_eq!(debug_field(&s, "flags"), Some(9));
        assert_eq!(debug_field(&s, "lags"), None);
    }
}
