//! Datagrams captured from a session between two stock ENet 1.3.17 hosts
//! (the intercept callback dumped every datagram; /work/shared/reference),
//! with the annotation line the capture tool printed for each.
//!
//! The capture shows only the first 96 bytes of the big fragment datagrams
//! (hex ending in "..."). The test program filled its 3000-byte packets with
//! byte `i % 7` at offset `i`, as every shown prefix confirms, so
//! [`Capture::bytes`] rebuilds those datagrams in full; the checksummed
//! trace then proves the rebuilt bytes right, since their CRC must match.

use crate::wire::header::DatagramHeader;

pub struct Capture {
    /// The receiving side.
    pub to: &'static str,
    /// The datagram's length.
    pub len: usize,
    /// Its bytes in hex, or a prefix followed by "...".
    pub hex: &'static str,
    /// What the capture tool decoded: header fields, then each command.
    pub annotation: &'static str,
}

pub fn from_hex(hex: &str) -> Vec<u8> {
    assert!(hex.len() % 2 == 0, "odd hex length");
    (0..hex.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).expect("hex digit"))
        .collect()
}

/// Byte `offset` of the packets the capture program sent in fragments.
fn test_packet_byte(offset: usize) -> u8 {
    (offset % 7) as u8
}

impl Capture {
    pub fn is_complete(&self) -> bool {
        !self.hex.ends_with("...")
    }

    /// The bytes the capture shows.
    pub fn shown(&self) -> Vec<u8> {
        from_hex(self.hex.trim_end_matches("..."))
    }

    /// The whole datagram, rebuilding a truncated fragment datagram from
    /// its shown header and the known packet contents.
    pub fn bytes(&self, has_checksum: bool) -> Vec<u8> {
        let shown = self.shown();
        if self.is_complete() {
            assert_eq!(shown.len(), self.len);
            return shown;
        }
        let (_, header_len) = DatagramHeader::parse(&shown, has_checksum).unwrap();
        let fragment = &shown[header_len..];
        assert!(
            matches!(fragment[0] & 0x0f, 8 | 12),
            "only fragment datagrams are shown truncated"
        );
        let data_length = usize::from(u16::from_be_bytes([fragment[6], fragment[7]]));
        let offset = u32::from_be_bytes(fragment[20..24].try_into().unwrap()) as usize;
        let mut bytes = shown[..header_len + 24].to_vec();
        bytes.extend((offset..offset + data_length).map(test_packet_byte));
        assert_eq!(bytes.len(), self.len, "rebuilt length");
        assert_eq!(
            &bytes[..shown.len()],
            &shown[..],
            "rebuilt bytes match the shown prefix"
        );
        bytes
    }
}

/// `wiretrace-plain.txt`.
pub const PLAIN: &[Capture] = &[
    Capture {
        to: "server",
        len: 52,
        hex: "8ffff70782ff00010000ffff0000057800010000000000020000000000000000000013880000000200000002f7c760dd12345678",
        annotation: "peerID=0xfff session=0 compressed=0 sentTime=1 | CONNECT+ACK ch=255 rsn=1",
    },
    Capture {
        to: "client",
        len: 48,
        hex: "8000f70883ff0001000000000000057800010000000000020000000000000000000013880000000200000002f7c760dd",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | VERIFY_CONNECT+ACK ch=255 rsn=1",
    },
    Capture {
        to: "server",
        len: 16,
        hex: "8000f70901ff00010001f70885ff0002",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | ACK ch=255 rsn=1 | PING+ACK ch=255 rsn=2",
    },
    Capture {
        to: "client",
        len: 10,
        hex: "000001ff00020002f709",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=0 | ACK ch=255 rsn=2",
    },
    Capture {
        to: "server",
        len: 73,
        hex: "8000f70c86000001000e68656c6c6f2d72656c6961626c65070100000001001068656c6c6f2d756e72656c6961626c65490100000001001168656c6c6f2d756e73657175656e636564",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | SEND_RELIABLE+ACK ch=0 rsn=1 | SEND_UNRELIABLE ch=1 rsn=0 | SEND_UNSEQUENCED+UNSEQ ch=1 rsn=0",
    },
    Capture {
        to: "server",
        len: 1400,
        hex: "8000f70c880000020002055c000000030000000000000bb8000000000001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304...",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | SEND_FRAGMENT+ACK ch=0 rsn=2",
    },
    Capture {
        to: "server",
        len: 1400,
        hex: "8000f70c880000030002055c000000030000000100000bb80000055c0001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304...",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | SEND_FRAGMENT+ACK ch=0 rsn=3",
    },
    Capture {
        to: "server",
        len: 284,
        hex: "8000f70c8800000400020100000000030000000200000bb800000ab80001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304...",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | SEND_FRAGMENT+ACK ch=0 rsn=4",
    },
    Capture {
        to: "server",
        len: 1398,
        hex: "00000c0100000002055c000000030000000000000bb80000000000010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506...",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=0 | SEND_UNRELIABLE_FRAGMENT ch=1 rsn=0",
    },
    Capture {
        to: "server",
        len: 1398,
        hex: "00000c0100000002055c000000030000000100000bb80000055c00010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506...",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=0 | SEND_UNRELIABLE_FRAGMENT ch=1 rsn=0",
    },
    Capture {
        to: "server",
        len: 282,
        hex: "00000c01000000020100000000030000000200000bb800000ab800010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506...",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=0 | SEND_UNRELIABLE_FRAGMENT ch=1 rsn=0",
    },
    Capture {
        to: "client",
        len: 34,
        hex: "0000010000010001f70c010000020002f70c010000030003f70c010000040004f70c",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=0 | ACK ch=0 rsn=1 | ACK ch=0 rsn=2 | ACK ch=0 rsn=3 | ACK ch=0 rsn=4",
    },
    Capture {
        to: "server",
        len: 12,
        hex: "8000f75884ff00030000abcd",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | DISCONNECT+ACK ch=255 rsn=3",
    },
    Capture {
        to: "client",
        len: 10,
        hex: "000001ff00030003f758",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=0 | ACK ch=255 rsn=3",
    },
];

/// `wt-crc96.txt`.
pub const CRC: &[Capture] = &[
    Capture {
        to: "server",
        len: 56,
        hex: "8fff0bb461e9fb1082ff00010000ffff0000057800010000000000020000000000000000000013880000000200000002f08d654d12345678",
        annotation: "peerID=0xfff session=0 compressed=0 sentTime=1 | CONNECT+ACK ch=255 rsn=1",
    },
    Capture {
        to: "client",
        len: 52,
        hex: "80000bb50c66903b83ff0001000000000000057800010000000000020000000000000000000013880000000200000002f08d654d",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | VERIFY_CONNECT+ACK ch=255 rsn=1",
    },
    Capture {
        to: "server",
        len: 20,
        hex: "80000bb7f1b1dc7d01ff000100010bb585ff0002",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | ACK ch=255 rsn=1 | PING+ACK ch=255 rsn=2",
    },
    Capture {
        to: "client",
        len: 14,
        hex: "0000a079f66b01ff000200020bb7",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=0 | ACK ch=255 rsn=2",
    },
    Capture {
        to: "server",
        len: 77,
        hex: "80000bb9c933639f86000001000e68656c6c6f2d72656c6961626c65070100000001001068656c6c6f2d756e72656c6961626c65490100000001001168656c6c6f2d756e73657175656e636564",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | SEND_RELIABLE+ACK ch=0 rsn=1 | SEND_UNRELIABLE ch=1 rsn=0 | SEND_UNSEQUENCED+UNSEQ ch=1 rsn=0",
    },
    Capture {
        to: "server",
        len: 1400,
        hex: "80000bb939f8a6248800000200020558000000030000000000000bb80000000000010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304050600...",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | SEND_FRAGMENT+ACK ch=0 rsn=2",
    },
    Capture {
        to: "server",
        len: 1400,
        hex: "80000bb993e3840d8800000300020558000000030000000100000bb80000055803040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203...",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | SEND_FRAGMENT+ACK ch=0 rsn=3",
    },
    Capture {
        to: "server",
        len: 296,
        hex: "80000bb9a0e49aa98800000400020108000000030000000200000bb800000ab006000102030405060001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506...",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | SEND_FRAGMENT+ACK ch=0 rsn=4",
    },
    Capture {
        to: "server",
        len: 1398,
        hex: "0000931782510c01000000020558000000030000000000000bb800000000000102030405060001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506000102...",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=0 | SEND_UNRELIABLE_FRAGMENT ch=1 rsn=0",
    },
    Capture {
        to: "server",
        len: 1398,
        hex: "000042c4e77c0c01000000020558000000030000000100000bb800000558030405060001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506000102030405...",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=0 | SEND_UNRELIABLE_FRAGMENT ch=1 rsn=0",
    },
    Capture {
        to: "server",
        len: 294,
        hex: "0000607e4b150c01000000020108000000030000000200000bb800000ab0060001020304050600010203040506000102030405060001020304050600010203040506000102030405060001020304050600010203040506000102030405060001...",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=0 | SEND_UNRELIABLE_FRAGMENT ch=1 rsn=0",
    },
    Capture {
        to: "client",
        len: 38,
        hex: "0000f0b40b360100000100010bb90100000200020bb90100000300030bb90100000400040bb9",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=0 | ACK ch=0 rsn=1 | ACK ch=0 rsn=2 | ACK ch=0 rsn=3 | ACK ch=0 rsn=4",
    },
    Capture {
        to: "server",
        len: 16,
        hex: "80000bff88bacced84ff00030000abcd",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | DISCONNECT+ACK ch=255 rsn=3",
    },
    Capture {
        to: "client",
        len: 14,
        hex: "0000e4dc7c4e01ff000300030bff",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=0 | ACK ch=255 rsn=3",
    },
];

/// `wiretrace-compress.txt`.
pub const COMPRESSED: &[Capture] = &[
    Capture {
        to: "server",
        len: 36,
        hex: "cfffc618837b88b1fdf1df576b999b36fcbb243e8a642656d3398856a660e657986e9bc8",
        annotation: "peerID=0xfff session=0 compressed=1 sentTime=1",
    },
    Capture {
        to: "client",
        len: 28,
        hex: "c000c619847a89b0fdf41c0b82b9f8e21ba291effe79e639f6c880af",
        annotation: "peerID=0x000 session=0 compressed=1 sentTime=1",
    },
    Capture {
        to: "server",
        len: 16,
        hex: "8000c61a01ff00010001c61985ff0002",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | ACK ch=255 rsn=1 | PING+ACK ch=255 rsn=2",
    },
    Capture {
        to: "client",
        len: 10,
        hex: "000001ff00020002c61a",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=0 | ACK ch=255 rsn=2",
    },
    Capture {
        to: "server",
        len: 51,
        hex: "c000c61d867a829668e2196530aa2209560cf5ce62899d527ab051fec453f01c76621721939cf5c5c25a9f8fafe069aa...",
        annotation: "peerID=0x000 session=0 compressed=1 sentTime=1",
    },
    Capture {
        to: "server",
        len: 45,
        hex: "c000c61d8878849716b6cf64e46fcdb29826479bc3de1d0ab8b65add22f6ead6cf9f63726dd9238c7e0594da2c",
        annotation: "peerID=0x000 session=0 compressed=1 sentTime=1",
    },
    Capture {
        to: "server",
        len: 48,
        hex: "c000c61d88788499a8358615523a76b279d5dccf4b22ef9d23916e2b6c41f4e0e6d0b08035622cfc74719176e3b29eaf",
        annotation: "peerID=0x000 session=0 compressed=1 sentTime=1",
    },
    Capture {
        to: "server",
        len: 41,
        hex: "c000c61d8878849c4839149d64d537772afb0bb5f0efa332babac4e86cfbd8f4f0dbcdb83175aff949",
        annotation: "peerID=0x000 session=0 compressed=1 sentTime=1",
    },
    Capture {
        to: "server",
        len: 42,
        hex: "40000cf50412f53e234c83106ea06ee0cbda07108ee841051f86f7f1eadace9203874f87d0672beebd92",
        annotation: "peerID=0x000 session=0 compressed=1 sentTime=0",
    },
    Capture {
        to: "server",
        len: 46,
        hex: "40000cf50412f53e234c83106ccc4dc7bc59d23c378fa0768b6b61d1f3f6dde1c07a383a938090b25c089ccd696e",
        annotation: "peerID=0x000 session=0 compressed=1 sentTime=0",
    },
    Capture {
        to: "server",
        len: 38,
        hex: "40000cf50412f53bb9624d064febf0bc37bbe50db6e0bca5de6c57b7f0f3e6d18d2140d82717",
        annotation: "peerID=0x000 session=0 compressed=1 sentTime=0",
    },
    Capture {
        to: "client",
        len: 24,
        hex: "400001fefe24d39d680957548e1fcf88611ba56eacd0b7d1",
        annotation: "peerID=0x000 session=0 compressed=1 sentTime=0",
    },
    Capture {
        to: "server",
        len: 12,
        hex: "8000c66484ff00030000abcd",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=1 | DISCONNECT+ACK ch=255 rsn=3",
    },
    Capture {
        to: "client",
        len: 10,
        hex: "000001ff00030003c664",
        annotation: "peerID=0x000 session=0 compressed=0 sentTime=0 | ACK ch=255 rsn=3",
    },
];
