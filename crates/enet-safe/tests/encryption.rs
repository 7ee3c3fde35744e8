//! Encrypted hosts through the safe API: a DTLS server and a client that
//! verifies it, traffic both ways, a refused certificate with its reason,
//! and set-ups that are refused.

#[path = "../../../tests/dtls/certs.rs"]
#[allow(dead_code)]
mod certs;

use std::time::{Duration, Instant};

use enet_safe::{Encryption, Error, Event, Host, HostConfig, Packet, Peer, ServerCheck};

fn server(identity: &certs::Identity) -> Host {
    let mut host = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    host.encrypt_as_server(&identity.certificate_pem, &identity.key_pem)
        .unwrap();
    host
}

fn client(check: ServerCheck<'_>) -> Host {
    let mut host = Host::client(HostConfig::default()).unwrap();
    host.encrypt_as_client(check).unwrap();
    host
}

/// Services both hosts until `done` says so or `seconds` pass; `done`
/// sees each event with whether the server reported it.
fn pump(
    server: &mut Host,
    client: &mut Host,
    seconds: u64,
    mut done: impl FnMut(bool, &Event) -> bool,
) -> bool {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    while Instant::now() < deadline {
        for (from_server, host) in [(true, &mut *server), (false, &mut *client)] {
            while let Some(event) = host.service(Duration::from_millis(1)).unwrap() {
                if done(from_server, &event) {
                    return true;
                }
            }
        }
    }
    false
}

#[test]
fn encrypted_hosts_connect_and_carry_packets_both_ways() {
    let ca = certs::ca("the CA");
    let mut server = server(&certs::server(&ca, "localhost"));
    let mut client = client(ServerCheck::Trusted {
        certificates_pem: &ca.certificate_pem,
        host_name: Some("localhost"),
    });
    let address = server.local_addr().unwrap();
    let to_server = client.connect(address, 2, 7).unwrap();
    assert_eq!(
        client.encryption(to_server).unwrap(),
        Encryption::Handshaking
    );

    let mut to_client: Option<Peer> = None;
    let mut client_connected = false;
    let connected = pump(&mut server, &mut client, 10, |from_server, event| {
        match event {
            Event::Connect { peer, data } if from_server => {
                assert_eq!(*data, 7);
                to_client = Some(*peer);
            }
            Event::Connect { .. } => client_connected = true,
            other => panic!("unexpected {other:?}"),
        }
        to_client.is_some() && client_connected
    });
    assert!(connected, "both sides connect over DTLS");
    let to_client = to_client.unwrap();
    assert_eq!(
        client.encryption(to_server).unwrap(),
        Encryption::Established
    );
    assert_eq!(
        server.encryption(to_client).unwrap(),
        Encryption::Established
    );
    assert_eq!(server.encrypted_sessions(), 1);

    let big: Vec<u8> = (0..20_000u32).map(|i| (i * 7) as u8).collect();
    client.send(to_server, 1, Packet::reliable(&big)).unwrap();
    server
        .send(to_client, 0, Packet::reliable(b"over dtls"))
        .unwrap();
    let mut server_got = None;
    let mut client_got = None;
    pump(&mut server, &mut client, 10, |from_server, event| {
        if let Event::Receive {
            channel, packet, ..
        } = event
        {
            let slot = if from_server {
                &mut server_got
            } else {
                &mut client_got
            };
            *slot = Some((*channel, packet.data().to_vec()));
        }
        server_got.is_some() && client_got.is_some()
    });
    assert_eq!(server_got, Some((1, big)));
    assert_eq!(client_got, Some((0, b"over dtls".to_vec())));

    client.disconnect(to_server, 3).unwrap();
    let mut server_saw = None;
    pump(&mut server, &mut client, 10, |from_server, event| {
        if let (true, Event::Disconnect { data, .. }) = (from_server, event) {
            server_saw = Some(*data);
        }
        server_saw.is_some()
    });
    assert_eq!(server_saw, Some(3));
}

#[test]
fn a_certificate_from_another_ca_ends_in_a_disconnect_with_its_reason() {
    let ca = certs::ca("the CA");
    let other = certs::ca("another CA");
    let mut server = server(&certs::server(&other, "localhost"));
    let mut client = client(ServerCheck::Trusted {
        certificates_pem: &ca.certificate_pem,
        host_name: Some("localhost"),
    });
    let peer = client.connect(server.local_addr().unwrap(), 1, 0).unwrap();
    let ended = pump(&mut server, &mut client, 10, |from_server, event| {
        assert!(
            !matches!(event, Event::Connect { .. }),
            "nobody connects: {from_server} {event:?}"
        );
        matches!(event, Event::Disconnect { peer: gone, .. } if !from_server && *gone == peer)
    });
    assert!(ended, "the client's peer gets its disconnect");
    match client.encryption(peer).unwrap() {
        Encryption::Failed(why) => assert!(why.contains("not trusted"), "{why}"),
        other => panic!("expected a failure, got {other:?}"),
    }
    assert!(matches!(
        client.send(peer, 0, Packet::reliable(b"x")),
        Err(Error::PeerGone)
    ));
}

#[test]
fn set_ups_are_refused_for_bad_input_and_for_a_host_with_peers() {
    let ca = certs::ca("the CA");
    let identity = certs::server(&ca, "localhost");
    let mut host = Host::client(HostConfig::default()).unwrap();
    assert!(matches!(
        host.encrypt_as_server("not pem", &identity.key_pem),
        Err(Error::Encryption(_))
    ));
    assert!(matches!(
        host.encrypt_as_server(&identity.certificate_pem, &identity.certificate_pem),
        Err(Error::Encryption(_))
    ));
    assert!(matches!(
        host.encrypt_as_client(ServerCheck::Trusted {
            certificates_pem: &ca.certificate_pem,
            host_name: Some("not a host name!"),
        }),
        Err(Error::Encryption(_))
    ));
    let plain = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    let peer = host.connect(plain.local_addr().unwrap(), 1, 0).unwrap();
    assert!(matches!(
        host.encrypt_as_client(ServerCheck::None),
        Err(Error::HasPeers)
    ));
    // A plain host reports no encryption for its peers.
    assert_eq!(host.encryption(peer).unwrap(), Encryption::None);
    assert_eq!(host.encrypted_sessions(), 0);
}
