//! An echo server: every packet goes back to its sender, on its channel,
//! delivered as it came.
//!
//! `cargo run -p enet-safe --example server -- [ADDRESS]` (default
//! `[::]:7777`, which takes IPv4 and IPv6 clients).

use std::time::Duration;

use enet_safe::{Event, Host, HostConfig, Packet};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "[::]:7777".to_string())
        .parse()?;
    let mut host = Host::bind(address, HostConfig::default())?;
    println!("listening on {}", host.local_addr()?);
    loop {
        match host.service(Duration::from_millis(100))? {
            Some(Event::Connect { peer, data }) => {
                println!("{} connected (data {data})", host.peer_info(peer)?.address);
            }
            Some(Event::Receive {
                peer,
                channel,
                packet,
            }) => {
                host.send(peer, channel, Packet::new(packet.data(), packet.delivery()))?;
            }
            Some(Event::Disconnect { peer, data }) => {
                println!("peer in slot {} left (data {data})", peer.slot());
            }
            None => {}
        }
    }
}
