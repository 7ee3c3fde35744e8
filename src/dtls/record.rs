//! Application-data records sealed and opened here rather than by the
//! DTLS library, once a session is established: one ENet datagram is one
//! record, so the library's general record layer (a copy of each record
//! into a pooled buffer, a parse, a queue, a copy out) is pure overhead
//! for it. The record format, the nonces' fixed parts, the additional
//! data and the replay window are the library's, reproduced exactly
//! (`dimpl` 0.7, `dtls12/engine.rs` and `dtls12/incoming.rs`):
//!
//! - header: content type 23, version `fe fd`, epoch 1, the 48-bit
//!   sequence number, the fragment's length;
//! - AES-GCM: the nonce is the 4-byte fixed IV and the 8 explicit bytes
//!   the record carries after its header; ChaCha20-Poly1305: the 12-byte
//!   IV XOR the 64-bit epoch and sequence number, nothing carried;
//! - additional data: epoch and sequence number, content type, `fe fd`,
//!   the plaintext's length;
//! - a record is refused if its sequence number is older than the 64
//!   before the newest accepted or was accepted already, and the window
//!   moves only for records that authenticate.
//!
//! The library picks the explicit nonce at random; this path writes the
//! epoch and sequence number there (RFC 5288's suggestion), which is
//! unique per key by construction. Either is a valid record to any peer.
//!
//! The keys come from the library through its cipher hooks (`aead.rs`):
//! each cipher it makes while a session is [`capture`]d is handed to that
//! session, and each cipher learns its fixed IV from the first nonce the
//! library gives it. Every record the library itself opens with a read
//! key moves this module's window for that key, so the library and this
//! path share one window: the library's own accepts a superset, and the
//! session drops what this window refuses before the library sees it
//! ([`CipherKey::strip_refused`]).

use std::cell::RefCell;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use ring::aead::{self, LessSafeKey};

/// A DTLS record header's length.
pub const HEADER: usize = 13;
/// The tag every suite appends.
const TAG: usize = 16;
/// The longest a record puts before its plaintext: the header and
/// AES-GCM's 8-byte explicit nonce.
const LONGEST_PREFIX: usize = HEADER + 8;
// The engine's datagram buffers keep this much room before each datagram,
// so every record can be sealed where the engine built it.
const _: () = assert!(crate::wire::builder::TRANSPORT_ROOM >= LONGEST_PREFIX);
const APPLICATION_DATA: u8 = 23;
const DTLS_1_2: [u8; 2] = [0xfe, 0xfd];
/// The epoch of every DTLS 1.2 session's keys (the library never
/// renegotiates).
const EPOCH: u16 = 1;
/// The replay window's width.
const WINDOW: u64 = 64;
/// Sequence numbers are 48 bits.
const SEQUENCE_MASK: u64 = (1 << 48) - 1;

thread_local! {
    /// The ciphers the library made on this thread since [`capture`] began.
    static CAPTURED: RefCell<Option<Vec<Arc<CipherKey>>>> = const { RefCell::new(None) };
}

/// Runs `call` (a call into a session's library state), and returns the
/// ciphers the library made during it, in the order it made them.
pub fn capture<T>(call: impl FnOnce() -> T) -> (T, Vec<Arc<CipherKey>>) {
    let outer = CAPTURED.with(|captured| captured.borrow_mut().replace(Vec::new()));
    let result = call();
    let made = CAPTURED.with(|captured| std::mem::replace(&mut *captured.borrow_mut(), outer));
    (result, made.unwrap_or_default())
}

/// Called by the library's cipher factory: hands `key` to the session
/// being captured, if any.
pub fn made(key: &Arc<CipherKey>) {
    CAPTURED.with(|captured| {
        if let Some(made) = captured.borrow_mut().as_mut() {
            made.push(key.clone());
        }
    });
}

/// The replay window (the library's `ReplayWindow`): the newest sequence
/// number accepted and a bit for each of the 64 before it. Atomics only
/// because the library's ciphers must be `Sync`; one thread uses them.
#[derive(Debug, Default)]
struct Window {
    newest: AtomicU64,
    seen: AtomicU64,
}

impl Window {
    fn accepts(&self, sequence: u64) -> bool {
        let newest = self.newest.load(Ordering::Relaxed);
        if sequence > newest {
            return true;
        }
        let age = newest - sequence;
        age < WINDOW && self.seen.load(Ordering::Relaxed) & (1 << age) == 0
    }

    fn accept(&self, sequence: u64) {
        let newest = self.newest.load(Ordering::Relaxed);
        let seen = self.seen.load(Ordering::Relaxed);
        if sequence > newest {
            let ahead = sequence - newest;
            let seen = if ahead >= WINDOW {
                1
            } else {
                seen << ahead | 1
            };
            self.seen.store(seen, Ordering::Relaxed);
            self.newest.store(sequence, Ordering::Relaxed);
        } else if newest - sequence < WINDOW {
            self.seen
                .store(seen | 1 << (newest - sequence), Ordering::Relaxed);
        }
    }
}

/// One direction's record key, shared by the library's cipher and the
/// session.
#[derive(Debug)]
pub struct CipherKey {
    key: LessSafeKey,
    /// Nonce bytes a record carries (GCM: 8; ChaCha20: none).
    explicit_nonce: usize,
    /// The fixed IV (GCM: its 4 bytes then zeros; ChaCha20: 12 bytes),
    /// learnt from the first nonce the library uses.
    iv: OnceLock<[u8; 12]>,
    /// The replay window of records opened with this key.
    window: Window,
    /// Whether an application-data record opened with this key: the
    /// library then knows its peer finished the handshake, and never
    /// sends a handshake flight again.
    application_data: AtomicBool,
    /// One past the newest epoch-1 sequence number the library sealed
    /// with this key.
    next_sequence: AtomicU64,
    /// Whether the library used this key outside epoch 1.
    unusual: AtomicBool,
}

/// The epoch and sequence number, the content type and the plaintext's
/// length, as the additional data has them.
fn additional_data(sequence: u64, content_type: u8, length: usize) -> [u8; 13] {
    let mut aad = [0; 13];
    aad[..8].copy_from_slice(&(u64::from(EPOCH) << 48 | sequence).to_be_bytes());
    aad[8] = content_type;
    aad[9..11].copy_from_slice(&DTLS_1_2);
    aad[11..].copy_from_slice(&(length as u16).to_be_bytes());
    aad
}

/// The additional data of the application-data record with `sequence`
/// carrying `length` bytes of plaintext, as this layer seals and opens it
/// (for measuring the AEAD alone: `examples/aead_cost.rs`).
pub fn application_data_aad(sequence: u64, length: usize) -> [u8; 13] {
    additional_data(sequence, APPLICATION_DATA, length)
}

/// A record's epoch and sequence number, if `record` has a header.
fn epoch_and_sequence(record: &[u8]) -> Option<(u16, u64)> {
    let header = record.get(..HEADER)?;
    let epoch = u16::from_be_bytes([header[3], header[4]]);
    let mut sequence = [0; 8];
    sequence[2..].copy_from_slice(&header[5..11]);
    Some((epoch, u64::from_be_bytes(sequence)))
}

/// The length the header at the start of `bytes` gives its fragment.
fn fragment_length(bytes: &[u8]) -> Option<usize> {
    let header = bytes.get(..HEADER)?;
    Some(usize::from(u16::from_be_bytes([header[11], header[12]])))
}

impl CipherKey {
    pub fn new(key: LessSafeKey, explicit_nonce: usize) -> Self {
        CipherKey {
            key,
            explicit_nonce,
            iv: OnceLock::new(),
            window: Window::default(),
            application_data: AtomicBool::new(false),
            next_sequence: AtomicU64::new(0),
            unusual: AtomicBool::new(false),
        }
    }

    pub fn key(&self) -> &LessSafeKey {
        &self.key
    }

    /// What the library's nonce and additional data say of the record it
    /// is sealing or opening: the fixed IV (the first time), and the
    /// epoch and sequence number.
    fn learn(&self, nonce: &[u8; 12], aad: &[u8]) -> Option<u64> {
        let seq64 = u64::from_be_bytes(aad.get(..8)?.try_into().ok()?);
        if self.iv.get().is_none() {
            let mut iv = *nonce;
            if self.explicit_nonce == 0 {
                for (byte, mask) in iv[4..].iter_mut().zip(seq64.to_be_bytes()) {
                    *byte ^= mask;
                }
            } else {
                iv[4..].fill(0);
            }
            let _ = self.iv.set(iv);
        }
        if seq64 >> 48 != u64::from(EPOCH) {
            self.unusual.store(true, Ordering::Relaxed);
        }
        Some(seq64 & SEQUENCE_MASK)
    }

    /// The library sealed a record with this key.
    pub fn sealed_by_library(&self, nonce: &[u8; 12], aad: &[u8]) {
        if let Some(sequence) = self.learn(nonce, aad) {
            self.next_sequence
                .fetch_max(sequence + 1, Ordering::Relaxed);
        }
    }

    /// The library opened (authenticated) a record with this key: it moves
    /// its replay window for it, and so does this one.
    pub fn opened_by_library(&self, nonce: &[u8; 12], aad: &[u8]) {
        if let Some(sequence) = self.learn(nonce, aad) {
            self.window.accept(sequence);
            if aad.get(8) == Some(&APPLICATION_DATA) {
                self.application_data.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Whether this path can seal and open with the key.
    pub fn is_known(&self) -> bool {
        self.iv.get().is_some() && !self.unusual.load(Ordering::Relaxed)
    }

    /// Whether the peer's handshake is confirmed (see `application_data`).
    pub fn opened_application_data(&self) -> bool {
        self.application_data.load(Ordering::Relaxed)
    }

    /// The sequence number after the newest the library sealed.
    pub fn next_sequence(&self) -> u64 {
        self.next_sequence.load(Ordering::Relaxed)
    }

    fn nonce(&self, iv: &[u8; 12], sequence: u64, explicit: &[u8]) -> aead::Nonce {
        let mut nonce = *iv;
        if self.explicit_nonce == 0 {
            let seq64 = u64::from(EPOCH) << 48 | sequence;
            for (byte, mask) in nonce[4..].iter_mut().zip(seq64.to_be_bytes()) {
                *byte ^= mask;
            }
        } else {
            nonce[4..].copy_from_slice(explicit);
        }
        aead::Nonce::assume_unique_for_key(nonce)
    }

    /// The bytes a record puts before its plaintext: the header, then the
    /// explicit nonce (AES-GCM's 8, ChaCha20-Poly1305's none).
    fn prefix_len(&self) -> usize {
        HEADER + self.explicit_nonce
    }

    /// Writes into `out` (emptied first) the epoch-1 record of
    /// `content_type` carrying `plaintext` under `sequence`; false if the
    /// key is not known or sealing failed (`out` then holds no record).
    pub fn seal(
        &self,
        sequence: u64,
        content_type: u8,
        plaintext: &[u8],
        out: &mut Vec<u8>,
    ) -> bool {
        let prefix = self.prefix_len();
        out.clear();
        out.reserve(prefix + plaintext.len() + TAG);
        out.resize(prefix, 0);
        out.extend_from_slice(plaintext);
        self.seal_in_place(
            sequence,
            content_type,
            out,
            prefix..prefix + plaintext.len(),
        )
        .is_some()
    }

    /// Seals the plaintext at `plaintext` of `buffer` where it lies as the
    /// epoch-1 record of `content_type` under `sequence`: the header and
    /// explicit nonce go into the [`prefix_len`](Self::prefix_len) bytes
    /// before it, the plaintext is encrypted in place, and the tag is put
    /// right after it (`buffer` is cut there first). The record's range in
    /// `buffer`; `None`, with `buffer` untouched, if the key is not known,
    /// the room before the plaintext is too short or sealing failed.
    pub fn seal_in_place(
        &self,
        sequence: u64,
        content_type: u8,
        buffer: &mut Vec<u8>,
        plaintext: Range<usize>,
    ) -> Option<Range<usize>> {
        let iv = self.iv.get()?;
        if sequence > SEQUENCE_MASK || buffer.get(plaintext.clone()).is_none() {
            return None;
        }
        let explicit_nonce = self.explicit_nonce;
        let start = plaintext.start.checked_sub(HEADER + explicit_nonce)?;
        let fragment_length = u16::try_from(explicit_nonce + plaintext.len() + TAG).ok()?;
        let seq64 = u64::from(EPOCH) << 48 | sequence;
        let explicit = seq64.to_be_bytes();
        let nonce = self.nonce(iv, sequence, &explicit[..explicit_nonce]);
        let aad = additional_data(sequence, content_type, plaintext.len());
        let tag = self
            .key
            .seal_in_place_separate_tag(nonce, aead::Aad::from(aad), &mut buffer[plaintext.clone()])
            .ok()?;
        let header = &mut buffer[start..plaintext.start];
        header[0] = content_type;
        header[1..3].copy_from_slice(&DTLS_1_2);
        header[3..11].copy_from_slice(&explicit);
        header[11..13].copy_from_slice(&fragment_length.to_be_bytes());
        header[HEADER..].copy_from_slice(&explicit[..explicit_nonce]);
        buffer.truncate(plaintext.end);
        buffer.extend_from_slice(tag.as_ref());
        Some(start..plaintext.end + TAG)
    }

    /// Authenticates and decrypts, in place, the epoch-1 record that is
    /// the whole of `record`; the plaintext's range in it. Neither the
    /// window nor anything else changes.
    fn decrypt(&self, record: &mut [u8]) -> Option<(u64, Range<usize>)> {
        let iv = self.iv.get()?;
        let (epoch, sequence) = epoch_and_sequence(record)?;
        let length = fragment_length(record)?;
        if epoch != EPOCH || HEADER + length != record.len() {
            return None;
        }
        let plaintext_length = length.checked_sub(self.explicit_nonce + TAG)?;
        let start = HEADER + self.explicit_nonce;
        let nonce = self.nonce(iv, sequence, &record[HEADER..start]);
        let aad = additional_data(sequence, record[0], plaintext_length);
        self.key
            .open_in_place(nonce, aead::Aad::from(aad), &mut record[start..])
            .ok()?;
        Some((sequence, start..start + plaintext_length))
    }

    /// Opens `record`, a whole datagram the peer sent, if it is one
    /// application-data record of epoch 1 in the `fe fd` version: `None`
    /// if it is anything else (the library's to handle), else the
    /// plaintext's range in `record` or `Some(None)` if the record was
    /// refused (a replay, too old, too short, or not authentic; the
    /// library discards such records silently once established).
    pub fn open(&self, record: &mut [u8]) -> Option<Option<Range<usize>>> {
        let length = fragment_length(record)?;
        let (epoch, sequence) = epoch_and_sequence(record)?;
        if record[0] != APPLICATION_DATA
            || record[1..3] != DTLS_1_2
            || epoch != EPOCH
            || HEADER + length != record.len()
        {
            return None;
        }
        if !self.window.accepts(sequence) {
            return Some(None);
        }
        let (sequence, plaintext) = match self.decrypt(record) {
            Some(opened) => opened,
            None => return Some(None),
        };
        self.window.accept(sequence);
        self.application_data.store(true, Ordering::Relaxed);
        Some(Some(plaintext))
    }

    /// The datagram `datagram` less the records of a non-zero epoch this
    /// key's window refuses (the library would discard them the same way,
    /// record by record, were its window this one), into `out`; false if
    /// none was refused (`out` is then untouched and `datagram` goes to
    /// the library as it is). Bytes that are no whole record stay as they
    /// are, for the library to judge.
    pub fn strip_refused(&self, datagram: &[u8], out: &mut Vec<u8>) -> bool {
        let mut rest = datagram;
        let mut kept = 0;
        let mut stripped = false;
        out.clear();
        while let Some(length) = fragment_length(rest) {
            let Some(record) = rest.get(..HEADER + length) else {
                break;
            };
            let refused = match epoch_and_sequence(record) {
                Some((epoch, sequence)) => epoch != 0 && !self.window.accepts(sequence),
                None => false,
            };
            let offset = datagram.len() - rest.len();
            if refused {
                out.extend_from_slice(&datagram[kept..offset]);
                kept = offset + record.len();
                stripped = true;
            }
            rest = &rest[record.len()..];
        }
        if stripped {
            out.extend_from_slice(&datagram[kept..]);
        }
        stripped
    }

    /// The epoch-1 record that is the whole of `record`, which the library
    /// sealed with this key, sealed again under `sequence` into `out`;
    /// false if it is no such record.
    pub fn reseal(&self, record: &[u8], sequence: u64, out: &mut Vec<u8>) -> bool {
        let mut opened = record.to_vec();
        let Some((_, plaintext)) = self.decrypt(&mut opened) else {
            return false;
        };
        self.seal(sequence, record[0], &opened[plaintext], out)
    }
}

/// Splits `datagram` into its whole records (a trailing part that is no
/// whole record is left out).
pub fn records(datagram: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = datagram;
    std::iter::from_fn(move || {
        let length = fragment_length(rest)?;
        let record = rest.get(..HEADER + length)?;
        rest = &rest[record.len()..];
        Some(record)
    })
}

/// A record's epoch, if it has a header.
pub fn epoch(record: &[u8]) -> Option<u16> {
    epoch_and_sequence(record).map(|(epoch, _)| epoch)
}
