//! The socket of a host made through the extensions (`enet_rs_host_create`):
//! IPv4, IPv6 or dual-stack, optionally sharing its port with other hosts.
//!
//! Stock's `enet_host_create` keeps its own IPv4 socket with stock's exact
//! system calls (`socket.rs`); this one is free to use `socket2`, and
//! hands the descriptor over to the host, which closes it as stock does.

use std::io;
use std::net::{Ipv6Addr, SocketAddr, SocketAddrV6};

use socket2::{Domain, Socket, Type};

use super::sys::{into_enet_socket, share_port, sock_ref};
use crate::abi::{ENetSocket, ENET_HOST_RECEIVE_BUFFER_SIZE, ENET_HOST_SEND_BUFFER_SIZE};

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
    socket.set_nonblocking(true)?;
    // As stock's host sockets; broadcast exists for IPv4 alone.
    if family != SocketFamily::Ipv6Only {
        let _ = socket.set_broadcast(true);
    }
    let _ = socket.set_recv_buffer_size(ENET_HOST_RECEIVE_BUFFER_SIZE as usize);
    let _ = socket.set_send_buffer_size(ENET_HOST_SEND_BUFFER_SIZE as usize);
    let bound = socket
        .local_addr()?
        .as_socket()
        .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
    Ok((into_enet_socket(socket), family, bound))
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
