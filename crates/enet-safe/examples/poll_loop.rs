//! Hosts in a program's own `poll(2)` loop: a server and a client in one
//! thread, with no thread of their own and no polling every frame. Each
//! host's wait handle (`Host::wait_handle`) sits in the program's poll set,
//! and the loop sleeps until one is ready or the sooner of the hosts'
//! deadlines (`Host::next_deadline`) comes; then it services both without
//! waiting. The client sends ten lines, the server echoes them, and the
//! client disconnects.
//!
//! An async runtime (tokio's `AsyncFd`, async-io's `Async`) would watch the
//! same descriptor and sleep on the same deadline; none is in this
//! workspace's dependencies, and an example should build offline with
//! what the library already uses, so this one calls `poll(2)` itself.
//!
//! `cargo run -p enet-safe --example poll_loop` (Unix).

#[cfg(unix)]
mod unix {
    use std::os::fd::RawFd;
    use std::time::Duration;

    use enet_safe::{Event, Host, HostConfig, Packet};

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

    /// Sleeps until one of `handles` is readable or `timeout` passes
    /// (`None`: no limit).
    fn sleep_on(handles: &[RawFd], timeout: Option<Duration>) {
        let mut watched: Vec<PollFd> = handles
            .iter()
            .map(|&fd| PollFd {
                fd,
                events: POLLIN,
                revents: 0,
            })
            .collect();
        let ms = timeout.map_or(-1, |left| {
            i32::try_from(left.as_millis()).unwrap_or(i32::MAX)
        });
        // SAFETY: `watched` holds valid pollfds for the whole call.
        unsafe { poll(watched.as_mut_ptr(), watched.len() as PollCount, ms) };
    }

    pub fn main() -> Result<(), enet_safe::Error> {
        let mut server = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default())?;
        let mut client = Host::client(HostConfig::default())?;
        let to_server = client.connect(server.local_addr()?, 1, 0)?;
        let handles = [server.wait_handle()?, client.wait_handle()?];
        let (mut sent, mut echoes, mut done) = (0, 0, false);
        while !done {
            // Asked before every wait: it also clears what the last wake
            // left signalled on the handles.
            let deadline = match (server.next_deadline(), client.next_deadline()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if deadline != Some(Duration::ZERO) {
                sleep_on(&handles, deadline);
            }
            while let Some(event) = server.service(Duration::ZERO)? {
                match event {
                    Event::Receive { peer, packet, .. } => {
                        server.send(peer, 0, Packet::reliable(packet.data()))?
                    }
                    Event::Disconnect { .. } => done = true,
                    _ => {}
                }
            }
            while let Some(event) = client.service(Duration::ZERO)? {
                match event {
                    Event::Connect { .. } => {}
                    Event::Receive { packet, .. } => {
                        println!("echo: {}", String::from_utf8_lossy(packet.data()));
                        echoes += 1;
                        if echoes == 10 {
                            client.disconnect(to_server, 0)?;
                        }
                    }
                    _ => {}
                }
            }
            // One line at a time, each once the last came back.
            if sent == echoes && sent < 10 && client.is_connected(to_server) {
                sent += 1;
                client.send(
                    to_server,
                    0,
                    Packet::reliable(format!("line {sent}").as_bytes()),
                )?;
            }
        }
        println!("{echoes} echoes");
        Ok(())
    }
}

#[cfg(unix)]
fn main() -> Result<(), enet_safe::Error> {
    unix::main()
}

#[cfg(not(unix))]
fn main() {
    println!("this example waits with poll(2): Unix only");
}
