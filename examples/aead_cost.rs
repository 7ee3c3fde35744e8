//! What `ring`'s AES-128-GCM costs an encrypted host per datagram, alone:
//! sealing and opening one full datagram's record in place, as
//! `src/dtls/record.rs` does, with nothing of the engine around it.
//! `bench/dtls.sh` prints it beside the plain and encrypted figures, as the
//! floor of what encryption can cost.
//!
//! ```text
//! cargo run --release --example aead_cost [RECORDS]
//! ```
//!
//! Prints `seal NS open NS bytes N records M`: nanoseconds per record (the
//! median of five rounds of RECORDS records each, default 100000), the
//! record's plaintext length (a default-MTU datagram less the record's
//! header, explicit nonce and tag), and how many such records a 1 MiB
//! message takes as fragments. Not a test: it prints figures.

use std::hint::black_box;
use std::time::Instant;

use enet::abi::enet::ENET_HOST_DEFAULT_MTU;
use enet::dtls::{application_data_aad, RECORD_OVERHEAD};
use enet::wire::header::SENT_TIME_HEADER_LEN;
use enet::wire::size::SEND_FRAGMENT;
use ring::aead::{Aad, LessSafeKey, Nonce, Tag, UnboundKey, AES_128_GCM};

const ROUNDS: usize = 5;

/// The message whose records are counted.
const MESSAGE: usize = 1 << 20;

fn main() {
    let records = match std::env::args().nth(1) {
        None => 100_000,
        Some(text) => match text.parse::<u32>() {
            Ok(count) if count > 0 => count,
            _ => {
                eprintln!("aead_cost: RECORDS must be a positive count, not {text:?}");
                std::process::exit(2);
            }
        },
    };
    let plaintext = (ENET_HOST_DEFAULT_MTU - RECORD_OVERHEAD) as usize;
    let key = match UnboundKey::new(&AES_128_GCM, &[0x5a; 16]) {
        Ok(key) => LessSafeKey::new(key),
        Err(_) => {
            eprintln!("aead_cost: ring refused a 16-byte AES-128-GCM key");
            std::process::exit(1);
        }
    };
    let mut record = vec![0u8; plaintext];
    let mut seal = Vec::with_capacity(ROUNDS);
    let mut open = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        seal.push(per_record(records, |sequence| {
            let sealed = key.seal_in_place_separate_tag(
                nonce(sequence),
                Aad::from(application_data_aad(sequence, plaintext)),
                &mut record,
            );
            black_box(sealed.is_ok());
        }));
        // Opening checks the tag after decrypting, so a wrong tag costs
        // what a right one does: the records need not be the sealed ones.
        open.push(per_record(records, |sequence| {
            let opened = key.open_in_place_separate_tag(
                nonce(sequence),
                Aad::from(application_data_aad(sequence, plaintext)),
                Tag::from([0; 16]),
                &mut record,
                0..,
            );
            black_box(opened.is_ok());
        }));
    }
    // Each fragment's datagram holds the protocol header with its sent
    // time and the fragment command before its share of the message.
    let records = MESSAGE.div_ceil(plaintext - SENT_TIME_HEADER_LEN - SEND_FRAGMENT);
    println!(
        "seal {:.1} open {:.1} bytes {plaintext} records {records}",
        median(&mut seal),
        median(&mut open)
    );
}

/// Nanoseconds per call of `step` over `records` calls.
fn per_record(records: u32, mut step: impl FnMut(u64)) -> f64 {
    let started = Instant::now();
    for sequence in 0..u64::from(records) {
        step(sequence);
    }
    started.elapsed().as_nanos() as f64 / f64::from(records)
}

/// The GCM nonce of record `sequence`: a fixed IV's 4 bytes, then the
/// explicit 8 (the record's epoch and sequence number).
fn nonce(sequence: u64) -> Nonce {
    let mut bytes = [0x11; 12];
    bytes[4..].copy_from_slice(&sequence.to_be_bytes());
    Nonce::assume_unique_for_key(bytes)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
