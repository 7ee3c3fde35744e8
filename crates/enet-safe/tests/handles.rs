//! Peer handles are generation-checked: a handle of a peer that left stays
//! refused after another peer takes its slot, and errors say why.

use std::time::{Duration, Instant};

mod common;

use enet_safe::{Error, Event, Host, HostConfig, Packet, Peer};

/// Connects `client` to `server` over 2 channels; the server's peer.
fn connect(server: &mut Host, client: &mut Host) -> Peer {
    common::connect(server, client, 2).0
}

#[test]
fn a_stale_handle_never_reaches_the_next_peer_in_its_slot() {
    let config = HostConfig {
        peers: 1,
        ..HostConfig::default()
    };
    let mut server = Host::bind("127.0.0.1:0".parse().unwrap(), config).unwrap();
    let mut first = Host::client(HostConfig::default()).unwrap();
    let old = connect(&mut server, &mut first);
    assert!(server.is_connected(old));
    server.disconnect_now(old, 0).unwrap();
    assert!(!server.is_connected(old));

    let mut second = Host::client(HostConfig::default()).unwrap();
    let new = connect(&mut server, &mut second);
    assert_eq!(new.slot(), old.slot(), "the one slot was reused");
    assert_ne!(new, old);
    assert!(matches!(
        server.send(old, 0, Packet::reliable(b"stale")),
        Err(Error::PeerGone)
    ));
    assert!(matches!(server.peer_info(old), Err(Error::PeerGone)));
    assert!(matches!(server.disconnect(old, 0), Err(Error::PeerGone)));
    server.send(new, 0, Packet::unsequenced(b"fresh")).unwrap();
    let error = server.send(new, 9, Packet::reliable(b"x")).unwrap_err();
    assert_eq!(error.to_string(), "channel 9 is not one of the peer's 2");

    // The second client gets only what was sent with the fresh handle.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut got = None;
    while got.is_none() && Instant::now() < deadline {
        server.service(Duration::from_millis(1)).unwrap();
        if let Some(Event::Receive { packet, .. }) = second.service(Duration::ZERO).unwrap() {
            got = Some((packet.data().to_vec(), packet.delivery()));
        }
    }
    assert_eq!(
        got,
        Some((b"fresh".to_vec(), enet_safe::Delivery::Unsequenced))
    );
}

#[test]
fn errors_name_their_cause() {
    let too_many = HostConfig {
        peers: 5000,
        ..HostConfig::default()
    };
    assert!(matches!(
        Host::client(too_many),
        Err(Error::TooManyPeers(5000))
    ));
    let taken = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    let busy = Host::bind(taken.local_addr().unwrap(), HostConfig::default());
    let Err(Error::Socket(error)) = busy else {
        panic!("binding a taken port must fail");
    };
    assert_eq!(error.kind(), std::io::ErrorKind::AddrInUse);
    let mut ipv4 = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    assert!(matches!(
        ipv4.connect("[::1]:9".parse().unwrap(), 1, 0),
        Err(Error::AddressFamily)
    ));
}

#[test]
fn a_peer_of_one_host_is_refused_by_another() {
    let config = HostConfig {
        peers: 1,
        ..HostConfig::default()
    };
    let mut first_server = Host::bind("127.0.0.1:0".parse().unwrap(), config).unwrap();
    let mut second_server = Host::bind("127.0.0.1:0".parse().unwrap(), config).unwrap();
    let mut first_client = Host::client(HostConfig::default()).unwrap();
    let mut second_client = Host::client(HostConfig::default()).unwrap();
    let first = connect(&mut first_server, &mut first_client);
    let second = connect(&mut second_server, &mut second_client);
    // The same slot of two hosts: only the host field tells them apart.
    assert_eq!(first.slot(), second.slot());
    assert_ne!(first, second);
    assert!(matches!(
        second_server.send(first, 0, Packet::reliable(b"wrong host")),
        Err(Error::ForeignPeer)
    ));
    assert!(matches!(
        second_server.peer_info(first),
        Err(Error::ForeignPeer)
    ));
    assert!(!second_server.is_connected(first));
    let sender = second_server.sender().unwrap();
    assert!(matches!(
        sender.send(first, 0, Packet::reliable(b"wrong host")),
        Err(Error::ForeignPeer)
    ));
    assert!(matches!(
        sender.disconnect(first, 0),
        Err(Error::ForeignPeer)
    ));
    // Each host still serves its own.
    assert!(first_server.is_connected(first));
    second_server
        .send(second, 0, Packet::reliable(b"right host"))
        .unwrap();
}
