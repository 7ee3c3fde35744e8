//! One remote address's DTLS session, over the DTLS library's sans-IO
//! state machine: datagrams in, ENet datagrams to encrypt, and what comes
//! out (records to send, plaintext received, the handshake's progress)
//! collected in an [`Outbox`].

use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use dimpl::{Dtls, Output};

use super::verify::Verifier;

/// How far a session has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    Handshaking,
    Established,
}

/// Why a session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// The handshake or the record layer failed (the library's words).
    Failed(String),
    /// The server's certificate was refused.
    Refused(String),
    /// The peer closed the session (`close_notify`).
    Closed,
}

impl Ended {
    pub fn reason(&self) -> String {
        match self {
            Ended::Failed(why) => format!("DTLS failed: {why}"),
            Ended::Refused(why) => why.clone(),
            Ended::Closed => "the peer closed the DTLS session".into(),
        }
    }
}

/// Records to send and plaintext received, for any session, in one buffer.
#[derive(Default)]
pub struct Outbox {
    bytes: Vec<u8>,
    records: Vec<(std::net::SocketAddr, Range<usize>)>,
    plaintexts: Vec<(std::net::SocketAddr, Range<usize>)>,
    /// The next plaintext to hand out.
    next_plaintext: usize,
}

impl Outbox {
    fn push(&mut self, bytes: &[u8]) -> Range<usize> {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(bytes);
        start..self.bytes.len()
    }

    pub fn record(&mut self, to: std::net::SocketAddr, bytes: &[u8]) {
        let range = self.push(bytes);
        self.records.push((to, range));
    }

    fn plaintext(&mut self, from: std::net::SocketAddr, bytes: &[u8]) {
        let range = self.push(bytes);
        self.plaintexts.push((from, range));
    }

    /// Hands each record waiting to `send`, in order, and forgets them.
    pub fn send_records(&mut self, mut send: impl FnMut(&std::net::SocketAddr, &[u8])) {
        for (to, range) in self.records.drain(..) {
            send(&to, &self.bytes[range]);
        }
        self.tidy();
    }

    /// The next plaintext received, if any.
    pub fn next_plaintext(&mut self) -> Option<(std::net::SocketAddr, Range<usize>)> {
        let next = self.plaintexts.get(self.next_plaintext).cloned();
        if next.is_some() {
            self.next_plaintext += 1;
        }
        next
    }

    /// Whether a decrypted datagram waits to be handed out.
    pub fn has_plaintext(&self) -> bool {
        self.next_plaintext < self.plaintexts.len()
    }

    pub fn bytes(&self, range: Range<usize>) -> &[u8] {
        &self.bytes[range]
    }

    /// Empties the buffer once nothing in it is waiting.
    pub fn tidy(&mut self) {
        if self.records.is_empty() && self.next_plaintext == self.plaintexts.len() {
            self.bytes.clear();
            self.plaintexts.clear();
            self.next_plaintext = 0;
        }
    }

    /// Drops the records queued since `mark` (a session that failed while
    /// producing them sends nothing more).
    pub fn forget_records_since(&mut self, mark: usize) {
        self.records.truncate(mark);
    }

    pub fn records_mark(&self) -> usize {
        self.records.len()
    }

    /// How many plaintexts were received since the buffer was last
    /// emptied: a datagram that adds none yielded no ENet datagram.
    pub fn plaintexts_mark(&self) -> usize {
        self.plaintexts.len()
    }
}

/// One remote address's session.
pub struct Session {
    dtls: Dtls,
    progress: Progress,
    /// A client's judge of the server's certificate.
    verifier: Option<Arc<Verifier>>,
    /// Whether the judge has seen the server's certificate.
    judged: bool,
    /// When the library wants [`Session::run_timer`] called.
    timer: Option<Instant>,
    /// When a datagram last came from the peer.
    pub heard: Instant,
}

impl Session {
    /// A session the library has set up (a server's, admitted by the gate,
    /// or a client's, not yet started).
    pub fn new(dtls: Dtls, verifier: Option<Arc<Verifier>>, now: Instant) -> Self {
        Session {
            dtls,
            progress: Progress::Handshaking,
            verifier,
            judged: false,
            timer: None,
            heard: now,
        }
    }

    pub fn progress(&self) -> Progress {
        self.progress
    }

    pub fn timer(&self) -> Option<Instant> {
        self.timer
    }

    /// Feeds a datagram from the peer.
    pub fn receive(
        &mut self,
        peer: std::net::SocketAddr,
        datagram: &[u8],
        now: Instant,
        outbox: &mut Outbox,
        scratch: &mut Vec<u8>,
    ) -> Result<(), Ended> {
        self.heard = now;
        self.dtls
            .handle_packet(datagram)
            .map_err(|error| Ended::Failed(error.to_string()))?;
        self.drain(peer, outbox, scratch)
    }

    /// Encrypts an ENet datagram as one record (queued inside the library
    /// until the handshake is done).
    pub fn send(
        &mut self,
        peer: std::net::SocketAddr,
        datagram: &[u8],
        outbox: &mut Outbox,
        scratch: &mut Vec<u8>,
    ) -> Result<(), Ended> {
        self.dtls
            .send_application_data(datagram)
            .map_err(|error| Ended::Failed(error.to_string()))?;
        // Drained at once, so each ENet datagram leaves as a datagram of
        // its own (the library would otherwise pack records together).
        self.drain(peer, outbox, scratch)
    }

    /// Runs the library's timer (handshake retransmissions, its timeout).
    pub fn run_timer(
        &mut self,
        peer: std::net::SocketAddr,
        now: Instant,
        outbox: &mut Outbox,
        scratch: &mut Vec<u8>,
    ) -> Result<(), Ended> {
        self.dtls
            .handle_timeout(now)
            .map_err(|error| Ended::Failed(error.to_string()))?;
        self.drain(peer, outbox, scratch)
    }

    /// Collects what the library has for us: records to send, plaintext,
    /// the server's certificate to judge, the handshake's end.
    pub fn drain(
        &mut self,
        peer: std::net::SocketAddr,
        outbox: &mut Outbox,
        scratch: &mut Vec<u8>,
    ) -> Result<(), Ended> {
        let mark = outbox.records_mark();
        let result = self.drain_into(peer, outbox, scratch);
        if result.is_err() {
            outbox.forget_records_since(mark);
        }
        result
    }

    fn drain_into(
        &mut self,
        peer: std::net::SocketAddr,
        outbox: &mut Outbox,
        scratch: &mut Vec<u8>,
    ) -> Result<(), Ended> {
        loop {
            match self.dtls.poll_output(scratch) {
                Output::Packet(record) => outbox.record(peer, record),
                Output::Timeout(at) => {
                    self.timer = Some(at);
                    return Ok(());
                }
                Output::Connected => {
                    // A client never takes a session whose server showed
                    // no certificate to judge.
                    if self.verifier.is_some() && !self.judged {
                        return Err(Ended::Refused("the server showed no certificate".into()));
                    }
                    self.progress = Progress::Established;
                }
                Output::PeerCert(certificate) => {
                    if let Some(verifier) = &self.verifier {
                        verifier.judge(certificate).map_err(Ended::Refused)?;
                        self.judged = true;
                    }
                }
                Output::ApplicationData(data) => outbox.plaintext(peer, data),
                Output::CloseNotify => return Err(Ended::Closed),
                Output::BufferTooSmall { needed } => scratch.resize(needed, 0),
                _ => {}
            }
        }
    }
}
