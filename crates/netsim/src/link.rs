//! One direction of an impaired path: datagrams go in at a time, copies
//! come out when they are due. Time is whatever clock the caller keeps, in
//! microseconds, so tests run it virtually and the proxy and the library
//! run it on the system's.
//!
//! What a datagram meets, in order: the [`Impairer`]'s decision (lost,
//! duplicated, corrupted, held back to reorder, its delay and jitter);
//! then the rate cap, a link that sends one datagram after another at
//! `bandwidth` bytes per second behind a queue of `queue_bytes` that drops
//! what arrives when it is full; then the delay. A copy keeps its own
//! bytes until it leaves.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::impairment::{Impairer, Profile};

/// Bytes a link holds at most, whatever its profile: beyond this a
/// datagram is dropped as by a full queue, so a long delay on a fast
/// sender cannot take all memory.
pub const HELD_BYTES_LIMIT: usize = 32 << 20;

/// What one direction did, in datagrams.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Datagrams that came in.
    pub datagrams: u64,
    /// Copies that came out.
    pub released: u64,
    /// Lost by the loss model.
    pub dropped: u64,
    /// Held for any time at all (delay, jitter, reordering, the queue).
    pub delayed: u64,
    /// Sent twice.
    pub duplicated: u64,
    /// Held back so later ones overtake them.
    pub reordered: u64,
    /// With a bit flipped.
    pub corrupted: u64,
    /// Dropped at the rate cap's full queue (or the held-bytes limit).
    pub rate_dropped: u64,
    /// Dropped for being larger than the path MTU.
    pub too_big: u64,
}

/// What the IPv4 and UDP headers add to a UDP payload.
pub const IPV4_UDP_HEADERS: usize = 20 + 8;
/// What the IPv6 and UDP headers add to a UDP payload.
pub const IPV6_UDP_HEADERS: usize = 40 + 8;

/// A copy waiting for its time.
struct Held<T> {
    due_us: u64,
    order: u64,
    tag: T,
    bytes: Vec<u8>,
}

impl<T> PartialEq for Held<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.due_us, self.order) == (other.due_us, other.order)
    }
}

impl<T> Eq for Held<T> {}

impl<T> Ord for Held<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        // Earliest first out of the max-heap; equal times in arrival order.
        (other.due_us, other.order).cmp(&(self.due_us, self.order))
    }
}

impl<T> PartialOrd for Held<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// One direction. `T` is what the caller needs to send a copy on (an
/// address, a socket's key), handed back with it.
pub struct Link<T> {
    impairer: Impairer,
    /// When the capped link is next free.
    free_at_us: u64,
    /// When the last copy not held back to reorder is due (in-order
    /// jitter starts no copy before it).
    last_due_us: u64,
    held: BinaryHeap<Held<T>>,
    held_bytes: usize,
    order: u64,
    stats: LinkStats,
}

impl<T: Clone> Link<T> {
    pub fn new(profile: Profile, seed: u64) -> Self {
        Link {
            impairer: Impairer::new(profile, seed),
            free_at_us: 0,
            last_due_us: 0,
            held: BinaryHeap::new(),
            held_bytes: 0,
            order: 0,
            stats: LinkStats::default(),
        }
    }

    pub fn profile(&self) -> &Profile {
        &self.impairer.profile
    }

    pub fn stats(&self) -> LinkStats {
        self.stats
    }

    /// Copies held, not yet released.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// Takes in an IPv4 datagram that arrives at `now_us` (see
    /// [`Link::admit_ip`]).
    pub fn admit(&mut self, now_us: u64, bytes: &[u8], tag: T) {
        self.admit_ip(now_us, bytes, tag, IPV4_UDP_HEADERS);
    }

    /// Takes in a datagram of UDP payload `bytes`, which the IP and UDP
    /// `headers` (bytes) carry, that arrives at `now_us`. One larger than
    /// the path MTU is dropped before anything else is decided, so the
    /// other decisions stay those of the datagrams that pass.
    pub fn admit_ip(&mut self, now_us: u64, bytes: &[u8], tag: T, headers: usize) {
        self.stats.datagrams += 1;
        let mtu = self.impairer.profile.mtu as usize;
        if mtu != 0 && bytes.len() + headers > mtu {
            self.stats.too_big += 1;
            return;
        }
        let decision = self.impairer.decide(bytes.len());
        let profile = self.impairer.profile;
        if decision.copies.is_empty() {
            self.stats.dropped += 1;
            return;
        }
        let mut sent_at = now_us;
        if profile.bandwidth > 0 {
            let start = self.free_at_us.max(now_us);
            let backlog = (start - now_us).saturating_mul(profile.bandwidth) / 1_000_000;
            if backlog > profile.queue_bytes as u64 {
                self.stats.rate_dropped += 1;
                return;
            }
            sent_at = start + (bytes.len() as u64 * 1_000_000) / profile.bandwidth;
            self.free_at_us = sent_at;
        }
        let copies = decision.copies.len();
        if self.held_bytes + bytes.len() * copies > HELD_BYTES_LIMIT {
            self.stats.rate_dropped += 1;
            return;
        }
        self.stats.duplicated += u64::from(copies > 1);
        self.stats.reordered += u64::from(decision.reordered);
        self.stats.corrupted += u64::from(decision.flipped_bit.is_some());
        let mut copy = bytes.to_vec();
        if let Some(bit) = decision.flipped_bit {
            copy[bit / 8] ^= 1 << (bit % 8);
        }
        let mut delayed = false;
        for (i, delay) in decision.copies.iter().enumerate() {
            let mut due_us = sent_at + u64::from(*delay) * 1000;
            if profile.in_order && !decision.reordered {
                due_us = due_us.max(self.last_due_us);
                self.last_due_us = due_us;
            }
            delayed |= due_us > now_us;
            self.order += 1;
            self.held_bytes += copy.len();
            let bytes = if i + 1 == copies {
                std::mem::take(&mut copy)
            } else {
                copy.clone()
            };
            self.held.push(Held {
                due_us,
                order: self.order,
                tag: tag.clone(),
                bytes,
            });
        }
        self.stats.delayed += u64::from(delayed);
    }

    /// When the next copy is due, if one is held.
    pub fn next_due(&self) -> Option<u64> {
        self.held.peek().map(|next| next.due_us)
    }

    /// The next copy due by `now_us`, with its tag.
    pub fn pop_due(&mut self, now_us: u64) -> Option<(T, Vec<u8>)> {
        if self.held.peek()?.due_us > now_us {
            return None;
        }
        let held = self.held.pop()?;
        self.held_bytes -= held.bytes.len();
        self.stats.released += 1;
        Some((held.tag, held.bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything due by `now_us`, as (due time, tag, bytes) in the order
    /// released.
    fn drain(link: &mut Link<u32>, now_us: u64) -> Vec<(u32, Vec<u8>)> {
        std::iter::from_fn(|| link.pop_due(now_us)).collect()
    }

    #[test]
    fn the_path_mtu_drops_larger_datagrams_and_counts_them() {
        let profile = Profile {
            mtu: 1280,
            ..Profile::default()
        };
        let mut link = Link::new(profile, 1);
        // IPv4: 1252 bytes of payload make a 1280-byte datagram.
        link.admit(0, &[0; 1252], 1);
        link.admit(0, &[0; 1253], 2);
        // IPv6 headers are 20 bytes longer.
        link.admit_ip(0, &[0; 1232], 3, IPV6_UDP_HEADERS);
        link.admit_ip(0, &[0; 1233], 4, IPV6_UDP_HEADERS);
        let tags: Vec<u32> = drain(&mut link, 0)
            .into_iter()
            .map(|(tag, _)| tag)
            .collect();
        assert_eq!(tags, [1, 3]);
        let stats = link.stats();
        assert_eq!((stats.datagrams, stats.released), (4, 2));
        assert_eq!((stats.too_big, stats.dropped), (2, 0));
        // Without a limit every size passes.
        let mut open = Link::new(Profile::default(), 1);
        open.admit(0, &[0; 4000], 5);
        assert_eq!(drain(&mut open, 0).len(), 1);
    }

    #[test]
    fn a_clean_link_passes_at_once() {
        let mut link = Link::new(Profile::default(), 1);
        link.admit(5, b"abc", 7);
        assert_eq!(link.next_due(), Some(5));
        assert_eq!(drain(&mut link, 5), vec![(7, b"abc".to_vec())]);
        assert_eq!(link.stats().delayed, 0);
        assert_eq!(link.held(), 0);
    }

    #[test]
    fn the_rate_cap_holds_its_bytes_per_second() {
        for bandwidth in [250_000u64, 1_000_000, 40_000] {
            let profile = Profile {
                bandwidth,
                queue_bytes: 16 * 1024,
                ..Profile::default()
            };
            let mut link = Link::new(profile, 3);
            // Offered at twice the cap, 1000-byte datagrams, for 10 s of
            // virtual time; what leaves between 1 s and 10 s is counted.
            let gap_us = 1_000 * 1_000_000 / (2 * bandwidth);
            let mut now = 0u64;
            let mut counted = 0u64;
            while now < 10_000_000 {
                link.admit(now, &[0u8; 1000], 0);
                now += gap_us;
                while let Some((_, bytes)) = link.pop_due(now) {
                    if now > 1_000_000 {
                        counted += bytes.len() as u64;
                    }
                }
            }
            let rate = counted as f64 / 9.0;
            assert!(
                (rate / bandwidth as f64 - 1.0).abs() < 0.05,
                "{bandwidth}: {rate} B/s"
            );
            let stats = link.stats();
            assert!(stats.rate_dropped > stats.datagrams / 3, "{stats:?}");
            // The queue stays bounded: at most its bytes plus one datagram.
            assert!(link.held() <= 16 + 1, "{}", link.held());
        }
    }

    #[test]
    fn in_order_jitter_never_reorders_and_reordering_still_does() {
        let profile = Profile {
            delay_ms: 50,
            jitter_ms: 10,
            in_order: true,
            ..Profile::default()
        };
        let mut link = Link::new(profile, 9);
        let mut out = Vec::new();
        for i in 0..2000u32 {
            let now = u64::from(i) * 500;
            link.admit(now, &i.to_le_bytes(), i);
            out.extend(drain(&mut link, now).into_iter().map(|(tag, _)| tag));
        }
        out.extend(drain(&mut link, u64::MAX).into_iter().map(|(tag, _)| tag));
        assert_eq!(out, (0..2000).collect::<Vec<_>>());

        let mut link = Link::new(
            Profile {
                reorder: 0.1,
                ..profile
            },
            9,
        );
        for i in 0..2000u32 {
            link.admit(u64::from(i) * 500, &[], i);
        }
        let out: Vec<u32> = drain(&mut link, u64::MAX)
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        let overtaken = out.windows(2).filter(|w| w[0] > w[1]).count();
        assert!(overtaken > 100, "{overtaken}");
        let reordered = link.stats().reordered;
        assert!((150..250).contains(&reordered), "{reordered}");
    }

    #[test]
    fn delay_and_jitter_set_when_copies_leave() {
        let profile = Profile {
            delay_ms: 40,
            jitter_ms: 10,
            duplicate: 0.5,
            corrupt: 0.5,
            in_order: true,
            ..Profile::default()
        };
        let mut link = Link::new(profile, 11);
        let mut lags = Vec::new();
        for i in 0..1000u64 {
            // Far enough apart that in-order jitter never waits.
            let now = i * 100_000;
            link.admit(now, &[0u8; 64], 0);
            let mut t = now;
            while link.held() > 0 {
                t = link.next_due().unwrap();
                let (_, bytes) = link.pop_due(t).unwrap();
                assert_eq!(bytes.len(), 64);
                lags.push(t - now);
            }
            assert!(t < now + 100_000);
        }
        assert!(lags.iter().all(|&lag| (40_000..=50_000).contains(&lag)));
        let stats = link.stats();
        assert_eq!(stats.released as usize, lags.len());
        assert_eq!(stats.released, 1000 + stats.duplicated);
        assert!((400..600).contains(&stats.duplicated), "{stats:?}");
        assert!((400..600).contains(&stats.corrupted), "{stats:?}");
        assert_eq!(stats.delayed, 1000);
    }
}
