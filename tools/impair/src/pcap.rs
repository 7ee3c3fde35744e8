//! A capture of what passes through the proxy, as a pcap file Wireshark
//! and tshark read: each datagram as the proxy received it (before any
//! impairment), from the client to the server or back, wrapped in IPv4 or
//! IPv6 and UDP headers built here (`LINKTYPE_RAW`; UDP checksum 0).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// `LINKTYPE_RAW`: each record starts with an IPv4 or IPv6 header.
const LINKTYPE_RAW: u32 = 101;
const UDP: u8 = 17;

pub struct Capture {
    out: BufWriter<File>,
}

impl Capture {
    /// Creates `path` and writes the pcap file header.
    pub fn create(path: &Path) -> io::Result<Capture> {
        let mut out = BufWriter::new(File::create(path)?);
        out.write_all(&0xA1B2_C3D4u32.to_le_bytes())?;
        out.write_all(&2u16.to_le_bytes())?; // version 2.4
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?; // GMT offset
        out.write_all(&0u32.to_le_bytes())?; // timestamp accuracy
        out.write_all(&65535u32.to_le_bytes())?; // snapshot length
        out.write_all(&LINKTYPE_RAW.to_le_bytes())?;
        Ok(Capture { out })
    }

    /// Records one datagram of `payload` from `from` to `to` (both of one
    /// family; a mixed pair is not recorded).
    pub fn record(&mut self, from: SocketAddr, to: SocketAddr, payload: &[u8]) -> io::Result<()> {
        let udp_length = 8 + payload.len();
        let mut packet = Vec::with_capacity(40 + udp_length);
        match (from, to) {
            (SocketAddr::V4(from), SocketAddr::V4(to)) => {
                let total = (20 + udp_length) as u16;
                packet.extend_from_slice(&[0x45, 0]);
                packet.extend_from_slice(&total.to_be_bytes());
                packet.extend_from_slice(&[0, 0, 0x40, 0, 64, UDP, 0, 0]);
                packet.extend_from_slice(&from.ip().octets());
                packet.extend_from_slice(&to.ip().octets());
                let checksum = ipv4_checksum(&packet);
                packet[10..12].copy_from_slice(&checksum.to_be_bytes());
            }
            (SocketAddr::V6(from), SocketAddr::V6(to)) => {
                packet.extend_from_slice(&[0x60, 0, 0, 0]);
                packet.extend_from_slice(&(udp_length as u16).to_be_bytes());
                packet.extend_from_slice(&[UDP, 64]);
                packet.extend_from_slice(&from.ip().octets());
                packet.extend_from_slice(&to.ip().octets());
            }
            _ => return Ok(()),
        }
        packet.extend_from_slice(&from.port().to_be_bytes());
        packet.extend_from_slice(&to.port().to_be_bytes());
        packet.extend_from_slice(&(udp_length as u16).to_be_bytes());
        packet.extend_from_slice(&[0, 0]);
        packet.extend_from_slice(payload);

        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        self.out.write_all(&(now.as_secs() as u32).to_le_bytes())?;
        self.out.write_all(&now.subsec_micros().to_le_bytes())?;
        let length = packet.len() as u32;
        self.out.write_all(&length.to_le_bytes())?;
        self.out.write_all(&length.to_le_bytes())?;
        self.out.write_all(&packet)
    }

    /// Writes out what is buffered.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The IPv4 header checksum of `header` (its checksum field zero).
fn ipv4_checksum(header: &[u8]) -> u16 {
    let mut sum: u32 = header
        .chunks(2)
        .map(|pair| u32::from(u16::from_be_bytes([pair[0], pair[1]])))
        .sum();
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_holds_ip_udp_and_the_payload() {
        let path = std::env::temp_dir().join(format!("enet-impair-{}.pcap", std::process::id()));
        let mut capture = Capture::create(&path).unwrap();
        let from: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let to: SocketAddr = "127.0.0.1:6000".parse().unwrap();
        capture.record(from, to, b"hello").unwrap();
        capture.flush().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(bytes.len(), 24 + 16 + 20 + 8 + 5);
        let record = &bytes[24 + 16..];
        assert_eq!(record[0], 0x45);
        assert_eq!(
            ipv4_checksum(&record[..20]),
            0,
            "the header sums to all ones"
        );
        assert_eq!(&record[20..22], &5000u16.to_be_bytes());
        assert_eq!(&record[22..24], &6000u16.to_be_bytes());
        assert_eq!(&record[28..], b"hello");
    }
}
