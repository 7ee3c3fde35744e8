//! Path MTU discovery from Rust: `Host::set_path_mtu_discovery` and
//! `Host::path_mtu`, with 500 kB of reliable packets through the
//! conditioner's 1280-byte black hole.

use std::time::{Duration, Instant};

use enet_safe::{Event, Host, HostConfig, Packet};

#[test]
fn a_transfer_through_a_black_hole_finds_the_path() {
    let mut server = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    let mut client = Host::client(HostConfig::default()).unwrap();
    client.set_netsim("mtu=1280").unwrap();
    client.set_path_mtu_discovery(true);
    let peer = client.connect(server.local_addr().unwrap(), 2, 0).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut received = 0;
    let mut connected = false;
    let payload = vec![0x5A; 25_000];
    while received < 20 && Instant::now() < deadline {
        if let Some(Event::Receive {
            packet, channel, ..
        }) = server.service(Duration::from_millis(1)).unwrap()
        {
            assert_eq!((channel, packet.data()), (1, &payload[..]));
            received += 1;
        }
        if let Some(Event::Connect { .. }) = client.service(Duration::from_millis(1)).unwrap() {
            connected = true;
            assert_eq!(client.path_mtu(peer).unwrap(), 1200);
            for _ in 0..20 {
                client.send(peer, 1, Packet::reliable(&payload)).unwrap();
            }
        }
    }
    assert!(connected);
    assert_eq!(received, 20);
    // The search settles below the 1252 bytes the path carries.
    let settle = Instant::now() + Duration::from_secs(3);
    while Instant::now() < settle {
        assert!(server.service(Duration::from_millis(1)).unwrap().is_none());
        client.service(Duration::from_millis(1)).unwrap();
    }
    let found = client.path_mtu(peer).unwrap();
    assert!((1220..=1252).contains(&found), "path size {found}");
    client.set_path_mtu_discovery(false);
    assert_eq!(client.path_mtu(peer).unwrap(), 1400);
}
