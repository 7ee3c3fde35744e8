//! Where a peer's datagrams come from and go to: an IPv4 or an IPv6
//! address with its port, as [`SocketAddr`].
//!
//! Stock ENet knows only IPv4, and `ENetPeer::address` and
//! `ENetHost::receivedAddress` keep holding an IPv4 peer's address exactly
//! as stock does. An IPv6 peer's full address lives in its host's table of
//! them (`Engine::ipv6_endpoints`); those two fields then hold a
//! placeholder ([`IPV6_PLACEHOLDER_HOST`] with the peer's port), which old
//! code can read, print and compare without harm.
//! A dual-stack socket names IPv4 senders as IPv4-mapped IPv6 addresses;
//! [`normalized`] turns them back into IPv4 ones, so a stock client on
//! 127.0.0.1 is an IPv4 peer whichever socket it reached.

use std::net::{IpAddr, Ipv4Addr, SocketAddr, SocketAddrV4};

use super::engine::Host;
use crate::abi::ENetAddress;
use crate::proto::state::peer_index::PeerIndex;

/// `ENetAddress::host` of an IPv6 peer: `0.0.0.0` (`ENET_HOST_ANY`), which
/// no peer's real IPv4 address can be.
pub const IPV6_PLACEHOLDER_HOST: u32 = crate::abi::ENET_RS_IPV6_PLACEHOLDER_HOST;

impl From<ENetAddress> for SocketAddr {
    /// The IPv4 endpoint an `ENetAddress` names (its host is in network
    /// byte order, its port in host byte order).
    fn from(address: ENetAddress) -> Self {
        SocketAddr::V4(SocketAddrV4::new(
            Ipv4Addr::from(address.host.to_ne_bytes()),
            address.port,
        ))
    }
}

/// What `ENetAddress` fields show for `endpoint`: an IPv4 endpoint exactly,
/// an IPv6 one as the placeholder with its port.
pub fn enet_view(endpoint: &SocketAddr) -> ENetAddress {
    match endpoint {
        SocketAddr::V4(v4) => ENetAddress {
            host: u32::from_ne_bytes(v4.ip().octets()),
            port: v4.port(),
        },
        SocketAddr::V6(v6) => ENetAddress {
            host: IPV6_PLACEHOLDER_HOST,
            port: v6.port(),
        },
    }
}

/// `endpoint` with an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as the
/// IPv4 endpoint it stands for.
pub fn normalized(endpoint: SocketAddr) -> SocketAddr {
    match endpoint {
        SocketAddr::V6(v6) => match v6.ip().to_ipv4_mapped() {
            Some(v4) => SocketAddr::V4(SocketAddrV4::new(v4, v6.port())),
            None => endpoint,
        },
        v4 => v4,
    }
}

impl Host {
    /// Where the peer in slot `index` sends from and is sent to.
    pub fn peer_endpoint(&self, index: PeerIndex) -> SocketAddr {
        match self.engine.ipv6_endpoints.get(&index) {
            Some(v6) => SocketAddr::V6(*v6),
            None => self.engine.peers[index].address.into(),
        }
    }

    /// Points the peer in slot `index` at `endpoint` (which is
    /// [`normalized`] already): `ENetPeer::address` gets its view.
    #[inline]
    pub(crate) fn set_peer_endpoint(&mut self, index: PeerIndex, endpoint: SocketAddr) {
        match endpoint {
            SocketAddr::V4(_) => self.engine.ipv6_endpoints.remove(&index),
            SocketAddr::V6(v6) => self.engine.ipv6_endpoints.insert(index, v6),
        };
        self.engine.peers[index].address = enet_view(&endpoint);
    }

    /// Whether the peer in slot `index` has the IP address of `endpoint`
    /// (stock counts a host's peers from one address by that alone). A
    /// CONNECT asks this of every peer it could count: for an IPv4
    /// endpoint the address decides before the table of IPv6 peers is
    /// looked in.
    pub(crate) fn peer_has_ip(&self, index: PeerIndex, endpoint: &SocketAddr) -> bool {
        let ipv6 = || self.engine.ipv6_endpoints.get(&index);
        match endpoint.ip() {
            IpAddr::V4(ip) => {
                self.engine.peers[index].address.host == u32::from_ne_bytes(ip.octets())
                    && ipv6().is_none()
            }
            IpAddr::V6(ip) => ipv6().is_some_and(|v6| *v6.ip() == ip),
        }
    }

    /// Whether a datagram from `from` may belong to the peer in slot
    /// `index`: it comes from the peer's address, or the peer was sent to
    /// the IPv4 broadcast address (any answer is taken, as stock does).
    pub(crate) fn peer_matches(&self, index: PeerIndex, from: &SocketAddr) -> bool {
        let address = self.engine.peers[index].address;
        match (from, self.engine.ipv6_endpoints.get(&index)) {
            (SocketAddr::V4(v4), None) => {
                let host = u32::from_ne_bytes(v4.ip().octets());
                (host == address.host && v4.port() == address.port)
                    || address.host == crate::abi::ENET_HOST_BROADCAST
            }
            (SocketAddr::V6(from), Some(v6)) => from.ip() == v6.ip() && from.port() == v6.port(),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv6Addr, SocketAddrV6};

    #[test]
    fn an_ipv4_address_round_trips_through_the_enet_view() {
        let address = ENetAddress {
            host: u32::from_ne_bytes([127, 0, 0, 1]),
            port: 7777,
        };
        let endpoint = SocketAddr::from(address);
        assert_eq!(endpoint, "127.0.0.1:7777".parse().unwrap());
        assert_eq!(enet_view(&endpoint), address);
    }

    #[test]
    fn an_ipv6_endpoint_shows_the_placeholder_and_its_port() {
        let endpoint = SocketAddr::V6(SocketAddrV6::new(Ipv6Addr::LOCALHOST, 9000, 0, 0));
        let view = enet_view(&endpoint);
        assert_eq!(view.host, IPV6_PLACEHOLDER_HOST);
        assert_eq!(view.port, 9000);
    }

    #[test]
    fn ipv4_and_ipv6_peers_answer_for_their_own_addresses() {
        use crate::proto::host::engine::HostSettings;
        let mut host = Host::create(HostSettings::for_tests(3)).expect("host");
        let slots: Vec<PeerIndex> = PeerIndex::all(3).collect();
        let (first, second, third) = (slots[0], slots[1], slots[2]);
        let v4: SocketAddr = "10.1.2.3:5000".parse().unwrap();
        let v6: SocketAddr = "[2001:db8::1]:5000".parse().unwrap();
        host.set_peer_endpoint(first, v4);
        host.set_peer_endpoint(second, v6);
        assert_eq!(host.peer_endpoint(first), v4);
        assert_eq!(host.peer_endpoint(second), v6);
        let other_port = |endpoint: SocketAddr| SocketAddr::new(endpoint.ip(), 6000);
        assert!(host.peer_has_ip(first, &other_port(v4)));
        assert!(!host.peer_has_ip(first, &other_port(v6)));
        assert!(host.peer_has_ip(second, &other_port(v6)));
        assert!(!host.peer_has_ip(second, &other_port(v4)));
        // The IPv6 peer's view is the placeholder: an IPv4 sender of
        // 0.0.0.0 is not taken for it.
        let placeholder: SocketAddr = "0.0.0.0:5000".parse().unwrap();
        assert!(!host.peer_has_ip(second, &placeholder));
        assert!(host.peer_matches(second, &v6));
        assert!(!host.peer_matches(second, &placeholder));
        assert!(!host.peer_has_ip(third, &other_port(v6)));
        // Moved to IPv4, the slot leaves the table of IPv6 peers.
        host.set_peer_endpoint(second, v4);
        assert_eq!(host.peer_endpoint(second), v4);
        assert!(!host.peer_has_ip(second, &other_port(v6)));
        assert!(host.engine.ipv6_endpoints.is_empty());
    }

    #[test]
    fn mapped_ipv4_senders_become_ipv4_endpoints() {
        let mapped: SocketAddr = "[::ffff:10.1.2.3]:5000".parse().unwrap();
        assert_eq!(normalized(mapped), "10.1.2.3:5000".parse().unwrap());
        let v6: SocketAddr = "[2001:db8::1]:5000".parse().unwrap();
        assert_eq!(normalized(v6), v6);
    }
}
