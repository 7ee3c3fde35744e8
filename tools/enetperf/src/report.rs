//! What a run measured: the live line, the closing table, and the JSON
//! form (`--json`, schema version 1: fields are only ever added).

use std::fmt::Write;

use crate::library::Library;
use crate::session::ClientPlan;

/// One second of a run.
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
}

impl Interval {
    /// The live progress line.
    pub fn line(&self) -> String {
        let resent = self
            .retransmissions
            .map_or_else(|| "-".to_string(), |count| count.to_string());
        format!(
            "{:5.1} s  {:>10.0} msg/s  {:>8.3} MB/s  rtt {:>6.1} ms  loss {:>5.2} %  resent {:>6}  throttle {:>5.1} %",
            self.seconds,
            self.messages_per_s,
            self.megabytes_per_s,
            self.rtt_ms,
            self.loss_percent,
            resent,
            self.throttle_percent
        )
    }
}

/// A whole run.
#[derive(Debug, Clone)]
pub struct Summary {
    pub library: String,
    pub library_path: String,
    pub version: String,
    pub mode: &'static str,
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
            mode: plan.mode.name(),
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
        }
    }

    fn mean(&self, of: impl Fn(&Interval) -> f64) -> f64 {
        if self.intervals.is_empty() {
            return 0.0;
        }
        self.intervals.iter().map(of).sum::<f64>() / self.intervals.len() as f64
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

    /// The closing table.
    pub fn table(&self) -> String {
        let resent = self.retransmissions();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<22} {} {} ({})",
            "library", self.library, self.version, self.library_path
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
            if self.sent > 0 {
                self.delivered as f64 * 100.0 / self.sent as f64
            } else {
                0.0
            }
        );
        let _ = writeln!(
            out,
            "{:<22} {:.0} msg/s, {:.3} MB/s",
            "throughput",
            self.messages_per_s(),
            self.megabytes_per_s()
        );
        let _ = writeln!(out, "{:<22} {:.1} ms", "mean rtt", self.mean(|i| i.rtt_ms));
        let _ = writeln!(
            out,
            "{:<22} {:.2} %",
            "mean loss (ENet)",
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
        let _ = writeln!(out, "  \"mode\": {},", quote(self.mode));
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
                "    {{\"seconds\": {}, \"messages_per_s\": {}, \"megabytes_per_s\": {}, \"sent\": {}, \"rtt_ms\": {}, \"loss_percent\": {}, \"throttle_percent\": {}, \"retransmissions\": {}}}{comma}",
                number(interval.seconds), number(interval.messages_per_s), number(interval.megabytes_per_s),
                interval.sent, number(interval.rtt_ms), number(interval.loss_percent),
                number(interval.throttle_percent), resent);
        }
        out.push_str("  ]\n}");
        out
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
}
