//! Back-pressure: a peer's send limit refuses sends with
//! `Error::OverSendLimit` while the backlog is full, and takes them again
//! once acknowledgements have drained it. Two hosts over 127.0.0.1.

use std::time::{Duration, Instant};

mod common;

use enet_safe::{Error, Event, Host, HostConfig, Packet, Peer};

/// Connects `client` to `server`; the server's peer.
fn connect(server: &mut Host, client: &mut Host) -> Peer {
    common::connect(server, client, 1).0
}

#[test]
fn sends_are_refused_at_the_limit_and_taken_again_once_acknowledged() {
    let mut server = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    let mut client = Host::client(HostConfig::default()).unwrap();
    let peer = connect(&mut server, &mut client);
    assert_eq!(server.send_limit(peer).unwrap(), 0, "none by default");
    server.set_send_limit(peer, 3000).unwrap();
    assert_eq!(server.send_limit(peer).unwrap(), 3000);

    // The client is not serviced: nothing is acknowledged. 0, 1000 and
    // 2000 bytes are under the limit, so three packets are taken.
    let message = [7u8; 1000];
    for _ in 0..3 {
        server.send(peer, 0, Packet::reliable(&message)).unwrap();
    }
    server.flush().unwrap();
    assert_eq!(server.send_backlog(peer).unwrap(), 3000);
    let error = server
        .send(peer, 0, Packet::reliable(&message))
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::OverSendLimit {
                backlog: 3000,
                limit: 3000
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "the peer's send backlog of 3000 bytes is at or over its limit of 3000"
    );

    // The client answers: the backlog drains and sends are taken again.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut received = 0;
    while Instant::now() < deadline && (received < 3 || server.send_backlog(peer).unwrap() > 0) {
        if let Some(Event::Receive { .. }) = client.service(Duration::ZERO).unwrap() {
            received += 1;
        }
        server.service(Duration::from_millis(1)).unwrap();
    }
    assert_eq!(received, 3);
    assert_eq!(server.send_backlog(peer).unwrap(), 0);
    server.send(peer, 0, Packet::reliable(&message)).unwrap();

    // Taken away, the limit refuses nothing.
    server.set_send_limit(peer, 0).unwrap();
    for _ in 0..10 {
        server.send(peer, 0, Packet::reliable(&message)).unwrap();
    }
    assert_eq!(server.send_backlog(peer).unwrap(), 11_000);
}
