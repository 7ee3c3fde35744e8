//! The scenarios' messages, byte for byte as `peer.c` writes and checks
//! them: a 12-byte header (kind, sender tag, channel, the magic byte 0x5A,
//! then the sequence number and the whole length, both big-endian) and a
//! body the receiver can regenerate from the header: of every 64 bytes the
//! first 40 are letters (compressible), the rest xorshift noise, seeded by
//! an FNV-1a hash of kind, sender and sequence number.

/// Header length in bytes.
pub const HDR_LEN: usize = 12;
const MAGIC: u8 = 0x5A;

/// The server's sender tag.
pub const SERVER_TAG: u8 = b'S';
/// The client's sender tag (broadcast client hosts use `'a' + index`).
pub const CLIENT_TAG: u8 = b'C';

/// Message kinds (the header's first byte).
pub mod kind {
    /// Small reliable, channel 0.
    pub const REL: u8 = 1;
    /// Small unreliable, channel 1.
    pub const UNREL: u8 = 2;
    /// Small unsequenced, channel 2.
    pub const UNSEQ: u8 = 3;
    /// 1 MiB reliable (fragmented).
    pub const BIG_REL: u8 = 4;
    /// 64 KiB sent with `UNRELIABLE_FRAGMENT`.
    pub const FRAG_MED: u8 = 5;
    /// 1 MiB sent with `UNRELIABLE_FRAGMENT`.
    pub const FRAG_BIG: u8 = 6;
    /// "I have sent everything."
    pub const FIN: u8 = 7;
    /// "I have received everything."
    pub const ACKFIN: u8 = 8;
    /// A batch was received.
    pub const GOT: u8 = 9;
    /// Broadcast by the server.
    pub const BCAST: u8 = 10;
    /// Broadcast client host 0 stops servicing now.
    pub const PAUSE: u8 = 11;
    /// Unreliable keep-alive of the timeout scenario.
    pub const HEARTBEAT: u8 = 12;
}

/// A message's identity, as its header states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Msg {
    pub kind: u8,
    pub sender: u8,
    pub channel: u8,
    pub seq: u32,
}

const FNV_OFFSET: u32 = 2_166_136_261;
const FNV_PRIME: u32 = 16_777_619;

/// The body's generator for one message.
struct Body {
    noise: u32,
    shift: usize,
}

impl Body {
    fn new(m: &Msg) -> Body {
        let mut h = FNV_OFFSET;
        for part in [u32::from(m.kind), u32::from(m.sender), m.seq] {
            h = (h ^ part).wrapping_mul(FNV_PRIME);
        }
        Body {
            noise: if h == 0 { 1 } else { h },
            shift: (h % 26) as usize,
        }
    }

    /// Body byte `i` (counted from the end of the header); call in order.
    fn byte(&mut self, i: usize) -> u8 {
        if i & 63 < 40 {
            return b'a' + ((i / 5 + self.shift) % 26) as u8;
        }
        self.noise ^= self.noise << 13;
        self.noise ^= self.noise >> 17;
        self.noise ^= self.noise << 5;
        (self.noise >> 24) as u8
    }
}

/// The whole message of `len` bytes (at least the header).
pub fn build(len: usize, m: &Msg) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    out.extend_from_slice(&[m.kind, m.sender, m.channel, MAGIC]);
    out.extend_from_slice(&m.seq.to_be_bytes());
    out.extend_from_slice(&(len as u32).to_be_bytes());
    let mut body = Body::new(m);
    out.extend((0..len.saturating_sub(HDR_LEN)).map(|i| body.byte(i)));
    out
}

/// Checks every byte of a message received on `channel`; says why it is bad.
pub fn parse(data: &[u8], channel: u8) -> Result<Msg, &'static str> {
    if data.len() < HDR_LEN {
        return Err("shorter than the header");
    }
    if data[3] != MAGIC {
        return Err("bad magic byte");
    }
    let word = |at: usize| u32::from_be_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    let m = Msg {
        kind: data[0],
        sender: data[1],
        channel: data[2],
        seq: word(4),
    };
    if word(8) as usize != data.len() {
        return Err("length differs from the length written by the sender");
    }
    if m.channel != channel {
        return Err("arrived on another channel than it was sent on");
    }
    let mut body = Body::new(&m);
    if data[HDR_LEN..]
        .iter()
        .enumerate()
        .any(|(i, &b)| b != body.byte(i))
    {
        return Err("payload corrupted");
    }
    Ok(m)
}

/// FNV-1a over a whole packet (printed for the 1 MiB reliable message).
pub fn fnv1a(data: &[u8]) -> u32 {
    data.iter().fold(FNV_OFFSET, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(FNV_PRIME)
    })
}

/// Small messages span 16..915 bytes: several per datagram, never
/// fragmented.
pub fn small_len(seq: u32) -> usize {
    HDR_LEN + 4 + (seq * 97 % 900) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(sender: u8) -> Msg {
        Msg {
            kind: kind::BIG_REL,
            sender,
            channel: 0,
            seq: 200,
        }
    }

    /// The 1 MiB reliable messages hash to the values stock ENet's run
    /// wrote into expected/basic.*.out: same bytes as peer.c's.
    #[test]
    fn big_messages_match_the_expected_output() {
        let len = 1024 * 1024;
        assert_eq!(fnv1a(&build(len, &big(CLIENT_TAG))), 0xd205_75d0);
        assert_eq!(fnv1a(&build(len, &big(SERVER_TAG))), 0xb126_ef84);
    }

    #[test]
    fn parse_accepts_what_build_wrote_and_names_each_fault() {
        let m = Msg {
            kind: kind::UNSEQ,
            sender: CLIENT_TAG,
            channel: 2,
            seq: 7,
        };
        let good = build(small_len(7), &m);
        assert_eq!(parse(&good, 2), Ok(m));
        assert_eq!(parse(&good[..11], 2), Err("shorter than the header"));
        assert_eq!(
            parse(&good, 1),
            Err("arrived on another channel than it was sent on")
        );
        let mut bad = good.clone();
        bad[3] = 0;
        assert_eq!(parse(&bad, 2), Err("bad magic byte"));
        let mut bad = good.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert_eq!(parse(&bad, 2), Err("payload corrupted"));
        assert_eq!(
            parse(&good[..good.len() - 1], 2),
            Err("length differs from the length written by the sender")
        );
    }

    #[test]
    fn small_lengths_stay_under_one_datagram() {
        assert_eq!(small_len(0), 16);
        assert!((0..200).all(|s| (16..=915).contains(&small_len(s))));
    }
}
