//! DTLS 1.2 ClientHellos as a browser-less DTLS client's first flight
//! looks: one record of epoch 0 holding one unfragmented ClientHello with
//! a random client random, offering the ECDSA suites an encrypted ENet
//! host takes (RFC 6347 §4.2.1, RFC 5246 §7.4.1.2, RFC 8422). Half of them
//! carry a forged 32-byte cookie, so both of the host's answers are
//! exercised: a first hello's HelloVerifyRequest and a bad cookie's.

use crate::Random;

const HANDSHAKE: u8 = 22;
const CLIENT_HELLO: u8 = 1;
pub const HELLO_VERIFY_REQUEST: u8 = 3;
const DTLS_1_2: [u8; 2] = [0xFE, 0xFD];

/// ECDHE-ECDSA with AES-128-GCM, AES-256-GCM and ChaCha20-Poly1305.
const CIPHER_SUITES: [u16; 3] = [0xC02B, 0xC02C, 0xCCA9];

/// The extensions: supported groups (P-256, P-384), point formats
/// (uncompressed), signature algorithms (ECDSA with SHA-256/384) and
/// extended master secret.
const EXTENSIONS: &[u8] = &[
    0x00, 0x0A, 0x00, 0x06, 0x00, 0x04, 0x00, 0x17, 0x00, 0x18, // supported_groups
    0x00, 0x0B, 0x00, 0x02, 0x01, 0x00, // ec_point_formats
    0x00, 0x0D, 0x00, 0x06, 0x00, 0x04, 0x04, 0x03, 0x05, 0x03, // signature_algorithms
    0x00, 0x17, 0x00, 0x00, // extended_master_secret
];

fn random_bytes(random: &mut Random, into: &mut Vec<u8>, count: usize) {
    for _ in 0..count.div_ceil(8) {
        into.extend_from_slice(&random.next().to_le_bytes());
    }
    into.truncate(into.len() - (count.div_ceil(8) * 8 - count));
}

/// A ClientHello with a random client random and record sequence number;
/// with `forged_cookie`, 32 random bytes as its cookie.
pub fn client_hello(random: &mut Random, forged_cookie: bool) -> Vec<u8> {
    let mut body = Vec::with_capacity(128);
    body.extend_from_slice(&DTLS_1_2);
    random_bytes(random, &mut body, 32);
    body.push(0); // no session id
    if forged_cookie {
        body.push(32);
        random_bytes(random, &mut body, 32);
    } else {
        body.push(0);
    }
    body.extend_from_slice(&((CIPHER_SUITES.len() * 2) as u16).to_be_bytes());
    for suite in CIPHER_SUITES {
        body.extend_from_slice(&suite.to_be_bytes());
    }
    body.extend_from_slice(&[1, 0]); // compression: null only
    body.extend_from_slice(&(EXTENSIONS.len() as u16).to_be_bytes());
    body.extend_from_slice(EXTENSIONS);

    let length = (body.len() as u32).to_be_bytes();
    let mut record = Vec::with_capacity(13 + 12 + body.len());
    record.push(HANDSHAKE);
    record.extend_from_slice(&DTLS_1_2);
    record.extend_from_slice(&[0, 0]); // epoch
    let sequence = random.next() & 0xFFFF;
    record.extend_from_slice(&sequence.to_be_bytes()[2..]);
    record.extend_from_slice(&((12 + body.len()) as u16).to_be_bytes());
    record.push(CLIENT_HELLO);
    record.extend_from_slice(&length[1..]);
    record.extend_from_slice(&[0, 0]); // message sequence
    record.extend_from_slice(&[0, 0, 0]); // fragment offset
    record.extend_from_slice(&length[1..]); // fragment length
    record.extend_from_slice(&body);
    record
}

/// Whether `datagram` is a HelloVerifyRequest record.
pub fn is_hello_verify_request(datagram: &[u8]) -> bool {
    datagram.len() > 13 && datagram[0] == HANDSHAKE && datagram[13] == HELLO_VERIFY_REQUEST
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u24(bytes: &[u8]) -> usize {
        (usize::from(bytes[0]) << 16) | (usize::from(bytes[1]) << 8) | usize::from(bytes[2])
    }

    #[test]
    fn hellos_are_whole_records_with_consistent_lengths() {
        let mut random = Random(7);
        let mut randoms = std::collections::HashSet::new();
        for i in 0..200 {
            let forged = i % 2 == 1;
            let hello = client_hello(&mut random, forged);
            assert_eq!(hello[0], HANDSHAKE);
            assert_eq!(&hello[1..3], &DTLS_1_2);
            assert_eq!(&hello[3..5], &[0, 0]);
            let record_length = usize::from(u16::from_be_bytes([hello[11], hello[12]]));
            assert_eq!(13 + record_length, hello.len());
            assert_eq!(hello[13], CLIENT_HELLO);
            let length = u24(&hello[14..17]);
            assert_eq!(u24(&hello[19..22]), 0);
            assert_eq!(u24(&hello[22..25]), length);
            assert_eq!(25 + length, hello.len());
            let body = &hello[25..];
            assert!(randoms.insert(body[2..34].to_vec()), "randoms differ");
            assert_eq!(body[34], 0);
            assert_eq!(usize::from(body[35]), if forged { 32 } else { 0 });
            let suites_at = 36 + usize::from(body[35]);
            assert_eq!(&body[suites_at..suites_at + 2], &[0, 6]);
            let extensions_at = suites_at + 2 + 6 + 2;
            let extensions_length = usize::from(u16::from_be_bytes([
                body[extensions_at],
                body[extensions_at + 1],
            ]));
            assert_eq!(extensions_at + 2 + extensions_length, body.len());
            assert!(!is_hello_verify_request(&hello));
        }
    }
}
