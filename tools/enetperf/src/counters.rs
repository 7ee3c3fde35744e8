//! The server host's counters (`enet_rs_host_get_stats`), printed when the
//! server ends: as text, or as one JSON object with `--json`.

use std::fmt::Write;

use enet::abi::ENetRsHostStats;
use enet::endpoint::DatagramDrop;

/// The named counts, in the header's order.
fn fields(stats: &ENetRsHostStats) -> [(&'static str, u64); 13] {
    [
        ("datagrams_received", stats.datagramsReceived),
        ("bytes_received", stats.bytesReceived),
        ("datagrams_sent", stats.datagramsSent),
        ("bytes_sent", stats.bytesSent),
        ("datagrams_intercepted", stats.datagramsIntercepted),
        ("connects_accepted", stats.connectsAccepted),
        ("connects_refused", stats.connectsRefused),
        ("connects_evicted", stats.connectsEvicted),
        ("reassemblies_evicted", stats.reassembliesEvicted),
        ("reassembly_peers_lost", stats.reassemblyPeersLost),
        ("fragments_over_budget", stats.fragmentsOverBudget),
        ("dtls_sessions", stats.dtlsSessions),
        ("netsim_dropped", stats.netsimDropped),
    ]
}

/// Each drop reason this build knows, with its count.
fn drops(stats: &ENetRsHostStats) -> impl Iterator<Item = (&'static str, u64)> + '_ {
    DatagramDrop::all().map(|why| (why.name(), stats.dropped[why.index()]))
}

/// The counters as lines of text: every count, and the drop reasons that
/// happened.
pub fn text(stats: &ENetRsHostStats) -> String {
    let mut out = String::from("host counters:\n");
    for (name, value) in fields(stats) {
        let _ = writeln!(out, "  {name:<24} {value}");
    }
    let dropped: u64 = stats.dropped.iter().sum();
    let _ = writeln!(out, "  {:<24} {dropped}", "datagrams_dropped");
    for (name, value) in drops(stats).filter(|&(_, value)| value > 0) {
        let _ = writeln!(out, "    {name:<22} {value}");
    }
    out
}

/// The counters as one JSON object, every drop reason included.
pub fn json(stats: &ENetRsHostStats) -> String {
    let mut out = String::from("{\"host_counters\": {");
    for (name, value) in fields(stats) {
        let _ = write!(out, "\"{name}\": {value}, ");
    }
    out.push_str("\"dropped\": {");
    let reasons: Vec<String> = drops(stats)
        .map(|(name, value)| format!("\"{name}\": {value}"))
        .collect();
    out.push_str(&reasons.join(", "));
    out.push_str("}}}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use enet::wire::DropReason;

    fn sample() -> ENetRsHostStats {
        let mut stats = ENetRsHostStats {
            size: enet::abi::ENET_RS_HOST_STATS_SIZE_V1 as u64,
            datagramsReceived: 10,
            bytesReceived: 1000,
            datagramsSent: 9,
            bytesSent: 900,
            datagramsIntercepted: 0,
            connectsAccepted: 1,
            connectsRefused: 0,
            connectsEvicted: 0,
            reassembliesEvicted: 0,
            reassemblyPeersLost: 0,
            fragmentsOverBudget: 0,
            dtlsSessions: 0,
            netsimDropped: 0,
            dropped: [0; enet::abi::ENET_RS_DROP_REASON_SLOTS],
        };
        stats.dropped[DatagramDrop::Protocol(DropReason::BadChecksum).index()] = 2;
        stats
    }

    #[test]
    fn the_json_reads_back_with_every_count() {
        let value: serde_json::Value = serde_json::from_str(&json(&sample())).unwrap();
        let counters = &value["host_counters"];
        assert_eq!(counters["datagrams_received"], 10);
        assert_eq!(counters["connects_accepted"], 1);
        assert_eq!(counters["dropped"]["bad-checksum"], 2);
        assert_eq!(counters["dropped"]["oversized"], 0);
    }

    #[test]
    fn the_text_names_the_reasons_that_happened() {
        let text = text(&sample());
        assert!(text.contains("bad-checksum"), "{text}");
        assert!(!text.contains("oversized"), "{text}");
        assert!(text.contains("datagrams_dropped"), "{text}");
    }
}
