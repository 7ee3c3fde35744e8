//! The proxy's sockets and schedule: datagrams in, decisions drawn, copies
//! released when due.

use std::collections::{BinaryHeap, HashMap};
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::impairment::{Impairer, Profile};
use crate::pcap::Capture;

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

/// A copy waiting for its time.
#[derive(Debug, PartialEq, Eq)]
struct Pending {
    due_us: u64,
    order: u64,
    direction: usize,
    client: SocketAddr,
    bytes: Vec<u8>,
}

impl Ord for Pending {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Earliest first out of the max-heap.
        (other.due_us, other.order).cmp(&(self.due_us, self.order))
    }
}

impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

pub struct Proxy {
    listen: UdpSocket,
    server: SocketAddr,
    /// Each client's own socket towards the server.
    upstream: HashMap<SocketAddr, UdpSocket>,
    impairers: [Impairer; 2],
    /// When each direction's capped link is next free, in µs.
    link_free_us: [u64; 2],
    pending: BinaryHeap<Pending>,
    order: u64,
    counters: [Counters; 2],
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
            impairers: [
                Impairer::new(up, seed),
                Impairer::new(down, seed ^ 0xD0D0_D0D0_D0D0_D0D0),
            ],
            link_free_us: [0; 2],
            pending: BinaryHeap::new(),
            order: 0,
            counters: [Counters::default(); 2],
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
        self.counters
    }

    fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }

    /// Runs until `deadline` or until `stop` is set.
    pub fn run(&mut self, deadline: Instant, stop: &AtomicBool) -> io::Result<()> {
        let mut buffer = vec![0u8; 65536];
        while Instant::now() < deadline && !stop.load(Ordering::Relaxed) {
            self.release_due()?;
            let wait = self
                .pending
                .peek()
                .map_or(50_000, |next| next.due_us.saturating_sub(self.now_us()))
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
        let counters = &mut self.counters[direction];
        counters.received += 1;
        let impairer = &mut self.impairers[direction];
        let decision = impairer.decide(bytes.len());
        let profile = impairer.profile;
        if decision.copies.is_empty() {
            counters.lost += 1;
            return;
        }
        // A capped link sends one datagram after another; a full queue drops.
        let mut sent_at = now;
        if profile.bandwidth > 0 {
            let start = self.link_free_us[direction].max(now);
            let backlog = (start - now).saturating_mul(profile.bandwidth) / 1_000_000;
            if backlog as usize > profile.queue_bytes {
                counters.queue_full += 1;
                return;
            }
            sent_at = start + (bytes.len() as u64 * 1_000_000) / profile.bandwidth;
            self.link_free_us[direction] = sent_at;
        }
        counters.duplicated += u64::from(decision.copies.len() > 1);
        counters.reordered += u64::from(decision.reordered);
        counters.corrupted += u64::from(decision.flipped_bit.is_some());
        let mut copy = bytes.to_vec();
        if let Some(bit) = decision.flipped_bit {
            copy[bit / 8] ^= 1 << (bit % 8);
        }
        for delay in decision.copies {
            self.order += 1;
            self.pending.push(Pending {
                due_us: sent_at + u64::from(delay) * 1000,
                order: self.order,
                direction,
                client,
                bytes: copy.clone(),
            });
        }
    }

    fn release_due(&mut self) -> io::Result<()> {
        let now = self.now_us();
        while self.pending.peek().is_some_and(|next| next.due_us <= now) {
            let Some(item) = self.pending.pop() else {
                break;
            };
            let sent = if item.direction == UP {
                match self.upstream.get(&item.client) {
                    Some(socket) => socket.send_to(&item.bytes, self.server),
                    None => continue,
                }
            } else {
                self.listen.send_to(&item.bytes, item.client)
            };
            match sent {
                Ok(_) => self.counters[item.direction].forwarded += 1,
                // A full socket buffer or a closed peer: the datagram is lost,
                // as on a real link.
                Err(error)
                    if matches!(
                        error.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::ConnectionRefused
                    ) =>
                {
                    self.counters[item.direction].lost += 1
                }
                Err(error) => return Err(error),
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
