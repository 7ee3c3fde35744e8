//! Sending from other threads: every packet of every thread arrives once
//! and in its thread's order, a handle of a peer that left is refused, and
//! a sender outliving its host says so.

use std::thread;
use std::time::{Duration, Instant};

mod common;

use enet_safe::{Error, Event, Host, Packet, Peer, Sender};

const THREADS: u8 = 4;
const PER_THREAD: u32 = 500;

fn assert_send_sync<T: Send + Sync + Clone>() {}

/// A server and a connected client; the server's handle of the client.
fn connected_pair() -> (Host, Host, Peer) {
    let (server, client, accepted, _) = common::connected_pair(usize::from(THREADS));
    (server, client, accepted)
}

#[test]
fn threads_send_through_one_host_each_in_order() {
    assert_send_sync::<Sender>();
    let (mut server, mut client, peer) = connected_pair();
    let sender = server.sender().unwrap();
    // Channel t carries thread t's packets: [t, sequence].
    let workers: Vec<_> = (0..THREADS)
        .map(|thread_index| {
            let sender = sender.clone();
            thread::spawn(move || {
                for sequence in 0..PER_THREAD {
                    let mut data = vec![thread_index];
                    data.extend_from_slice(&sequence.to_be_bytes());
                    sender
                        .send(peer, thread_index, Packet::reliable(&data))
                        .unwrap();
                }
            })
        })
        .collect();
    let mut next = [0u32; THREADS as usize];
    let deadline = Instant::now() + Duration::from_secs(20);
    let total = u32::from(THREADS) * PER_THREAD;
    while next.iter().sum::<u32>() < total && Instant::now() < deadline {
        server.service(Duration::from_millis(1)).unwrap();
        while let Some(event) = client.service(Duration::ZERO).unwrap() {
            if let Event::Receive {
                channel, packet, ..
            } = event
            {
                let data = packet.data();
                assert_eq!(data[0], channel, "thread t's packets travel on channel t");
                let sequence = u32::from_be_bytes(data[1..5].try_into().unwrap());
                assert_eq!(sequence, next[usize::from(channel)], "in order, once each");
                next[usize::from(channel)] += 1;
            }
        }
    }
    for worker in workers {
        worker.join().unwrap();
    }
    assert_eq!(next, [PER_THREAD; THREADS as usize]);
}

#[test]
fn a_sender_refuses_a_peer_that_left_and_a_host_that_is_gone() {
    let (mut server, mut client, peer) = connected_pair();
    let sender = server.sender().unwrap();
    // A broadcast from another thread reaches the client.
    let broadcaster = sender.clone();
    thread::spawn(move || broadcaster.broadcast(0, Packet::unsequenced(b"all")))
        .join()
        .unwrap()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut heard = false;
    while !heard && Instant::now() < deadline {
        server.service(Duration::from_millis(1)).unwrap();
        if let Some(Event::Receive { packet, .. }) = client.service(Duration::ZERO).unwrap() {
            heard = packet.data() == b"all";
        }
    }
    assert!(heard, "the broadcast arrived");

    // The server drops the peer: its handle is refused from then on.
    server.disconnect_now(peer, 0).unwrap();
    assert!(matches!(
        sender.send(peer, 0, Packet::reliable(b"late")),
        Err(Error::PeerGone)
    ));
    assert!(matches!(sender.disconnect(peer, 0), Err(Error::PeerGone)));

    drop(server);
    assert!(matches!(
        sender.broadcast(0, Packet::reliable(b"nobody")),
        Err(Error::HostGone)
    ));
    assert!(matches!(
        sender.send(peer, 0, Packet::reliable(b"nobody")),
        Err(Error::HostGone)
    ));
}

#[test]
fn a_disconnect_queued_by_a_sender_ends_the_connection() {
    let (mut server, mut client, peer) = connected_pair();
    let sender = server.sender().unwrap();
    thread::spawn(move || sender.disconnect(peer, 77))
        .join()
        .unwrap()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let (mut client_saw, mut server_saw) = (None, false);
    while (client_saw.is_none() || !server_saw) && Instant::now() < deadline {
        if let Some(Event::Disconnect { peer: gone, .. }) =
            server.service(Duration::from_millis(1)).unwrap()
        {
            server_saw = gone == peer;
        }
        if let Some(Event::Disconnect { data, .. }) = client.service(Duration::ZERO).unwrap() {
            client_saw = Some(data);
        }
    }
    assert_eq!(
        client_saw,
        Some(77),
        "the client heard the disconnect's data"
    );
    assert!(server_saw, "the server reported its peer gone");
    assert!(!server.is_connected(peer));
}
