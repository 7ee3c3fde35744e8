//! How an encrypted server admits a new remote address without keeping,
//! or spending much on, anything for addresses that never prove they
//! receive its datagrams.
//!
//! DTLS's answer to spoofed ClientHellos is the cookie exchange (RFC 6347
//! §4.2.1): the server answers a first ClientHello with a
//! HelloVerifyRequest carrying a cookie, and only a ClientHello that
//! echoes a valid cookie starts a handshake. The DTLS library does this
//! inside each of its server session objects, with a cookie secret drawn
//! from the object's random generator, and making an object is costly
//! (it loads the private key; its configuration runs self-tests).
//!
//! So the gate answers ClientHellos itself and makes a session object only
//! for a client that echoed a valid cookie:
//! - every server session of the host is made from one configuration
//!   whose random generator has a fixed seed (the host's, drawn at set-up),
//!   so all of them hold the same cookie secret, which the gate derives
//!   from that seed as the library does ([`cookie_secret`], checked
//!   against the library by a test) and so computes the cookie the session
//!   object would;
//! - a ClientHello without a valid cookie gets a HelloVerifyRequest built
//!   here, byte for byte the one the library would send: an HMAC, and
//!   nothing kept;
//! - a ClientHello with a valid cookie gets a session object, which is
//!   shown the first ClientHello again (rebuilt from this one: RFC 6347
//!   §4.2.1 says they match but for the cookie) so that it stands where
//!   its own HelloVerifyRequest left it, then this one: it checks the
//!   cookie too, and goes on with the handshake.
//!
//! A client may split its ClientHello into several handshake fragments
//! (OpenSSL 3 does with its default cipher list and a small MTU guess),
//! in one datagram or several. A first ClientHello (message sequence 0)
//! needs no reassembly: the fragment that starts it carries the client
//! random, and the record sequence number and the random are all a
//! HelloVerifyRequest depends on, so that fragment is answered at once and
//! the others are dropped. The second one, which echoes the cookie, comes
//! in fragments too, and the library needs it whole: its fragments go to
//! a small bounded table ([`fragments`]), and a ClientHello completed
//! there is handled as one that came whole.
//!
//! The library's cookie covers the client random, not the address, so one
//! cookie obtained honestly could be replayed from spoofed sources: the
//! gate admits each client random once (it remembers the last
//! [`REMEMBERED`]), so a replay starts nothing.
//!
//! What the fixed seed also gives every session is the non-key randomness
//! drawn after it (the time-stamped server random, retransmission jitter,
//! AES-GCM's explicit nonces): those repeat between sessions, which each
//! have keys of their own from fresh ECDHE (the library draws key pairs
//! from the system's random source, never from this seed).

use std::collections::{HashSet, VecDeque};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use dimpl::{Config, Dtls, Output};
use hmac::{Hmac, Mac};
use rand09::rngs::StdRng;
use rand09::{Rng, SeedableRng};
use sha2::Sha256;

mod fragments;
use fragments::Fragments;

use super::hello::{hello_fragments, ClientHello, ServerFlight};
use super::session::{Outbox, Session};
use super::setup::ServerSetup;

/// How many admitted client randoms the gate remembers.
const REMEMBERED: usize = 4096;

/// The cookie secret of a server session object whose configuration has
/// random seed `seed`: the library draws a retransmission jitter (an
/// `f32`) first, then the secret.
fn cookie_secret(seed: u64) -> [u8; 32] {
    let mut rng = StdRng::seed_from_u64(seed);
    let _jitter: f32 = rng.random();
    rng.random()
}

/// What the gate made of a datagram from an unknown address.
pub enum Admission {
    /// Not a ClientHello: dropped.
    Dropped,
    /// Answered with a HelloVerifyRequest; nothing kept.
    Verify,
    /// Fragments of a ClientHello, held until the rest comes.
    Held,
    /// A valid cookie: the address's new session.
    Admitted(Box<Session>),
}

/// A server's gate.
pub struct Gate {
    /// The configuration of every server session of the host.
    config: Arc<Config>,
    cookie_secret: [u8; 32],
    admitted: VecDeque<[u8; 32]>,
    admitted_set: HashSet<[u8; 32]>,
    /// ClientHellos arriving in fragments.
    fragments: Fragments,
}

impl Gate {
    /// The gate of a host with `server`'s set-up (its configuration and
    /// seed).
    pub fn new(server: &ServerSetup) -> Self {
        Gate {
            config: server.config.clone(),
            cookie_secret: cookie_secret(server.seed),
            admitted: VecDeque::new(),
            admitted_set: HashSet::new(),
            fragments: Fragments::default(),
        }
    }

    /// The cookie for a client random, as the host's sessions make it.
    fn cookie(&self, random: &[u8]) -> [u8; 32] {
        // HMAC takes a key of any length: this cannot fail.
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.cookie_secret)
            .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
        mac.update(random);
        mac.finalize().into_bytes().into()
    }

    /// Handles a datagram from an address without a session.
    pub fn admit(
        &mut self,
        server: &ServerSetup,
        from: SocketAddr,
        datagram: &[u8],
        now: Instant,
        outbox: &mut Outbox,
        scratch: &mut Vec<u8>,
    ) -> Admission {
        if let Some(hello) = ClientHello::parse(datagram) {
            return self.answer(server, from, &hello, datagram, now, outbox, scratch);
        }
        let mut admission = Admission::Dropped;
        for fragment in hello_fragments(datagram) {
            if fragment.message_seq == 0 {
                // A first ClientHello: its start is all the answer needs
                // (one answer a datagram, however many starts it holds).
                if let (Some(random), Admission::Dropped) = (fragment.random(), &admission) {
                    outbox.record(from, &fragment.verify_request(&self.cookie(random)));
                    admission = Admission::Verify;
                }
                continue;
            }
            let Some(whole) = self.fragments.add(from, &fragment, now) else {
                admission = Admission::Held;
                continue;
            };
            return match ClientHello::parse(&whole) {
                Some(hello) => self.answer(server, from, &hello, &whole, now, outbox, scratch),
                None => Admission::Dropped,
            };
        }
        admission
    }

    /// Answers `hello`, whose record is `record`: a HelloVerifyRequest, or
    /// a session when it echoes a valid cookie.
    #[allow(clippy::too_many_arguments)]
    fn answer(
        &mut self,
        server: &ServerSetup,
        from: SocketAddr,
        hello: &ClientHello,
        record: &[u8],
        now: Instant,
        outbox: &mut Outbox,
        scratch: &mut Vec<u8>,
    ) -> Admission {
        let cookie = self.cookie(hello.random());
        let random: [u8; 32] = hello.random().try_into().unwrap_or([0; 32]);
        if !same(hello.cookie(), &cookie) || self.admitted_set.contains(&random) {
            outbox.record(from, &hello.verify_request(&cookie));
            return Admission::Verify;
        }
        let mut dtls = Dtls::new_12(self.config.clone(), server.certificate.clone(), now);
        // The library sets its random up on its first timer run; then it
        // answers the first ClientHello (its answer is the one already
        // sent), and goes on with this one.
        if dtls.handle_timeout(now).is_err() || dtls.handle_packet(&hello.first()).is_err() {
            return Admission::Dropped;
        }
        discard_flight(&mut dtls, scratch);
        if dtls.handle_packet(record).is_err() {
            return Admission::Dropped;
        }
        let mark = outbox.records_mark();
        if send_flight(&mut dtls, from, outbox, scratch) != ServerFlight::ServerHello {
            outbox.forget_records_since(mark);
            return Admission::Dropped;
        }
        let mut session = Box::new(Session::new(dtls, None, now));
        // Its timer, for retransmitting the flight just queued.
        if session.drain(from, outbox, scratch).is_err() {
            outbox.forget_records_since(mark);
            return Admission::Dropped;
        }
        self.remember(random);
        Admission::Admitted(session)
    }

    fn remember(&mut self, random: [u8; 32]) {
        if self.admitted.len() >= REMEMBERED {
            if let Some(oldest) = self.admitted.pop_front() {
                self.admitted_set.remove(&oldest);
            }
        }
        self.admitted.push_back(random);
        self.admitted_set.insert(random);
    }
}

/// Equal, in time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtls::hello::fragment_records;
    use crate::dtls::setup::{session_config, ClientSetup};

    /// A ClientHello from a real client session (the library's own).
    fn client_hello() -> Vec<u8> {
        let client = ClientSetup::new(false, "", None).unwrap();
        let mut dtls = Dtls::new_12(client.config, client.certificate, Instant::now());
        dtls.set_active(true);
        dtls.handle_timeout(Instant::now()).unwrap();
        let mut scratch = vec![0; 4096];
        let mut outbox = Outbox::default();
        let to: SocketAddr = "127.0.0.1:1".parse().unwrap();
        send_flight(&mut dtls, to, &mut outbox, &mut scratch);
        let mut hello = None;
        outbox.send_records(|_, record| {
            hello.get_or_insert(record.to_vec());
        });
        hello.unwrap()
    }

    /// The gate's HelloVerifyRequest is the one a session object of the
    /// host would send, for any seed and client: the cookie secret is
    /// derived as the library derives it.
    #[test]
    fn the_gate_answers_as_the_library_would() {
        let server = ServerSetup::self_signed().unwrap();
        for seed in [0u64, 1, 0x5EED, u64::MAX] {
            let gate = Gate {
                config: session_config(Some(seed)).unwrap(),
                cookie_secret: cookie_secret(seed),
                admitted: VecDeque::new(),
                admitted_set: HashSet::new(),
                fragments: Fragments::default(),
            };
            for _ in 0..3 {
                let hello = client_hello();
                let parsed = ClientHello::parse(&hello).unwrap();
                let ours = parsed.verify_request(&gate.cookie(parsed.random()));
                let mut dtls = Dtls::new_12(
                    gate.config.clone(),
                    server.certificate.clone(),
                    Instant::now(),
                );
                dtls.handle_timeout(Instant::now()).unwrap();
                dtls.handle_packet(&hello).unwrap();
                let mut scratch = vec![0; 4096];
                let mut outbox = Outbox::default();
                let to: SocketAddr = "127.0.0.1:1".parse().unwrap();
                send_flight(&mut dtls, to, &mut outbox, &mut scratch);
                let mut library = None;
                outbox.send_records(|_, record| {
                    library.get_or_insert(record.to_vec());
                });
                assert_eq!(ours, library.unwrap(), "seed {seed}");
            }
        }
    }

    #[test]
    fn a_cookie_admits_once_and_a_forged_one_never() {
        let server = ServerSetup::self_signed().unwrap();
        let mut gate = Gate::new(&server);
        let mut scratch = vec![0; 4096];
        let mut outbox = Outbox::default();
        let from: SocketAddr = "127.0.0.1:2".parse().unwrap();
        let hello = client_hello();
        let parsed = ClientHello::parse(&hello).unwrap();
        let answer = |cookie: &[u8]| with_cookie(&parsed, cookie);
        let now = Instant::now();
        assert!(matches!(
            gate.admit(&server, from, &hello, now, &mut outbox, &mut scratch),
            Admission::Verify
        ));
        let forged = answer(&[7; 32]);
        assert!(matches!(
            gate.admit(&server, from, &forged, now, &mut outbox, &mut scratch),
            Admission::Verify
        ));
        let good = answer(&gate.cookie(parsed.random()));
        assert!(matches!(
            gate.admit(&server, from, &good, now, &mut outbox, &mut scratch),
            Admission::Admitted(_)
        ));
        // The same client random again (a replay, from anywhere): nothing.
        let elsewhere: SocketAddr = "127.0.0.9:9".parse().unwrap();
        assert!(matches!(
            gate.admit(&server, elsewhere, &good, now, &mut outbox, &mut scratch),
            Admission::Verify
        ));
    }

    /// The records of an outbox, in order.
    fn sent(outbox: &mut Outbox) -> Vec<Vec<u8>> {
        let mut records = Vec::new();
        outbox.send_records(|_, record| records.push(record.to_vec()));
        records
    }

    #[test]
    fn a_first_hello_in_fragments_gets_the_answer_a_whole_one_gets() {
        let server = ServerSetup::self_signed().unwrap();
        let mut gate = Gate::new(&server);
        let mut scratch = vec![0; 4096];
        let mut outbox = Outbox::default();
        let from: SocketAddr = "127.0.0.1:2".parse().unwrap();
        let now = Instant::now();
        let hello = client_hello();
        let body_length = hello.len() - 25;
        let records = fragment_records(&hello, &[(0, 60), (60, body_length - 60)], 0);
        let whole_answer = ClientHello::parse(&hello)
            .unwrap()
            .verify_request(&gate.cookie(ClientHello::parse(&hello).unwrap().random()));
        // Both fragments in one datagram, then each in its own, in either
        // order: one answer per opening fragment, nothing held.
        for datagrams in [
            vec![records.concat()],
            vec![[records[0].clone(), records[0].clone()].concat()],
            records.clone(),
            vec![records[1].clone(), records[0].clone()],
        ] {
            let mut outcomes = Vec::new();
            for datagram in &datagrams {
                outcomes.push(gate.admit(&server, from, datagram, now, &mut outbox, &mut scratch));
            }
            assert_eq!(
                outcomes
                    .iter()
                    .filter(|outcome| matches!(outcome, Admission::Verify))
                    .count(),
                1
            );
            assert!(!outcomes.iter().any(|o| matches!(o, Admission::Admitted(_))));
            assert_eq!(sent(&mut outbox), vec![whole_answer.clone()]);
            assert_eq!(gate.fragments.len(), 0);
        }
    }

    #[test]
    fn a_cookie_in_fragments_admits_once_they_are_all_in() {
        let server = ServerSetup::self_signed().unwrap();
        let mut scratch = vec![0; 4096];
        let mut outbox = Outbox::default();
        let now = Instant::now();
        let hello = client_hello();
        let parsed = ClientHello::parse(&hello).unwrap();
        let second = |cookie: &[u8]| with_cookie(&parsed, cookie);
        let from: SocketAddr = "127.0.0.1:2".parse().unwrap();
        let elsewhere: SocketAddr = "127.0.0.9:9".parse().unwrap();
        for order in [[0, 1, 2], [2, 0, 1], [1, 2, 0]] {
            let mut gate = Gate::new(&server);
            let good = second(&gate.cookie(parsed.random()));
            let body_length = good.len() - 25;
            // Three overlapping fragments, each in its own datagram.
            let third = body_length / 3;
            let records = fragment_records(
                &good,
                &[
                    (0, third + 10),
                    (third, third + 10),
                    (2 * third, body_length - 2 * third),
                ],
                2,
            );
            let (last, firsts) = order.split_last().unwrap();
            let mut admit = |from: SocketAddr, datagram: &[u8]| {
                gate.admit(&server, from, datagram, now, &mut outbox, &mut scratch)
            };
            for &i in firsts {
                assert!(matches!(admit(from, &records[i]), Admission::Held));
            }
            // The last fragment from another address completes nothing.
            assert!(matches!(admit(elsewhere, &records[*last]), Admission::Held));
            assert!(matches!(
                admit(from, &records[*last]),
                Admission::Admitted(_)
            ));
            // The same fragments again (a replay, from anywhere): nothing.
            let replayer: SocketAddr = "127.0.0.7:7".parse().unwrap();
            for &i in firsts {
                assert!(matches!(admit(replayer, &records[i]), Admission::Held));
            }
            assert!(matches!(
                admit(replayer, &records[*last]),
                Admission::Verify
            ));
        }
        // A forged cookie in fragments gets a HelloVerifyRequest, no session.
        let mut gate = Gate::new(&server);
        let forged = second(&[7; 32]);
        let half = (forged.len() - 25) / 2;
        let records = fragment_records(&forged, &[(0, half), (half, forged.len() - 25 - half)], 2);
        assert!(matches!(
            gate.admit(
                &server,
                from,
                &records.concat(),
                now,
                &mut outbox,
                &mut scratch
            ),
            Admission::Verify
        ));
    }

    /// The client's second ClientHello: `hello`'s first one with `cookie`
    /// put in.
    fn with_cookie(hello: &ClientHello, cookie: &[u8]) -> Vec<u8> {
        let mut second = hello.first();
        let at = cookie_offset(&second);
        second[at] = cookie.len() as u8;
        second.splice(at + 1..at + 1, cookie.iter().copied());
        fix_lengths(&mut second, 1);
        second
    }

    /// Where the cookie's length byte sits in a ClientHello record.
    fn cookie_offset(record: &[u8]) -> usize {
        let session_id_at = 13 + 12 + 2 + 32;
        session_id_at + 1 + usize::from(record[session_id_at])
    }

    /// Sets a ClientHello record's lengths after an edit, and its message
    /// and record sequence numbers.
    fn fix_lengths(record: &mut [u8], sequence: u16) {
        let body = (record.len() - 25) as u32;
        let record_length = (record.len() - 13) as u16;
        record[11..13].copy_from_slice(&record_length.to_be_bytes());
        record[14..17].copy_from_slice(&body.to_be_bytes()[1..]);
        record[17..19].copy_from_slice(&sequence.to_be_bytes());
        record[22..25].copy_from_slice(&body.to_be_bytes()[1..]);
        record[10] = sequence as u8;
    }
}
