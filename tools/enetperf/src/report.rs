//! What a run measured: the live line, the closing table, and the JSON
//! form (`--json`, schema version 1: fields are only ever added).

use std::fmt::Write;

use crate::latency::Figures;
use crate::library::Library;
use crate::session::ClientPlan;

/// One interval of a run (a second unless `--interval` says otherwise).
#[derive(Debug, Clone, PartialEq)]
pub struct Interval {
    /// Seconds since sending began, at the end of this interval.
    pub seconds: f64,
    /// Messages the server received per second.
    pub messages_per_s: f64,
    pub megabytes_per_s: f64,
    /// Messages sent so far.
    pub sent: u64,
    /// Mean round-trip time of the peers, ms.
    pub rtt_ms: f64,
    /// Mean packet loss ENet estimates, percent.
    pub loss_percent: f64,
    /// Mean packet throttle, percent (100: nothing held back).
    pub throttle_percent: f64,
    /// Reliable commands resent in the interval (enet-rs only).
    pub retransmissions: Option<u64>,
    /// Commands ENet counted lost in the interval, as a share of the
    /// datagrams it sent (the ratio behind its 10-second estimate,
    /// sampled every interval).
    pub sampled_loss_percent: f64,
    /// Messages sent in the interval that never arrived, percent: those
    /// numbered below the newest the server saw (0 for messages under
    /// 8 bytes, which carry no number).
    pub undelivered_percent: f64,
    /// The latency of the messages whose echo arrived in the interval,
    /// and the longest stall that ended with one of them.
    pub latency: Figures,
}

impl Interval {
    /// The loss to show for traffic of `mode`. Reliable messages are never
    /// lost end to end, so for them it is what ENet counted lost and sent
    /// again; for unreliable and unsequenced ones, the messages that never
    /// arrived.
    pub fn loss_shown(&self, mode: &str) -> f64 {
        if mode == "reliable" {
            self.sampled_loss_percent
        } else {
            self.undelivered_percent
        }
    }

    /// The live progress line.
    pub fn line(&self, mode: &str) -> String {
        let resent = self
            .retransmissions
            .map_or_else(|| "-".to_string(), |count| count.to_string());
        let latency = &self.latency;
        format!(
            "{:5.1} s  {:>10.0} msg/s  {:>8.3} MB/s  latency p50 {} p99 {} max {} ms  stall {} ms  rtt {:>6.1} ms  loss {:>5.2} %  resent {:>6}  throttle {:>5.1} %",
            self.seconds,
            self.messages_per_s,
            self.megabytes_per_s,
            milliseconds(latency.p50_ms, 6),
            milliseconds(latency.p99_ms, 6),
            milliseconds(latency.max_ms, 6),
            milliseconds(latency.longest_stall_ms, 6),
            self.rtt_ms,
            self.loss_shown(mode),
            resent,
            self.throttle_percent
        )
    }
}

/// A whole run.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub library: String,
    pub library_path: String,
    pub version: String,
    pub mode: String,
    pub size: usize,
    pub rate: u32,
    pub peers: usize,
    pub channels: usize,
    pub duration_s: f64,
    pub impairment: Impairment,
    pub sent: u64,
    pub delivered: u64,
    pub delivered_bytes: u64,
    pub intervals: Vec<Interval>,
    /// enet-rs's loss-recovery mode when `--loss-recovery` chose one.
    pub loss_recovery: Option<String>,
    /// Messages whose latency was measured.
    pub latency_samples: u64,
    /// The latency of the run's messages, and its longest stall.
    pub latency: Figures,
}

/// A figure in ms for a fixed-width column (`-`: none).
pub fn milliseconds(value: Option<f64>, width: usize) -> String {
    value.map_or_else(
        || format!("{:>width$}", "-"),
        |ms| format!("{ms:>width$.1}"),
    )
}

/// A duration for tables: in ms (two decimals under 1 ms), from 1 s in
/// s (`-`: none).
pub fn span(value: Option<f64>) -> String {
    match value {
        None => "-".to_string(),
        Some(ms) if ms >= 10_000.0 => format!("{:.1} s", ms / 1000.0),
        Some(ms) if ms >= 1000.0 => format!("{:.2} s", ms / 1000.0),
        Some(ms) if ms >= 100.0 => format!("{ms:.0} ms"),
        Some(ms) if ms >= 1.0 => format!("{ms:.1} ms"),
        Some(ms) => format!("{ms:.2} ms"),
    }
}

/// The proxy's settings for a run (all zero without one).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Impairment {
    pub loss: f64,
    pub duplicate: f64,
    pub delay_ms: u32,
    pub jitter_ms: u32,
}

impl Summary {
    pub fn new(
        plan: &ClientPlan,
        library: &Library,
        sent: u64,
        delivered: u64,
        delivered_bytes: u64,
        intervals: Vec<Interval>,
    ) -> Summary {
        Summary {
            library: library.name().to_string(),
            library_path: library.path.display().to_string(),
            version: library.version(),
            mode: plan.mode.name().to_string(),
            size: plan.size,
            rate: plan.rate,
            peers: plan.peers,
            channels: plan.channels,
            duration_s: plan.duration.as_secs_f64(),
            impairment: Impairment::default(),
            sent,
            delivered,
            delivered_bytes,
            intervals,
            loss_recovery: plan.loss_recovery.clone(),
            latency_samples: 0,
            latency: Figures::default(),
        }
    }

    /// The library's name, with the loss-recovery mode if one was chosen.
    pub fn library_label(&self) -> String {
        match &self.loss_recovery {
            Some(mode) => format!("{} {} ({mode} loss recovery)", self.library, self.version),
            None => format!("{} {}", self.library, self.version),
        }
    }

    fn mean(&self, of: impl Fn(&Interval) -> f64) -> f64 {
        if self.intervals.is_empty() {
            return 0.0;
        }
        self.intervals.iter().map(of).sum::<f64>() / self.intervals.len() as f64
    }

    /// Delivered messages as a share of those sent, percent.
    pub fn delivered_percent(&self) -> f64 {
        if self.sent > 0 {
            self.delivered as f64 * 100.0 / self.sent as f64
        } else {
            0.0
        }
    }

    /// Messages delivered per second over the sending time.
    pub fn messages_per_s(&self) -> f64 {
        self.delivered as f64 / self.duration_s
    }

    pub fn megabytes_per_s(&self) -> f64 {
        self.delivered_bytes as f64 / self.duration_s / 1e6
    }

    /// Reliable commands resent over the run (enet-rs only).
    pub fn retransmissions(&self) -> Option<u64> {
        self.intervals
            .iter()
            .map(|interval| interval.retransmissions)
            .sum()
    }

    pub fn mean_rtt_ms(&self) -> f64 {
        self.mean(|i| i.rtt_ms)
    }

    pub fn mean_loss_percent(&self) -> f64 {
        self.mean(|i| i.loss_percent)
    }

    /// The mean of the loss shown for this run's mode.
    pub fn mean_loss_shown(&self) -> f64 {
        self.mean(|i| i.loss_shown(&self.mode))
    }

    /// The closing table.
    pub fn table(&self) -> String {
        let resent = self.retransmissions();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<22} {} ({})",
            "library",
            self.library_label(),
            self.library_path
        );
        let _ = writeln!(
            out,
            "{:<22} {} messages of {} B on {} channel(s), {} peer(s), {} msg/s for {:.0} s",
            "traffic", self.mode, self.size, self.channels, self.peers, self.rate, self.duration_s
        );
        let i = self.impairment;
        let _ = writeln!(
            out,
            "{:<22} loss {} %, duplication {} %, delay {} ms, jitter {} ms",
            "impairment",
            i.loss * 100.0,
            i.duplicate * 100.0,
            i.delay_ms,
            i.jitter_ms
        );
        let _ = writeln!(out, "{:<22} {}", "sent", self.sent);
        let _ = writeln!(
            out,
            "{:<22} {} ({:.1} %)",
            "delivered",
            self.delivered,
            self.delivered_percent()
        );
        let _ = writeln!(
            out,
            "{:<22} {:.0} msg/s, {:.3} MB/s",
            "throughput",
            self.messages_per_s(),
            self.megabytes_per_s()
        );
        let l = &self.latency;
        if self.latency_samples > 0 {
            let _ = writeln!(
                out,
                "{:<22} p50 {}, p99 {}, max {} ({} messages)",
                "latency",
                span(l.p50_ms),
                span(l.p99_ms),
                span(l.max_ms),
                self.latency_samples
            );
        } else {
            let _ = writeln!(
                out,
                "{:<22} - (not measured: --no-latency, or messages under 16 bytes)",
                "latency"
            );
        }
        let _ = writeln!(
            out,
            "{:<22} {}",
            "longest stall",
            match l.longest_stall_ms {
                Some(_) => span(l.longest_stall_ms),
                None if self.mode != "reliable" => {
                    "- (reliable messages only: others are not waited for)".to_string()
                }
                None => "- (not measured)".to_string(),
            }
        );
        let _ = writeln!(out, "{:<22} {:.1} ms", "mean rtt", self.mean(|i| i.rtt_ms));
        let shown = if self.mode == "reliable" {
            "of commands resent per datagram (ENet's counters)"
        } else {
            "of messages never arrived"
        };
        let _ = writeln!(
            out,
            "{:<22} {:.2} % {shown}; ENet's 10-second estimate {:.2} %",
            "mean loss",
            self.mean_loss_shown(),
            self.mean(|i| i.loss_percent)
        );
        let _ = writeln!(
            out,
            "{:<22} {}",
            "retransmissions",
            resent.map_or_else(
                || "- (stock ENet does not count them)".to_string(),
                |n| n.to_string()
            )
        );
        let _ = write!(
            out,
            "{:<22} {:.1} %",
            "mean throttle",
            self.mean(|i| i.throttle_percent)
        );
        out
    }

    /// The JSON form.
    pub fn json(&self) -> String {
        let mut out = String::from("{\n");
        let _ = writeln!(out, "  \"schema\": 1,");
        let _ = writeln!(out, "  \"library\": {},", quote(&self.library));
        let _ = writeln!(out, "  \"library_path\": {},", quote(&self.library_path));
        let _ = writeln!(out, "  \"version\": {},", quote(&self.version));
        let _ = writeln!(out, "  \"mode\": {},", quote(&self.mode));
        let _ = writeln!(out, "  \"size\": {},", self.size);
        let _ = writeln!(out, "  \"rate\": {},", self.rate);
        let _ = writeln!(out, "  \"peers\": {},", self.peers);
        let _ = writeln!(out, "  \"channels\": {},", self.channels);
        let _ = writeln!(out, "  \"duration_s\": {},", number(self.duration_s));
        let i = self.impairment;
        let _ = writeln!(out, "  \"impairment\": {{\"loss\": {}, \"duplicate\": {}, \"delay_ms\": {}, \"jitter_ms\": {}}},",
            number(i.loss), number(i.duplicate), i.delay_ms, i.jitter_ms);
        let _ = writeln!(out, "  \"sent\": {},", self.sent);
        let _ = writeln!(out, "  \"delivered\": {},", self.delivered);
        let _ = writeln!(out, "  \"delivered_bytes\": {},", self.delivered_bytes);
        let _ = writeln!(
            out,
            "  \"messages_per_s\": {},",
            number(self.messages_per_s())
        );
        let _ = writeln!(
            out,
            "  \"megabytes_per_s\": {},",
            number(self.megabytes_per_s())
        );
        let _ = writeln!(out, "  \"mean_rtt_ms\": {},", number(self.mean_rtt_ms()));
        let _ = writeln!(
            out,
            "  \"mean_loss_percent\": {},",
            number(self.mean_loss_percent())
        );
        let resent = self
            .retransmissions()
            .map_or_else(|| "null".to_string(), |n| n.to_string());
        let _ = writeln!(out, "  \"retransmissions\": {resent},");
        let _ = writeln!(out, "  \"intervals\": [");
        for (index, interval) in self.intervals.iter().enumerate() {
            let comma = if index + 1 < self.intervals.len() {
                ","
            } else {
                ""
            };
            let resent = interval
                .retransmissions
                .map_or_else(|| "null".to_string(), |n| n.to_string());
            let _ = writeln!(out,
                "    {{\"seconds\": {}, \"messages_per_s\": {}, \"megabytes_per_s\": {}, \"sent\": {}, \"rtt_ms\": {}, \"loss_percent\": {}, \"throttle_percent\": {}, \"retransmissions\": {}, \"sampled_loss_percent\": {}, \"undelivered_percent\": {}, {}}}{comma}",
                number(interval.seconds), number(interval.messages_per_s), number(interval.megabytes_per_s),
                interval.sent, number(interval.rtt_ms), number(interval.loss_percent),
                number(interval.throttle_percent), resent, number(interval.sampled_loss_percent), number(interval.undelivered_percent),
                latency_fields(&interval.latency, ", "));
        }
        out.push_str("  ],\n");
        let mode = self
            .loss_recovery
            .as_deref()
            .map_or_else(|| "null".to_string(), quote);
        let _ = writeln!(out, "  \"loss_recovery\": {mode},");
        let _ = writeln!(out, "  \"latency_samples\": {},", self.latency_samples);
        let _ = write!(out, "  {}\n}}", latency_fields(&self.latency, ",\n  "));
        out
    }
}

impl Summary {
    /// Reads back what [`Summary::json`] wrote (as `compare` does with
    /// each client's output). The figures derived from the others
    /// (`messages_per_s` and the means) are recomputed, not read.
    pub fn from_json(text: &str) -> Result<Summary, String> {
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|error| format!("unreadable report: {error}"))?;
        let missing = |name: &str| format!("the report lacks {name}");
        let text_of = |name: &str| {
            json[name]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| missing(name))
        };
        let count = |value: &serde_json::Value, name: &str| {
            value[name].as_u64().ok_or_else(|| missing(name))
        };
        let real = |value: &serde_json::Value, name: &str| {
            value[name].as_f64().ok_or_else(|| missing(name))
        };
        let impairment = &json["impairment"];
        let intervals = json["intervals"]
            .as_array()
            .ok_or_else(|| missing("intervals"))?
            .iter()
            .map(|interval| {
                Ok(Interval {
                    seconds: real(interval, "seconds")?,
                    messages_per_s: real(interval, "messages_per_s")?,
                    megabytes_per_s: real(interval, "megabytes_per_s")?,
                    sent: count(interval, "sent")?,
                    rtt_ms: real(interval, "rtt_ms")?,
                    loss_percent: real(interval, "loss_percent")?,
                    throttle_percent: real(interval, "throttle_percent")?,
                    retransmissions: interval["retransmissions"].as_u64(),
                    sampled_loss_percent: real(interval, "sampled_loss_percent")?,
                    undelivered_percent: real(interval, "undelivered_percent")?,
                    latency: read_latency(interval),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Summary {
            library: text_of("library")?,
            library_path: text_of("library_path")?,
            version: text_of("version")?,
            mode: text_of("mode")?,
            size: count(&json, "size")? as usize,
            rate: count(&json, "rate")? as u32,
            peers: count(&json, "peers")? as usize,
            channels: count(&json, "channels")? as usize,
            duration_s: real(&json, "duration_s")?,
            impairment: Impairment {
                loss: real(impairment, "loss")?,
                duplicate: real(impairment, "duplicate")?,
                delay_ms: count(impairment, "delay_ms")? as u32,
                jitter_ms: count(impairment, "jitter_ms")? as u32,
            },
            sent: count(&json, "sent")?,
            delivered: count(&json, "delivered")?,
            delivered_bytes: count(&json, "delivered_bytes")?,
            intervals,
            loss_recovery: json["loss_recovery"].as_str().map(str::to_string),
            latency_samples: count(&json, "latency_samples")?,
            latency: read_latency(&json),
        })
    }
}

/// The latency fields' names, in their order in the JSON.
const LATENCY_FIELDS: [&str; 4] = [
    "latency_p50_ms",
    "latency_p99_ms",
    "latency_max_ms",
    "longest_stall_ms",
];

/// The latency fields as JSON members, joined by `separator`.
fn latency_fields(figures: &Figures, separator: &str) -> String {
    let values = [
        figures.p50_ms,
        figures.p99_ms,
        figures.max_ms,
        figures.longest_stall_ms,
    ];
    LATENCY_FIELDS
        .iter()
        .zip(values)
        .map(|(name, value)| {
            let value = value.map_or_else(|| "null".to_string(), number);
            format!("\"{name}\": {value}")
        })
        .collect::<Vec<_>>()
        .join(separator)
}

/// The latency fields of a JSON object (null or absent: none).
fn read_latency(object: &serde_json::Value) -> Figures {
    let [p50_ms, p99_ms, max_ms, longest_stall_ms] =
        LATENCY_FIELDS.map(|name| object[name].as_f64());
    Figures {
        p50_ms,
        p99_ms,
        max_ms,
        longest_stall_ms,
    }
}

/// A JSON string.
fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON number (finite; three decimals at most).
fn number(value: f64) -> String {
    if value.is_finite() {
        let text = format!("{value:.3}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        "0".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_strings_are_json() {
        assert_eq!(number(1.5), "1.5");
        assert_eq!(number(2.0), "2");
        assert_eq!(number(f64::NAN), "0");
        assert_eq!(quote("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
    }

    fn interval(seconds: f64, retransmissions: Option<u64>) -> Interval {
        Interval {
            seconds,
            messages_per_s: 1999.5,
            megabytes_per_s: 0.128,
            sent: 2000,
            rtt_ms: 41.25,
            loss_percent: 4.5,
            throttle_percent: 100.0,
            retransmissions,
            sampled_loss_percent: 2.375,
            undelivered_percent: 9.5,
            latency: Figures {
                p50_ms: Some(20.5),
                p99_ms: Some(412.125),
                max_ms: Some(930.0),
                longest_stall_ms: retransmissions.map(|_| 901.0),
            },
        }
    }

    #[test]
    fn a_report_reads_back_as_written() {
        for resent in [None, Some(17)] {
            let summary = Summary {
                library: "enet-rs".into(),
                library_path: "/tmp/a \"quoted\" path".into(),
                version: "1.3.17".into(),
                mode: "unsequenced".into(),
                size: 512,
                rate: 2000,
                peers: 3,
                channels: 2,
                duration_s: 2.5,
                impairment: Impairment {
                    loss: 0.05,
                    duplicate: 0.01,
                    delay_ms: 20,
                    jitter_ms: 5,
                },
                sent: 5000,
                delivered: 4750,
                delivered_bytes: 4750 * 512,
                intervals: vec![interval(1.0, resent), interval(2.0, resent)],
                loss_recovery: resent.map(|_| "fast".to_string()),
                latency_samples: 4700,
                latency: Figures {
                    p50_ms: Some(21.0),
                    p99_ms: None,
                    max_ms: Some(1000.0),
                    longest_stall_ms: resent.map(|_| 3100.25),
                },
            };
            assert_eq!(Summary::from_json(&summary.json()), Ok(summary));
        }
        assert!(Summary::from_json("{\"schema\": 1}")
            .unwrap_err()
            .contains("lacks"));
        assert!(Summary::from_json("not json").is_err());
    }
}
