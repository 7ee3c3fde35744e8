//! The delivery latency of messages, and the longest stall, measured
//! between two clocks that need not agree (client and server may be two
//! machines).
//!
//! The client stamps each message (from 16 bytes) with its send time on
//! its own clock, `T`. When the server's application receives it, at `R`
//! on the server's clock, the server notes `d = R - T` and the gap since
//! the previous message of the same stream (peer and channel) was
//! delivered, and echoes both back to the client in batches on channel 0,
//! each batch stamped with the server's time `S` just before it is sent.
//! The client notes when a batch arrives, `A`.
//!
//! `d` is the message's one-way latency plus the unknown offset between
//! the clocks; differences of `d` are exact. Two bounds pin the offset
//! (client clock minus server clock): no message arrives before it is
//! sent, so the offset is at least `-d` for every message, and no echo
//! arrives before it is sent, so it is at most `A - S` for every batch.
//! The estimate is the middle of the tightest pair of bounds: the fastest
//! message and the fastest echo are taken to have spent equal times on
//! the way, so its error is at most half the fastest round trip (40 ms on
//! a path of 20 ms each way: at most 20 ms, and none if the path is
//! symmetric). A message's latency is then `d` plus the offset: the
//! fastest message's is half the fastest round trip, and every other
//! message's adds how much slower it was (queueing behind a lost reliable
//! message included), on one clock. Echoes carry no figure of their own:
//! how long they take only loosens the offset's upper bound, so they go
//! on channel 0 with the reports, reliable, and none is lost.
//!
//! A stall, for the in-order reliable stream of one peer and channel, is
//! the time during which none of its messages was delivered while one
//! was outstanding (sent and not yet delivered). The stall that ends with
//! message `k`'s delivery lasts from the later of the previous delivery
//! and `k`'s sending, that is the smaller of the gap and `k`'s latency.

use std::mem::size_of;

/// The first byte of an echo batch (a report is 24 bytes and starts with
/// a count far below this byte's weight).
const ECHO_TAG: u8 = b'E';
/// Entries per echo batch: 1 + 8 + 96 * 12 = 1161 bytes, one datagram.
pub const ECHO_BATCH: usize = 96;
const ENTRY_BYTES: usize = size_of::<i64>() + size_of::<u32>();
/// A gap too long to count (or the first message of a stream).
const NO_GAP: u32 = u32::MAX;

/// Microseconds on this machine's monotonic clock. Both ends read it, but
/// nothing relies on their readings agreeing.
pub fn now_us() -> u64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut time) };
    time.tv_sec as u64 * 1_000_000 + time.tv_nsec as u64 / 1000
}

/// Writes the send time into a message's bytes 8..16, if it has them.
pub fn stamp(message: &mut [u8], sent_us: u64) {
    if let Some(field) = message.get_mut(8..16) {
        field.copy_from_slice(&sent_us.to_be_bytes());
    }
}

/// The send time a message carries (0, or under 16 bytes: none).
fn stamp_of(message: &[u8]) -> Option<u64> {
    let sent = u64::from_be_bytes(message.get(8..16)?.try_into().ok()?);
    (sent != 0).then_some(sent)
}

/// What the server echoes for one delivered message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Server's delivery time minus client's send time, µs (the latency
    /// plus the clocks' offset).
    pub skewed_us: i64,
    /// Time since the previous delivery on the message's stream, µs
    /// ([`NO_GAP`]: the first, or over an hour).
    pub gap_us: u32,
}

/// An echo batch: the server's send time and its entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Echo {
    pub sent_us: u64,
    pub entries: Vec<Entry>,
}

impl Echo {
    pub fn encode(sent_us: u64, entries: &[Entry]) -> Vec<u8> {
        let mut out = Vec::with_capacity(9 + entries.len() * ENTRY_BYTES);
        out.push(ECHO_TAG);
        out.extend_from_slice(&sent_us.to_be_bytes());
        for entry in entries {
            out.extend_from_slice(&entry.skewed_us.to_be_bytes());
            out.extend_from_slice(&entry.gap_us.to_be_bytes());
        }
        out
    }

    pub fn decode(bytes: &[u8]) -> Option<Echo> {
        let (&tag, rest) = bytes.split_first()?;
        let (sent, rest) = rest.split_first_chunk::<8>()?;
        if tag != ECHO_TAG || rest.len() % ENTRY_BYTES != 0 {
            return None;
        }
        let entries = rest
            .chunks_exact(ENTRY_BYTES)
            .map(|entry| {
                let (skewed, gap) = entry.split_at(8);
                Entry {
                    skewed_us: i64::from_be_bytes(skewed.try_into().unwrap()),
                    gap_us: u32::from_be_bytes(gap.try_into().unwrap()),
                }
            })
            .collect();
        Some(Echo {
            sent_us: u64::from_be_bytes(*sent),
            entries,
        })
    }
}

/// The server's side: the last delivery of each stream, and the entries
/// waiting to be echoed to each peer.
#[derive(Debug, Default)]
pub struct Echoes {
    /// Per peer slot: the last delivery time on each channel, and the
    /// batch to send.
    peers: Vec<(Vec<Option<u64>>, Vec<Entry>)>,
}

impl Echoes {
    /// A peer connected in `slot`: its streams start afresh.
    pub fn connected(&mut self, slot: usize) {
        if self.peers.len() <= slot {
            self.peers.resize_with(slot + 1, Default::default);
        }
        self.peers[slot] = Default::default();
    }

    /// `message` was delivered from the peer in `slot` on `channel` at
    /// `now_us`; true when that peer's batch is full.
    pub fn delivered(&mut self, slot: usize, channel: u8, message: &[u8], now_us: u64) -> bool {
        let Some(sent_us) = stamp_of(message) else {
            return false;
        };
        if self.peers.len() <= slot {
            self.peers.resize_with(slot + 1, Default::default);
        }
        let (streams, batch) = &mut self.peers[slot];
        let channel = usize::from(channel);
        if streams.len() <= channel {
            streams.resize(channel + 1, None);
        }
        let gap_us = streams[channel]
            .map(|last| now_us.saturating_sub(last))
            .and_then(|gap| u32::try_from(gap).ok())
            .map_or(NO_GAP, |gap| gap.min(NO_GAP - 1));
        streams[channel] = Some(now_us);
        batch.push(Entry {
            skewed_us: now_us as i64 - sent_us as i64,
            gap_us,
        });
        batch.len() >= ECHO_BATCH
    }

    /// Takes the batches waiting, per slot.
    pub fn take(&mut self) -> impl Iterator<Item = (usize, Vec<Entry>)> + '_ {
        self.peers
            .iter_mut()
            .enumerate()
            .filter(|(_, (_, batch))| !batch.is_empty())
            .map(|(slot, (_, batch))| (slot, std::mem::take(batch)))
    }
}

/// Latency and stall figures over some messages, ms (`None`: no message,
/// or for stalls, not reliable traffic).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Figures {
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub max_ms: Option<f64>,
    pub longest_stall_ms: Option<f64>,
}

/// The client's side: the clocks' offset, the entries of the interval
/// so far, and a histogram of the whole run.
#[derive(Debug)]
pub struct Estimator {
    /// Stalls are measured (reliable traffic).
    stalls: bool,
    /// The smallest `d` seen: the offset is at least its negation.
    fastest_forward: Option<i64>,
    /// The smallest `A - S` seen: the offset is at most this.
    fastest_back: Option<i64>,
    pending: Vec<Entry>,
    total: Histogram,
    longest_stall_us: u64,
}

impl Estimator {
    pub fn new(stalls: bool) -> Estimator {
        Estimator {
            stalls,
            fastest_forward: None,
            fastest_back: None,
            pending: Vec::new(),
            total: Histogram::default(),
            longest_stall_us: 0,
        }
    }

    /// An echo batch arrived at `arrived_us` (client clock).
    pub fn echo(&mut self, echo: Echo, arrived_us: u64) {
        let back = arrived_us as i64 - echo.sent_us as i64;
        self.fastest_back = Some(self.fastest_back.map_or(back, |fastest| fastest.min(back)));
        for entry in &echo.entries {
            let forward = entry.skewed_us;
            self.fastest_forward = Some(
                self.fastest_forward
                    .map_or(forward, |fastest| fastest.min(forward)),
            );
        }
        self.pending.extend(echo.entries);
    }

    /// Client clock minus server clock, µs: the middle of its bounds.
    fn offset_us(&self) -> Option<f64> {
        Some((self.fastest_back? as f64 - self.fastest_forward? as f64) / 2.0)
    }

    /// The figures of the entries echoed since the last call (an
    /// interval's), which also join the run's.
    pub fn interval(&mut self) -> Figures {
        let Some(offset) = self.offset_us() else {
            return Figures::default();
        };
        let mut latencies = Vec::with_capacity(self.pending.len());
        let mut longest_stall = None::<u64>;
        for entry in self.pending.drain(..) {
            // At least half the fastest round trip, so never negative.
            let latency = (entry.skewed_us as f64 + offset).max(0.0).round() as u64;
            latencies.push(latency);
            self.total.add(latency);
            let stall = latency.min(u64::from(entry.gap_us));
            longest_stall = Some(longest_stall.map_or(stall, |longest| longest.max(stall)));
        }
        let longest_stall = longest_stall.unwrap_or(0);
        self.longest_stall_us = self.longest_stall_us.max(longest_stall);
        let ms = |us: u64| us as f64 / 1000.0;
        // Selection, not a sort: linear in the interval's messages.
        let mut rank = |share: f64| {
            let at = rank_of(latencies.len(), share);
            (!latencies.is_empty()).then(|| *latencies.select_nth_unstable(at).1)
        };
        let (p50, p99) = (rank(0.50), rank(0.99));
        Figures {
            p50_ms: p50.map(ms),
            p99_ms: p99.map(ms),
            max_ms: latencies.iter().max().copied().map(ms),
            longest_stall_ms: (self.stalls && !latencies.is_empty()).then(|| ms(longest_stall)),
        }
    }

    /// The whole run's figures, after the last entries are counted.
    pub fn total(&mut self) -> (u64, Figures) {
        let _ = self.interval();
        let ms = |us: u64| us as f64 / 1000.0;
        let count = self.total.count;
        (
            count,
            Figures {
                p50_ms: self.total.percentile(0.50).map(ms),
                p99_ms: self.total.percentile(0.99).map(ms),
                max_ms: (count > 0).then(|| ms(self.total.max)),
                longest_stall_ms: (self.stalls && count > 0).then(|| ms(self.longest_stall_us)),
            },
        )
    }
}

/// The index of the `share` percentile among `count` sorted values
/// (nearest rank: the smallest value at least `share` of them do not
/// exceed).
fn rank_of(count: usize, share: f64) -> usize {
    ((count as f64 * share).ceil() as usize).clamp(1, count.max(1)) - 1
}

/// Latencies of a whole run, in µs, to within 1 %: exact below 128 µs,
/// then 64 buckets per doubling.
#[derive(Debug, Clone)]
struct Histogram {
    counts: Vec<u64>,
    count: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram {
            counts: vec![0; Histogram::bucket(u64::MAX) + 1],
            count: 0,
            max: 0,
        }
    }
}

impl Histogram {
    const SUB: u64 = 64;

    fn bucket(value: u64) -> usize {
        if value < 2 * Self::SUB {
            return value as usize;
        }
        let octave = u64::from(63 - value.leading_zeros()); // 7 and up
        let shift = octave - 6;
        (shift * Self::SUB + (value >> shift)) as usize
    }

    /// The middle of a bucket's values.
    fn value(bucket: usize) -> u64 {
        let bucket = bucket as u64;
        if bucket < 2 * Self::SUB {
            return bucket;
        }
        let shift = bucket / Self::SUB - 1;
        let low = (Self::SUB + bucket % Self::SUB) << shift;
        low + (1 << shift) / 2
    }

    fn add(&mut self, value: u64) {
        self.counts[Self::bucket(value)] += 1;
        self.count += 1;
        self.max = self.max.max(value);
    }

    fn percentile(&self, share: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let wanted = rank_of(self.count as usize, share) as u64 + 1;
        let mut seen = 0;
        for (bucket, &count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= wanted {
                return Some(Self::value(bucket).min(self.max));
            }
        }
        Some(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echo_reads_back_as_written() {
        let entries = [
            Entry {
                skewed_us: -5_000_000_000,
                gap_us: 12,
            },
            Entry {
                skewed_us: 7,
                gap_us: NO_GAP,
            },
        ];
        let bytes = Echo::encode(123_456, &entries);
        assert_eq!(bytes.len(), 9 + 2 * 12);
        assert_eq!(
            Echo::decode(&bytes),
            Some(Echo {
                sent_us: 123_456,
                entries: entries.to_vec()
            })
        );
        assert_eq!(Echo::decode(&bytes[..bytes.len() - 1]), None);
        // A report is never taken for an echo.
        assert_eq!(Echo::decode(&[0; 24]), None);
        assert_eq!(
            Echo::encode(1, &[0; ECHO_BATCH].map(|_| entries[0])).len(),
            1161
        );
    }

    #[test]
    fn the_server_notes_skew_and_gap_per_stream() {
        let mut echoes = Echoes::default();
        let message = |sent: u64| {
            let mut bytes = [0u8; 64];
            stamp(&mut bytes, sent);
            bytes
        };
        echoes.connected(1);
        assert!(!echoes.delivered(1, 1, &message(1000), 5000));
        assert!(!echoes.delivered(1, 2, &message(1100), 5100));
        assert!(!echoes.delivered(1, 1, &message(1200), 5300));
        // Unstamped or short messages are not echoed.
        assert!(!echoes.delivered(1, 1, &[0u8; 64], 5400));
        assert!(!echoes.delivered(1, 1, &[9u8; 15], 5400));
        let batches: Vec<_> = echoes.take().collect();
        assert_eq!(
            batches,
            [(
                1,
                vec![
                    Entry {
                        skewed_us: 4000,
                        gap_us: NO_GAP
                    },
                    Entry {
                        skewed_us: 4000,
                        gap_us: NO_GAP
                    },
                    Entry {
                        skewed_us: 4100,
                        gap_us: 300
                    },
                ]
            )]
        );
        assert_eq!(echoes.take().count(), 0);
    }

    /// Messages sent every ms on a path of `forward` µs each way, seen by
    /// a server whose clock is `skew` µs ahead; message 3 waits `held` µs
    /// more (a lost reliable message), and those behind it wait for it.
    fn run(skew: i64, forward: i64, held: i64) -> Figures {
        let mut estimator = Estimator::new(true);
        let mut echoes = Echoes::default();
        let mut last_delivery = 0;
        for k in 0..10i64 {
            let sent = 1_000_000 + k * 1000;
            let mut delivered = sent + forward + if k == 3 { held } else { 0 };
            delivered = delivered.max(last_delivery);
            last_delivery = delivered;
            let mut bytes = [0u8; 16];
            stamp(&mut bytes, sent as u64);
            echoes.delivered(0, 1, &bytes, (delivered + skew) as u64);
        }
        let (_, entries) = echoes.take().next().unwrap();
        // Echoed at the last delivery, arriving `forward` later.
        let echo_sent = last_delivery + skew;
        estimator.echo(
            Echo {
                sent_us: echo_sent as u64,
                entries,
            },
            (last_delivery + forward) as u64,
        );
        estimator.interval()
    }

    #[test]
    fn latency_is_one_way_whatever_the_clocks_say() {
        for skew in [0, 3_600_000_000, -987_654_321] {
            // A clean 20 ms path: every message takes 20 ms.
            let clean = run(skew, 20_000, 0);
            assert_eq!(clean.p50_ms, Some(20.0), "skew {skew}");
            assert_eq!(clean.max_ms, Some(20.0));
            // Deliveries 1 ms apart, each outstanding for 20 ms: the
            // longest time with nothing delivered is the first message's
            // trip.
            assert_eq!(clean.longest_stall_ms, Some(20.0));
            // Message 3 held 900 ms: it and the six behind it queue.
            let stalled = run(skew, 20_000, 900_000);
            assert_eq!(stalled.max_ms, Some(920.0));
            assert_eq!(stalled.p99_ms, Some(920.0));
            // The ones behind it waited 919, 918, ... 914 ms: p50 is the
            // fifth fastest of ten.
            assert_eq!(stalled.p50_ms, Some(915.0));
            // Nothing delivered from 1.022 s to 1.923 s, with message 3
            // outstanding from 1.003 s: 901 ms.
            assert_eq!(stalled.longest_stall_ms, Some(901.0));
        }
    }

    #[test]
    fn the_run_keeps_every_interval() {
        let mut estimator = Estimator::new(false);
        assert_eq!(estimator.interval(), Figures::default());
        let entries = (1..=1000)
            .map(|ms| Entry {
                skewed_us: ms * 1000,
                gap_us: 0,
            })
            .collect();
        // The echo itself took no time: the fastest message is taken to
        // have spent half of 1 ms on the way.
        estimator.echo(
            Echo {
                sent_us: 0,
                entries,
            },
            0,
        );
        let interval = estimator.interval();
        assert_eq!(interval.p50_ms, Some(500.0 - 0.5));
        assert_eq!(interval.p99_ms, Some(990.0 - 0.5));
        assert_eq!(interval.longest_stall_ms, None, "not reliable traffic");
        let (count, total) = estimator.total();
        assert_eq!(count, 1000);
        let near = |value: Option<f64>, want: f64| (value.unwrap() - want).abs() <= want / 100.0;
        assert!(near(total.p50_ms, 499.5), "{total:?}");
        assert!(near(total.p99_ms, 989.5), "{total:?}");
        assert_eq!(total.max_ms, Some(999.5));
    }

    #[test]
    fn the_histogram_is_within_one_percent() {
        let mut previous = 0;
        for value in (0..2_000_000u64).step_by(7).chain([u64::MAX / 3]) {
            let bucket = Histogram::bucket(value);
            assert!(bucket >= previous, "buckets grow with values");
            previous = bucket;
            let middle = Histogram::value(bucket) as f64;
            assert!(
                (middle - value as f64).abs() <= value as f64 / 100.0,
                "{value}"
            );
        }
        let mut histogram = Histogram::default();
        assert_eq!(histogram.percentile(0.5), None);
        for value in [5, 1, 3] {
            histogram.add(value);
        }
        assert_eq!(histogram.percentile(0.5), Some(3));
        assert_eq!(histogram.percentile(0.99), Some(5));
        assert_eq!(rank_of(100, 0.99), 98);
        assert_eq!(rank_of(1, 0.5), 0);
    }
}
