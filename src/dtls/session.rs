//! One remote address's DTLS session, over the DTLS library's sans-IO
//! state machine: datagrams in, ENet datagrams to encrypt, and what comes
//! out (records to send, plaintext received, the handshake's progress)
//! collected in an [`Outbox`].

use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use dimpl::{Dtls, Output};

#[cfg(feature = "ring")]
use super::record::{self, CipherKey};
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

    /// The bytes at `range` (a plaintext's, as [`Outbox::next_plaintext`]
    /// gave it), lent mutably as the engine's transport lends what it
    /// received.
    pub fn bytes(&mut self, range: Range<usize>) -> &mut [u8] {
        &mut self.bytes[range]
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
    /// The session's record keys, for application data sealed and opened
    /// outside the library (`record.rs`).
    #[cfg(feature = "ring")]
    keys: Keys,
    /// Whether a record opened outside the library came since `heard` was
    /// last brought up to date (that path reads no clock; see
    /// [`Session::catch_up`]).
    #[cfg(feature = "ring")]
    heard_lately: bool,
}

/// A session's record keys, as the library made them.
#[cfg(feature = "ring")]
#[derive(Default)]
struct Keys {
    write: Option<Arc<CipherKey>>,
    read: Option<Arc<CipherKey>>,
    /// The library made ciphers other than one pair: the session stays on
    /// the library's record layer.
    unusual: bool,
    /// The next epoch-1 sequence number to send, once this path sends
    /// (from then on, a record the library seals is sealed again under
    /// one of these, so no sequence number, and so no ChaCha20 nonce, is
    /// used twice).
    next_sequence: Option<u64>,
}

#[cfg(feature = "ring")]
impl Keys {
    /// Takes the ciphers the library made during a call: the client's
    /// write key, then the server's (`dtls12/context.rs`).
    fn take(&mut self, made: Vec<Arc<CipherKey>>, is_client: bool) {
        if made.is_empty() {
            return;
        }
        let [client, server]: [Arc<CipherKey>; 2] = match made.try_into() {
            Ok(pair) if self.write.is_none() => pair,
            _ => {
                self.unusual = true;
                return;
            }
        };
        (self.write, self.read) = if is_client {
            (Some(client), Some(server))
        } else {
            (Some(server), Some(client))
        };
    }

    /// The sequence number the next record this path seals takes: one
    /// past its last, or, for its first, one past the library's last.
    fn next_to_seal(&self, write: &CipherKey) -> u64 {
        self.next_sequence.unwrap_or_else(|| write.next_sequence())
    }

    /// The keys, once both are known and the library is past its
    /// handshake for good (it opened the peer's application data, so it
    /// never sends a flight again).
    fn ready(&self) -> Option<(&CipherKey, &CipherKey)> {
        let (write, read) = (self.write.as_deref()?, self.read.as_deref()?);
        (!self.unusual && write.is_known() && read.is_known() && read.opened_application_data())
            .then_some((write, read))
    }

    /// The library's datagram `packet` with its epoch-1 records sealed
    /// again under this path's sequence numbers, once this path sends;
    /// `None` when it goes as it is. A record that cannot be sealed again
    /// is left out.
    fn reseal(&mut self, packet: &[u8]) -> Option<Vec<u8>> {
        let next = self.next_sequence.as_mut()?;
        let write = self.write.as_deref()?;
        if record::records(packet).all(|part| record::epoch(part) == Some(0)) {
            return None;
        }
        let mut out = Vec::with_capacity(packet.len());
        let mut sealed = Vec::new();
        for part in record::records(packet) {
            if record::epoch(part) == Some(0) {
                out.extend_from_slice(part);
            } else if write.reseal(part, *next, &mut sealed) {
                *next += 1;
                out.extend_from_slice(&sealed);
            }
        }
        Some(out)
    }
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
            #[cfg(feature = "ring")]
            keys: Keys::default(),
            #[cfg(feature = "ring")]
            heard_lately: false,
        }
    }

    /// Brings `heard` up to `now` if the peer was heard from since it was
    /// last set (called at least once a second, so `heard` is at most
    /// that late).
    pub fn catch_up(&mut self, now: Instant) {
        #[cfg(feature = "ring")]
        if std::mem::take(&mut self.heard_lately) {
            self.heard = now;
        }
        #[cfg(not(feature = "ring"))]
        let _ = now;
    }

    /// Runs `call` on the library's state, taking the record keys it makes.
    fn call<T>(&mut self, call: impl FnOnce(&mut Dtls) -> T) -> T {
        #[cfg(feature = "ring")]
        {
            let (result, made) = record::capture(|| call(&mut self.dtls));
            // A client always has a judge of certificates; a server never.
            let is_client = self.verifier.is_some();
            self.keys.take(made, is_client);
            result
        }
        #[cfg(not(feature = "ring"))]
        call(&mut self.dtls)
    }

    /// Opens `datagram` from the peer in `opened` (a copy) if it is one
    /// application-data record and the session is ready for this path:
    /// `None` if it goes to the library (`datagram` untouched), else the
    /// plaintext's range in `datagram`, decrypted in place, or
    /// `Some(None)` if the record was refused.
    #[cfg(feature = "ring")]
    pub fn open(&mut self, datagram: &mut [u8]) -> Option<Option<Range<usize>>> {
        if self.progress != Progress::Established || datagram.first() != Some(&23) {
            return None;
        }
        let (_, read) = self.keys.ready()?;
        let result = read.open(datagram)?;
        self.heard_lately = true;
        Some(result)
    }

    /// Seals `datagram` as one application-data record into `sealed`, if
    /// the session is ready for this path; false if it goes to the
    /// library.
    #[cfg(feature = "ring")]
    pub fn seal(&mut self, datagram: &[u8], sealed: &mut Vec<u8>) -> bool {
        self.seal_with(|write, sequence| write.seal(sequence, 23, datagram, sealed).then_some(()))
            .is_some()
    }

    /// Seals the datagram at `datagram` of `buffer` where it lies as one
    /// application-data record ([`CipherKey::seal_in_place`]), if the
    /// session is ready for this path; the record's range in `buffer`, or
    /// `None` if it goes to the library.
    #[cfg(feature = "ring")]
    pub fn seal_in_place(
        &mut self,
        buffer: &mut Vec<u8>,
        datagram: Range<usize>,
    ) -> Option<Range<usize>> {
        self.seal_with(|write, sequence| write.seal_in_place(sequence, 23, buffer, datagram))
    }

    /// Runs `seal` with the write key and the next sequence number if the
    /// session is ready for records sealed outside the library, and takes
    /// that number if it sealed; what it returned.
    #[cfg(feature = "ring")]
    fn seal_with<R>(&mut self, seal: impl FnOnce(&CipherKey, u64) -> Option<R>) -> Option<R> {
        if self.progress != Progress::Established {
            return None;
        }
        let (write, _) = self.keys.ready()?;
        let sequence = self.keys.next_to_seal(write);
        let sealed = seal(write, sequence)?;
        self.keys.next_sequence = Some(sequence + 1);
        Some(sealed)
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
        // Records this path's window refuses never reach the library,
        // whose own window has not seen what this path opened.
        #[cfg(feature = "ring")]
        let mut kept = Vec::new();
        #[cfg(feature = "ring")]
        let datagram = match &self.keys.read {
            Some(read) if read.strip_refused(datagram, &mut kept) => &kept[..],
            _ => datagram,
        };
        self.call(|dtls| dtls.handle_packet(datagram))
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
        self.call(|dtls| dtls.send_application_data(datagram))
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
        self.call(|dtls| dtls.handle_timeout(now))
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
                #[cfg(feature = "ring")]
                Output::Packet(packet) => match self.keys.reseal(packet) {
                    Some(resealed) => outbox.record(peer, &resealed),
                    None => outbox.record(peer, packet),
                },
                #[cfg(not(feature = "ring"))]
                Output::Packet(packet) => outbox.record(peer, packet),
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

/// Application-data records sealed and opened outside the library
/// (`record.rs`) against the library's own, on a real pair of sessions.
#[cfg(all(test, feature = "ring"))]
mod tests {
    use std::net::SocketAddr;
    use std::time::Instant;

    use std::sync::Arc;

    use dimpl::crypto::Dtls12CipherSuite;
    use dimpl::{Config, Dtls};

    use super::{Ended, Outbox, Progress, Session};
    use crate::dtls::setup::{ClientSetup, ServerSetup};

    /// The suites a session may agree on, with the nonce bytes each
    /// record carries.
    const SUITES: [(Dtls12CipherSuite, usize); 3] = [
        (Dtls12CipherSuite::ECDHE_ECDSA_AES128_GCM_SHA256, 8),
        (Dtls12CipherSuite::ECDHE_ECDSA_AES256_GCM_SHA384, 8),
        (Dtls12CipherSuite::ECDHE_ECDSA_CHACHA20_POLY1305_SHA256, 0),
    ];

    /// The host's session configuration, on `suite` alone.
    fn config(suite: Dtls12CipherSuite) -> Arc<Config> {
        let config = Config::builder()
            .with_crypto_provider(crate::dtls::aead::provider())
            .require_client_certificate(false)
            .use_server_cookie(true)
            .dtls12_cipher_suites(&[suite])
            .build()
            .unwrap();
        Arc::new(config)
    }

    const CLIENT: &str = "127.0.0.1:1";
    const SERVER: &str = "127.0.0.1:2";

    struct Pair {
        client: Session,
        server: Session,
        outbox: Outbox,
        scratch: Vec<u8>,
    }

    fn address(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    /// The peer of the session at `at`.
    fn peer(at: &str) -> &'static str {
        if at == CLIENT {
            SERVER
        } else {
            CLIENT
        }
    }

    fn sequence(record: &[u8]) -> u64 {
        let mut bytes = [0; 8];
        bytes[2..].copy_from_slice(&record[5..11]);
        u64::from_be_bytes(bytes)
    }

    impl Pair {
        /// A client and a server session through their handshake, with one
        /// application-data record each way through the library.
        fn established(suite: Dtls12CipherSuite) -> Pair {
            let now = Instant::now();
            let client_setup = ClientSetup::new(false, "", None).unwrap();
            let server_setup = ServerSetup::self_signed().unwrap();
            let mut client_dtls = Dtls::new_12(config(suite), client_setup.certificate, now);
            client_dtls.set_active(true);
            client_dtls.handle_timeout(now).unwrap();
            let mut server_dtls = Dtls::new_12(config(suite), server_setup.certificate, now);
            server_dtls.handle_timeout(now).unwrap();
            let mut pair = Pair {
                client: Session::new(client_dtls, Some(client_setup.verifier), now),
                server: Session::new(server_dtls, None, now),
                outbox: Outbox::default(),
                scratch: vec![0; 4096],
            };
            pair.client
                .drain(address(SERVER), &mut pair.outbox, &mut pair.scratch)
                .unwrap();
            for _ in 0..20 {
                pair.deliver();
                if pair.client.progress() == Progress::Established
                    && pair.server.progress() == Progress::Established
                {
                    break;
                }
            }
            assert_eq!(pair.client.progress(), Progress::Established);
            assert_eq!(pair.server.progress(), Progress::Established);
            // Neither is ready before its library opened the peer's data.
            assert!(!pair.client.seal(b"early", &mut Vec::new()));
            assert!(!pair.server.seal(b"early", &mut Vec::new()));
            for from in [CLIENT, SERVER] {
                let record = pair.library_record(from, b"hello");
                assert_eq!(pair.open(peer(from), &record), None);
                assert_eq!(pair.receive(peer(from), &record), vec![b"hello".to_vec()]);
            }
            assert!(pair.client.keys.ready().is_some());
            assert!(pair.server.keys.ready().is_some());
            pair
        }

        fn session(&mut self, at: &str) -> &mut Session {
            if at == CLIENT {
                &mut self.client
            } else {
                &mut self.server
            }
        }

        /// Hands every queued record to its addressee.
        fn deliver(&mut self) {
            let mut records = Vec::new();
            self.outbox
                .send_records(|to, record| records.push((*to, record.to_vec())));
            for (to, record) in records {
                let (session, from) = if to == address(SERVER) {
                    (&mut self.server, address(CLIENT))
                } else {
                    (&mut self.client, address(SERVER))
                };
                session
                    .receive(
                        from,
                        &record,
                        Instant::now(),
                        &mut self.outbox,
                        &mut self.scratch,
                    )
                    .unwrap();
            }
        }

        /// The record the library of the session at `from` seals for
        /// `plaintext`.
        fn library_record(&mut self, from: &str, plaintext: &[u8]) -> Vec<u8> {
            let to = address(peer(from));
            let Pair {
                client,
                server,
                outbox,
                scratch,
            } = self;
            let session = if from == CLIENT { client } else { server };
            session.send(to, plaintext, outbox, scratch).unwrap();
            let mut records = Vec::new();
            outbox.send_records(|_, record| records.push(record.to_vec()));
            assert_eq!(records.len(), 1);
            records.pop().unwrap()
        }

        /// The record the session at `from` seals outside the library.
        fn our_record(&mut self, from: &str, plaintext: &[u8]) -> Vec<u8> {
            let mut sealed = Vec::new();
            assert!(self.session(from).seal(plaintext, &mut sealed));
            sealed
        }

        /// What the library of the session at `at` makes of `datagram`:
        /// the plaintexts it yields.
        fn receive(&mut self, at: &str, datagram: &[u8]) -> Vec<Vec<u8>> {
            let from = address(peer(at));
            let Pair {
                client,
                server,
                outbox,
                scratch,
            } = self;
            let session = if at == CLIENT { client } else { server };
            session
                .receive(from, datagram, Instant::now(), outbox, scratch)
                .unwrap();
            let mut plaintexts = Vec::new();
            while let Some((_, range)) = outbox.next_plaintext() {
                plaintexts.push(outbox.bytes(range).to_vec());
            }
            outbox.tidy();
            plaintexts
        }

        /// What this path makes of `datagram` at `at`: `None` if it is the
        /// library's, else the plaintext, or `Some(None)` if refused.
        fn open(&mut self, at: &str, datagram: &[u8]) -> Option<Option<Vec<u8>>> {
            let mut opened = datagram.to_vec();
            let result = self.session(at).open(&mut opened)?;
            Some(result.map(|range| opened[range].to_vec()))
        }
    }

    /// A record the library sealed opens here, and one sealed here opens in
    /// the library, both ways; the sequence numbers go on from the
    /// library's; the format is the library's, byte for byte but the
    /// explicit nonce (the library's is random).
    #[test]
    fn records_sealed_here_and_by_the_library_open_in_the_other() {
        for (suite, explicit_nonce) in SUITES {
            let mut pair = Pair::established(suite);
            for from in [CLIENT, SERVER] {
                sealed_here_and_by_the_library(&mut pair, from, explicit_nonce);
            }
        }
    }

    fn sealed_here_and_by_the_library(pair: &mut Pair, from: &str, explicit_nonce: usize) {
        {
            let to = peer(from);
            let theirs = pair.library_record(from, b"from the library");
            assert_eq!(
                pair.open(to, &theirs),
                Some(Some(b"from the library".to_vec()))
            );
            assert_eq!(theirs.len(), 13 + explicit_nonce + 16 + 16);
            let ours = pair.our_record(from, b"from here");
            assert_eq!(sequence(&ours), sequence(&theirs) + 1);
            assert_eq!(ours.len(), theirs.len() - 16 + 9);
            assert_eq!(ours[..5], theirs[..5]);
            assert_eq!(pair.receive(to, &ours), vec![b"from here".to_vec()]);
            // The same bytes make a record of the library's length.
            let same_length = pair.our_record(from, b"from the library");
            assert_eq!(same_length.len(), theirs.len());
            assert_eq!(same_length[11..13], theirs[11..13]);
            assert_eq!(
                pair.open(to, &same_length),
                Some(Some(b"from the library".to_vec()))
            );
        }
    }

    /// A datagram sealed where it lies, in a buffer with room before it,
    /// is the record the copying seal makes, byte for byte, cut right
    /// after its tag, and the library opens it; without the room it goes
    /// to the library untouched and takes no sequence number.
    #[test]
    fn a_record_sealed_in_place_is_the_copied_one() {
        for (suite, explicit_nonce) in SUITES {
            let mut pair = Pair::established(suite);
            for from in [CLIENT, SERVER] {
                let session = pair.session(from);
                let (write, _) = session.keys.ready().unwrap();
                let next_sequence = session.keys.next_to_seal(write);
                let mut copied = Vec::new();
                assert!(write.seal(next_sequence, 23, b"one datagram", &mut copied));

                let mut short = b"one datagram".to_vec();
                assert_eq!(session.seal_in_place(&mut short, 0..12), None);
                assert_eq!(short, b"one datagram");
                let mut room = vec![0; 40];
                room.extend_from_slice(b"one datagram");
                #[allow(clippy::reversed_empty_ranges)]
                let reversed = 52..40;
                assert_eq!(session.seal_in_place(&mut room, reversed), None);
                assert_eq!(session.seal_in_place(&mut room, 40..53), None);
                assert_eq!(room[40..], *b"one datagram");

                let mut buffer = vec![0xAA; 40];
                buffer.extend_from_slice(b"one datagram");
                buffer.extend_from_slice(&[0x55; 7]);
                let record = session.seal_in_place(&mut buffer, 40..52).unwrap();
                assert_eq!(record, 40 - 13 - explicit_nonce..52 + 16);
                assert_eq!(record.end, buffer.len());
                // Application data, DTLS 1.2, epoch 1, this sequence number,
                // the fragment's length, and (AES-GCM) the epoch and
                // sequence number again as the explicit nonce.
                let sealed = &buffer[record.clone()];
                let epoch_and_sequence = (1u64 << 48 | next_sequence).to_be_bytes();
                assert_eq!(sealed[..3], [23, 0xfe, 0xfd]);
                assert_eq!(sealed[3..11], epoch_and_sequence);
                let fragment = u16::try_from(explicit_nonce + 12 + 16).unwrap();
                assert_eq!(sealed[11..13], fragment.to_be_bytes());
                assert_eq!(
                    sealed[13..13 + explicit_nonce],
                    epoch_and_sequence[..explicit_nonce]
                );
                assert_eq!(buffer[record.clone()], copied[..]);
                assert!(buffer[..record.start].iter().all(|&byte| byte == 0xAA));
                assert_eq!(
                    pair.receive(peer(from), &buffer[record]),
                    vec![b"one datagram".to_vec()]
                );
                let next = pair.our_record(from, b"next");
                assert_eq!(sequence(&next), next_sequence + 1);
            }
        }
    }

    /// A record accepted once, by either path, is refused by both after;
    /// so is one older than the window, a tampered one, one cut short,
    /// and one of another epoch (the library's to judge, as before).
    #[test]
    fn replayed_old_tampered_and_other_epoch_records_are_refused_as_before() {
        for (suite, explicit_nonce) in SUITES {
            let mut pair = Pair::established(suite);
            for from in [CLIENT, SERVER] {
                refused_as_before(&mut pair, from, explicit_nonce);
            }
        }
    }

    fn refused_as_before(pair: &mut Pair, from: &str, explicit_nonce: usize) {
        {
            let to = peer(from);
            let ours = pair.our_record(from, b"once");
            assert_eq!(pair.open(to, &ours), Some(Some(b"once".to_vec())));
            assert_eq!(pair.open(to, &ours), Some(None));
            assert!(pair.receive(to, &ours).is_empty());

            let theirs = pair.library_record(from, b"once more");
            assert_eq!(pair.receive(to, &theirs), vec![b"once more".to_vec()]);
            assert_eq!(pair.open(to, &theirs), Some(None));
            assert!(pair.receive(to, &theirs).is_empty());

            // A replay beside a fresh record in one datagram: only the
            // fresh one gets through the library.
            let fresh = pair.our_record(from, b"fresh");
            let both = [ours.clone(), fresh].concat();
            assert_eq!(pair.receive(to, &both), vec![b"fresh".to_vec()]);

            // Older than the 64 before the newest.
            let old = pair.our_record(from, b"old");
            for _ in 0..64 {
                let newer = pair.our_record(from, b"newer");
                assert!(pair.open(to, &newer).unwrap().is_some());
            }
            assert_eq!(pair.open(to, &old), Some(None));
            assert!(pair.receive(to, &old).is_empty());
            // Out of order within the window is fine.
            let skipped = pair.our_record(from, b"skipped");
            let next = pair.our_record(from, b"next");
            assert_eq!(pair.open(to, &next), Some(Some(b"next".to_vec())));
            assert_eq!(pair.open(to, &skipped), Some(Some(b"skipped".to_vec())));

            let good = pair.our_record(from, b"good");
            for at in [0, 2, 4, 6, 12, 13, 20, good.len() - 1] {
                let mut tampered = good.clone();
                tampered[at] ^= 1;
                // A changed header makes no application-data record of
                // this path's (it goes to the library), or fails to open.
                assert!(
                    matches!(pair.open(to, &tampered), None | Some(None)),
                    "byte {at}"
                );
                assert!(pair.receive(to, &tampered).is_empty(), "byte {at}");
            }
            let mut short = good.clone();
            short.truncate(13 + explicit_nonce + 15);
            short[11..13].copy_from_slice(&(explicit_nonce as u16 + 15).to_be_bytes());
            assert_eq!(pair.open(to, &short), Some(None));
            assert!(pair.receive(to, &short).is_empty());
            // Untouched, it still opens: none of the above moved the window.
            assert_eq!(pair.open(to, &good), Some(Some(b"good".to_vec())));

            let mut epoch_0 = pair.our_record(from, b"epoch 0");
            epoch_0[3..5].copy_from_slice(&[0, 0]);
            assert_eq!(pair.open(to, &epoch_0), None);
            assert!(pair.receive(to, &epoch_0).is_empty());
            let mut epoch_2 = pair.our_record(from, b"epoch 2");
            epoch_2[3..5].copy_from_slice(&[0, 2]);
            assert_eq!(pair.open(to, &epoch_2), None);
            assert!(pair.receive(to, &epoch_2).is_empty());
        }
    }

    /// Once this path sends, a record the library still seals (a
    /// close_notify, say) leaves under this path's next sequence number,
    /// so none is used twice.
    #[test]
    fn the_library_never_reuses_a_sequence_number_this_path_sent() {
        let mut pair = Pair::established(Dtls12CipherSuite::ECDHE_ECDSA_CHACHA20_POLY1305_SHA256);
        let ours = pair.our_record(CLIENT, b"ours");
        pair.client.dtls.close().unwrap();
        let Pair {
            client,
            outbox,
            scratch,
            ..
        } = &mut pair;
        client.drain(address(SERVER), outbox, scratch).unwrap();
        let mut records = Vec::new();
        outbox.send_records(|_, record| records.push(record.to_vec()));
        assert_eq!(records.len(), 1);
        let alert = &records[0];
        assert_eq!(alert[0], 21);
        assert_eq!(sequence(alert), sequence(&ours) + 1);
        // The server takes it as the close it is.
        let result = pair.server.receive(
            address(CLIENT),
            alert,
            Instant::now(),
            &mut pair.outbox,
            &mut pair.scratch,
        );
        assert_eq!(result, Err(Ended::Closed));
    }
}
