//! The gate's bounded memory for ClientHellos that arrive in several
//! handshake fragments (OpenSSL 3 splits its hello when it guesses a small
//! MTU), so that the cookie exchange stays stateless but for a few bytes.
//!
//! The table holds at most [`ENTRIES`] messages, one per address, each at
//! most [`MAX_BODY`] bytes (one datagram's worth) in a buffer of that fixed
//! size; an entry lives [`LIFETIME`], and a new one takes the oldest's
//! place when the table is full. A spoofed fragment flood can only evict
//! entries: it never makes the gate hold more, nor hand on anything but a
//! whole ClientHello (whose cookie the gate then checks as for one that
//! came whole). A client whose fragments come in one datagram completes
//! its message within that datagram, before any other can evict it.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::dtls::hello::{whole_hello, HelloFragment, RECORD_HEADER};

/// How many messages the table holds at once.
pub const ENTRIES: usize = 16;
/// The longest ClientHello body it reassembles: what fits one 1400-byte
/// datagram (ENet's default MTU) as one record.
pub const MAX_BODY: usize = 1400 - RECORD_HEADER - 12;
/// How long an entry waits for its other fragments. A client sends them
/// back to back; its retransmission comes a second later and starts over.
pub const LIFETIME: Duration = Duration::from_millis(500);

/// Bits of the coverage map.
const WORD: usize = 64;

/// One ClientHello being put together.
struct Entry {
    from: SocketAddr,
    message_seq: u16,
    length: usize,
    started: Instant,
    /// The header of the fragment record with the highest sequence number
    /// so far: the whole record takes its sequence number, so that the
    /// library's replay window sees none it has not.
    record: [u8; RECORD_HEADER],
    body: Box<[u8; MAX_BODY]>,
    /// Which body bytes have arrived, one bit each.
    covered: Box<[u64; MAX_BODY.div_ceil(WORD)]>,
    /// How many of them.
    covered_count: usize,
}

impl Entry {
    fn new(from: SocketAddr, fragment: &HelloFragment, now: Instant) -> Self {
        Entry {
            from,
            message_seq: fragment.message_seq,
            length: fragment.length,
            started: now,
            record: *fragment.record,
            body: Box::new([0; MAX_BODY]),
            covered: Box::new([0; MAX_BODY.div_ceil(WORD)]),
            covered_count: 0,
        }
    }

    /// Starts over with `fragment`'s message, keeping the buffers.
    fn restart(&mut self, from: SocketAddr, fragment: &HelloFragment, now: Instant) {
        self.from = from;
        self.message_seq = fragment.message_seq;
        self.length = fragment.length;
        self.started = now;
        self.record = *fragment.record;
        self.covered.fill(0);
        self.covered_count = 0;
    }

    fn is_for(&self, fragment: &HelloFragment) -> bool {
        self.message_seq == fragment.message_seq && self.length == fragment.length
    }

    /// Takes in `fragment`'s bytes (a byte already held stays: a later
    /// overlap cannot rewrite what was checked to fit).
    fn add(&mut self, fragment: &HelloFragment) {
        for (i, &byte) in fragment.bytes.iter().enumerate() {
            let at = fragment.offset + i;
            let (word, bit) = (at / WORD, 1u64 << (at % WORD));
            if self.covered[word] & bit == 0 {
                self.covered[word] |= bit;
                self.covered_count += 1;
                self.body[at] = byte;
            }
        }
        if fragment.record_sequence()[..] > self.record[5..11] {
            self.record = *fragment.record;
        }
    }

    fn is_whole(&self) -> bool {
        self.covered_count == self.length
    }
}

/// ClientHello fragments from a few addresses.
#[derive(Default)]
pub struct Fragments {
    entries: Vec<Entry>,
}

impl Fragments {
    /// Takes in `fragment` from `from`; the whole ClientHello record once
    /// its last fragment is in (the entry is then gone). A fragment of a
    /// message too long to hold is dropped; one that disagrees with the
    /// address's entry (another message sequence number or length) starts
    /// the entry over.
    pub fn add(
        &mut self,
        from: SocketAddr,
        fragment: &HelloFragment,
        now: Instant,
    ) -> Option<Vec<u8>> {
        if fragment.length > MAX_BODY || fragment.offset + fragment.bytes.len() > fragment.length {
            return None;
        }
        self.entries
            .retain(|entry| now.saturating_duration_since(entry.started) < LIFETIME);
        let at = match self.entries.iter().position(|entry| entry.from == from) {
            Some(at) => {
                if !self.entries[at].is_for(fragment) {
                    self.entries[at].restart(from, fragment, now);
                }
                at
            }
            None if self.entries.len() < ENTRIES => {
                self.entries.push(Entry::new(from, fragment, now));
                self.entries.len() - 1
            }
            None => {
                let oldest = (0..self.entries.len())
                    .min_by_key(|&at| self.entries[at].started)
                    .unwrap_or(0);
                self.entries[oldest].restart(from, fragment, now);
                oldest
            }
        };
        let entry = &mut self.entries[at];
        entry.add(fragment);
        if !entry.is_whole() {
            return None;
        }
        let whole = whole_hello(
            &entry.record,
            entry.message_seq,
            &entry.body[..entry.length],
        );
        self.entries.swap_remove(at);
        Some(whole)
    }

    /// How many messages are being put together.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtls::hello::{fragment_records, hello_fragments};

    /// A whole ClientHello record of message sequence 1 with a body of
    /// `body_length` bytes (only the lengths matter here).
    fn whole(body_length: usize) -> Vec<u8> {
        let body: Vec<u8> = (0..body_length).map(|i| (i * 7) as u8).collect();
        let mut record = [0u8; RECORD_HEADER];
        record[..3].copy_from_slice(&[22, 0xFE, 0xFD]);
        whole_hello(&record, 1, &body)
    }

    /// Feeds the fragments of `records` from `from`; what came out whole.
    fn feed(
        table: &mut Fragments,
        from: SocketAddr,
        records: &[Vec<u8>],
        now: Instant,
    ) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for record in records {
            for fragment in hello_fragments(record) {
                out.extend(table.add(from, &fragment, now));
            }
        }
        out
    }

    /// `record` with its record sequence number set to `sequence`.
    fn sequenced(record: &[u8], sequence: u8) -> Vec<u8> {
        let mut record = record.to_vec();
        record[10] = sequence;
        record
    }

    fn address(n: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], n))
    }

    #[test]
    fn puts_a_hello_together_in_any_order_and_overlap() {
        let now = Instant::now();
        let hello = whole(278);
        for (ranges, last_sequence) in [
            (vec![(0, 231), (231, 47)], 5),
            (vec![(231, 47), (0, 231)], 5),
            (vec![(100, 178), (50, 100), (0, 120)], 6),
            (vec![(0, 278)], 4),
            (vec![(0, 10), (10, 0), (10, 268)], 6),
        ] {
            let mut table = Fragments::default();
            let records = fragment_records(&hello, &ranges, 4);
            let out = feed(&mut table, address(1), &records, now);
            assert_eq!(out, vec![sequenced(&hello, last_sequence)], "{ranges:?}");
            assert_eq!(table.len(), 0);
        }
    }

    #[test]
    fn a_byte_held_is_not_rewritten_by_an_overlap() {
        let now = Instant::now();
        let hello = whole(100);
        let mut table = Fragments::default();
        let mut records = fragment_records(&hello, &[(0, 60), (40, 60)], 0);
        // The overlap (body bytes 40..60) differs in the second fragment.
        let overlap_at = RECORD_HEADER + 12;
        records[1][overlap_at] ^= 0xFF;
        let out = feed(&mut table, address(1), &records, now);
        assert_eq!(out, vec![sequenced(&hello, 1)]);
    }

    #[test]
    fn a_lying_length_puts_nothing_together() {
        let now = Instant::now();
        let hello = whole(278);
        let mut table = Fragments::default();
        let records = fragment_records(&hello, &[(0, 231), (231, 47)], 0);
        // The second fragment claims a longer message: it starts over, and
        // neither message is ever whole from these bytes.
        let mut longer = records[1].clone();
        longer[RECORD_HEADER + 3] += 10;
        assert!(feed(&mut table, address(1), &[records[0].clone(), longer], now).is_empty());
        assert_eq!(table.len(), 1);
        // Only the first fragment of the real message again: still short.
        assert!(feed(&mut table, address(1), &records[..1], now).is_empty());
        // A message longer than one datagram's worth is never held.
        let long = whole(MAX_BODY + 1);
        let long_records = fragment_records(&long, &[(0, 1000)], 0);
        let mut fresh = Fragments::default();
        assert!(feed(&mut fresh, address(2), &long_records, now).is_empty());
        assert_eq!(fresh.len(), 0);
        // Another message sequence number starts over too.
        let mut other_message = records[1].clone();
        other_message[RECORD_HEADER + 5] = 2;
        let mut table = Fragments::default();
        assert!(feed(
            &mut table,
            address(1),
            &[records[0].clone(), other_message],
            now
        )
        .is_empty());
    }

    #[test]
    fn fragments_from_two_addresses_stay_apart() {
        let now = Instant::now();
        let (a, b) = (whole(278), whole(300));
        let a_records = fragment_records(&a, &[(0, 231), (231, 47)], 0);
        let b_records = fragment_records(&b, &[(0, 231), (231, 69)], 0);
        let mut table = Fragments::default();
        assert!(feed(&mut table, address(1), &a_records[..1], now).is_empty());
        assert!(feed(&mut table, address(2), &b_records[..1], now).is_empty());
        // A's second fragment from B's address completes nothing of A's.
        assert!(feed(&mut table, address(2), &a_records[1..], now).is_empty());
        assert_eq!(
            feed(&mut table, address(1), &a_records[1..], now),
            vec![sequenced(&a, 1)]
        );
        // B's entry was started over by A's fragment (another length).
        assert!(feed(&mut table, address(2), &b_records[1..], now).is_empty());
        assert_eq!(
            feed(&mut table, address(2), &b_records, now),
            vec![sequenced(&b, 1)]
        );
    }

    #[test]
    fn the_table_holds_a_bounded_number_of_entries_for_a_short_time() {
        let now = Instant::now();
        let hello = whole(278);
        let records = fragment_records(&hello, &[(0, 231), (231, 47)], 0);
        let mut table = Fragments::default();
        let at = |n: u16| now + Duration::from_millis(u64::from(n));
        let sources = ENTRIES as u16 * 4;
        for n in 0..sources {
            assert!(feed(&mut table, address(n), &records[..1], at(n)).is_empty());
            assert!(table.len() <= ENTRIES);
        }
        assert_eq!(table.len(), ENTRIES);
        // The oldest were evicted, the newest are still held.
        assert!(feed(&mut table, address(0), &records[1..], at(sources)).is_empty());
        assert_eq!(
            feed(&mut table, address(sources - 1), &records[1..], at(sources)),
            vec![sequenced(&hello, 1)]
        );
        // Past their lifetime, entries are gone.
        let later = at(sources) + LIFETIME;
        assert!(feed(&mut table, address(sources - 2), &records[1..], later).is_empty());
        assert_eq!(table.len(), 1);
    }
}
