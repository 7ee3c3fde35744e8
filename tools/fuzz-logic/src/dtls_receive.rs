//! `dtls_receive`: an encrypted server's receive path (`enet::dtls`)
//! under attack. A server layer and a client layer talk over an in-memory
//! link through the same [`SecureTransport`] the hosts use; the input
//! decides whether they complete a real handshake first, then steps until
//! it ends (at most [`MAX_STEPS`]):
//!
//! - the client sends a message, whose records reach the server as they
//!   are, with a byte flipped, cut short, twice, or not at all;
//! - an earlier record of the client's is replayed to the server;
//! - arbitrary bytes reach the server from the client's address or from a
//!   stranger;
//! - a ClientHello with fuzzed random, cookie and tail reaches the server
//!   from a stranger, or the client's own first ClientHello is replayed
//!   from one;
//! - arbitrary bytes reach the client from the server's address;
//! - the server sends a message to the client.
//!
//! Asserted after every step:
//! - the server hands its engine only bytes the client sent, from the
//!   client's address, each message at most once (integrity, replay);
//!   likewise the client;
//! - no stranger ever has an established session, and the server keeps no
//!   session but the client's (cookies cannot be forged);
//! - forged or damaged records do not end an established session: once
//!   the handshake is done, every message the client sends unharmed is
//!   delivered (an off-path sender cannot cut a connection).

use std::collections::{HashSet, VecDeque};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::OnceLock;

use enet::dtls::{ClientSetup, SecureLayer, SecureTransport, ServerSetup, Status};
use enet::proto::{Grouping, ServiceFailed, Transmitted, Transport};

use crate::input::Input;

pub const MAX_STEPS: usize = 48;

const SERVER: SocketAddr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(127, 0, 0, 1), 7000));
const CLIENT: SocketAddr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(127, 0, 0, 2), 7001));

fn stranger(index: u8) -> SocketAddr {
    SocketAddr::V4(SocketAddrV4::new(
        Ipv4Addr::new(10, 0, 0, index % 16),
        7100 + u16::from(index / 16),
    ))
}

/// Made once per process: a certificate costs a key generation.
fn setups() -> &'static (ServerSetup, ClientSetup) {
    static SETUPS: OnceLock<(ServerSetup, ClientSetup)> = OnceLock::new();
    SETUPS.get_or_init(|| {
        (
            ServerSetup::self_signed().expect("a self-signed certificate"),
            ClientSetup::new(false, "", None).expect("a client set-up"),
        )
    })
}

/// One endpoint's side of the in-memory link.
#[derive(Default)]
struct Link {
    /// Datagrams waiting to be received, with their source.
    inbox: VecDeque<(SocketAddr, Vec<u8>)>,
    /// Datagrams sent, with their destination.
    sent: Vec<(SocketAddr, Vec<u8>)>,
}

/// The transport a [`SecureTransport`] wraps: the link, on a clock that
/// never moves (the layers keep real time for their own timers).
struct LinkTransport<'a>(&'a mut Link);

impl Transport for LinkTransport<'_> {
    fn now(&mut self) -> u32 {
        0
    }

    fn receive<R>(
        &mut self,
        handle: impl FnOnce(SocketAddr, &mut [u8]) -> R,
    ) -> Result<Option<R>, ServiceFailed> {
        Ok(self
            .0
            .inbox
            .pop_front()
            .map(|(from, mut datagram)| handle(from, &mut datagram)))
    }

    fn transmit(&mut self, to: &SocketAddr, bytes: &[u8], _grouping: Grouping) -> Transmitted {
        self.0.sent.push((*to, bytes.to_vec()));
        Transmitted::Sent(bytes.len())
    }

    fn flush(&mut self) -> Result<(), ServiceFailed> {
        Ok(())
    }

    fn wait(&mut self, _ms: u32) -> Result<bool, ServiceFailed> {
        Ok(true)
    }
}

/// An endpoint: its layer, its link, and what its engine was handed.
struct Endpoint {
    layer: SecureLayer,
    link: Link,
    delivered: Vec<(SocketAddr, Vec<u8>)>,
}

impl Endpoint {
    fn new(layer: SecureLayer) -> Self {
        Endpoint {
            layer,
            link: Link::default(),
            delivered: Vec::new(),
        }
    }

    /// Receives everything waiting, as the engine's receive phase would.
    fn receive_all(&mut self) {
        let mut transport = SecureTransport::new(LinkTransport(&mut self.link), &mut self.layer);
        // Bounded: every call consumes a datagram or ends the loop.
        for _ in 0..1024 {
            let got = transport.receive(|from, bytes| (from, bytes.to_vec()));
            match got {
                Ok(Some(message)) => self.delivered.push(message),
                Ok(None) | Err(_) => break,
            }
        }
        let _ = transport.flush();
    }

    /// Sends `message` to `to` through the layer.
    fn send(&mut self, to: SocketAddr, message: &[u8]) {
        let mut transport = SecureTransport::new(LinkTransport(&mut self.link), &mut self.layer);
        transport.transmit(&to, message, Grouping::Alone);
        let _ = transport.flush();
    }

    fn take_sent(&mut self) -> Vec<(SocketAddr, Vec<u8>)> {
        std::mem::take(&mut self.link.sent)
    }
}

/// A step's harm to a record on its way.
enum Harm {
    None,
    Flip { at: usize, mask: u8 },
    Truncate(usize),
    Twice,
    Drop,
}

struct Run {
    server: Endpoint,
    client: Endpoint,
    /// Messages the client sent, and the server's.
    client_sent: HashSet<Vec<u8>>,
    server_sent: HashSet<Vec<u8>>,
    /// Every record the client sent, for replays.
    client_records: Vec<Vec<u8>>,
    /// The client's first ClientHello, once there is one.
    client_hello: Option<Vec<u8>>,
    established: bool,
    counter: u32,
}

impl Run {
    /// Moves what each side sent to the other (records to anyone else are
    /// dropped), for `rounds` rounds.
    fn shuttle(&mut self, rounds: usize) {
        for _ in 0..rounds {
            for (to, record) in self.client.take_sent() {
                if to == SERVER {
                    self.note_client_record(&record);
                    self.server.link.inbox.push_back((CLIENT, record));
                }
            }
            self.server.receive_all();
            for (to, record) in self.server.take_sent() {
                if to == CLIENT {
                    self.client.link.inbox.push_back((SERVER, record));
                }
            }
            self.client.receive_all();
        }
    }

    fn note_client_record(&mut self, record: &[u8]) {
        if self.client_hello.is_none() && record.first() == Some(&22) {
            self.client_hello = Some(record.to_vec());
        }
        if self.client_records.len() < 64 {
            self.client_records.push(record.to_vec());
        }
    }

    /// A message no other has equalled.
    fn message(&mut self, input: &mut Input<'_>) -> Vec<u8> {
        self.counter += 1;
        let length = usize::from(input.u16() % 1500).max(4);
        let mut message = vec![input.u8(); length];
        message[..4].copy_from_slice(&self.counter.to_be_bytes());
        message
    }

    fn handshake(&mut self) {
        let first = b"first ENet datagram".to_vec();
        self.client.send(SERVER, &first);
        self.client_sent.insert(first.clone());
        self.shuttle(8);
        assert_eq!(self.client.layer.status(&SERVER), Status::Established);
        assert_eq!(self.server.layer.status(&CLIENT), Status::Established);
        assert_eq!(
            self.server.delivered,
            vec![(CLIENT, first)],
            "the datagram sent while handshaking arrives once the session is up"
        );
        self.established = true;
    }

    fn harm(input: &mut Input<'_>) -> Harm {
        match input.u8() % 8 {
            0..=2 => Harm::None,
            3 => Harm::Flip {
                at: usize::from(input.u16()),
                mask: input.u8().max(1),
            },
            4 => Harm::Truncate(usize::from(input.u16())),
            5 => Harm::Twice,
            _ => Harm::Drop,
        }
    }

    fn step(&mut self, input: &mut Input<'_>) {
        match input.u8() % 9 {
            0 | 1 => {
                let message = self.message(input);
                let harm = Run::harm(input);
                self.client.send(SERVER, &message);
                self.client_sent.insert(message.clone());
                let before = self.server.delivered.len();
                let mut harmed = false;
                for (to, record) in self.client.take_sent() {
                    if to != SERVER {
                        continue;
                    }
                    self.note_client_record(&record);
                    let mut copies = vec![record.clone()];
                    match harm {
                        Harm::None => {}
                        Harm::Flip { at, mask } => {
                            let at = at % record.len();
                            copies[0][at] ^= mask;
                            harmed = true;
                        }
                        Harm::Truncate(to) => {
                            copies[0].truncate(to % record.len());
                            harmed = true;
                        }
                        Harm::Twice => copies.push(record),
                        Harm::Drop => {
                            copies.clear();
                            harmed = true;
                        }
                    }
                    for copy in copies {
                        self.server.link.inbox.push_back((CLIENT, copy));
                    }
                }
                self.server.receive_all();
                self.shuttle(1);
                if self.established && !harmed {
                    assert!(
                        self.server.delivered[before..]
                            .iter()
                            .any(|(_, bytes)| *bytes == message),
                        "an unharmed message on an established session is delivered"
                    );
                }
            }
            2 => {
                if !self.client_records.is_empty() {
                    let index = usize::from(input.u8()) % self.client_records.len();
                    let record = self.client_records[index].clone();
                    self.server.link.inbox.push_back((CLIENT, record));
                    self.server.receive_all();
                }
            }
            3 => {
                let bytes = input.blob(1600).to_vec();
                self.server.link.inbox.push_back((CLIENT, bytes));
                self.server.receive_all();
            }
            4 => {
                let from = stranger(input.u8());
                let bytes = input.blob(1600).to_vec();
                self.server.link.inbox.push_back((from, bytes));
                self.server.receive_all();
            }
            5 => {
                let from = stranger(input.u8());
                let hello = fuzzed_hello(input, self.client_hello.as_deref());
                self.server.link.inbox.push_back((from, hello));
                self.server.receive_all();
                // What it answers goes to the stranger, who never replies.
                self.server.take_sent();
            }
            6 => {
                let bytes = input.blob(1600).to_vec();
                self.client.link.inbox.push_back((SERVER, bytes));
                self.client.receive_all();
            }
            7 => {
                let message = self.message(input);
                self.server.send(CLIENT, &message);
                self.server_sent.insert(message);
                self.shuttle(1);
            }
            _ => self.shuttle(1),
        }
    }

    fn check(&self) {
        check_delivered(&self.server.delivered, CLIENT, &self.client_sent);
        check_delivered(&self.client.delivered, SERVER, &self.server_sent);
        for index in 0..=255 {
            assert_ne!(
                self.server.layer.status(&stranger(index)),
                Status::Established,
                "a stranger got a session"
            );
        }
        assert!(
            self.server.layer.session_count() <= 1,
            "the server keeps {} sessions for one client",
            self.server.layer.session_count()
        );
    }
}

/// Everything in `delivered` came from `from`, was sent, and arrived once.
fn check_delivered(delivered: &[(SocketAddr, Vec<u8>)], from: SocketAddr, sent: &HashSet<Vec<u8>>) {
    let mut seen = HashSet::new();
    for (source, bytes) in delivered {
        assert_eq!(*source, from, "delivered from a stranger");
        assert!(sent.contains(bytes), "delivered bytes nobody sent");
        assert!(seen.insert(bytes), "a message delivered twice (a replay)");
    }
}

/// A ClientHello-shaped datagram: the client's own first ClientHello
/// replayed (maybe with a byte changed), or one built from a template
/// with fuzzed random, cookie and tail.
fn fuzzed_hello(input: &mut Input<'_>, captured: Option<&[u8]>) -> Vec<u8> {
    if let (true, Some(captured)) = (input.bool(), captured) {
        let mut hello = captured.to_vec();
        if input.bool() {
            let at = usize::from(input.u16()) % hello.len();
            hello[at] ^= input.u8().max(1);
        }
        return hello;
    }
    let random = input.bytes(32).to_vec();
    let cookie = input.blob(40).to_vec();
    let tail = input.blob(64).to_vec();
    let mut body = vec![0xFE, 0xFD];
    body.extend_from_slice(&random);
    body.resize(34, 0);
    body.push(0);
    body.push(cookie.len() as u8);
    body.extend_from_slice(&cookie);
    body.extend_from_slice(&[0, 2, 0xC0, 0x2B, 1, 0]);
    body.extend_from_slice(&tail);
    let length = (body.len() as u32).to_be_bytes();
    let mut record = vec![22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0];
    record.extend_from_slice(&((12 + body.len()) as u16).to_be_bytes());
    record.push(1);
    record.extend_from_slice(&length[1..]);
    record.extend_from_slice(&[0, 0, 0, 0, 0]);
    record.extend_from_slice(&length[1..]);
    record.extend_from_slice(&body);
    record
}

pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let (server_setup, client_setup) = setups();
    let mut server = SecureLayer::new();
    server.set_server(server_setup.clone());
    let mut client = SecureLayer::new();
    client.set_client(client_setup.clone());
    let mut run = Run {
        server: Endpoint::new(server),
        client: Endpoint::new(client),
        client_sent: HashSet::new(),
        server_sent: HashSet::new(),
        client_records: Vec::new(),
        client_hello: None,
        established: false,
        counter: 0,
    };
    if input.bool() {
        run.handshake();
        run.check();
    }
    for _ in 0..MAX_STEPS {
        if input.is_empty() {
            break;
        }
        run.step(&mut input);
        run.check();
    }
}
