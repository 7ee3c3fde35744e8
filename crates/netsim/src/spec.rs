//! The conditioner's settings as text, as `ENET_RS_NETSIM` and
//! `enet_rs_host_set_netsim` take them:
//!
//! ```text
//! loss=5%,lag=40ms,jitter=10ms,dup=1%,reorder=2%,corrupt=0.1%,rate=2mbit,seed=42
//! mtu=1280
//! preset:mobile,out.loss=3%
//! ```
//!
//! Items are separated by commas. A key without a prefix sets both
//! directions; `out.` (what the host sends) and `in.` (what it receives)
//! set one, and win over the unprefixed value wherever they stand. A
//! `preset:NAME` item lays down a named set first, which the other items
//! then change. Anything unreadable is refused with the key it was found
//! at, never guessed.

use std::fmt;

use crate::impairment::Profile;

/// The named sets, as specs of their own (see `docs/netsim.md`).
pub const PRESETS: &[(&str, &str)] = &[
    // A busy, distant access point: delay spikes from contention and
    // retries, losses in short bursts, some reordering and duplicated
    // frames, a few Mbit/s.
    (
        "wifi-bad",
        "lag=4ms,jitter=40ms,loss=4%,burst=3,dup=0.5%,reorder=1%,rate=6mbit",
    ),
    // A good home network: barely there.
    ("wifi", "lag=2ms,jitter=4ms,loss=0.3%"),
    // A phone on a busy cell: tens of ms each way, jitter, losses in
    // bursts (handovers), a slow uplink.
    (
        "mobile",
        "lag=35ms,jitter=20ms,loss=2%,burst=4,reorder=0.5%,out.rate=2mbit,in.rate=10mbit",
    ),
    // Across an ocean on a wired line: a long, steady round trip.
    ("intercontinental", "lag=75ms,jitter=3ms,loss=0.2%"),
];

/// Both directions' settings and the seed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spec {
    /// What the host sends.
    pub outgoing: Profile,
    /// What the host receives.
    pub incoming: Profile,
    /// `seed=`, if given.
    pub seed: Option<u64>,
}

impl Spec {
    /// The generator seed of each direction: the outgoing direction's is
    /// the seed itself, the incoming one's is derived from it.
    pub fn direction_seeds(seed: u64) -> [u64; 2] {
        [seed, seed ^ 0xD0D0_D0D0_D0D0_D0D0]
    }
}

/// Why a spec was refused: the key (or item) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    pub key: String,
    pub problem: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad key `{}`: {}", self.key, self.problem)
    }
}

impl std::error::Error for SpecError {}

/// A profile that passes everything untouched, as the spec's starting
/// point: jitter keeps order, and a rate cap's queue is sized from the
/// rate unless `queue=` says.
fn base() -> Profile {
    Profile {
        in_order: true,
        queue_bytes: 0,
        ..Profile::default()
    }
}

/// Reads `text`; `Ok(None)` for an empty spec (no conditioner).
pub fn parse(text: &str) -> Result<Option<Spec>, SpecError> {
    let items: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .collect();
    if items.is_empty() {
        return Ok(None);
    }
    let mut spec = Spec {
        outgoing: base(),
        incoming: base(),
        seed: None,
    };
    // Presets, then keys for both directions, then keys for one.
    for item in &items {
        if let Some(name) = item.strip_prefix("preset:") {
            let Some((_, preset)) = PRESETS.iter().find(|(known, _)| *known == name.trim()) else {
                let names: Vec<&str> = PRESETS.iter().map(|(name, _)| *name).collect();
                return Err(SpecError {
                    key: (*item).to_string(),
                    problem: format!("no such preset (there are {})", names.join(", ")),
                });
            };
            apply_all(&mut spec, preset)?;
        }
    }
    let plain: Vec<&str> = items
        .iter()
        .copied()
        .filter(|item| !item.starts_with("preset:"))
        .collect();
    for pass in [false, true] {
        for item in &plain {
            let Some((key, value)) = item.split_once('=') else {
                return Err(SpecError {
                    key: (*item).to_string(),
                    problem: "expected key=value or preset:NAME".into(),
                });
            };
            let directed = key.starts_with("out.") || key.starts_with("in.");
            if directed == pass {
                apply(&mut spec, key.trim(), value.trim())?;
            }
        }
    }
    for profile in [&mut spec.outgoing, &mut spec.incoming] {
        if profile.queue_bytes == 0 {
            // 100 ms at the cap, at least a dozen full datagrams.
            profile.queue_bytes = (profile.bandwidth / 10).max(16 * 1024) as usize;
        }
        if profile.burst > 0.0 && profile.loss * (profile.burst + 1.0) > profile.burst {
            return Err(SpecError {
                key: "burst".into(),
                problem: format!(
                    "bursts of {} cannot average {} % loss",
                    profile.burst,
                    profile.loss * 100.0
                ),
            });
        }
    }
    Ok(Some(spec))
}

/// The smallest MTU an IPv4 link may have (RFC 791).
const MINIMUM_MTU: u64 = 68;

/// Applies every item of a preset.
fn apply_all(spec: &mut Spec, text: &str) -> Result<(), SpecError> {
    for item in text.split(',') {
        if let Some((key, value)) = item.split_once('=') {
            apply(spec, key, value)?;
        }
    }
    Ok(())
}

/// Sets one key in the directions it names.
fn apply(spec: &mut Spec, key: &str, value: &str) -> Result<(), SpecError> {
    let bad = |problem: &str| SpecError {
        key: key.to_string(),
        problem: format!("{problem}, not {value:?}"),
    };
    let (directions, name) = if let Some(name) = key.strip_prefix("out.") {
        ([true, false], name)
    } else if let Some(name) = key.strip_prefix("in.") {
        ([false, true], name)
    } else {
        ([true, true], key)
    };
    if name == "seed" {
        if directions != [true, true] {
            return Err(bad("the seed is one for both directions"));
        }
        let seed = match value.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => value.parse(),
        };
        spec.seed = Some(seed.map_err(|_| bad("a whole number"))?);
        return Ok(());
    }
    let setter: Box<dyn Fn(&mut Profile)> = match name {
        "loss" => {
            let v = share(value).ok_or_else(|| bad("a share like 5% or 0.05, below 100%"))?;
            if v >= 1.0 {
                return Err(bad("a share below 100%"));
            }
            Box::new(move |p| p.loss = v)
        }
        "burst" => {
            let v: f64 = value
                .parse()
                .ok()
                .filter(|v: &f64| *v >= 1.0 && *v <= 1e6)
                .ok_or_else(|| bad("a mean burst length of 1 datagram or more"))?;
            Box::new(move |p| p.burst = v)
        }
        "dup" => {
            let v = share(value).ok_or_else(|| bad("a share like 1% or 0.01"))?;
            Box::new(move |p| p.duplicate = v)
        }
        "reorder" => {
            let v = share(value).ok_or_else(|| bad("a share like 2% or 0.02"))?;
            Box::new(move |p| p.reorder = v)
        }
        "corrupt" => {
            let v = share(value).ok_or_else(|| bad("a share like 0.1% or 0.001"))?;
            Box::new(move |p| p.corrupt = v)
        }
        "lag" => {
            let v = millis(value).ok_or_else(|| bad("a time like 40ms or 1s"))?;
            Box::new(move |p| p.delay_ms = v)
        }
        "jitter" => {
            let v = millis(value).ok_or_else(|| bad("a time like 10ms"))?;
            Box::new(move |p| p.jitter_ms = v)
        }
        "reorder-lag" => {
            let v = millis(value).ok_or_else(|| bad("a time like 20ms"))?;
            Box::new(move |p| p.reorder_delay_ms = v)
        }
        "rate" => {
            let v = rate(value).ok_or_else(|| bad("a rate like 2mbit, 500kbit or 100kB"))?;
            Box::new(move |p| p.bandwidth = v)
        }
        "queue" => {
            let v = bytes(value)
                .filter(|v| *v > 0)
                .ok_or_else(|| bad("a size like 64kB"))?;
            Box::new(move |p| p.queue_bytes = v as usize)
        }
        "mtu" => {
            let v = bytes(value)
                .filter(|v| (MINIMUM_MTU..=65_535).contains(v))
                .ok_or_else(|| bad("an IP datagram size from 68 to 65535 bytes"))?;
            Box::new(move |p| p.mtu = v as u32)
        }
        _ => {
            return Err(SpecError {
                key: key.to_string(),
                problem: "unknown key".into(),
            })
        }
    };
    if directions[0] {
        setter(&mut spec.outgoing);
    }
    if directions[1] {
        setter(&mut spec.incoming);
    }
    Ok(())
}

/// `5%` or `0.05`, in [0, 1].
fn share(value: &str) -> Option<f64> {
    let v = match value.strip_suffix('%') {
        Some(percent) => percent.trim().parse::<f64>().ok()? / 100.0,
        None => value.parse::<f64>().ok()?,
    };
    (0.0..=1.0).contains(&v).then_some(v)
}

/// `40ms`, `1.5s`, `500us`, or a bare number of milliseconds; at most
/// an hour.
fn millis(value: &str) -> Option<u32> {
    let (number, scale) = if let Some(n) = value.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = value.strip_suffix("us") {
        (n, 0.001)
    } else if let Some(n) = value.strip_suffix('s') {
        (n, 1000.0)
    } else {
        (value, 1.0)
    };
    let ms = number.trim().parse::<f64>().ok()? * scale;
    (0.0..=3_600_000.0).contains(&ms).then(|| ms.round() as u32)
}

/// A number with a decimal multiplier suffix (k, m, g, any case), and
/// what follows it.
fn scaled(value: &str) -> Option<(f64, &str)> {
    let end = value
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(value.len());
    let number: f64 = value[..end].parse().ok()?;
    let rest = &value[end..];
    let (scale, unit) = match rest.chars().next() {
        Some('k' | 'K') => (1e3, &rest[1..]),
        Some('m' | 'M') => (1e6, &rest[1..]),
        Some('g' | 'G') => (1e9, &rest[1..]),
        _ => (1.0, rest),
    };
    Some((number * scale, unit))
}

/// Bytes per second: `2mbit` (bits), `100kB` (bytes).
fn rate(value: &str) -> Option<u64> {
    let (number, unit) = scaled(value)?;
    let bytes = match unit {
        "bit" => number / 8.0,
        "B" => number,
        _ => return None,
    };
    (1.0..=1e12).contains(&bytes).then_some(bytes as u64)
}

/// A size: `64kB`, `1MB`, `1500B` or a bare number of bytes.
fn bytes(value: &str) -> Option<u64> {
    let (number, unit) = scaled(value)?;
    if !(unit.is_empty() || unit == "B") || !(0.0..=1e12).contains(&number) {
        return None;
    }
    Some(number as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> Spec {
        parse(text).unwrap().unwrap()
    }

    fn refused(text: &str) -> String {
        parse(text).unwrap_err().key
    }

    #[test]
    fn the_issue_example_reads_as_written() {
        let s =
            spec("loss=5%,lag=40ms,jitter=10ms,dup=1%,reorder=2%,corrupt=0.1%,rate=2mbit,seed=42");
        assert_eq!(s.outgoing, s.incoming);
        let p = s.outgoing;
        assert_eq!(p.loss, 0.05);
        assert_eq!((p.delay_ms, p.jitter_ms), (40, 10));
        assert_eq!((p.duplicate, p.reorder), (0.01, 0.02));
        assert!((p.corrupt - 0.001).abs() < 1e-12);
        assert_eq!(p.bandwidth, 250_000);
        assert_eq!(p.queue_bytes, 25_000);
        assert!(p.in_order);
        assert_eq!(s.seed, Some(42));
    }

    #[test]
    fn a_direction_wins_over_both_wherever_it_stands() {
        let s = spec("out.lag=10ms, lag=40ms ,in.loss=0.5,loss=1%");
        assert_eq!((s.outgoing.delay_ms, s.incoming.delay_ms), (10, 40));
        assert_eq!((s.outgoing.loss, s.incoming.loss), (0.01, 0.5));
    }

    #[test]
    fn presets_are_laid_down_first() {
        for (name, _) in PRESETS {
            spec(&format!("preset:{name}"));
        }
        let s = spec("loss=10%,preset:mobile");
        assert_eq!(s.outgoing.loss, 0.10);
        assert_eq!(s.outgoing.delay_ms, 35);
        assert_eq!(
            (s.outgoing.bandwidth, s.incoming.bandwidth),
            (250_000, 1_250_000)
        );
        let s = spec("preset:mobile,rate=1mbit");
        assert_eq!(s.outgoing.bandwidth, 125_000);
    }

    #[test]
    fn units() {
        assert_eq!(spec("lag=1.5s").outgoing.delay_ms, 1500);
        assert_eq!(spec("lag=7").outgoing.delay_ms, 7);
        assert_eq!(spec("jitter=1500us").outgoing.jitter_ms, 2);
        assert_eq!(spec("rate=100kB").outgoing.bandwidth, 100_000);
        assert_eq!(spec("rate=800kbit").outgoing.bandwidth, 100_000);
        assert_eq!(spec("rate=1Gbit,queue=1MB").outgoing.queue_bytes, 1_000_000);
        assert_eq!(spec("seed=0x10").seed, Some(16));
        assert_eq!(spec("loss=2%,burst=4").outgoing.burst, 4.0);
        assert_eq!(spec("mtu=1280").outgoing.mtu, 1280);
        assert_eq!(spec("mtu=1280").incoming.mtu, 1280);
        assert_eq!(spec("out.mtu=1.5k").outgoing.mtu, 1500);
        assert_eq!(spec("out.mtu=1.5k").incoming.mtu, 0);
    }

    #[test]
    fn empty_means_off() {
        assert_eq!(parse(""), Ok(None));
        assert_eq!(parse(" , "), Ok(None));
    }

    #[test]
    fn bad_values_are_refused_by_key() {
        assert_eq!(refused("loss=5%,lag=forty"), "lag");
        assert_eq!(refused("loss=150%"), "loss");
        assert_eq!(refused("loss=100%"), "loss");
        assert_eq!(refused("out.dup=-1%"), "out.dup");
        assert_eq!(refused("rate=2mbps"), "rate");
        assert_eq!(refused("lagg=5ms"), "lagg");
        assert_eq!(refused("in.seed=3"), "in.seed");
        assert_eq!(refused("preset:dialup"), "preset:dialup");
        assert_eq!(refused("loss"), "loss");
        assert_eq!(refused("burst=0.5"), "burst");
        assert_eq!(refused("loss=60%,burst=1"), "burst");
        assert_eq!(refused("queue=0"), "queue");
        assert_eq!(refused("lag=2h"), "lag");
        assert_eq!(refused("mtu=20"), "mtu");
        assert_eq!(refused("mtu=70000"), "mtu");
        assert_eq!(refused("mtu=big"), "mtu");
        let message = parse("jitter=soon").unwrap_err().to_string();
        assert!(message.contains("`jitter`"), "{message}");
    }
}
