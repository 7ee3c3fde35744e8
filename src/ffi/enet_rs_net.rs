//! The IPv6 extensions of `enet/enet_rs.h`: `ENetRsAddress` and its
//! conversions, hosts made from `ENetRsHostOptions` (IPv4, IPv6,
//! dual-stack, a shared port), connecting to any address, and a peer's or a
//! host's whole address.

use core::ffi::{c_char, c_int};
use core::ptr;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6, ToSocketAddrs};

use super::driver::host_on_socket;
use crate::abi::*;
use crate::config::Switches;
use crate::endpoint::{BoundSocket, HostBuilder};
use crate::net::address::write_c_string;
use crate::net::host_socket::{self, HostSocketOptions};
use crate::proto::host::endpoint::enet_view;

const IPV4: u16 = ENetRsAddressFamily::ENET_RS_ADDRESS_IPV4 as u16;
const IPV6: u16 = ENetRsAddressFamily::ENET_RS_ADDRESS_IPV6 as u16;

impl From<SocketAddr> for ENetRsAddress {
    fn from(endpoint: SocketAddr) -> Self {
        let mut host = [0u8; 16];
        match endpoint {
            SocketAddr::V4(v4) => {
                host[..4].copy_from_slice(&v4.ip().octets());
                ENetRsAddress {
                    host,
                    port: v4.port(),
                    family: IPV4,
                    scopeId: 0,
                }
            }
            SocketAddr::V6(v6) => ENetRsAddress {
                host: v6.ip().octets(),
                port: v6.port(),
                family: IPV6,
                scopeId: v6.scope_id(),
            },
        }
    }
}

impl ENetRsAddress {
    /// The endpoint it names; `None` for an unknown family.
    fn endpoint(&self) -> Option<SocketAddr> {
        match self.family {
            IPV4 => {
                let [a, b, c, d, ..] = self.host;
                Some(SocketAddr::V4(SocketAddrV4::new(
                    Ipv4Addr::new(a, b, c, d),
                    self.port,
                )))
            }
            IPV6 => Some(SocketAddr::V6(SocketAddrV6::new(
                Ipv6Addr::from(self.host),
                self.port,
                0,
                self.scopeId,
            ))),
            _ => None,
        }
    }

    /// Keeps the port, takes the IP (and scope) of `ip`.
    fn set_ip(&mut self, ip: IpAddr, scope_id: u32) {
        let port = self.port;
        *self = SocketAddr::new(ip, port).into();
        if ip.is_ipv6() {
            self.scopeId = scope_id;
        }
    }
}

/// Sets the address's IP from its text: dotted IPv4 (`"127.0.0.1"`) or
/// IPv6 (`"::1"`, `"fe80::1%2"` with an interface index); the port is kept.
/// 0, or -1 for text that is neither (nothing is changed then).
///
/// # Safety
/// `address` must be NULL or writable; `hostName` NULL or a C string.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_address_set_host_ip(
    address: *mut ENetRsAddress,
    hostName: *const c_char,
) -> c_int {
    guard!(-1, {
        let (Some(address), Some(text)) = (arg_mut!(address), arg_str!(hostName)) else {
            return -1;
        };
        let (ip_text, scope) = match text.split_once('%') {
            Some((ip, scope)) => match scope.parse::<u32>() {
                Ok(scope) => (ip, scope),
                Err(_) => return -1,
            },
            None => (text, 0),
        };
        match ip_text.parse::<IpAddr>() {
            Ok(ip @ IpAddr::V4(_)) if scope == 0 => address.set_ip(ip, 0),
            Ok(ip @ IpAddr::V6(_)) => address.set_ip(ip, scope),
            _ => return -1,
        }
        0
    })
}

/// Sets the address's IP by looking the name up (the system resolver, both
/// families, its first answer); the port is kept. 0, or -1 if the name
/// does not resolve.
///
/// # Safety
/// `address` must be NULL or writable; `hostName` NULL or a C string.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_address_set_host(
    address: *mut ENetRsAddress,
    hostName: *const c_char,
) -> c_int {
    guard!(-1, {
        let (Some(address), Some(name)) = (arg_mut!(address), arg_str!(hostName)) else {
            return -1;
        };
        let Ok(mut found) = (name, 0u16).to_socket_addrs() else {
            return -1;
        };
        match found.next() {
            Some(SocketAddr::V4(v4)) => address.set_ip(IpAddr::V4(*v4.ip()), 0),
            Some(SocketAddr::V6(v6)) => address.set_ip(IpAddr::V6(*v6.ip()), v6.scope_id()),
            None => return -1,
        }
        0
    })
}

/// Writes the address's IP as text (`"127.0.0.1"`, `"::1"`, `"fe80::1%2"`)
/// and a NUL into `hostName`. 0, or -1 for an unknown family or a buffer
/// too small (nothing is written then).
///
/// # Safety
/// `address` must be NULL or readable; `hostName` NULL or writable for
/// `nameLength` bytes.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_address_get_host_ip(
    address: *const ENetRsAddress,
    hostName: *mut c_char,
    nameLength: usize,
) -> c_int {
    guard!(-1, {
        let Some(endpoint) = arg_ref!(address).and_then(ENetRsAddress::endpoint) else {
            return -1;
        };
        if hostName.is_null() {
            return -1;
        }
        let text = match endpoint {
            SocketAddr::V6(v6) if v6.scope_id() != 0 => format!("{}%{}", v6.ip(), v6.scope_id()),
            other => other.ip().to_string(),
        };
        let out = arg_out_bytes!(hostName, nameLength);
        match write_c_string(text.as_bytes(), out) {
            Ok(()) => 0,
            Err(_) => -1,
        }
    })
}

/// The `ENetRsAddress` of an `ENetAddress`. 0, or -1 for a NULL argument.
///
/// # Safety
/// `out` must be NULL or writable; `address` NULL or readable.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_address_from_enet(
    out: *mut ENetRsAddress,
    address: *const ENetAddress,
) -> c_int {
    guard!(-1, {
        let (Some(out), Some(address)) = (arg_mut!(out), arg_ref!(address)) else {
            return -1;
        };
        *out = SocketAddr::from(*address).into();
        0
    })
}

/// The `ENetAddress` of an IPv4 (or IPv4-mapped IPv6) address. 0, or -1
/// for another IPv6 address, which `ENetAddress` cannot hold.
///
/// # Safety
/// `out` must be NULL or writable; `address` NULL or readable.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_address_to_enet(
    out: *mut ENetAddress,
    address: *const ENetRsAddress,
) -> c_int {
    guard!(-1, {
        let (Some(out), Some(endpoint)) = (
            arg_mut!(out),
            arg_ref!(address).and_then(ENetRsAddress::endpoint),
        ) else {
            return -1;
        };
        match crate::proto::host::endpoint::normalized(endpoint) {
            v4 @ SocketAddr::V4(_) => {
                *out = enet_view(&v4);
                0
            }
            SocketAddr::V6(_) => -1,
        }
    })
}

/// Creates a host as `options` say: bound to an IPv4 or IPv6 address
/// (dual-stack on an IPv6 one unless `ENET_RS_HOST_IPV6_ONLY`), its port
/// shared with other hosts if `ENET_RS_HOST_REUSE_PORT`. Everything else is
/// as `enet_host_create`, whose hosts stay IPv4 as in stock; destroy it
/// with `enet_host_destroy`. NULL on failure (a NULL `options`, more than
/// 4095 peers, an unknown flag or family, a port in use).
///
/// # Safety
/// `options` must be NULL or readable, its `address` NULL or readable.
/// Any thread; the new host is then used by one thread at a time.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_create(options: *const ENetRsHostOptions) -> *mut ENetHost {
    guard!(ptr::null_mut(), {
        let Some(options) = arg_ref!(options) else {
            return ptr::null_mut();
        };
        let known = ENET_RS_HOST_IPV6_ONLY | ENET_RS_HOST_REUSE_PORT;
        if options.peerCount > ENET_PROTOCOL_MAXIMUM_PEER_ID as usize || options.flags & !known != 0
        {
            return ptr::null_mut();
        }
        let bind = match arg_ref!(options.address) {
            None => None,
            Some(address) => match address.endpoint() {
                Some(endpoint) => Some(endpoint),
                None => return ptr::null_mut(),
            },
        };
        let socket_options = HostSocketOptions {
            bind,
            ipv6_only: options.flags & ENET_RS_HOST_IPV6_ONLY != 0,
            reuse_port: options.flags & ENET_RS_HOST_REUSE_PORT != 0,
        };
        let builder = HostBuilder::new(options.peerCount)
            .channel_limit(options.channelLimit)
            .bandwidth(options.incomingBandwidth, options.outgoingBandwidth)
            .switches(Switches::from_env());
        host_on_new_socket(&socket_options, enet_view, builder)
    })
}

/// Opens a socket as `socket_options` say and builds a host on it, whose
/// `address` field shows what `shown` makes of the bound address; NULL if
/// either fails.
fn host_on_new_socket(
    socket_options: &HostSocketOptions,
    shown: impl FnOnce(&SocketAddr) -> ENetAddress,
    builder: HostBuilder,
) -> *mut ENetHost {
    match BoundSocket::open(socket_options, shown) {
        Ok((socket, _)) => host_on_socket(builder, socket),
        Err(_) => ptr::null_mut(),
    }
}

/// A dual-stack host on `[::]` and the port of `address` (an ephemeral one
/// without), for `enet_host_create` under `ENET_RS_DUAL_STACK`; its
/// `address` field reads as stock's would (`0.0.0.0`, the port bound, or
/// all zeroes without an address).
pub(crate) fn dual_stack_host(address: Option<ENetAddress>, builder: HostBuilder) -> *mut ENetHost {
    let port = address.map_or(0, |address| address.port);
    let options = HostSocketOptions {
        bind: Some(SocketAddr::V6(SocketAddrV6::new(
            Ipv6Addr::UNSPECIFIED,
            port,
            0,
            0,
        ))),
        ipv6_only: false,
        reuse_port: false,
    };
    host_on_new_socket(
        &options,
        |bound| match address {
            Some(_) => enet_view(bound),
            None => ENetAddress::default(),
        },
        builder,
    )
}

/// The address the host's socket is bound to (with the port the system
/// picked, if it did). 0, or -1 for a NULL argument or a socket error.
///
/// # Safety
/// `host` must be NULL or a live host; `address` NULL or writable.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_get_address(
    host: *mut ENetHost,
    address: *mut ENetRsAddress,
) -> c_int {
    guard!(-1, {
        let Some(out) = arg_mut!(address) else {
            return -1;
        };
        try_host!(let host = host, else -1);
        match host_socket::local_endpoint(host.public.socket) {
            Ok(bound) => {
                *out = bound.into();
                0
            }
            Err(_) => -1,
        }
    })
}

/// Starts connecting to an IPv4 or IPv6 address, as `enet_host_connect`;
/// the peer, or NULL if no slot is free or the host's socket cannot reach
/// that family (an IPv4 host and an IPv6 address, or an IPv6-only host and
/// an IPv4 one).
///
/// # Safety
/// `host` must be NULL or a live host; `address` NULL or readable.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns NULL.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_connect(
    host: *mut ENetHost,
    address: *const ENetRsAddress,
    channelCount: usize,
    data: u32,
) -> *mut ENetPeer {
    guard!(ptr::null_mut(), {
        let Some(endpoint) = arg_ref!(address).and_then(ENetRsAddress::endpoint) else {
            return ptr::null_mut();
        };
        try_host!(let host = host);
        let endpoint = crate::proto::host::endpoint::normalized(endpoint);
        if !host.family.reaches(&endpoint) {
            return ptr::null_mut();
        }
        match host.connect_endpoint(endpoint, channelCount, data) {
            Some(index) => host.peer_pointer(index),
            None => ptr::null_mut(),
        }
    })
}

/// The peer's whole address, IPv4 or IPv6 (`peer->address` holds only an
/// IPv4 one; see `ENET_RS_IPV6_PLACEHOLDER_HOST`). 0, or -1 for a NULL or
/// foreign argument.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `address` NULL or
/// writable.
/// One thread at a time per host. From one of the peer's host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_peer_get_address(
    peer: *mut ENetPeer,
    address: *mut ENetRsAddress,
) -> c_int {
    guard!(-1, {
        let Some(out) = arg_mut!(address) else {
            return -1;
        };
        try_peer!(let (host, index) = peer, else -1);
        *out = host.peer_endpoint(index).into();
        0
    })
}
