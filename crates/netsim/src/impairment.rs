//! What happens to one datagram: the decisions, drawn from a seeded
//! generator, separate from any socket or clock so they can be tested
//! alone.

/// The impairments of one direction. Rates are probabilities in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Profile {
    /// The share of datagrams lost, on average.
    pub loss: f64,
    /// The mean length of a run of lost datagrams, for bursty loss (a
    /// two-state Gilbert-Elliott chain whose bad state loses everything);
    /// 0 for independent loss, each datagram on its own.
    pub burst: f64,
    pub duplicate: f64,
    /// The share of datagrams held back by `reorder_delay_ms` more, so
    /// later ones overtake them.
    pub reorder: f64,
    pub reorder_delay_ms: u32,
    pub corrupt: f64,
    pub delay_ms: u32,
    /// Uniform extra delay in `0..=jitter_ms`.
    pub jitter_ms: u32,
    /// Jitter never lets a datagram overtake an earlier one: a copy
    /// leaves no sooner than the one before it (reordering, when asked
    /// for, still holds some back). Off, each copy's jitter is its own and
    /// jitter reorders too (the proxy's way).
    pub in_order: bool,
    /// Bytes per second, 0 for no cap.
    pub bandwidth: u64,
    /// Bytes a capped direction may queue before it drops.
    pub queue_bytes: usize,
    /// The path MTU: the largest IP datagram (UDP payload and the IP and
    /// UDP headers) that passes; larger ones vanish without a word, as on
    /// a path that black-holes them. 0 for no limit.
    pub mtu: u32,
}

impl Default for Profile {
    fn default() -> Self {
        Profile {
            loss: 0.0,
            burst: 0.0,
            duplicate: 0.0,
            reorder: 0.0,
            reorder_delay_ms: 20,
            corrupt: 0.0,
            delay_ms: 0,
            jitter_ms: 0,
            in_order: false,
            bandwidth: 0,
            queue_bytes: 256 * 1024,
            mtu: 0,
        }
    }
}

/// SplitMix64: small, fast and plenty random for impairment decisions.
#[derive(Debug, Clone)]
pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Self {
        Random(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn chance(&mut self, probability: f64) -> bool {
        probability > 0.0 && self.unit() < probability
    }

    /// Uniform in `0..=max`.
    pub fn up_to(&mut self, max: u32) -> u32 {
        if max == 0 {
            0
        } else {
            (self.next_u64() % (u64::from(max) + 1)) as u32
        }
    }
}

/// The fate of one datagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Delays (ms from arrival) of the copies to send: none if lost, two
    /// if duplicated.
    pub copies: Vec<u32>,
    /// The bit flipped in every copy, if corrupted.
    pub flipped_bit: Option<usize>,
    pub reordered: bool,
}

/// Draws decisions for one direction.
#[derive(Debug, Clone)]
pub struct Impairer {
    pub profile: Profile,
    random: Random,
    /// In the loss burst state (bursty loss only).
    bad: bool,
}

impl Impairer {
    pub fn new(profile: Profile, seed: u64) -> Self {
        Impairer {
            profile,
            random: Random::new(seed),
            bad: false,
        }
    }

    /// Whether the next datagram is lost. Independent loss draws once per
    /// datagram; bursty loss draws once per datagram too, to step its
    /// chain: the bad state (everything lost) is left with probability
    /// 1/burst, so runs of losses last `burst` datagrams on average, and
    /// entered with the probability that makes the long-run share of lost
    /// datagrams `loss`.
    fn lost(&mut self) -> bool {
        let p = self.profile;
        if p.burst <= 0.0 {
            return self.random.chance(p.loss);
        }
        if p.loss <= 0.0 {
            return false;
        }
        let leave = 1.0 / p.burst.max(1.0);
        let enter = p.loss * leave / (1.0 - p.loss).max(f64::MIN_POSITIVE);
        let draw = self.random.unit();
        self.bad = if self.bad {
            draw >= leave
        } else {
            draw < enter
        };
        self.bad
    }

    /// Decides what happens to a datagram of `length` bytes. The same
    /// number of draws is made whatever is decided, so one datagram's fate
    /// never shifts the next one's.
    pub fn decide(&mut self, length: usize) -> Decision {
        let p = self.profile;
        let lost = self.lost();
        let duplicated = self.random.chance(p.duplicate);
        let reordered = self.random.chance(p.reorder);
        let corrupted = self.random.chance(p.corrupt);
        let bit = self.random.next_u64() as usize;
        let jitter = [
            self.random.up_to(p.jitter_ms),
            self.random.up_to(p.jitter_ms),
        ];
        if lost {
            return Decision {
                copies: Vec::new(),
                flipped_bit: None,
                reordered: false,
            };
        }
        let extra = if reordered { p.reorder_delay_ms } else { 0 };
        let copies = if duplicated { 2 } else { 1 };
        Decision {
            copies: (0..copies)
                .map(|i| p.delay_ms + jitter[i] + extra)
                .collect(),
            flipped_bit: (corrupted && length > 0).then(|| bit % (length * 8)),
            reordered,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(profile: Profile, seed: u64, n: usize) -> (usize, usize, usize, usize) {
        let mut impairer = Impairer::new(profile, seed);
        let (mut lost, mut duplicated, mut reordered, mut corrupted) = (0, 0, 0, 0);
        for _ in 0..n {
            let decision = impairer.decide(100);
            lost += usize::from(decision.copies.is_empty());
            duplicated += usize::from(decision.copies.len() == 2);
            reordered += usize::from(decision.reordered);
            corrupted += usize::from(decision.flipped_bit.is_some());
        }
        (lost, duplicated, reordered, corrupted)
    }

    #[test]
    fn rates_come_out_as_asked() {
        let profile = Profile {
            loss: 0.10,
            duplicate: 0.05,
            reorder: 0.10,
            corrupt: 0.01,
            ..Profile::default()
        };
        let n = 100_000;
        let (lost, duplicated, reordered, corrupted) = count(profile, 42, n);
        let near = |got: usize, rate: f64| (got as f64 / n as f64 - rate).abs() < rate * 0.1;
        assert!(near(lost, 0.10), "{lost}");
        // Duplication and reordering are drawn for surviving datagrams.
        assert!(near(duplicated, 0.05 * 0.9), "{duplicated}");
        assert!(near(reordered, 0.10 * 0.9), "{reordered}");
        assert!(near(corrupted, 0.01 * 0.9), "{corrupted}");
    }

    #[test]
    fn the_same_seed_decides_the_same() {
        let profile = Profile {
            loss: 0.2,
            duplicate: 0.2,
            reorder: 0.2,
            corrupt: 0.2,
            jitter_ms: 7,
            ..Profile::default()
        };
        let mut a = Impairer::new(profile, 9);
        let mut b = Impairer::new(profile, 9);
        let mut c = Impairer::new(profile, 10);
        let run = |i: &mut Impairer| (0..1000).map(|n| i.decide(n % 50 + 1)).collect::<Vec<_>>();
        let (ra, rb, rc) = (run(&mut a), run(&mut b), run(&mut c));
        assert_eq!(ra, rb);
        assert_ne!(ra, rc);
    }

    #[test]
    fn delays_add_up_and_flips_stay_inside() {
        let profile = Profile {
            reorder: 1.0,
            reorder_delay_ms: 30,
            corrupt: 1.0,
            delay_ms: 20,
            jitter_ms: 5,
            ..Profile::default()
        };
        let mut impairer = Impairer::new(profile, 1);
        for length in 1..200 {
            let decision = impairer.decide(length);
            assert_eq!(decision.copies.len(), 1);
            assert!((50..=55).contains(&decision.copies[0]));
            assert!(decision.flipped_bit.unwrap() < length * 8);
        }
    }

    /// Runs of consecutive losses: their count and mean length.
    fn bursts(profile: Profile, seed: u64, n: usize) -> (usize, usize, f64) {
        let mut impairer = Impairer::new(profile, seed);
        let (mut lost, mut runs, mut run) = (0usize, 0usize, 0usize);
        for _ in 0..n {
            if impairer.decide(100).copies.is_empty() {
                lost += 1;
                run += 1;
            } else if run > 0 {
                runs += 1;
                run = 0;
            }
        }
        (lost, runs, lost as f64 / runs.max(1) as f64)
    }

    #[test]
    fn independent_loss_of_ten_percent_over_100_000_datagrams() {
        let profile = Profile {
            loss: 0.10,
            ..Profile::default()
        };
        // ±0.6 % is over six standard deviations (0.095 %) of the share.
        for seed in [1, 42, 0xDEAD_BEEF] {
            let (lost, _, _, _) = count(profile, seed, 100_000);
            let share = lost as f64 / 100_000.0;
            assert!((share - 0.10).abs() <= 0.006, "seed {seed}: {share}");
        }
    }

    #[test]
    fn bursty_loss_keeps_its_average_and_its_burst_length() {
        for (loss, burst) in [(0.02, 4.0), (0.05, 2.0), (0.10, 8.0)] {
            let profile = Profile {
                loss,
                burst,
                ..Profile::default()
            };
            let n = 1_000_000;
            let (lost, runs, mean) = bursts(profile, 7, n);
            let share = lost as f64 / n as f64;
            // The runs' lengths are geometric: with thousands of runs the
            // mean's standard deviation is under 2 % of it, the share's
            // under 3 % of the loss; the bounds are twice that or more.
            assert!(
                (share - loss).abs() <= loss * 0.08,
                "{loss}/{burst}: share {share}"
            );
            assert!(
                (mean - burst).abs() <= burst * 0.06,
                "{loss}/{burst}: mean {mean} of {runs}"
            );
        }
        // Independent loss at the same rate has runs barely over 1 long.
        let (_, _, mean) = bursts(
            Profile {
                loss: 0.02,
                ..Profile::default()
            },
            7,
            1_000_000,
        );
        assert!(mean < 1.05, "{mean}");
    }

    #[test]
    fn the_same_seed_drops_the_same_datagrams() {
        for burst in [0.0, 4.0] {
            let profile = Profile {
                loss: 0.1,
                burst,
                ..Profile::default()
            };
            let pattern = |seed| {
                let mut impairer = Impairer::new(profile, seed);
                (0..10_000)
                    .map(|_| impairer.decide(100).copies.is_empty())
                    .collect::<Vec<_>>()
            };
            assert_eq!(pattern(5), pattern(5));
            assert_ne!(pattern(5), pattern(6));
        }
    }

    #[test]
    fn a_clean_profile_passes_everything_at_once() {
        let mut impairer = Impairer::new(Profile::default(), 5);
        for _ in 0..1000 {
            assert_eq!(
                impairer.decide(10),
                Decision {
                    copies: vec![0],
                    flipped_bit: None,
                    reordered: false
                }
            );
        }
    }
}
