//! Encrypted hosts (opt-in, `enet/enet_rs.h`): every datagram to or from a
//! remote address travels as DTLS 1.2 application data on a session with
//! that address, the ENet datagram inside unchanged, so checksums,
//! compression, fragments and loss recovery work as before. This is the
//! model Godot's ENet uses, which is what lets the two interoperate.
//!
//! It is a transport concern: [`SecureTransport`] sits between the engine
//! and the socket. The engine never sees a datagram from an address
//! without an established session (a plaintext ENet datagram to an
//! encrypted host is dropped here), and a host never sends one in the
//! clear. A session that fails or closes makes the engine disconnect the
//! peer there, as a timeout would, so the program gets ENet's usual
//! DISCONNECT event; [`SecureLayer::status`] says why.
//!
//! The DTLS protocol and its cryptography are the `dimpl` crate's (pure
//! Rust, sans-IO, RustCrypto); certificates are judged with rustls-webpki.
//! This module routes datagrams, admits new addresses statelessly
//! (`gate.rs`), and keeps the sessions. Once a session is established,
//! its application-data records are sealed and opened here with the
//! library's keys, format and replay window (`record.rs`, with `ring`):
//! the library's general record layer costs more than the cipher.
#![forbid(unsafe_code)]

mod address_hash;
mod aead;
mod gate;
mod hello;
#[cfg(feature = "ring")]
mod record;
mod session;
mod setup;
mod setup_error;
mod transport;
mod verify;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use dimpl::Dtls;

use address_hash::AddressHashing;
use gate::{Admission, Gate};
#[cfg(feature = "ring")]
pub use record::application_data_aad;
use session::{Ended, Outbox, Progress, Session};
pub use setup::{ClientSetup, ServerSetup};
pub use setup_error::SetupError;
pub use transport::{MaybeSecure, SecureTransport};

/// The most an application-data record adds to the ENet datagram it
/// carries: the record header (13 bytes), AES-GCM's explicit nonce (8)
/// and its tag (16). An encrypted host gives its peers an MTU this much
/// below its own, so records fit the MTU the program set.
pub const RECORD_OVERHEAD: u32 = 13 + 8 + 16;

/// A session unheard of for this long is dropped (an ENet peer pings
/// every half second).
const IDLE: Duration = Duration::from_secs(60);
/// At most this many sessions at once; admitting one more drops the one
/// heard of least recently (the gate admits only addresses that answered
/// a cookie, so these are real, if unwanted, peers).
const MOST_SESSIONS: usize = 4096;
/// The reasons kept for addresses whose session ended.
const MOST_FAILURES: usize = 256;

/// What a program can learn of a peer's encryption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// No session (yet, or any more without a failure).
    None,
    Handshaking,
    Established,
    /// The session failed or closed, and why.
    Failed(String),
}

/// Datagrams the encryption layer dropped before the engine saw them
/// (`enet_rs_host_get_stats`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DtlsDrops {
    /// Datagrams that ended their address's session with an error.
    pub failed: u64,
    /// Datagrams on an established session that yielded nothing: records
    /// that failed authentication or decryption, replays, or bytes that
    /// were no record (the DTLS library discards those silently).
    pub discarded: u64,
    /// Datagrams from an address with no session that were no ClientHello
    /// a server could answer.
    pub no_session: u64,
}

/// A host's encryption: its set-ups and its sessions.
pub struct SecureLayer {
    server: Option<ServerSetup>,
    client: Option<ClientSetup>,
    /// A server's gate, made with its set-up.
    gate: Option<Gate>,
    /// Boxed: a session is a few KiB.
    /// Keyed by the peer's address, hashed as `address_hash.rs` says.
    sessions: HashMap<SocketAddr, Box<Session>, AddressHashing>,
    outbox: Outbox,
    /// The library's output buffer.
    scratch: Vec<u8>,
    /// A record sealed outside the library, on its way to the socket.
    #[cfg(feature = "ring")]
    sealed: Vec<u8>,
    /// Addresses whose session ended since the engine last asked.
    lost: Vec<SocketAddr>,
    /// Why recent sessions ended, oldest first.
    failures: Vec<(SocketAddr, String)>,
    /// When idle sessions were last looked for.
    swept: Instant,
    /// Datagrams dropped here.
    drops: DtlsDrops,
}

impl SecureLayer {
    pub fn new() -> Self {
        SecureLayer {
            server: None,
            client: None,
            gate: None,
            sessions: HashMap::with_hasher(AddressHashing::new()),
            outbox: Outbox::default(),
            scratch: vec![0; 16 * 1024],
            #[cfg(feature = "ring")]
            sealed: Vec::new(),
            lost: Vec::new(),
            failures: Vec::new(),
            swept: Instant::now(),
            drops: DtlsDrops::default(),
        }
    }

    /// Accepts sessions from clients, presenting `setup`'s certificate.
    pub fn set_server(&mut self, setup: ServerSetup) {
        self.gate = Some(Gate::new(&setup));
        self.server = Some(setup);
    }

    /// Whether the host connects out encrypted.
    pub fn is_client(&self) -> bool {
        self.client.is_some()
    }

    /// Connects out over sessions judged by `setup`.
    pub fn set_client(&mut self, setup: ClientSetup) {
        self.client = Some(setup);
    }

    /// The datagrams the layer dropped so far.
    pub fn drops(&self) -> DtlsDrops {
        self.drops
    }

    /// How many sessions the host keeps (handshaking or established).
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    /// What the program sees of the encryption of the peer at `address`;
    /// `connecting` says the peer is connecting out from this host, whose
    /// handshake starts with the host's next service call and so counts
    /// as under way from the start.
    pub fn peer_status(&self, address: &SocketAddr, connecting: bool) -> Status {
        match self.status(address) {
            Status::None if connecting && self.is_client() => Status::Handshaking,
            status => status,
        }
    }

    /// What the program sees of `peer`'s encryption.
    pub fn status(&self, peer: &SocketAddr) -> Status {
        if let Some(session) = self.sessions.get(peer) {
            return match session.progress() {
                Progress::Handshaking => Status::Handshaking,
                Progress::Established => Status::Established,
            };
        }
        match self.failures.iter().rev().find(|(at, _)| at == peer) {
            Some((_, why)) => Status::Failed(why.clone()),
            None => Status::None,
        }
    }

    /// Opens a datagram from `from` outside the library if it is one
    /// application-data record of a session ready for that (`record.rs`):
    /// `None` if it goes to [`SecureLayer::receive`] untouched, else the
    /// plaintext's range in `datagram`, decrypted where it lies, or
    /// `Some(None)` if the record was refused.
    #[cfg(feature = "ring")]
    fn open(
        &mut self,
        from: SocketAddr,
        datagram: &mut [u8],
    ) -> Option<Option<std::ops::Range<usize>>> {
        let opened = self.sessions.get_mut(&from)?.open(datagram)?;
        if opened.is_none() {
            self.drops.discarded += 1;
        }
        Some(opened)
    }

    /// Seals an ENet datagram to `to` into `self.sealed` outside the
    /// library, if its session is ready for that; false if it goes to
    /// [`SecureLayer::send`].
    #[cfg(feature = "ring")]
    fn seal(&mut self, to: &SocketAddr, datagram: &[u8]) -> bool {
        match self.sessions.get_mut(to) {
            Some(session) => session.seal(datagram, &mut self.sealed),
            None => false,
        }
    }

    /// Seals the ENet datagram at `datagram` of `buffer` to `to` where it
    /// lies, outside the library, if its session is ready for that: the
    /// record's range in `buffer`, or `None` if it goes to
    /// [`SecureLayer::send`].
    #[cfg(feature = "ring")]
    fn seal_in_place(
        &mut self,
        to: &SocketAddr,
        buffer: &mut Vec<u8>,
        datagram: std::ops::Range<usize>,
    ) -> Option<std::ops::Range<usize>> {
        self.sessions.get_mut(to)?.seal_in_place(buffer, datagram)
    }

    /// A datagram from `from`.
    fn receive(&mut self, from: SocketAddr, datagram: &[u8], now: Instant) {
        let (has_session, established, restarting) = match self.sessions.get(&from) {
            // A client that restarted its handshake on an address with an
            // established session goes through the gate again.
            Some(session) => {
                let established = session.progress() == Progress::Established;
                (
                    true,
                    established,
                    established && hello::ClientHello::parse(datagram).is_some(),
                )
            }
            None => (false, false, false),
        };
        if has_session && !restarting {
            let marks = (self.outbox.plaintexts_mark(), self.outbox.records_mark());
            let result = {
                let SecureLayer {
                    sessions,
                    outbox,
                    scratch,
                    ..
                } = self;
                sessions
                    .get_mut(&from)
                    .map(|session| session.receive(from, datagram, now, outbox, scratch))
            };
            match result {
                Some(Err(ended)) => {
                    if matches!(ended, Ended::Failed(_)) {
                        self.drops.failed += 1;
                    }
                    self.end(from, ended);
                }
                // Nothing out of an established session: neither plaintext
                // nor a handshake flight answered.
                Some(Ok(()))
                    if established
                        && marks == (self.outbox.plaintexts_mark(), self.outbox.records_mark()) =>
                {
                    self.drops.discarded += 1;
                }
                _ => {}
            }
            return;
        }
        // Only a ClientHello with a valid cookie starts (or replaces) a
        // session; anything else from an unknown address is dropped.
        let admission = {
            let SecureLayer {
                server,
                gate,
                outbox,
                scratch,
                ..
            } = self;
            match (server.as_ref(), gate.as_mut()) {
                (Some(server), Some(gate)) => {
                    gate.admit(server, from, datagram, now, outbox, scratch)
                }
                _ => Admission::Dropped,
            }
        };
        if matches!(admission, Admission::Dropped) {
            self.drops.no_session += 1;
        }
        if let Admission::Admitted(session) = admission {
            if has_session {
                self.end(
                    from,
                    Ended::Failed("the client started a new handshake".into()),
                );
            }
            self.insert(from, session);
        }
    }

    /// An ENet datagram to `to`; false if it cannot be sent encrypted.
    fn send(&mut self, to: SocketAddr, datagram: &[u8], now: Instant) -> bool {
        if !self.sessions.contains_key(&to) {
            // Only a client set-up connects out; a server never answers an
            // address that has no session.
            let Some(client) = &self.client else {
                return false;
            };
            let mut dtls = Dtls::new_12(client.config.clone(), client.certificate.clone(), now);
            dtls.set_active(true);
            if dtls.handle_timeout(now).is_err() {
                return false;
            }
            let session = Box::new(Session::new(dtls, Some(client.verifier.clone()), now));
            self.forget_failure(&to);
            self.insert(to, session);
        }
        let result = {
            let SecureLayer {
                sessions,
                outbox,
                scratch,
                ..
            } = self;
            sessions
                .get_mut(&to)
                .map(|session| session.send(to, datagram, outbox, scratch))
        };
        match result {
            Some(Ok(())) => true,
            Some(Err(ended)) => {
                self.end(to, ended);
                false
            }
            None => false,
        }
    }

    /// Runs the sessions' due timers, and drops sessions long unheard of.
    fn run_timers(&mut self, now: Instant) {
        let due: Vec<SocketAddr> = self
            .sessions
            .iter()
            .filter(|(_, session)| session.timer().is_some_and(|at| at <= now))
            .map(|(peer, _)| *peer)
            .collect();
        for peer in due {
            let result = {
                let SecureLayer {
                    sessions,
                    outbox,
                    scratch,
                    ..
                } = self;
                sessions
                    .get_mut(&peer)
                    .map(|session| session.run_timer(peer, now, outbox, scratch))
            };
            if let Some(Err(ended)) = result {
                self.end(peer, ended);
            }
        }
        if now.duration_since(self.swept) >= Duration::from_secs(1) {
            self.swept = now;
            for session in self.sessions.values_mut() {
                session.catch_up(now);
            }
            let idle: Vec<SocketAddr> = self
                .sessions
                .iter()
                .filter(|(_, session)| now.duration_since(session.heard) >= IDLE)
                .map(|(peer, _)| *peer)
                .collect();
            for peer in idle {
                self.end(
                    peer,
                    Ended::Failed("nothing heard from the peer for 60 s".into()),
                );
            }
        }
    }

    /// When the next session timer is due.
    fn next_timer(&self) -> Option<Instant> {
        self.sessions
            .values()
            .filter_map(|session| session.timer())
            .min()
            .map(|at| at.min(self.swept + Duration::from_secs(1)))
    }

    fn insert(&mut self, peer: SocketAddr, session: Box<Session>) {
        if self.sessions.len() >= MOST_SESSIONS {
            let stalest = self
                .sessions
                .iter()
                .min_by_key(|(_, session)| session.heard)
                .map(|(peer, _)| *peer);
            if let Some(stalest) = stalest {
                self.end(stalest, Ended::Failed("too many sessions".into()));
            }
        }
        self.sessions.insert(peer, session);
    }

    /// A session ended: the engine is told, and the reason kept.
    fn end(&mut self, peer: SocketAddr, ended: Ended) {
        self.sessions.remove(&peer);
        self.lost.push(peer);
        self.forget_failure(&peer);
        if self.failures.len() >= MOST_FAILURES {
            self.failures.remove(0);
        }
        self.failures.push((peer, ended.reason()));
    }

    fn forget_failure(&mut self, peer: &SocketAddr) {
        self.failures.retain(|(at, _)| at != peer);
    }
}

impl Default for SecureLayer {
    fn default() -> Self {
        Self::new()
    }
}
