//! The engine on a perfect simulated link: handshake, every delivery mode,
//! disconnects.

use enet::abi::ENetPeerState::*;
use enet::mem::{PacketFlags, PacketRef};
use enet::proto::DisconnectEffect;
use enet::proto::{ChannelId, PeerIndex};

use crate::sim::{connect, numbers_on, Seen, Sim};

fn send(sim: &mut Sim, host: usize, peer: PeerIndex, channel: u8, data: &[u8], flags: PacketFlags) {
    let packet = PacketRef::new_with_data(data, flags).unwrap();
    // The program's own reference: released after enet_peer_send as a
    // program would leave the packet to the library.
    sim.host(host)
        .with_peer(peer, |view, terms| {
            view.send(ChannelId::from(channel), &packet, terms)
        })
        .expect("send");
    let raw = packet.hand_to_program();
    // SAFETY-free: the packet's count is now the queue's; nothing to do.
    let _ = raw;
}

#[test]
fn handshake_delivers_connect_data_and_negotiates() {
    let mut sim = Sim::new(1, 1000);
    let server = sim.add_host(4, 2);
    let client = sim.add_host(1, 0);
    let (client_peer, server_peer) = connect(&mut sim, client, server, 4, 0x1234_5678);
    assert!(sim.hosts[server].seen.contains(&Seen::Connect {
        peer: server_peer,
        data: 0x1234_5678
    }));
    assert_eq!(sim.state(client, client_peer), ENET_PEER_STATE_CONNECTED);
    assert_eq!(sim.state(server, server_peer), ENET_PEER_STATE_CONNECTED);
    // The server's channel limit of 2 wins.
    assert_eq!(sim.host(client).peer(client_peer).channelCount, 2);
    assert_eq!(sim.host(server).peer(server_peer).channelCount, 2);
    assert_eq!(sim.host(client).public.connectedPeers, 1);
    assert_eq!(sim.host(server).public.connectedPeers, 1);
    let client_connect_id = sim.host(client).peer(client_peer).connectID;
    assert_eq!(
        client_connect_id,
        sim.host(server).peer(server_peer).connectID
    );
}

#[test]
fn every_delivery_mode_arrives_in_order() {
    let mut sim = Sim::new(2, 5000);
    let server = sim.add_host(2, 3);
    let client = sim.add_host(1, 3);
    let (client_peer, _) = connect(&mut sim, client, server, 3, 0);
    for i in 0..50u32 {
        send(
            &mut sim,
            client,
            client_peer,
            0,
            &i.to_be_bytes(),
            PacketFlags::RELIABLE,
        );
        send(
            &mut sim,
            client,
            client_peer,
            1,
            &(1000 + i).to_be_bytes(),
            PacketFlags::NONE,
        );
        send(
            &mut sim,
            client,
            client_peer,
            2,
            &(2000 + i).to_be_bytes(),
            PacketFlags::UNSEQUENCED,
        );
    }
    assert!(sim.run_until(5000, |s| s.received(server).len() == 150));
    let received = sim.received(server);
    for channel in 0..3u8 {
        let values = numbers_on(&received, channel);
        let expected: Vec<u32> = (0..50).map(|i| u32::from(channel) * 1000 + i).collect();
        assert_eq!(values, expected, "channel {channel}");
    }
}

#[test]
fn a_megabyte_is_fragmented_and_reassembled() {
    let mut sim = Sim::new(3, 0);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, _) = connect(&mut sim, client, server, 1, 0);
    let payload: Vec<u8> = (0..1 << 20)
        .map(|i: u32| (i * 31 + (i >> 11)) as u8)
        .collect();
    send(
        &mut sim,
        client,
        client_peer,
        0,
        &payload,
        PacketFlags::RELIABLE,
    );
    assert!(sim.run_until(60_000, |s| !s.received(server).is_empty()));
    let received = sim.received(server);
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].1, payload);
}

#[test]
fn graceful_disconnect_reports_data_on_both_sides() {
    let mut sim = Sim::new(4, 100);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, server_peer) = connect(&mut sim, client, server, 1, 0);
    assert_eq!(
        sim.host(client).disconnect(client_peer, 77),
        DisconnectEffect::Done
    );
    assert_eq!(
        sim.state(client, client_peer),
        ENET_PEER_STATE_DISCONNECTING
    );
    assert!(sim.run_until(5000, |s| !s.disconnects(client).is_empty()
        && !s.disconnects(server).is_empty()));
    assert_eq!(sim.disconnects(server), vec![77]);
    assert_eq!(sim.state(client, client_peer), ENET_PEER_STATE_DISCONNECTED);
    assert_eq!(sim.state(server, server_peer), ENET_PEER_STATE_DISCONNECTED);
    assert_eq!(sim.host(server).public.connectedPeers, 0);
    assert_eq!(sim.host(client).public.connectedPeers, 0);
}
