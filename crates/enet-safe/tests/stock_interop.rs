//! The safe API against stock ENet 1.3.17 (Debian's C library, in another
//! process, `tests/stock_peer.c`), both ways round over 127.0.0.1: a stock
//! server echoes what our client sends, and our server echoes what a stock
//! client sends; every packet comes back once, in order, intact.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use enet_safe::{Delivery, Event, Host, HostConfig, Packet};

/// `stock_peer.c` built against Debian's header and library, once for
/// every test (they run at once, and a program being written cannot run).
fn stock_peer() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(build_stock_peer).clone()
}

fn build_stock_peer() -> PathBuf {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("stock_peer");
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/stock_peer.c");
    let built = Command::new("gcc")
        .args(["-std=c99", "-O1", "-Wall", "-Werror", "-I/usr/include"])
        .arg(&source)
        .args(["-o"])
        .arg(&out)
        .args(["-L/usr/lib/x86_64-linux-gnu", "-lenet", "-ldl"])
        .status()
        .expect("gcc runs (install build-essential and libenet-dev)");
    assert!(
        built.success(),
        "building stock_peer.c against Debian's libenet failed"
    );
    out
}

/// Starts the stock peer with `args`, on Debian's library (never ours).
fn spawn(args: &[&str]) -> Child {
    Command::new(stock_peer())
        .args(args)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("LD_PRELOAD")
        .stdout(Stdio::piped())
        .spawn()
        .expect("stock_peer starts")
}

/// Waits up to 15 s for `child` to exit; its status, or a kill.
fn finish(mut child: Child) -> bool {
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().expect("wait") {
            return status.success();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

#[test]
fn our_client_and_a_stock_server_echo() {
    let mut server = spawn(&["server"]);
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let port: u16 = lines
        .next()
        .and_then(Result::ok)
        .and_then(|line| line.strip_prefix("PORT ").map(str::parse))
        .and_then(Result::ok)
        .expect("PORT line");
    let library = lines.next().and_then(Result::ok).unwrap_or_default();
    assert!(
        library.starts_with("LIB /usr/lib") || library.starts_with("LIB /lib"),
        "the server must run on Debian's stock library, not {library}"
    );

    let mut client = Host::client(HostConfig::default()).unwrap();
    let address = format!("127.0.0.1:{port}").parse().unwrap();
    let peer = client.connect(address, 3, 0).unwrap();
    let big: Vec<u8> = (0..20_000u32).map(|i| (i % 251) as u8).collect();
    let mut connected = false;
    let mut echoed = Vec::new();
    let mut big_back = None;
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline && (echoed.len() < 100 || big_back.is_none()) {
        match client.service(Duration::from_millis(5)).unwrap() {
            Some(Event::Connect { peer: who, .. }) => {
                assert_eq!(who, peer);
                connected = true;
                for i in 0..100u32 {
                    client
                        .send(peer, 0, Packet::reliable(&i.to_be_bytes()))
                        .unwrap();
                }
                client.send(peer, 1, Packet::reliable(&big)).unwrap();
                // The stock server allows two channels: a third is refused.
                assert!(matches!(
                    client.send(peer, 2, Packet::reliable(b"x")),
                    Err(enet_safe::Error::BadChannel {
                        channel: 2,
                        channels: 2
                    })
                ));
            }
            Some(Event::Receive {
                channel, packet, ..
            }) => {
                assert_eq!(packet.delivery(), Delivery::Reliable);
                if channel == 0 {
                    echoed.push(u32::from_be_bytes(packet.data().try_into().unwrap()));
                } else {
                    big_back = Some(packet.data().to_vec());
                }
            }
            Some(Event::Disconnect { .. }) => panic!("the stock server dropped us"),
            None => {}
        }
    }
    assert!(connected);
    assert!(echoed.iter().copied().eq(0..100), "echoes: {echoed:?}");
    assert_eq!(big_back.as_deref(), Some(&big[..]), "the fragmented packet");
    assert!(client.peer_info(peer).unwrap().round_trip_time < Duration::from_secs(1));

    client.disconnect(peer, 7).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut gone = false;
    while !gone && Instant::now() < deadline {
        if let Some(Event::Disconnect { peer: who, .. }) =
            client.service(Duration::from_millis(5)).unwrap()
        {
            assert_eq!(who, peer);
            gone = true;
        }
    }
    assert!(gone);
    // The handle is stale now.
    assert!(matches!(
        client.send(peer, 0, Packet::reliable(b"late")),
        Err(enet_safe::Error::PeerGone)
    ));
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(finish(server), "the stock server failed");
    assert!(rest.contains(&"DISCONNECT 7".to_string()), "{rest:?}");
}

#[test]
fn a_stock_client_and_our_server_echo() {
    let mut server = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    let port = server.local_addr().unwrap().port().to_string();
    let client = spawn(&["client", &port, "200"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut connect_data = None;
    let mut disconnect_data = None;
    while disconnect_data.is_none() && Instant::now() < deadline {
        match server.service(Duration::from_millis(5)).unwrap() {
            Some(Event::Connect { data, .. }) => connect_data = Some(data),
            Some(Event::Receive {
                peer,
                channel,
                packet,
            }) => {
                let echo = Packet::new(packet.data(), packet.delivery());
                server.send(peer, channel, echo).unwrap();
            }
            Some(Event::Disconnect { data, .. }) => disconnect_data = Some(data),
            None => {}
        }
    }
    // Let the acknowledgement of the DISCONNECT leave.
    server.flush().unwrap();
    assert_eq!(connect_data, Some(99));
    assert_eq!(disconnect_data, Some(7));
    assert!(
        finish(client),
        "the stock client did not get every echo back"
    );
}
