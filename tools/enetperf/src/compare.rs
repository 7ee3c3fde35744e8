//! `enetperf compare`: the same client run on stock ENet, then on enet-rs,
//! each against a server process on the same library; printed side by
//! side and drawn side by side.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::cli::CompareArgs;
use crate::report::{span, Summary};

/// Where `compare` draws its picture unless `--plot` names a file.
const COMPARE_PLOT: &str = "enetperf-compare.png";

/// Runs both, prints them (a table, or `--json`) and draws them.
pub fn run(options: &CompareArgs) -> Result<(), String> {
    let runs = run_both(options)?;
    if options.json {
        println!("{}", comparison_json(&runs));
    } else {
        println!("{}", comparison_table(&runs));
    }
    // compare always draws, unless told not to.
    if options.no_plot {
        return Ok(());
    }
    let path = options
        .plot
        .clone()
        .unwrap_or_else(|| PathBuf::from(COMPARE_PLOT));
    crate::draw(Path::new(&path), &runs)
}

/// A server and a client process per library, stock first; each client's
/// JSON report is read back.
fn run_both(options: &CompareArgs) -> Result<Vec<Summary>, String> {
    let exe = std::env::current_exe().map_err(|error| error.to_string())?;
    // The client gets the traffic options; the parent writes the output.
    // A loss-recovery mode is enet-rs's: its server and client get it.
    let passed = options.traffic.client_args();
    let loss_recovery: Vec<String> = options
        .traffic
        .loss_recovery_name()
        .map(|mode| vec!["--loss-recovery".to_string(), mode])
        .unwrap_or_default();
    let mut summaries = Vec::new();
    for library in ["stock", "ours"] {
        let path = crate::library_path(library)?;
        let extensions: &[String] = if library == "ours" {
            &loss_recovery
        } else {
            &[]
        };
        let mut server = Command::new(&exe)
            .args(["server", "--port", "0", "--once", "--library"])
            .arg(&path)
            .args(extensions)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| format!("cannot start the server: {error}"))?;
        let port = read_port(&mut server);
        let output = port.and_then(|port| {
            eprintln!("enetperf compare: {library} ({})", path.display());
            Command::new(&exe)
                .args(["client", "127.0.0.1"])
                .args(&passed)
                .args(["--port", &port.to_string(), "--json", "--library"])
                .arg(&path)
                .args(extensions)
                .stderr(Stdio::inherit())
                .output()
                .map_err(|error| format!("cannot start the client: {error}"))
        });
        let _ = server.kill();
        let _ = server.wait();
        let output = output?;
        if !output.status.success() {
            return Err(format!("the {library} run failed"));
        }
        summaries.push(Summary::from_json(&String::from_utf8_lossy(
            &output.stdout,
        ))?);
    }
    Ok(summaries)
}

/// The `PORT p` line a server prints first.
fn read_port(server: &mut std::process::Child) -> Result<u16, String> {
    use std::io::Read;
    let stdout = server.stdout.as_mut().ok_or("no server output")?;
    let mut line = Vec::new();
    let mut byte = [0u8];
    while stdout.read(&mut byte).map_err(|error| error.to_string())? == 1 && byte[0] != b'\n' {
        line.push(byte[0]);
    }
    String::from_utf8_lossy(&line)
        .strip_prefix("PORT ")
        .and_then(|port| port.trim().parse().ok())
        .ok_or_else(|| "the server did not start".to_string())
}

/// The runs side by side, with enet-rs's ratio to stock.
fn comparison_table(runs: &[Summary]) -> String {
    let width = runs
        .iter()
        .map(|run| run.library_label().len() + 3)
        .max()
        .unwrap_or(0)
        .max(16);
    let mut out = format!("{:<24}", "");
    for run in runs {
        out += &format!("{:>width$}", run.library_label());
    }
    type Show<'a> = &'a dyn Fn(&Summary) -> String;
    let rows: [(&str, Show); 11] = [
        ("delivered msg/s", &|r| format!("{:.0}", r.messages_per_s())),
        ("delivered MB/s", &|r| format!("{:.3}", r.megabytes_per_s())),
        ("delivered / sent", &|r| {
            format!("{:.1} %", r.delivered_percent())
        }),
        ("latency p50", &|r| span(r.latency.p50_ms)),
        ("latency p99", &|r| span(r.latency.p99_ms)),
        ("latency max", &|r| span(r.latency.max_ms)),
        ("longest stall", &|r| span(r.latency.longest_stall_ms)),
        ("mean rtt", &|r| format!("{:.1} ms", r.mean_rtt_ms())),
        ("mean loss", &|r| format!("{:.2} %", r.mean_loss_shown())),
        ("retransmissions", &|r| {
            r.retransmissions()
                .map_or("-".to_string(), |n| n.to_string())
        }),
        ("sent", &|r| r.sent.to_string()),
    ];
    for (name, show) in rows {
        out += &format!("\n{name:<24}");
        for run in runs {
            out += &format!("{:>width$}", show(run));
        }
    }
    if let [stock, ours] = runs {
        if let Some(verdict) = verdict(stock, ours) {
            out += &format!("\n\nenet-rs / stock: {verdict}");
        }
    }
    out
}

/// enet-rs against stock, the largest difference first: the longest
/// stalls side by side (a ratio of a stall that vanished says little),
/// and ratios of the latencies and of the messages delivered per second.
fn verdict(stock: &Summary, ours: &Summary) -> Option<String> {
    let seconds = |ms: f64| {
        if ms >= 10_000.0 {
            format!("{:.1} s", ms / 1000.0)
        } else {
            format!("{:.2} s", ms / 1000.0)
        }
    };
    // How far apart two figures are: the size of the log of their ratio
    // (1 ms added to both, so a figure of zero compares).
    let apart = |ours: f64, stock: f64| ((ours + 1.0) / (stock + 1.0)).ln().abs();
    let mut items: Vec<(f64, String)> = Vec::new();
    let (o, s) = (&ours.latency, &stock.latency);
    if let (Some(ours), Some(stock)) = (o.longest_stall_ms, s.longest_stall_ms) {
        items.push((
            apart(ours, stock),
            format!("longest stall {} vs {}", seconds(ours), seconds(stock)),
        ));
    }
    for (name, ours, stock) in [
        ("p99 latency", o.p99_ms, s.p99_ms),
        ("p50 latency", o.p50_ms, s.p50_ms),
    ] {
        if let (Some(ours), Some(stock)) = (ours, stock) {
            if stock > 0.0 {
                items.push((
                    apart(ours, stock),
                    format!("{name} {}", ratio(ours / stock)),
                ));
            }
        }
    }
    let (ours_rate, stock_rate) = (ours.messages_per_s(), stock.messages_per_s());
    if stock_rate > 0.0 {
        items.push((
            (ours_rate.max(1e-9) / stock_rate).ln().abs(),
            format!("delivered {}", ratio(ours_rate / stock_rate)),
        ));
    }
    if items.is_empty() {
        return None;
    }
    // Stable: equal differences keep the order above.
    items.sort_by(|a, b| b.0.total_cmp(&a.0));
    Some(
        items
            .into_iter()
            .map(|(_, item)| item)
            .collect::<Vec<_>>()
            .join("; "),
    )
}

/// A ratio with two decimals, or two significant digits below 0.1
/// (0.0043x rather than 0.00x).
fn ratio(value: f64) -> String {
    if value >= 0.1 || value <= 0.0 || !value.is_finite() {
        format!("{value:.2}x")
    } else {
        let decimals = (-value.log10()).ceil() as usize + 1;
        format!("{value:.decimals$}x")
    }
}

/// `compare --json`: both reports, stock first.
fn comparison_json(runs: &[Summary]) -> String {
    let reports: Vec<String> = runs
        .iter()
        .map(|run| run.json().replace('\n', "\n  "))
        .collect();
    format!(
        "{{\n  \"schema\": 1,\n  \"runs\": [\n  {}\n  ]\n}}",
        reports.join(",\n  ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latency::Figures;

    fn run(library: &str, delivered: u64, p50: f64, p99: f64, stall: f64) -> Summary {
        let mut summary = Summary::from_json(&format!(
            "{{\"library\": \"{library}\", \"library_path\": \"\", \"version\": \"1.3.17\",
              \"mode\": \"reliable\", \"size\": 64, \"rate\": 2000, \"peers\": 1, \"channels\": 1,
              \"duration_s\": 10, \"impairment\": {{\"loss\": 0.05, \"duplicate\": 0, \"delay_ms\": 20, \"jitter_ms\": 0}},
              \"sent\": 20000, \"delivered\": {delivered}, \"delivered_bytes\": 0, \"intervals\": [],
              \"loss_recovery\": null, \"latency_samples\": {delivered}}}"
        ))
        .unwrap();
        summary.latency = Figures {
            p50_ms: Some(p50),
            p99_ms: Some(p99),
            max_ms: Some(p99),
            longest_stall_ms: Some(stall),
        };
        summary
    }

    #[test]
    fn the_verdict_names_the_largest_difference_first() {
        let stock = run("stock ENet", 20000, 79.4, 1380.0, 972.0);
        let ours = run("enet-rs", 20000, 50.9, 71.2, 58.1);
        assert_eq!(
            verdict(&stock, &ours).unwrap(),
            "p99 latency 0.052x; longest stall 0.06 s vs 0.97 s; p50 latency 0.64x; delivered 1.00x"
        );
        let slow = run("stock ENet", 3900, 5210.0, 10_600.0, 42.2);
        let fast = run("enet-rs", 20000, 20.6, 140.0, 43.4);
        assert_eq!(
            verdict(&slow, &fast).unwrap(),
            "p50 latency 0.0040x; p99 latency 0.013x; delivered 5.13x; longest stall 0.04 s vs 0.04 s"
        );
        assert_eq!(ratio(1.0), "1.00x");
        assert_eq!(ratio(0.0), "0.00x");
    }
}
