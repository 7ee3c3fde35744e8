//! The hash of the sessions' map. The map is looked up for every record
//! sent and received, so its hash is on the per-datagram path, where
//! std's SipHash cost more than the rest of the look-up and the record's
//! glue together (1.8 % of an encrypted receiver's CPU on 1 MiB
//! messages). An address is a few words, so each word is mixed into the
//! state with one folded multiplication instead, under a key drawn at
//! random for each map: only a client that answered a cookie from its
//! address gets an entry, and the key never leaves the process, so a peer
//! cannot pick addresses that collide.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// An odd constant with its bits spread (2^64 / the golden ratio).
const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

/// Both halves of `(state ^ word) * MULTIPLIER`, folded: every bit of the
/// input reaches every bit of the output.
fn mix(state: u64, word: u64) -> u64 {
    let product = u128::from(state ^ word) * u128::from(MULTIPLIER);
    (product as u64) ^ ((product >> 64) as u64)
}

/// Makes the hashers of one map, under its random key.
#[derive(Clone, Debug)]
pub struct AddressHashing {
    key: u64,
}

impl AddressHashing {
    pub fn new() -> Self {
        // std's per-map random keys, seeded from the system's random
        // source, without a source of our own.
        AddressHashing {
            key: RandomState::new().hash_one(MULTIPLIER),
        }
    }
}

impl Default for AddressHashing {
    fn default() -> Self {
        Self::new()
    }
}

impl BuildHasher for AddressHashing {
    type Hasher = AddressHasher;

    fn build_hasher(&self) -> AddressHasher {
        AddressHasher { state: self.key }
    }
}

/// See the module's comment.
#[derive(Debug)]
pub struct AddressHasher {
    state: u64,
}

impl Hasher for AddressHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.state = mix(self.state, u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, value: u8) {
        self.state = mix(self.state, u64::from(value));
    }

    fn write_u16(&mut self, value: u16) {
        self.state = mix(self.state, u64::from(value));
    }

    fn write_u32(&mut self, value: u32) {
        self.state = mix(self.state, u64::from(value));
    }

    fn write_u64(&mut self, value: u64) {
        self.state = mix(self.state, value);
    }

    fn write_usize(&mut self, value: usize) {
        self.state = mix(self.state, value as u64);
    }

    fn finish(&self) -> u64 {
        // Once more, so the last word's high bits reach the low ones the
        // table indexes by.
        mix(self.state, self.state >> 32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};
    use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};

    /// Addresses that differ in one port or one address byte land in
    /// different buckets of a small table, and a map keyed by them finds
    /// each one.
    #[test]
    fn neighbouring_addresses_spread_and_are_found() {
        let hashing = AddressHashing::new();
        let mut addresses: Vec<SocketAddr> = (0..1024u16)
            .map(|port| SocketAddr::from((Ipv4Addr::new(127, 0, 0, 1), 40000 + port)))
            .collect();
        addresses.extend(
            (0..=255u8).map(|last| SocketAddr::from((Ipv4Addr::new(10, 0, 0, last), 7000))),
        );
        addresses
            .extend((0..256u16).map(|port| SocketAddr::from((Ipv6Addr::LOCALHOST, 9000 + port))));
        // The low 8 bits, as a table of 256 buckets indexes: far from all
        // in a few.
        let buckets: HashSet<u64> = addresses
            .iter()
            .map(|address| hashing.hash_one(address) & 0xFF)
            .collect();
        assert!(buckets.len() > 200, "{} of 256 buckets", buckets.len());
        let full: HashSet<u64> = addresses
            .iter()
            .map(|address| hashing.hash_one(address))
            .collect();
        assert_eq!(full.len(), addresses.len());

        let mut map: HashMap<SocketAddr, usize, AddressHashing> =
            HashMap::with_hasher(hashing.clone());
        for (index, address) in addresses.iter().enumerate() {
            map.insert(*address, index);
        }
        for (index, address) in addresses.iter().enumerate() {
            assert_eq!(map.get(address), Some(&index));
        }
    }

    /// Two maps hash the same address differently.
    #[test]
    fn each_map_has_its_own_key() {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, 1234));
        let hashes: HashSet<u64> = (0..8)
            .map(|_| AddressHashing::new().hash_one(address))
            .collect();
        assert!(hashes.len() > 1);
    }
}
