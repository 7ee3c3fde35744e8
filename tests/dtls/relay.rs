//! A UDP relay between one client and a server on 127.0.0.1 that tampers
//! with what the client sends: every datagram it picks is sent twice (a
//! replay), or has one byte flipped. It picks DTLS application-data
//! records (content type 23) when told the traffic is encrypted, so the
//! handshake is left alone, and every datagram otherwise.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// What the relay does to a datagram it picks.
#[derive(Clone, Copy)]
pub enum Tamper {
    /// Sends it twice.
    Replay,
    /// Flips a byte of about one in three, near its end (the payload),
    /// picked by a fixed pseudo-random sequence rather than every third:
    /// a client whose only traffic is one command's resends and the
    /// acknowledgements between them can fall into a cycle of three
    /// datagrams, and every third would then flip that command each time
    /// it went, so it never arrived.
    FlipOneInThree,
    /// Passes every datagram on as it came (to measure them).
    Nothing,
    /// Passes every datagram on, and once the server's ServerHello flight
    /// comes back (the server now holds a handshaking session for the
    /// relay's address), first sends the server a plaintext fatal alert
    /// (handshake_failure) from that address.
    FatalAlertAfterServerHello,
}

/// An epoch-0 DTLS 1.2 alert record: fatal, handshake_failure. Its
/// sequence number (99) is past any the client uses in its handshake.
const FATAL_ALERT: [u8; 15] = [21, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 99, 0, 2, 2, 40];

/// Whether `datagram` from the server starts with a ServerHello: a
/// handshake record (22) whose message type (at 13) is 2.
fn is_server_hello(datagram: &[u8]) -> bool {
    datagram.first() == Some(&22) && datagram.get(13) == Some(&2)
}

/// Counts of the client's datagrams the relay picked. Each is counted
/// before its datagram goes: the server may act on it, and the test read
/// the count, before this thread runs again.
#[derive(Default)]
pub struct Counts {
    /// Passed on as they came.
    pub intact: AtomicU64,
    /// Passed on with a byte flipped.
    pub flipped: AtomicU64,
    /// The longest datagram either side sent, in bytes.
    pub longest: AtomicU64,
    /// Fatal alerts sent to the server.
    pub alerts: AtomicU64,
}

pub struct Relay {
    pub address: SocketAddr,
    pub counts: Arc<Counts>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Relay {
    /// A relay to `server`, tampering with the client's datagrams.
    pub fn start(server: SocketAddr, tamper: Tamper, encrypted: bool) -> Relay {
        let front = UdpSocket::bind("127.0.0.1:0").unwrap();
        let back = UdpSocket::bind("127.0.0.1:0").unwrap();
        front
            .set_read_timeout(Some(Duration::from_millis(1)))
            .unwrap();
        back.set_read_timeout(Some(Duration::from_millis(1)))
            .unwrap();
        let address = front.local_addr().unwrap();
        let counts = Arc::new(Counts::default());
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (counts, stop) = (counts.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut client: Option<SocketAddr> = None;
                let mut buffer = [0u8; 8192];
                let mut picked = 0u64;
                // xorshift64: the same sequence on every run.
                let mut random = 0x9E37_79B9_7F4A_7C15u64;
                while !stop.load(Ordering::Relaxed) {
                    if let Ok((length, from)) = front.recv_from(&mut buffer) {
                        client = Some(from);
                        counts.longest.fetch_max(length as u64, Ordering::Relaxed);
                        let datagram = &mut buffer[..length];
                        let pick = !encrypted || datagram.first() == Some(&23);
                        if !pick {
                            let _ = back.send_to(datagram, server);
                            continue;
                        }
                        picked += 1;
                        random ^= random << 13;
                        random ^= random >> 7;
                        random ^= random << 17;
                        match tamper {
                            Tamper::Replay => {
                                counts.intact.fetch_add(1, Ordering::Relaxed);
                                let _ = back.send_to(datagram, server);
                                let _ = back.send_to(datagram, server);
                            }
                            Tamper::FlipOneInThree if random % 3 == 0 => {
                                let at = length - 1 - (picked as usize % length.min(8));
                                datagram[at] ^= 0x20;
                                counts.flipped.fetch_add(1, Ordering::Relaxed);
                                let _ = back.send_to(datagram, server);
                            }
                            Tamper::FlipOneInThree
                            | Tamper::Nothing
                            | Tamper::FatalAlertAfterServerHello => {
                                counts.intact.fetch_add(1, Ordering::Relaxed);
                                let _ = back.send_to(datagram, server);
                            }
                        }
                    }
                    if let (Ok((length, _)), Some(client)) = (back.recv_from(&mut buffer), client) {
                        counts.longest.fetch_max(length as u64, Ordering::Relaxed);
                        if matches!(tamper, Tamper::FatalAlertAfterServerHello)
                            && is_server_hello(&buffer[..length])
                            && counts.alerts.load(Ordering::Relaxed) == 0
                        {
                            counts.alerts.fetch_add(1, Ordering::Relaxed);
                            let _ = back.send_to(&FATAL_ALERT, server);
                        }
                        let _ = front.send_to(&buffer[..length], client);
                    }
                }
            })
        };
        Relay {
            address,
            counts,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
