//! [`HostBuilder`]: the one way a host is made, for the C library and the
//! safe Rust API alike, on a socket ([`BoundSocket`]) opened for it.

use core::ptr;
use std::io;
use std::net::SocketAddr;

use super::seed::random_seed;
use super::{Endpoint, Housed};
use crate::abi::{ENetAddress, ENetSocket};
use crate::config::{LossRecoveryPreset, ProcessSwitches, Switches};
use crate::mem::pool::{self, PoolSwitches};
use crate::mem::CBox;
use crate::net::clock;
use crate::net::host_socket::{self, HostSocketOptions, SocketFamily};
use crate::net::netsim::Conditioner;
use crate::net::socket;
use crate::net::transport::SocketIo;
use crate::proto::host::{set_up_public, Engine};
use crate::proto::{Host, HostSettings, LossRecovery};

/// A host's socket, open and bound, that no host owns yet. Dropped (a
/// host that cannot be made, or a panic on the way, which the C entry
/// points' guard catches) it closes the socket; a host made on it takes
/// it over.
pub struct BoundSocket {
    socket: ENetSocket,
    family: SocketFamily,
    /// What the host's public `address` field shows.
    shown: ENetAddress,
}

impl BoundSocket {
    /// Takes over `socket`, bound already, which reaches `family`; the
    /// host shows `shown` as its address.
    pub fn new(socket: ENetSocket, family: SocketFamily, shown: ENetAddress) -> BoundSocket {
        BoundSocket {
            socket,
            family,
            shown,
        }
    }

    /// Stock's IPv4 socket for `enet_host_create`, bound to `address` if
    /// there is one; `None` if it cannot be made or bound.
    pub fn stock(address: Option<&ENetAddress>) -> Option<BoundSocket> {
        let (socket, shown) = host_socket::open_stock(address)?;
        Some(BoundSocket::new(socket, SocketFamily::Ipv4, shown))
    }

    /// A socket as `options` say, and the address it is bound to; the
    /// host shows what `shown` makes of that address.
    pub fn open(
        options: &HostSocketOptions,
        shown: impl FnOnce(&SocketAddr) -> ENetAddress,
    ) -> io::Result<(BoundSocket, SocketAddr)> {
        let (socket, family, bound) = host_socket::open(options)?;
        Ok((BoundSocket::new(socket, family, shown(&bound)), bound))
    }

    /// The socket, now owned by a host.
    fn hand_over(self) -> ENetSocket {
        let socket = self.socket;
        core::mem::forget(self);
        socket
    }
}

impl Drop for BoundSocket {
    fn drop(&mut self) {
        socket::destroy(self.socket);
    }
}

/// How a host is made: its peers, channels and bandwidths, the switches
/// it takes, and its seed. Every host of either API is built here.
#[derive(Clone, Debug)]
pub struct HostBuilder {
    peer_count: usize,
    channel_limit: usize,
    incoming_bandwidth: u32,
    outgoing_bandwidth: u32,
    switches: Switches,
    seed: Option<u32>,
}

impl HostBuilder {
    /// A host with `peer_count` peer slots (at most 4095), the channel
    /// limit stock's 0 asks for (the most), no bandwidth limits, every
    /// switch at its default and a random seed.
    pub fn new(peer_count: usize) -> HostBuilder {
        HostBuilder {
            peer_count,
            channel_limit: 0,
            incoming_bandwidth: 0,
            outgoing_bandwidth: 0,
            switches: Switches::default(),
            seed: None,
        }
    }

    /// Channels a peer may open at most (0 for the protocol's most; others
    /// are clamped to the protocol's range).
    pub fn channel_limit(mut self, channel_limit: usize) -> Self {
        self.channel_limit = channel_limit;
        self
    }

    /// Bytes per second the host takes in and sends, 0 for no limit.
    pub fn bandwidth(mut self, incoming: u32, outgoing: u32) -> Self {
        self.incoming_bandwidth = incoming;
        self.outgoing_bandwidth = outgoing;
        self
    }

    /// The switches the host takes (`Switches::from_env()` for the
    /// environment's, parsed now).
    pub fn switches(mut self, switches: Switches) -> Self {
        self.switches = switches;
        self
    }

    /// A fixed seed for the host's connect ids, instead of a random one.
    pub fn seed(mut self, seed: u32) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The host on `socket`, attached and ready, in hook-allocated memory;
    /// `None` (the socket closed) for too many peers or when allocation
    /// fails.
    pub fn build(self, socket: BoundSocket) -> Option<CBox<Housed<()>>> {
        self.build_beside(socket, ())
    }

    /// [`HostBuilder::build`], with `beside` kept after the endpoint in
    /// its allocation (see [`Housed`]).
    pub fn build_beside<X>(self, socket: BoundSocket, beside: X) -> Option<CBox<Housed<X>>> {
        // The engine's packets come from the pool: let it read its switches.
        pool::read_switches_with(packet_pool_switches);
        let settings = HostSettings {
            address: socket.shown,
            socket: socket.socket,
            peer_count: self.peer_count,
            channel_limit: self.channel_limit,
            incoming_bandwidth: self.incoming_bandwidth,
            outgoing_bandwidth: self.outgoing_bandwidth,
            random_seed: self.seed.unwrap_or_else(random_seed),
            now: clock::now(),
        };
        let io = SocketIo::new(
            socket.socket,
            socket.family.is_ipv6(),
            self.switches.udp_offload,
        );
        let mut endpoint = new_endpoint(&settings, io, socket.family, beside)?;
        let switches = self.switches;
        endpoint
            .host
            .set_reassembly_budget(switches.reassembly_budget);
        if let Some(preset) = switches.loss_recovery {
            endpoint.host.set_loss_recovery(loss_recovery(preset));
        }
        if let Some(spec) = &switches.netsim {
            endpoint
                .io
                .set_netsim(Some(Box::new(Conditioner::new(spec))));
        }
        endpoint.host.attach();
        // From here the host owns the socket: `Endpoint::close` closes it.
        socket.hand_over();
        Some(endpoint)
    }
}

/// The environment's packet-pool switches, as the pool takes them:
/// switches reach `mem` as plain values, and this layer, which names both,
/// hands them down. Every host built installs it as the pool's reader;
/// `enet_packet_create` hands it over with each packet instead, which the
/// pool only looks at while it has not decided.
pub fn packet_pool_switches() -> PoolSwitches {
    let switches = ProcessSwitches::from_env();
    PoolSwitches {
        packet_pool: switches.packet_pool,
        preload: switches.preload,
    }
}

/// The engine's setting a switch's preset names.
fn loss_recovery(preset: LossRecoveryPreset) -> LossRecovery {
    match preset {
        LossRecoveryPreset::Stock => LossRecovery::STOCK,
        LossRecoveryPreset::Default => LossRecovery::DEFAULT,
        LossRecoveryPreset::Fast => LossRecovery::FAST,
    }
}

/// An endpoint with `settings`, made in its heap place: the host holds an
/// 11 KiB `ENetHost`, and moving it there through the stack left three
/// copies' worth of stack pages (37 KiB) resident in every process. `None`
/// for too many peers or when allocation fails.
#[allow(unsafe_code)]
fn new_endpoint<X>(
    settings: &HostSettings,
    io: SocketIo,
    family: SocketFamily,
    beside: X,
) -> Option<CBox<Housed<X>>> {
    // Every field is written below. This pattern stops compiling when a
    // field is added to any of the structs, so none can be left as zero
    // bytes.
    let _every_field = |housed: &Housed<X>| {
        let Housed {
            endpoint:
                Endpoint {
                    host:
                        Host {
                            public: _,
                            engine: _,
                        },
                    io: _,
                    family: _,
                    requests: _,
                    secure: _,
                },
            beside: _,
        } = housed;
    };
    let engine = Engine::new(settings)?;
    // SAFETY: `init` answers true only once every field is written: the
    // host's public part is an `ENetHost`, all integers, raw pointers,
    // optional function pointers and arrays of those, for which zero bytes
    // are valid, and `set_up_public` sets it up from there; the other
    // fields are written whole through `addr_of_mut!` places (no reference
    // to uninitialised memory is made).
    unsafe {
        CBox::try_new_zeroed_with(|housed: *mut Housed<X>| {
            let endpoint = ptr::addr_of_mut!((*housed).endpoint);
            set_up_public(&mut *ptr::addr_of_mut!((*endpoint).host.public), settings);
            ptr::addr_of_mut!((*endpoint).host.engine).write(engine);
            ptr::addr_of_mut!((*endpoint).io).write(io);
            ptr::addr_of_mut!((*endpoint).family).write(family);
            ptr::addr_of_mut!((*endpoint).requests).write(None);
            ptr::addr_of_mut!((*endpoint).secure).write(None);
            ptr::addr_of_mut!((*housed).beside).write(beside);
            true
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::{ENetSocketType, ENET_PROTOCOL_MAXIMUM_PEER_ID};

    /// A UDP socket bound to a free port on 127.0.0.1, and that port.
    fn bound_socket() -> (ENetSocket, ENetAddress) {
        let sock = socket::create(ENetSocketType::ENET_SOCKET_TYPE_DATAGRAM as i32).unwrap();
        let loopback = ENetAddress {
            host: u32::from_ne_bytes([127, 0, 0, 1]),
            port: 0,
        };
        socket::bind(sock, Some(&loopback)).unwrap();
        (sock, socket::local_address(sock).unwrap())
    }

    /// Whether a new socket can bind `address`: only if no socket holds it.
    fn is_free(address: &ENetAddress) -> bool {
        let probe = socket::create(ENetSocketType::ENET_SOCKET_TYPE_DATAGRAM as i32).unwrap();
        let free = socket::bind(probe, Some(address)).is_ok();
        socket::destroy(probe);
        free
    }

    #[test]
    fn a_host_that_cannot_be_made_closes_its_socket() {
        let (sock, address) = bound_socket();
        assert!(!is_free(&address));
        let too_many_peers = ENET_PROTOCOL_MAXIMUM_PEER_ID as usize + 1;
        let host = HostBuilder::new(too_many_peers)
            .channel_limit(1)
            .build(BoundSocket::new(sock, SocketFamily::Ipv4, address));
        assert!(host.is_none());
        assert!(is_free(&address));
    }

    #[test]
    fn a_panic_while_making_a_host_closes_its_socket() {
        let (sock, address) = bound_socket();
        let caught = std::panic::catch_unwind(|| {
            let _unowned = BoundSocket::new(sock, SocketFamily::Ipv4, address);
            panic!("making the host failed");
        });
        assert!(caught.is_err());
        assert!(is_free(&address));
    }

    #[test]
    fn a_host_takes_its_switches_and_seed() {
        let (sock, address) = bound_socket();
        let (switches, malformed) = Switches::parse(|name| {
            [
                ("ENET_RS_LOSS_RECOVERY", "fast"),
                ("ENET_RS_REASSEMBLY_BUDGET", "123456"),
                ("ENET_RS_NETSIM", "lag=5ms"),
            ]
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.to_string())
        });
        assert!(malformed.is_empty());
        let mut host = HostBuilder::new(2)
            .switches(switches)
            .seed(0x1234_5678)
            .build(BoundSocket::new(sock, SocketFamily::Ipv4, address))
            .expect("a host");
        assert_eq!(host.loss_recovery(), LossRecovery::FAST);
        assert_eq!(host.reassembly_limit(), 123_456);
        assert!(host.netsim().is_some());
        assert_eq!(host.public.randomSeed, 0x1234_5678u32.rotate_left(16));
        assert_eq!(host.public.address, address);
        assert!(!is_free(&address));
        host.close();
        assert!(is_free(&address));
    }

    #[test]
    fn encryption_is_set_up_only_before_any_peer_is_in_use() {
        let (sock, address) = bound_socket();
        let mut host = HostBuilder::new(1)
            .build(BoundSocket::new(sock, SocketFamily::Ipv4, address))
            .expect("a host");
        let (other, other_address) = bound_socket();
        socket::destroy(other);
        let mut plain = HostBuilder::new(1)
            .build(BoundSocket::stock(None).expect("a socket"))
            .expect("a host");
        assert!(host.secure().is_none());
        assert!(host.secure_layer().is_some());
        assert!(host.secure().is_some());
        let to = SocketAddr::from(([127, 0, 0, 1], other_address.port));
        assert!(plain.connect_endpoint(to, 1, 0).is_some());
        assert!(plain.secure_layer().is_none());
        host.close();
        plain.close();
    }
}
