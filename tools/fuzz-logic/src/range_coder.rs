//! `range_coder`: the decoder on arbitrary input within an output limit,
//! and encoder-then-decoder round trips over input split at fuzzed points.
//!
//! Input: a mode byte, a 16-bit output limit (modulo 4097: a receiver
//! decompresses into at most ENET_PROTOCOL_MAXIMUM_MTU bytes), a split
//! count and split points, then the data.

use std::cell::RefCell;

use enet::wire::range_coder::RangeCoder;

use crate::input::Input;

thread_local! {
    static CODER: RefCell<RangeCoder> = RefCell::new(RangeCoder::new());
}

const CANARY: u8 = 0xA5;
const SLACK: usize = 64;

pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let mode = input.u8();
    let limit = usize::from(input.u16() % 4097);
    let splits = usize::from(input.u8() % 8);
    let mut points: Vec<usize> = (0..splits).map(|_| usize::from(input.u16())).collect();
    let bytes = input.rest();
    CODER.with(|coder| {
        let mut coder = coder.borrow_mut();
        if mode & 1 == 0 {
            decode_arbitrary(&mut coder, bytes, limit);
        } else {
            for point in &mut points {
                *point %= bytes.len() + 1;
            }
            points.sort_unstable();
            round_trip(&mut coder, bytes, &points);
        }
    });
}

/// Decodes `bytes` into `limit` bytes of a larger buffer: the result fits
/// the limit, nothing past it is written, and a roomier buffer gives the
/// same bytes (a decode either fits whole or fails).
fn decode_arbitrary(coder: &mut RangeCoder, bytes: &[u8], limit: usize) {
    let mut out = vec![CANARY; limit + SLACK];
    let len = coder.decompress(bytes, &mut out[..limit]);
    assert!(len <= limit);
    assert!(
        out[limit..].iter().all(|&b| b == CANARY),
        "decoder wrote past its limit"
    );
    if bytes.is_empty() {
        assert_eq!(len, 0);
    }
    if len > 0 {
        let mut roomy = vec![0u8; 2 * limit + 1];
        let again = coder.decompress(bytes, &mut roomy);
        assert_eq!(again, len, "a roomier output changed the result");
        assert_eq!(&roomy[..len], &out[..len]);
    }
}

/// Compresses `bytes` given as parts split at `points`, then decompresses:
/// the input comes back exactly, whatever the split.
fn round_trip(coder: &mut RangeCoder, bytes: &[u8], points: &[usize]) {
    let mut parts = Vec::new();
    let mut start = 0;
    for &point in points {
        parts.push(&bytes[start..point]);
        start = point;
    }
    parts.push(&bytes[start..]);

    let mut compressed = vec![CANARY; 2 * bytes.len() + 64 + SLACK];
    let room = compressed.len() - SLACK;
    let len = coder.compress(&parts, &mut compressed[..room]);
    assert!(compressed[room..].iter().all(|&b| b == CANARY));
    if bytes.is_empty() {
        assert_eq!(len, 0);
        return;
    }
    assert!(len > 0, "roomy compression failed");
    let mut whole = vec![0u8; room];
    let whole_len = coder.compress(&[bytes], &mut whole);
    assert_eq!(
        &whole[..whole_len],
        &compressed[..len],
        "the split changed the compressed bytes"
    );

    let compressed = &compressed[..len];
    let mut out = vec![CANARY; bytes.len() + SLACK];
    let got = coder.decompress(compressed, &mut out[..bytes.len()]);
    assert_eq!(got, bytes.len(), "round trip length");
    assert_eq!(&out[..got], bytes, "round trip bytes");
    assert!(out[bytes.len()..].iter().all(|&b| b == CANARY));
    // One byte less room than the original cannot hold it.
    let mut short = vec![0u8; bytes.len() - 1];
    assert_eq!(coder.decompress(compressed, &mut short), 0);
    // Compression into too little room fails cleanly.
    if len > 1 {
        let mut tight = vec![CANARY; len - 1 + SLACK];
        let n = coder.compress(&parts, &mut tight[..len - 1]);
        assert_eq!(n, 0);
        assert!(tight[len - 1..].iter().all(|&b| b == CANARY));
    }
}
