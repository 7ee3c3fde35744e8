//! Long and pausable timeouts through the safe API: `set_timeout` takes
//! `u32::MAX`, and `hold_timeouts` keeps the peer of a host whose program
//! stops servicing it for longer than the peer's timeout, where the same
//! stall without the hold ends it.

use std::thread::sleep;
use std::time::{Duration, Instant};

mod common;

use enet_safe::{Event, Host, HostConfig, Packet, Peer};

/// The stalling host's peer gives up after this much silence (ms).
const GIVE_UP_AFTER: u32 = 1500;
const STALL: Duration = Duration::from_millis(2500);

/// What the client saw and the server received.
#[derive(Default)]
struct Seen {
    disconnected: bool,
    received: Vec<u8>,
}

fn pump(host: &mut Host, seen: &mut Seen, for_how_long: Duration) {
    let until = Instant::now() + for_how_long;
    loop {
        while let Some(event) = host.service(Duration::ZERO).unwrap() {
            match event {
                Event::Disconnect { .. } => seen.disconnected = true,
                Event::Receive { packet, .. } => seen.received.extend_from_slice(packet.data()),
                _ => {}
            }
        }
        if Instant::now() >= until {
            break;
        }
        sleep(Duration::from_millis(1));
    }
}

fn connected_pair() -> (Host, Host, Peer) {
    let (mut server, client, accepted, peer) = common::connected_pair(1);
    // The other side waits as long as it takes.
    server
        .set_timeout(accepted, u32::MAX, u32::MAX, u32::MAX)
        .unwrap();
    (server, client, peer)
}

/// The client's program stalls for [`STALL`] with a reliable stream under
/// way and `hold` of timeouts held just before; whether its peer stayed,
/// and what the server received.
fn stall(hold: Option<Duration>) -> (bool, Vec<u8>) {
    let (mut server, mut client, peer) = connected_pair();
    client
        .set_timeout(peer, 32, GIVE_UP_AFTER / 2, GIVE_UP_AFTER)
        .unwrap();
    let (mut at_client, mut at_server) = (Seen::default(), Seen::default());
    pump(&mut server, &mut at_server, Duration::from_millis(50));
    pump(&mut client, &mut at_client, Duration::from_millis(50));
    for value in 0..5u8 {
        client.send(peer, 0, Packet::reliable(&[value])).unwrap();
    }
    pump(&mut client, &mut at_client, Duration::ZERO);
    if let Some(hold) = hold {
        client.hold_timeouts(hold);
        assert!(client.timeouts_held_for().is_some());
    }
    pump(&mut server, &mut at_server, STALL);
    let until = Instant::now() + Duration::from_millis(1500);
    while Instant::now() < until {
        pump(&mut client, &mut at_client, Duration::ZERO);
        pump(&mut server, &mut at_server, Duration::from_millis(1));
    }
    let kept = !at_client.disconnected && client.is_connected(peer);
    if kept {
        for value in 5..10u8 {
            client.send(peer, 0, Packet::reliable(&[value])).unwrap();
        }
        let until = Instant::now() + Duration::from_millis(5000);
        while Instant::now() < until && at_server.received.len() < 10 {
            pump(&mut client, &mut at_client, Duration::ZERO);
            pump(&mut server, &mut at_server, Duration::from_millis(1));
        }
    }
    (kept, at_server.received)
}

#[test]
fn a_hold_keeps_the_peer_of_a_stalled_program_and_without_it_the_stall_ends_it() {
    let (kept, _) = stall(None);
    assert!(!kept, "without a hold the stall should end the peer");
    for hold in [STALL * 2, STALL / 2, Duration::MAX] {
        let (kept, received) = stall(Some(hold));
        assert!(kept, "hold of {hold:?}: the peer was lost");
        assert_eq!(received, (0..10).collect::<Vec<u8>>(), "hold of {hold:?}");
    }
}

#[test]
fn a_hold_reads_back_and_ends_with_zero() {
    let mut host = Host::client(HostConfig::default()).unwrap();
    assert_eq!(host.timeouts_held_for(), None);
    host.hold_timeouts(Duration::from_secs(30));
    assert_eq!(host.timeouts_held_for(), Some(Duration::from_secs(30)));
    host.hold_timeouts(Duration::MAX);
    assert_eq!(host.timeouts_held_for(), Some(Duration::MAX));
    host.hold_timeouts(Duration::from_micros(10));
    assert_eq!(host.timeouts_held_for(), Some(Duration::from_millis(1)));
    host.hold_timeouts(Duration::ZERO);
    assert_eq!(host.timeouts_held_for(), None);
}
