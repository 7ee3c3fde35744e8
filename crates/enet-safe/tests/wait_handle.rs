//! A host waited on from the program's own loop: `poll(2)` on
//! `Host::wait_handle` for up to `Host::next_deadline`, then `service`
//! without waiting. Unix only (the handle is a descriptor there).
#![cfg(unix)]

#[path = "../../../tests/dtls/certs.rs"]
#[allow(dead_code)]
mod certs;

use std::os::fd::RawFd;
use std::thread;
use std::time::{Duration, Instant};

use enet_safe::{Event, Host, HostConfig, Packet, Peer, ServerCheck};

#[repr(C)]
struct PollFd {
    fd: RawFd,
    events: i16,
    revents: i16,
}

const POLLIN: i16 = 1;

/// `nfds_t`.
#[cfg(any(target_os = "linux", target_os = "android"))]
type PollCount = std::ffi::c_ulong;
/// `nfds_t`.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
type PollCount = std::ffi::c_uint;

extern "C" {
    fn poll(fds: *mut PollFd, count: PollCount, timeout: i32) -> i32;
}

/// Waits until `handle` is readable or `timeout` passes; whether it was.
fn wait_readable(handle: RawFd, timeout: Option<Duration>) -> bool {
    let mut watched = PollFd {
        fd: handle,
        events: POLLIN,
        revents: 0,
    };
    let ms = timeout.map_or(-1, |left| {
        i32::try_from(left.as_millis()).unwrap_or(i32::MAX)
    });
    // SAFETY: one valid pollfd, alive for the call.
    unsafe { poll(&mut watched, 1, ms) > 0 }
}

/// One turn of the loop on `host`, waiting at most `cap`: the events it
/// had, and whether the handle (not the deadline) ended the wait.
fn turn(host: &mut Host, cap: Duration) -> (Vec<Event>, bool) {
    let handle = host.wait_handle().unwrap();
    let ready = match host.next_deadline() {
        Some(Duration::ZERO) => true,
        deadline => wait_readable(handle, Some(deadline.map_or(cap, |left| left.min(cap)))),
    };
    let mut events = Vec::new();
    while let Some(event) = host.service(Duration::ZERO).unwrap() {
        events.push(event);
    }
    (events, ready)
}

fn connected_pair() -> (Host, Host, Peer, Peer) {
    let mut server = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    let mut client = Host::client(HostConfig::default()).unwrap();
    let to_server = client.connect(server.local_addr().unwrap(), 1, 0).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let (mut accepted, mut client_done) = (None, false);
    while Instant::now() < deadline && (accepted.is_none() || !client_done) {
        for event in turn(&mut server, Duration::from_millis(5)).0 {
            if let Event::Connect { peer, .. } = event {
                accepted = Some(peer);
            }
        }
        for event in turn(&mut client, Duration::from_millis(5)).0 {
            client_done |= matches!(event, Event::Connect { .. });
        }
    }
    (server, client, accepted.expect("connected"), to_server)
}

#[test]
fn an_idle_host_has_no_deadline_and_its_handle_stays_quiet() {
    let mut host = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default()).unwrap();
    let handle = host.wait_handle().unwrap();
    assert_eq!(host.wait_handle().unwrap(), handle, "one handle per host");
    assert_eq!(host.next_deadline(), None);
    assert!(!wait_readable(handle, Some(Duration::from_millis(50))));
}

#[test]
fn datagrams_and_senders_wake_the_loop() {
    let (mut server, mut client, to_client, to_server) = connected_pair();
    // Connected: the ping and the throttle pass are timed.
    let deadline = server.next_deadline().expect("a timer with a peer");
    assert!(deadline <= Duration::from_secs(1));

    // A datagram: the client's send is work now for the client, and wakes
    // the server's handle once sent.
    client
        .send(to_server, 0, Packet::reliable(b"ping"))
        .unwrap();
    assert_eq!(client.next_deadline(), Some(Duration::ZERO));
    turn(&mut client, Duration::ZERO);
    let started = Instant::now();
    let mut got = None;
    while got.is_none() && started.elapsed() < Duration::from_secs(5) {
        for event in turn(&mut server, Duration::from_secs(1)).0 {
            if let Event::Receive { packet, .. } = event {
                got = Some(packet.data().to_vec());
            }
        }
    }
    assert_eq!(got.as_deref(), Some(&b"ping"[..]));

    // A sender's request from another thread ends a wait that no timer
    // would end for a while.
    let sender = server.sender().unwrap();
    let worker = thread::spawn(move || {
        thread::sleep(Duration::from_millis(50));
        sender
            .send(to_client, 0, Packet::reliable(b"from a thread"))
            .unwrap();
    });
    let started = Instant::now();
    let mut woken_by_handle = false;
    while !woken_by_handle && started.elapsed() < Duration::from_secs(5) {
        woken_by_handle = turn(&mut server, Duration::from_secs(5)).1;
    }
    worker.join().unwrap();
    assert!(woken_by_handle);
    assert!(started.elapsed() < Duration::from_secs(1));
    // The wake was consumed: once the deadline was asked, the handle is
    // quiet.
    server.next_deadline();
    assert!(!wait_readable(
        server.wait_handle().unwrap(),
        Some(Duration::ZERO)
    ));

    let started = Instant::now();
    let mut received = false;
    while !received && started.elapsed() < Duration::from_secs(5) {
        received = turn(&mut client, Duration::from_millis(100))
            .0
            .iter()
            .any(|event| matches!(event, Event::Receive { packet, .. } if packet.data() == b"from a thread"));
        turn(&mut server, Duration::ZERO);
    }
    assert!(received);
}

/// One turn of a loop that waits on both hosts at once, at most `cap`;
/// each host's events, tagged with whether the server had it.
fn turn_both(server: &mut Host, client: &mut Host, cap: Duration) -> Vec<(bool, Event)> {
    let handles = [server.wait_handle().unwrap(), client.wait_handle().unwrap()];
    let deadline = [server.next_deadline(), client.next_deadline()]
        .into_iter()
        .flatten()
        .min()
        .map_or(cap, |soonest| soonest.min(cap));
    if !deadline.is_zero() {
        let mut watched: Vec<PollFd> = handles
            .iter()
            .map(|&fd| PollFd {
                fd,
                events: POLLIN,
                revents: 0,
            })
            .collect();
        let ms = i32::try_from(deadline.as_millis()).unwrap_or(i32::MAX);
        // SAFETY: `watched` holds valid pollfds for the whole call.
        unsafe { poll(watched.as_mut_ptr(), watched.len() as PollCount, ms) };
    }
    let mut events = Vec::new();
    for (is_server, host) in [(true, &mut *server), (false, &mut *client)] {
        while let Some(event) = host.service(Duration::ZERO).unwrap() {
            events.push((is_server, event));
        }
    }
    events
}

#[test]
fn an_encrypted_handshake_runs_on_the_loop_alone() {
    let ca = certs::ca("the CA");
    let identity = certs::server(&ca, "localhost");
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
    let to_server = client.connect(server.local_addr().unwrap(), 1, 0).unwrap();
    // Each wait may last 5 s: a wake or a deadline the loop missed would
    // stall the handshake that long.
    let started = Instant::now();
    let (mut server_up, mut client_up, mut echoed) = (false, false, false);
    while !echoed && started.elapsed() < Duration::from_secs(20) {
        for (is_server, event) in turn_both(&mut server, &mut client, Duration::from_secs(5)) {
            match event {
                Event::Connect { .. } if is_server => server_up = true,
                Event::Connect { .. } => {
                    client_up = true;
                    client
                        .send(to_server, 0, Packet::reliable(b"secret"))
                        .unwrap();
                }
                Event::Receive { peer, packet, .. } if is_server => {
                    server
                        .send(peer, 0, Packet::reliable(packet.data()))
                        .unwrap();
                }
                Event::Receive { packet, .. } => echoed = packet.data() == b"secret",
                Event::Disconnect { .. } => panic!("disconnected"),
            }
        }
    }
    assert!(server_up && client_up && echoed);
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "no wait ran to its cap: {:?}",
        started.elapsed()
    );
}
