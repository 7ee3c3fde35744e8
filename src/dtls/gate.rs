//! How an encrypted server admits a new remote address without keeping
//! anything for addresses that never prove they receive its datagrams.
//!
//! DTLS's answer to spoofed ClientHellos is the cookie exchange (RFC 6347
//! §4.2.1): the server answers a first ClientHello with a
//! HelloVerifyRequest carrying a cookie, and only a ClientHello that
//! echoes a valid cookie starts a handshake. The DTLS library makes its
//! cookie from a secret of its own session object and the client random,
//! so by itself it would need that object kept per address, and its cookie
//! would not depend on the address at all (one cookie obtained honestly
//! could be replayed from any spoofed source).
//!
//! So every session object is made for one (address, client random): its
//! seed for the library's non-key randomness, and with it the cookie
//! secret, is a keyed hash of the host's secret, the address and the
//! client random. A first ClientHello gets a fresh object, which answers
//! with its HelloVerifyRequest and is then dropped: nothing stays. A
//! ClientHello with a cookie gets a fresh object with the same seed, which
//! is shown the first ClientHello again (rebuilt from this one, RFC 6347
//! §4.2.1 says they match but for the cookie) so that it is where its
//! HelloVerifyRequest left it, and then this one: a cookie made for this
//! address and random checks out, the handshake goes on, and the object
//! becomes the address's session. Any other cookie (from another address,
//! or forged) gets a HelloVerifyRequest again, and nothing is kept.
//!
//! The keys of the handshake (ECDHE) never come from that seed: the
//! library draws them from the system's random source.

use std::net::SocketAddr;
use std::time::Instant;

use dimpl::{Dtls, Output};
use hmac::{Hmac, Mac};
use rand_core::{OsRng, RngCore};
use sha2::Sha256;

use super::hello::{ClientHello, ServerFlight};
use super::session::{Outbox, Session};
use super::setup::{session_config, ServerSetup};

/// What the gate made of a datagram from an unknown address.
pub enum Admission {
    /// Not a ClientHello: dropped.
    Dropped,
    /// Answered with a HelloVerifyRequest; nothing kept.
    Verify,
    /// A valid cookie: the address's new session.
    Admitted(Box<Session>),
}

/// The host's secret for cookies.
pub struct Gate {
    secret: [u8; 32],
}

impl Default for Gate {
    fn default() -> Self {
        let mut secret = [0u8; 32];
        OsRng.fill_bytes(&mut secret);
        Gate { secret }
    }
}

impl Gate {
    /// The seed of the session object for `from` and `random`.
    fn seed(&self, from: &SocketAddr, random: &[u8]) -> u64 {
        // HMAC takes a key of any length: this cannot fail.
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.secret)
            .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
        match from {
            SocketAddr::V4(v4) => mac.update(&v4.ip().octets()),
            SocketAddr::V6(v6) => mac.update(&v6.ip().octets()),
        }
        mac.update(&from.port().to_be_bytes());
        mac.update(random);
        let tag = mac.finalize().into_bytes();
        u64::from_be_bytes([
            tag[0], tag[1], tag[2], tag[3], tag[4], tag[5], tag[6], tag[7],
        ])
    }

    /// Handles a datagram from an address without a session.
    pub fn admit(
        &self,
        server: &ServerSetup,
        from: SocketAddr,
        datagram: &[u8],
        now: Instant,
        outbox: &mut Outbox,
        scratch: &mut Vec<u8>,
    ) -> Admission {
        let Some(hello) = ClientHello::parse(datagram) else {
            return Admission::Dropped;
        };
        let seed = self.seed(&from, hello.random());
        let mut dtls = Dtls::new_12(session_config(Some(seed)), server.certificate.clone(), now);
        // The library sets its random up on its first timer run.
        if dtls.handle_timeout(now).is_err() {
            return Admission::Dropped;
        }
        if hello.cookie().is_empty() {
            return match dtls.handle_packet(datagram) {
                Ok(()) => {
                    send_flight(&mut dtls, from, outbox, scratch);
                    Admission::Verify
                }
                Err(_) => Admission::Dropped,
            };
        }
        // Where the HelloVerifyRequest of the first ClientHello left it.
        if dtls.handle_packet(&hello.first()).is_err() {
            return Admission::Dropped;
        }
        discard_flight(&mut dtls, scratch);
        if dtls.handle_packet(datagram).is_err() {
            return Admission::Dropped;
        }
        let mark = outbox.records_mark();
        let flight = send_flight(&mut dtls, from, outbox, scratch);
        match flight {
            ServerFlight::ServerHello => {
                let mut session = Box::new(Session::new(dtls, None, now));
                // Its timer, for retransmitting the flight just queued.
                if session.drain(from, outbox, scratch).is_err() {
                    outbox.forget_records_since(mark);
                    return Admission::Dropped;
                }
                Admission::Admitted(session)
            }
            ServerFlight::HelloVerifyRequest => Admission::Verify,
            ServerFlight::Other => {
                outbox.forget_records_since(mark);
                Admission::Dropped
            }
        }
    }
}

/// Queues what `dtls` has to send to `to`; what its first datagram is.
fn send_flight(
    dtls: &mut Dtls,
    to: SocketAddr,
    outbox: &mut Outbox,
    scratch: &mut Vec<u8>,
) -> ServerFlight {
    let mut first = None;
    loop {
        match dtls.poll_output(scratch) {
            Output::Packet(datagram) => {
                first.get_or_insert(ServerFlight::of(datagram));
                outbox.record(to, datagram);
            }
            Output::BufferTooSmall { needed } => scratch.resize(needed, 0),
            Output::Timeout(_) => return first.unwrap_or(ServerFlight::Other),
            _ => {}
        }
    }
}

/// Drops what `dtls` has to send.
fn discard_flight(dtls: &mut Dtls, scratch: &mut Vec<u8>) {
    loop {
        match dtls.poll_output(scratch) {
            Output::BufferTooSmall { needed } => scratch.resize(needed, 0),
            Output::Timeout(_) => return,
            _ => {}
        }
    }
}
