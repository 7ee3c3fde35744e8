//! A host's socket, opened and bound, with the options every host's
//! socket has ([`set_host_options`], the one place they are set):
//! - stock's IPv4 socket for `enet_host_create` ([`open_stock`]), with
//!   stock's system calls (`socket.rs`) in stock's order (the receive
//!   buffer asked for is larger: [`HOST_RECEIVE_BUFFER`]);
//! - the extensions' socket (`enet_rs_host_create`, the safe Rust API;
//!   [`open`]): IPv4, IPv6 or dual-stack, optionally sharing its port with
//!   other hosts, made with `socket2`.
//!
//! Either way the descriptor is handed over to the host, which closes it
//! as stock does.

use core::ffi::c_int;
use std::io;
use std::net::{Ipv6Addr, SocketAddr, SocketAddrV6};

use socket2::{Domain, Socket, Type};

use super::socket;
use super::sys::{into_enet_socket, share_port, sock_ref};
use crate::abi::{
    ENetAddress, ENetSocket, ENetSocketOption, ENetSocketType, ENET_HOST_RECEIVE_BUFFER_SIZE,
    ENET_HOST_SEND_BUFFER_SIZE,
};

/// Which peers a host's socket can reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocketFamily {
    /// IPv4 only (every stock host).
    Ipv4,
    /// IPv6, and IPv4 as mapped addresses.
    DualStack,
    /// IPv6 only.
    Ipv6Only,
}

impl SocketFamily {
    /// Whether the socket is an IPv6 one.
    pub fn is_ipv6(self) -> bool {
        self != SocketFamily::Ipv4
    }

    /// Whether a peer at `endpoint` can be reached through the socket.
    pub fn reaches(self, endpoint: &SocketAddr) -> bool {
        match self {
            SocketFamily::Ipv4 => endpoint.is_ipv4(),
            SocketFamily::DualStack => true,
            SocketFamily::Ipv6Only => endpoint.is_ipv6(),
        }
    }
}

/// How to open a host's socket.
#[derive(Debug, Clone, Copy)]
pub struct HostSocketOptions {
    /// Where to bind; `None` binds `[::]` with an ephemeral port.
    pub bind: Option<SocketAddr>,
    /// An IPv6 socket takes no IPv4 peers.
    pub ipv6_only: bool,
    /// Share the port with other sockets of this user that ask for it too
    /// (`SO_REUSEPORT`): the kernel spreads senders over them by address.
    /// Unix only; on Windows asking for it fails with `Unsupported`.
    pub reuse_port: bool,
}

/// The receive buffer a host's socket asks for. Stock asks for
/// [`ENET_HOST_RECEIVE_BUFFER_SIZE`] (256 KiB); that is a floor, not a
/// ceiling: the kernel caps any request at `net.core.rmem_max`, so asking
/// for more never leaves less than stock gets, and where the system
/// allows more, a burst that outruns the receiver (a sender's unreliable
/// flood, the receiving program descheduled for a few milliseconds on a
/// busy machine) waits in the buffer instead of being dropped. The
/// buffer is a limit, not an allocation: an idle host costs nothing more.
pub const HOST_RECEIVE_BUFFER: c_int = 4 << 20;

/// Sets the options of a host's socket, as stock sets them on its own, in
/// stock's order: non-blocking, broadcast (not on an IPv6-only socket,
/// which has no IPv4), and the buffer sizes (stock's send buffer, a
/// receive buffer of at least stock's, [`HOST_RECEIVE_BUFFER`]). Only a
/// socket that cannot be made non-blocking is an error; stock's own hosts
/// ignore even that.
pub fn set_host_options(sock: ENetSocket, family: SocketFamily) -> io::Result<()> {
    let set =
        |option: ENetSocketOption, value: c_int| socket::set_option(sock, option as c_int, value);
    let non_blocking = set(ENetSocketOption::ENET_SOCKOPT_NONBLOCK, 1);
    if family != SocketFamily::Ipv6Only {
        let _ = set(ENetSocketOption::ENET_SOCKOPT_BROADCAST, 1);
    }
    let _ = set(
        ENetSocketOption::ENET_SOCKOPT_RCVBUF,
        HOST_RECEIVE_BUFFER.max(ENET_HOST_RECEIVE_BUFFER_SIZE as c_int),
    );
    let _ = set(
        ENetSocketOption::ENET_SOCKOPT_SNDBUF,
        ENET_HOST_SEND_BUFFER_SIZE as c_int,
    );
    non_blocking
}

/// Stock's socket for `enet_host_create`: IPv4, bound to `address` if
/// there is one, and the address the host shows (the bound one, or all
/// zeroes without an address); `None`, with the socket closed, when it
/// cannot be made or bound.
pub fn open_stock(address: Option<&ENetAddress>) -> Option<(ENetSocket, ENetAddress)> {
    let sock = socket::create(ENetSocketType::ENET_SOCKET_TYPE_DATAGRAM as c_int).ok()?;
    if address.is_some() && socket::bind(sock, address).is_err() {
        socket::destroy(sock);
        return None;
    }
    let _ = set_host_options(sock, SocketFamily::Ipv4);
    let shown = match address {
        Some(requested) => socket::local_address(sock).unwrap_or(*requested),
        None => ENetAddress::default(),
    };
    Some((sock, shown))
}

/// An open, bound, non-blocking socket for a host, its family, and the
/// address it is bound to.
pub fn open(options: &HostSocketOptions) -> io::Result<(ENetSocket, SocketFamily, SocketAddr)> {
    let bind = options.bind.unwrap_or(SocketAddr::V6(SocketAddrV6::new(
        Ipv6Addr::UNSPECIFIED,
        0,
        0,
        0,
    )));
    let (domain, family) = match bind {
        SocketAddr::V4(_) => (Domain::IPV4, SocketFamily::Ipv4),
        SocketAddr::V6(_) if options.ipv6_only => (Domain::IPV6, SocketFamily::Ipv6Only),
        SocketAddr::V6(_) => (Domain::IPV6, SocketFamily::DualStack),
    };
    let socket = Socket::new(domain, Type::DGRAM, None)?;
    if family.is_ipv6() {
        socket.set_only_v6(family == SocketFamily::Ipv6Only)?;
    }
    if options.reuse_port {
        share_port(&socket)?;
    }
    socket.bind(&bind.into())?;
    let sock = into_enet_socket(socket);
    let bound = set_host_options(sock, family).and_then(|()| local_endpoint(sock));
    match bound {
        Ok(bound) => Ok((sock, family, bound)),
        Err(error) => {
            socket::destroy(sock);
            Err(error)
        }
    }
}

/// The address `socket` (a host's, open) is bound to, either family.
pub fn local_endpoint(socket: ENetSocket) -> io::Result<SocketAddr> {
    // SAFETY: the caller's host owns the socket until it is destroyed, and
    // the view ends with this call.
    let socket = unsafe { sock_ref(socket) };
    socket
        .local_addr()?
        .as_socket()
        .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(socket: ENetSocket) {
        crate::net::socket::destroy(socket);
    }

    #[test]
    fn the_default_is_a_dual_stack_socket_on_an_ephemeral_port() {
        let (socket, family, bound) = open(&HostSocketOptions {
            bind: None,
            ipv6_only: false,
            reuse_port: false,
        })
        .unwrap();
        assert_eq!(family, SocketFamily::DualStack);
        assert!(bound.is_ipv6() && bound.port() != 0);
        assert!(family.reaches(&"127.0.0.1:1".parse().unwrap()));
        close(socket);
    }

    #[test]
    fn reuse_port_lets_two_sockets_share_a_port() {
        let options = HostSocketOptions {
            bind: Some("127.0.0.1:0".parse().unwrap()),
            ipv6_only: false,
            reuse_port: true,
        };
        if cfg!(windows) {
            let refused = open(&options).unwrap_err();
            assert_eq!(refused.kind(), io::ErrorKind::Unsupported);
            return;
        }
        let (first, family, bound) = open(&options).unwrap();
        assert_eq!(family, SocketFamily::Ipv4);
        assert!(!family.reaches(&"[::1]:1".parse().unwrap()));
        let shared = HostSocketOptions {
            bind: Some(bound),
            ..options
        };
        let (second, _, again) = open(&shared).unwrap();
        assert_eq!(again, bound);
        // Without the option the port is taken.
        let alone = HostSocketOptions {
            reuse_port: false,
            ..shared
        };
        assert!(open(&alone).is_err());
        close(first);
        close(second);
    }
}
