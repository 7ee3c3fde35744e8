//! The network conditioner from Rust: `Host::set_netsim` on a live host,
//! its counts, turning it off, and refused specs.

use std::time::{Duration, Instant};

use enet_safe::{Error, Event, Host, HostConfig, Packet};

#[test]
fn a_host_s_own_bad_network() {
    let mut server = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    let mut client = Host::client(HostConfig::default()).unwrap();
    assert!(client.netsim_stats().is_none());
    client.set_netsim("lag=20ms,dup=20%,seed=4").unwrap();
    let peer = client.connect(server.local_addr().unwrap(), 1, 0).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut received = Vec::new();
    let mut sent = 0;
    while received.len() < 50 && Instant::now() < deadline {
        if let Some(Event::Receive { packet, .. }) =
            server.service(Duration::from_millis(1)).unwrap()
        {
            received.push(packet.data().to_vec());
        }
        if let Some(Event::Connect { .. }) = client.service(Duration::from_millis(1)).unwrap() {
            for number in 0..50u8 {
                client.send(peer, 0, Packet::reliable(&[number])).unwrap();
                sent += 1;
            }
        }
    }
    assert_eq!(sent, 50);
    // Each message once, in order, through lag and duplication.
    assert_eq!(received, (0..50u8).map(|n| vec![n]).collect::<Vec<_>>());
    let stats = client.netsim_stats().expect("a conditioner");
    assert!(
        stats.outgoing.delayed > 0 && stats.incoming.delayed > 0,
        "{stats:?}"
    );
    assert!(
        stats.outgoing.duplicated + stats.incoming.duplicated > 0,
        "{stats:?}"
    );

    let refused = client.set_netsim("loss=5%,jitter=often").unwrap_err();
    assert!(matches!(refused, Error::Netsim(_)));
    assert!(refused.to_string().contains("`jitter`"), "{refused}");
    assert!(
        client.netsim_stats().is_some(),
        "a refused spec keeps the old one"
    );
    client.set_netsim("").unwrap();
    assert!(client.netsim_stats().is_none());
}
