//! The few DTLS 1.2 bytes the host reads before a session exists: whether
//! a datagram from an unknown address is an unfragmented ClientHello, its
//! client random and cookie, and the first ClientHello it repeats (RFC 6347
//! §4.2.1: after a HelloVerifyRequest the client sends its ClientHello
//! again with the cookie and the next message sequence number); and which
//! handshake message a server's flight starts with. Everything else of the
//! protocol is the DTLS library's.
//!
//! No-panic contract: every read is checked; anything that does not fit is
//! `None`.

/// A DTLS record header: type, version, epoch, sequence number, length.
const RECORD_HEADER: usize = 13;
/// A handshake message header: type, length, message sequence, fragment
/// offset and length.
const HANDSHAKE_HEADER: usize = 12;
/// Record content type `handshake`.
const HANDSHAKE: u8 = 22;
/// Handshake message types.
const CLIENT_HELLO: u8 = 1;
const SERVER_HELLO: u8 = 2;
const HELLO_VERIFY_REQUEST: u8 = 3;
/// A ClientHello body's fixed start: client version, then client random.
const RANDOM_AT: usize = 2;
const RANDOM_LEN: usize = 32;

/// An unfragmented ClientHello of epoch 0, as it arrived.
pub struct ClientHello<'a> {
    datagram: &'a [u8],
    /// Where the session id's length byte sits in the datagram.
    session_id_at: usize,
    /// Where the cookie's length byte sits in the datagram.
    cookie_at: usize,
}

fn u24(bytes: &[u8]) -> usize {
    (usize::from(bytes[0]) << 16) | (usize::from(bytes[1]) << 8) | usize::from(bytes[2])
}

impl<'a> ClientHello<'a> {
    /// The ClientHello `datagram` holds, if it holds exactly one whole one
    /// (a record of epoch 0 carrying one unfragmented message).
    pub fn parse(datagram: &'a [u8]) -> Option<Self> {
        let header = datagram.get(..RECORD_HEADER)?;
        let epoch = u16::from_be_bytes([header[3], header[4]]);
        let record_length = usize::from(u16::from_be_bytes([header[11], header[12]]));
        if header[0] != HANDSHAKE || epoch != 0 || RECORD_HEADER + record_length != datagram.len() {
            return None;
        }
        let message = &datagram[RECORD_HEADER..];
        let handshake = message.get(..HANDSHAKE_HEADER)?;
        let length = u24(&handshake[1..4]);
        let fragment_offset = u24(&handshake[6..9]);
        let fragment_length = u24(&handshake[9..12]);
        if handshake[0] != CLIENT_HELLO
            || fragment_offset != 0
            || fragment_length != length
            || HANDSHAKE_HEADER + length != message.len()
        {
            return None;
        }
        let body_at = RECORD_HEADER + HANDSHAKE_HEADER;
        let session_id_at = body_at + RANDOM_AT + RANDOM_LEN;
        let session_id_length = usize::from(*datagram.get(session_id_at)?);
        let cookie_at = session_id_at + 1 + session_id_length;
        let cookie_length = usize::from(*datagram.get(cookie_at)?);
        datagram.get(cookie_at + 1..cookie_at + 1 + cookie_length)?;
        Some(ClientHello {
            datagram,
            session_id_at,
            cookie_at,
        })
    }

    /// The client random, which a repeated ClientHello keeps.
    pub fn random(&self) -> &'a [u8] {
        let at = RECORD_HEADER + HANDSHAKE_HEADER + RANDOM_AT;
        &self.datagram[at..at + RANDOM_LEN]
    }

    /// The cookie the client echoes (empty in a first ClientHello).
    pub fn cookie(&self) -> &'a [u8] {
        let length = usize::from(self.datagram[self.cookie_at]);
        &self.datagram[self.cookie_at + 1..self.cookie_at + 1 + length]
    }

    /// The HelloVerifyRequest that answers this ClientHello with `cookie`,
    /// as the DTLS library builds it: a DTLS 1.2 record of epoch 0 with the
    /// ClientHello's record sequence number (RFC 6347 §4.2.1), message
    /// sequence 0, server version DTLS 1.0 in the message (as §4.2.1 asks).
    pub fn verify_request(&self, cookie: &[u8; 32]) -> Vec<u8> {
        let body_length = 2 + 1 + cookie.len();
        let length = (body_length as u32).to_be_bytes();
        let mut record = Vec::with_capacity(RECORD_HEADER + HANDSHAKE_HEADER + body_length);
        record.extend_from_slice(&[HANDSHAKE, 0xFE, 0xFD, 0, 0]);
        record.extend_from_slice(&self.datagram[5..11]);
        record.extend_from_slice(&((HANDSHAKE_HEADER + body_length) as u16).to_be_bytes());
        record.push(HELLO_VERIFY_REQUEST);
        record.extend_from_slice(&length[1..]);
        record.extend_from_slice(&[0, 0, 0, 0, 0]);
        record.extend_from_slice(&length[1..]);
        record.extend_from_slice(&[0xFE, 0xFF, cookie.len() as u8]);
        record.extend_from_slice(cookie);
        record
    }

    /// The first ClientHello this one repeats: the same message without
    /// its cookie, with message and record sequence numbers 0.
    pub fn first(&self) -> Vec<u8> {
        let cookie_length = self.cookie().len();
        let after_cookie = self.cookie_at + 1 + cookie_length;
        let mut first = Vec::with_capacity(self.datagram.len() - cookie_length);
        first.extend_from_slice(&self.datagram[..self.cookie_at]);
        first.push(0);
        first.extend_from_slice(&self.datagram[after_cookie..]);
        let body_length = first.len() - RECORD_HEADER - HANDSHAKE_HEADER;
        let length = (body_length as u32).to_be_bytes();
        let handshake = RECORD_HEADER;
        // Record sequence number 0, record length.
        first[5..11].fill(0);
        let record_length = (first.len() - RECORD_HEADER) as u16;
        first[11..13].copy_from_slice(&record_length.to_be_bytes());
        // Message length, message sequence 0, fragment length.
        first[handshake + 1..handshake + 4].copy_from_slice(&length[1..]);
        first[handshake + 4..handshake + 6].fill(0);
        first[handshake + 9..handshake + 12].copy_from_slice(&length[1..]);
        debug_assert!(first[self.session_id_at] as usize <= 32);
        first
    }
}

/// What a server's first datagram of a flight starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerFlight {
    /// A HelloVerifyRequest: the cookie did not check out.
    HelloVerifyRequest,
    /// A ServerHello: the handshake goes on.
    ServerHello,
    /// Anything else.
    Other,
}

impl ServerFlight {
    pub fn of(datagram: &[u8]) -> Self {
        match (datagram.first(), datagram.get(RECORD_HEADER)) {
            (Some(&HANDSHAKE), Some(&HELLO_VERIFY_REQUEST)) => ServerFlight::HelloVerifyRequest,
            (Some(&HANDSHAKE), Some(&SERVER_HELLO)) => ServerFlight::ServerHello,
            _ => ServerFlight::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ClientHello record: session id and cookie as given, a fixed body
    /// after them.
    fn hello(message_seq: u16, session_id: &[u8], cookie: &[u8]) -> Vec<u8> {
        let mut body = vec![0xFE, 0xFD];
        body.extend((0..32).map(|i| i as u8));
        body.push(session_id.len() as u8);
        body.extend_from_slice(session_id);
        body.push(cookie.len() as u8);
        body.extend_from_slice(cookie);
        body.extend_from_slice(&[0, 2, 0xC0, 0x2B, 1, 0]);
        let length = (body.len() as u32).to_be_bytes();
        let mut handshake = vec![CLIENT_HELLO];
        handshake.extend_from_slice(&length[1..]);
        handshake.extend_from_slice(&message_seq.to_be_bytes());
        handshake.extend_from_slice(&[0, 0, 0]);
        handshake.extend_from_slice(&length[1..]);
        handshake.extend_from_slice(&body);
        let mut record = vec![
            HANDSHAKE,
            0xFE,
            0xFF,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            message_seq as u8,
        ];
        record.extend_from_slice(&(handshake.len() as u16).to_be_bytes());
        record.extend_from_slice(&handshake);
        record
    }

    #[test]
    fn reads_the_random_and_the_cookie() {
        let datagram = hello(1, &[9; 4], &[7; 32]);
        let parsed = ClientHello::parse(&datagram).unwrap();
        assert_eq!(
            parsed.random(),
            &(0..32).map(|i| i as u8).collect::<Vec<_>>()[..]
        );
        assert_eq!(parsed.cookie(), &[7; 32]);
    }

    #[test]
    fn the_first_hello_is_the_repeat_without_cookie_or_sequence() {
        for session_id in [&[][..], &[5; 32][..]] {
            let repeat = hello(1, session_id, &[7; 32]);
            let first = ClientHello::parse(&repeat).unwrap().first();
            assert_eq!(first, hello(0, session_id, &[]));
            assert!(ClientHello::parse(&first).unwrap().cookie().is_empty());
        }
    }

    #[test]
    fn anything_else_is_no_client_hello() {
        let good = hello(0, &[], &[]);
        assert!(ClientHello::parse(&good).is_some());
        for cut in 0..good.len() {
            assert!(ClientHello::parse(&good[..cut]).is_none(), "cut at {cut}");
        }
        let mut longer = good.clone();
        longer.push(0);
        assert!(ClientHello::parse(&longer).is_none());
        let mut application = good.clone();
        application[0] = 23;
        assert!(ClientHello::parse(&application).is_none());
        let mut epoch_one = good.clone();
        epoch_one[4] = 1;
        assert!(ClientHello::parse(&epoch_one).is_none());
        let mut fragment = good.clone();
        fragment[RECORD_HEADER + 8] = 1;
        assert!(ClientHello::parse(&fragment).is_none());
        let mut long_cookie = good;
        let cookie_at = RECORD_HEADER + HANDSHAKE_HEADER + 2 + 32 + 1;
        long_cookie[cookie_at] = 200;
        assert!(ClientHello::parse(&long_cookie).is_none());
        assert!(ClientHello::parse(b"plain ENet datagram").is_none());
    }

    #[test]
    fn tells_a_hello_verify_request_from_a_server_hello() {
        let mut flight = vec![HANDSHAKE; RECORD_HEADER + 1];
        flight[RECORD_HEADER] = HELLO_VERIFY_REQUEST;
        assert_eq!(ServerFlight::of(&flight), ServerFlight::HelloVerifyRequest);
        flight[RECORD_HEADER] = SERVER_HELLO;
        assert_eq!(ServerFlight::of(&flight), ServerFlight::ServerHello);
        assert_eq!(ServerFlight::of(&[]), ServerFlight::Other);
    }
}
