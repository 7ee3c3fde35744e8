//! The few DTLS 1.2 bytes the host reads before a session exists: whether
//! a datagram from an unknown address is an unfragmented ClientHello, its
//! client random and cookie, and the first ClientHello it repeats (RFC 6347
//! §4.2.1: after a HelloVerifyRequest the client sends its ClientHello
//! again with the cookie and the next message sequence number); the
//! ClientHello fragments a datagram carries instead, when a client splits
//! its hello into several handshake fragments (RFC 6347 §4.2.3), and the
//! whole ClientHello record made of them; and which handshake message a
//! server's flight starts with. Everything else of the protocol is the DTLS
//! library's.
//!
//! No-panic contract: every read is checked; anything that does not fit is
//! `None`.

/// A DTLS record header: type, version, epoch, sequence number, length.
pub const RECORD_HEADER: usize = 13;
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
        verify_request(self.record_sequence(), cookie)
    }

    /// The record sequence number of the record it came in.
    fn record_sequence(&self) -> &[u8; 6] {
        record_sequence(self.datagram)
    }

    /// The first ClientHello this one repeats: the same message without
    /// its cookie, with message and record sequence numbers 0.
    pub fn first(&self) -> Vec<u8> {
        debug_assert!(self.datagram[self.session_id_at] as usize <= 32);
        let after_cookie = self.cookie_at + 1 + self.cookie().len();
        let mut body = Vec::with_capacity(self.datagram.len() - after_cookie + self.cookie_at);
        body.extend_from_slice(&self.datagram[RECORD_HEADER + HANDSHAKE_HEADER..self.cookie_at]);
        body.push(0);
        body.extend_from_slice(&self.datagram[after_cookie..]);
        let mut header = *record_header(self.datagram);
        header[5..11].fill(0);
        whole_hello(&header, 0, &body)
    }
}

/// The record header at the start of a parsed record.
fn record_header(record: &[u8]) -> &[u8; RECORD_HEADER] {
    record[..RECORD_HEADER]
        .try_into()
        .unwrap_or_else(|_| unreachable!("a parsed record starts with its header"))
}

/// The sequence number in a record header of [`RECORD_HEADER`] bytes.
fn record_sequence(header: &[u8]) -> &[u8; 6] {
    header[5..11]
        .try_into()
        .unwrap_or_else(|_| unreachable!("a record header holds six sequence bytes"))
}

/// The HelloVerifyRequest carrying `cookie`, in a record with sequence
/// number `sequence` (the ClientHello's).
fn verify_request(sequence: &[u8; 6], cookie: &[u8; 32]) -> Vec<u8> {
    let body_length = 2 + 1 + cookie.len();
    let length = (body_length as u32).to_be_bytes();
    let mut record = Vec::with_capacity(RECORD_HEADER + HANDSHAKE_HEADER + body_length);
    record.extend_from_slice(&[HANDSHAKE, 0xFE, 0xFD, 0, 0]);
    record.extend_from_slice(sequence);
    record.extend_from_slice(&((HANDSHAKE_HEADER + body_length) as u16).to_be_bytes());
    record.push(HELLO_VERIFY_REQUEST);
    record.extend_from_slice(&length[1..]);
    record.extend_from_slice(&[0, 0, 0, 0, 0]);
    record.extend_from_slice(&length[1..]);
    record.extend_from_slice(&[0xFE, 0xFF, cookie.len() as u8]);
    record.extend_from_slice(cookie);
    record
}

/// One fragment of a ClientHello, as a handshake record of epoch 0
/// carries it: part of the message body, at `offset` in it.
#[derive(Debug, Clone, Copy)]
pub struct HelloFragment<'a> {
    /// The record header (type, version, epoch 0, sequence, length).
    pub record: &'a [u8; RECORD_HEADER],
    /// The handshake message sequence number: 0 in a first ClientHello,
    /// 1 in the one that echoes a cookie.
    pub message_seq: u16,
    /// The whole message body's length, as this fragment claims it.
    pub length: usize,
    /// Where in the body this fragment's bytes go.
    pub offset: usize,
    pub bytes: &'a [u8],
}

impl<'a> HelloFragment<'a> {
    /// The record sequence number.
    pub fn record_sequence(&self) -> &'a [u8; 6] {
        record_sequence(self.record)
    }

    /// The client random, if this fragment starts the body and holds it.
    pub fn random(&self) -> Option<&'a [u8]> {
        if self.offset != 0 {
            return None;
        }
        self.bytes.get(RANDOM_AT..RANDOM_AT + RANDOM_LEN)
    }

    /// The HelloVerifyRequest that answers the ClientHello this fragment
    /// is part of, with `cookie`: the same as for the whole message, which
    /// the record sequence number and the cookie make.
    pub fn verify_request(&self, cookie: &[u8; 32]) -> Vec<u8> {
        verify_request(self.record_sequence(), cookie)
    }
}

/// The ClientHello fragments `datagram` carries, one record each, in
/// order; the walk ends at the first record that is anything else (another
/// type or epoch, another message, a record cut short, one whose fragment
/// leaves the message it claims).
pub fn hello_fragments(datagram: &[u8]) -> impl Iterator<Item = HelloFragment<'_>> {
    let mut rest = datagram;
    std::iter::from_fn(move || {
        let (fragment, after) = first_fragment(rest)?;
        rest = after;
        Some(fragment)
    })
}

/// The ClientHello fragment in the first record of `records`, and the
/// records after it.
fn first_fragment(records: &[u8]) -> Option<(HelloFragment<'_>, &[u8])> {
    let record: &[u8; RECORD_HEADER] = records.get(..RECORD_HEADER)?.try_into().ok()?;
    let epoch = u16::from_be_bytes([record[3], record[4]]);
    let record_length = usize::from(u16::from_be_bytes([record[11], record[12]]));
    if record[0] != HANDSHAKE || epoch != 0 {
        return None;
    }
    let message = records.get(RECORD_HEADER..RECORD_HEADER + record_length)?;
    let handshake = message.get(..HANDSHAKE_HEADER)?;
    let length = u24(&handshake[1..4]);
    let offset = u24(&handshake[6..9]);
    let fragment_length = u24(&handshake[9..12]);
    if handshake[0] != CLIENT_HELLO
        || HANDSHAKE_HEADER + fragment_length != message.len()
        || offset + fragment_length > length
    {
        return None;
    }
    let fragment = HelloFragment {
        record,
        message_seq: u16::from_be_bytes([handshake[4], handshake[5]]),
        length,
        offset,
        bytes: &message[HANDSHAKE_HEADER..],
    };
    Some((fragment, &records[RECORD_HEADER + record_length..]))
}

/// The record of one unfragmented ClientHello: `record`'s header (its
/// version and sequence number), message sequence `message_seq`, and
/// `body`. What [`ClientHello::parse`] reads, when the body is one.
pub fn whole_hello(record: &[u8; RECORD_HEADER], message_seq: u16, body: &[u8]) -> Vec<u8> {
    let length = (body.len() as u32).to_be_bytes();
    let record_length = (HANDSHAKE_HEADER + body.len()) as u16;
    let mut whole = Vec::with_capacity(RECORD_HEADER + HANDSHAKE_HEADER + body.len());
    whole.extend_from_slice(&record[..11]);
    whole.extend_from_slice(&record_length.to_be_bytes());
    whole.push(CLIENT_HELLO);
    whole.extend_from_slice(&length[1..]);
    whole.extend_from_slice(&message_seq.to_be_bytes());
    whole.extend_from_slice(&[0, 0, 0]);
    whole.extend_from_slice(&length[1..]);
    whole.extend_from_slice(body);
    whole
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

/// `whole`'s ClientHello (one unfragmented record) cut into fragment
/// records, one per `(offset, length)` of the body, with record sequence
/// numbers from `first_sequence` on.
#[cfg(test)]
pub fn fragment_records(
    whole: &[u8],
    ranges: &[(usize, usize)],
    first_sequence: u8,
) -> Vec<Vec<u8>> {
    let body = &whole[RECORD_HEADER + HANDSHAKE_HEADER..];
    let handshake = &whole[RECORD_HEADER..RECORD_HEADER + HANDSHAKE_HEADER];
    ranges
        .iter()
        .zip(first_sequence..)
        .map(|(&(offset, length), sequence)| {
            let mut record = whole[..RECORD_HEADER].to_vec();
            record[10] = sequence;
            record[11..13].copy_from_slice(&((HANDSHAKE_HEADER + length) as u16).to_be_bytes());
            record.extend_from_slice(&handshake[..6]);
            record.extend_from_slice(&(offset as u32).to_be_bytes()[1..]);
            record.extend_from_slice(&(length as u32).to_be_bytes()[1..]);
            record.extend_from_slice(&body[offset..offset + length]);
            record
        })
        .collect()
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
    fn reads_the_fragments_of_a_datagram_and_makes_the_whole_hello_again() {
        let whole = hello(1, &[9; 4], &[7; 32]);
        let body_length = whole.len() - RECORD_HEADER - HANDSHAKE_HEADER;
        let records = fragment_records(&whole, &[(0, 50), (50, body_length - 50)], 3);
        let datagram = records.concat();
        let fragments: Vec<_> = hello_fragments(&datagram).collect();
        assert_eq!(fragments.len(), 2);
        assert_eq!((fragments[0].offset, fragments[0].bytes.len()), (0, 50));
        assert_eq!(fragments[1].offset, 50);
        assert!(fragments
            .iter()
            .all(|f| f.message_seq == 1 && f.length == body_length));
        assert_eq!(fragments[1].record_sequence(), &[0, 0, 0, 0, 0, 4]);
        assert_eq!(
            fragments[0].random(),
            Some(&(0..32).map(|i| i as u8).collect::<Vec<_>>()[..])
        );
        assert_eq!(fragments[1].random(), None);
        // The HelloVerifyRequest for a fragment is the one for the whole
        // hello in a record of that sequence number.
        let mut resequenced = whole.clone();
        resequenced[10] = 3;
        let cookie = [5; 32];
        assert_eq!(
            fragments[0].verify_request(&cookie),
            ClientHello::parse(&resequenced)
                .unwrap()
                .verify_request(&cookie)
        );
        let mut body = fragments[0].bytes.to_vec();
        body.extend_from_slice(fragments[1].bytes);
        assert_eq!(whole_hello(fragments[0].record, 1, &body), resequenced);
        // An unfragmented hello is one fragment of itself.
        assert_eq!(hello_fragments(&whole).count(), 1);
    }

    #[test]
    fn the_fragment_walk_stops_at_anything_else() {
        let whole = hello(1, &[], &[7; 32]);
        let body_length = whole.len() - RECORD_HEADER - HANDSHAKE_HEADER;
        let records = fragment_records(&whole, &[(0, 40), (40, body_length - 40)], 2);
        let datagram = records.concat();
        for cut in 0..datagram.len() {
            let expected = usize::from(cut >= records[0].len());
            assert_eq!(
                hello_fragments(&datagram[..cut]).count(),
                expected,
                "cut at {cut}"
            );
        }
        assert_eq!(hello_fragments(&datagram).count(), 2);
        // A fragment that claims to reach past the message's length.
        let mut past_the_end = records[1].clone();
        past_the_end[RECORD_HEADER + 3] -= 1;
        assert_eq!(hello_fragments(&past_the_end).count(), 0);
        // Another message type, epoch or record type.
        for (at, value) in [(RECORD_HEADER, SERVER_HELLO), (4, 1), (0, 23)] {
            let mut other = records[0].clone();
            other[at] = value;
            assert_eq!(hello_fragments(&other).count(), 0);
        }
        // Two handshake messages in one record are not one fragment.
        let mut two = records[0].clone();
        two.extend_from_slice(&records[1][RECORD_HEADER..]);
        let length = (two.len() - RECORD_HEADER) as u16;
        two[11..13].copy_from_slice(&length.to_be_bytes());
        assert_eq!(hello_fragments(&two).count(), 0);
        assert_eq!(hello_fragments(b"plain ENet datagram").count(), 0);
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
