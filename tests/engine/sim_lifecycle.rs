//! Connection life cycle on the simulated network: timeouts, each kind of
//! disconnect on both sides, peer-slot exhaustion and reuse.

use enet::abi::ENetPeerState::*;
use enet::mem::{PacketFlags, PacketRef};
use enet::proto::DisconnectEffect;
use enet::proto::{ChannelId, PeerIndex};

use crate::sim::{address_of, connect, Sim};

fn send(sim: &mut Sim, host: usize, peer: PeerIndex, data: &[u8]) {
    let packet = PacketRef::new_with_data(data, PacketFlags::RELIABLE).unwrap();
    sim.host(host)
        .with_peer(peer, |view, terms| {
            view.send(ChannelId::from(0), &packet, terms)
        })
        .expect("send");
    let _ = packet.hand_to_program();
}

/// Milliseconds until `host` reports a disconnect, if within `limit`.
fn time_to_disconnect(sim: &mut Sim, host: usize, limit: u32) -> Option<u32> {
    let before = sim.disconnects(host).len();
    let start = sim.now;
    sim.run_until(limit, |s| s.disconnects(host).len() > before)
        .then(|| sim.now.wrapping_sub(start))
}

#[test]
fn a_silent_peer_times_out_after_the_minimum_timeout() {
    let mut sim = Sim::new(21, 10_000);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, _) = connect(&mut sim, client, server, 1, 0);
    sim.run_for(2000); // settle the round-trip estimate
    sim.down[server] = true;
    send(&mut sim, client, client_peer, b"anyone?");
    let waited = time_to_disconnect(&mut sim, client, 40_000).expect("no timeout");
    // Stock ENet 1.3.17 on an established loopback link: ~6.5 s.
    assert!(
        (5_000..=10_000).contains(&waited),
        "timed out after {waited} ms"
    );
    assert_eq!(sim.state(client, client_peer), ENET_PEER_STATE_DISCONNECTED);
    assert_eq!(sim.host(client).public.connectedPeers, 0);
}

#[test]
fn an_idle_connection_times_out_through_pings() {
    let mut sim = Sim::new(22, 0);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (_, server_peer) = connect(&mut sim, client, server, 1, 0);
    sim.down[client] = true; // the client process dies
    let waited = time_to_disconnect(&mut sim, server, 40_000).expect("no timeout");
    assert!(waited <= 12_000, "took {waited} ms");
    assert_eq!(sim.state(server, server_peer), ENET_PEER_STATE_DISCONNECTED);
}

#[test]
fn connecting_to_nobody_gives_up_like_stock() {
    let mut sim = Sim::new(23, 500);
    let client = sim.add_host(1, 1);
    let nobody = address_of(9);
    let peer = sim.host(client).connect(nobody, 1, 0).unwrap();
    let waited = time_to_disconnect(&mut sim, client, 60_000).expect("no timeout");
    // Stock: sends at 0, .5, 1.5, 3.5, 7.5, 15.5 s and fails at ~31.5 s.
    assert!(
        (30_000..=33_000).contains(&waited),
        "gave up after {waited} ms"
    );
    assert_eq!(sim.state(client, peer), ENET_PEER_STATE_DISCONNECTED);
}

#[test]
fn disconnect_now_tells_the_other_side_and_resets_at_once() {
    let mut sim = Sim::new(24, 0);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, server_peer) = connect(&mut sim, client, server, 1, 0);
    assert_eq!(
        sim.host(client).disconnect_now(client_peer, 31),
        DisconnectEffect::FlushThenReset
    );
    // The driver flushes, then resets (as enet_peer_disconnect_now does).
    sim.step();
    sim.host(client).reset_peer(client_peer);
    assert_eq!(sim.state(client, client_peer), ENET_PEER_STATE_DISCONNECTED);
    assert_eq!(
        time_to_disconnect(&mut sim, server, 1000).map(|_| ()),
        Some(())
    );
    assert_eq!(sim.disconnects(server), vec![31]);
    assert!(
        sim.disconnects(client).is_empty(),
        "disconnect_now reports nothing locally"
    );
    assert_eq!(sim.state(server, server_peer), ENET_PEER_STATE_DISCONNECTED);
}

#[test]
fn disconnect_later_delivers_everything_first() {
    let mut sim = Sim::new(25, 0);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, _) = connect(&mut sim, client, server, 1, 0);
    sim.link.loss = 0.1;
    for i in 0..40u8 {
        send(&mut sim, client, client_peer, &[i; 700]);
    }
    assert_eq!(
        sim.host(client).disconnect_later(client_peer, 55),
        DisconnectEffect::Done
    );
    assert_eq!(
        sim.state(client, client_peer),
        ENET_PEER_STATE_DISCONNECT_LATER
    );
    assert!(time_to_disconnect(&mut sim, server, 30_000).is_some());
    assert_eq!(
        sim.received(server).len(),
        40,
        "all packets before the disconnect"
    );
    assert_eq!(sim.disconnects(server), vec![55]);
}

#[test]
fn a_server_side_disconnect_reaches_the_client_with_its_data() {
    let mut sim = Sim::new(26, 0);
    let server = sim.add_host(2, 1);
    let client = sim.add_host(1, 1);
    let (_, server_peer) = connect(&mut sim, client, server, 1, 0);
    assert_eq!(
        sim.host(server).disconnect(server_peer, 0xBEEF),
        DisconnectEffect::Done
    );
    assert!(time_to_disconnect(&mut sim, client, 5000).is_some());
    assert_eq!(sim.disconnects(client), vec![0xBEEF]);
    assert!(
        time_to_disconnect(&mut sim, server, 5000).is_some() || !sim.disconnects(server).is_empty()
    );
    assert_eq!(sim.host(server).public.connectedPeers, 0);
}

#[test]
fn a_full_host_refuses_and_a_freed_slot_is_reused() {
    let mut sim = Sim::new(27, 0);
    let server = sim.add_host(1, 1);
    let first = sim.add_host(1, 1);
    let second = sim.add_host(1, 1);
    let (first_peer, _) = connect(&mut sim, first, server, 1, 1);
    let server_address = sim.hosts[server].address;
    let refused = sim.host(second).connect(server_address, 1, 2).unwrap();
    sim.run_for(3000);
    assert_eq!(
        sim.state(second, refused),
        ENET_PEER_STATE_CONNECTING,
        "no slot: no answer"
    );
    sim.host(second).reset_peer(refused);
    for round in 0..20u32 {
        let client = if round % 2 == 0 { first } else { second };
        if round > 0 {
            connect(&mut sim, client, server, 1, round);
        }
        let peer = sim.slot(client, 0);
        assert_eq!(
            sim.host(client).disconnect(peer, round),
            DisconnectEffect::Done
        );
        assert!(sim.run_until(5000, |s| s.state(client, peer)
            == ENET_PEER_STATE_DISCONNECTED
            && s.state(server, s.slot(server, 0)) == ENET_PEER_STATE_DISCONNECTED));
    }
    assert_eq!(sim.disconnects(server).len(), 20);
    assert_eq!(sim.connects(server), 20);
    let _ = first_peer;
}

#[test]
fn a_new_connection_gets_fresh_channels_in_a_slot_used_before() {
    let mut sim = Sim::new(27, 0);
    let server = sim.add_host(1, 2);
    let client = sim.add_host(1, 2);
    let (client_peer, server_peer) = connect(&mut sim, client, server, 2, 0);
    for _ in 0..3 {
        send(&mut sim, client, client_peer, b"numbered");
    }
    sim.run_for(500);
    let old_channels = sim.host(server).peer(server_peer).channels;
    // SAFETY: the connected peer's two channels live at `channels`.
    let used = unsafe { (*old_channels).incomingReliableSequenceNumber };
    assert_eq!(used, 3, "the channel counted the messages");
    assert_eq!(
        sim.host(client).disconnect(client_peer, 0),
        DisconnectEffect::Done
    );
    assert!(time_to_disconnect(&mut sim, server, 5000).is_some());
    assert!(sim.host(server).peer(server_peer).channels.is_null());
    sim.run_until(5000, |s| {
        s.state(client, client_peer) == ENET_PEER_STATE_DISCONNECTED
    });

    // Where the process recycles channel arrays, the new connection may
    // get the old one's memory (mem::channels tests that): it must be blank.
    let (_, again) = connect(&mut sim, client, server, 2, 0);
    let peer = sim.host(server).peer(again);
    assert_eq!(peer.channelCount, 2);
    // SAFETY: the new connection's two channels live at `channels`.
    let fresh = unsafe { core::slice::from_raw_parts(peer.channels, 2) };
    for channel in fresh {
        assert_eq!(channel.incomingReliableSequenceNumber, 0);
        assert_eq!(channel.outgoingReliableSequenceNumber, 0);
        assert_eq!(channel.usedReliableWindows, 0);
        let list = &channel.incomingReliableCommands;
        assert_eq!(
            list.sentinel.next,
            core::ptr::addr_of!(list.sentinel).cast_mut()
        );
    }
}
