//! Why a peer left, through the safe API: a graceful disconnect with its
//! data seen from both ends, `disconnect_now`, a refused certificate, and
//! a handle whose slot was taken again.

#[path = "../../../tests/dtls/certs.rs"]
#[allow(dead_code)]
mod certs;

use std::time::{Duration, Instant};

use enet_safe::{DisconnectReason, Error, Event, Host, HostConfig, Peer, ServerCheck};

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

/// Connects `client` to `server`; the server's peer and the client's.
fn connect(server: &mut Host, client: &mut Host) -> (Peer, Peer) {
    let ours = client.connect(server.local_addr().unwrap(), 1, 0).unwrap();
    let mut accepted = None;
    let mut client_done = false;
    assert!(pump(server, client, 5, |from_server, event| {
        if let Event::Connect { peer, .. } = event {
            if from_server {
                accepted = Some(*peer);
            } else {
                client_done = true;
            }
        }
        accepted.is_some() && client_done
    }));
    (accepted.unwrap(), ours)
}

fn pair() -> (Host, Host) {
    let server = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    let client = Host::client(HostConfig::default()).unwrap();
    (server, client)
}

#[test]
fn a_graceful_disconnect_is_remote_with_its_data_and_local_at_its_sender() {
    let (mut server, mut client) = pair();
    let (theirs, ours) = connect(&mut server, &mut client);
    assert_eq!(client.disconnect_reason(ours).unwrap(), None, "still up");
    server.disconnect(theirs, 0xC0FFEE).unwrap();
    let (mut client_saw, mut server_saw) = (false, false);
    assert!(pump(&mut server, &mut client, 5, |from_server, event| {
        if let Event::Disconnect { peer, data } = event {
            if from_server {
                server_saw = *peer == theirs;
            } else {
                assert_eq!(*data, 0xC0FFEE);
                client_saw = *peer == ours;
            }
        }
        client_saw && server_saw
    }));
    let reason = client.disconnect_reason(ours).unwrap();
    assert_eq!(reason, Some(DisconnectReason::Remote { data: 0xC0FFEE }));
    assert!(!reason.unwrap().is_timeout());
    assert_eq!(
        server.disconnect_reason(theirs).unwrap(),
        Some(DisconnectReason::Local)
    );
}

#[test]
fn disconnect_now_is_local_here_and_remote_there() {
    let (mut server, mut client) = pair();
    let (theirs, ours) = connect(&mut server, &mut client);
    client.disconnect_now(ours, 9).unwrap();
    assert_eq!(
        client.disconnect_reason(ours).unwrap(),
        Some(DisconnectReason::Local)
    );
    assert!(pump(&mut server, &mut client, 5, |from_server, event| {
        from_server && matches!(event, Event::Disconnect { peer, data: 9 } if *peer == theirs)
    }));
    assert_eq!(
        server.disconnect_reason(theirs).unwrap(),
        Some(DisconnectReason::Remote { data: 9 })
    );
    // Once the slot connects again, the old handle names nothing.
    let (_, again) = connect(&mut server, &mut client);
    assert_eq!(again.slot(), ours.slot());
    assert!(matches!(
        client.disconnect_reason(ours),
        Err(Error::PeerGone)
    ));
    assert_eq!(client.disconnect_reason(again).unwrap(), None);
}

#[test]
fn a_refused_certificate_is_an_encryption_failure_with_its_reason() {
    let ca = certs::ca("the CA");
    let other = certs::ca("another CA");
    let identity = certs::server(&other, "localhost");
    let mut server = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    server
        .encrypt_as_server(&identity.certificate_pem, &identity.key_pem)
        .unwrap();
    let mut client = Host::client(HostConfig::default()).unwrap();
    client
        .encrypt_as_client(ServerCheck::Trusted {
            certificates_pem: &ca.certificate_pem,
            host_name: Some("localhost"),
        })
        .unwrap();
    let peer = client.connect(server.local_addr().unwrap(), 1, 0).unwrap();
    assert!(pump(&mut server, &mut client, 10, |from_server, event| {
        matches!(event, Event::Disconnect { peer: gone, .. } if !from_server && *gone == peer)
    }));
    match client.disconnect_reason(peer).unwrap() {
        Some(DisconnectReason::Encryption(why)) => {
            assert!(why.contains("not trusted"), "{why}")
        }
        other => panic!("expected an encryption failure, got {other:?}"),
    }
}
