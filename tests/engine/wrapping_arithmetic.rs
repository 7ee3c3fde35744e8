//! Arithmetic that stock ENet does in wrapping 32- or 16-bit C arithmetic
//! wraps here too, with stock's results, instead of overflowing (which
//! would panic in debug builds, where overflow checks are on). Both cases
//! are reachable from a remote peer; these
//! tests run the debug engine, as `cargo test` does.

use enet::abi::ENetPeerState::*;
use enet::mem::{PacketFlags, PacketRef};
use enet::proto::{ChannelId, PeerIndex};
use enet::proto::{Event, EventSlot, NoCodec};
use enet::wire::command::{Command, CommandFlags, CommandHeader, Fragment};
use enet::wire::{DatagramBuilder, Envelope};

use crate::sim::{connect, Sim};

fn send(sim: &mut Sim, host: usize, peer: PeerIndex, data: &[u8]) {
    let packet = PacketRef::new_with_data(data, PacketFlags::RELIABLE).unwrap();
    sim.host(host)
        .with_peer(peer, |view, terms| {
            view.send(ChannelId::from(0), &packet, terms)
        })
        .expect("send");
    let _ = packet.hand_to_program();
}

// enet_peer_throttle adds packetThrottleAcceleration in enet_uint32
// (peer.c@v1.3.17:71): 32 + 0xFFFFFFFF wraps to 31, which is not above the
// limit, so stock leaves packetThrottle at 31 and returns 1. Ours computes
// `packetThrottle + packetThrottleAcceleration` (throttle.rs:206).
#[test]
fn throttle_acceleration_wraps_like_stock() {
    let mut sim = Sim::new(201, 10_000);
    let host = sim.add_host(1, 1);
    let first = sim.slot(host, 0);
    let peer = sim.host(host).peer_mut(first);
    peer.lastRoundTripTime = 10;
    peer.lastRoundTripTimeVariance = 1;
    peer.packetThrottle = 32;
    peer.packetThrottleLimit = 32;
    peer.packetThrottleAcceleration = u32::MAX;
    assert_eq!(
        sim.host(host).with_peer(first, |peer, _| peer.throttle(5)),
        1
    );
    assert_eq!(sim.host(host).peer(first).packetThrottle, 31);
}

// From the network: the acceleration comes from the remote side's
// THROTTLE_CONFIGURE (or CONNECT), unchecked, as in stock. A peer that
// announces 0xFFFFFFFF must not bring the host down; stock keeps the
// connection (its throttle just wraps).
#[test]
fn remote_throttle_configure_with_huge_acceleration() {
    let mut sim = Sim::new(202, 10_000);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, server_peer) = connect(&mut sim, client, server, 1, 0);
    sim.host(client).with_peer(client_peer, |peer, _| {
        peer.throttle_configure(5000, u32::MAX, 2)
    });
    for round in 0..40u32 {
        send(&mut sim, client, client_peer, &round.to_be_bytes());
        sim.run_for(500);
    }
    assert_eq!(
        sim.host(server)
            .peer(server_peer)
            .packetThrottleAcceleration,
        u32::MAX
    );
    assert_eq!(sim.state(server, server_peer), ENET_PEER_STATE_CONNECTED);
    assert_eq!(sim.received(server).len(), 40);
}

// a reliable packet of 65536 fragments. Stock advances the channel by
// `fragmentCount - 1` in enet_uint16 arithmetic (peer.c@v1.3.17:800-801),
// i.e. by 65535, and delivers the packet. Ours takes the count `as u16`
// (0) and computes `span - 1` (channel.rs:141-145, 490), which underflows.
// A connected peer needs only 2048 small datagrams (1-byte fragments) to
// get there: the layout check accepts fragment n at offset n, length 1.
#[test]
fn fragment_count_multiple_of_65536() {
    let mut sim = Sim::new(203, 10_000);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, server_peer) = connect(&mut sim, client, server, 1, 0);
    sim.run_for(100);
    let from = sim.hosts[client].address;
    let peer = sim.host(client).peer(client_peer);
    let (peer_id, session) = (peer.outgoingPeerID, peer.outgoingSessionID);

    const COUNT: u32 = 65_536;
    let payload: Vec<u8> = (0..COUNT).map(|i| (i % 251) as u8).collect();
    let mut events = EventSlot::wanted();
    let now = sim.now;
    for batch in 0..COUNT / 32 {
        let mut builder = DatagramBuilder::new(4096);
        for number in batch * 32..batch * 32 + 32 {
            let header = CommandHeader {
                flags: CommandFlags::ACKNOWLEDGE,
                channel_id: 0,
                reliable_sequence_number: 1u16.wrapping_add(number as u16),
            };
            let command = Command::SendFragment(Fragment {
                start_sequence_number: 1,
                fragment_count: COUNT,
                fragment_number: number,
                total_length: COUNT,
                fragment_offset: number,
                data: &payload[number as usize..number as usize + 1],
            });
            builder.push(&header, &command).expect("fits");
        }
        let datagram = builder.finish(Envelope::plain(peer_id, session, now as u16));
        sim.host(server)
            .receive_datagram(now, from.into(), &datagram, &mut NoCodec, &mut events)
            .expect("accepted");
    }
    let event = sim
        .host(server)
        .dispatch()
        .expect("the packet is delivered");
    let Event::Receive { peer, packet, .. } = event else {
        panic!("expected a receive event, got {event:?}");
    };
    assert_eq!(peer, server_peer);
    assert_eq!(packet.data(), &payload[..]);
    packet.release();
}
