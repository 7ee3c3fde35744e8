//! What several of the safe API's tests share: two hosts over 127.0.0.1,
//! connected. (Each test binary that declares it uses part of it.)
#![allow(dead_code)]

use std::time::{Duration, Instant};

use enet_safe::{Event, Host, HostConfig, Peer};

/// Connects `client` to `server` over `channels` channels, servicing
/// both (for 5 s at most) until each has seen its CONNECT; the server's
/// peer and the client's.
pub fn connect(server: &mut Host, client: &mut Host, channels: usize) -> (Peer, Peer) {
    let address = server.local_addr().unwrap();
    let ours = client.connect(address, channels, 0).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let (mut accepted, mut client_done) = (None, false);
    while Instant::now() < deadline && (accepted.is_none() || !client_done) {
        if let Some(Event::Connect { peer, .. }) = server.service(Duration::from_millis(1)).unwrap()
        {
            accepted = Some(peer);
        }
        if let Some(Event::Connect { .. }) = client.service(Duration::ZERO).unwrap() {
            client_done = true;
        }
    }
    assert!(client_done, "the client saw no CONNECT");
    (accepted.expect("the server saw no CONNECT"), ours)
}

/// A server bound to 127.0.0.1 and a client connected to it over
/// `channels` channels, both with the default configuration; the server's
/// peer and the client's.
pub fn connected_pair(channels: usize) -> (Host, Host, Peer, Peer) {
    let mut server = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    let mut client = Host::client(HostConfig::default()).unwrap();
    let (accepted, ours) = connect(&mut server, &mut client, channels);
    (server, client, accepted, ours)
}
