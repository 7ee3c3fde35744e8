//! Checksums, compression and bandwidth limits on the simulated network.

use enet::abi::ENetPeerState::*;
use enet::mem::{PacketFlags, PacketRef};
use enet::proto::NoCodec;
use enet::proto::WireCodec;
use enet::proto::{ChannelId, PeerIndex};

use crate::sim::{connect, Sim};

const COMPRESSED: u8 = 0x40; // high byte of the peer-id word

fn send(sim: &mut Sim, host: usize, peer: PeerIndex, channel: u8, data: &[u8], flags: PacketFlags) {
    let packet = PacketRef::new_with_data(data, flags).unwrap();
    sim.host(host)
        .with_peer(peer, |view, terms| {
            view.send(ChannelId::from(channel), &packet, terms)
        })
        .expect("send");
    let _ = packet.hand_to_program();
}

fn exchange_with(checksum: bool, compress: bool) -> Sim {
    let mut sim = Sim::new(51, 0);
    sim.trace = Some(Vec::new());
    let server = sim.add_host_with(1, 2, 0, 0, Box::new(WireCodec::new(checksum, compress)));
    let client = sim.add_host_with(1, 2, 0, 0, Box::new(WireCodec::new(checksum, compress)));
    let (client_peer, server_peer) = connect(&mut sim, client, server, 2, 0);
    let text = b"position update: x=10 y=20 z=30; position update: x=11 y=20 z=30".to_vec();
    for i in 0..50u8 {
        send(
            &mut sim,
            client,
            client_peer,
            i % 2,
            &text,
            PacketFlags::RELIABLE,
        );
        send(
            &mut sim,
            server,
            server_peer,
            0,
            &[i; 100],
            PacketFlags::RELIABLE,
        );
    }
    let big: Vec<u8> = (0..200_000u32).map(|i| (i / 100) as u8).collect();
    send(
        &mut sim,
        client,
        client_peer,
        1,
        &big,
        PacketFlags::RELIABLE,
    );
    assert!(sim.run_until(20_000, |s| s.received(server).len() == 51
        && s.received(client).len() == 50));
    assert!(sim.received(server).iter().any(|(_, data)| *data == big));
    sim
}

#[test]
fn checksummed_and_compressed_sessions_deliver_everything() {
    for (checksum, compress) in [(true, false), (false, true), (true, true)] {
        let sim = exchange_with(checksum, compress);
        let trace = sim.trace.as_ref().unwrap();
        let compressed = trace.iter().filter(|d| d[0] & COMPRESSED != 0).count();
        if compress {
            assert!(compressed > 0, "nothing was compressed");
        } else {
            assert_eq!(compressed, 0);
        }
    }
}

#[test]
fn a_checksum_on_one_side_only_prevents_the_connection() {
    let mut sim = Sim::new(52, 0);
    let server = sim.add_host_with(1, 1, 0, 0, Box::new(WireCodec::new(true, false)));
    let client = sim.add_host_with(1, 1, 0, 0, Box::new(NoCodec));
    let address = sim.hosts[server].address;
    let peer = sim.host(client).connect(address, 1, 0).unwrap();
    sim.run_for(3000);
    assert_eq!(sim.connects(server), 0);
    assert_eq!(sim.state(client, peer), ENET_PEER_STATE_CONNECTING);
}

#[test]
fn compression_without_a_decompressor_on_the_other_side_is_dropped() {
    let mut sim = Sim::new(53, 0);
    let server = sim.add_host_with(1, 1, 0, 0, Box::new(NoCodec));
    let client = sim.add_host_with(1, 1, 0, 0, Box::new(WireCodec::new(false, true)));
    let address = sim.hosts[server].address;
    sim.host(client).connect(address, 1, 0).unwrap();
    sim.run_for(3000);
    // The 48-byte CONNECT compresses, and the server cannot read it.
    assert_eq!(sim.connects(server), 0);
}

#[test]
fn bandwidth_limits_are_negotiated_and_throttle_unreliable_traffic() {
    let mut sim = Sim::new(54, 0);
    // Server: 20 kB/s in, 10 kB/s out.
    let server = sim.add_host_with(4, 1, 20_000, 10_000, Box::new(NoCodec));
    // Client 0 sends unlimited; client 1 claims 50 kB/s outgoing.
    let clients: Vec<usize> = [0, 50_000]
        .into_iter()
        .map(|outgoing| sim.add_host_with(1, 1, 0, outgoing, Box::new(NoCodec)))
        .collect();
    let pairs: Vec<(PeerIndex, PeerIndex)> = clients
        .iter()
        .map(|&c| connect(&mut sim, c, server, 1, 0))
        .collect();
    // The server's window follows its outgoing bandwidth.
    assert_eq!(sim.host(server).peer(pairs[0].1).windowSize, 4096);
    // Within a couple of throttle intervals the server shares its 20 kB/s
    // of incoming bandwidth, stock's way: a peer sending less than an equal
    // share (client 0, "unlimited" = 0) is told its own rate, 0; the rest
    // split what remains (client 1: all 20 kB/s).
    sim.run_for(2500);
    let told: Vec<(u32, u32)> = clients
        .iter()
        .zip(&pairs)
        .map(|(&client, &(client_peer, _))| {
            let peer = sim.host(client).peer(client_peer);
            (peer.incomingBandwidth, peer.outgoingBandwidth)
        })
        .collect();
    assert_eq!(told, vec![(0, 10_000), (20_000, 10_000)]);
    assert_eq!(sim.host(server).public.bandwidthLimitedPeers, 0);
    assert_eq!(sim.host(clients[0]).public.bandwidthLimitedPeers, 0);
    assert_eq!(sim.host(clients[1]).public.bandwidthLimitedPeers, 1);
    assert_eq!(sim.host(server).public.connectedPeers, 2);
    // Flood one client with unreliable data far above 10 kB/s.
    let (_, server_peer) = pairs[0];
    for _ in 0..3000 {
        send(
            &mut sim,
            server,
            server_peer,
            0,
            &[7; 500],
            PacketFlags::NONE,
        );
        sim.step();
    }
    let peer = sim.host(server).peer(server_peer);
    assert!(
        peer.packetThrottleLimit < 32,
        "limit {}",
        peer.packetThrottleLimit
    );
    let delivered = sim.received(clients[0]).len();
    assert!(delivered < 3000, "throttle dropped nothing ({delivered})");
    assert!(delivered > 0);
}
