//! A client of the echo server (`--example server`): connects, sends ten
//! reliable messages, prints the echoes and the round-trip time, and
//! disconnects.
//!
//! `cargo run -p enet-safe --example client -- [ADDRESS]` (default
//! `127.0.0.1:7777`).

use std::time::{Duration, Instant};

use enet_safe::{Event, Host, HostConfig, Packet};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:7777".to_string())
        .parse()?;
    let mut host = Host::client(HostConfig::default())?;
    let server = host.connect(address, 2, 0)?;
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut echoes = 0;
    while Instant::now() < deadline && echoes < 10 {
        match host.service(Duration::from_millis(50))? {
            Some(Event::Connect { .. }) => {
                for i in 0..10 {
                    host.send(
                        server,
                        0,
                        Packet::reliable(format!("message {i}").as_bytes()),
                    )?;
                }
            }
            Some(Event::Receive { packet, .. }) => {
                println!("echo: {}", String::from_utf8_lossy(packet.data()));
                echoes += 1;
            }
            Some(Event::Disconnect { .. }) => return Err("the server disconnected".into()),
            None => {}
        }
    }
    if echoes < 10 {
        return Err(format!("no answer from {address}").into());
    }
    println!(
        "round-trip time {:?}",
        host.peer_info(server)?.round_trip_time
    );
    host.disconnect(server, 0)?;
    while let Some(event) = host.service(Duration::from_millis(200))? {
        if matches!(event, Event::Disconnect { .. }) {
            break;
        }
    }
    Ok(())
}
