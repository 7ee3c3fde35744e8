//! Socket addresses as the kernel reads and writes them, for IPv4 and IPv6
//! sockets alike.
//!
//! A host's socket is IPv4 (as stock ENet's) or IPv6, and an IPv6 one is
//! usually dual-stack: IPv4 peers then come and go as IPv4-mapped IPv6
//! addresses. [`SocketName`] has room for either form; [`SocketName::of`]
//! writes an endpoint in the form the socket takes, and
//! [`SocketName::endpoint`] reads one back with mapped addresses turned
//! into IPv4 ones.

use core::mem::size_of;
use std::net::{Ipv6Addr, SocketAddr, SocketAddrV6};

use super::address::{from_sockaddr_in, sockaddr_in};
use crate::proto::host::endpoint::{enet_view, normalized};

/// Room for a `sockaddr_in` or a `sockaddr_in6`.
#[derive(Clone, Copy)]
#[repr(C)]
pub union SocketName {
    family: libc::sa_family_t,
    v4: libc::sockaddr_in,
    v6: libc::sockaddr_in6,
}

impl SocketName {
    /// Bytes the kernel may write into one.
    pub const CAPACITY: libc::socklen_t = size_of::<SocketName>() as libc::socklen_t;

    /// All zeroes (family `AF_UNSPEC`).
    pub fn zeroed() -> Self {
        // SAFETY: both variants are plain old data; all zeroes is valid.
        unsafe { core::mem::zeroed() }
    }

    /// `endpoint` as a socket of the given family takes it, with its
    /// length: an IPv6 socket gets IPv4 endpoints as mapped addresses.
    pub fn of(endpoint: &SocketAddr, ipv6_socket: bool) -> (Self, libc::socklen_t) {
        let mut name = SocketName::zeroed();
        let v6 = match (endpoint, ipv6_socket) {
            (SocketAddr::V4(_), false) => {
                name.v4 = sockaddr_in(&enet_view(endpoint));
                return (name, size_of::<libc::sockaddr_in>() as libc::socklen_t);
            }
            (SocketAddr::V4(v4), true) => {
                SocketAddrV6::new(v4.ip().to_ipv6_mapped(), v4.port(), 0, 0)
            }
            // An IPv4 socket cannot send there; the kernel says so.
            (SocketAddr::V6(v6), _) => *v6,
        };
        name.v6 = libc::sockaddr_in6 {
            sin6_family: libc::AF_INET6 as libc::sa_family_t,
            sin6_port: v6.port().to_be(),
            // As std and socket2 convert it: the field's value as is.
            sin6_flowinfo: v6.flowinfo(),
            sin6_addr: libc::in6_addr {
                s6_addr: v6.ip().octets(),
            },
            sin6_scope_id: v6.scope_id(),
        };
        (name, size_of::<libc::sockaddr_in6>() as libc::socklen_t)
    }

    /// The endpoint the kernel wrote, IPv4-mapped addresses as IPv4 ones;
    /// `None` for another family (or none).
    pub fn endpoint(&self) -> Option<SocketAddr> {
        // SAFETY: every variant starts with the family, and all bytes of
        // the union are initialized (it is created zeroed).
        let family = libc::c_int::from(unsafe { self.family });
        if family == libc::AF_INET {
            // SAFETY: the family says the kernel wrote a sockaddr_in.
            let sin = unsafe { self.v4 };
            return Some(from_sockaddr_in(&sin).into());
        }
        if family == libc::AF_INET6 {
            // SAFETY: the family says the kernel wrote a sockaddr_in6.
            let sin6 = unsafe { self.v6 };
            return Some(normalized(SocketAddr::V6(SocketAddrV6::new(
                Ipv6Addr::from(sin6.sin6_addr.s6_addr),
                u16::from_be(sin6.sin6_port),
                sin6.sin6_flowinfo,
                sin6.sin6_scope_id,
            ))));
        }
        None
    }

    /// A pointer for the kernel to read or write through.
    pub fn as_mut_ptr(&mut self) -> *mut libc::sockaddr {
        (self as *mut SocketName).cast()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_round_trip_in_both_socket_families() {
        for text in ["127.0.0.1:7000", "[::1]:7001", "[2001:db8::5]:7002"] {
            let endpoint: SocketAddr = text.parse().unwrap();
            for ipv6_socket in [false, true] {
                if endpoint.is_ipv6() && !ipv6_socket {
                    continue;
                }
                let (name, length) = SocketName::of(&endpoint, ipv6_socket);
                let expected = if ipv6_socket {
                    size_of::<libc::sockaddr_in6>()
                } else {
                    size_of::<libc::sockaddr_in>()
                };
                assert_eq!(length as usize, expected, "{text}");
                assert_eq!(name.endpoint(), Some(endpoint), "{text}");
            }
        }
    }

    #[test]
    fn an_unspecified_family_is_no_endpoint() {
        assert_eq!(SocketName::zeroed().endpoint(), None);
    }
}
