//! Back-pressure on the simulated network: a peer's send limit refuses
//! sends while its backlog (queued plus reliable in flight) is at or over
//! it, lets them through again as acknowledgements drain it, and makes a
//! broadcast pass over only the full peer.

use enet::abi::ENetPeerState::*;
use enet::mem::{PacketFlags, PacketRef};
use enet::proto::{ChannelId, PeerIndex, SendError};

use crate::sim::{connect, numbers_on, Sim};

/// Sends `packet` to `peer` of `host` on channel 0, as `enet_peer_send`.
fn send(sim: &mut Sim, host: usize, peer: PeerIndex, packet: &PacketRef) -> Result<(), SendError> {
    sim.host(host).with_peer(peer, |view, terms| {
        view.send(ChannelId::from(0), packet, terms)
    })
}

/// A reliable packet of `len` bytes starting with the big-endian `number`.
fn numbered(number: u32, len: usize, flags: PacketFlags) -> PacketRef {
    let mut data = vec![0u8; len];
    data[..4].copy_from_slice(&number.to_be_bytes());
    PacketRef::new_with_data(&data, flags).unwrap()
}

/// A server (host 0) with two connected clients (hosts 1 and 2); the
/// server's peers of each.
fn server_with_two_clients(seed: u64) -> (Sim, [PeerIndex; 2]) {
    let mut sim = Sim::new(seed, 1000);
    let server = sim.add_host(2, 1);
    let first = sim.add_host(1, 1);
    let second = sim.add_host(1, 1);
    let (_, to_first) = connect(&mut sim, first, server, 1, 0);
    let (_, to_second) = connect(&mut sim, second, server, 1, 0);
    (sim, [to_first, to_second])
}

#[test]
fn a_peer_whose_acknowledgements_are_held_back_fills_to_its_limit_then_drains() {
    let (mut sim, [full, other]) = server_with_two_clients(51);
    let (server, first, second) = (0, 1, 2);
    sim.host(server).set_send_limit(full, 4096).unwrap();
    assert_eq!(sim.host(server).send_limit(full), 4096);
    assert_eq!(sim.host(server).send_limit(other), 0, "only the peer set");
    // The first client stops answering: nothing the server sends it is
    // acknowledged.
    sim.down[first] = true;

    // Checked before queueing: 0, 1000, ..., 4000 bytes are under the
    // limit, so five packets are taken, the fifth crossing it.
    let mut taken = 0;
    let refused = loop {
        let packet = numbered(taken, 1000, PacketFlags::RELIABLE);
        match send(&mut sim, server, full, &packet) {
            Ok(()) => taken += 1,
            Err(error) => break (error, packet),
        }
        assert!(taken <= 5, "the limit never refused");
    };
    assert_eq!(taken, 5);
    assert_eq!(refused.0, SendError::OverSendLimit);
    assert_eq!(
        refused.1.reference_count(),
        1,
        "a refused packet is still only the caller's"
    );
    assert_eq!(sim.host(server).send_backlog(full), 5000);

    // Sent and unacknowledged, the bytes stay counted (now in flight),
    // and sends stay refused.
    sim.run_for(300);
    assert_eq!(sim.host(server).peer(full).reliableDataInTransit, 5000);
    assert_eq!(sim.host(server).send_backlog(full), 5000);
    assert_eq!(
        send(&mut sim, server, full, &refused.1),
        Err(SendError::OverSendLimit)
    );
    // The other peer has no limit: its sends go on.
    let other_packet = numbered(100, 1000, PacketFlags::RELIABLE);
    assert_eq!(send(&mut sim, server, other, &other_packet), Ok(()));

    // A broadcast passes over the full peer only. (The test holds a
    // reference of its own, so `broadcast`'s "did any peer take it" reads
    // true either way: the counts tell.)
    let broadcast = numbered(200, 10, PacketFlags::RELIABLE);
    let _ = sim.host(server).broadcast(0, broadcast.view());
    assert_eq!(broadcast.reference_count(), 2, "the other peer took it");
    assert_eq!(sim.host(server).send_backlog(full), 5000);
    // With every peer full, no peer takes it: the caller destroys it, as
    // after stock's broadcast to no peer.
    sim.host(server).set_send_limit(other, 1).unwrap();
    let nobody = numbered(300, 10, PacketFlags::RELIABLE);
    let _ = sim.host(server).broadcast(0, nobody.view());
    assert_eq!(nobody.reference_count(), 1, "no peer took it");
    sim.host(server).set_send_limit(other, 0).unwrap();

    // The client answers again: acknowledgements drain the backlog and
    // sends are taken again.
    sim.down[first] = false;
    assert!(
        sim.run_until(5000, |sim| sim.hosts[server].host.send_backlog(full) == 0),
        "the backlog never drained"
    );
    assert_eq!(sim.state(server, full), ENET_PEER_STATE_CONNECTED);
    assert_eq!(send(&mut sim, server, full, &refused.1), Ok(()));
    sim.run_for(200);
    assert_eq!(
        numbers_on(&sim.received(first), 0),
        [0, 1, 2, 3, 4, 5],
        "everything taken arrives; the broadcast it was passed over for does not"
    );
    assert_eq!(numbers_on(&sim.received(second), 0), [100, 200]);
    assert_eq!(sim.host(server).send_backlog(full), 0);
}

#[test]
fn unreliable_bytes_leave_the_backlog_when_sent_and_a_packet_over_the_limit_goes_alone() {
    let (mut sim, [peer, _]) = server_with_two_clients(52);
    let (server, first) = (0, 1);
    sim.host(server).set_send_limit(peer, 2000).unwrap();
    sim.down[first] = true;
    // An empty backlog takes any packet, even one larger than the limit
    // (fragmented: each fragment counts its share).
    let large = numbered(1, 5000, PacketFlags::RELIABLE);
    assert_eq!(send(&mut sim, server, peer, &large), Ok(()));
    assert_eq!(sim.host(server).send_backlog(peer), 5000);
    let small = numbered(2, 10, PacketFlags::NONE);
    assert_eq!(
        send(&mut sim, server, peer, &small),
        Err(SendError::OverSendLimit)
    );
    sim.down[first] = false;
    assert!(sim.run_until(5000, |sim| sim.hosts[server].host.send_backlog(peer) == 0));

    // Unreliable packets count while queued, and leave once sent, whether
    // or not they arrive.
    sim.down[first] = true;
    for number in 0..3 {
        let packet = numbered(number, 700, PacketFlags::NONE);
        assert_eq!(send(&mut sim, server, peer, &packet), Ok(()));
    }
    assert_eq!(sim.host(server).send_backlog(peer), 2100);
    let refused = numbered(9, 700, PacketFlags::NONE);
    assert_eq!(
        send(&mut sim, server, peer, &refused),
        Err(SendError::OverSendLimit)
    );
    sim.run_for(5);
    assert_eq!(sim.host(server).send_backlog(peer), 0);
    assert_eq!(send(&mut sim, server, peer, &refused), Ok(()));
}

#[test]
fn a_limit_lasts_for_the_connection_and_a_free_slot_takes_none() {
    let (mut sim, [peer, _]) = server_with_two_clients(53);
    let server = 0;
    sim.host(server).set_send_limit(peer, 1).unwrap();
    sim.host(server).reset_peer(peer);
    assert_eq!(
        sim.host(server).send_limit(peer),
        0,
        "a reset ends the connection, and its limit"
    );
    assert!(
        sim.host(server).set_send_limit(peer, 1).is_err(),
        "a free slot's next connection is another peer"
    );
    assert_eq!(sim.host(server).send_limit(peer), 0);
}
