//! Where path MTU discovery starts on a host whose datagrams grow on the
//! way out (encryption's records, `Host::set_datagram_overhead`): the
//! search counts ENet's bytes, so it starts, and falls back, that much
//! below 1200, and the datagram on the wire is still one of 1200 bytes.

use enet::proto::PeerIndex;

use crate::sim::{connect, Sim};

/// ENet's datagram size where a search starts on a plain host.
const BASE: u32 = 1200;
/// What an encrypted record adds to each datagram.
const RECORD_OVERHEAD: u32 = 37;

/// A client with `overhead` bytes added to its datagrams and discovery
/// on, connected to a plain server over a path that carries anything;
/// returns the sim, the client and its peer.
fn discovering_client(overhead: u32) -> (Sim, usize, PeerIndex) {
    let mut sim = Sim::new(61, 1000);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    sim.host(client).set_datagram_overhead(overhead);
    sim.host(client).set_path_mtu_discovery(true);
    let (peer, _) = connect(&mut sim, client, server, 1, 0);
    (sim, client, peer)
}

#[test]
fn a_search_falls_back_below_1200_by_the_hosts_overhead() {
    for overhead in [0, RECORD_OVERHEAD] {
        let (mut sim, client, peer) = discovering_client(overhead);
        let mtu = sim.host(client).peer(peer).mtu;
        assert_eq!(mtu, 1400 - overhead, "the peer's MTU leaves room for it");
        // Probes find the whole MTU on a path that carries it.
        sim.run_for(5000);
        assert_eq!(
            sim.host(client).peer_path_mtu(peer),
            mtu,
            "overhead {overhead}"
        );
        // The system refuses a large datagram: back to where searches
        // start, which on the wire is a 1200-byte datagram either way.
        let now = sim.now;
        sim.host(client).path_too_big(peer, mtu, now);
        let fallen = sim.host(client).peer_path_mtu(peer);
        assert_eq!(fallen + overhead, BASE, "overhead {overhead}");
    }
}

#[test]
fn an_overhead_set_after_discovery_moves_where_later_searches_start() {
    let mut sim = Sim::new(62, 1000);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    sim.host(client).set_path_mtu_discovery(true);
    sim.host(client).set_datagram_overhead(RECORD_OVERHEAD);
    let (peer, _) = connect(&mut sim, client, server, 1, 0);
    sim.run_for(5000);
    let now = sim.now;
    let mtu = sim.host(client).peer(peer).mtu;
    sim.host(client).path_too_big(peer, mtu, now);
    assert_eq!(sim.host(client).peer_path_mtu(peer) + RECORD_OVERHEAD, BASE);
}
