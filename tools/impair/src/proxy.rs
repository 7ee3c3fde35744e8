//! The proxy's sockets and schedule: datagrams in, decisions drawn, copies
//! released when due.

use std::collections::HashMap;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::pcap::Capture;
use netsim::{Link, Profile};

/// Client to server, then server to client.
const UP: usize = 0;
const DOWN: usize = 1;

/// What one direction did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    pub received: u64,
    pub forwarded: u64,
    pub lost: u64,
    pub duplicated: u64,
    pub reordered: u64,
    pub corrupted: u64,
    /// Dropped because the bandwidth cap's queue was full.
    pub queue_full: u64,
}

pub struct Proxy {
    listen: UdpSocket,
    server: SocketAddr,
    /// Each client's own socket towards the server.
    upstream: HashMap<SocketAddr, UdpSocket>,
    /// Each direction's impairments and held copies, tagged with the
    /// client they belong to.
    links: [Link<SocketAddr>; 2],
    /// Copies forwarded, and copies lost to a failed send.
    forwarded: [u64; 2],
    send_lost: [u64; 2],
    start: Instant,
    /// Where each datagram received is recorded, if anywhere.
    capture: Option<Capture>,
}

impl Proxy {
    /// Binds `listen` and forwards to `server`; `up` impairs what clients
    /// send, `down` what the server sends back.
    pub fn bind(
        listen: SocketAddr,
        server: SocketAddr,
        up: Profile,
        down: Profile,
        seed: u64,
    ) -> io::Result<Proxy> {
        let listen = UdpSocket::bind(listen)?;
        listen.set_nonblocking(true)?;
        Ok(Proxy {
            listen,
            server,
            upstream: HashMap::new(),
            links: [
                Link::new(up, seed),
                Link::new(down, seed ^ 0xD0D0_D0D0_D0D0_D0D0),
            ],
            forwarded: [0; 2],
            send_lost: [0; 2],
            start: Instant::now(),
            capture: None,
        })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listen.local_addr()
    }

    /// Records every datagram received from now on (as it arrived, before
    /// impairment) into `capture`.
    pub fn capture_to(&mut self, capture: Capture) {
        self.capture = Some(capture);
    }

    /// Counters of the client-to-server and server-to-client directions.
    pub fn counters(&self) -> [Counters; 2] {
        [UP, DOWN].map(|direction| {
            let stats = self.links[direction].stats();
            Counters {
                received: stats.datagrams,
                forwarded: self.forwarded[direction],
                lost: stats.dropped + self.send_lost[direction],
                duplicated: stats.duplicated,
                reordered: stats.reordered,
                corrupted: stats.corrupted,
                queue_full: stats.rate_dropped,
            }
        })
    }

    fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }

    /// Runs until `deadline` or until `stop` is set.
    pub fn run(&mut self, deadline: Instant, stop: &AtomicBool) -> io::Result<()> {
        let mut buffer = vec![0u8; 65536];
        while Instant::now() < deadline && !stop.load(Ordering::Relaxed) {
            self.release_due()?;
            let next_due = self.links.iter().filter_map(Link::next_due).min();
            let wait = next_due
                .map_or(50_000, |due_us| due_us.saturating_sub(self.now_us()))
                .min(50_000)
                .min(
                    deadline
                        .saturating_duration_since(Instant::now())
                        .as_micros() as u64,
                );
            self.wait_readable(Duration::from_micros(wait));
            self.receive_all(&mut buffer)?;
        }
        if let Some(capture) = self.capture.as_mut() {
            capture.flush()?;
        }
        Ok(())
    }

    /// Sleeps until a socket is readable or `timeout` passes.
    fn wait_readable(&self, timeout: Duration) {
        let mut fds: Vec<libc::pollfd> = std::iter::once(&self.listen)
            .chain(self.upstream.values())
            .map(|socket| libc::pollfd {
                fd: socket.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let millis = timeout.as_micros().div_ceil(1000).min(1000) as libc::c_int;
        // SAFETY: `fds` is a live, writable array of `fds.len()` pollfds
        // whose descriptors belong to sockets this proxy owns.
        unsafe {
            libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis);
        }
    }

    fn receive_all(&mut self, buffer: &mut [u8]) -> io::Result<()> {
        loop {
            match self.listen.recv_from(buffer) {
                Ok((length, client)) => {
                    if !self.upstream.contains_key(&client) {
                        let socket = UdpSocket::bind(SocketAddr::new(self.server.ip(), 0))?;
                        socket.set_nonblocking(true)?;
                        self.upstream.insert(client, socket);
                    }
                    self.admit(UP, client, &buffer[..length]);
                }
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => break,
                Err(error) if error.kind() == io::ErrorKind::ConnectionRefused => {}
                Err(error) => return Err(error),
            }
        }
        let clients: Vec<SocketAddr> = self.upstream.keys().copied().collect();
        for client in clients {
            loop {
                let received = self.upstream[&client].recv_from(buffer);
                match received {
                    Ok((length, from)) if from == self.server => {
                        self.admit(DOWN, client, &buffer[..length]);
                    }
                    Ok(_) => {}
                    Err(error) if error.kind() == io::ErrorKind::WouldBlock => break,
                    Err(error) if error.kind() == io::ErrorKind::ConnectionRefused => break,
                    Err(error) => return Err(error),
                }
            }
        }
        Ok(())
    }

    /// Decides a received datagram's fate and schedules its copies.
    fn admit(&mut self, direction: usize, client: SocketAddr, bytes: &[u8]) {
        if let Some(capture) = self.capture.as_mut() {
            let (from, to) = if direction == UP {
                (client, self.server)
            } else {
                (self.server, client)
            };
            // A capture that cannot be written is not worth stopping for.
            let _ = capture.record(from, to, bytes);
        }
        let now = self.now_us();
        self.links[direction].admit(now, bytes, client);
    }

    fn release_due(&mut self) -> io::Result<()> {
        let now = self.now_us();
        for direction in [UP, DOWN] {
            while let Some((client, bytes)) = self.links[direction].pop_due(now) {
                let sent = if direction == UP {
                    match self.upstream.get(&client) {
                        Some(socket) => socket.send_to(&bytes, self.server),
                        None => continue,
                    }
                } else {
                    self.listen.send_to(&bytes, client)
                };
                match sent {
                    Ok(_) => self.forwarded[direction] += 1,
                    // A full socket buffer or a closed peer: the datagram is
                    // lost, as on a real link.
                    Err(error)
                        if matches!(
                            error.kind(),
                            io::ErrorKind::WouldBlock | io::ErrorKind::ConnectionRefused
                        ) =>
                    {
                        self.send_lost[direction] += 1
                    }
                    Err(error) => return Err(error),
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_for(proxy: &mut Proxy, millis: u64) {
        let stop = AtomicBool::new(false);
        proxy
            .run(Instant::now() + Duration::from_millis(millis), &stop)
            .unwrap();
    }

    #[test]
    fn forwards_both_ways_through_real_sockets() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        let client = UdpSocket::bind("127.0.0.1:0").unwrap();
        server
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        let profile = Profile {
            delay_ms: 5,
            ..Profile::default()
        };
        let mut proxy = Proxy::bind(
            "127.0.0.1:0".parse().unwrap(),
            server.local_addr().unwrap(),
            profile,
            profile,
            1,
        )
        .unwrap();
        let proxy_address = proxy.local_addr().unwrap();
        for i in 0..20u8 {
            client.send_to(&[i; 10], proxy_address).unwrap();
        }
        run_for(&mut proxy, 100);
        let mut buffer = [0u8; 64];
        let mut seen = Vec::new();
        let mut upstream = None;
        for _ in 0..20 {
            let (length, from) = server.recv_from(&mut buffer).unwrap();
            assert_eq!(length, 10);
            seen.push(buffer[0]);
            upstream = Some(from);
            server.send_to(&buffer[..length], from).unwrap();
        }
        assert_eq!(seen, (0..20).collect::<Vec<u8>>());
        assert_ne!(upstream.unwrap(), client.local_addr().unwrap());
        run_for(&mut proxy, 100);
        for i in 0..20u8 {
            let (length, from) = client.recv_from(&mut buffer).unwrap();
            assert_eq!((length, buffer[0], from), (10, i, proxy_address));
        }
        let [up, down] = proxy.counters();
        assert_eq!((up.received, up.forwarded, down.forwarded), (20, 20, 20));
    }

    #[test]
    fn loss_and_corruption_show_in_what_arrives() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        server.set_nonblocking(true).unwrap();
        let client = UdpSocket::bind("127.0.0.1:0").unwrap();
        let profile = Profile {
            loss: 0.3,
            corrupt: 0.3,
            ..Profile::default()
        };
        let mut proxy = Proxy::bind(
            "127.0.0.1:0".parse().unwrap(),
            server.local_addr().unwrap(),
            profile,
            profile,
            3,
        )
        .unwrap();
        let proxy_address = proxy.local_addr().unwrap();
        for _ in 0..200 {
            client.send_to(&[0u8; 32], proxy_address).unwrap();
            run_for(&mut proxy, 1);
        }
        run_for(&mut proxy, 50);
        let mut buffer = [0u8; 64];
        let (mut arrived, mut damaged) = (0, 0);
        while let Ok((length, _)) = server.recv_from(&mut buffer) {
            arrived += 1;
            damaged += usize::from(buffer[..length].iter().any(|&b| b != 0));
        }
        let [up, _] = proxy.counters();
        assert_eq!(arrived as u64, up.forwarded);
        assert_eq!(up.lost + up.forwarded, 200);
        assert_eq!(damaged as u64, up.corrupted);
        assert!((40..=80).contains(&up.lost), "{}", up.lost);
        assert!(damaged > 20, "{damaged}");
    }
}
