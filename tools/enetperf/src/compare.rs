//! `enetperf compare`: the same client run on stock ENet, then on enet-rs,
//! each against a server process on the same library; printed side by
//! side and drawn side by side.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::cli::CompareArgs;
use crate::report::Summary;

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
    let rows: [(&str, Show); 7] = [
        ("delivered msg/s", &|r| format!("{:.0}", r.messages_per_s())),
        ("delivered MB/s", &|r| format!("{:.3}", r.megabytes_per_s())),
        ("delivered / sent", &|r| {
            format!("{:.1} %", r.delivered_percent())
        }),
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
        if stock.messages_per_s() > 0.0 {
            out += &format!(
                "\n\nenet-rs / stock: {:.2}x the delivered messages per second",
                ours.messages_per_s() / stock.messages_per_s()
            );
        }
    }
    out
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
